// op_spec: parsing and checking spec.json, the spec hash that decides staleness, and the slug in record
// names.
#include "kernelgen/contract/op_spec.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "kernelgen/search/prompt.hpp"
#include "kernelgen/store/files.hpp"
#include "scratch_dir.hpp"

namespace kernelgen {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<int64_t> static_shape(const TensorSpec& tensor) {
  return tensor.shape_at();
}

// What kernelgen_add_op() writes for the catalog's relu, with every optional field set.
json relu_json() {
  return json::parse(R"({
    "contract": 1,
    "name": "relu",
    "description": "y = max(x, 0), elementwise",
    "reference": "/src/ops/relu/reference.cpp",
    "inputs": [{"name": "x", "dtype": "f32", "shape": [4, 8, 16, 16]}],
    "outputs": [{"name": "y", "dtype": "f32", "shape": [4, 8, 16, 16]}],
    "params": {"alpha": 0.5},
    "tolerance": {"atol": 1e-4, "rtol": 2e-4},
    "flops": 8192,
    "kernel": "/src/ops/relu/relu.comp",
    "generated_dir": "/src/generated/relu",
    "search": {"samples": 8, "rounds": 2, "beam": 3, "model": "openai/gpt-4o", "budget_usd": 1.5}
  })");
}

TEST(OpSpec, ParsesEveryFieldOfAWellFormedSpec) {
  const OpSpec spec = parse_op_spec(relu_json());
  EXPECT_EQ(spec.contract(), 1);
  EXPECT_EQ(spec.name, "relu");
  EXPECT_EQ(spec.description, "y = max(x, 0), elementwise");
  EXPECT_EQ(spec.reference_path, "/src/ops/relu/reference.cpp");
  ASSERT_EQ(spec.inputs.size(), 1u);
  EXPECT_EQ(spec.inputs[0].name, "x");
  EXPECT_EQ(spec.inputs[0].dtype, DType::f32);
  EXPECT_EQ(static_shape(spec.inputs[0]), (std::vector<int64_t>{4, 8, 16, 16}));
  EXPECT_FALSE(spec.inputs[0].symbolic());
  EXPECT_FALSE(spec.inputs[0].index_of);
  EXPECT_EQ(spec.inputs[0].elements(), 8192);
  EXPECT_EQ(spec.inputs[0].bytes(), 8192 * 4);
  ASSERT_EQ(spec.outputs.size(), 1u);
  EXPECT_EQ(spec.outputs[0].name, "y");
  EXPECT_EQ(spec.params.at("alpha"), 0.5);
  ASSERT_TRUE(spec.tolerance);
  EXPECT_EQ(spec.tolerance->atol, 1e-4);
  EXPECT_EQ(spec.tolerance->rtol, 2e-4);
  EXPECT_EQ(spec.flops, "8192");
  EXPECT_EQ(spec.flops_at(), 8192);
  EXPECT_TRUE(spec.dims.empty());
  EXPECT_EQ(spec.kernel_path, "/src/ops/relu/relu.comp");
  EXPECT_EQ(spec.generated_dir, "/src/generated/relu");
  EXPECT_EQ(spec.search.samples, 8);
  EXPECT_EQ(spec.search.rounds, 2);
  EXPECT_EQ(spec.search.beam, 3);
  EXPECT_EQ(spec.search.model, "openai/gpt-4o");
  EXPECT_EQ(spec.search.budget_usd, 1.5);
}

TEST(OpSpec, OptionalFieldsTakeTheirDefaults) {
  const OpSpec spec = parse_op_spec(json::parse(R"({
    "name": "relu",
    "inputs": [{"name": "x", "dtype": "f32", "shape": [8]}],
    "outputs": [{"name": "y", "dtype": "f32", "shape": [8]}]
  })"));
  EXPECT_EQ(spec.contract(), 1);
  EXPECT_EQ(spec.description, "");
  EXPECT_TRUE(spec.params.empty());
  EXPECT_FALSE(spec.tolerance);
  EXPECT_EQ(spec.tolerance_of(spec.outputs[0]).atol, 1e-5);
  EXPECT_EQ(spec.tolerance_of(spec.outputs[0]).rtol, 1e-5);
  EXPECT_EQ(spec.flops, "");
  EXPECT_EQ(spec.flops_at(), 0);
  EXPECT_EQ(spec.kernel_path, "");
  EXPECT_EQ(spec.search.samples, 4);
  EXPECT_EQ(spec.search.rounds, 3);
  EXPECT_EQ(spec.search.beam, 1);
  EXPECT_EQ(spec.search.budget_usd, 0);
}

TEST(OpSpec, TensorsListsInputsThenOutputsInBindingOrder) {
  OpSpec spec = parse_op_spec(json::parse(R"({
    "name": "add",
    "inputs": [{"name": "a", "dtype": "f32", "shape": [2, 3]}, {"name": "b", "dtype": "f32", "shape": [2, 3]}],
    "outputs": [{"name": "c", "dtype": "f32", "shape": [2, 3]}]
  })"));
  const auto tensors = spec.tensors();
  ASSERT_EQ(tensors.size(), 3u);
  EXPECT_EQ(tensors[0].name, "a");
  EXPECT_EQ(tensors[1].name, "b");
  EXPECT_EQ(tensors[2].name, "c");
  EXPECT_EQ(spec.bytes_at(), 3 * 6 * 4);
}

TEST(OpSpec, ToJsonRoundTripsThroughParse) {
  const OpSpec spec = parse_op_spec(relu_json());
  const OpSpec again = parse_op_spec(to_json(spec));
  EXPECT_EQ(to_json(again), to_json(spec));
  EXPECT_EQ(spec_hash(again, "ref", "v1"), spec_hash(spec, "ref", "v1"));
}

