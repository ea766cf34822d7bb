#include "kernelgen/optimise/ideas.hpp"

#include <nlohmann/json.hpp>

#include "kernelgen/search/extract.hpp"

namespace kernelgen {

IdeaList parse_ideas(const std::string& completion) {
  IdeaList list;
  const CodeBlock* block = nullptr;
  const std::vector<CodeBlock> blocks = scan_code_blocks(completion);
  for (const CodeBlock& candidate : blocks)
    if (candidate.info == "json") block = &candidate;
  if (!block) {
    list.error = "the answer has no ```json block with the list of ideas";
    return list;
  }
  if (!block->closed) {
    list.error = "the ```json block is not closed (the answer was cut off)";
    return list;
  }
  nlohmann::json parsed;
  try {
    parsed = nlohmann::json::parse(block->code);
  } catch (const nlohmann::json::parse_error& error) {
    list.error = std::string("the ```json block is not valid JSON: ") + error.what();
    return list;
  }
  if (!parsed.is_array()) {
    list.error = "the ```json block holds " + std::string(parsed.type_name()) + ", not an array of ideas";
    return list;
  }
  for (size_t i = 0; i < parsed.size(); ++i) {
    const nlohmann::json& item = parsed[i];
    std::string text;
    if (item.is_string()) text = item.get<std::string>();
    else if (item.is_object() && item.contains("idea") && item["idea"].is_string()) text = item["idea"].get<std::string>();
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
      list.error = "idea " + std::to_string(i) + " is neither a non-empty string nor an object with an \"idea\" string";
      list.ideas.clear();
      return list;
    }
    list.ideas.push_back(std::move(text));
  }
  if (list.ideas.empty()) {
    list.error = "the list of ideas is empty";
    return list;
  }
  list.ok = true;
  return list;
}

}  // namespace kernelgen
