#include <kernelgen/reference.hpp>

// out[t] = table[ids[t]]: the row of the table each token id picks.
KERNELGEN_REFERENCE(embedding) {
  const auto table = kernelgen::as_matrix(inputs[0]);
  const auto ids = kernelgen::as_array<int32_t>(inputs[1]);
  auto out = kernelgen::as_matrix(outputs[0]);
  for (Eigen::Index t = 0; t < ids.size(); ++t) out.row(t) = table.row(ids[t]);
}
