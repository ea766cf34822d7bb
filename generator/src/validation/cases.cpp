#include "kernelgen/validation/cases.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

namespace kernelgen {

namespace {

// New cases go at the end: a case's seed derives from its position.
const char* const kCaseNames[] = {"uniform", "normal",       "sparse", "large", "tiny",      "zeros",
                                  "ones",    "extremes",     "checkerboard", "ramp", "mixed", "subnormal",
                                  "nonfinite", "signed_zeros", "outliers"};

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Largest finite f16 value: the float extremes, so they stay finite in f16 too.
constexpr double kFloatExtreme = 65504.0;

// The cases' kinds, in kCaseNames' order: resolved once per tensor, not compared as text per element.
enum class Kind {
  uniform,
  normal,
  sparse,
  large,
  tiny,
  zeros,
  ones,
  extremes,
  checkerboard,
  ramp,
  mixed,
  subnormal,
  nonfinite,
  signed_zeros,
  outliers
};

static_assert(std::size(kCaseNames) == static_cast<size_t>(Kind::outliers) + 1,
              "a kind per case name, in order");

// A case's kind and the extents its two-dimensional patterns (checkerboard) follow.
struct Pattern {
  Kind kind;
  int64_t columns, rows_extent;
};

double checkerboard_sign(const Pattern& p, int64_t i) {
  const int64_t column = i % p.columns;
  const int64_t row = (i / p.columns) % p.rows_extent;
  return (row + column) % 2 ? -1.0 : 1.0;
}

// What the cases need of a float dtype: its smallest subnormal and normal values, the integers it holds exactly
// (-exact..exact), and the factor that makes an outlier of a normal(0, 1) value (2^30, or 2^12 in f16, whose range
// ends at 65504).
struct FloatRange {
  double tiniest, smallest_normal, exact, outlier;
};

FloatRange float_range(DType dtype) {
  if (dtype == DType::f16) return {5.9604644775390625e-08, 6.103515625e-05, 2048, 4096};
  // bf16 has f32's exponent and 8 bits of precision.
  if (dtype == DType::bf16) return {9.183549615799121e-41, std::numeric_limits<float>::min(), 256, 1073741824};
  return {std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::min(), 16777216, 1073741824};
}

double float_value(const Pattern& p, int64_t i, int64_t count, const FloatRange& range, std::mt19937_64& rng) {
  const Kind kind = p.kind;
  if (kind == Kind::uniform) return std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng);
  if (kind == Kind::normal) return std::normal_distribution<float>(0.0f, 1.0f)(rng);
  if (kind == Kind::sparse) {
    if (!std::bernoulli_distribution(0.1)(rng)) return 0.0;
    return std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng);
  }
  if (kind == Kind::large) return std::uniform_real_distribution<float>(-1e4f, 1e4f)(rng);
  if (kind == Kind::tiny) return std::uniform_real_distribution<float>(-1e-4f, 1e-4f)(rng);
  if (kind == Kind::zeros) return 0.0;
  if (kind == Kind::ones) return 1.0;
  if (kind == Kind::extremes) return i % 2 ? -kFloatExtreme : kFloatExtreme;
  if (kind == Kind::checkerboard) return checkerboard_sign(p, i);
  if (kind == Kind::mixed) {
    // Magnitudes from 1e-3 to 1e4 side by side, either sign: an error on the large elements must not hide.
    const double magnitude = std::pow(10.0, std::uniform_real_distribution<double>(-3.0, 4.0)(rng));
    return std::bernoulli_distribution(0.5)(rng) ? -magnitude : magnitude;
  }
  if (kind == Kind::subnormal) {
    // A quarter subnormal (of the tensor's dtype), some -0.0, the rest normal(0, 1).
    const double draw = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
    if (draw < 0.25) {
      const double value = std::uniform_real_distribution<double>(range.tiniest, range.smallest_normal)(rng);
      return std::bernoulli_distribution(0.5)(rng) ? -value : value;
    }
    if (draw < 0.3) return -0.0;
    return std::normal_distribution<double>(0.0, 1.0)(rng);
  }
  if (kind == Kind::nonfinite) {
    // About one element in 64 NaN, +Inf, -Inf or -0.0; the rest normal(0, 1).
    if (std::bernoulli_distribution(1.0 / 64)(rng)) {
      const double specials[] = {std::nan(""), HUGE_VAL, -HUGE_VAL, -0.0};
      return specials[std::uniform_int_distribution<int>(0, 3)(rng)];
    }
    return std::normal_distribution<double>(0.0, 1.0)(rng);
  }
  if (kind == Kind::outliers) {
    // normal(0, 1), about one element in 256 times range.outlier: values 2^30 (2^12 in f16) above their neighbours
    // in the same rows and columns, where a kernel that shares one scale among many values (a block-scaled
    // product) would keep too few bits of the small ones.
    const double value = std::normal_distribution<double>(0.0, 1.0)(rng);
    return std::bernoulli_distribution(1.0 / 256)(rng) ? value * range.outlier : value;
  }
  if (kind == Kind::signed_zeros) {
    // +0.0 and -0.0 side by side, about one element in four a negative number: the largest of a row is a zero
    // of either sign, which compare equal (an argmax must take the first of them, whatever its sign).
    if (std::bernoulli_distribution(0.25)(rng)) return -std::uniform_real_distribution<double>(0.0625, 1.0)(rng);
    return std::bernoulli_distribution(0.5)(rng) ? -0.0 : 0.0;
  }
  // ramp: consecutive integers, negative half first: every element distinct and exact in f32. f16 holds the
  // integers exactly up to 2048 (and overflows past 65504), bf16 up to 256, so a longer ramp of theirs repeats
  // -2048..2047 (-256..255).
  const auto exact = static_cast<int64_t>(range.exact);
  if (count > 2 * exact) return static_cast<double>(i % (2 * exact) - exact);
  return static_cast<double>(i - count / 2);
}

