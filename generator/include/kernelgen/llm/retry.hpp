#pragma once
#include <optional>

#include "kernelgen/llm/http.hpp"

namespace kernelgen::llm {

// The official SDKs' retry rules (openai-python, anthropic-sdk-python): retry connection errors, 408, 409,
// 429 and 5xx (Anthropic's 529 "overloaded" among them), unless the server says x-should-retry: false or the
// 429 is an exhausted quota. Wait what retry-after-ms / retry-after ask (or, from Gemini, which sends
// neither, the google.rpc.RetryInfo in the error body), up to max_retry_after_s, otherwise min(base * 2^n,
// max) shortened by up to a quarter at random.
struct RetryPolicy {
  int max_retries = 2;
  double base_delay_s = 0.5;
  double max_delay_s = 8;
  double max_retry_after_s = 120;
};

bool is_retryable(const HttpResponse& response);

// Seconds to wait before retry number `retries_done + 1`, or nullopt when the response must not be retried
// (or the retries are spent). `jitter` is uniform in [0, 1).
std::optional<double> retry_delay(const HttpResponse& response, int retries_done, const RetryPolicy& policy,
                                  double jitter);

}  // namespace kernelgen::llm
