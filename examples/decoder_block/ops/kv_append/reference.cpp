#include <kernelgen/reference.hpp>

// The new tokens' keys and values in the KV cache's f16, for the application to bind at the cache's next rows:
//   k and v are tokens x width f32 (width = heads * head_dim, after the rotary embedding for k),
//   k_rows[t, i] = half(k[t, i]),  v_rows[t, i] = half(v[t, i])
// each rounded to the nearest f16 value, ties to even; |x| from 65520 up gives an infinity, NaN stays NaN.
KERNELGEN_REFERENCE(kv_append) {
  kernelgen::as_array<Eigen::half>(outputs[0]) = kernelgen::as_array(inputs[0]).cast<Eigen::half>();
  kernelgen::as_array<Eigen::half>(outputs[1]) = kernelgen::as_array(inputs[1]).cast<Eigen::half>();
}
