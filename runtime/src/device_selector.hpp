#pragma once
#include <string>

#include "kernelgen/device.hpp"

namespace kernelgen {

// The selector a Device opens its device by, and where it came from, for the message when nothing matches.
struct DeviceSelector {
  std::string text;    // an index or a case-insensitive part of a name; empty: pick by type
  std::string origin;  // the variable that gave it
  std::string fix;     // what to do when it matches no device; may be empty
};

// DeviceOptions::selector, else $KERNELGEN_DEVICE, else the GPU ctest gave the test this process runs in: a
// test with RESOURCE_GROUPS gpu:1, run with --resource-spec-file, finds its device's id in
// $CTEST_RESOURCE_GROUP_0_GPU ("id:1,slots:1"), and the ids of kernelgen's resource spec are device indices.
// Read here rather than by a launcher around each test, so that every process a test starts (the kernelgen
// tool, its validation workers, a sub-build's build steps, a nested ctest) opens that same device.
DeviceSelector device_selector(const DeviceOptions& options);

// The id in ctest's value of CTEST_RESOURCE_GROUP_<n>_<TYPE>: "id:<id>,slots:<n>", or several such entries
// separated by ';', of which the first is taken. Throws std::invalid_argument naming `variable` for anything
// else.
std::string ctest_resource_id(const std::string& variable, const std::string& value);

}  // namespace kernelgen