// One malformed field each; the message must name the field so the user can find it.
struct MalformedSpec {
  std::string what;
  std::function<void(json&)> break_it;
  std::string field;  // expected in the message
};

void PrintTo(const MalformedSpec& c, std::ostream* out) {
  *out << c.what;
}

class OpSpecRejects : public ::testing::TestWithParam<MalformedSpec> {};

TEST_P(OpSpecRejects, WithInvalidArgumentNamingTheField) {
  json spec = relu_json();
  GetParam().break_it(spec);
  try {
    parse_op_spec(spec);
    FAIL() << "parse_op_spec accepted a spec with " << GetParam().what;
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr(GetParam().field));
  }
}

INSTANTIATE_TEST_SUITE_P(
    OpSpec, OpSpecRejects,
    ::testing::Values(
        MalformedSpec{"no name", [](json& j) { j.erase("name"); }, "name: missing"},
        MalformedSpec{"a name that is not an identifier", [](json& j) { j["name"] = "my-op"; },
                      "name: 'my-op'"},
        MalformedSpec{"a numeric name", [](json& j) { j["name"] = 7; }, "name: must be a string"},
        MalformedSpec{"contract 3", [](json& j) { j["contract"] = 3; }, "contract: version 3"},
        MalformedSpec{"no inputs", [](json& j) { j.erase("inputs"); }, "inputs: missing"},
        MalformedSpec{"inputs not an array", [](json& j) { j["inputs"] = "x"; }, "inputs: must be an array"},
        MalformedSpec{"an input that is not an object", [](json& j) { j["inputs"][0] = 3; },
                      "inputs[0]: must be"},
        MalformedSpec{"an input without a name", [](json& j) { j["inputs"][0].erase("name"); },
                      "inputs[0].name: missing"},
        MalformedSpec{"an input named with a space", [](json& j) { j["inputs"][0]["name"] = "x 1"; },
                      "inputs[0].name"},
        MalformedSpec{"an unknown dtype", [](json& j) { j["inputs"][0]["dtype"] = "f64"; },
                      "inputs[0].dtype: 'f64' is not a dtype; kernelgen has f32, f16, i32, u32, i8, u8, bf16"},
        MalformedSpec{"a numeric dtype", [](json& j) { j["inputs"][0]["dtype"] = 32; },
                      "inputs[0].dtype: must be a string"},
        MalformedSpec{"an input without a dtype", [](json& j) { j["inputs"][0].erase("dtype"); },
                      "inputs[0].dtype: missing"},
        MalformedSpec{"an input without a shape", [](json& j) { j["inputs"][0].erase("shape"); },
                      "inputs[0].shape: missing"},
        MalformedSpec{"an empty shape", [](json& j) { j["inputs"][0]["shape"] = json::array(); },
                      "inputs[0].shape"},
        MalformedSpec{"a zero extent", [](json& j) { j["inputs"][0]["shape"][1] = 0; }, "inputs[0].shape: 0"},
        MalformedSpec{"a negative extent", [](json& j) { j["outputs"][0]["shape"][0] = -4; },
                      "outputs[0].shape: -4"},
        MalformedSpec{"a fractional extent", [](json& j) { j["inputs"][0]["shape"][0] = 1.5; },
                      "inputs[0].shape: 1.5"},
        MalformedSpec{"more than 2^31 elements",
                      [](json& j) {
                        j["inputs"][0]["shape"] = {65536, 65536};
                      },
                      "inputs[0].shape (x): more than 2^31"},
        MalformedSpec{"no outputs", [](json& j) { j.erase("outputs"); }, "outputs: missing"},
        MalformedSpec{"an empty output list", [](json& j) { j["outputs"] = json::array(); },
                      "outputs: an op needs at least one output"},
        MalformedSpec{"an output named like the input", [](json& j) { j["outputs"][0]["name"] = "x"; },
                      "tensor name 'x' is used twice"},
        MalformedSpec{"params not an object", [](json& j) { j["params"] = json::array({1}); },
                      "params: must be"},
        MalformedSpec{"a string parameter", [](json& j) { j["params"]["alpha"] = "0.5"; },
                      "params.alpha: must be a number"},
        MalformedSpec{"a parameter that is not an identifier", [](json& j) { j["params"]["1x"] = 1; },
                      "params: '1x'"},
        MalformedSpec{"tolerance not an object", [](json& j) { j["tolerance"] = 1e-3; },
                      "tolerance: must be"},
        MalformedSpec{"a string atol", [](json& j) { j["tolerance"]["atol"] = "1e-3"; },
                      "atol: must be a number"},
        MalformedSpec{"a negative rtol", [](json& j) { j["tolerance"]["rtol"] = -1e-5; },
                      "tolerance: atol and rtol must be >= 0"},
        MalformedSpec{"flops naming a name that is not a dim", [](json& j) { j["flops"] = "2*N"; },
                      "FLOPS: '2*N'"},
        MalformedSpec{"flops that is neither a number nor an expression",
                      [](json& j) { j["flops"] = json::array(); },
                      "FLOPS: must be a number or an expression"},
        MalformedSpec{"a negative flops", [](json& j) { j["flops"] = -5; }, "FLOPS: -5"},
        MalformedSpec{"a numeric description", [](json& j) { j["description"] = 42; },
                      "description: must be a string"},
        MalformedSpec{"a numeric kernel path", [](json& j) { j["kernel"] = 1; }, "kernel: must be a string"},
        MalformedSpec{"search not an object", [](json& j) { j["search"] = 4; }, "search: must be an object"},
        MalformedSpec{"a string sample count", [](json& j) { j["search"]["samples"] = "many"; },
                      "samples: must be a number"}),
    [](const ::testing::TestParamInfo<MalformedSpec>& info) {
      std::string name;
      for (char c : info.param.what) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      return name;
    });

