// The sizes a kernel is validated at beyond its DIMS (kernelgen/validation/sizes.hpp): drawn from the seed, a
// prime below and a prime above each dim's largest DIMS value, every dim = 2 (mod 4), and each dim in turn at k
// workgroups plus an odd rest, within the memory cap.
#include "kernelgen/validation/sizes.hpp"
#include "support/spec_from.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

namespace kernelgen {
namespace {

using test::spec_from;

OpSpec matmul_spec() {
  return spec_from(R"({"name": "matmul", "contract": 2,
    "inputs": [{"name": "a", "dtype": "f32", "shape": ["m", "k"]}, {"name": "b", "dtype": "f32", "shape": ["k", "n"]}],
    "outputs": [{"name": "c", "dtype": "f32", "shape": ["m", "n"]}],
    "dims": {"m": [1, 7, 100, 130], "k": [1, 7, 100, 130], "n": [1, 7, 100, 130]}})");
}

bool is_prime(int64_t value) {
  if (value < 2) return false;
  for (int64_t d = 2; d * d <= value; ++d)
    if (value % d == 0) return false;
  return true;
}

// matmul's 16x16 workgroup: the declared sizes, then below, 2 mod 4, one size per dim at 16k + an odd rest (the
// others at their `below` value or 7, their smallest DIMS value above 1, whichever is smaller), and above, last.
TEST(ValidationSizes, AreTheDeclaredOnesThenBelowTwoModFourWorkgroupsAndAnOddRestPerDimAndAbove) {
  const OpSpec spec = matmul_spec();
  const auto declared = declared_sizes(spec, {16, 16, 1});
  const auto sizes = validation_sizes(spec, {16, 16, 1}, 42);
  ASSERT_EQ(sizes.size(), declared.size() + 2 + 3 + 1);
  EXPECT_TRUE(std::equal(declared.begin(), declared.end(), sizes.begin())) << "the declared sizes come first";
  const DimValues& below = sizes[declared.size()];
  const DimValues& residue = sizes[declared.size() + 1];
  const DimValues& above = sizes.back();
  for (size_t d = 0; d < spec.dims.size(); ++d) {
    const auto& listed = spec.dims[d].sizes;
    EXPECT_TRUE(is_prime(below[d])) << below[d];
    EXPECT_LT(below[d], 65) << "below half the largest DIMS value";
    EXPECT_EQ(std::count(listed.begin(), listed.end(), below[d]), 0) << "not one of DIMS: " << below[d];
    EXPECT_EQ(residue[d] % 4, 2) << residue[d];
    EXPECT_LE(residue[d], 65) << "at most half the largest DIMS value";
    const DimValues& workgroups = sizes[declared.size() + 2 + d];
    EXPECT_GT(workgroups[d], 16) << "at least one workgroup's width";
    EXPECT_LE(workgroups[d], 8 * 16 + 7) << "k up to 130 / 16";
    const int64_t rest = workgroups[d] % 16;
    EXPECT_TRUE(rest % 2 == 1 && rest <= 7) << workgroups[d] << " = 16k + an odd rest of at most 7";
    for (size_t other = 0; other < spec.dims.size(); ++other) {
      if (other != d) {
        EXPECT_EQ(workgroups[other], std::min<int64_t>(below[other], 7)) << "the other dims small";
      }
    }
    EXPECT_TRUE(is_prime(above[d])) << above[d];
    EXPECT_GT(above[d], 130) << "above the largest DIMS value";
    EXPECT_LE(above[d], 2 * 130 + 10) << "at most about twice it";
    for (int64_t multiple : {4, 32, 64, 256}) EXPECT_NE(above[d] % multiple, 0);
  }
}

// Across seeds: 2 mod 4 reaches values from 2 up to half the largest DIMS value, and k workgroups plus a rest
// reaches several k where the largest DIMS value holds several workgroups (4100 columns, 64 invocations: k up to 64).
TEST(ValidationSizes, TheResidueSizesSpreadOverTheirRanges) {
  const OpSpec spec = spec_from(R"({"name": "rownorm", "contract": 2,
    "inputs": [{"name": "x", "dtype": "f32", "shape": ["rows", "cols"]}],
    "outputs": [{"name": "y", "dtype": "f32", "shape": ["rows", "cols"]}],
    "dims": {"rows": [1, 7, 300], "cols": [1, 5, 33, 300, 4100]}})");
  std::set<int64_t> residues, workgroups, rests;
  for (uint64_t seed = 0; seed < 16; ++seed) {
    const auto sizes = validation_sizes(spec, {64, 1, 1}, seed);
    const DimValues& residue = *std::find_if(sizes.begin(), sizes.end(), [](const DimValues& size) {
      return size[0] % 4 == 2 && size[1] % 4 == 2;
    });
    EXPECT_LE(residue[1], 2050);
    residues.insert(residue[1]);
    const DimValues& cols = sizes[sizes.size() - 2];
    workgroups.insert(cols[1] / 64);
    rests.insert(cols[1] % 64);
    EXPECT_LE(allocated_bytes(spec, cols), kDrawnSizeGrowth * allocated_bytes(spec, largest_dims(spec)));
  }
  EXPECT_GT(residues.size(), 8u);
  EXPECT_GT(workgroups.size(), 4u);
  for (int64_t rest : rests) EXPECT_TRUE(rest == 1 || rest == 3 || rest == 5 || rest == 7) << rest;
}

