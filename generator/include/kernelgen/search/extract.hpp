#pragma once
#include <string>
#include <vector>

namespace kernelgen {

// A fenced code block of a Markdown completion.
struct CodeBlock {
  std::string info;  // the info string's first word, lower-case ("glsl", "comp", "" ...)
  std::string code;
  bool closed = true;
};

// Scans Markdown the way CommonMark reads fenced code blocks: an opening fence of 3+ backticks or tildes
// indented at most 3 spaces, an info string, and a closing fence of the same character at least as long. Fences
// of another character or of a shorter length inside a block are content, so nested fences survive.
std::vector<CodeBlock> scan_code_blocks(const std::string& markdown);

struct Extraction {
  bool ok = false;
  std::string code;
  std::string error;  // why nothing was taken, in words a model can act on
};

// The kernel in a completion: the block tagged glsl/comp (the last such, when the model revised itself), or the
// only block. An unclosed block is a failure (the completion was cut off), as is having no block at all.
Extraction extract_kernel(const std::string& completion);

}  // namespace kernelgen
