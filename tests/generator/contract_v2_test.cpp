// Kernel contract v2 through evaluate_source, on ops declared here with their references: symbolic dims
// arrive as push constants and the dispatch line is an expression over them (rowsum), tensors of f16, bf16, i8
// and u8, and an INDEX input (an embedding lookup). Each correct kernel passes every case at every size; each
// wrong one is rejected with the status and a reason that names the size it failed at.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <kernelgen/reference.hpp>

#include <algorithm>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>

#include "kernelgen/device.hpp"
#include "kernelgen/spirv_interface.hpp"
#include "kernelgen/store/files.hpp"
#include "kernelgen/validation/cases.hpp"
#include "kernelgen/validation/evaluate.hpp"
#include "support/rowsum_reference.hpp"
#include "support/spec_from.hpp"

KERNELGEN_REFERENCE(relu_f16) {
  kernelgen::as_array<Eigen::half>(outputs[0]) =
      kernelgen::as_array<Eigen::half>(inputs[0]).cwiseMax(Eigen::half(0.0f));
}

// An id outside the vocab would make the validator's own cases wrong: the reference refuses it.
KERNELGEN_REFERENCE(embedding) {
  const auto table = kernelgen::as_matrix(inputs[0]);
  const auto ids = kernelgen::as_array<int32_t>(inputs[1]);
  auto out = kernelgen::as_matrix(outputs[0]);
  for (Eigen::Index i = 0; i < ids.size(); ++i) {
    if (ids(i) < 0 || ids(i) >= table.rows())
      throw std::out_of_range("embedding: id " + std::to_string(ids(i)) + " at " + std::to_string(i) +
                              " is outside a vocab of " + std::to_string(table.rows()));
    out.row(i) = table.row(ids(i));
  }
}

KERNELGEN_REFERENCE(add_u8) {
  kernelgen::as_array<uint8_t>(outputs[0]) =
      kernelgen::as_array<uint8_t>(inputs[0]) + kernelgen::as_array<uint8_t>(inputs[1]);
}

// bf16 to f32: every bf16 value is a float, so the widening is exact.
KERNELGEN_REFERENCE(widen_bf16) {
  kernelgen::as_array(outputs[0]) = kernelgen::as_array<Eigen::bfloat16>(inputs[0]).cast<float>();
}

KERNELGEN_REFERENCE(negate_i8) {
  kernelgen::as_array<int8_t>(outputs[0]) = -kernelgen::as_array<int8_t>(inputs[0]);
}

namespace kernelgen {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;

const std::string kKernels = KERNELGEN_TEST_KERNELS_DIR;

using test::spec_from;

// rows=1,5,64,333: the one-row edge case, a partial workgroup, exactly one workgroup, and a ragged count.
OpSpec rowsum_spec() {
  return spec_from(R"({"name": "rowsum", "contract": 2,
    "inputs": [{"name": "x", "dtype": "f32", "shape": ["rows", 300]}],
    "outputs": [{"name": "y", "dtype": "f32", "shape": ["rows"]}],
    "dims": {"rows": [1, 5, 64, 333]}})");
}

// `source` with each `from` replaced by `to`; the test's kernel must hold `from`.
std::string edited(std::string source, const std::string& from, const std::string& to) {
  size_t at = source.find(from);
  if (at == std::string::npos) throw std::logic_error("the kernel has no `" + from + "`");
  for (; at != std::string::npos; at = source.find(from, at + to.size())) source.replace(at, from.size(), to);
  return source;
}

std::string kernel(const std::string& file) {
  return read_file(kKernels + "/" + file);
}

std::string rowsum_with(const std::string& from, const std::string& to) {
  return edited(kernel("rowsum.comp"), from, to);
}

// How many cases ran at each size, by the size's text ("rows=5").
std::map<std::string, size_t> cases_per_size(const Verdict& verdict) {
  std::map<std::string, size_t> counts;
  for (const CaseResult& c : verdict.cases) ++counts[c.dims];
  return counts;
}

// The sizes a kernel with this workgroup is validated at, as cases_per_size names them, the whole suite each.
const size_t kCases = case_names().size();

std::map<std::string, size_t> full_suite(const OpSpec& spec, std::array<uint32_t, 3> local_size, uint64_t seed) {
  std::map<std::string, size_t> counts;
  for (const DimValues& dims : validation_sizes(spec, local_size, seed)) counts[dims_text(spec, dims)] = case_names().size();
  return counts;
}

