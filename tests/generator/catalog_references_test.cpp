// The catalog's references tell kernels apart: a kernel of another op with the same interface (the same
// tensors and dims) is rejected against each of them (while the op's own checked-in kernel passes kernelgen.<op>);
// and no reference is degenerate: two different random inputs give two different outputs. The impostors are another
// op's checked-in kernel or a kernel under impostors/, whose first comment says what it really computes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernelgen/device.hpp"
#include "kernelgen/store/files.hpp"
#include "kernelgen/validation/cases.hpp"
#include "kernelgen/validation/evaluate.hpp"
#include "kernelgen/validation/validate.hpp"

namespace kernelgen {
namespace {

const std::string kGenerated = KERNELGEN_TEST_GENERATED_DIR;
const std::string kSpecs = KERNELGEN_TEST_SPECS_DIR;
const std::string kImpostors = KERNELGEN_TEST_IMPOSTORS_DIR;

OpSpec spec_of(const std::string& op) { return load_op_spec(kSpecs + "/" + op + "/spec.json"); }

ReferenceFunction reference_of(const std::string& op) {
  const ReferenceFunction reference = find_reference(op);
  if (!reference) throw std::logic_error("the reference of " + op + " is not linked into this test");
  return reference;
}

// The ops declared in ops/, comma-separated from CMake (the KERNELGEN_OPS property).
std::vector<std::string> catalog_ops() {
  std::vector<std::string> ops;
  std::stringstream list(KERNELGEN_TEST_CATALOG_OPS);
  for (std::string op; std::getline(list, op, ',');) ops.push_back(op);
  return ops;
}

std::string checked_in(const std::string& op) { return read_file(kGenerated + "/" + op + "/kernel.comp"); }

class CatalogReferences : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { device_ = std::make_unique<Device>(validation_device_options()); }
  static void TearDownTestSuite() { device_.reset(); }

  static Verdict evaluate(const std::string& op, const std::string& glsl) {
    return evaluate_source(*device_, spec_of(op), reference_of(op), glsl, {base_seed_from_environment(), 0});
  }

