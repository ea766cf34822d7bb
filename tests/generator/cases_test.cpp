// make_cases: the validation suite of DESIGN.md, 5 random, 5 edge and 5 awkward-float cases, reproducible from a
// base seed.
#include "kernelgen/validation/cases.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <string>

#include "kernelgen/store/hash.hpp"
#include "runtime/scoped_env.hpp"

namespace kernelgen {
namespace {

using ::testing::ElementsAre;

OpSpec two_input_spec() {
  return parse_op_spec(nlohmann::json::parse(R"({
    "name": "add",
    "inputs": [{"name": "x", "dtype": "f32", "shape": [2, 3, 4]}, {"name": "y", "dtype": "f32", "shape": [3, 4]}],
    "outputs": [{"name": "z", "dtype": "f32", "shape": [2, 3, 4]}]
  })"));
}

OpSpec one_tensor_spec(int64_t elements) {
  const nlohmann::json shape = {elements};
  return parse_op_spec({{"name", "relu"},
                        {"inputs", {{{"name", "x"}, {"dtype", "f32"}, {"shape", shape}}}},
                        {"outputs", {{{"name", "y"}, {"dtype", "f32"}, {"shape", shape}}}}});
}

// The elements of a tensor as floats, for the checks written against the f32 values a case holds.
std::vector<float> floats(const HostTensor& tensor) {
  std::vector<float> values;
  for (int64_t i = 0; i < tensor.elements(); ++i) values.push_back(static_cast<float>(tensor.value(i)));
  return values;
}

const TestCase& find_case(const std::vector<TestCase>& cases, const std::string& name) {
  auto found = std::find_if(cases.begin(), cases.end(), [&](const TestCase& c) { return c.name == name; });
  if (found == cases.end()) throw std::logic_error("no case " + name);
  return *found;
}

TEST(Cases, AreFiveRandomFiveEdgeAndFiveAwkwardFloatCasesInAFixedOrder) {
  std::vector<std::string> names;
  for (const TestCase& c : make_cases(two_input_spec(), 1)) names.push_back(c.name);
  EXPECT_THAT(names, ElementsAre("uniform", "normal", "sparse", "large", "tiny", "zeros", "ones", "extremes",
                                 "checkerboard", "ramp", "mixed", "subnormal", "nonfinite",
                                 "signed_zeros", "outliers"));
  EXPECT_EQ(case_names().size(), names.size());
}

TEST(Cases, HoldOneTensorPerInputWithItsElementCount) {
  for (const TestCase& c : make_cases(two_input_spec(), 1)) {
    ASSERT_EQ(c.inputs.size(), 2u) << c.name;
    EXPECT_EQ(c.inputs[0].elements(), 24) << c.name;
    EXPECT_EQ(c.inputs[1].elements(), 12) << c.name;
    EXPECT_EQ(c.inputs[0].shape, (std::vector<int64_t>{2, 3, 4})) << c.name;
    EXPECT_EQ(c.inputs[0].dtype, DType::f32) << c.name;
    EXPECT_EQ(c.inputs[0].bytes.size(), 24u * 4) << c.name;
    EXPECT_TRUE(c.dims.empty()) << c.name;
  }
}

TEST(Cases, EachCaseHasItsOwnSeed) {
  std::set<uint64_t> seeds;
  for (const TestCase& c : make_cases(two_input_spec(), 42)) seeds.insert(c.seed);
  EXPECT_EQ(seeds.size(), case_names().size());
}

TEST(Cases, TheSameBaseSeedGivesIdenticalInputs) {
  const auto a = make_cases(two_input_spec(), 12345);
  const auto b = make_cases(two_input_spec(), 12345);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].seed, b[i].seed) << a[i].name;
    EXPECT_EQ(a[i].inputs, b[i].inputs) << a[i].name;
  }
}

TEST(Cases, ADifferentBaseSeedChangesEveryRandomCaseButNoEdgeCase) {
  const auto a = make_cases(two_input_spec(), 1);
  const auto b = make_cases(two_input_spec(), 2);
  for (const char* name :
       {"uniform", "normal", "sparse", "large", "tiny", "mixed", "subnormal", "nonfinite", "signed_zeros",
        "outliers"})
    EXPECT_NE(find_case(a, name).inputs, find_case(b, name).inputs) << name;
  for (const char* name : {"zeros", "ones", "extremes", "checkerboard", "ramp"})
    EXPECT_EQ(find_case(a, name).inputs, find_case(b, name).inputs) << name;
}

