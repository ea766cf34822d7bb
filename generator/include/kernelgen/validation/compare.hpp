#pragma once
#include <cstdint>
#include <span>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "kernelgen/contract/host_tensor.hpp"
#include "kernelgen/contract/op_spec.hpp"

namespace kernelgen {

// How far a kernel's output is from the reference's, element by element.
//
// Element i matches when |got - ref| <= atol + rtol * m, where m is the larger of |ref| and, when given, the
// magnitude of the terms ref is made of: the same reference run on the absolute values of the float inputs. A
// reduction's rounding error grows with its terms, not with its result (a sum that cancels to 0 is still off by
// eps times what it added up); with m per element, an error on the largest elements cannot hide behind them.
// NaN must meet NaN, and an infinity the same infinity; under NanRule::free_where_reference_is_nan an element
// whose reference is NaN takes any value (GLSL leaves min/max/clamp of a NaN undefined). An infinite magnitude
// means the terms overflowed the output's dtype (reference_magnitudes turns the infinities that non-finite inputs
// cause into NaN, which leaves |ref| alone): such an element has no bound in that dtype, and only NaN against a
// number and opposite infinities fail there; `unbounded` counts them. A NaN magnitude is ignored.
//
// In ulps (TOLERANCE <n>ulp, Tolerance::ulp > 0), for an output that is one rounding of an exact value: the distance
// between the kernel's value and the reference's is counted in values of the output's dtype (consecutive values are
// one ulp apart, across binades, subnormals and zero alike; -0 and +0 are one value), and an element matches when
// it is at most floor(n) values away. The reference gives the exact value rounded to nearest, ties to even, and the
// exact value lies within half an ulp of it, so 0.5ulp leaves the reference's value alone: the correctly rounded
// one (a tie rounded the other way is wrong, a truncation is wrong wherever it differs); 1ulp leaves a faithful
// rounding, the reference's value or a neighbour. NaN and infinities follow the rules above; the magnitude of the
// terms plays no part. Vulkan lets a device flush subnormals to zero in what an operation reads and writes, so an
// element also matches where it is a zero (of either sign) and the reference's value is subnormal, or where it is
// within floor(n) values of `flushed`'s, the reference's on the inputs with their subnormals flushed to zero and
// its own subnormal results flushed too, when given.
struct Comparison {
  int64_t elements = 0;
  int64_t mismatches = 0;
  int64_t first_mismatch = -1;
  double got_at_first = 0;
  double expected_at_first = 0;
  double allowed_at_first = 0;  // the error that element was allowed
  double allowed_ulps = 0;      // in ulps: the tolerance; then ulps_at_first is how many that element was off
  int64_t ulps_at_first = 0;
  double max_abs_error = 0;
  double max_rel_error = 0;
  int64_t unbounded = 0;  // elements whose terms overflowed the dtype: only NaN and opposite infinities fail
  bool passed() const { return mismatches == 0; }
};

enum class NanRule { must_match, free_where_reference_is_nan };

// `magnitude`: per element, the magnitude of the terms behind the reference (see above); nullptr: |ref| alone.
Comparison compare_outputs(std::span<const float> got, std::span<const float> expected, double atol, double rtol,
                           std::span<const float> magnitude = {});
// The same for tensors of any dtype, element by element as numbers (integers with atol = rtol = 0: exactly).
Comparison compare_outputs(const HostTensor& got, const HostTensor& expected, double atol, double rtol,
                           const HostTensor* magnitude = nullptr, NanRule nan = NanRule::must_match);
// With an op's tolerance: atol and rtol as above, or in ulps of the output's dtype. `flushed`: see above (in ulps
// only; nullptr where no input held a subnormal).
Comparison compare_outputs(const HostTensor& got, const HostTensor& expected, const Tolerance& tolerance,
                           const HostTensor* magnitude = nullptr, NanRule nan = NanRule::must_match,
                           const HostTensor* flushed = nullptr);

// Whether a float tensor holds a subnormal value of its dtype; and a copy with each one replaced by a zero of its
// sign (what a device that flushes subnormals reads). Other dtypes are left as they are.
bool has_subnormal(const HostTensor& tensor);
HostTensor flush_subnormals(HostTensor tensor);

// What a failed comparison of `what` (an output and where it was computed, "y at rows=5") says to a person or a
// model: "3 of 100 elements of y at rows=5 differ from the reference; first at index 7: got 1.5, expected 1 (off
// by 0.5, allowed 0.001)".
std::string mismatch_detail(const Comparison& comparison, const std::string& what);

// Seven significant digits, in whatever notation is shortest: 1e-06, not 0.000001.
std::string seven_digits(double value);

void to_json(nlohmann::json& json, const Comparison& comparison);
// JSON has no NaN or infinity: they are written as "nan", "inf", "-inf", so a record always parses.
nlohmann::json json_number(double value);
double number_from_json(const nlohmann::json& json);
void from_json(const nlohmann::json& json, Comparison& comparison);

}  // namespace kernelgen
