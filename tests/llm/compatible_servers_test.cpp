// Gemini's OpenAI-compatible endpoint and the local OpenAI-compatible servers (Ollama, vLLM, the llama.cpp
// server), each reached from the settings a user writes (KERNELGEN_MODEL, <PROVIDER>_BASE_URL, the key) and
// answering the fake server's copy of what that server really sends: its response and error shapes, its
// usage, its finish reasons. Waits are recorded instead of slept.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "fake_llm_server.hpp"
#include "kernelgen/llm/client.hpp"
#include "kernelgen/llm/providers.hpp"
#include "kernelgen/llm/settings.hpp"

namespace kernelgen::llm {
namespace {

using test::FakeLlmServer;
using test::ScriptedResponse;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

const Prompt kPrompt{"You write Vulkan compute shaders.", "Write relu.", "1-test"};
const std::string kGeminiKey = "AIzaSy-test-gemini-key";

// The settings of `model` as the build resolves them from these environment variables.
ProviderSettings settings_from(const std::string& model, std::map<std::string, std::string> environment) {
  SettingSources sources;
  sources.environment = [environment](const std::string& name) -> std::optional<std::string> {
    auto found = environment.find(name);
    if (found == environment.end()) return std::nullopt;
    return found->second;
  };
  ProviderSettings settings = resolve_settings(model, sources);
  settings.connect_timeout_s = 2;
  settings.total_timeout_s = 10;
  return settings;
}

// The client's waits and log lines, captured.
struct Recorder {
  std::vector<double> delays;
  std::vector<std::string> log;

  ClientEnvironment environment() {
    ClientEnvironment env;
    env.sleep = [this](double seconds) { delays.push_back(seconds); };
    env.jitter = [] { return 0.0; };
    env.log = [this](const std::string& line) { log.push_back(line); };
    return env;
  }
};

LlmError complete_error(const ProviderSettings& settings, Recorder& recorder) {
  try {
    complete(settings, kPrompt, "relu/r1/s0", recorder.environment());
  } catch (const LlmError& error) {
    return error;
  }
  ADD_FAILURE() << "complete() did not throw";
  return LlmError("none", 0, "");
}

// ---- Gemini, through https://generativelanguage.googleapis.com/v1beta/openai/ ----

ProviderSettings gemini(const FakeLlmServer& server, const std::string& model = "gemini-2.5-flash") {
  // Google's documentation writes the base URL with a trailing slash.
  return settings_from("gemini/" + model, {{"GEMINI_API_KEY", kGeminiKey},
                                           {"GEMINI_BASE_URL", server.origin() + "/v1beta/openai/"}});
}

TEST(Gemini, ModelStringReachesGooglesOpenAiCompatibleEndpointWithTheKeyAsBearer) {
  const ProviderSettings settings = settings_from("gemini/gemini-2.5-pro", {{"GEMINI_API_KEY", kGeminiKey}});
  const HttpRequest request = build_request(settings, kPrompt);
  EXPECT_EQ(request.url, "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions");
  EXPECT_THAT(request.headers, testing::Contains(std::pair<std::string, std::string>(
                                   "Authorization", "Bearer " + kGeminiKey)));
}

TEST(Gemini, SpeaksTheOpenAiWireFormatSoARecordedCassetteReplaysAsOpenAi) {
  EXPECT_EQ(wire_format_of("gemini"), "openai");
  EXPECT_EQ(wire_format_of("anthropic"), "anthropic");
  EXPECT_EQ(wire_format_of("replay"), "openai");
}

TEST(Gemini, RequestIsChatCompletionsWithOnlyFieldsGeminiAccepts) {
  FakeLlmServer server;
  server.enqueue(test::openai_reply("done", {}, "stop", "gemini-2.5-flash"));
  Recorder recorder;
  complete(gemini(server), kPrompt, "relu/r1/s0", recorder.environment());

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].path, "/v1beta/openai/chat/completions");
  EXPECT_EQ(requests[0].header("authorization"), "Bearer " + kGeminiKey);
  // Gemini rejects a field it does not know with 400 "Invalid JSON payload received. Unknown name ...": the
  // request carries the model, the messages, max_tokens and temperature, and nothing else.
  const nlohmann::json body = requests[0].json();
  std::vector<std::string> fields;
  for (const auto& [field, value] : body.items()) fields.push_back(field);
  EXPECT_THAT(fields, ElementsAre("max_tokens", "messages", "model", "temperature"));
  EXPECT_EQ(body["model"], "gemini-2.5-flash");
}

