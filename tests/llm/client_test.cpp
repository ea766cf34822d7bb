// llm::complete over real HTTP (libcurl) against the fake OpenAI and Anthropic servers: the wire formats, the
// retries, the errors, and the key kept out of every message. Waits are recorded instead of slept.
#include "kernelgen/llm/client.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <vector>

#include "fake_llm_server.hpp"

namespace kernelgen::llm {
namespace {

using test::error_reply;
using test::FakeLlmServer;
using test::ScriptedResponse;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kKey = "sk-test-0123456789abcdefghijSECRET";
const Prompt kPrompt{"You write Vulkan compute shaders.", "Write relu.", "1-test"};

ProviderSettings openai(const FakeLlmServer& server, const std::string& model = "gpt-4o") {
  ProviderSettings settings;
  settings.provider = "openai";
  settings.model = model;
  settings.api_key = kKey;
  settings.base_url = server.base_url();
  settings.connect_timeout_s = 2;
  settings.total_timeout_s = 10;
  return settings;
}

ProviderSettings anthropic(const FakeLlmServer& server, const std::string& model = "claude-sonnet-4-5") {
  ProviderSettings settings = openai(server, model);
  settings.provider = "anthropic";
  return settings;
}

// The client's side effects, captured: the waits it asked for and the lines it logged.
struct Recorder {
  std::mutex mutex;
  std::vector<double> delays;
  std::vector<std::string> log;

  ClientEnvironment environment() {
    ClientEnvironment env;
    env.sleep = [this](double seconds) {
      std::lock_guard<std::mutex> lock(mutex);
      delays.push_back(seconds);
    };
    env.jitter = [] { return 0.0; };
    env.log = [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mutex);
      log.push_back(line);
    };
    return env;
  }
};

// Calls complete() and returns the LlmError it must throw.
LlmError complete_error(const ProviderSettings& settings, Recorder& recorder) {
  try {
    complete(settings, kPrompt, "relu/r1/s0", recorder.environment());
  } catch (const LlmError& error) {
    return error;
  }
  ADD_FAILURE() << "complete() did not throw";
  return LlmError("none", 0, "");
}

TEST(Client, OpenAiRequestCarriesModelMessagesMaxTokensTemperatureAndBearerKey) {
  FakeLlmServer server;
  server.enqueue(test::openai_reply("```glsl\nvoid main() {}\n```"));
  Recorder recorder;
  complete(openai(server), kPrompt, "relu/r1/s0", recorder.environment());

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].path, "/v1/chat/completions");
  EXPECT_EQ(requests[0].header("authorization"), "Bearer " + kKey);
  EXPECT_THAT(requests[0].header("content-type"), HasSubstr("application/json"));
  const auto body = requests[0].json();
  EXPECT_EQ(body["model"], "gpt-4o");
  ASSERT_EQ(body["messages"].size(), 2u);
  EXPECT_EQ(body["messages"][0]["role"], "system");
  EXPECT_EQ(body["messages"][0]["content"], kPrompt.system);
  EXPECT_EQ(body["messages"][1]["role"], "user");
  EXPECT_EQ(body["messages"][1]["content"], kPrompt.user);
  EXPECT_EQ(body["max_tokens"], 8192);
  EXPECT_DOUBLE_EQ(body["temperature"].get<double>(), 0.7);
  EXPECT_FALSE(body.contains("max_completion_tokens"));
}

TEST(Client, ReasoningModelsGetMaxCompletionTokensAndNoTemperature) {
  for (const std::string model : {"o3", "gpt-5-mini", "o4-mini"}) {
    FakeLlmServer server;
    server.enqueue(test::openai_reply("```glsl\nvoid main() {}\n```", {}, "stop", model));
    Recorder recorder;
    complete(openai(server, model), kPrompt, "relu/r1/s0", recorder.environment());
    const auto body = server.requests().at(0).json();
    EXPECT_EQ(body["model"], model);
    EXPECT_EQ(body["max_completion_tokens"], 8192) << model;
    EXPECT_FALSE(body.contains("max_tokens")) << model;
    EXPECT_FALSE(body.contains("temperature")) << model;
  }
}

