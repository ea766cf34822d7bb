// Prints "<index> <name>" of the device a kernelgen::Device opens in this environment, without opening it.
#include <cstdio>
#include <exception>

#include "kernelgen/device.hpp"

int main() {
  try {
    const kernelgen::DeviceInfo device = kernelgen::Device::describe_selected();
    std::printf("%u %s\n", device.index, device.name.c_str());
    return 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
}