TEST(Gemini, ThinkingTokensReportedOnlyInTotalTokensCountAsReasoningOutput) {
  FakeLlmServer server;
  server.enqueue({200, {}, R"({"choices": [{"finish_reason": "stop", "index": 0,
                                            "message": {"content": "the kernel", "role": "assistant"}}],
                               "created": 1752300000, "id": "gemini-response-id", "model": "gemini-2.5-flash",
                               "object": "chat.completion",
                               "usage": {"completion_tokens": 9, "prompt_tokens": 11, "total_tokens": 88}})"});
  Recorder recorder;
  const Completion completion = complete(gemini(server), kPrompt, "relu/r1/s0", recorder.environment());
  EXPECT_EQ(completion.text, "the kernel");
  EXPECT_EQ(completion.usage.prompt_tokens, 11);
  EXPECT_EQ(completion.usage.completion_tokens, 77);  // 9 visible + 68 thinking, all billed as output
  EXPECT_EQ(completion.usage.reasoning_tokens, 68);
  EXPECT_EQ(completion.author, "gemini/gemini-2.5-flash");
}

TEST(Gemini, ThinkingThatSpendsMaxTokensIsAnEmptyCompletionCutAtLength) {
  FakeLlmServer server;
  server.enqueue({200, {}, R"({"choices": [{"finish_reason": "length", "index": 0,
                                            "message": {"content": "", "role": "assistant"}}],
                               "model": "gemini-2.5-pro", "object": "chat.completion",
                               "usage": {"completion_tokens": 0, "prompt_tokens": 5000, "total_tokens": 13192}})"});
  Recorder recorder;
  const Completion completion =
      complete(gemini(server, "gemini-2.5-pro"), kPrompt, "k", recorder.environment());
  EXPECT_EQ(completion.text, "");
  EXPECT_EQ(completion.finish_reason, "length");
  EXPECT_EQ(completion.usage.completion_tokens, 8192);
}

TEST(Gemini, ListShapedErrorIsReportedWithItsMessageAndNotRetried) {
  FakeLlmServer server;
  server.enqueue({400, {}, R"([{"error": {"code": 400,
      "message": "Invalid JSON payload received. Unknown name \"web_search_options\": Cannot find field.",
      "status": "INVALID_ARGUMENT",
      "details": [{"@type": "type.googleapis.com/google.rpc.BadRequest",
                   "fieldViolations": [{"description": "Invalid JSON payload received. Unknown name \"web_search_options\": Cannot find field."}]}]}}])"});
  Recorder recorder;
  const LlmError error = complete_error(gemini(server), recorder);
  EXPECT_EQ(error.status(), 400);
  EXPECT_THAT(error.what(),
              AllOf(HasSubstr("gemini (HTTP 400)"),
                    HasSubstr(": Invalid JSON payload received. Unknown name \"web_search_options\"")));
  EXPECT_EQ(server.request_count(), 1u);
}

TEST(Gemini, RateLimitWaitsTheRetryDelayOfItsBodyThenRetries) {
  FakeLlmServer server;
  server.enqueue({429, {}, R"([{"error": {"code": 429,
      "message": "You exceeded your current quota, please check your plan and billing details.",
      "status": "RESOURCE_EXHAUSTED",
      "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "38s"}]}}])"});
  server.enqueue(
      {429, {}, R"([{"error": {"code": 429, "message": "Resource has been exhausted (e.g. check quota).",
                                          "status": "RESOURCE_EXHAUSTED"}}])"});
  server.enqueue(test::openai_reply("done", {}, "stop", "gemini-2.5-flash"));
  Recorder recorder;
  const Completion completion = complete(gemini(server), kPrompt, "k", recorder.environment());
  EXPECT_EQ(completion.attempts, 3);
  EXPECT_THAT(recorder.delays, ElementsAre(38.0, 1.0));  // its RetryInfo, then the backoff
  ASSERT_EQ(recorder.log.size(), 2u);
  EXPECT_THAT(recorder.log[0], AllOf(HasSubstr("gemini: HTTP 429"), HasSubstr("exceeded your current quota"),
                                     HasSubstr("retrying in 38.00 s")));
  EXPECT_THAT(recorder.log[1], HasSubstr("Resource has been exhausted"));
}