TEST(Client, OpenAiCompletionCarriesTextUsageModelAndAuthor) {
  FakeLlmServer server;
  server.enqueue(test::openai_reply("the reply", {1234, 567, 89}, "stop", "gpt-4o-2024-08-06"));
  Recorder recorder;
  const Completion completion = complete(openai(server), kPrompt, "relu/r1/s0", recorder.environment());
  EXPECT_EQ(completion.text, "the reply");
  EXPECT_EQ(completion.finish_reason, "stop");
  EXPECT_EQ(completion.usage.prompt_tokens, 1234);
  EXPECT_EQ(completion.usage.completion_tokens, 567);
  EXPECT_EQ(completion.usage.reasoning_tokens, 89);
  EXPECT_EQ(completion.model, "gpt-4o-2024-08-06");
  EXPECT_EQ(completion.author, "openai/gpt-4o");
  EXPECT_EQ(completion.attempts, 1);
  EXPECT_EQ(completion.raw["id"], "chatcmpl-fake");
  EXPECT_TRUE(recorder.delays.empty());
}

TEST(Client, AnthropicRequestCarriesApiKeyVersionMaxTokensAndSystem) {
  FakeLlmServer server;
  server.enqueue(test::anthropic_reply("the reply", {321, 45}));
  Recorder recorder;
  const Completion completion = complete(anthropic(server), kPrompt, "relu/r1/s0", recorder.environment());

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].path, "/v1/messages");
  EXPECT_EQ(requests[0].header("x-api-key"), kKey);
  EXPECT_EQ(requests[0].header("anthropic-version"), "2023-06-01");
  EXPECT_EQ(requests[0].header("authorization"), "");
  const auto body = requests[0].json();
  EXPECT_EQ(body["model"], "claude-sonnet-4-5");
  EXPECT_EQ(body["max_tokens"], 8192);
  EXPECT_EQ(body["system"], kPrompt.system);
  ASSERT_EQ(body["messages"].size(), 1u);
  EXPECT_EQ(body["messages"][0]["role"], "user");
  EXPECT_EQ(body["messages"][0]["content"], kPrompt.user);

  EXPECT_EQ(completion.text, "the reply");
  EXPECT_EQ(completion.finish_reason, "stop");
  EXPECT_EQ(completion.usage.prompt_tokens, 321);
  EXPECT_EQ(completion.usage.completion_tokens, 45);
  EXPECT_EQ(completion.author, "anthropic/claude-sonnet-4-5");
}

TEST(Client, AnthropicBaseUrlWithOrWithoutV1ReachesMessages) {
  FakeLlmServer server;
  server.enqueue(test::anthropic_reply("a"));
  server.enqueue(test::anthropic_reply("b"));
  Recorder recorder;
  ProviderSettings settings = anthropic(server);
  complete(settings, kPrompt, "k", recorder.environment());
  settings.base_url = "http://127.0.0.1:" + std::to_string(server.port()) + "/";
  complete(settings, kPrompt, "k", recorder.environment());
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].path, "/v1/messages");
  EXPECT_EQ(requests[1].path, "/v1/messages");
}

TEST(Client, FinishReasonLengthIsCarriedThrough) {
  FakeLlmServer server;
  server.enqueue(test::openai_reply("```glsl\n#version 450\nvoid ma", {}, "length"));
  Recorder recorder;
  EXPECT_EQ(complete(openai(server), kPrompt, "k", recorder.environment()).finish_reason, "length");
}

TEST(Client, AnthropicStopReasonMaxTokensBecomesLength) {
  FakeLlmServer server;
  server.enqueue(test::anthropic_reply("```glsl\n#version 450\nvoid ma", {}, "max_tokens"));
  Recorder recorder;
  EXPECT_EQ(complete(anthropic(server), kPrompt, "k", recorder.environment()).finish_reason, "length");
}

TEST(Client, RateLimitWithRetryAfterIsRetriedAfterTheServersWait) {
  FakeLlmServer server;
  server.enqueue(error_reply(429, "Rate limit reached for gpt-4o", {{"retry-after", "3"}}));
  server.enqueue(test::openai_reply("done"));
  Recorder recorder;
  const Completion completion = complete(openai(server), kPrompt, "k", recorder.environment());
  EXPECT_EQ(completion.text, "done");
  EXPECT_EQ(completion.attempts, 2);
  EXPECT_THAT(recorder.delays, ElementsAre(3.0));
  ASSERT_EQ(recorder.log.size(), 1u);
  EXPECT_THAT(recorder.log[0], AllOf(HasSubstr("429"), HasSubstr("Rate limit reached"), HasSubstr("3.00 s")));
  EXPECT_EQ(server.request_count(), 2u);
}