TEST(OpSpec, ErrorsNameTheOp) {
  json spec = relu_json();
  spec["inputs"][0]["dtype"] = "f64";
  EXPECT_THROW(
      {
        try {
          parse_op_spec(spec);
        } catch (const std::invalid_argument& error) {
          EXPECT_THAT(error.what(), HasSubstr("op spec 'relu'"));
          throw;
        }
      },
      std::invalid_argument);
}

TEST(OpSpec, RejectsATopLevelThatIsNotAnObject) {
  EXPECT_THROW(parse_op_spec(json::array()), std::invalid_argument);
}

TEST(OpSpec, LoadNamesAFileThatCannotBeRead) {
  try {
    load_op_spec("/nonexistent/spec.json");
    FAIL() << "loaded a file that does not exist";
  } catch (const std::exception& error) {
    EXPECT_THAT(error.what(), HasSubstr("/nonexistent/spec.json"));
  }
}

TEST(OpSpec, LoadNamesAFileThatIsNotJson) {
  const test::ScratchDir dir;
  const auto path = dir.path() / "spec.json";
  write_file_atomic(path, "{\"name\": \"relu\",");
  try {
    load_op_spec(path.string());
    ADD_FAILURE() << "loaded a file that is not JSON";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr(path.string() + ": not valid JSON"));
  }
}

TEST(OpSpec, LoadPrefixesFieldErrorsWithThePath) {
  const test::ScratchDir dir;
  const auto path = dir.path() / "spec.json";
  json spec = relu_json();
  spec["outputs"] = json::array();
  write_file_atomic(path, spec.dump());
  try {
    load_op_spec(path.string());
    ADD_FAILURE() << "loaded a spec without outputs";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr(path.string() + ": op spec 'relu': outputs"));
  }
}

// spec_hash covers what decides a correct kernel and what the model is asked, and nothing else.
class SpecHash : public ::testing::Test {
 protected:
  const OpSpec base = parse_op_spec(relu_json());
  const std::string reference = "KERNELGEN_REFERENCE(relu) { ... }";
  const std::string prompt = "prompt-v1";
  std::string hash_of(const std::function<void(OpSpec&)>& change) const {
    OpSpec changed = base;
    change(changed);
    return spec_hash(changed, reference, prompt);
  }
};

TEST_F(SpecHash, IsStableForTheSameSpecAndReference) {
  EXPECT_EQ(spec_hash(base, reference, prompt), spec_hash(base, reference, prompt));
  EXPECT_EQ(spec_hash(base, reference, prompt).size(), 16u);
}

TEST_F(SpecHash, ChangesWithAnythingThatDefinesCorrectnessOrThePrompt) {
  const std::string original = spec_hash(base, reference, prompt);
  EXPECT_NE(hash_of([](OpSpec& s) { s.inputs[0].shape[0] = Extent{2}; }), original) << "input shape";
  EXPECT_NE(hash_of([](OpSpec& s) { s.outputs[0].shape = {Extent{8192}}; }), original) << "output shape";
  EXPECT_NE(hash_of([](OpSpec& s) { s.inputs[0].dtype = DType::f16; }), original) << "dtype";
  EXPECT_NE(hash_of([](OpSpec& s) { s.inputs[0].name = "input"; }), original) << "tensor name";
  EXPECT_NE(hash_of([](OpSpec& s) { s.params["alpha"] = 0.25; }), original) << "param value";
  EXPECT_NE(hash_of([](OpSpec& s) { s.params["beta"] = 1; }), original) << "extra param";
  EXPECT_NE(hash_of([](OpSpec& s) { s.tolerance->atol = 1e-3; }), original) << "atol";
  EXPECT_NE(hash_of([](OpSpec& s) { s.tolerance->rtol = 1e-3; }), original) << "rtol";
  EXPECT_NE(hash_of([](OpSpec& s) { s.tolerance.reset(); }), original) << "the default tolerance";
  EXPECT_NE(hash_of([](OpSpec& s) { s.description += "."; }), original) << "description";
  EXPECT_NE(hash_of([](OpSpec& s) { s.name = "leaky_relu"; }), original) << "name";
  EXPECT_NE(spec_hash(base, reference + " ", prompt), original) << "reference text";
}

TEST_F(SpecHash, IgnoresSearchSettingsAndWhereFilesLive) {
  const std::string original = spec_hash(base, reference, prompt);
  EXPECT_EQ(hash_of([](OpSpec& s) { s.search.samples = 100; }), original);
  EXPECT_EQ(hash_of([](OpSpec& s) { s.search.rounds = 9; }), original);
  EXPECT_EQ(hash_of([](OpSpec& s) { s.search.beam = 4; }), original);
  EXPECT_EQ(hash_of([](OpSpec& s) { s.search.model = "anthropic/claude"; }), original);
  EXPECT_EQ(hash_of([](OpSpec& s) { s.search.budget_usd = 20; }), original);
  EXPECT_EQ(hash_of([](OpSpec& s) { s.kernel_path = "/elsewhere/relu.comp"; }), original);
  EXPECT_EQ(hash_of([](OpSpec& s) { s.reference_path = "/elsewhere/reference.cpp"; }), original);
  EXPECT_EQ(hash_of([](OpSpec& s) { s.generated_dir = "/elsewhere/generated/relu"; }), original);
  EXPECT_EQ(hash_of([](OpSpec& s) { s.flops = "16384"; }), original);
  EXPECT_EQ(hash_of([](OpSpec& s) { s.bytes = "65536"; }), original);
}

// Contract 2: symbolic dims, the dtypes of dtypes.def, INDEX inputs.