TEST(Gemini, KeyNeverAppearsInAnErrorThatQuotesIt) {
  FakeLlmServer server;
  server.enqueue({400,
                  {},
                  R"([{"error": {"code": 400, "message": "API key not valid: )" + kGeminiKey +
                      R"(", "status": "INVALID_ARGUMENT"}}])"});
  Recorder recorder;
  EXPECT_THAT(
      complete_error(gemini(server), recorder).what(),
      AllOf(HasSubstr("API key not valid"), HasSubstr("[redacted]"), testing::Not(HasSubstr(kGeminiKey))));
}

// ---- Local servers, as openai/<model> with OPENAI_BASE_URL and no key ----

ProviderSettings local(const FakeLlmServer& server, const std::string& model) {
  return settings_from("openai/" + model, {{"OPENAI_BASE_URL", server.base_url()}});
}

TEST(LocalServer, NeedsNoKeyAndIsSentNone) {
  FakeLlmServer server;
  server.enqueue(test::openai_reply("done", {}, "stop", "qwen2.5-coder:7b"));
  Recorder recorder;
  const Completion completion =
      complete(local(server, "qwen2.5-coder:7b"), kPrompt, "k", recorder.environment());
  EXPECT_EQ(completion.author, "openai/qwen2.5-coder:7b");
  const auto request = server.requests().at(0);
  EXPECT_EQ(request.path, "/v1/chat/completions");
  EXPECT_EQ(request.header("authorization"), "");
  EXPECT_EQ(request.json()["model"], "qwen2.5-coder:7b");
  EXPECT_EQ(request.json()["max_tokens"], 8192);
}

TEST(Ollama, CutAtMaxTokensIsFinishReasonLength) {
  FakeLlmServer server;
  server.enqueue({200, {}, R"({"id": "chatcmpl-20", "object": "chat.completion", "created": 1719437652,
                               "model": "llama3", "system_fingerprint": "fp_ollama",
                               "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hello"},
                                            "finish_reason": "length"}],
                               "usage": {"prompt_tokens": 23, "completion_tokens": 1, "total_tokens": 24}})"});
  Recorder recorder;
  const Completion completion = complete(local(server, "llama3"), kPrompt, "k", recorder.environment());
  EXPECT_EQ(completion.text, "Hello");
  EXPECT_EQ(completion.finish_reason, "length");
  EXPECT_EQ(completion.usage.prompt_tokens, 23);
  EXPECT_EQ(completion.usage.completion_tokens, 1);
  EXPECT_EQ(completion.usage.reasoning_tokens, 0);
}

TEST(Ollama, ACachedPromptCountsZeroPromptTokens) {
  FakeLlmServer server;
  server.enqueue({200, {}, R"({"id": "chatcmpl-21", "object": "chat.completion", "model": "llama3",
                               "system_fingerprint": "fp_ollama",
                               "choices": [{"index": 0, "message": {"role": "assistant", "content": "again"},
                                            "finish_reason": "stop"}],
                               "usage": {"prompt_tokens": 0, "completion_tokens": 2, "total_tokens": 2}})"});
  Recorder recorder;
  const Completion completion = complete(local(server, "llama3"), kPrompt, "k", recorder.environment());
  EXPECT_EQ(completion.usage.prompt_tokens, 0);
  EXPECT_EQ(completion.usage.completion_tokens, 2);
}

TEST(Vllm, ReasoningContentIsNotTheCompletionsText) {
  FakeLlmServer server;
  server.enqueue({200, {}, R"({"id": "chatcmpl-8e0d5a86", "object": "chat.completion", "created": 1755146543,
                               "model": "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B",
                               "choices": [{"index": 0, "message": {"role": "assistant",
                                  "reasoning_content": "First I index the element ...", "content": "the kernel"},
                                  "finish_reason": "stop"}],
                               "usage": {"prompt_tokens": 700, "completion_tokens": 900, "total_tokens": 1600}})"});
  Recorder recorder;
  const Completion completion = complete(local(server, "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B"), kPrompt,
                                         "k", recorder.environment());
  EXPECT_EQ(completion.text, "the kernel");
  EXPECT_EQ(completion.raw["choices"][0]["message"]["reasoning_content"], "First I index the element ...");
}

