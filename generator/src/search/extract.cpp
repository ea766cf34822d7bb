#include "kernelgen/search/extract.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace kernelgen {

namespace {

struct Fence {
  char marker = 0;
  size_t length = 0;
  size_t indent = 0;
  std::string rest;  // text after the fence characters
};

// A line that can open or close a fence: <=3 spaces, then 3+ backticks or tildes.
bool parse_fence(const std::string& line, Fence* fence) {
  size_t indent = 0;
  while (indent < line.size() && line[indent] == ' ') ++indent;
  if (indent > 3 || indent >= line.size()) return false;
  const char marker = line[indent];
  if (marker != '`' && marker != '~') return false;
  size_t end = indent;
  while (end < line.size() && line[end] == marker) ++end;
  if (end - indent < 3) return false;
  fence->marker = marker;
  fence->length = end - indent;
  fence->indent = indent;
  fence->rest = line.substr(end);
  // A backtick fence's info string may not contain backticks (it would be inline code).
  return !(marker == '`' && fence->rest.find('`') != std::string::npos);
}

std::string trim(const std::string& text) {
  size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return text.substr(begin, end - begin);
}

std::string first_word_lower(const std::string& text) {
  std::string word = trim(text);
  word = word.substr(0, word.find_first_of(" \t{"));
  std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return std::tolower(c); });
  return word;
}

// Removes up to `indent` leading spaces, as CommonMark does for lines inside an indented fence.
std::string dedent(const std::string& line, size_t indent) {
  size_t n = 0;
  while (n < indent && n < line.size() && line[n] == ' ') ++n;
  return line.substr(n);
}

bool is_kernel_tag(const std::string& info) { return info == "glsl" || info == "comp" || info == "glslang"; }

}  // namespace

std::vector<CodeBlock> scan_code_blocks(const std::string& markdown) {
  std::vector<CodeBlock> blocks;
  std::istringstream lines(markdown);
  std::string line;
  bool inside = false;
  Fence open;
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    Fence fence;
    if (!inside) {
      if (parse_fence(line, &fence)) {
        inside = true;
        open = fence;
        blocks.push_back({first_word_lower(fence.rest), "", false});
      }
      continue;
    }
    if (parse_fence(line, &fence) && fence.marker == open.marker && fence.length >= open.length &&
        trim(fence.rest).empty()) {
      inside = false;
      blocks.back().closed = true;
      continue;
    }
    blocks.back().code += dedent(line, open.indent) + "\n";
  }
  return blocks;
}

Extraction extract_kernel(const std::string& completion) {
  Extraction result;
  const auto blocks = scan_code_blocks(completion);
  if (blocks.empty()) {
    result.error = "the reply has no fenced code block; put the whole shader in one ```glsl block";
    return result;
  }
  const CodeBlock* chosen = nullptr;
  for (const auto& block : blocks)
    if (is_kernel_tag(block.info)) chosen = &block;
  if (!chosen) {
    if (blocks.size() > 1) {
      result.error = "the reply has " + std::to_string(blocks.size()) +
                     " code blocks and none is tagged glsl; put the shader in one ```glsl block";
      return result;
    }
    chosen = &blocks.front();
  }
  if (!chosen->closed) {
    result.error = "the shader's code block is not closed (the reply was cut off); keep the kernel shorter";
    return result;
  }
  if (trim(chosen->code).empty()) {
    result.error = "the shader's code block is empty";
    return result;
  }
  result.ok = true;
  result.code = chosen->code;
  return result;
}

}  // namespace kernelgen
