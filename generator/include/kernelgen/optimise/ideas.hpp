#pragma once
#include <string>
#include <vector>

namespace kernelgen {

// A brainstorm answer: the optimisation ideas a model proposes for a kernel.
struct IdeaList {
  bool ok = false;
  std::vector<std::string> ideas;
  std::string error;  // why the answer holds no usable list, in words a model can act on
};

// The ideas in a completion's fenced ```json block (the last one, when there are several): a JSON array whose
// items are strings or objects with an "idea" string. Anything else (no block, an unclosed block, invalid JSON,
// an empty list, an item without text) is a failure the search records, not an exception.
IdeaList parse_ideas(const std::string& completion);

}  // namespace kernelgen