// What kernelgen_add_op() writes for an embedding-like op with every contract-2 feature: two dims in shapes,
// a third that only an INDEX bound names, f16 and i32 tensors, DIMS, BENCH_DIMS and a FLOPS expression.
json gather_json() {
  return json::parse(R"({
    "contract": 2,
    "name": "gather",
    "description": "y[r, c] = table[ids[r], c]",
    "reference": "/src/ops/gather/reference.cpp",
    "inputs": [{"name": "table", "dtype": "f16", "shape": ["rows", "cols"]},
               {"name": "ids", "dtype": "i32", "shape": ["rows"], "index": "vocab"}],
    "outputs": [{"name": "y", "dtype": "f16", "shape": ["rows", "cols"]}],
    "dims": {"vocab": [3, 1000], "rows": [1, 7, 64, 333], "cols": [16, 5]},
    "bench_dims": {"rows": 4096},
    "params": {},
    "flops": "rows*cols",
    "kernel": "",
    "generated_dir": "/src/generated/gather",
    "search": {}
  })");
}

// A spec of one input and one output of `dtype` with shape [rows, 1000] and these DIMS.
json row_op_json(const std::string& dtype = "f32", const json& dims = {{"rows", {1, 7}}}) {
  json spec = json::parse(R"({"name": "rowwise",
    "inputs": [{"name": "x", "shape": ["rows", 1000]}], "outputs": [{"name": "y", "shape": ["rows", 1000]}]})");
  spec["inputs"][0]["dtype"] = dtype;
  spec["outputs"][0]["dtype"] = dtype;
  spec["dims"] = dims;
  return spec;
}

TEST(OpSpecDims, SymbolicExtentsResolveToDimsInOrderOfFirstAppearanceAcrossInputsThenOutputs) {
  const OpSpec spec = parse_op_spec(json::parse(R"({"name": "matmul",
    "inputs": [{"name": "a", "dtype": "f32", "shape": ["m", "k"]}, {"name": "b", "dtype": "f32", "shape": ["k", "n"]}],
    "outputs": [{"name": "c", "dtype": "f32", "shape": ["m", "n", "batch"]}],
    "dims": {"batch": [2], "n": [3], "m": [4], "k": [5]}})"));
  EXPECT_THAT(spec.dim_names(), ElementsAre("m", "k", "n", "batch")) << "not the order DIMS lists them in";
  EXPECT_EQ(spec.inputs[1].shape[0].dim, "k");
  EXPECT_EQ(spec.inputs[1].shape[0].dim_index, 1);
  EXPECT_EQ(spec.inputs[1].shape[1].dim_index, 2);
  EXPECT_EQ(spec.outputs[0].shape[2].dim_index, 3);
  EXPECT_TRUE(spec.outputs[0].symbolic());
  EXPECT_EQ(join_extents(spec.outputs[0].shape, ','), "m,n,batch");
  EXPECT_EQ(spec.outputs[0].shape_at(DimValues{4, 5, 3, 2}), (std::vector<int64_t>{4, 3, 2}));
}

TEST(OpSpecDims, AnIndexBoundIsADimToo) {
  const OpSpec spec = parse_op_spec(gather_json());
  EXPECT_THAT(spec.dim_names(), ElementsAre("rows", "cols", "vocab"));
  ASSERT_TRUE(spec.inputs[1].index_of);
  EXPECT_TRUE(spec.inputs[1].index_of->symbolic());
  EXPECT_EQ(spec.inputs[1].index_of->dim_index, 2);
  EXPECT_EQ(spec.inputs[1].dtype, DType::i32);
  EXPECT_EQ(spec.inputs[0].dtype, DType::f16);
}

// An index bound comes after every shape's dims, even one met earlier: the order kernelgen_add_op() gives the
// push constants (cmake/KernelGen.cmake), which the wrapper's Dims follows.
TEST(OpSpecDims, DimsOnlyAnIndexBoundNamesComeAfterEveryShapesDims) {
  const OpSpec spec = parse_op_spec(json::parse(R"({"name": "embedding",
    "inputs": [{"name": "ids", "dtype": "i32", "shape": ["n"], "index": "vocab"},
               {"name": "table", "dtype": "f32", "shape": ["vocab", "width"]}],
    "outputs": [{"name": "out", "dtype": "f32", "shape": ["n", "width", "heads"]}],
    "dims": {"vocab": [10], "n": [5], "width": [4], "heads": [2]}})"));
  EXPECT_THAT(spec.dim_names(), ElementsAre("n", "vocab", "width", "heads")) << "vocab is in table's shape";
  const OpSpec only_bound = parse_op_spec(json::parse(R"({"name": "lookup",
    "inputs": [{"name": "ids", "dtype": "u32", "shape": ["n"], "index": "vocab"}],
    "outputs": [{"name": "out", "dtype": "f32", "shape": ["n", "width"]}],
    "dims": {"vocab": [10], "n": [5], "width": [4]}})"));
  EXPECT_THAT(only_bound.dim_names(), ElementsAre("n", "width", "vocab"));
  EXPECT_EQ(only_bound.inputs[0].index_of->dim_index, 2);
}

TEST(OpSpecDims, AnIndexBoundMayBeANumber) {
  json spec = gather_json();
  spec["inputs"][1]["index"] = 50;
  spec["dims"].erase("vocab");
  const OpSpec parsed = parse_op_spec(spec);
  ASSERT_TRUE(parsed.inputs[1].index_of);
  EXPECT_FALSE(parsed.inputs[1].index_of->symbolic());
  EXPECT_EQ(parsed.inputs[1].index_of->size, 50);
  EXPECT_THAT(parsed.dim_names(), ElementsAre("rows", "cols"));
}

TEST(OpSpecDims, DimsSizesAreParsedInTheOrderListed) {
  const OpSpec spec = parse_op_spec(gather_json());
  ASSERT_EQ(spec.dims.size(), 3u);
  EXPECT_EQ(spec.dims[0].sizes, (std::vector<int64_t>{1, 7, 64, 333}));
  EXPECT_EQ(spec.dims[1].sizes, (std::vector<int64_t>{16, 5}));
  EXPECT_EQ(spec.dims[2].sizes, (std::vector<int64_t>{3, 1000}));
  EXPECT_EQ(spec.dims[0].bench, 4096);
  EXPECT_EQ(spec.dims[1].bench, 0) << "no BENCH_DIMS for cols";
}

