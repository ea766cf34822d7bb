#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kernelgen {

// An op's spec.json with the sizes given on the command line (`kernelgen validate --dims m=130 k=4096 n=130`) in
// place of its DIMS: each setting NAME=size[,size...] replaces the sizes of one dim the spec lists; dims not named
// keep theirs, and the validator draws its added sizes around the new ones as around any DIMS. Throws
// std::invalid_argument naming the setting and the fix for a malformed one, a dim the op lacks, a size that is not
// a positive integer, or a dim named twice. The result still goes through parse_op_spec's checks (its tensors'
// sizes among them).
nlohmann::json with_dims(nlohmann::json spec, const std::vector<std::string>& settings);

// The same for the size an op is timed at (`kernelgen validate --time 31 --timed-dims heads=4`): each NAME=size
// replaces that dim's BENCH_DIMS and CPU_BENCH_DIMS, so that the timed runs and the check of their output run at it
// on a GPU and on a CPU device alike; dims not named keep theirs. For a sweep whose kernels would each take minutes
// of CPU reference at the op's own timed size. Throws as with_dims does, and for a setting of more than one size.
nlohmann::json with_timed_dims(nlohmann::json spec, const std::vector<std::string>& settings);

}  // namespace kernelgen