TEST(Cases, SignedZerosMixBothZerosInEveryRowWhoseLargestValueIsAZero) {
  const OpSpec spec = parse_op_spec(nlohmann::json::parse(R"({"name": "argmax",
    "inputs": [{"name": "x", "dtype": "f32", "shape": [8, 64]}], "outputs": [{"name": "y", "dtype": "i32", "shape": [8]}]})"));
  const HostTensor x = make_case(spec, "signed_zeros", 11).inputs[0];
  for (int64_t row = 0; row < 8; ++row) {
    int positive = 0, negative = 0;
    double largest = -1;
    for (int64_t c = 0; c < 64; ++c) {
      const double value = x.value(row * 64 + c);
      largest = std::max(largest, value);
      if (value == 0) ++(std::signbit(value) ? negative : positive);
    }
    EXPECT_GT(positive, 0) << "row " << row;
    EXPECT_GT(negative, 0) << "row " << row;
    EXPECT_EQ(largest, 0.0) << "row " << row;
  }
}

TEST(Cases, TwoInputsOfARandomCaseAreDrawnIndependently) {
  const TestCase c = make_case(two_input_spec(), "uniform", 7);
  const std::vector<float> x = floats(c.inputs[0]);
  const std::vector<float> head(x.begin(), x.begin() + 12);
  EXPECT_NE(head, floats(c.inputs[1]));
}

TEST(Cases, MakeCaseGivesTheSameTensorsAsTheSuite) {
  const auto suite = make_cases(two_input_spec(), 99);
  for (const TestCase& c : suite)
    EXPECT_EQ(make_case(two_input_spec(), c.name, 99).inputs, c.inputs) << c.name;
}

