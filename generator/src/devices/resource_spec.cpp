#include "kernelgen/devices/resource_spec.hpp"

#include "kernelgen/store/files.hpp"

namespace kernelgen {

nlohmann::json resource_spec(const std::vector<DeviceInfo>& devices, const std::string& type) {
  nlohmann::json gpus = nlohmann::json::array();
  for (const DeviceInfo& device : devices)
    if (device.type == type) gpus.push_back({{"id", std::to_string(device.index)}, {"slots", 1}});
  return {{"version", {{"major", 1}, {"minor", 0}}}, {"local", {{{"gpu", gpus}}}}};
}

std::string write_resource_spec(const std::filesystem::path& path) {
  const std::vector<DeviceInfo> devices = Device::list();
  const std::string type = Device::describe_selected().type;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  const nlohmann::json spec = resource_spec(devices, type);
  write_file_atomic(path, spec.dump(2) + "\n");
  std::string listed;
  for (const nlohmann::json& gpu : spec["local"][0]["gpu"]) {
    const std::string id = gpu["id"];
    listed += "\n  gpu " + id + ": " + devices.at(std::stoul(id)).name;
  }
  return path.string() + ": one slot for each " + type + " device:" + listed + "\n";
}

}  // namespace kernelgen
