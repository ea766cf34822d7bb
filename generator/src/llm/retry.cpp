#include "kernelgen/llm/retry.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <nlohmann/json.hpp>

#include "kernelgen/llm/error_body.hpp"

namespace kernelgen::llm {

namespace {

std::optional<std::string> header(const HttpResponse& response, const std::string& name) {
  auto found = response.headers.find(name);
  if (found == response.headers.end()) return std::nullopt;
  return found->second;
}

std::optional<double> number(const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !std::isfinite(value)) return std::nullopt;
  return value;
}

// Gemini's wait: the retryDelay of a google.rpc.RetryInfo among the error's details, a protobuf duration in
// seconds ("38s", "45.837906927s").
std::optional<double> retry_info_delay(const nlohmann::json& error) {
  if (!error.is_object() || !error.contains("details") || !error["details"].is_array()) return std::nullopt;
  for (const auto& detail : error["details"]) {
    if (!detail.is_object() || !detail.contains("@type") || !detail["@type"].is_string() ||
        !detail["@type"].get<std::string>().ends_with("google.rpc.RetryInfo") ||
        !detail.contains("retryDelay") || !detail["retryDelay"].is_string())
      continue;
    const std::string delay = detail["retryDelay"].get<std::string>();
    if (delay.ends_with("s")) return number(delay.substr(0, delay.size() - 1));
  }
  return std::nullopt;
}

// The server's wait, in seconds: retry-after-ms, then retry-after as seconds or as an HTTP date, then the
// error body's RetryInfo.
std::optional<double> server_wait(const HttpResponse& response) {
  if (auto ms = header(response, "retry-after-ms"))
    if (auto value = number(*ms)) return *value / 1000.0;
  if (auto after = header(response, "retry-after")) {
    if (auto value = number(*after)) return *value;
    const time_t when = curl_getdate(after->c_str(), nullptr);
    if (when != -1) return std::difftime(when, std::time(nullptr));
  }
  return retry_info_delay(error_object(response.body));
}

bool insufficient_quota(const HttpResponse& response) {
  const auto error = error_object(response.body);
  return error.is_object() && ((error.contains("code") && error["code"] == "insufficient_quota") ||
                               (error.contains("type") && error["type"] == "insufficient_quota"));
}

}  // namespace

bool is_retryable(const HttpResponse& response) {
  if (auto should = header(response, "x-should-retry")) {
    if (*should == "true") return true;
    if (*should == "false") return false;
  }
  if (response.status == 0) return true;  // connection error or timeout
  if (response.status == 429) return !insufficient_quota(response);
  return response.status == 408 || response.status == 409 || response.status >= 500;
}

std::optional<double> retry_delay(const HttpResponse& response, int retries_done, const RetryPolicy& policy,
                                  double jitter) {
  if (retries_done >= policy.max_retries || !is_retryable(response)) return std::nullopt;
  if (auto wait = server_wait(response); wait && *wait > 0 && *wait <= policy.max_retry_after_s) return *wait;
  const double backoff = std::min(policy.base_delay_s * std::pow(2.0, retries_done), policy.max_delay_s);
  return backoff * (1.0 - 0.25 * jitter);
}

}  // namespace kernelgen::llm