TEST(Cases, AValidatedSizeDrawsEveryElementFromTheCasesGeneratorInTurn) {
  const TestCase c = make_case(one_tensor_spec(int64_t{1} << 22), "uniform", 5);  // as large as CPU_BENCH_DIMS go
  std::mt19937_64 rng(c.seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (int64_t i = 0; i < c.inputs[0].elements(); ++i)
    ASSERT_EQ(c.inputs[0].value(i), uniform(rng)) << "element " << i;
}

TEST(Cases, ABenchmarksTensorIsDrawnInChunksThatDependOnTheSeedAlone) {
  const int64_t elements = (int64_t{1} << 22) + 12345;  // past the validated sizes: drawn in chunks, in parallel
  const HostTensor x = make_case(one_tensor_spec(elements), "uniform", 5).inputs[0];
  EXPECT_EQ(make_case(one_tensor_spec(elements), "uniform", 5).inputs[0], x);
  EXPECT_NE(make_case(one_tensor_spec(elements), "uniform", 6).inputs[0], x);
  const std::vector<float> values = floats(x);
  EXPECT_TRUE(std::all_of(values.begin(), values.end(), [](float v) { return v >= -1.0f && v < 1.0f; }));
  // Each chunk from its own generator: no chunk repeats the first, and the last, partial one is filled too.
  const int64_t chunk = int64_t{1} << 20;
  for (int64_t start = chunk; start < elements; start += chunk)
    EXPECT_FALSE(std::equal(values.begin() + start, values.begin() + std::min(elements, start + 64), values.begin()))
        << "chunk at " << start;
  EXPECT_NE(values[static_cast<size_t>(elements - 1)], 0.0f);
  // The patterns by position still follow the element's index.
  const HostTensor ramp = make_case(one_tensor_spec(elements), "ramp", 5).inputs[0];
  EXPECT_EQ(ramp.value(elements - 1), static_cast<double>(elements - 1 - elements / 2));
}

// Every case's inputs for one base seed, of four kinds of input: f32, f16, i32 and an index below a dim. A
// manifest records the seed its kernel was validated with (`validation.base_seed`), and `KERNELGEN_SEED`
// replays that validation only while a seed draws the same values: a change to how a case draws them (the
// generators, the order of the draws) changes these hashes, and must then say so in docs/validation.md.
TEST(Cases, ABaseSeedDrawsTheSameInputsAsWhenTheseHashesWereTaken) {
  const OpSpec spec = parse_op_spec(nlohmann::json::parse(R"({
    "name": "mixed_inputs", "contract": 2,
    "inputs": [{"name": "x", "dtype": "f32", "shape": ["rows", 32]}, {"name": "h", "dtype": "f16", "shape": [33]},
               {"name": "n", "dtype": "i32", "shape": [20]}, {"name": "ids", "dtype": "i32", "shape": [17],
               "index": "rows"}],
    "outputs": [{"name": "y", "dtype": "f32", "shape": ["rows", 32]}],
    "dims": {"rows": [1, 3]}})"));
  std::string all;
  for (const TestCase& c : make_cases(spec, 0x5eed, {3})) {
    all += c.name + ":";
    for (const HostTensor& input : c.inputs)
      all += content_hash(
                 std::string_view(reinterpret_cast<const char*>(input.bytes.data()), input.bytes.size())) +
             ",";
    all += "\n";
  }
  // Taken from the generator before the case kinds became an enum (commit ba9fd22's cases.cpp) and after.
  EXPECT_EQ(all,
            "uniform:345f626133785337,a37ed445aea8c6f9,c0d6b5c32b4f88c6,ff7bf9ac5e45ba84,\n"
            "normal:9233352e18c9f367,95bb603d9a1b7ace,6aecd66f450375bb,5731cd57fafa5e45,\n"
            "sparse:d8167f17d7ffa1a7,914e5c2077e6ffd8,94f068f27379634b,d25873abda923a57,\n"
            "large:8681cb6ba18a473a,fc0d4330fb54dbb0,94d2824ef5f2290f,98d45b6dcb275e67,\n"
            "tiny:c011565d3e99a55a,52a6f4ed5be515a5,1e098d4b763a9415,cb010a1c60a39c04,\n"
            "zeros:c86ec345c0ee8125,33bf1941cd091ced,f14b84b8290b8965,e7d16c6b24f5c8f5,\n"
            "ones:6be59f9f3d311225,d489fbc596a6d8b9,c7f3109c0ab697c5,173102dbf43a1fe4,\n"
            "extremes:fdcb0faafa16b7e5,14ca170a0ce0016f,4d7010b9026254fd,085a825d0d1fa317,\n"
            "checkerboard:285d0f0e9e3d1225,8a812861bfb458b9,7f9a7035086df7dd,421c9a184b0299f5,\n"
            "ramp:8957fdb85f01cc7f,45f86f8d8b7554cd,e345043c8d57f7fd,dfcf8d983ee2d007,\n"
            "mixed:2f98782d97c4fdf4,9927244c251ad162,0e5ac98dc121704d,f2512be623d3c744,\n"
            "subnormal:13b49d83bff1f829,e92a73b977d491e5,d9fe6023054f32ef,684652db189caed6,\n"
            "nonfinite:fd8b6e3f99fdf5ae,1d0d59a7e7722718,d3ee6cca4f359601,c439352f4a629b86,\n"
            "signed_zeros:1b246e9a83a7ea37,489b64b5964b4956,74ab39dcb27c6917,1842bf38d067a0b7,\n"
            "outliers:ef80b28fc6c14dc9,1343e49f1821bd7d,2fd3d19840581c3e,6bf69e9767107425,\n");
}

TEST(Cases, AnUnknownCaseNameIsRejected) {
  EXPECT_THROW(make_case(two_input_spec(), "gaussian", 1), std::invalid_argument);
}

TEST(Cases, RandomCasesDrawFromTheirDistributions) {
  const auto cases = make_cases(one_tensor_spec(4096), 2024);
  const auto uniform = floats(find_case(cases, "uniform").inputs[0]);
  EXPECT_TRUE(std::all_of(uniform.begin(), uniform.end(), [](float v) { return v >= -1 && v <= 1; }));
  EXPECT_LT(*std::min_element(uniform.begin(), uniform.end()), -0.9f);
  EXPECT_GT(*std::max_element(uniform.begin(), uniform.end()), 0.9f);

  const auto normal = floats(find_case(cases, "normal").inputs[0]);
  EXPECT_GT(*std::max_element(normal.begin(), normal.end(),
                              [](float a, float b) { return std::fabs(a) < std::fabs(b); }),
            1.5f)
      << "a normal(0,1) sample of 4096 reaches past 1.5";

  const auto sparse = floats(find_case(cases, "sparse").inputs[0]);
  const auto zeros = std::count(sparse.begin(), sparse.end(), 0.0f);
  EXPECT_GT(zeros, 4096 * 85 / 100);
  EXPECT_LT(zeros, 4096 * 95 / 100);

  const auto large = floats(find_case(cases, "large").inputs[0]);
  EXPECT_TRUE(std::all_of(large.begin(), large.end(), [](float v) { return std::fabs(v) <= 1e4f; }));
  EXPECT_GT(*std::max_element(large.begin(), large.end()), 9e3f);

  const auto tiny = floats(find_case(cases, "tiny").inputs[0]);
  EXPECT_TRUE(std::all_of(tiny.begin(), tiny.end(), [](float v) { return std::fabs(v) <= 1e-4f; }));
  EXPECT_GT(*std::max_element(tiny.begin(), tiny.end()), 9e-5f);
}

TEST(Cases, EdgeCasesHoldExactValues) {
  const auto cases = make_cases(two_input_spec(), 5);
  const auto x = [&](const char* name) { return floats(find_case(cases, name).inputs[0]); };
  EXPECT_EQ(x("zeros"), std::vector<float>(24, 0.0f));
  EXPECT_EQ(x("ones"), std::vector<float>(24, 1.0f));
  const std::vector<float> extremes = x("extremes");
  for (size_t i = 0; i < 24; ++i) EXPECT_EQ(extremes[i], i % 2 ? -65504.0f : 65504.0f) << i;
  // x is [2,3,4]: the sign alternates along the last two dimensions, and each of the 2 slices repeats it.
  const std::vector<float> slice{1, -1, 1, -1, -1, 1, -1, 1, 1, -1, 1, -1};
  const std::vector<float> checkerboard = x("checkerboard");
  EXPECT_EQ(std::vector<float>(checkerboard.begin(), checkerboard.begin() + 12), slice);
  EXPECT_EQ(std::vector<float>(checkerboard.begin() + 12, checkerboard.end()), slice);
  const std::vector<float> ramp = x("ramp");
  for (size_t i = 0; i < 24; ++i) EXPECT_EQ(ramp[i], static_cast<float>(static_cast<int>(i) - 12)) << i;
}

// Contract 2: a case for each dtype of dtypes.def, at the given dims, and INDEX inputs within their bound.

// x:<dtype>[64,64] -> y:<dtype>[64,64]
OpSpec one_dtype_spec(std::string_view dtype) {
  nlohmann::json spec = nlohmann::json::parse(R"({"name": "copy",
    "inputs": [{"name": "x", "shape": [64, 64]}], "outputs": [{"name": "y", "shape": [64, 64]}]})");
  spec["inputs"][0]["dtype"] = dtype;
  spec["outputs"][0]["dtype"] = dtype;
  return parse_op_spec(spec);
}

