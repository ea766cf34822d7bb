#pragma once
#include <string>
#include <string_view>

#include "kernelgen/llm/http.hpp"
#include "kernelgen/llm/types.hpp"

namespace kernelgen::llm {

// A provider a model string may name: where its settings come from (<settings_prefix>_API_KEY and
// <settings_prefix>_BASE_URL), where it answers when no base URL is set, and the wire format it speaks.
struct KnownProvider {
  std::string_view name;              // as a model string writes it: openai/gpt-4o
  std::string_view settings_prefix;   // OPENAI: OPENAI_API_KEY, OPENAI_BASE_URL
  std::string_view default_base_url;  // the provider's own API
  std::string_view wire_format;       // "openai" (Chat Completions) or "anthropic" (Messages)
};

// openai, anthropic and gemini (Google's OpenAI-compatible endpoint); nullptr for any other name.
const KnownProvider* find_provider(std::string_view name);

// What a provider speaks: "anthropic" for anthropic, "openai" for every other provider (replay's default
// too).
std::string wire_format_of(const std::string& provider);

// The wire formats: OpenAI Chat Completions (and every server that speaks it) and Anthropic Messages.
HttpRequest build_request(const ProviderSettings& settings, const Prompt& prompt);

// Parses a 200 response body. Throws LlmError naming the provider when the body is not what it should be.
Completion parse_response(const std::string& wire_format, const std::string& body);

// The server's own error message from an error body (error_body.hpp's shapes), or the body itself
// (shortened) when it has none.
std::string server_message(const std::string& body);

// Reasoning models (o1, o3, o4, gpt-5 ...) take max_completion_tokens and no custom temperature.
bool is_reasoning_model(const std::string& model);

}  // namespace kernelgen::llm
