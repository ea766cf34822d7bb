#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace kernelgen::llm {

// The error in an API's error body, in each shape the servers kernelgen talks to write it:
//   {"error": {"message": ..., "type": ..., "code": ...}}    OpenAI, Anthropic, Ollama, llama.cpp server
//   [{"error": {"message": ..., "status": ..., ...}}]         Gemini's OpenAI-compatible endpoint
//   {"object": "error", "message": ..., "code": ...}          vLLM
// The value of "error" (an object, or the string some proxies put there), the vLLM body itself, or null when
// the body is none of these.
nlohmann::json error_object(const std::string& body);

}  // namespace kernelgen::llm