class ContractV2 : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    device_ = std::make_unique<Device>(validation_device_options());
  }
  static void TearDownTestSuite() { device_.reset(); }

  static Verdict evaluate(const OpSpec& spec, const std::string& glsl, KernelBinary* binary = nullptr) {
    const ReferenceFunction reference = find_reference(spec.name);
    if (!reference) throw std::logic_error("no reference registered for " + spec.name);
    return evaluate_source(*device_, spec, reference, glsl, {base_seed_from_environment(), 0}, binary);
  }

  static const DeviceFeatures& features() { return device_->info().features; }

  static std::unique_ptr<Device> device_;
};

std::unique_ptr<Device> ContractV2::device_;

TEST_F(ContractV2, ARowsumReadingItsDimsPassesEveryCaseAtEverySize) {
  const OpSpec spec = rowsum_spec();
  KernelBinary binary;
  const Verdict verdict = evaluate(spec, kernel("rowsum.comp"), &binary);
  ASSERT_TRUE(verdict.passed()) << describe(verdict);
  const auto counts = cases_per_size(verdict);
  EXPECT_EQ(counts, full_suite(spec, {64, 1, 1}, verdict.base_seed));
  // 333 is already ragged for a workgroup of 64 and 1 is listed: the declared sizes, then the drawn ones (below,
  // 2 mod 4, 64k + an odd rest, above; two of them may coincide).
  for (const char* declared : {"rows=1", "rows=5", "rows=64", "rows=333"}) EXPECT_EQ(counts.at(declared), kCases);
  EXPECT_GE(counts.size(), 7u);
  EXPECT_LE(counts.size(), 8u);
  for (const CaseResult& c : verdict.cases)
    EXPECT_EQ(c.comparison.elements, std::stoi(c.dims.substr(5))) << c.dims;
  EXPECT_EQ(binary.grid.text(), "(rows + 63) / 64 1 1");
}

TEST_F(ContractV2, SizesMissingFromDimsAreAddedOneAndARaggedOne) {
  OpSpec spec = rowsum_spec();
  spec.dims[0].sizes = {64, 128};
  const auto sizes = declared_sizes(spec, {64, 1, 1});
  std::set<int64_t> added;
  for (const DimValues& dims : sizes) added.insert(dims.at(0));
  ASSERT_EQ(added.size(), 4u);
  EXPECT_EQ(added.erase(64) + added.erase(128), 2u) << "the declared sizes";
  EXPECT_EQ(added.erase(1), 1u) << "one row";
  ASSERT_EQ(added.size(), 1u);
  const int64_t ragged = *added.begin();
  EXPECT_GT(ragged, 64) << "more than one workgroup";
  EXPECT_NE(ragged % 64, 0) << "a partial last workgroup";

  const Verdict verdict = evaluate(spec, kernel("rowsum.comp"));
  ASSERT_TRUE(verdict.passed()) << describe(verdict);
  EXPECT_EQ(cases_per_size(verdict), full_suite(spec, {64, 1, 1}, verdict.base_seed));
}

TEST_F(ContractV2, AGridOfOneWorkgroupOf64RowsFailsAt333NamingTheSize) {
  const Verdict verdict =
      evaluate(rowsum_spec(), rowsum_with("dispatch (rows + 63) / 64 1 1", "dispatch 1 1 1"));
  EXPECT_EQ(verdict.status, Status::INCORRECT_NUMERICAL) << describe(verdict);
  EXPECT_THAT(
      verdict.reason,
      HasSubstr("269 of 333 elements of output y at rows=333 were never written (first at index 64)"));
  // Up to 64 rows it is right.
  for (const CaseResult& c : verdict.cases)
    EXPECT_TRUE(c.passed() || c.dims == "rows=333") << c.dims << " " << c.name << ": " << c.detail;
}

// It reads rows of x that are not there before it stores sums that have no place in y; the read comes first.
TEST_F(ContractV2, AKernelThatAlwaysSums64RowsGoesPastItsTensorsAtRows1) {
  const Verdict verdict =
      evaluate(rowsum_spec(), rowsum_with("if (r >= dims.rows) return;", "if (r >= 64u) return;"));
  EXPECT_EQ(verdict.status, Status::OUT_OF_BOUNDS) << describe(verdict);
  EXPECT_THAT(verdict.reason, AnyOf(HasSubstr("read past the end of binding 0 (input x) at rows=1: element "),
                                    HasSubstr("wrote past the end of binding 1 (output y) at rows=1: element ")));
}

