// The retry policy of the official SDKs, as pure functions: which responses are retried, and how long to
// wait.
#include "kernelgen/llm/retry.hpp"

#include <gtest/gtest.h>

#include <ctime>
#include <string>

namespace kernelgen::llm {
namespace {

HttpResponse response(int status, std::map<std::string, std::string> headers = {}, std::string body = "") {
  HttpResponse r;
  r.status = status;
  r.headers = std::move(headers);
  r.body = std::move(body);
  return r;
}

std::string http_date(std::time_t when) {
  std::tm parts{};
  gmtime_r(&when, &parts);
  char text[64];
  std::strftime(text, sizeof text, "%a, %d %b %Y %H:%M:%S GMT", &parts);
  return text;
}

const RetryPolicy kPolicy;

TEST(Retry, RetriesTimeoutConflictRateLimitServerErrorsAndOverload) {
  for (int status : {408, 409, 429, 500, 502, 503, 504, 529})
    EXPECT_TRUE(is_retryable(response(status))) << status;
}

TEST(Retry, DoesNotRetryClientErrors) {
  for (int status : {400, 401, 403, 404, 422}) EXPECT_FALSE(is_retryable(response(status))) << status;
}

TEST(Retry, RetriesConnectionErrorsAndTimeouts) {
  HttpResponse refused;
  refused.error = "Connection refused";
  EXPECT_TRUE(is_retryable(refused));
  HttpResponse timed_out;
  timed_out.error = "Operation timed out";
  timed_out.timed_out = true;
  EXPECT_TRUE(is_retryable(timed_out));
}

TEST(Retry, DoesNotRetryA429ForAnExhaustedQuota) {
  const std::string quota =
      R"({"error": {"message": "You exceeded your current quota", "type": "insufficient_quota", "code": "insufficient_quota"}})";
  EXPECT_FALSE(is_retryable(response(429, {}, quota)));
  EXPECT_FALSE(retry_delay(response(429, {{"retry-after", "1"}}, quota), 0, kPolicy, 0).has_value());
  const std::string rate = R"({"error": {"message": "Rate limit reached", "code": "rate_limit_exceeded"}})";
  EXPECT_TRUE(is_retryable(response(429, {}, rate)));
}

TEST(Retry, ShouldRetryHeaderOverridesTheStatus) {
  EXPECT_TRUE(is_retryable(response(400, {{"x-should-retry", "true"}})));
  EXPECT_FALSE(is_retryable(response(500, {{"x-should-retry", "false"}})));
  EXPECT_FALSE(is_retryable(response(429, {{"x-should-retry", "false"}})));
  EXPECT_TRUE(is_retryable(response(500, {{"x-should-retry", "maybe"}})));
}

TEST(Retry, HonoursRetryAfterMs) {
  EXPECT_DOUBLE_EQ(*retry_delay(response(429, {{"retry-after-ms", "1500"}}), 0, kPolicy, 0.5), 1.5);
}

TEST(Retry, RetryAfterMsWinsOverRetryAfter) {
  EXPECT_DOUBLE_EQ(
      *retry_delay(response(429, {{"retry-after-ms", "250"}, {"retry-after", "7"}}), 0, kPolicy, 0), 0.25);
}

TEST(Retry, HonoursRetryAfterInSeconds) {
  EXPECT_DOUBLE_EQ(*retry_delay(response(503, {{"retry-after", "7"}}), 0, kPolicy, 0.9), 7.0);
  EXPECT_DOUBLE_EQ(*retry_delay(response(429, {{"retry-after", "120"}}), 1, kPolicy, 0), 120.0);
}

TEST(Retry, HonoursRetryAfterAsAnHttpDate) {
  const std::string date = http_date(std::time(nullptr) + 30);
  const auto delay = retry_delay(response(429, {{"retry-after", date}}), 0, kPolicy, 0);
  ASSERT_TRUE(delay.has_value()) << date;
  EXPECT_NEAR(*delay, 30.0, 2.0) << date;
}

// Gemini answers a 429 with no retry-after header: the wait is a google.rpc.RetryInfo in the error body,
// which its OpenAI-compatible endpoint sends as a list.
std::string gemini_rate_limit(const std::string& retry_delay) {
  return R"([{"error": {"code": 429, "message": "You exceeded your current quota, please check your plan and billing details.",
      "status": "RESOURCE_EXHAUSTED",
      "details": [{"@type": "type.googleapis.com/google.rpc.QuotaFailure",
                   "violations": [{"quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                                   "quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}]},
                  {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": ")" +
         retry_delay + R"("}]}}])";
}