// Integers: small values, the whole range, the dtype's extremes; negatives only where the dtype has them.
double integer_value(const Pattern& p, int64_t i, int64_t count, double low, double high, std::mt19937_64& rng) {
  const Kind kind = p.kind;
  const double small_low = std::max(low, -100.0);
  auto uniform = [&](double a, double b) {
    return static_cast<double>(std::uniform_int_distribution<int64_t>(static_cast<int64_t>(a), static_cast<int64_t>(b))(rng));
  };
  // The float-only cases (subnormal, nonfinite) hold small integers, as uniform does.
  if (kind == Kind::uniform || kind == Kind::subnormal || kind == Kind::nonfinite || kind == Kind::outliers)
    return uniform(small_low, std::min(high, 100.0));
  if (kind == Kind::signed_zeros)
    return low < 0 && std::bernoulli_distribution(0.25)(rng) ? uniform(std::max(low, -100.0), -1) : 0.0;
  if (kind == Kind::normal)
    return std::clamp(std::round(std::normal_distribution<double>(0.0, 30.0)(rng)), low, high);
  if (kind == Kind::sparse) {
    if (!std::bernoulli_distribution(0.1)(rng)) return 0.0;
    return uniform(small_low, std::min(high, 100.0));
  }
  if (kind == Kind::large) return uniform(low, high);
  if (kind == Kind::tiny) return uniform(std::max(low, -2.0), 2.0);
  if (kind == Kind::zeros) return 0.0;
  if (kind == Kind::ones) return 1.0;
  if (kind == Kind::extremes) return i % 2 ? low : high;
  if (kind == Kind::checkerboard)
    return low < 0 ? checkerboard_sign(p, i) : (checkerboard_sign(p, i) + 1) / 2;
  if (kind == Kind::mixed) return i % 2 ? uniform(low, high) : uniform(small_low, std::min(high, 100.0));
  // ramp: distinct where the range allows, wrapped into it.
  const double span = high - low + 1;
  const double offset = static_cast<double>(low < 0 ? i - count / 2 : i);
  return low + std::fmod(std::fmod(offset - low, span) + span, span);
}

// An INDEX input: every value a valid index below `bound`.
double index_value(const Pattern& p, int64_t i, int64_t bound, std::mt19937_64& rng) {
  const Kind kind = p.kind;
  auto uniform = [&] { return static_cast<double>(std::uniform_int_distribution<int64_t>(0, bound - 1)(rng)); };
  if (kind == Kind::sparse) {
    if (!std::bernoulli_distribution(0.1)(rng)) return 0.0;
    return uniform();
  }
  if (kind == Kind::zeros) return 0.0;
  if (kind == Kind::ones) return std::min<int64_t>(1, bound - 1);
  if (kind == Kind::extremes) return i % 2 ? 0.0 : static_cast<double>(bound - 1);
  if (kind == Kind::checkerboard) return checkerboard_sign(p, i) > 0 ? 0.0 : static_cast<double>(bound - 1);
  if (kind == Kind::ramp) return static_cast<double>(i % bound);
  if (kind == Kind::tiny)
    return static_cast<double>(std::min<int64_t>(std::uniform_int_distribution<int>(0, 1)(rng), bound - 1));
  return uniform();
}

// Tensors of more elements than any validated size holds (CPU_BENCH_DIMS reach 4M) are a benchmark's, at
// BENCH_DIMS on a GPU: hundreds of millions of elements, which one generator takes tens of seconds to draw. Those
// are drawn in chunks of kFillChunk elements, each from its own generator seeded by one draw of the case's, on
// every core: the values depend on the seed alone, not on the machine's cores. Smaller tensors draw every
// element from the case's generator in turn, so a validated size's values stay what its seed always gave.
constexpr int64_t kLargestSerialFill = int64_t{1} << 22;
constexpr int64_t kFillChunk = int64_t{1} << 20;