TEST_F(ContractV2, ADispatchThatRoundsDownIsAnInterfaceMismatchWithTheRoundUpHint) {
  const Verdict verdict =
      evaluate(rowsum_spec(), rowsum_with("dispatch (rows + 63) / 64 1 1", "dispatch rows / 64 1 1"));
  EXPECT_EQ(verdict.status, Status::INTERFACE_MISMATCH) << describe(verdict);
  EXPECT_THAT(verdict.reason, AnyOf(HasSubstr("at rows=1"), HasSubstr("at rows=5")));
  EXPECT_THAT(verdict.reason, HasSubstr("is 0"));
  EXPECT_THAT(verdict.reason, HasSubstr("round up: (rows + 63) / 64"));
  EXPECT_TRUE(verdict.cases.empty()) << "nothing ran";
}

TEST_F(ContractV2, APushConstantOfTheWrongTypeIsAnInterfaceMismatchNamingTheBlock) {
  const Verdict verdict = evaluate(
      rowsum_spec(), edited(rowsum_with("uniform Dims { uint rows; }", "uniform Dims { float rows; }"),
                            "r >= dims.rows", "r >= uint(dims.rows)"));
  EXPECT_EQ(verdict.status, Status::INTERFACE_MISMATCH) << describe(verdict);
  EXPECT_THAT(verdict.reason, HasSubstr("push-constant member 0 (rows)"));
  EXPECT_THAT(verdict.reason, HasSubstr("declare layout(push_constant) uniform Dims { uint rows; } dims;"));
}

// rowsum with both extents symbolic: two push constants, rows then cols (their order of first appearance).
std::string rowsum_over_cols(const std::string& block) {
  return edited(edited(rowsum_with("uniform Dims { uint rows; }", "uniform Dims { " + block + " }"),
                       "const uint kColumns = 300;\n", ""),
                "kColumns", "dims.cols");
}

TEST_F(ContractV2, PushConstantsInTheWrongOrderAreAnInterfaceMismatchNamingTheBlock) {
  const OpSpec spec = spec_from(R"({"name": "rowsum", "contract": 2,
    "inputs": [{"name": "x", "dtype": "f32", "shape": ["rows", "cols"]}],
    "outputs": [{"name": "y", "dtype": "f32", "shape": ["rows"]}],
    "dims": {"rows": [1, 5], "cols": [3, 300]}})");
  const Verdict wrong = evaluate(spec, rowsum_over_cols("uint cols; uint rows;"));
  EXPECT_EQ(wrong.status, Status::INTERFACE_MISMATCH) << describe(wrong);
  EXPECT_THAT(wrong.reason,
              HasSubstr("declare layout(push_constant) uniform Dims { uint rows; uint cols; } dims;"));

  const Verdict right = evaluate(spec, rowsum_over_cols("uint rows; uint cols;"));
  EXPECT_TRUE(right.passed()) << describe(right);
  EXPECT_EQ(cases_per_size(right), full_suite(spec, {64, 1, 1}, right.base_seed));
}

// A row reduction whose tail of two is wrong passes every declared size of the catalog's kind (cols 1, 5, 33, 300:
// tails of 1, 1, 1 and 0) and every prime; the size drawn with every dim = 2 (mod 4) rejects it, whatever the
// seed, and its twin passes there.
TEST_F(ContractV2, ARowReductionWrongOnlyForColsOfTwoModFourFailsAtTheDrawnResidueSize) {
  const OpSpec spec = spec_from(R"({"name": "rowsum", "contract": 2,
    "inputs": [{"name": "x", "dtype": "f32", "shape": ["rows", "cols"]}],
    "outputs": [{"name": "y", "dtype": "f32", "shape": ["rows"]}],
    "dims": {"rows": [1, 5], "cols": [1, 5, 33, 300]}})");
  const Verdict wrong = evaluate(spec, kernel("rowsum_by_fours_pair_tail.comp"));
  EXPECT_EQ(wrong.status, Status::INCORRECT_NUMERICAL) << describe(wrong);
  const std::vector<DimValues> sizes = validation_sizes(spec, {64, 1, 1}, wrong.base_seed);
  const auto first_pair_tail =
      std::find_if(sizes.begin(), sizes.end(), [](const DimValues& dims) { return dims[1] % 4 == 2; });
  ASSERT_NE(first_pair_tail, sizes.end()) << "no size with cols = 2 (mod 4)";
  EXPECT_GE(first_pair_tail - sizes.begin(), static_cast<std::ptrdiff_t>(declared_sizes(spec, {64, 1, 1}).size()))
      << "a declared size has cols = 2 (mod 4): the test would not show the drawn one";
  EXPECT_THAT(wrong.reason, HasSubstr("at " + dims_text(spec, *first_pair_tail)));

  const Verdict right = evaluate(spec, kernel("rowsum_by_fours.comp"));
  EXPECT_TRUE(right.passed()) << describe(right);
  EXPECT_EQ(cases_per_size(right), full_suite(spec, {64, 1, 1}, right.base_seed));
}