TEST(Retry, HonoursGeminisRetryInfoInTheErrorBody) {
  // Its message reads like OpenAI's exhausted quota, but it is a per-minute limit: retried.
  EXPECT_TRUE(is_retryable(response(429, {}, gemini_rate_limit("38s"))));
  EXPECT_DOUBLE_EQ(*retry_delay(response(429, {}, gemini_rate_limit("38s")), 0, kPolicy, 0.5), 38.0);
  EXPECT_DOUBLE_EQ(*retry_delay(response(429, {}, gemini_rate_limit("45.837906927s")), 1, kPolicy, 0),
                   45.837906927);
}

TEST(Retry, AHeaderWinsOverTheBodysRetryInfo) {
  EXPECT_DOUBLE_EQ(
      *retry_delay(response(429, {{"retry-after", "2"}}, gemini_rate_limit("38s")), 0, kPolicy, 0), 2.0);
}

TEST(Retry, RetryInfoBeyond120SecondsOrUnreadableFallsBackToBackoff) {
  EXPECT_DOUBLE_EQ(*retry_delay(response(429, {}, gemini_rate_limit("3600s")), 0, kPolicy, 0), 0.5);
  EXPECT_DOUBLE_EQ(*retry_delay(response(429, {}, gemini_rate_limit("soon")), 0, kPolicy, 0), 0.5);
  EXPECT_DOUBLE_EQ(*retry_delay(response(429, {}, gemini_rate_limit("38")), 0, kPolicy, 0), 0.5);
}

TEST(Retry, GeminisResourceExhaustedIsARateLimitNotAnExhaustedQuota) {
  const std::string bare =
      R"([{"error": {"code": 429, "message": "Resource has been exhausted (e.g. check quota).", "status": "RESOURCE_EXHAUSTED"}}])";
  EXPECT_TRUE(is_retryable(response(429, {}, bare)));
  EXPECT_DOUBLE_EQ(*retry_delay(response(429, {}, bare), 1, kPolicy, 0), 1.0);
}

TEST(Retry, IgnoresServerWaitsBeyond120SecondsAndFallsBackToBackoff) {
  EXPECT_DOUBLE_EQ(*retry_delay(response(429, {{"retry-after", "121"}}), 0, kPolicy, 0), 0.5);
  EXPECT_DOUBLE_EQ(*retry_delay(response(429, {{"retry-after-ms", "600000"}}), 0, kPolicy, 0), 0.5);
  const std::string far = http_date(std::time(nullptr) + 3600);
  EXPECT_DOUBLE_EQ(*retry_delay(response(429, {{"retry-after", far}}), 1, kPolicy, 0), 1.0);
}

TEST(Retry, IgnoresUnparseableOrNonPositiveServerWaits) {
  EXPECT_DOUBLE_EQ(*retry_delay(response(429, {{"retry-after", "soon"}}), 0, kPolicy, 0), 0.5);
  EXPECT_DOUBLE_EQ(*retry_delay(response(429, {{"retry-after", "0"}}), 0, kPolicy, 0), 0.5);
  EXPECT_DOUBLE_EQ(*retry_delay(response(429, {{"retry-after-ms", "-5"}}), 0, kPolicy, 0), 0.5);
}

TEST(Retry, BackoffDoublesFromHalfASecondUpToEightSeconds) {
  const RetryPolicy many{.max_retries = 10};
  const double expected[] = {0.5, 1, 2, 4, 8, 8, 8};
  for (int n = 0; n < 7; ++n) EXPECT_DOUBLE_EQ(*retry_delay(response(500), n, many, 0), expected[n]) << n;
}

TEST(Retry, JitterShortensTheBackoffByAtMostAQuarter) {
  const RetryPolicy many{.max_retries = 10};
  for (int n = 0; n < 6; ++n) {
    const double full = *retry_delay(response(500), n, many, 0);
    for (double jitter : {0.0, 0.1, 0.5, 0.999999}) {
      const double delay = *retry_delay(response(500), n, many, jitter);
      EXPECT_LE(delay, full);
      EXPECT_GE(delay, 0.75 * full);
    }
    EXPECT_NEAR(*retry_delay(response(500), n, many, 0.999999), 0.75 * full, 1e-5);
  }
}

TEST(Retry, StopsAfterMaxRetries) {
  EXPECT_TRUE(retry_delay(response(500), 0, kPolicy, 0).has_value());
  EXPECT_TRUE(retry_delay(response(500), 1, kPolicy, 0).has_value());
  EXPECT_FALSE(retry_delay(response(500), 2, kPolicy, 0).has_value());
  EXPECT_FALSE(retry_delay(response(429, {{"retry-after", "1"}}), 2, kPolicy, 0).has_value());
  EXPECT_FALSE(retry_delay(response(500), 0, RetryPolicy{.max_retries = 0}, 0).has_value());
}

TEST(Retry, NonRetryableResponsesGetNoDelay) {
  EXPECT_FALSE(retry_delay(response(401), 0, kPolicy, 0).has_value());
  EXPECT_FALSE(retry_delay(response(400, {{"retry-after", "1"}}), 0, kPolicy, 0).has_value());
}

}  // namespace
}  // namespace kernelgen::llm