// An embedding lookup: ids index the rows of table, a dim that DIMS validates at several sizes.
OpSpec gather_spec() {
  return parse_op_spec(nlohmann::json::parse(R"({"name": "gather",
    "inputs": [{"name": "ids", "dtype": "i32", "shape": ["n"], "index": "vocab"},
               {"name": "table", "dtype": "f32", "shape": ["vocab", 4]},
               {"name": "slots", "dtype": "u32", "shape": ["n"], "index": 3}],
    "outputs": [{"name": "y", "dtype": "f32", "shape": ["n", 4]}],
    "dims": {"n": [1, 1000], "vocab": [1, 7, 5000]}})"));
}

double min_of(const HostTensor& t) {
  double low = std::numeric_limits<double>::infinity();
  for (int64_t i = 0; i < t.elements(); ++i) low = std::min(low, t.value(i));
  return low;
}

double max_of(const HostTensor& t) {
  double high = -std::numeric_limits<double>::infinity();
  for (int64_t i = 0; i < t.elements(); ++i) high = std::max(high, t.value(i));
  return high;
}

TEST(CasesPerDtype, EveryValueIsFiniteAndWithinTheDtypesRangeInEveryCaseButNonfinite) {
  for (const DTypeInfo& info : kDTypes) {
    const OpSpec spec = one_dtype_spec(info.name);
    for (const TestCase& c : make_cases(spec, 11)) {
      const HostTensor& x = c.inputs[0];
      ASSERT_EQ(x.dtype, info.dtype);
      ASSERT_EQ(x.bytes.size(), 4096 * info.bytes) << info.name << " " << c.name;
      for (int64_t i = 0; i < x.elements(); ++i) {
        const double v = x.value(i);
        if (c.name == "nonfinite" && info.kind == DTypeKind::Float) continue;
        ASSERT_TRUE(std::isfinite(v)) << info.name << " " << c.name << " element " << i;
        ASSERT_GE(v, lowest_value(info.dtype)) << info.name << " " << c.name << " element " << i;
        ASSERT_LE(v, highest_value(info.dtype)) << info.name << " " << c.name << " element " << i;
        if (info.kind != DTypeKind::Float) {
          ASSERT_EQ(v, std::trunc(v)) << info.name << " " << c.name;
        }
      }
    }
  }
}

