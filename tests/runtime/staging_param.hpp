#pragma once
// Runtime tests run twice: with device memory mapped where the device allows (lavapipe's own way) and with
// every transfer through staging memory (a discrete GPU's way): TEST_P suites instantiated with
// KERNELGEN_STAGED_AND_MAPPED(Suite) get a Device made with test::staging(GetParam()).
#include <gtest/gtest.h>

#include "kernelgen/device.hpp"

namespace kernelgen::test {

inline DeviceOptions staging(bool staged) {
  DeviceOptions options;
  options.always_stage = staged;
  return options;
}

}  // namespace kernelgen::test

#define KERNELGEN_STAGED_AND_MAPPED(suite)                        \
  INSTANTIATE_TEST_SUITE_P(, suite, ::testing::Values(false, true), \
                           [](const auto& info) { return info.param ? "Staged" : "Mapped"; })
