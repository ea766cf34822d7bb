#pragma once
#include <functional>
#include <string>

#include "kernelgen/llm/http.hpp"
#include "kernelgen/llm/retry.hpp"
#include "kernelgen/llm/types.hpp"

namespace kernelgen::llm {

// The side effects a completion needs, injectable so tests run without waiting or a network.
struct ClientEnvironment {
  Transport transport = curl_post;
  std::function<void(double seconds)> sleep;   // default: std::this_thread::sleep_for
  std::function<double()> jitter;              // default: uniform [0, 1)
  std::function<void(const std::string&)> log;  // one line per retry; default: stderr
};

// One completion: request, retries per the SDKs' policy, parse. `key` names the sample (op/round/sample) for
// replay. Throws LlmError naming the provider, the status and the server's message, with the key redacted.
Completion complete(const ProviderSettings& settings, const Prompt& prompt, const std::string& key,
                    const ClientEnvironment& environment = {});

// Replaces every occurrence of the secret in text.
std::string redact(std::string text, const std::string& secret);

}  // namespace kernelgen::llm
