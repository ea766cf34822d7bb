#pragma once
#include <string>
#include <vector>

#include "kernelgen/contract/op_spec.hpp"

namespace kernelgen {

// A kernel source to try, and who wrote it. Where candidates come from is the seam between the offline half
// (a declared KERNEL) and the LLM search.
struct Candidate {
  std::string source;
  std::string author;  // "hand-written" or provider/model
  std::string origin;  // a path or a record name, for messages
};

// The candidates the declaration itself provides: its KERNEL file, if any. Throws naming the file when it
// cannot be read.
std::vector<Candidate> declared_candidates(const OpSpec& spec);

}  // namespace kernelgen
