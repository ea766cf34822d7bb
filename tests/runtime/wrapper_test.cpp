// A generated op wrapper (the catalog's relu) called the ways issue 9 names: buffers made on the stack in a
// loop, where each iteration's buffers may take the last one's addresses and VkBuffer handles, and
// asynchronous submissions kept in flight.
#include <gtest/gtest.h>

#include <kernelgen/ops/relu.hpp>
#include <vector>

#include "staging_param.hpp"

namespace kernelgen {
namespace {

using Relu = ops::relu;

class WrapperTest : public ::testing::TestWithParam<bool> {
 protected:
  Device device{test::staging(GetParam())};
  Relu relu{device};
  const Relu::Dims dims{2};
};

KERNELGEN_STAGED_AND_MAPPED(WrapperTest);

TEST_P(WrapperTest, BuffersMadeOnTheStackEachIterationGetTheirOwnResults) {
  for (int iteration = 0; iteration < 100; ++iteration) {
    Buffer x(device, Relu::x_bytes(dims)), y(device, Relu::y_bytes(dims));
    const float value = iteration % 2 == 0 ? static_cast<float>(iteration) : -1.0f;
    x.upload(std::span<const float>(std::vector<float>(Relu::x_elements(dims), value)));
    relu(dims, x, y);
    ASSERT_EQ(y.download<float>(), std::vector<float>(Relu::y_elements(dims), std::max(value, 0.0f)))
        << "iteration " << iteration;
  }
  EXPECT_EQ(relu.kernel().cached_descriptor_sets(), 0u) << "every iteration's buffers died";
  EXPECT_EQ(device.take_validation_errors(), std::vector<std::string>{});
}

TEST_P(WrapperTest, SubmissionsKeptInFlightAllRun) {
  Buffer x(device, Relu::x_bytes(dims)), y(device, Relu::y_bytes(dims));
  x.upload(std::span<const float>(std::vector<float>(Relu::x_elements(dims), 3.0f)));
  std::vector<Submission> in_flight;
  for (int i = 0; i < 8; ++i) in_flight.push_back(relu.submit(dims, x, y));
  for (Submission& submission : in_flight) submission.wait();
  EXPECT_EQ(y.download<float>(), std::vector<float>(Relu::y_elements(dims), 3.0f));

  // Other buffers: the op records again, after its earlier submissions.
  Buffer x2(device, Relu::x_bytes(dims)), y2(device, Relu::y_bytes(dims));
  x2.upload(std::span<const float>(std::vector<float>(Relu::x_elements(dims), -2.0f)));
  Submission first = relu.submit(dims, x, y);
  Submission second = relu.submit(dims, x2, y2);
  second.wait();
  EXPECT_TRUE(first.ready());
  EXPECT_EQ(y2.download<float>(), std::vector<float>(Relu::y_elements(dims), 0.0f));
}

}  // namespace
}  // namespace kernelgen
