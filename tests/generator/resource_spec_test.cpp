// resource_spec: the file `ctest --resource-spec-file` reads, with a one-slot `gpu` per device of the type
// kernelgen opens by default, its id the device's index; write_resource_spec writes it for this machine.
#include "kernelgen/devices/resource_spec.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernelgen/store/files.hpp"
#include "scratch_dir.hpp"

namespace kernelgen {
namespace {

using ::testing::HasSubstr;

DeviceInfo device(uint32_t index, const std::string& name, const std::string& type) {
  DeviceInfo info;
  info.index = index;
  info.name = name;
  info.type = type;
  return info;
}

// Eight H100s with lavapipe installed beside them, listed after the first GPU.
std::vector<DeviceInfo> eight_gpus_and_lavapipe() {
  std::vector<DeviceInfo> devices{device(0, "NVIDIA H100 80GB HBM3", "discrete"),
                                  device(1, "llvmpipe (LLVM 15.0.6, 256 bits)", "cpu")};
  for (uint32_t index = 2; index < 9; ++index)
    devices.push_back(device(index, "NVIDIA H100 80GB HBM3", "discrete"));
  return devices;
}

TEST(ResourceSpec, IsCtestsVersionOneFormatWithOneLocalMachine) {
  const nlohmann::json spec = resource_spec(eight_gpus_and_lavapipe(), "discrete");
  EXPECT_EQ(spec["version"], (nlohmann::json{{"major", 1}, {"minor", 0}}));
  ASSERT_TRUE(spec["local"].is_array());
  ASSERT_EQ(spec["local"].size(), 1u);
  EXPECT_EQ(spec["local"][0].size(), 1u) << "only the gpu resource";
}

TEST(ResourceSpec, GivesEachDeviceOfTheTypeOneSlotUnderItsIndex) {
  const nlohmann::json gpus = resource_spec(eight_gpus_and_lavapipe(), "discrete")["local"][0]["gpu"];
  std::vector<std::string> ids;
  for (const nlohmann::json& gpu : gpus) {
    EXPECT_EQ(gpu["slots"], 1) << "two tests on one device would time each other";
    ids.push_back(gpu["id"]);
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"0", "2", "3", "4", "5", "6", "7", "8"}))
      << "lavapipe (1) left out";
}

TEST(ResourceSpec, ListsTheCpuDevicesOnAMachineWithNoGpu) {
  const std::vector<DeviceInfo> lavapipe{device(0, "llvmpipe (LLVM 15.0.6, 256 bits)", "cpu")};
  EXPECT_EQ(resource_spec(lavapipe, "cpu")["local"][0]["gpu"],
            (nlohmann::json::array({{{"id", "0"}, {"slots", 1}}})));
}

TEST(ResourceSpec, IsAnEmptyListWhenNoDeviceHasTheType) {
  EXPECT_EQ(resource_spec(eight_gpus_and_lavapipe(), "integrated")["local"][0]["gpu"],
            nlohmann::json::array());
}

TEST(WriteResourceSpec, WritesThisMachinesDevicesOfTheSelectedTypeCreatingTheFolder) {
  const test::ScratchDir scratch;
  const auto path = scratch.path() / "kernelgen" / "resource_spec.json";
  const std::string said = write_resource_spec(path);
  const nlohmann::json written = nlohmann::json::parse(read_file(path));
  EXPECT_EQ(written, resource_spec(Device::list(), Device::describe_selected().type));
  EXPECT_THAT(said, HasSubstr(path.string()));
  const std::string first_id = written["local"][0]["gpu"].at(0)["id"];
  EXPECT_THAT(said, HasSubstr("gpu " + first_id + ": " + Device::list().at(std::stoul(first_id)).name));
}

}  // namespace
}  // namespace kernelgen
