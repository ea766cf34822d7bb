#include "kernelgen/llm/client.hpp"

#include <chrono>
#include <cstdio>
#include <random>
#include <thread>

#include "kernelgen/llm/providers.hpp"

namespace kernelgen::llm {

std::string redact(std::string text, const std::string& secret) {
  if (secret.empty()) return text;
  for (size_t at = text.find(secret); at != std::string::npos; at = text.find(secret, at))
    text.replace(at, secret.size(), "[redacted]");
  return text;
}

namespace {

void default_sleep(double seconds) { std::this_thread::sleep_for(std::chrono::duration<double>(seconds)); }

double default_jitter() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng);
}

void default_log(const std::string& line) { std::fprintf(stderr, "kernelgen: %s\n", line.c_str()); }

// Redacts before server_message shortens the body: a cut through the key would leave part of it behind.
std::string describe_failure(const HttpResponse& response, const std::string& secret) {
  if (response.status == 0)
    return redact((response.timed_out ? "timed out: " : "connection failed: ") + response.error, secret);
  return server_message(redact(response.body, secret));
}

}  // namespace

Completion complete(const ProviderSettings& settings, const Prompt& prompt, const std::string& key,
                    const ClientEnvironment& environment) {
  const auto& sleep = environment.sleep ? environment.sleep : default_sleep;
  const auto& jitter = environment.jitter ? environment.jitter : default_jitter;
  const auto& log = environment.log ? environment.log : default_log;
  const bool replay = settings.provider == "replay";
  HttpRequest request = build_request(settings, prompt);
  request.key = key;
  const RetryPolicy policy{settings.max_retries};

  for (int attempt = 1;; ++attempt) {
    const HttpResponse response = environment.transport(request);
    if (response.status >= 200 && response.status < 300) {
      auto from_replay = [&](const char* header, std::string fallback) {
        auto found = response.headers.find(header);
        return replay && found != response.headers.end() ? found->second : fallback;
      };
      const std::string wire_format =
          from_replay("x-kernelgen-wire-format", wire_format_of(settings.provider));
      Completion completion;
      try {
        completion = parse_response(wire_format, response.body);
      } catch (const LlmError& error) {
        throw LlmError(settings.provider, response.status, redact(error.what(), settings.api_key));
      }
      completion.attempts = attempt;
      completion.author = from_replay("x-kernelgen-author", settings.provider + "/" + settings.model);
      return completion;
    }
    const std::string failure = describe_failure(response, settings.api_key);
    const auto delay = retry_delay(response, attempt - 1, policy, jitter());
    if (!delay) {
      const std::string gave_up = attempt > 1 ? " (gave up after " + std::to_string(attempt) + " attempts)" : "";
      throw LlmError(settings.provider, response.status, failure + gave_up);
    }
    char wait[32];
    std::snprintf(wait, sizeof wait, "%.2f", *delay);
    log(settings.provider + ": " + (response.status ? "HTTP " + std::to_string(response.status) : "no response") +
        " (" + failure + "); retrying in " + wait + " s");
    sleep(*delay);
  }
}

}  // namespace kernelgen::llm