TEST(Client, ServerErrorsAndOverloadAreRetriedWithExponentialBackoff) {
  FakeLlmServer server;
  server.enqueue(error_reply(500, "The server had an error"));
  server.enqueue(error_reply(529, "Overloaded"));
  server.enqueue(test::openai_reply("done"));
  Recorder recorder;
  const Completion completion = complete(openai(server), kPrompt, "k", recorder.environment());
  EXPECT_EQ(completion.attempts, 3);
  EXPECT_THAT(recorder.delays, ElementsAre(0.5, 1.0));
  EXPECT_EQ(server.request_count(), 3u);
}

TEST(Client, AnthropicOverloadedIsRetried) {
  FakeLlmServer server;
  server.enqueue(error_reply(529, "Overloaded"));
  server.enqueue(test::anthropic_reply("done"));
  Recorder recorder;
  EXPECT_EQ(complete(anthropic(server), kPrompt, "k", recorder.environment()).attempts, 2);
}

TEST(Client, RetriesStopAtMaxRetriesAndTheErrorSaysHowManyAttempts) {
  FakeLlmServer server;
  for (int i = 0; i < 5; ++i) server.enqueue(error_reply(503, "Service Unavailable"));
  Recorder recorder;
  const LlmError error = complete_error(openai(server), recorder);
  EXPECT_EQ(error.status(), 503);
  EXPECT_THAT(error.what(), AllOf(HasSubstr("Service Unavailable"), HasSubstr("3 attempts")));
  EXPECT_EQ(server.request_count(), 3u);
  EXPECT_EQ(recorder.delays.size(), 2u);
}

TEST(Client, TimeoutIsRetriedThenReported) {
  FakeLlmServer server;
  for (int i = 0; i < 3; ++i) server.enqueue({.delay_s = 30});
  ProviderSettings settings = openai(server);
  settings.total_timeout_s = 0.3;
  Recorder recorder;
  const auto start = std::chrono::steady_clock::now();
  const LlmError error = complete_error(settings, recorder);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
  EXPECT_EQ(error.status(), 0);
  EXPECT_THAT(error.what(), AllOf(HasSubstr("openai"), HasSubstr("timed out")));
  EXPECT_EQ(server.request_count(), 3u);
  EXPECT_EQ(recorder.delays.size(), 2u);
}

TEST(Client, HangingServerIsATimeout) {
  FakeLlmServer server;
  for (int i = 0; i < 3; ++i) server.enqueue({.action = ScriptedResponse::Action::hang});
  ProviderSettings settings = openai(server);
  settings.total_timeout_s = 0.2;
  settings.max_retries = 0;
  Recorder recorder;
  EXPECT_THAT(complete_error(settings, recorder).what(), HasSubstr("timed out"));
}

TEST(Client, ConnectionDroppedMidResponseIsRetried) {
  FakeLlmServer server;
  server.enqueue({.action = ScriptedResponse::Action::close_connection});
  server.enqueue(test::openai_reply("done"));
  Recorder recorder;
  const Completion completion = complete(openai(server), kPrompt, "k", recorder.environment());
  EXPECT_EQ(completion.text, "done");
  EXPECT_EQ(completion.attempts, 2);
  ASSERT_EQ(recorder.log.size(), 1u);
  EXPECT_THAT(recorder.log[0], HasSubstr("no response"));
}

TEST(Client, ConnectionRefusedIsRetriedThenReported) {
  test::RefusingPort port;
  ProviderSettings settings;
  settings.provider = "openai";
  settings.model = "gpt-4o";
  settings.api_key = kKey;
  settings.base_url = "http://127.0.0.1:" + std::to_string(port.port()) + "/v1";
  settings.connect_timeout_s = 2;
  Recorder recorder;
  const LlmError error = complete_error(settings, recorder);
  EXPECT_EQ(error.status(), 0);
  EXPECT_THAT(error.what(),
              AllOf(HasSubstr("openai"), HasSubstr("connection failed"), HasSubstr("3 attempts")));
  EXPECT_EQ(recorder.delays.size(), 2u);
  EXPECT_EQ(recorder.log.size(), 2u);
}

TEST(Client, MalformedJsonIsAnErrorMentioningMalformed) {
  FakeLlmServer server;
  server.enqueue({200, {}, "{\"choices\": [ this is not json"});
  Recorder recorder;
  EXPECT_THAT(complete_error(openai(server), recorder).what(),
              AllOf(HasSubstr("openai"), HasSubstr("malformed")));
  EXPECT_EQ(server.request_count(), 1u);
}

