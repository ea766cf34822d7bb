#include "kernelgen/llm/providers.hpp"

#include <nlohmann/json.hpp>

#include "kernelgen/llm/error_body.hpp"

namespace kernelgen::llm {

using nlohmann::json;

namespace {

constexpr KnownProvider kProviders[] = {
    {"openai", "OPENAI", "https://api.openai.com/v1", "openai"},
    {"anthropic", "ANTHROPIC", "https://api.anthropic.com", "anthropic"},
    // Google's OpenAI-compatible endpoint: Chat Completions, with the Gemini API key as the bearer token.
    {"gemini", "GEMINI", "https://generativelanguage.googleapis.com/v1beta/openai", "openai"},
};

}  // namespace

const KnownProvider* find_provider(std::string_view name) {
  for (const KnownProvider& provider : kProviders)
    if (provider.name == name) return &provider;
  return nullptr;
}

std::string wire_format_of(const std::string& provider) {
  const KnownProvider* known = find_provider(provider);
  return std::string(known ? known->wire_format : "openai");
}

bool is_reasoning_model(const std::string& model) {
  const std::string name = model.substr(model.find_last_of('/') + 1);
  for (const char* prefix : {"o1", "o3", "o4", "gpt-5"})
    if (name.rfind(prefix, 0) == 0) return true;
  return false;
}

namespace {

std::string trim_slash(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

// The settings' base URL, else the provider's own API.
std::string base_url_of(const ProviderSettings& s) {
  if (!s.base_url.empty()) return trim_slash(s.base_url);
  const KnownProvider* known = find_provider(s.provider);
  return std::string(known ? known->default_base_url : find_provider("openai")->default_base_url);
}

HttpRequest openai_request(const ProviderSettings& s, const Prompt& prompt) {
  json body = {{"model", s.model},
               {"messages", json::array({{{"role", "system"}, {"content", prompt.system}},
                                         {{"role", "user"}, {"content", prompt.user}}})}};
  if (is_reasoning_model(s.model)) {
    body["max_completion_tokens"] = s.max_output_tokens;
  } else {
    body["max_tokens"] = s.max_output_tokens;
    body["temperature"] = s.temperature;
  }
  HttpRequest request;
  request.url = base_url_of(s) + "/chat/completions";
  request.headers = {{"Content-Type", "application/json"}};
  if (!s.api_key.empty()) request.headers.push_back({"Authorization", "Bearer " + s.api_key});
  request.body = body.dump();
  return request;
}

HttpRequest anthropic_request(const ProviderSettings& s, const Prompt& prompt) {
  const json body = {{"model", s.model},
                     {"max_tokens", s.max_output_tokens},
                     {"temperature", s.temperature},
                     {"system", prompt.system},
                     {"messages", json::array({{{"role", "user"}, {"content", prompt.user}}})}};
  HttpRequest request;
  std::string base = base_url_of(s);
  if (base.size() < 3 || base.substr(base.size() - 3) != "/v1") base += "/v1";
  request.url = base + "/messages";
  request.headers = {{"Content-Type", "application/json"}, {"anthropic-version", "2023-06-01"}};
  if (!s.api_key.empty()) request.headers.push_back({"x-api-key", s.api_key});
  request.body = body.dump();
  return request;
}

[[noreturn]] void malformed(const std::string& provider, const std::string& what) {
  throw LlmError(provider, 0, "malformed response: " + what);
}

int64_t count(const json& object, const char* key) {
  return object.is_object() && object.contains(key) && object[key].is_number_integer() ? object[key].get<int64_t>()
                                                                                        : 0;
}

Completion parse_openai(const json& body) {
  if (!body.is_object() || !body.contains("choices") || !body["choices"].is_array() || body["choices"].empty())
    malformed("openai", "no choices");
  const json& choice = body["choices"][0];
  if (!choice.is_object() || !choice.contains("message") || !choice["message"].is_object())
    malformed("openai", "choices[0] has no message");
  Completion completion;
  const json& content = choice["message"].value("content", json());
  if (content.is_string()) completion.text = content.get<std::string>();
  else if (!content.is_null()) malformed("openai", "message.content is not text");
  completion.finish_reason = choice.value("finish_reason", json("")).is_string() ? choice.value("finish_reason", "") : "";
  if (body.contains("usage") && body["usage"].is_object()) {
    const json& usage = body["usage"];
    completion.usage.prompt_tokens = count(usage, "prompt_tokens");
    completion.usage.completion_tokens = count(usage, "completion_tokens");
    if (usage.contains("completion_tokens_details")) {
      completion.usage.reasoning_tokens = count(usage["completion_tokens_details"], "reasoning_tokens");
    } else if (const int64_t unreported = count(usage, "total_tokens") - completion.usage.prompt_tokens -
                                          completion.usage.completion_tokens;
               unreported > 0) {
      // Gemini's OpenAI-compatible endpoint leaves its thinking tokens out of completion_tokens and reports
      // them only in total_tokens. They are billed as output, so they count as the completion's reasoning.
      completion.usage.reasoning_tokens = unreported;
      completion.usage.completion_tokens += unreported;
    }
  }
  completion.model = body.value("model", json("")).is_string() ? body.value("model", "") : "";
  return completion;
}

Completion parse_anthropic(const json& body) {
  if (!body.is_object() || !body.contains("content") || !body["content"].is_array())
    malformed("anthropic", "no content");
  Completion completion;
  for (const json& block : body["content"])
    if (block.is_object() && block.value("type", json("")) == "text" && block.contains("text") &&
        block["text"].is_string())
      completion.text += block["text"].get<std::string>();
  const json stop = body.value("stop_reason", json(""));
  const std::string reason = stop.is_string() ? stop.get<std::string>() : "";
  completion.finish_reason = reason == "end_turn" || reason == "stop_sequence" ? "stop"
                             : reason == "max_tokens"                        ? "length"
                                                                             : reason;
  if (body.contains("usage")) {
    completion.usage.prompt_tokens = count(body["usage"], "input_tokens");
    completion.usage.completion_tokens = count(body["usage"], "output_tokens");
  }
  completion.model = body.value("model", json("")).is_string() ? body.value("model", "") : "";
  return completion;
}

}  // namespace

HttpRequest build_request(const ProviderSettings& settings, const Prompt& prompt) {
  HttpRequest request = wire_format_of(settings.provider) == "anthropic" ? anthropic_request(settings, prompt)
                                                                         : openai_request(settings, prompt);
  request.connect_timeout_s = settings.connect_timeout_s;
  request.total_timeout_s = settings.total_timeout_s;
  return request;
}

Completion parse_response(const std::string& wire_format, const std::string& body) {
  const json parsed = json::parse(body, nullptr, false);
  if (parsed.is_discarded()) malformed(wire_format, "not JSON");
  Completion completion = wire_format == "anthropic" ? parse_anthropic(parsed) : parse_openai(parsed);
  completion.raw = parsed;
  return completion;
}

std::string server_message(const std::string& body) {
  const json error = error_object(body);
  if (error.is_object() && error.contains("message") && error["message"].is_string())
    return error["message"].get<std::string>();
  if (error.is_string()) return error.get<std::string>();
  return body.size() > 300 ? body.substr(0, 300) + "..." : body;
}

}  // namespace kernelgen::llm
