#include "kernelgen/llm/error_body.hpp"

namespace kernelgen::llm {

using nlohmann::json;

json error_object(const std::string& body) {
  const json parsed = json::parse(body, nullptr, false);
  const json& root = parsed.is_array() && parsed.size() == 1 ? parsed.front() : parsed;
  if (!root.is_object()) return nullptr;
  if (root.contains("error")) return root["error"];
  if (root.contains("message") && root["message"].is_string()) return root;
  return nullptr;
}

}  // namespace kernelgen::llm
