#include <kernelgen/reference.hpp>

// y[t, :] = table[ids[t], :]: row t of y is the row of the table that token id ids[t] picks, 1024 floats copied
// bit for bit (NaN payloads, infinities and -0.0 included). Every id is in [0, vocab) (the INDEX bound), so it
// is used as a row index without a check; the same row may be picked by many tokens.
KERNELGEN_REFERENCE(embedding) {
  const auto table = kernelgen::as_matrix(inputs[0]);
  const auto ids = kernelgen::as_array<int32_t>(inputs[1]);
  auto y = kernelgen::as_matrix(outputs[0]);
  for (Eigen::Index t = 0; t < ids.size(); ++t) y.row(t) = table.row(ids[t]);
}