TEST(CasesPerDtype, IntegerExtremesAreTheDtypesLimitsAndLargeSpansItsRange) {
  for (const char* name : {"i32", "u32", "i8", "u8"}) {
    const DType dtype = *parse_dtype(name);
    const auto cases = make_cases(one_dtype_spec(name), 3);
    const HostTensor& extremes = find_case(cases, "extremes").inputs[0];
    for (int64_t i = 0; i < 8; ++i)
      EXPECT_EQ(extremes.value(i), i % 2 ? lowest_value(dtype) : highest_value(dtype)) << name << " " << i;
    const HostTensor& large = find_case(cases, "large").inputs[0];
    EXPECT_GT(max_of(large), highest_value(dtype) / 2) << name;
    if (lowest_value(dtype) < 0) {
      EXPECT_LT(min_of(large), lowest_value(dtype) / 2) << name;
    }
    const HostTensor& uniform = find_case(cases, "uniform").inputs[0];
    EXPECT_GE(min_of(uniform), std::max(lowest_value(dtype), -100.0)) << name << ": small values";
    EXPECT_LE(max_of(uniform), 100) << name << ": small values";
  }
  EXPECT_EQ(lowest_value(DType::i8), -128);
  EXPECT_EQ(highest_value(DType::u32), 4294967295.0);
}

TEST(CasesPerDtype, SignedIntegersGetNegativesAndUnsignedOnesNever) {
  for (const char* name : {"i32", "i8"}) {
    const auto cases = make_cases(one_dtype_spec(name), 5);
    for (const char* kind : {"uniform", "normal", "large", "extremes", "checkerboard", "ramp"})
      EXPECT_LT(min_of(find_case(cases, kind).inputs[0]), 0) << name << " " << kind;
    EXPECT_EQ(min_of(find_case(cases, "checkerboard").inputs[0]), -1) << name;
  }
  for (const char* name : {"u32", "u8"}) {
    for (const TestCase& c : make_cases(one_dtype_spec(name), 5)) {
      EXPECT_GE(min_of(c.inputs[0]), 0) << name << " " << c.name;
      if (c.name == "checkerboard") {
        EXPECT_EQ(max_of(c.inputs[0]), 1) << name << ": 0 and 1";
      }
    }
  }
}

TEST(CasesPerDtype, IntegerRampsCountThroughTheRangeAndWrapInsideIt) {
  const HostTensor i32 = make_case(one_dtype_spec("i32"), "ramp", 1).inputs[0];
  for (int64_t i = 0; i < 4096; i += 97) EXPECT_EQ(i32.value(i), static_cast<double>(i - 2048)) << i;
  const HostTensor u8 = make_case(one_dtype_spec("u8"), "ramp", 1).inputs[0];
  for (int64_t i = 0; i < 4096; i += 97) EXPECT_EQ(u8.value(i), static_cast<double>(i % 256)) << i;
  const HostTensor i8 = make_case(one_dtype_spec("i8"), "ramp", 1).inputs[0];
  for (int64_t i = 0; i < 4096; i += 97)
    EXPECT_EQ(i8.value(i), static_cast<double>(((i - 2048 + 128) % 256 + 256) % 256 - 128)) << i;
}

// 64x64 = 4096 elements count from -2048 as in f32; a longer f16 ramp would pass 65504 and turn to infinity,
// so it repeats -2048..2047, every value exact.
TEST(CasesPerDtype, AnF16RampStaysFiniteAndExact) {
  const HostTensor f16 = make_case(one_dtype_spec("f16"), "ramp", 1).inputs[0];
  for (int64_t i = 0; i < 4096; i += 97) EXPECT_EQ(f16.value(i), static_cast<double>(i - 2048)) << i;
  nlohmann::json json = to_json(one_dtype_spec("f16"));
  json["inputs"][0]["shape"] = {385, 385};
  json["outputs"][0]["shape"] = {385, 385};
  const HostTensor longer = make_case(parse_op_spec(json), "ramp", 1).inputs[0];
  EXPECT_EQ(max_of(longer), 2047);
  EXPECT_EQ(min_of(longer), -2048);
  EXPECT_EQ(longer.value(4096 + 5), -2043);
}