// A kernel of contract 1's kind: no Dims block, its one size hard-coded. It is right at rows=1 only.
std::string rowsum_of_one_row() {
  return edited(rowsum_with("layout(push_constant) uniform Dims { uint rows; } dims;\n", ""), "dims.rows",
                "1u");
}

TEST_F(ContractV2, AKernelWithoutDimsThatHardCodesItsSizeIsCaughtNumerically) {
  const std::string source = edited(rowsum_of_one_row(), "dispatch (rows + 63) / 64 1 1", "dispatch 1 1 1");
  const auto interface =
      reflect_spirv(std::get<KernelBinary>(compile_candidate(rowsum_spec(), source)).spirv);
  ASSERT_TRUE(interface);
  ASSERT_FALSE(interface->uses_push_constants);
  const Verdict verdict = evaluate(rowsum_spec(), source);
  EXPECT_EQ(verdict.status, Status::INCORRECT_NUMERICAL) << describe(verdict);
  EXPECT_THAT(verdict.reason,
              HasSubstr("4 of 5 elements of output y at rows=5 were never written (first at index 1)"));
}

TEST_F(ContractV2, ARejectionAtOneSizeStopsValidationThereAndNamesTheSize) {
  const OpSpec spec = rowsum_spec();
  const Verdict verdict = evaluate(spec, rowsum_of_one_row());
  ASSERT_FALSE(verdict.passed());
  EXPECT_THAT(verdict.reason, HasSubstr("at rows=5"));
  EXPECT_EQ(cases_per_size(verdict), (std::map<std::string, size_t>{{"rows=1", kCases}, {"rows=5", kCases}}));
  EXPECT_LT(verdict.cases.size(), kCases * validation_sizes(spec, {64, 1, 1}, verdict.base_seed).size());
  for (const CaseResult& c : verdict.cases) {
    EXPECT_EQ(c.passed(), c.dims == "rows=1") << c.dims << " " << c.name;
    if (!c.passed()) {
      EXPECT_EQ(c.dims, "rows=5");
    }
  }
  EXPECT_THAT(describe(verdict), HasSubstr("rows=5"));
}

// A kernel right up to the largest DIMS value and idle past it passes every declared size; the size drawn above
// DIMS (a prime in 334..666) finds it, whatever the seed.
TEST_F(ContractV2, AKernelRightOnlyUpToTheLargestDimsFailsAtTheSizeDrawnAboveThem) {
  const OpSpec spec = rowsum_spec();
  const std::string idle_above_333 = edited(kernel("rowsum.comp"), "if (r >= dims.rows) return;",
                                            "if (r >= dims.rows || r >= 333u) return;");
  const Verdict verdict = evaluate(spec, idle_above_333);
  ASSERT_FALSE(verdict.passed());
  EXPECT_EQ(verdict.status, Status::INCORRECT_NUMERICAL);
  const DimValues drawn = validation_sizes(spec, {64, 1, 1}, verdict.base_seed).back();
  EXPECT_GT(drawn[0], 333);
  EXPECT_THAT(verdict.reason, HasSubstr("at " + dims_text(spec, drawn)));
  for (const char* declared : {"rows=1", "rows=5", "rows=64", "rows=333"})
    EXPECT_EQ(cases_per_size(verdict).at(declared), kCases) << "passed at " << declared;
}