TEST(OpSpecDims, BenchDimsAreBenchDimsElseTheLargestOfEachDims) {
  EXPECT_EQ(parse_op_spec(gather_json()).bench_dims(), (DimValues{4096, 16, 1000}));
  json without = gather_json();
  without.erase("bench_dims");
  EXPECT_EQ(parse_op_spec(without).bench_dims(), (DimValues{333, 16, 1000}));
  EXPECT_TRUE(parse_op_spec(relu_json()).bench_dims().empty());
}

// A CPU device (lavapipe) times at CPU_BENCH_DIMS where a dim declares one, and at the GPU's size elsewhere.
TEST(OpSpecDims, CpuBenchDimsReplaceBenchDimsOnlyOnACpuDevice) {
  json with = gather_json();
  with["cpu_bench_dims"] = {{"rows", 64}, {"vocab", 10}};
  const OpSpec spec = parse_op_spec(with);
  EXPECT_EQ(spec.bench_dims(true), (DimValues{64, 16, 10}));
  EXPECT_EQ(spec.bench_dims(false), (DimValues{4096, 16, 1000}));
  EXPECT_EQ(parse_op_spec(gather_json()).bench_dims(true), (DimValues{4096, 16, 1000})) << "none declared";
  EXPECT_EQ(to_json(spec).at("cpu_bench_dims"), with["cpu_bench_dims"]);
  EXPECT_EQ(spec_hash(spec, "ref", "v2"), spec_hash(parse_op_spec(gather_json()), "ref", "v2"))
      << "where an op is timed does not decide what a correct kernel is";
}

TEST(OpSpecDims, CpuBenchDimsMustNameAListedDimWithAPositiveSize) {
  json unknown = gather_json();
  unknown["cpu_bench_dims"] = {{"depth", 4}};
  EXPECT_THAT([&] { parse_op_spec(unknown); },
              ::testing::ThrowsMessage<std::invalid_argument>(::testing::HasSubstr("CPU_BENCH_DIMS: 'depth' is not a dim")));
  json zero = gather_json();
  zero["cpu_bench_dims"] = {{"rows", 0}};
  EXPECT_THROW(parse_op_spec(zero), std::invalid_argument);
  json not_object = gather_json();
  not_object["cpu_bench_dims"] = json::array({64});
  EXPECT_THROW(parse_op_spec(not_object), std::invalid_argument);
}

TEST(OpSpecDims, ShapesElementsAndBytesFollowTheDims) {
  const OpSpec spec = parse_op_spec(gather_json());
  const DimValues dims{7, 5, 3};
  EXPECT_EQ(spec.inputs[0].shape_at(dims), (std::vector<int64_t>{7, 5}));
  EXPECT_EQ(spec.inputs[0].elements(dims), 35);
  EXPECT_EQ(spec.inputs[0].bytes(dims), 35 * 2) << "f16: 2 bytes an element";
  EXPECT_EQ(spec.inputs[1].bytes(dims), 7 * 4);
  EXPECT_THROW(spec.inputs[0].elements(), std::invalid_argument) << "a symbolic tensor needs its dims";
}

TEST(OpSpecDims, FlopsAndBytesAreEvaluatedAtTheGivenDims) {
  const OpSpec spec = parse_op_spec(gather_json());
  EXPECT_EQ(spec.flops, "rows*cols");
  EXPECT_EQ(spec.flops_at(DimValues{7, 5, 3}), 35);
  EXPECT_EQ(spec.flops_at(spec.bench_dims()), 4096 * 16);
  EXPECT_EQ(spec.bytes_at(DimValues{7, 5, 3}), 35 * 2 + 7 * 4 + 35 * 2) << "every tensor once";
  json declared = gather_json();
  declared["bytes"] = "2*rows*cols + 4*rows";
  EXPECT_EQ(parse_op_spec(declared).bytes_at(DimValues{7, 5, 3}), 2 * 35 + 4 * 7) << "BYTES when declared";
}

TEST(OpSpecDims, EveryDtypeOfTheTableParses) {
  for (const DTypeInfo& info : kDTypes) {
    const OpSpec spec = parse_op_spec(row_op_json(std::string(info.name)));
    EXPECT_EQ(spec.inputs[0].dtype, info.dtype) << info.name;
    EXPECT_EQ(spec.outputs[0].bytes(DimValues{7}), static_cast<int64_t>(7000 * info.bytes)) << info.name;
  }
}

TEST(OpSpecDims, ToleranceOfAnOutputIsItsDtypeDefaultUnlessDeclared) {
  const OpSpec f16 = parse_op_spec(row_op_json("f16"));
  EXPECT_EQ(f16.tolerance_of(f16.outputs[0]).atol, 1e-3);
  EXPECT_EQ(f16.tolerance_of(f16.outputs[0]).rtol, 1e-3);
  const OpSpec f32 = parse_op_spec(row_op_json("f32"));
  EXPECT_EQ(f32.tolerance_of(f32.outputs[0]).atol, 1e-5);
  EXPECT_EQ(f32.tolerance_of(f32.outputs[0]).rtol, 1e-5);
  for (const char* integer : {"i32", "u32", "i8", "u8"}) {
    const OpSpec spec = parse_op_spec(row_op_json(integer));
    EXPECT_EQ(spec.tolerance_of(spec.outputs[0]).atol, 0) << integer << " is exact";
    EXPECT_EQ(spec.tolerance_of(spec.outputs[0]).rtol, 0) << integer << " is exact";
  }
  json declared = row_op_json("f32");
  declared["tolerance"] = {{"atol", 1}, {"rtol", 0.5}};
  const OpSpec spec = parse_op_spec(declared);
  EXPECT_EQ(spec.tolerance_of(spec.outputs[0]).atol, 1);
  EXPECT_EQ(spec.tolerance_of(spec.outputs[0]).rtol, 0.5);
}

