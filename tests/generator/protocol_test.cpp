// The validation protocol (kernelgen/validation/protocol.hpp): full with a CPU device and the Khronos layer,
// reduced, naming what is missing, without either; a reduced one refused unless accepted.
#include "kernelgen/validation/protocol.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kernelgen {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

DeviceInfo device_of(const char* name, const char* type) {
  DeviceInfo device;
  device.name = name;
  device.type = type;
  return device;
}

TEST(ValidationProtocol, IsFullWithACpuDeviceAndTheLayer) {
  const std::vector<DeviceInfo> gpu_and_lavapipe{device_of("NVIDIA H100", "discrete"), device_of("llvmpipe", "cpu")};
  EXPECT_TRUE(validation_protocol(gpu_and_lavapipe, true).full());
  EXPECT_TRUE(validation_protocol({device_of("llvmpipe", "cpu")}, true).full()) << "CI: lavapipe alone";
  EXPECT_EQ(reduced_validation_refused(validation_protocol(gpu_and_lavapipe, true), false), std::nullopt);
}

TEST(ValidationProtocol, NamesEachMissingPieceAndIsRefusedUnlessAccepted) {
  const ValidationProtocol gpu_alone = validation_protocol({device_of("NVIDIA H100", "discrete")}, false);
  EXPECT_FALSE(gpu_alone.full());
  EXPECT_THAT(gpu_alone.missing, ElementsAre("cpu_device", "validation_layer"));
  const auto refused = reduced_validation_refused(gpu_alone, false);
  ASSERT_TRUE(refused);
  EXPECT_THAT(*refused, HasSubstr("no CPU Vulkan device (lavapipe: mesa-vulkan-drivers)"));
  EXPECT_THAT(*refused, HasSubstr("no Khronos validation layer (vulkan-validationlayers)"));
  EXPECT_THAT(*refused, HasSubstr("KERNELGEN_REDUCED_VALIDATION=1"));
  EXPECT_EQ(reduced_validation_refused(gpu_alone, true), std::nullopt) << "accepted explicitly";
  EXPECT_THAT(validation_protocol({device_of("llvmpipe", "cpu")}, false).missing, ElementsAre("validation_layer"));
}

TEST(ValidationProtocol, TheRefusalNamesThePackagesOfWhatIsMissingOnlyAndEveryWayToAccept) {
  const auto no_layer = reduced_validation_refused(validation_protocol({device_of("llvmpipe", "cpu")}, false), false);
  ASSERT_TRUE(no_layer);
  EXPECT_THAT(*no_layer, HasSubstr("(apt-get install vulkan-validationlayers)"));
  EXPECT_THAT(*no_layer, Not(HasSubstr("mesa-vulkan-drivers")));
  EXPECT_THAT(*no_layer, HasSubstr("kernelgen validate: --reduced"));
  const auto no_cpu =
      reduced_validation_refused(validation_protocol({device_of("NVIDIA H100", "discrete")}, true), false);
  ASSERT_TRUE(no_cpu);
  EXPECT_THAT(*no_cpu, HasSubstr("(apt-get install mesa-vulkan-drivers)"));
  EXPECT_THAT(*no_cpu, Not(HasSubstr("vulkan-validationlayers")));
}

TEST(ValidationProtocol, OnlyTheValueOneAcceptsReducedValidation) {
  EXPECT_TRUE(accepts_reduced_validation("1"));
  for (const char* other : {"0", "", "yes", "true"}) EXPECT_FALSE(accepts_reduced_validation(other)) << other;
  EXPECT_FALSE(accepts_reduced_validation(std::nullopt));
  EXPECT_EQ(reduced_validation_accepted(validation_protocol({device_of("NVIDIA H100", "discrete")}, true)),
            "reduced validation, as KERNELGEN_REDUCED_VALIDATION=1 accepts: no CPU Vulkan device (lavapipe: "
            "mesa-vulkan-drivers)");
}

}  // namespace
}  // namespace kernelgen