TEST(CasesPerDtype, F16HoldsItsExtremesAndSubnormalsInTiny) {
  const auto cases = make_cases(one_dtype_spec("f16"), 8);
  const HostTensor& extremes = find_case(cases, "extremes").inputs[0];
  EXPECT_EQ(extremes.value(0), 65504.0);
  EXPECT_EQ(extremes.value(1), -65504.0);
  EXPECT_EQ(highest_value(DType::f16), 65504.0);
  EXPECT_EQ(lowest_value(DType::f16), -65504.0);
  const HostTensor& tiny = find_case(cases, "tiny").inputs[0];
  const double smallest_normal = std::ldexp(1.0, -14);
  int64_t subnormals = 0;
  for (int64_t i = 0; i < tiny.elements(); ++i) {
    const double v = std::fabs(tiny.value(i));
    EXPECT_LE(v, 1e-4) << i;
    if (v > 0 && v < smallest_normal) ++subnormals;
  }
  EXPECT_GT(subnormals, 100) << "uniform in +-1e-4 puts over half of its values below f16's smallest normal";
  EXPECT_GT(max_of(find_case(cases, "large").inputs[0]), 9e3);
}

// bf16 (a storage dtype: the upper half of an f32) holds the integers exactly up to 256: a ramp of 4096 repeats
// -256..255. Its values are f32's rounded to 8 bits of precision, to nearest even; its extremes are f32's.
TEST(CasesPerDtype, ABf16RampRepeatsItsExactIntegersAndItsValuesAreRoundedF32s) {
  const HostTensor ramp = make_case(one_dtype_spec("bf16"), "ramp", 1).inputs[0];
  EXPECT_EQ(max_of(ramp), 255);
  EXPECT_EQ(min_of(ramp), -256);
  EXPECT_EQ(ramp.value(512 + 7), -249);
  HostTensor x(DType::bf16, {3});
  x.set(0, 1.0 + 1.0 / 256);  // halfway between 1 and 1 + 2^-7: to even, 1
  x.set(1, 1.0 + 3.0 / 256);  // halfway between 1 + 2^-7 and 1 + 2^-6: to even, 1 + 2^-6
  x.set(2, -3.0e38);
  EXPECT_EQ(x.value(0), 1.0);
  EXPECT_EQ(x.value(1), 1.0 + 1.0 / 64);
  EXPECT_EQ(x.bytes[0] | (x.bytes[1] << 8), 0x3f80) << "1.0's upper 16 bits";
  EXPECT_NEAR(x.value(2), -3.0e38, 3.0e38 / 128);
  EXPECT_GT(highest_value(DType::bf16), 3.38e38);
  EXPECT_EQ(lowest_value(DType::bf16), -highest_value(DType::bf16));
}

TEST(CasesAtDims, IndexInputsAreAlwaysBelowTheirBoundAtTheGivenDims) {
  const OpSpec spec = gather_spec();
  ASSERT_THAT(spec.dim_names(), ElementsAre("n", "vocab"));
  for (const int64_t vocab : {1, 7, 5000}) {
    const DimValues dims{1000, vocab};
    double largest_id = 0;
    for (const TestCase& c : make_cases(spec, 21, dims)) {
      const HostTensor& ids = c.inputs[0];
      ASSERT_EQ(ids.elements(), 1000);
      EXPECT_GE(min_of(ids), 0) << c.name << " at vocab=" << vocab;
      EXPECT_LT(max_of(ids), static_cast<double>(vocab)) << c.name << " at vocab=" << vocab;
      largest_id = std::max(largest_id, max_of(ids));
      const HostTensor& slots = c.inputs[2];
      EXPECT_GE(min_of(slots), 0) << c.name;
      EXPECT_LT(max_of(slots), 3) << c.name << ": a constant bound";
    }
    EXPECT_EQ(largest_id, static_cast<double>(vocab - 1))
        << "the bound is this size's vocab, reached at its edge";
  }
}

