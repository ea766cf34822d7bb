#include "kernelgen/search/candidate.hpp"

#include <stdexcept>

#include "kernelgen/store/files.hpp"

namespace kernelgen {

std::vector<Candidate> declared_candidates(const OpSpec& spec) {
  if (spec.kernel_path.empty()) return {};
  try {
    return {Candidate{read_file(spec.kernel_path), "hand-written", spec.kernel_path}};
  } catch (const std::exception& error) {
    throw std::runtime_error("op '" + spec.name + "': KERNEL " + error.what());
  }
}

}  // namespace kernelgen
