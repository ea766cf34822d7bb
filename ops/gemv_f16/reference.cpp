#include <kernelgen/reference.hpp>

// A linear layer without bias at a decode step's few rows, in f16: y = x w^T, with the weight in
// torch.nn.Linear's layout ([out, in], as a converted checkpoint stores it).
//   x is m x k f16 (one row per token), w is n x k f16 (row j holds output j's weights), y is m x n f16:
//   y[i, j] = half(sum over l of x[i, l] * w[j, l])
// The products of f16 values are exact in f32 and summed in f32, in any order (as a GEMM on f16 operands with
// f32 accumulation, torch's f16 Linear included), then rounded once to f16 (to nearest even; beyond f16's range
// it is +-inf).
KERNELGEN_REFERENCE(gemv_f16) {
  const kernelgen::RowMajorMatrix x = kernelgen::as_matrix<Eigen::half>(inputs[0]).cast<float>();
  const kernelgen::RowMajorMatrix w = kernelgen::as_matrix<Eigen::half>(inputs[1]).cast<float>();
  kernelgen::as_matrix<Eigen::half>(outputs[0]) = (x * w.transpose()).cast<Eigen::half>();
}