// A 256-wide workgroup: none of matmul's DIMS (up to 130) is ragged for it, so each dim gets 385, one dim at a time
// with every combination of the other two dims' lists: 4^3 + 3 x 4^2 sizes, none with two dims at 385.
TEST(ValidationSizes, ARaggedSizeGoesToOneDimAtATimeWithEveryCombinationOfTheOthers) {
  const OpSpec spec = matmul_spec();
  const auto sizes = declared_sizes(spec, {256, 1, 1});
  ASSERT_EQ(ragged_size({256, 1, 1}), 385);
  EXPECT_EQ(sizes.size(), 64u + 3 * 16);
  EXPECT_EQ(std::set<DimValues>(sizes.begin(), sizes.end()).size(), sizes.size()) << "no size twice";
  int per_dim[3] = {0, 0, 0};
  for (const DimValues& size : sizes) {
    const auto ragged = std::count(size.begin(), size.end(), 385);
    EXPECT_LE(ragged, 1) << size[0] << " " << size[1] << " " << size[2];
    for (size_t d = 0; d < 3; ++d) per_dim[d] += size[d] == 385;
  }
  for (int count : per_dim) EXPECT_EQ(count, 16);
  EXPECT_EQ(std::count(sizes.begin(), sizes.end(), DimValues{385, 1, 130}), 1);
  EXPECT_EQ(std::count(sizes.begin(), sizes.end(), DimValues{7, 100, 385}), 1);
  // The stress runs' size: the most bytes, one dim ragged and the others at their largest.
  EXPECT_EQ(largest_declared_size(spec, {256, 1, 1}), (DimValues{130, 130, 385}));
  // A 16x16 workgroup: 100 and 130 are ragged for it already, and nothing is added.
  EXPECT_EQ(declared_sizes(spec, {16, 16, 1}).size(), 64u);
  EXPECT_EQ(largest_declared_size(spec, {16, 16, 1}), (DimValues{130, 130, 130}));
}

TEST(ValidationSizes, AllocatedBytesCountTheTensorsWhateverBytesTheOpDeclaresForItsRoofline) {
  // A gather that declares the bytes it moves: fewer than its table holds.
  const OpSpec spec = spec_from(R"({"name": "gather", "contract": 2,
    "inputs": [{"name": "table", "dtype": "f32", "shape": ["rows", "cols"]},
               {"name": "index", "dtype": "u32", "shape": ["picks"]}],
    "outputs": [{"name": "y", "dtype": "f32", "shape": ["picks", "cols"]}],
    "dims": {"rows": [1, 1000], "cols": [1, 64], "picks": [1, 8]},
    "bytes": "picks * 4 + 2 * picks * cols * 4"})");
  const DimValues dims{1000, 64, 8};
  EXPECT_EQ(allocated_bytes(spec, dims), 1000 * 64 * 4 + 8 * 4 + 8 * 64 * 4);
  EXPECT_EQ(spec.bytes_at(dims), 8 * 4 + 2 * 8 * 64 * 4);
}

TEST(ValidationSizes, TheSameSeedDrawsTheSameSizesAndOtherSeedsOthers) {
  const OpSpec spec = matmul_spec();
  EXPECT_EQ(validation_sizes(spec, {16, 16, 1}, 7), validation_sizes(spec, {16, 16, 1}, 7));
  std::set<DimValues> drawn;
  for (uint64_t seed = 0; seed < 8; ++seed) drawn.insert(validation_sizes(spec, {16, 16, 1}, seed).back());
  EXPECT_GT(drawn.size(), 4u) << "eight seeds drew " << drawn.size() << " different sizes above DIMS";
}

TEST(ValidationSizes, TheSizeAboveDimsFitsTheMemoryCap) {
  // 1000 x 1000 floats in and out are 8 MB at the largest DIMS; up to twice as many rows and columns would be up
  // to 32 MB, past the cap.
  const OpSpec spec = spec_from(R"({"name": "copy2d", "contract": 2,
    "inputs": [{"name": "x", "dtype": "f32", "shape": ["rows", "cols"]}],
    "outputs": [{"name": "y", "dtype": "f32", "shape": ["rows", "cols"]}],
    "dims": {"rows": [1, 1000], "cols": [1, 1000]}})");
  for (uint64_t seed = 0; seed < 4; ++seed) {
    const DimValues above = validation_sizes(spec, {64, 1, 1}, seed).back();
    const int64_t bytes = 2 * 4 * above[0] * above[1];
    EXPECT_LE(bytes, kDrawnSizeBytes) << above[0] << " x " << above[1];
    EXPECT_LE(bytes, kDrawnSizeGrowth * 8'000'000) << "at most a quarter more bytes than at the largest DIMS";
    EXPECT_GT(above[0], 1000);
    EXPECT_GT(above[1], 1000);
  }
}

