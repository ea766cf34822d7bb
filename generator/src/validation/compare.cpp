#include "kernelgen/validation/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <nlohmann/json.hpp>

namespace kernelgen {

namespace {

// `got(i)`, `expected(i)` and `magnitude(i)` give element i as a number; `got_size` elements of got exist.
template <class Got, class Expected, class Magnitude>
Comparison compare(size_t size, size_t got_size, Got got, Expected expected, Magnitude magnitude, double atol,
                   double rtol, NanRule nan) {
  Comparison result;
  result.elements = static_cast<int64_t>(size);
  for (size_t i = 0; i < size; ++i) {
    const double want = expected(i);
    const double have = i < got_size ? got(i) : std::nan("");
    double allowed = 0;
    bool match;
    if (std::isnan(want)) {
      match = std::isnan(have) || nan == NanRule::free_where_reference_is_nan;
    } else if (std::isnan(have)) {
      match = false;
    } else if (std::isinf(magnitude(i))) {
      // The terms overflowed the output's dtype (f16 sums of products of large values): no error bound exists in
      // that dtype, and a sum near its largest value may round to infinity on one side and not the other. Only
      // opposite infinities are wrong.
      match = !(std::isinf(want) && std::isinf(have) && want != have);
      ++result.unbounded;
    } else if (std::isinf(want) || std::isinf(have)) {
      match = want == have;
    } else {
      const double terms = magnitude(i);
      const double scale = std::isnan(terms) ? std::fabs(want) : std::max(std::fabs(want), std::fabs(terms));
      allowed = atol + rtol * scale;
      const double error = std::fabs(have - want);
      match = error <= allowed;
      result.max_abs_error = std::max(result.max_abs_error, error);
      if (want != 0) result.max_rel_error = std::max(result.max_rel_error, error / std::fabs(want));
    }
    if (!match) {
      if (result.mismatches == 0) {
        result.first_mismatch = static_cast<int64_t>(i);
        result.got_at_first = have;
        result.expected_at_first = want;
        result.allowed_at_first = allowed;
      }
      ++result.mismatches;
    }
  }
  return result;
}

// A float element's bits, the sign bit apart, and its dtype's width and mantissa.
struct FloatBits {
  bool negative = false;
  uint32_t magnitude = 0;  // the bits below the sign: they order the values of one sign
  bool subnormal = false;
};

int mantissa_bits(DType dtype) {
  switch (dtype) {
    case DType::f32: return 23;
    case DType::f16: return 10;
    case DType::bf16: return 7;
    default: return 0;
  }
}

uint32_t raw_bits(const HostTensor& tensor, int64_t i) {
  const std::span<const uint8_t> bytes = tensor.element_bytes(i);
  if (bytes.size() == 4) {
    uint32_t bits;
    std::memcpy(&bits, bytes.data(), 4);
    return bits;
  }
  uint16_t bits;
  std::memcpy(&bits, bytes.data(), 2);
  return bits;
}

FloatBits float_bits(const HostTensor& tensor, int64_t i) {
  const int width = static_cast<int>(dtype_bytes(tensor.dtype)) * 8;
  const uint32_t bits = raw_bits(tensor, i);
  FloatBits parts;
  parts.negative = (bits >> (width - 1)) & 1u;
  parts.magnitude = bits & ((uint32_t{1} << (width - 1)) - 1u);
  parts.subnormal = parts.magnitude > 0 && parts.magnitude < (uint32_t{1} << mantissa_bits(tensor.dtype));
  return parts;
}

// An element's place among the finite values of its dtype: consecutive values are one apart, -0 and +0 both 0.
int64_t value_order(const FloatBits& parts) {
  return parts.negative ? -int64_t{parts.magnitude} : int64_t{parts.magnitude};
}

// In ulps of the output's dtype (see compare.hpp).
Comparison compare_ulps(const HostTensor& got, const HostTensor& expected, double ulp, NanRule nan,
                        const HostTensor* flushed) {
  Comparison result;
  result.elements = expected.elements();
  result.allowed_ulps = ulp;
  const auto allowed = static_cast<int64_t>(std::floor(ulp));
  const bool comparable = got.dtype == expected.dtype && got.elements() >= expected.elements();
  if (flushed && (flushed->dtype != expected.dtype || flushed->elements() != expected.elements())) flushed = nullptr;
  for (int64_t i = 0; i < result.elements; ++i) {
    const double want = expected.value(i);
    const double have = comparable ? got.value(i) : std::nan("");
    int64_t off = 0;
    bool match;
    if (std::isnan(want)) {
      match = std::isnan(have) || nan == NanRule::free_where_reference_is_nan;
    } else if (std::isnan(have)) {
      match = false;
    } else if (std::isinf(want) || std::isinf(have)) {
      match = want == have || (flushed && flushed->value(i) == have);
    } else {
      const FloatBits kernel = float_bits(got, i), reference = float_bits(expected, i);
      off = std::llabs(value_order(kernel) - value_order(reference));
      match = off <= allowed || (have == 0 && reference.subnormal);
      if (!match && flushed && std::isfinite(flushed->value(i))) {
        const FloatBits without = float_bits(*flushed, i);
        match = std::llabs(value_order(kernel) - (without.subnormal ? 0 : value_order(without))) <= allowed;
      }
      const double error = std::fabs(have - want);
      result.max_abs_error = std::max(result.max_abs_error, error);
      if (want != 0) result.max_rel_error = std::max(result.max_rel_error, error / std::fabs(want));
    }
    if (!match) {
      if (result.mismatches == 0) {
        result.first_mismatch = i;
        result.got_at_first = have;
        result.expected_at_first = want;
        result.ulps_at_first = off;
      }
      ++result.mismatches;
    }
  }
  return result;
}

}  // namespace

Comparison compare_outputs(std::span<const float> got, std::span<const float> expected, double atol, double rtol,
                           std::span<const float> magnitude) {
  return compare(
      expected.size(), got.size(), [&](size_t i) { return static_cast<double>(got[i]); },
      [&](size_t i) { return static_cast<double>(expected[i]); },
      [&](size_t i) { return i < magnitude.size() ? static_cast<double>(magnitude[i]) : 0.0; }, atol, rtol,
      NanRule::must_match);
}

Comparison compare_outputs(const HostTensor& got, const HostTensor& expected, double atol, double rtol,
                           const HostTensor* magnitude, NanRule nan) {
  const bool has_magnitude = magnitude && magnitude->elements() == expected.elements();
  return compare(
      static_cast<size_t>(expected.elements()), got.dtype == expected.dtype ? static_cast<size_t>(got.elements()) : 0,
      [&](size_t i) { return got.value(static_cast<int64_t>(i)); },
      [&](size_t i) { return expected.value(static_cast<int64_t>(i)); },
      [&](size_t i) { return has_magnitude ? magnitude->value(static_cast<int64_t>(i)) : 0.0; }, atol, rtol, nan);
}

Comparison compare_outputs(const HostTensor& got, const HostTensor& expected, const Tolerance& tolerance,
                           const HostTensor* magnitude, NanRule nan, const HostTensor* flushed) {
  if (tolerance.ulp > 0 && dtype_info(expected.dtype).kind == DTypeKind::Float)
    return compare_ulps(got, expected, tolerance.ulp, nan, flushed);
  return compare_outputs(got, expected, tolerance.atol, tolerance.rtol, magnitude, nan);
}

bool has_subnormal(const HostTensor& tensor) {
  if (dtype_info(tensor.dtype).kind != DTypeKind::Float) return false;
  for (int64_t i = 0; i < tensor.elements(); ++i)
    if (float_bits(tensor, i).subnormal) return true;
  return false;
}

HostTensor flush_subnormals(HostTensor tensor) {
  if (dtype_info(tensor.dtype).kind != DTypeKind::Float) return tensor;
  const size_t size = dtype_bytes(tensor.dtype);
  for (int64_t i = 0; i < tensor.elements(); ++i) {
    const FloatBits parts = float_bits(tensor, i);
    if (!parts.subnormal) continue;
    const uint32_t zero = parts.negative ? uint32_t{1} << (size * 8 - 1) : 0u;
    uint8_t* at = tensor.bytes.data() + static_cast<size_t>(i) * size;
    if (size == 4) {
      std::memcpy(at, &zero, 4);
    } else {
      const auto half = static_cast<uint16_t>(zero);
      std::memcpy(at, &half, 2);
    }
  }
  return tensor;
}

nlohmann::json json_number(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return value;
}

double number_from_json(const nlohmann::json& json) {
  if (json.is_string()) {
    const std::string text = json.get<std::string>();
    if (text == "nan") return std::nan("");
    if (text == "inf" || text == "-inf") return text == "inf" ? HUGE_VAL : -HUGE_VAL;
    throw std::invalid_argument("expected a number, \"nan\", \"inf\" or \"-inf\", got \"" + text + "\"");
  }
  return json.get<double>();
}

std::string seven_digits(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.7g", value);
  return text;
}

std::string mismatch_detail(const Comparison& c, const std::string& what) {
  std::string detail = std::to_string(c.mismatches) + " of " + std::to_string(c.elements) + " elements of " + what +
                       " differ from the reference; first at index " + std::to_string(c.first_mismatch) + ": got " +
                       seven_digits(c.got_at_first) + ", expected " + seven_digits(c.expected_at_first);
  if (std::isfinite(c.expected_at_first) && std::isfinite(c.got_at_first)) {
    if (c.allowed_ulps > 0)
      detail += " (off by " + std::to_string(c.ulps_at_first) + " ulp, allowed " + seven_digits(c.allowed_ulps) +
                (c.allowed_ulps < 1 ? " ulp: the value rounded to nearest, ties to even)" : " ulp)");
    else
      detail += " (off by " + seven_digits(std::fabs(c.got_at_first - c.expected_at_first)) + ", allowed " +
                seven_digits(c.allowed_at_first) + ")";
  }
  return detail;
}

void to_json(nlohmann::json& json, const Comparison& c) {
  json = {{"elements", c.elements},
          {"mismatches", c.mismatches},
          {"first_mismatch", c.first_mismatch},
          {"got_at_first", json_number(c.got_at_first)},
          {"expected_at_first", json_number(c.expected_at_first)},
          {"allowed_at_first", json_number(c.allowed_at_first)},
          {"max_abs_error", json_number(c.max_abs_error)},
          {"max_rel_error", json_number(c.max_rel_error)}};
  if (c.unbounded) json["unbounded"] = c.unbounded;
  if (c.allowed_ulps > 0) {
    json["allowed_ulps"] = c.allowed_ulps;
    json["ulps_at_first"] = c.ulps_at_first;
  }
}

void from_json(const nlohmann::json& json, Comparison& c) {
  c.elements = json.at("elements").get<int64_t>();
  c.mismatches = json.at("mismatches").get<int64_t>();
  c.first_mismatch = json.at("first_mismatch").get<int64_t>();
  c.got_at_first = number_from_json(json.at("got_at_first"));
  c.expected_at_first = number_from_json(json.at("expected_at_first"));
  // Records written before the per-element bound have no allowed_at_first.
  c.allowed_at_first = json.contains("allowed_at_first") ? number_from_json(json.at("allowed_at_first")) : 0.0;
  c.max_abs_error = number_from_json(json.at("max_abs_error"));
  c.max_rel_error = number_from_json(json.at("max_rel_error"));
  c.unbounded = json.value("unbounded", int64_t{0});
  c.allowed_ulps = json.value("allowed_ulps", 0.0);
  c.ulps_at_first = json.value("ulps_at_first", int64_t{0});
}

}  // namespace kernelgen
