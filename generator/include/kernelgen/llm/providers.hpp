#pragma once
#include <string>

#include "kernelgen/llm/http.hpp"
#include "kernelgen/llm/types.hpp"

namespace kernelgen::llm {

// The wire formats: OpenAI Chat Completions (and every server that speaks it) and Anthropic Messages.
HttpRequest build_request(const ProviderSettings& settings, const Prompt& prompt);

// Parses a 200 response body. Throws LlmError naming the provider when the body is not what it should be.
Completion parse_response(const std::string& wire_format, const std::string& body);

// The server's own error message from an error body, or the body itself (shortened) when it has none.
std::string server_message(const std::string& body);

// Reasoning models (o1, o3, o4, gpt-5 ...) take max_completion_tokens and no custom temperature.
bool is_reasoning_model(const std::string& model);

}  // namespace kernelgen::llm