TEST(OpSpecDims, AnIntegerOutputIsExactWhateverTheDeclaredTolerance) {
  json declared = row_op_json("i32");
  declared["tolerance"] = {{"atol", 1}, {"rtol", 0.5}};
  const OpSpec spec = parse_op_spec(declared);
  EXPECT_EQ(spec.tolerance_of(spec.outputs[0]).atol, 0) << "an index off by one is wrong, not close";
  EXPECT_EQ(spec.tolerance_of(spec.outputs[0]).rtol, 0);
}

// TOLERANCE <n>ulp: a positive multiple of 0.5, instead of atol and rtol, round-tripped through to_json; an integer
// output stays exact.
TEST(OpSpecDims, AToleranceInUlpsReplacesAtolAndRtol) {
  json declared = row_op_json("bf16");
  declared["tolerance"] = {{"ulp", 0.5}};
  const OpSpec spec = parse_op_spec(declared);
  EXPECT_EQ(spec.tolerance_of(spec.outputs[0]).ulp, 0.5);
  EXPECT_EQ(spec.tolerance_of(spec.outputs[0]).atol, 0);
  EXPECT_EQ(to_json(spec).at("tolerance"), json({{"ulp", 0.5}}));
  EXPECT_EQ(parse_op_spec(to_json(spec)).tolerance->ulp, 0.5);
  json integer = row_op_json("i32");
  integer["tolerance"] = {{"ulp", 2}};
  const OpSpec exact = parse_op_spec(integer);
  EXPECT_EQ(exact.tolerance_of(exact.outputs[0]).ulp, 0) << "an index off by one is wrong, not close";
  for (const double ulp : {0.0, 0.3, -1.0, 1.25}) {
    declared["tolerance"] = {{"ulp", ulp}};
    EXPECT_THAT([&] { parse_op_spec(declared); },
                ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("is not a positive multiple of 0.5ulp")))
        << ulp;
  }
  declared["tolerance"] = {{"ulp", 1}, {"atol", 1e-3}};
  EXPECT_THAT([&] { parse_op_spec(declared); },
              ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("ulp replaces atol and rtol: give one or the other")));
}

TEST(OpSpecDims, ContractIsOneForStaticF32OpsAndTwoOtherwise) {
  EXPECT_EQ(parse_op_spec(relu_json()).contract(), 1);
  json declared_two = relu_json();
  declared_two["contract"] = 2;
  EXPECT_EQ(parse_op_spec(declared_two).contract(), 1) << "what CMake writes for a static f32 op";
  EXPECT_EQ(parse_op_spec(row_op_json("f32")).contract(), 2) << "symbolic dims";
  json f16 = relu_json();
  f16["outputs"][0]["dtype"] = "f16";
  EXPECT_EQ(parse_op_spec(f16).contract(), 2) << "a dtype other than f32";
  json index = relu_json();
  index["inputs"].push_back({{"name", "ids"}, {"dtype", "i32"}, {"shape", {4}}, {"index", 8}});
  EXPECT_EQ(parse_op_spec(index).contract(), 2) << "an INDEX input";
  EXPECT_EQ(parse_op_spec(gather_json()).contract(), 2);
}

TEST(OpSpecDims, AV2SpecRoundTripsThroughToJsonAndParse) {
  const OpSpec spec = parse_op_spec(gather_json());
  const json written = to_json(spec);
  EXPECT_EQ(written.at("contract"), 2);
  EXPECT_EQ(written.at("inputs")[1].at("index"), "vocab");
  EXPECT_EQ(written.at("inputs")[0].at("shape"), json::array({"rows", "cols"}));
  EXPECT_EQ(written.at("bench_dims"), json({{"rows", 4096}}));
  EXPECT_FALSE(written.contains("tolerance")) << "no TOLERANCE: the dtype defaults, not a number frozen in";
  const OpSpec again = parse_op_spec(written);
  EXPECT_EQ(to_json(again), written);
  EXPECT_EQ(again.dim_names(), spec.dim_names());
  EXPECT_EQ(again.bench_dims(), spec.bench_dims());
  EXPECT_EQ(again.flops, spec.flops);
  EXPECT_FALSE(again.tolerance);
  EXPECT_EQ(spec_hash(again, "ref", "v2"), spec_hash(spec, "ref", "v2"));
}

class OpSpecDimsRejects : public ::testing::TestWithParam<MalformedSpec> {};

TEST_P(OpSpecDimsRejects, WithAMessageNamingTheFieldAndTheFix) {
  json spec = gather_json();
  GetParam().break_it(spec);
  try {
    parse_op_spec(spec);
    FAIL() << "parse_op_spec accepted a spec with " << GetParam().what;
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("op spec 'gather'"));
    EXPECT_THAT(error.what(), HasSubstr(GetParam().field));
  }
}