// Timed at 5000 rows on a GPU, 2000 on a CPU device: above every size validated, even the drawn ones.
OpSpec rowsum_timed_spec() {
  return spec_from(R"({"name": "rowsum", "contract": 2,
    "inputs": [{"name": "x", "dtype": "f32", "shape": ["rows", 300]}],
    "outputs": [{"name": "y", "dtype": "f32", "shape": ["rows"]}],
    "dims": {"rows": [1, 5, 64, 333]}, "bench_dims": {"rows": 5000}, "cpu_bench_dims": {"rows": 2000}})");
}

TEST_F(ContractV2, AKernelThatSkipsRowsPastTheValidatedSizesIsRejectedByItsTimedOutput) {
  const OpSpec spec = rowsum_timed_spec();
  const std::string idle_above_1000 = edited(kernel("rowsum.comp"), "if (r >= dims.rows) return;",
                                             "if (r >= dims.rows || r >= 1000u) return;");
  const ReferenceFunction reference = find_reference(spec.name);
  const Verdict untimed = evaluate_source(*device_, spec, reference, idle_above_1000, {base_seed_from_environment(), 0});
  ASSERT_TRUE(untimed.passed()) << "right at every size validated: " << describe(untimed);

  const Verdict timed = evaluate_source(*device_, spec, reference, idle_above_1000, {base_seed_from_environment(), 3});
  ASSERT_FALSE(timed.passed());
  EXPECT_EQ(timed.status, Status::INCORRECT_NUMERICAL);
  EXPECT_THAT(timed.reason, HasSubstr("case timed: the output of the timed run at rows="));
  EXPECT_THAT(timed.reason, HasSubstr("first at index 1000"));
  EXPECT_FALSE(timed.timing) << "a wrong kernel has no timing to compete with";
  ASSERT_FALSE(timed.cases.empty());
  EXPECT_EQ(timed.cases.back().name, "timed");

  const Verdict right = evaluate_source(*device_, spec, reference, kernel("rowsum.comp"), {base_seed_from_environment(), 3});
  EXPECT_TRUE(right.passed()) << describe(right);
  EXPECT_TRUE(right.timing);
  EXPECT_EQ(right.cases.back().name, "timed");
  EXPECT_TRUE(right.cases.back().passed());
}

// f16: 16-bit storage for the buffers and float16 arithmetic.
OpSpec relu_f16_spec() {
  return spec_from(R"({"name": "relu_f16", "contract": 2,
    "inputs": [{"name": "x", "dtype": "f16", "shape": ["n"]}],
    "outputs": [{"name": "y", "dtype": "f16", "shape": ["n"]}],
    "dims": {"n": [1, 7, 100]}})");
}

TEST_F(ContractV2, AnF16ReluPassesWith16BitStorageAndFloat16Arithmetic) {
  if (!features().storage_buffer_16bit || !features().shader_float16)
    GTEST_SKIP() << device_->info().name << " lacks storageBuffer16BitAccess or shaderFloat16";
  const OpSpec spec = relu_f16_spec();
  const Verdict verdict = evaluate(spec, kernel("relu_f16.comp"));
  ASSERT_TRUE(verdict.passed()) << describe(verdict);
  EXPECT_EQ(cases_per_size(verdict), full_suite(spec, {64, 1, 1}, verdict.base_seed));
}

TEST_F(ContractV2, AnF16ReluThatStoresFloat32BitsIsRejected) {
  if (!features().storage_buffer_16bit)
    GTEST_SKIP() << device_->info().name << " lacks storageBuffer16BitAccess for the op's tensors";
  const std::string source = edited(
      edited(edited(kernel("relu_f16.comp"), "float16_t x[]", "float x[]"), "float16_t y[]", "float y[]"),
      "max(x[i], float16_t(0.0))", "max(x[i], 0.0)");
  const Verdict verdict = evaluate(relu_f16_spec(), source);
  // Its stores run past y's bytes, into guards whose pattern is y's own (the upper halves copy x's guards).
  EXPECT_EQ(verdict.status, Status::OUT_OF_BOUNDS) << describe(verdict);
  EXPECT_THAT(verdict.reason, HasSubstr("at n="));
}

