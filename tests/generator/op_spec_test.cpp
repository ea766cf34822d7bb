// op_spec: parsing and checking spec.json, the spec hash that decides staleness, and the slug in record
// names.
#include "kernelgen/op_spec.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cctype>
#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "kernelgen/files.hpp"
#include "scratch_dir.hpp"

namespace kernelgen {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

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
  EXPECT_EQ(spec.contract, 1);
  EXPECT_EQ(spec.name, "relu");
  EXPECT_EQ(spec.description, "y = max(x, 0), elementwise");
  EXPECT_EQ(spec.reference_path, "/src/ops/relu/reference.cpp");
  ASSERT_EQ(spec.inputs.size(), 1u);
  EXPECT_EQ(spec.inputs[0].name, "x");
  EXPECT_EQ(spec.inputs[0].dtype, "f32");
  EXPECT_EQ(spec.inputs[0].shape, (std::vector<int64_t>{4, 8, 16, 16}));
  EXPECT_EQ(spec.inputs[0].elements(), 8192);
  EXPECT_EQ(spec.inputs[0].bytes(), 8192 * 4);
  ASSERT_EQ(spec.outputs.size(), 1u);
  EXPECT_EQ(spec.outputs[0].name, "y");
  EXPECT_EQ(spec.params.at("alpha"), 0.5);
  EXPECT_EQ(spec.atol, 1e-4);
  EXPECT_EQ(spec.rtol, 2e-4);
  EXPECT_EQ(spec.flops, 8192);
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
  EXPECT_EQ(spec.contract, 1);
  EXPECT_EQ(spec.description, "");
  EXPECT_TRUE(spec.params.empty());
  EXPECT_EQ(spec.atol, 1e-5);
  EXPECT_EQ(spec.rtol, 1e-5);
  EXPECT_EQ(spec.flops, 0);
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
  EXPECT_EQ(spec.bytes_moved(), 3 * 6 * 4);
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
        MalformedSpec{"contract 2", [](json& j) { j["contract"] = 2; }, "contract: version 2"},
        MalformedSpec{"no inputs", [](json& j) { j.erase("inputs"); }, "inputs: missing"},
        MalformedSpec{"inputs not an array", [](json& j) { j["inputs"] = "x"; }, "inputs: must be an array"},
        MalformedSpec{"an input that is not an object", [](json& j) { j["inputs"][0] = 3; },
                      "inputs[0]: must be"},
        MalformedSpec{"an input without a name", [](json& j) { j["inputs"][0].erase("name"); },
                      "inputs[0].name: missing"},
        MalformedSpec{"an input named with a space", [](json& j) { j["inputs"][0]["name"] = "x 1"; },
                      "inputs[0].name"},
        MalformedSpec{"an f16 input", [](json& j) { j["inputs"][0]["dtype"] = "f16"; }, "inputs[0].dtype"},
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
                      "inputs[0].shape: more than 2^31"},
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
        MalformedSpec{"a string flops", [](json& j) { j["flops"] = "2*N"; }, "flops: must be a number"},
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
  spec["inputs"][0]["dtype"] = "i8";
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
  EXPECT_NE(hash_of([](OpSpec& s) { s.inputs[0].shape[0] = 2; }), original) << "input shape";
  EXPECT_NE(hash_of([](OpSpec& s) { s.outputs[0].shape = {8192}; }), original) << "output shape";
  EXPECT_NE(hash_of([](OpSpec& s) { s.inputs[0].name = "input"; }), original) << "tensor name";
  EXPECT_NE(hash_of([](OpSpec& s) { s.params["alpha"] = 0.25; }), original) << "param value";
  EXPECT_NE(hash_of([](OpSpec& s) { s.params["beta"] = 1; }), original) << "extra param";
  EXPECT_NE(hash_of([](OpSpec& s) { s.atol = 1e-3; }), original) << "atol";
  EXPECT_NE(hash_of([](OpSpec& s) { s.rtol = 1e-3; }), original) << "rtol";
  EXPECT_NE(hash_of([](OpSpec& s) { s.description += "."; }), original) << "description";
  EXPECT_NE(hash_of([](OpSpec& s) { s.name = "leaky_relu"; }), original) << "name";
  EXPECT_NE(spec_hash(base, reference + " ", prompt), original) << "reference text";
  EXPECT_NE(spec_hash(base, reference, "prompt-v2"), original) << "prompt templates' version";
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