  static std::unique_ptr<Device> device_;
};

std::unique_ptr<Device> CatalogReferences::device_;

// A kernel of another op validated against `op`: `source`'s checked-in kernel, or impostors/<op>.comp when
// `source` is "impostor".
struct Impostor {
  std::string op;
  std::string source;
};

std::string kernel_of(const Impostor& impostor) {
  return impostor.source == "impostor" ? read_file(kImpostors + "/" + impostor.op + ".comp") : checked_in(impostor.source);
}

void PrintTo(const Impostor& impostor, std::ostream* out) { *out << impostor.source << " as " << impostor.op; }

class CatalogImpostor : public CatalogReferences, public ::testing::WithParamInterface<Impostor> {};

TEST_P(CatalogImpostor, IsRejectedAsNumericallyWrong) {
  const Impostor& impostor = GetParam();
  const Verdict verdict = evaluate(impostor.op, kernel_of(impostor));
  EXPECT_EQ(status_name(verdict.status), std::string(status_name(Status::INCORRECT_NUMERICAL))) << describe(verdict);
  EXPECT_THAT(verdict.reason, ::testing::HasSubstr("differ from the reference")) << describe(verdict);
  EXPECT_FALSE(verdict.passed());
}

// Every catalog op has an impostor under impostors/; some also have a sibling op of the same interface.
std::vector<Impostor> impostors() {
  std::vector<Impostor> list;
  for (const std::string& op : catalog_ops()) list.push_back({op, "impostor"});
  for (Impostor sibling : std::initializer_list<Impostor>{{"gelu", "silu"}, {"sigmoid", "silu"}, {"silu", "sigmoid"},
                                                          {"silu", "gelu"}, {"mul", "add"}, {"add", "mul"},
                                                          {"sum_lastdim", "max_lastdim"}, {"max_lastdim", "sum_lastdim"}})
    list.push_back(sibling);
  return list;
}

INSTANTIATE_TEST_SUITE_P(SameInterface, CatalogImpostor, ::testing::ValuesIn(impostors()),
                         [](const ::testing::TestParamInfo<Impostor>& info) {
                           return info.param.source + "_as_" + info.param.op;
                         });

class CatalogOp : public CatalogReferences, public ::testing::WithParamInterface<std::string> {};

// The control for the rejections above is each op's own test, kernelgen.<op> (ctest -L kernelgen): its
// checked-in kernel passes the same validation against the same spec and reference.

TEST_P(CatalogOp, ReferenceGivesDifferentOutputsForDifferentInputs) {
  const OpSpec spec = spec_of(GetParam());
  const ReferenceFunction reference = reference_of(GetParam());
  // The largest size validated: at size 1 some ops are trivial (argmax of one column is always 0).
  DimValues dims;
  for (const DimSpec& dim : spec.dims) dims.push_back(*std::max_element(dim.sizes.begin(), dim.sizes.end()));
  const TestCase first = make_case(spec, "uniform", 1, dims), second = make_case(spec, "uniform", 2, dims);
  ASSERT_NE(first.inputs[0].bytes, second.inputs[0].bytes) << "the two cases drew the same inputs";
  const auto first_out = run_reference(spec, reference, first), second_out = run_reference(spec, reference, second);
  ASSERT_EQ(first_out.size(), 1u);
  EXPECT_NE(first_out[0].bytes, second_out[0].bytes);
  // Not a copy of an input either: every output differs from x somewhere.
  EXPECT_NE(first_out[0].bytes, first.inputs[0].bytes);
  // And every element is finite on these inputs in [-1, 1].
  for (int64_t e = 0; e < first_out[0].elements(); ++e)
    ASSERT_TRUE(std::isfinite(first_out[0].value(e))) << "element " << e;
}

INSTANTIATE_TEST_SUITE_P(Catalog, CatalogOp, ::testing::ValuesIn(catalog_ops()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// attention's terms (KERNELGEN_TERMS in ops/attention/reference.cpp): query 0's two scores are 1e7 and 1e7 + 1,
// where floats are 1 apart, so the weights of its two keys are whatever the rounding of the scores makes them
// and its output may move by the width of v; query 1's scores are 2.5 apart from each other by a rounding, and
// its output is bounded as an average's. A column of v that is 0 everywhere has terms 0.
TEST_F(CatalogReferences, AttentionsTermsWidenTheBoundOnlyWhereLargeScoresNearlyTie) {
  const OpSpec spec = spec_of("attention");
  TestCase test_case = make_case(spec, "zeros", 1, {2});
  HostTensor &q = test_case.inputs[0], &k = test_case.inputs[1], &v = test_case.inputs[2];
  q.set(0, 4000.0);       // q[0][0]
  q.set(64, 1e-3);        // q[1][0]
  k.set(0, 20000.0);      // k[0][0]: score 1e7 for query 0
  k.set(64, 20000.002);   // k[1][0]: score 1e7 + 1
  v.set(64, 1.0);         // v[1][0]; v[0][0] = 0
  const ReferenceFunction terms = find_terms("attention");
  ASSERT_NE(terms, nullptr) << "ops/attention/reference.cpp defines KERNELGEN_TERMS(attention)";
  const HostTensor bound = reference_magnitudes(spec, reference_of("attention"), test_case).at(0);
  EXPECT_GT(bound.value(0), 1e6) << "the near tie: rtol 1e-5 allows an error of 10 and more";
  EXPECT_LT(bound.value(64), 2.0) << "small scores: about |v|";
  EXPECT_EQ(bound.value(1), 0.0) << "a column of zeros";
}

// Seeds whose cases a correct kernel failed before attention had its own terms: the mixed case's near tie of two
// scores near 1e7 (one query's output 1.4 off), and non-finite cases where a weight below the smallest normal
// float met an infinite value of v (lavapipe flushes it to 0, giving NaN; the reference kept it, giving inf).
TEST_F(CatalogReferences, TheCheckedInAttentionPassesTheSeedsThatOnceRejectedIt) {
  for (const uint64_t seed : {17569899664029566119ull, 5866704521597296652ull, 5661019902176539608ull}) {
    const Verdict verdict = evaluate_source(*device_, spec_of("attention"), reference_of("attention"),
                                            checked_in("attention"), {seed, 0});
    EXPECT_TRUE(verdict.passed()) << "KERNELGEN_SEED=" << seed << ": " << describe(verdict);
  }
}

// attention_f16's first terms (the f32 attention's first-order sensitivity, scaled to f16's rtol) rejected its
// checked-in kernel in the large case (128 of 1241600 elements of o at heads=97 seq=100, off by 5013 against 2.075):
// with f16 inputs near their largest, a score's rounding can exceed the gap between the two largest scores of a
// row, so the kernel's weights went to another key than the reference's, whose first-order term was near 0. Its
// terms now bound how far two scores' errors can move each weight (ops/attention_f16/reference.cpp).
TEST_F(CatalogReferences, TheCheckedInAttentionF16PassesTheSeedThatOnceRejectedIt) {
  const uint64_t seed = 4202790932209665873ull;
  const Verdict verdict = evaluate_source(*device_, spec_of("attention_f16"), reference_of("attention_f16"),
                                          checked_in("attention_f16"), {seed, 0});
  EXPECT_TRUE(verdict.passed()) << "KERNELGEN_SEED=" << seed << ": " << describe(verdict);
}

}  // namespace
}  // namespace kernelgen