// The drawn sizes of 2 mod 4 and of workgroups plus a rest fit the 16 MiB cap. A batch of 2^20 floats in and out
// is 8 MiB: one 256-wide workgroup plus a rest of batches would be 2 GiB, and so would rows, so those sizes are
// left out, and so is 2 mod 4 (2 x 2 batches and rows, 32 MiB). A million rows of 16 floats, 128 MB at the largest
// DIMS value, come down from k workgroups of rows until they fit: to k = 511 at most (130823 rows, 16.7 MB).
TEST(ValidationSizes, TheResidueSizesFitTheCapOrAreLeftOut) {
  const OpSpec spec = spec_from(R"({"name": "copy3d", "contract": 2,
    "inputs": [{"name": "x", "dtype": "f32", "shape": ["batch", "rows", 16, 65536]}],
    "outputs": [{"name": "y", "dtype": "f32", "shape": ["batch", "rows", 16, 65536]}],
    "dims": {"batch": [1, 2], "rows": [1]}})");
  const OpSpec rows_spec = spec_from(R"({"name": "copyrows", "contract": 2,
    "inputs": [{"name": "x", "dtype": "f32", "shape": ["rows", 16]}],
    "outputs": [{"name": "y", "dtype": "f32", "shape": ["rows", 16]}],
    "dims": {"rows": [1, 1000000]}})");
  std::set<int64_t> workgroups;
  for (uint64_t seed = 0; seed < 8; ++seed) {
    // Between the declared sizes and `above`, which stays above DIMS whatever it weighs.
    const auto sizes = validation_sizes(spec, {256, 1, 1}, seed);
    for (size_t i = declared_sizes(spec, {256, 1, 1}).size(); i + 1 < sizes.size(); ++i) {
      const DimValues& size = sizes[i];
      EXPECT_LT(size[0], 256) << dims_text(spec, size);
      EXPECT_LT(size[1], 256) << dims_text(spec, size);
      EXPECT_FALSE(size[0] % 4 == 2 && size[1] % 4 == 2) << dims_text(spec, size);
    }
    const auto rows_sizes = validation_sizes(rows_spec, {256, 1, 1}, seed);
    const DimValues& residue = rows_sizes[declared_sizes(rows_spec, {256, 1, 1}).size() + 1];
    EXPECT_EQ(residue[0] % 4, 2) << residue[0];
    EXPECT_LE(allocated_bytes(rows_spec, residue), kDrawnSizeBytes) << residue[0];
    const DimValues& rows = rows_sizes[declared_sizes(rows_spec, {256, 1, 1}).size() + 2];
    EXPECT_LE(allocated_bytes(rows_spec, rows), kDrawnSizeBytes) << rows[0];
    EXPECT_TRUE(rows[0] % 256 % 2 == 1 && rows[0] % 256 <= 7) << rows[0];
    workgroups.insert(rows[0] / 256);
  }
  EXPECT_EQ(*workgroups.rbegin(), 511) << "k comes down no further than it must";
}

TEST(ValidationSizes, TheSizeAboveDimsGrowsTheTensorsByAQuarterAtMostWhereThePrimesAllow) {
  // Three dims each up to twice their largest value would be eight times the tensors; the primes next above
  // 9, 17 and 33 (11, 19, 37) are 1.53 times them already, and as far as the size comes down.
  const OpSpec spec = spec_from(R"({"name": "conv_like", "contract": 2,
    "inputs": [{"name": "x", "dtype": "f32", "shape": ["n", "h", "w"]}],
    "outputs": [{"name": "y", "dtype": "f32", "shape": ["n", "h", "w"]}],
    "dims": {"n": [1, 9], "h": [1, 17], "w": [1, 33]}})");
  for (uint64_t seed = 0; seed < 8; ++seed) {
    const DimValues above = validation_sizes(spec, {64, 1, 1}, seed).back();
    EXPECT_EQ(above, (DimValues{11, 19, 37})) << "seed " << seed;
    EXPECT_GT(above[0], 9);
    EXPECT_GT(above[1], 17);
    EXPECT_GT(above[2], 33);
  }
}

TEST(ValidationSizes, AnOpWithoutDimsHasOneSize) {
  const OpSpec spec = spec_from(R"({"name": "relu",
    "inputs": [{"name": "x", "dtype": "f32", "shape": [64]}], "outputs": [{"name": "y", "dtype": "f32", "shape": [64]}]})");
  EXPECT_EQ(validation_sizes(spec, {64, 1, 1}, 1), std::vector<DimValues>{DimValues{}});
}

}  // namespace
}  // namespace kernelgen