// bf16, a storage dtype: 16-bit storage alone, the kernel widening the bits itself, exactly (TOLERANCE 0 0), the
// way a GEMM over bf16 operands reads them. Taking a bf16 as the low half of a float is caught in every case.
OpSpec widen_bf16_spec() {
  return spec_from(R"({"name": "widen_bf16", "contract": 2,
    "inputs": [{"name": "x", "dtype": "bf16", "shape": ["n"]}],
    "outputs": [{"name": "y", "dtype": "f32", "shape": ["n"]}],
    "dims": {"n": [1, 7, 100]}, "tolerance": {"atol": 0, "rtol": 0}})");
}

TEST_F(ContractV2, ABf16WideningIsExactAndOneThatTakesTheLowHalfIsRejected) {
  if (!features().storage_buffer_16bit)
    GTEST_SKIP() << device_->info().name << " lacks storageBuffer16BitAccess for the op's tensors";
  const OpSpec spec = widen_bf16_spec();
  const Verdict verdict = evaluate(spec, kernel("widen_bf16.comp"));
  ASSERT_TRUE(verdict.passed()) << describe(verdict);
  EXPECT_EQ(cases_per_size(verdict), full_suite(spec, {64, 1, 1}, verdict.base_seed));
  const Verdict low_half = evaluate(spec, edited(kernel("widen_bf16.comp"), "uint(x[i]) << 16", "uint(x[i])"));
  EXPECT_EQ(low_half.status, Status::INCORRECT_NUMERICAL) << describe(low_half);
}

// ctest skips, saying why, an op whose kernel needs float16 arithmetic on a device with 16-bit storage only.
TEST_F(ContractV2, AKernelNeedingFloat16ArithmeticIsUnsupportedWhereTheDeviceLacksIt) {
  KernelBinary binary;
  const Verdict verdict = evaluate(relu_f16_spec(), kernel("relu_f16.comp"), &binary);
  ASSERT_FALSE(binary.spirv.empty()) << describe(verdict);
  DeviceInfo storage_only = device_->info();
  storage_only.features.storage_buffer_16bit = true;
  storage_only.features.shader_float16 = true;
  EXPECT_EQ(unsupported_on(relu_f16_spec(), storage_only, binary.spirv), std::nullopt);
  storage_only.features.shader_float16 = false;
  const auto reason = unsupported_on(relu_f16_spec(), storage_only, binary.spirv);
  ASSERT_TRUE(reason);
  EXPECT_THAT(*reason, HasSubstr("Float16"));
  EXPECT_THAT(*reason, HasSubstr("relu_f16"));
  EXPECT_EQ(unsupported_on(relu_f16_spec(), storage_only), std::nullopt) << "the dtype alone is storable";
}

// INDEX: ids are indices into the vocab, in range in every case the validator draws.
OpSpec embedding_spec() {
  return spec_from(R"({"name": "embedding", "contract": 2,
    "inputs": [{"name": "table", "dtype": "f32", "shape": ["vocab", 16]},
               {"name": "ids", "dtype": "i32", "shape": ["n"], "index": "vocab"}],
    "outputs": [{"name": "out", "dtype": "f32", "shape": ["n", 16]}],
    "dims": {"vocab": [3, 50], "n": [1, 9]},
    "tolerance": {"atol": 0, "rtol": 0}})");
}

TEST_F(ContractV2, AnEmbeddingGatherPassesAtEverySizeWithItsIdsInRange) {
  const OpSpec spec = embedding_spec();
  ASSERT_EQ(spec.dim_names(), (std::vector<std::string>{"vocab", "n"}));
  const uint64_t seed = base_seed_from_environment();
  for (const DimValues& dims : validation_sizes(spec, {64, 1, 1}, seed))
    for (const TestCase& c : make_cases(spec, seed, dims))
      for (int64_t i = 0; i < c.inputs[1].elements(); ++i) {
        ASSERT_GE(c.inputs[1].value(i), 0) << c.name << " at " << dims_text(spec, dims);
        ASSERT_LT(c.inputs[1].value(i), static_cast<double>(dims[0]))
            << c.name << " at " << dims_text(spec, dims);
      }

  const Verdict verdict = evaluate(spec, kernel("embedding.comp"));
  ASSERT_TRUE(verdict.passed()) << describe(verdict);
  EXPECT_EQ(cases_per_size(verdict), full_suite(spec, {64, 1, 1}, verdict.base_seed));
  for (const CaseResult& c : verdict.cases) EXPECT_TRUE(c.passed()) << c.dims << " " << c.name;
}