INSTANTIATE_TEST_SUITE_P(
    OpSpecDims, OpSpecDimsRejects,
    ::testing::Values(
        MalformedSpec{"a dim used without DIMS", [](json& j) { j["dims"].erase("cols"); },
                      "DIMS: dim 'cols' is used in a shape but has no sizes; add e.g. DIMS cols="},
        MalformedSpec{"an index dim without DIMS", [](json& j) { j["dims"].erase("vocab"); },
                      "DIMS: dim 'vocab' is used in a shape but has no sizes"},
        MalformedSpec{"no DIMS at all",
                      [](json& j) {
                        j.erase("dims");
                        j.erase("bench_dims");
                      },
                      "DIMS: dim 'rows' is used in a shape but has no sizes"},
        MalformedSpec{"a DIMS name no tensor uses", [](json& j) { j["dims"]["depth"] = {4}; },
                      "DIMS: 'depth' is not used by any tensor; remove it or use it in a shape"},
        MalformedSpec{"a zero size",
                      [](json& j) {
                        j["dims"]["rows"] = {1, 0};
                      },
                      "DIMS rows: 0 is not a positive integer"},
        MalformedSpec{"a negative size", [](json& j) { j["dims"]["cols"] = {-16}; },
                      "DIMS cols: -16 is not a positive integer"},
        MalformedSpec{"a size that does not fit a uint push constant",
                      [](json& j) { j["dims"]["vocab"] = {4294967296}; },
                      "DIMS vocab: 4294967296 is not a positive integer below 2^32"},
        MalformedSpec{"a fractional size", [](json& j) { j["dims"]["rows"] = {1.5}; },
                      "DIMS rows: 1.5 is not a positive integer"},
        MalformedSpec{"an empty size list", [](json& j) { j["dims"]["rows"] = json::array(); },
                      "DIMS rows: must list at least one size"},
        MalformedSpec{"DIMS that is not an object", [](json& j) { j["dims"] = json::array({1}); },
                      "dims: must be an object"},
        MalformedSpec{"a size listed twice",
                      [](json& j) {
                        j["dims"]["rows"] = {1, 7, 1};
                      },
                      "DIMS rows: size 1 is listed twice"},
        MalformedSpec{"BENCH_DIMS for an unknown dim", [](json& j) { j["bench_dims"]["depth"] = 8; },
                      "BENCH_DIMS: 'depth' is not a dim listed in DIMS"},
        MalformedSpec{"a zero BENCH_DIMS size", [](json& j) { j["bench_dims"]["rows"] = 0; },
                      "BENCH_DIMS rows: 0 is not a positive integer"},
        MalformedSpec{"an unknown dtype", [](json& j) { j["inputs"][0]["dtype"] = "f8"; },
                      "inputs[0].dtype: 'f8' is not a dtype; kernelgen has f32, f16, i32, u32, i8, u8, bf16"},
        MalformedSpec{"INDEX on a float input", [](json& j) { j["inputs"][0]["index"] = "vocab"; },
                      "inputs[0].index: an INDEX tensor holds indices: declare it i32 or u32"},
        MalformedSpec{"INDEX on an i8 input", [](json& j) { j["inputs"][1]["dtype"] = "i8"; },
                      "inputs[1].index: an INDEX tensor holds indices: declare it i32 or u32"},
        MalformedSpec{"INDEX on an output",
                      [](json& j) {
                        j["outputs"].push_back(
                            {{"name", "argmax"}, {"dtype", "i32"}, {"shape", {"rows"}}, {"index", "cols"}});
                      },
                      "outputs: INDEX applies to inputs; argmax is an output"},
        MalformedSpec{"an INDEX bound of zero", [](json& j) { j["inputs"][1]["index"] = 0; },
                      "inputs[1].index: 0 is not a positive integer"},
        MalformedSpec{"FLOPS naming an unknown dim", [](json& j) { j["flops"] = "2*rows*depth"; },
                      "FLOPS: '2*rows*depth': "},
        MalformedSpec{"BYTES naming an unknown dim", [](json& j) { j["bytes"] = "depth"; }, "BYTES: 'depth'"},
        MalformedSpec{"a malformed FLOPS expression", [](json& j) { j["flops"] = "2*(rows"; },
                      "FLOPS: '2*(rows': "},
        MalformedSpec{"more than 2^31 elements at the largest DIMS",
                      [](json& j) {
                        j["dims"]["rows"] = {1, 2147483648 / 16 + 1};
                      },
                      "inputs[0].shape (table): more than 2^31 elements at the largest DIMS/BENCH_DIMS"},
        MalformedSpec{"more than 2^31 elements at BENCH_DIMS",
                      [](json& j) { j["bench_dims"]["rows"] = 2147483648 / 16 + 1; },
                      "inputs[0].shape (table): more than 2^31 elements"},
        MalformedSpec{"a dim name that is not an identifier",
                      [](json& j) { j["inputs"][1]["shape"] = {"2rows"}; },
                      "inputs[1].shape: '2rows' is not a C identifier"}),
    [](const ::testing::TestParamInfo<MalformedSpec>& info) {
      std::string name;
      for (char c : info.param.what) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      return name;
    });

TEST(OpSpecDims, FlopsNamingAnUnknownDimListsTheOpsDims) {
  json spec = gather_json();
  spec["flops"] = "2*rows*depth";
  try {
    parse_op_spec(spec);
    FAIL() << "accepted FLOPS over an unknown dim";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("unknown name 'depth' (the op's dims: rows, cols, vocab)"));
  }
}

