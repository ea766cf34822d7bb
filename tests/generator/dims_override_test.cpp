// dims_override: the sizes `kernelgen validate --dims` gives in place of an op's DIMS.
#include "kernelgen/contract/dims_override.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>

#include "kernelgen/contract/op_spec.hpp"

namespace kernelgen {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A matmul as kernelgen_add_op() writes it, with the dims it declares.
json matmul_json() {
  return json::parse(R"({
    "contract": 2,
    "name": "matmul",
    "description": "c = a * b",
    "inputs": [{"name": "a", "dtype": "f32", "shape": ["m", "k"]}, {"name": "b", "dtype": "f32", "shape": ["k", "n"]}],
    "outputs": [{"name": "c", "dtype": "f32", "shape": ["m", "n"]}],
    "dims": {"m": [1, 7, 130], "k": [1, 7, 130], "n": [1, 7, 130]},
    "bench_dims": {"m": 4096, "k": 4096, "n": 4096}
  })");
}

std::string rejection(const std::vector<std::string>& settings) {
  try {
    with_dims(matmul_json(), settings);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "accepted";
}

TEST(DimsOverrideTest, NamedDimsTakeTheGivenSizesAndTheOthersKeepTheirs) {
  const OpSpec spec = parse_op_spec(with_dims(matmul_json(), {"k=4096", "n=130,131"}));
  // The dims in the order the shapes name them: m, k, n.
  ASSERT_EQ(spec.dims.size(), 3u);
  EXPECT_EQ(spec.dims[0].name, "m");
  EXPECT_THAT(spec.dims[0].sizes, ElementsAre(1, 7, 130));
  EXPECT_EQ(spec.dims[1].name, "k");
  EXPECT_THAT(spec.dims[1].sizes, ElementsAre(4096));
  EXPECT_EQ(spec.dims[2].name, "n");
  EXPECT_THAT(spec.dims[2].sizes, ElementsAre(130, 131));
  for (const DimSpec& dim : spec.dims)
    EXPECT_EQ(dim.bench, 4096) << dim.name << ": BENCH_DIMS stay as declared";
}

TEST(DimsOverrideTest, NoSettingsLeaveTheSpecAsItWas) {
  EXPECT_EQ(with_dims(matmul_json(), {}), matmul_json());
}

TEST(DimsOverrideTest, ADimTheOpLacksIsRejectedWithTheDimsItHas) {
  // The spec's dims object lists them in key order.
  EXPECT_THAT(rejection({"rows=4"}),
              HasSubstr("--dims rows=4: op 'matmul' has no dim 'rows' (its dims: k, m, n)"));
}

TEST(DimsOverrideTest, ASpecThatIsNotAnObjectIsRejected) {
  EXPECT_THROW(with_dims(json::array(), {"k=1"}), std::invalid_argument);
}

TEST(DimsOverrideTest, MalformedSettingsAreRejectedWithTheExpectedForm) {
  for (const char* setting : {"k", "=4", "k=", "k4096"})
    EXPECT_THAT(rejection({setting}),
                HasSubstr(std::string("--dims ") + setting + ": expected NAME=size[,size...]"))
        << setting;
}

TEST(DimsOverrideTest, SizesMustBePositiveIntegers) {
  for (const char* setting : {"k=0", "k=-3", "k=4.5", "k=1,,2", "k=1,", "k=x"})
    EXPECT_THAT(rejection({setting}), HasSubstr("is not a positive integer")) << setting;
}

TEST(DimsOverrideTest, ADimNamedTwiceIsRejected) {
  EXPECT_THAT(rejection({"k=1", "k=4096"}), HasSubstr("--dims k=4096: dim 'k' is named twice"));
}

TEST(DimsOverrideTest, TheSpecsOwnChecksStillApplyToTheNewSizes) {
  // 2^31 elements or more in one tensor is past what the contract allows, however the sizes came.
  EXPECT_THROW(parse_op_spec(with_dims(matmul_json(), {"m=65536", "k=65536"})), std::invalid_argument);
}

TEST(TimedDimsOverrideTest, NamedDimsAreTimedAtTheGivenSizeOnEveryDeviceAndTheOthersKeepTheirs) {
  json declared = matmul_json();
  declared["cpu_bench_dims"] = {{"m", 256}, {"k", 256}};
  const OpSpec spec = parse_op_spec(with_timed_dims(declared, {"k=512"}));
  EXPECT_THAT(spec.bench_dims(false), ElementsAre(4096, 512, 4096));
  // n has no CPU_BENCH_DIMS of its own, so a CPU device times it at its BENCH_DIMS.
  EXPECT_THAT(spec.bench_dims(true), ElementsAre(256, 512, 4096));
  for (const DimSpec& dim : spec.dims) EXPECT_EQ(dim.sizes, (std::vector<int64_t>{1, 7, 130})) << dim.name;
}

TEST(TimedDimsOverrideTest, NoSettingsLeaveTheSpecAsItWas) {
  EXPECT_EQ(with_timed_dims(matmul_json(), {}), matmul_json());
}

TEST(TimedDimsOverrideTest, EachDimTakesOneSize) {
  try {
    with_timed_dims(matmul_json(), {"k=64,128"});
    ADD_FAILURE() << "two sizes for one dim were accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("--timed-dims k=64,128: an op is timed at one size a dim; give one"));
  }
}

TEST(TimedDimsOverrideTest, SettingsAreCheckedAsDimsSettingsAreAndNamedForTheirOption) {
  const auto rejection = [](const std::string& setting) {
    try {
      with_timed_dims(matmul_json(), {setting});
    } catch (const std::invalid_argument& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  EXPECT_THAT(rejection("rows=4"),
              HasSubstr("--timed-dims rows=4: op 'matmul' has no dim 'rows' (its dims: k, m, n)"));
  EXPECT_THAT(rejection("k"), HasSubstr("--timed-dims k: expected NAME=size"));
  EXPECT_THAT(rejection("k=0"), HasSubstr("--timed-dims k=0: '0' is not a positive integer"));
}

}  // namespace
}  // namespace kernelgen