// At vocab=1 the clamp gives -1: a read before the table, which GPU-assisted validation reports; without the
// layer robust access reads zeros there and the values differ.
TEST_F(ContractV2, AnEmbeddingThatClampsIdsBelowTheVocabIsRejected) {
  const Verdict verdict = evaluate(embedding_spec(), edited(kernel("embedding.comp"), "int id = ids[i];",
                                                            "int id = min(ids[i], int(dims.vocab) - 2);"));
  if (device_->gpu_assisted_validation()) {
    EXPECT_EQ(verdict.status, Status::OUT_OF_BOUNDS) << describe(verdict);
    EXPECT_THAT(verdict.reason, HasSubstr("read past the end of binding 0 (input table) at vocab=1"));
    EXPECT_THAT(verdict.reason, HasSubstr("an index below 0 wraps around"));
  } else {
    EXPECT_EQ(verdict.status, Status::INCORRECT_NUMERICAL) << describe(verdict);
    EXPECT_THAT(verdict.reason, HasSubstr("differ from the reference"));
  }
}

// 8-bit integers: 8-bit storage, int8 arithmetic, outputs compared exactly.
OpSpec add_u8_spec() {
  return spec_from(R"({"name": "add_u8", "contract": 2,
    "inputs": [{"name": "x", "dtype": "u8", "shape": ["n"]}, {"name": "y", "dtype": "u8", "shape": ["n"]}],
    "outputs": [{"name": "z", "dtype": "u8", "shape": ["n"]}],
    "dims": {"n": [1, 7, 100]}})");
}

OpSpec negate_i8_spec() {
  return spec_from(R"({"name": "negate_i8", "contract": 2,
    "inputs": [{"name": "x", "dtype": "i8", "shape": ["n"]}],
    "outputs": [{"name": "y", "dtype": "i8", "shape": ["n"]}],
    "dims": {"n": [1, 7, 100]}})");
}

class ContractV2Int8 : public ContractV2 {
 protected:
  void SetUp() override {
    if (!features().storage_buffer_8bit || !features().shader_int8)
      GTEST_SKIP() << device_->info().name << " lacks storageBuffer8BitAccess or shaderInt8";
  }
};

TEST_F(ContractV2Int8, AU8AddThatWrapsAroundPasses) {
  const OpSpec spec = add_u8_spec();
  const Verdict verdict = evaluate(spec, kernel("add_u8.comp"));
  ASSERT_TRUE(verdict.passed()) << describe(verdict);
  EXPECT_EQ(cases_per_size(verdict), full_suite(spec, {64, 1, 1}, verdict.base_seed));
}

TEST_F(ContractV2Int8, AU8AddOffByOneFailsOnEveryElement) {
  const Verdict verdict =
      evaluate(add_u8_spec(), edited(kernel("add_u8.comp"), "x[i] + y[i]", "x[i] + y[i] + uint8_t(1)"));
  EXPECT_EQ(verdict.status, Status::INCORRECT_NUMERICAL) << describe(verdict);
  ASSERT_FALSE(verdict.cases.empty());
  const Comparison& first = verdict.cases.front().comparison;
  EXPECT_EQ(first.mismatches, first.elements) << "an error of 1 is a mismatch for an integer output";
}

TEST_F(ContractV2Int8, AnI8NegateThatWrapsAtMinus128Passes) {
  const OpSpec spec = negate_i8_spec();
  const Verdict verdict = evaluate(spec, kernel("negate_i8.comp"));
  ASSERT_TRUE(verdict.passed()) << describe(verdict);
  EXPECT_EQ(cases_per_size(verdict), full_suite(spec, {64, 1, 1}, verdict.base_seed));
}

TEST_F(ContractV2Int8, AnI8NegateOffByOneFailsOnEveryElement) {
  const Verdict verdict = evaluate(
      negate_i8_spec(), edited(kernel("negate_i8.comp"), "y[i] = -x[i];", "y[i] = -x[i] - int8_t(1);"));
  EXPECT_EQ(verdict.status, Status::INCORRECT_NUMERICAL) << describe(verdict);
  ASSERT_FALSE(verdict.cases.empty());
  const Comparison& first = verdict.cases.front().comparison;
  EXPECT_EQ(first.mismatches, first.elements) << "an error of 1 is a mismatch for an integer output";
}

}  // namespace
}  // namespace kernelgen