TEST(OpSpecDims, ExactlyTwoTo31ElementsAtTheLargestDimsAreAllowed) {
  json spec = gather_json();
  spec["dims"]["rows"] = {1, 2147483648 / 16};
  spec.erase("bench_dims");
  EXPECT_NO_THROW(parse_op_spec(spec));
  EXPECT_NO_THROW(parse_op_spec(json::parse(R"({"name": "big",
    "inputs": [{"name": "x", "dtype": "u8", "shape": [32768, 65536]}],
    "outputs": [{"name": "y", "dtype": "u8", "shape": [32768, 65536]}]})")));
}

// The hash of a contract-1 op is frozen: kernels checked in before contract 2 stay current whatever the
// prompt templates become. A contract-2 op is regenerated when the prompt or the sizes it is validated at
// change.
TEST(SpecHashContracts, AStaticF32OpsHashIgnoresThePromptVersion) {
  const OpSpec spec = parse_op_spec(relu_json());
  ASSERT_EQ(spec.contract(), 1);
  EXPECT_EQ(spec_hash(spec, "ref", "prompt-v1"), spec_hash(spec, "ref", "prompt-v2"));
  EXPECT_EQ(spec_hash(spec, "ref", "prompt-v1"), spec_hash(spec, "ref", ""));
}

TEST(SpecHashContracts, AV2OpsHashChangesWithThePromptVersion) {
  const OpSpec spec = parse_op_spec(gather_json());
  EXPECT_NE(spec_hash(spec, "ref", "prompt-v1"), spec_hash(spec, "ref", "prompt-v2"));
  EXPECT_EQ(spec_hash(spec, "ref", "prompt-v1"), spec_hash(spec, "ref", "prompt-v1"));
}

TEST(SpecHashContracts, AV2OpsHashChangesWithDimsDtypesIndexBoundsAndTolerance) {
  const OpSpec base = parse_op_spec(gather_json());
  const std::string original = spec_hash(base, "ref", "v");
  const auto hash_of = [&](const std::function<void(json&)>& change) {
    json spec = gather_json();
    change(spec);
    return spec_hash(parse_op_spec(spec), "ref", "v");
  };
  EXPECT_NE(hash_of([](json& j) { j["dims"]["rows"] = {1, 7, 64}; }), original) << "a DIMS size less";
  EXPECT_NE(hash_of([](json& j) { j["dims"]["cols"] = {16, 6}; }), original) << "a DIMS size changed";
  EXPECT_NE(hash_of([](json& j) { j["inputs"][0]["dtype"] = "f32"; }), original) << "a dtype";
  EXPECT_NE(hash_of([](json& j) {
              j["inputs"][1]["index"] = 1000;
              j["dims"].erase("vocab");
            }),
            original)
      << "an INDEX bound";
  EXPECT_NE(hash_of([](json& j) {
              j["inputs"][0]["shape"] = {"rows", 16};
            }),
            original)
      << "a dim made a number";
  EXPECT_NE(hash_of([](json& j) {
              j["tolerance"] = {{"atol", 1e-3}, {"rtol", 1e-3}};
            }),
            original)
      << "a declared tolerance, even one equal to the default";
  EXPECT_NE(hash_of([](json& j) { j["tolerance"] = {{"ulp", 0.5}}; }), original) << "a tolerance in ulps";
  EXPECT_NE(hash_of([](json& j) { j["tolerance"] = {{"ulp", 0.5}}; }),
            hash_of([](json& j) { j["tolerance"] = {{"ulp", 1}}; }));
}

TEST(SpecHashContracts, AV2OpsHashIgnoresBenchDimsAndFlops) {
  const std::string original = spec_hash(parse_op_spec(gather_json()), "ref", "v");
  json changed = gather_json();
  changed["bench_dims"]["rows"] = 8192;
  changed["flops"] = "2*rows*cols";
  EXPECT_EQ(spec_hash(parse_op_spec(changed), "ref", "v"), original);
}

// examples/consumer/generated/scale_add/manifest.json was written before contract 2: the spec JSON CMake
// writes for its declaration now must hash to the spec hash checked in then, or every consumer's kernel turns
// stale.
TEST(SpecHashContracts, TheConsumerExamplesKernelFromBeforeContract2IsStillCurrent) {
  const std::filesystem::path example =
      std::filesystem::path(KERNELGEN_TEST_SOURCE_DIR) / "examples" / "consumer";
  // As cmake/KernelGen.cmake writes it for examples/consumer/CMakeLists.txt's kernelgen_add_op(scale_add
  // ...).
  json written = json::parse(R"({
    "contract": 2,
    "name": "scale_add",
    "description": "y = alpha * x + b, elementwise",
    "inputs": [{"name":"x","dtype":"f32","shape":[1024]},{"name":"b","dtype":"f32","shape":[1024]}],
    "outputs": [{"name":"y","dtype":"f32","shape":[1024]}],
    "dims": {},
    "bench_dims": {},
    "params": {"alpha":2},
    "flops": 2048,
    "search": {}
  })");
  written["reference"] = (example / "ops" / "scale_add" / "reference.cpp").string();
  written["kernel"] = (example / "ops" / "scale_add" / "scale_add.comp").string();
  written["generated_dir"] = (example / "generated" / "scale_add").string();
  const OpSpec spec = parse_op_spec(written);
  ASSERT_EQ(spec.contract(), 1);
  const json manifest = json::parse(read_file(example / "generated" / "scale_add" / "manifest.json"));
  EXPECT_EQ(spec_hash(spec, read_file(spec.reference_path), prompt_template_version()),
            manifest.at("spec_hash").get<std::string>());
}

TEST(SpecSlug, NamesTheOpAndItsInputAndOutputShapes) {
  OpSpec spec = parse_op_spec(relu_json());
  spec.params.clear();
  EXPECT_EQ(spec_slug(spec), "relu_i4x8x16x16_o4x8x16x16");
}

TEST(SpecSlug, SeparatesTensorsWithUnderscores) {
  const OpSpec spec = parse_op_spec(json::parse(R"({
    "name": "matmul",
    "inputs": [{"name": "a", "dtype": "f32", "shape": [100, 70]}, {"name": "b", "dtype": "f32", "shape": [70, 130]}],
    "outputs": [{"name": "c", "dtype": "f32", "shape": [100, 130]}]
  })"));
  EXPECT_EQ(spec_slug(spec), "matmul_i100x70_70x130_o100x130");
}

TEST(SpecSlug, AppendsParamsSortedByNameWithFilenameSafeNumbers) {
  OpSpec spec = parse_op_spec(relu_json());
  spec.params = {{"stride", 2}, {"alpha", -0.5}};
  EXPECT_EQ(spec_slug(spec), "relu_i4x8x16x16_o4x8x16x16_alpham0p5_stride2p0");
}

}  // namespace
}  // namespace kernelgen
