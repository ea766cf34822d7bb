#include "kernelgen/cases.hpp"

#include <cstdlib>
#include <random>
#include <stdexcept>

namespace kernelgen {

namespace {

const char* const kCaseNames[] = {"uniform", "normal", "sparse",       "large", "tiny",
                                  "zeros",   "ones",   "extremes", "checkerboard", "ramp"};

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Largest finite f16 value: extremes stay representable if the op is later declared in f16.
constexpr float kExtreme = 65504.0f;

std::vector<float> fill(const std::string& kind, const TensorSpec& tensor, std::mt19937_64& rng) {
  std::vector<float> values(static_cast<size_t>(tensor.elements()));
  auto draw = [&](auto distribution) {
    for (float& v : values) v = static_cast<float>(distribution(rng));
  };
  const int64_t columns = tensor.shape.back();
  const int64_t rows_extent = tensor.shape.size() >= 2 ? tensor.shape[tensor.shape.size() - 2] : 1;
  if (kind == "uniform") {
    draw(std::uniform_real_distribution<float>(-1.0f, 1.0f));
  } else if (kind == "normal") {
    draw(std::normal_distribution<float>(0.0f, 1.0f));
  } else if (kind == "sparse") {
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    std::bernoulli_distribution nonzero(0.1);
    for (float& v : values) v = nonzero(rng) ? value(rng) : 0.0f;
  } else if (kind == "large") {
    draw(std::uniform_real_distribution<float>(-1e4f, 1e4f));
  } else if (kind == "tiny") {
    draw(std::uniform_real_distribution<float>(-1e-4f, 1e-4f));
  } else if (kind == "zeros") {
    std::fill(values.begin(), values.end(), 0.0f);
  } else if (kind == "ones") {
    std::fill(values.begin(), values.end(), 1.0f);
  } else if (kind == "extremes") {
    for (size_t i = 0; i < values.size(); ++i) values[i] = i % 2 ? -kExtreme : kExtreme;
  } else if (kind == "checkerboard") {
    // Sign alternates along both of the last two dimensions.
    for (size_t i = 0; i < values.size(); ++i) {
      const int64_t column = static_cast<int64_t>(i) % columns;
      const int64_t row = (static_cast<int64_t>(i) / columns) % rows_extent;
      values[i] = (row + column) % 2 ? -1.0f : 1.0f;
    }
  } else if (kind == "ramp") {
    // Every element distinct and exact in f32, negative half first.
    const int64_t half = static_cast<int64_t>(values.size()) / 2;
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(static_cast<int64_t>(i) - half);
  } else {
    throw std::invalid_argument("kernelgen: unknown validation case '" + kind + "'");
  }
  return values;
}

}  // namespace

TestCase make_case(const OpSpec& spec, const std::string& name, uint64_t base_seed) {
  size_t index = 0;
  while (index < std::size(kCaseNames) && name != kCaseNames[index]) ++index;
  TestCase test_case;
  test_case.name = name;
  test_case.seed = splitmix64(base_seed + index);
  std::mt19937_64 rng(test_case.seed);
  for (const auto& input : spec.inputs) test_case.inputs.push_back(fill(name, input, rng));
  return test_case;
}

std::vector<TestCase> make_cases(const OpSpec& spec, uint64_t base_seed) {
  std::vector<TestCase> cases;
  for (const char* name : kCaseNames) cases.push_back(make_case(spec, name, base_seed));
  return cases;
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
