#include "kernelgen/validation/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
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
  if (std::isfinite(c.expected_at_first) && std::isfinite(c.got_at_first))
    detail += " (off by " + seven_digits(std::fabs(c.got_at_first - c.expected_at_first)) + ", allowed " +
              seven_digits(c.allowed_at_first) + ")";
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
}

}  // namespace kernelgen