TEST(Vllm, CutWhileReasoningIsAnEmptyCompletionCutAtLength) {
  FakeLlmServer server;
  server.enqueue({200, {}, R"({"id": "chatcmpl-9", "object": "chat.completion", "model": "Qwen/Qwen3-8B",
                               "choices": [{"index": 0, "message": {"role": "assistant", "content": null,
                                  "reasoning_content": "Let me think about the workgroup size"},
                                  "finish_reason": "length"}],
                               "usage": {"prompt_tokens": 700, "completion_tokens": 8192, "total_tokens": 8892}})"});
  Recorder recorder;
  const Completion completion =
      complete(local(server, "Qwen/Qwen3-8B"), kPrompt, "k", recorder.environment());
  EXPECT_EQ(completion.text, "");
  EXPECT_EQ(completion.finish_reason, "length");
}

TEST(Vllm, UnknownModelIsAFlatErrorReportedWithItsMessageAndNotRetried) {
  FakeLlmServer server;
  server.enqueue({404, {}, R"({"object": "error", "message": "The model `qwen2.5-coder` does not exist.",
                               "type": "NotFoundError", "param": null, "code": 404})"});
  Recorder recorder;
  const LlmError error = complete_error(local(server, "qwen2.5-coder"), recorder);
  EXPECT_EQ(error.status(), 404);
  EXPECT_THAT(error.what(), HasSubstr("openai (HTTP 404): The model `qwen2.5-coder` does not exist."));
  EXPECT_EQ(server.request_count(), 1u);
  EXPECT_THAT(recorder.delays, IsEmpty());
}

TEST(Vllm, PromptPlusMaxTokensBeyondMaxModelLenIsReportedAndNotRetried) {
  FakeLlmServer server;
  server.enqueue({400, {}, R"({"object": "error",
      "message": "This model's maximum context length is 8192 tokens. However, you requested 9892 tokens (1700 in the messages, 8192 in the completion). Please reduce the length of the messages or completion.",
      "type": "BadRequestError", "param": null, "code": 400})"});
  Recorder recorder;
  EXPECT_THAT(complete_error(local(server, "Qwen/Qwen3-8B"), recorder).what(),
              HasSubstr("maximum context length is 8192 tokens"));
  EXPECT_EQ(server.request_count(), 1u);
}

TEST(LlamaCppServer, TimingsAreIgnoredAndTheServersModelNameIsKeptApartFromTheAuthor) {
  FakeLlmServer server;
  server.enqueue({200, {}, R"({"choices": [{"finish_reason": "stop", "index": 0,
                                            "message": {"role": "assistant", "content": "the kernel"}}],
                               "created": 1757141666, "id": "chatcmpl-ecQULm0WqPrftUqjPZO1CFYeDjGZNbDu",
                               "model": "gpt-3.5-turbo", "object": "chat.completion",
                               "usage": {"completion_tokens": 35, "prompt_tokens": 237, "total_tokens": 272},
                               "timings": {"cache_n": 236, "prompt_n": 1, "prompt_ms": 30.958,
                                           "prompt_per_token_ms": 30.958, "prompt_per_second": 32.30,
                                           "predicted_n": 35, "predicted_ms": 661.064,
                                           "predicted_per_token_ms": 18.89, "predicted_per_second": 52.94}})"});
  Recorder recorder;
  const Completion completion =
      complete(local(server, "qwen2.5-coder-7b"), kPrompt, "k", recorder.environment());
  EXPECT_EQ(completion.text, "the kernel");
  EXPECT_EQ(completion.usage.prompt_tokens, 237);
  EXPECT_EQ(completion.usage.completion_tokens, 35);
  EXPECT_EQ(completion.model, "gpt-3.5-turbo");             // what the server says it is
  EXPECT_EQ(completion.author, "openai/qwen2.5-coder-7b");  // what the build asked for
}

TEST(LlamaCppServer, PromptBeyondTheContextSizeIsReportedAndNotRetried) {
  FakeLlmServer server;
  server.enqueue({400, {}, R"({"error": {"code": 400,
      "message": "request (4390 tokens) exceeds the available context size (4096 tokens), try increasing it",
      "type": "exceed_context_size_error", "n_prompt_tokens": 4390, "n_ctx": 4096}})"});
  Recorder recorder;
  const LlmError error = complete_error(local(server, "qwen2.5-coder-7b"), recorder);
  EXPECT_EQ(error.status(), 400);
  EXPECT_THAT(error.what(), HasSubstr("exceeds the available context size (4096 tokens)"));
  EXPECT_EQ(server.request_count(), 1u);
}

}  // namespace
}  // namespace kernelgen::llm
