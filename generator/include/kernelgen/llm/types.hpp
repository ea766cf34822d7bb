#pragma once
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace kernelgen::llm {

// What the model is asked: a system prompt and one user message.
struct Prompt {
  std::string system;
  std::string user;
  std::string template_version;  // of the prompt templates that produced it
};

struct Usage {
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  int64_t reasoning_tokens = 0;  // part of completion_tokens, where the provider reports it
};

struct Completion {
  std::string text;
  std::string finish_reason;  // normalised: "stop", "length", or the provider's own word
  Usage usage;
  std::string model;          // as the server reports it
  std::string author;         // "provider/model", or "hand-written" for a cassette completion no model wrote
  nlohmann::json raw;         // the response body as the provider returned it
  int attempts = 1;
};

// Which provider and model, where and how. Never printed whole: the key stays out of every message.
struct ProviderSettings {
  std::string provider;  // "openai", "anthropic" or "replay"
  std::string model;     // without the provider prefix
  std::string api_key;
  std::string base_url;  // e.g. https://api.openai.com/v1
  int max_output_tokens = 8192;
  double temperature = 0.7;
  double connect_timeout_s = 10;
  double total_timeout_s = 600;
  int max_retries = 2;
  std::string cassette;  // replay/record: the cassette file
};

// The provider gave up (after retries, or at once for errors retrying cannot fix).
class LlmError : public std::runtime_error {
 public:
  LlmError(const std::string& provider, int status, const std::string& message)
      : std::runtime_error(provider + (status ? " (HTTP " + std::to_string(status) + ")" : std::string()) + ": " +
                           message),
        status_(status) {}
  int status() const { return status_; }

 private:
  int status_;
};

}  // namespace kernelgen::llm
