#include <kernelgen/reference.hpp>

// An activation in f16 for the prefill's projections, which take their x in f16 as a GEMM on f16 operands does:
//   x is rows x cols f32, y[r, c] = half(x[r, c])
// rounded to the nearest f16 value, ties to even; |x| from 65520 up gives an infinity, NaN stays NaN.
KERNELGEN_REFERENCE(to_half) {
  kernelgen::as_array<Eigen::half>(outputs[0]) = kernelgen::as_array(inputs[0]).cast<Eigen::half>();
}
