#pragma once
#include <cstdint>
#include <span>

#include <nlohmann/json_fwd.hpp>

#include "kernelgen/contract/host_tensor.hpp"

namespace kernelgen {

// How far a kernel's output is from the reference's.
//
// An element matches when |got - ref| <= atol * scale + rtol * |ref|, where scale is the largest finite |ref|
// of the output (1 when that is 0). Scaling atol by the output's magnitude is what makes one tolerance fit
// both the tiny-magnitude and the large-magnitude case of a reduction, whose rounding error grows with the
// magnitude of its terms, not of its result. NaN must meet NaN, and an infinity the same infinity.
struct Comparison {
  int64_t elements = 0;
  int64_t mismatches = 0;
  int64_t first_mismatch = -1;
  double got_at_first = 0;
  double expected_at_first = 0;
  double max_abs_error = 0;
  double max_rel_error = 0;
  bool passed() const { return mismatches == 0; }
};

Comparison compare_outputs(std::span<const float> got, std::span<const float> expected, double atol, double rtol);
// The same for tensors of any dtype, element by element as numbers (integers with atol = rtol = 0: exactly).
Comparison compare_outputs(const HostTensor& got, const HostTensor& expected, double atol, double rtol);

void to_json(nlohmann::json& json, const Comparison& comparison);
// JSON has no NaN or infinity: they are written as "nan", "inf", "-inf", so a record always parses.
nlohmann::json json_number(double value);
double number_from_json(const nlohmann::json& json);
void from_json(const nlohmann::json& json, Comparison& comparison);

}  // namespace kernelgen