TEST(CasesAtDims, ShapesFollowTheDims) {
  const OpSpec spec = gather_spec();
  const DimValues dims{13, 7};
  for (const TestCase& c : make_cases(spec, 4, dims)) {
    EXPECT_EQ(c.dims, dims) << c.name;
    ASSERT_EQ(c.inputs.size(), 3u);
    EXPECT_EQ(c.inputs[0].shape, (std::vector<int64_t>{13})) << c.name;
    EXPECT_EQ(c.inputs[1].shape, (std::vector<int64_t>{7, 4})) << c.name;
    EXPECT_EQ(c.inputs[1].dtype, DType::f32) << c.name;
    EXPECT_EQ(c.inputs[2].dtype, DType::u32) << c.name;
  }
}

TEST(CasesAtDims, DifferentDimsGiveDifferentSeedsAndTheSameDimsTheSameInputs) {
  const OpSpec spec = gather_spec();
  for (const char* name : case_names()) {
    const uint64_t seed = make_case(spec, name, 9, {1000, 7}).seed;
    EXPECT_NE(make_case(spec, name, 9, {999, 7}).seed, seed) << name;
    EXPECT_NE(make_case(spec, name, 9, {1000, 8}).seed, seed) << name;
    EXPECT_NE(make_case(spec, name, 9, {7, 1000}).seed, seed) << name << ": the same sizes for other dims";
    EXPECT_EQ(make_case(spec, name, 9, {1000, 7}).seed, seed) << name;
    EXPECT_EQ(make_case(spec, name, 9, {1000, 7}).inputs, make_case(spec, name, 9, {1000, 7}).inputs) << name;
  }
}

TEST(CasesAtDims, MakeCaseWithTheWrongNumberOfDimsThrows) {
  const OpSpec spec = gather_spec();
  EXPECT_THROW(make_case(spec, "uniform", 1), std::invalid_argument);
  EXPECT_THROW(make_case(spec, "uniform", 1, {1000}), std::invalid_argument);
  EXPECT_THROW(make_case(spec, "uniform", 1, {1000, 7, 3}), std::invalid_argument);
  EXPECT_THROW(make_cases(spec, 1, {1000}), std::invalid_argument);
  EXPECT_THROW(make_case(two_input_spec(), "uniform", 1, {5}), std::invalid_argument)
      << "a static op takes none";
}

TEST(CasesPerDtype, MixedSpansSevenDecadesOfMagnitudeInOneTensor) {
  for (const char* dtype : {"f32", "f16"}) {
    const HostTensor x = make_case(one_dtype_spec(dtype), "mixed", 3).inputs[0];
    double low = 1e9, high = 0;
    int negative = 0;
    for (int64_t i = 0; i < x.elements(); ++i) {
      low = std::min(low, std::fabs(x.value(i)));
      high = std::max(high, std::fabs(x.value(i)));
      negative += x.value(i) < 0;
    }
    EXPECT_LT(low, 2e-3) << dtype;
    EXPECT_GT(high, 5e3) << dtype;
    EXPECT_LE(high, 1e4 * 1.001) << dtype;
    EXPECT_GT(negative, x.elements() / 4) << dtype;
  }
}

TEST(CasesPerDtype, OutliersPutAFewValuesFarAboveTheirNeighboursInTheSameRows) {
  for (const auto& [dtype, factor] : {std::pair{"f32", 1073741824.0}, std::pair{"bf16", 1073741824.0},
                                       std::pair{"f16", 4096.0}}) {
    const HostTensor x = make_case(one_dtype_spec(dtype), "outliers", 3).inputs[0];
    int outliers = 0, rows_with_one = 0;
    for (int64_t row = 0; row < 64; ++row) {
      int in_row = 0;
      for (int64_t c = 0; c < 64; ++c) in_row += std::fabs(x.value(row * 64 + c)) > 100;
      outliers += in_row;
      rows_with_one += in_row > 0;
    }
    // 4096 elements, one in 256 an outlier: about 16, each normal(0, 1) times the factor (above 100 unless the
    // normal value was below 100 / factor).
    EXPECT_GE(outliers, 6) << dtype;
    EXPECT_LE(outliers, 32) << dtype;
    EXPECT_GE(rows_with_one, 5) << dtype << ": the outliers sit among ordinary values of their rows";
    double largest = 0;
    for (int64_t i = 0; i < x.elements(); ++i) largest = std::max(largest, std::fabs(x.value(i)));
    EXPECT_GT(largest, factor / 2) << dtype;
    EXPECT_LT(largest, factor * 6) << dtype;
  }
}

