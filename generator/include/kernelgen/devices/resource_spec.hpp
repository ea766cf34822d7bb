#pragma once
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kernelgen/device.hpp"

namespace kernelgen {

// The resource spec file of `ctest --resource-spec-file`: a `gpu` resource of one slot for each device of
// `type` (that of the device kernelgen opens by default: every discrete GPU, say, and not the lavapipe beside
// them), so that tests declaring RESOURCE_GROUPS gpu:1 run side by side, never two on one device. Each id is
// the device's index, which the runtime reads back from $CTEST_RESOURCE_GROUP_0_GPU as its selector.
nlohmann::json resource_spec(const std::vector<DeviceInfo>& devices, const std::string& type);

// Writes resource_spec() of this machine's devices (Device::list(), of the type Device::describe_selected()
// has) to `path`, creating its folder. Returns a line for people: the file and the devices it lists.
std::string write_resource_spec(const std::filesystem::path& path);

}  // namespace kernelgen