TEST(Client, JsonWithoutChoicesIsMalformed) {
  FakeLlmServer server;
  server.enqueue({200, {}, R"({"object": "chat.completion", "choices": []})"});
  server.enqueue({200, {}, R"({"type": "message"})"});
  Recorder recorder;
  EXPECT_THAT(complete_error(openai(server), recorder).what(), HasSubstr("malformed"));
  EXPECT_THAT(complete_error(anthropic(server), recorder).what(),
              AllOf(HasSubstr("anthropic"), HasSubstr("malformed")));
}

TEST(Client, UnauthorizedIsNotRetriedAndTheErrorNamesProviderStatusAndServerMessage) {
  FakeLlmServer server;
  server.enqueue(error_reply(401, "Incorrect API key provided.", {}, "invalid_api_key"));
  Recorder recorder;
  const LlmError error = complete_error(openai(server), recorder);
  EXPECT_EQ(error.status(), 401);
  EXPECT_THAT(error.what(),
              AllOf(HasSubstr("openai"), HasSubstr("401"), HasSubstr("Incorrect API key provided.")));
  EXPECT_EQ(server.request_count(), 1u);
  EXPECT_TRUE(recorder.delays.empty());
}

TEST(Client, ExhaustedQuotaIsNotRetried) {
  FakeLlmServer server;
  server.enqueue(error_reply(429, "You exceeded your current quota", {}, "insufficient_quota"));
  Recorder recorder;
  EXPECT_THAT(complete_error(openai(server), recorder).what(), HasSubstr("exceeded your current quota"));
  EXPECT_EQ(server.request_count(), 1u);
}

TEST(Client, ShouldRetryFalseStopsRetries) {
  FakeLlmServer server;
  server.enqueue(error_reply(500, "do not retry me", {{"x-should-retry", "false"}}));
  Recorder recorder;
  complete_error(openai(server), recorder);
  EXPECT_EQ(server.request_count(), 1u);
}

// A server that quotes the credentials it received back in its error message, as some proxies do.
test::FakeLlmServer::Responder echo_credentials(int status) {
  return [status](const test::ReceivedRequest& request, size_t) {
    const std::string credentials = request.header("authorization").empty() ? request.header("x-api-key")
                                                                            : request.header("authorization");
    return error_reply(status, "Credentials rejected: " + credentials);
  };
}

void expect_no_key(const LlmError& error, const Recorder& recorder) {
  EXPECT_THAT(error.what(), AllOf(Not(HasSubstr(kKey)), HasSubstr("[redacted]")));
  for (const std::string& line : recorder.log)
    EXPECT_THAT(line, AllOf(Not(HasSubstr(kKey)), HasSubstr("[redacted]")));
}

TEST(Client, KeyNeverAppearsInTheErrorNorInTheRetryLog) {
  FakeLlmServer server;
  server.set_responder(echo_credentials(500));
  Recorder recorder;
  const LlmError error = complete_error(openai(server), recorder);
  EXPECT_EQ(recorder.log.size(), 2u);
  expect_no_key(error, recorder);
}

TEST(Client, AnthropicKeyNeverAppearsInTheErrorNorInTheRetryLog) {
  FakeLlmServer server;
  server.set_responder(echo_credentials(529));
  Recorder recorder;
  const LlmError error = complete_error(anthropic(server), recorder);
  EXPECT_EQ(recorder.log.size(), 2u);
  expect_no_key(error, recorder);
}

TEST(Client, KeyNeverAppearsInAnUnauthorizedError) {
  FakeLlmServer server;
  server.set_responder(echo_credentials(401));
  Recorder recorder;
  expect_no_key(complete_error(openai(server), recorder), recorder);
}

// An error body that is not JSON is quoted shortened; the cut must not leave part of the key behind.
TEST(Client, NoPartOfTheKeyAppearsWhenALongErrorBodyIsShortened) {
  FakeLlmServer server;
  server.enqueue({401, {}, std::string(280, '-') + " you sent " + kKey + " which is wrong"});
  Recorder recorder;
  const std::string message = complete_error(openai(server), recorder).what();
  EXPECT_THAT(message, Not(HasSubstr(kKey.substr(0, 10))));
}

}  // namespace
}  // namespace kernelgen::llm