HostTensor fill(Kind kind, const TensorSpec& tensor, const DimValues& dims, std::mt19937_64& rng) {
  HostTensor values(tensor.dtype, tensor.shape_at(dims));
  const int64_t count = values.elements();
  const Pattern pattern{kind, values.shape.back(),
                        values.shape.size() >= 2 ? values.shape[values.shape.size() - 2] : int64_t{1}};
  const bool is_float = dtype_info(tensor.dtype).kind == DTypeKind::Float;
  const FloatRange range = float_range(tensor.dtype);
  const double low = lowest_value(tensor.dtype), high = highest_value(tensor.dtype);
  const int64_t bound = tensor.index_of ? tensor.index_of->symbolic()
                                              ? dims.at(static_cast<size_t>(tensor.index_of->dim_index))
                                              : tensor.index_of->size
                                        : 0;
  auto fill_range = [&](int64_t begin, int64_t end, std::mt19937_64& generator) {
    for (int64_t i = begin; i < end; ++i) {
      const double value = tensor.index_of ? index_value(pattern, i, bound, generator)
                           : is_float      ? float_value(pattern, i, count, range, generator)
                                           : integer_value(pattern, i, count, low, high, generator);
      values.set(i, value);
    }
  };
  if (count <= kLargestSerialFill) {
    fill_range(0, count, rng);
    return values;
  }
  const uint64_t chunk_seed = rng();
  const int64_t chunks = (count + kFillChunk - 1) / kFillChunk;
  std::atomic<int64_t> next{0};
  auto worker = [&] {
    for (int64_t chunk = next++; chunk < chunks; chunk = next++) {
      std::mt19937_64 generator(splitmix64(chunk_seed + static_cast<uint64_t>(chunk)));
      fill_range(chunk * kFillChunk, std::min(count, (chunk + 1) * kFillChunk), generator);
    }
  };
  {
    std::vector<std::jthread> workers(std::max(1u, std::thread::hardware_concurrency()) - 1);
    for (auto& thread : workers) thread = std::jthread(worker);
    worker();
  }  // every chunk written
  return values;
}

}  // namespace

TestCase make_case(const OpSpec& spec, const std::string& name, uint64_t base_seed, const DimValues& dims) {
  const auto* found = std::find(std::begin(kCaseNames), std::end(kCaseNames), name);
  if (found == std::end(kCaseNames)) throw std::invalid_argument("kernelgen: unknown validation case '" + name + "'");
  if (dims.size() != spec.dims.size())
    throw std::invalid_argument("kernelgen: op '" + spec.name + "' has " + std::to_string(spec.dims.size()) +
                                " dims, the case was asked for " + std::to_string(dims.size()));
  TestCase test_case;
  test_case.name = name;
  test_case.dims = dims;
  const auto position = static_cast<size_t>(found - std::begin(kCaseNames));
  test_case.seed = splitmix64(base_seed + position);
  for (int64_t size : dims) test_case.seed = splitmix64(test_case.seed ^ static_cast<uint64_t>(size));
  std::mt19937_64 rng(test_case.seed);
  for (const auto& input : spec.inputs)
    test_case.inputs.push_back(fill(static_cast<Kind>(position), input, dims, rng));
  return test_case;
}

std::span<const char* const> case_names() { return kCaseNames; }

std::vector<TestCase> make_cases(const OpSpec& spec, uint64_t base_seed, const DimValues& dims) {
  std::vector<TestCase> cases;
  for (const char* name : kCaseNames) cases.push_back(make_case(spec, name, base_seed, dims));
  return cases;
}

int stress_runs_from_environment() {
  const char* text = std::getenv("KERNELGEN_STRESS_RUNS");
  if (!text || !*text) return kDefaultStressRuns;
  char* end = nullptr;
  errno = 0;
  const long runs = std::strtol(text, &end, 10);
  if (*end != '\0' || errno != 0 || runs < 0 || runs > 100000)
    throw std::invalid_argument(std::string("KERNELGEN_STRESS_RUNS='") + text +
                                "' is not a count of runs from 0 to 100000; unset it for the default of " +
                                std::to_string(kDefaultStressRuns));
  return static_cast<int>(runs);
}

uint64_t base_seed_from_environment() {
  if (const char* text = std::getenv("KERNELGEN_SEED"); text && *text) {
    char* end = nullptr;
    const unsigned long long seed = std::strtoull(text, &end, 0);
    if (*end != '\0') throw std::invalid_argument(std::string("KERNELGEN_SEED='") + text + "' is not a number");
    return seed;
  }
  std::random_device entropy;
  return (static_cast<uint64_t>(entropy()) << 32) ^ entropy();
}

}  // namespace kernelgen