TEST(CasesPerDtype, SubnormalHoldsTheDtypesSubnormalsAndNegativeZeros) {
  for (const auto& [dtype, smallest_normal] : {std::pair{"f32", 1.17549435e-38}, std::pair{"f16", 6.103515625e-05},
                                                std::pair{"bf16", 1.17549435e-38}}) {
    const HostTensor x = make_case(one_dtype_spec(dtype), "subnormal", 3).inputs[0];
    int subnormals = 0, negative_zeros = 0;
    for (int64_t i = 0; i < x.elements(); ++i) {
      const double v = x.value(i);
      subnormals += v != 0 && std::fabs(v) < smallest_normal;
      negative_zeros += v == 0 && std::signbit(v);
    }
    EXPECT_GT(subnormals, x.elements() / 8) << dtype;
    EXPECT_GT(negative_zeros, 0) << dtype;
  }
}

TEST(CasesPerDtype, NonfiniteHoldsNaNsInfinitiesOfBothSignsAndNegativeZerosAmongNormalValues) {
  for (const char* dtype : {"f32", "f16"}) {
    const HostTensor x = make_case(one_dtype_spec(dtype), "nonfinite", 3).inputs[0];
    int nans = 0, positive = 0, negative = 0, negative_zeros = 0, finite = 0;
    for (int64_t i = 0; i < x.elements(); ++i) {
      const double v = x.value(i);
      nans += std::isnan(v);
      positive += v == HUGE_VAL;
      negative += v == -HUGE_VAL;
      negative_zeros += v == 0 && std::signbit(v);
      finite += std::isfinite(v);
    }
    EXPECT_GT(nans, 0) << dtype;
    EXPECT_GT(positive, 0) << dtype;
    EXPECT_GT(negative, 0) << dtype;
    EXPECT_GT(negative_zeros, 0) << dtype;
    EXPECT_GT(finite, x.elements() * 9 / 10) << dtype;
  }
}

TEST(StressRuns, DefaultWithoutTheSettingAndRejectsANonCount) {
  {
    const test::ScopedEnv unset("KERNELGEN_STRESS_RUNS", nullptr);
    EXPECT_EQ(stress_runs_from_environment(), kDefaultStressRuns);
  }
  {
    const test::ScopedEnv zero("KERNELGEN_STRESS_RUNS", "0");
    EXPECT_EQ(stress_runs_from_environment(), 0);
  }
  {
    const test::ScopedEnv many("KERNELGEN_STRESS_RUNS", "50");
    EXPECT_EQ(stress_runs_from_environment(), 50);
  }
  for (const char* bad : {"-1", "ten", "5x", "99999999999999999999"}) {
    const test::ScopedEnv setting("KERNELGEN_STRESS_RUNS", bad);
    try {
      stress_runs_from_environment();
      ADD_FAILURE() << "accepted KERNELGEN_STRESS_RUNS=" << bad;
    } catch (const std::invalid_argument& error) {
      EXPECT_THAT(error.what(), ::testing::HasSubstr("KERNELGEN_STRESS_RUNS"));
    }
  }
}

TEST(BaseSeed, ReplaysKernelgenSeed) {
  const test::ScopedEnv seed("KERNELGEN_SEED", "1234567890123");
  EXPECT_EQ(base_seed_from_environment(), 1234567890123u);
  EXPECT_EQ(base_seed_from_environment(), 1234567890123u);
}

TEST(BaseSeed, AcceptsTheFullUnsigned64BitRangeAndHex) {
  {
    const test::ScopedEnv seed("KERNELGEN_SEED", "18446744073709551615");
    EXPECT_EQ(base_seed_from_environment(), 18446744073709551615u);
  }
  const test::ScopedEnv seed("KERNELGEN_SEED", "0x10");
  EXPECT_EQ(base_seed_from_environment(), 16u);
}

TEST(BaseSeed, RejectsASeedThatIsNotANumber) {
  const test::ScopedEnv seed("KERNELGEN_SEED", "12abc");
  EXPECT_THROW(base_seed_from_environment(), std::invalid_argument);
}

TEST(BaseSeed, IsFreshEachCallWithoutKernelgenSeed) {
  const test::ScopedEnv seed("KERNELGEN_SEED", nullptr);
  EXPECT_NE(base_seed_from_environment(), base_seed_from_environment());
  const test::ScopedEnv empty("KERNELGEN_SEED", "");
  EXPECT_NE(base_seed_from_environment(), base_seed_from_environment());
}

}  // namespace
}  // namespace kernelgen
