// Cassettes: replaying recorded responses by sample key, and recording live ones, through llm::complete.
#include "kernelgen/llm/cassette.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <future>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "fake_llm_server.hpp"
#include "generator/scratch_dir.hpp"
#include "kernelgen/llm/client.hpp"
#include "kernelgen/llm/settings.hpp"
#include "kernelgen/store/files.hpp"

namespace kernelgen::llm {
namespace {

using nlohmann::json;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kKey = "sk-test-cassette-SECRET-0123456789";
const Prompt kPrompt{"system", "user", "1-test"};

ClientEnvironment quiet(Transport transport) {
  ClientEnvironment env;
  env.transport = std::move(transport);
  env.sleep = [](double) {};
  env.log = [](const std::string&) {};
  return env;
}

json entry(const std::string& key, const std::string& author, const std::string& body,
           const std::string& wire_format = "openai") {
  return {{"key", key},
          {"wire_format", wire_format},
          {"author", author},
          {"status", 200},
          {"body", json::parse(body)}};
}

// A vector, not a json: clang reads a one-entry {entry(...)} as a copy of that entry, not an array of it.
std::filesystem::path write_cassette(const std::filesystem::path& dir, const std::vector<json>& entries) {
  const auto path = dir / "relu.json";
  write_file_atomic(path, json{{"kernelgen_cassette", 1}, {"entries", entries}}.dump(2));
  return path;
}

ProviderSettings replay_settings(const std::filesystem::path& cassette) {
  return resolve_settings("replay/" + cassette.string(), {});
}

ProviderSettings live_settings(const test::FakeLlmServer& server) {
  ProviderSettings settings;
  settings.provider = "openai";
  settings.model = "gpt-4o-mini";
  settings.api_key = kKey;
  settings.base_url = server.base_url();
  return settings;
}

TEST(Cassette, ReplayServesTheEntryOfEachKey) {
  test::ScratchDir dir;
  const auto path =
      write_cassette(dir.path(), {entry("relu/r1/s0", "hand-written", test::openai_completion_body("zero")),
                                  entry("relu/r1/s1", "hand-written", test::openai_completion_body("one"))});
  const auto settings = replay_settings(path);
  const auto env = quiet(replay_transport(path));
  EXPECT_EQ(complete(settings, kPrompt, "relu/r1/s1", env).text, "one");
  EXPECT_EQ(complete(settings, kPrompt, "relu/r1/s0", env).text, "zero");
}

TEST(Cassette, ReplayMarksTheAuthorTheEntryNames) {
  test::ScratchDir dir;
  const auto path = write_cassette(
      dir.path(),
      {entry("relu/r1/s0", "hand-written", test::openai_completion_body("a", {}, "stop", "hand-written")),
       entry("relu/r1/s1", "openai/gpt-4o", test::openai_completion_body("b", {7, 8, 0}))});
  const auto settings = replay_settings(path);
  const auto env = quiet(replay_transport(path));
  EXPECT_EQ(complete(settings, kPrompt, "relu/r1/s0", env).author, "hand-written");
  const Completion recorded = complete(settings, kPrompt, "relu/r1/s1", env);
  EXPECT_EQ(recorded.author, "openai/gpt-4o");
  EXPECT_EQ(recorded.usage.prompt_tokens, 7);
}

TEST(Cassette, ReplayReadsTheEntrysWireFormat) {
  test::ScratchDir dir;
  const auto path = write_cassette(
      dir.path(), {entry("relu/r1/s0", "anthropic/claude-sonnet-4-5",
                         test::anthropic_message_body("from claude", {5, 6}, "max_tokens"), "anthropic")});
  const Completion completion =
      complete(replay_settings(path), kPrompt, "relu/r1/s0", quiet(replay_transport(path)));
  EXPECT_EQ(completion.text, "from claude");
  EXPECT_EQ(completion.finish_reason, "length");
  EXPECT_EQ(completion.author, "anthropic/claude-sonnet-4-5");
}

TEST(Cassette, MissingKeyIsA404NamingTheKeyAndHowToRecord) {
  test::ScratchDir dir;
  const auto path =
      write_cassette(dir.path(), {entry("relu/r1/s0", "hand-written", test::openai_completion_body("a"))});
  std::atomic<int> calls{0};
  Transport replay = replay_transport(path);
  auto counting = [&](const HttpRequest& request) {
    ++calls;
    return replay(request);
  };
  try {
    complete(replay_settings(path), kPrompt, "relu/r7/s3", quiet(counting));
    FAIL() << "a missing key was served";
  } catch (const LlmError& error) {
    EXPECT_EQ(error.status(), 404);
    EXPECT_THAT(error.what(),
                AllOf(HasSubstr("relu/r7/s3"), HasSubstr("KERNELGEN_RECORD"), HasSubstr(path.string())));
  }
  EXPECT_EQ(calls, 1);
}

TEST(Cassette, ALiveResponseCannotClaimAnAuthor) {
  test::FakeLlmServer server;
  test::ScriptedResponse reply = test::openai_reply("text");
  reply.headers = {{"x-kernelgen-author", "hand-written"}, {"x-kernelgen-wire-format", "anthropic"}};
  server.enqueue(reply);
  const Completion completion = complete(live_settings(server), kPrompt, "relu/r1/s0", quiet(curl_post));
  EXPECT_EQ(completion.author, "openai/gpt-4o-mini");
  EXPECT_EQ(completion.text, "text");
}

TEST(Cassette, MalformedCassetteIsAnErrorNamingTheFile) {
  test::ScratchDir dir;
  const auto path = dir.path() / "broken.json";
  write_file_atomic(path, "{ not json");
  EXPECT_THROW(
      {
        try {
          replay_transport(path);
        } catch (const std::invalid_argument& error) {
          EXPECT_THAT(error.what(), HasSubstr(path.string()));
          throw;
        }
      },
      std::invalid_argument);
  write_file_atomic(path, R"({"kernelgen_cassette": 1, "entries": [{"key": "a", "body": {}}]})");
  EXPECT_THROW(replay_transport(path), std::invalid_argument);  // no author
  write_file_atomic(path, R"({"entries": []})");
  EXPECT_THROW(replay_transport(path), std::invalid_argument);
}

// Every cassette shipped in tests/cassettes/ (one per catalog op) replays, and every entry is hand-written.
TEST(Cassette, ShippedCassettesAreHandWrittenAndReplay) {
  std::vector<std::filesystem::path> shipped;
  for (const auto& entry : std::filesystem::directory_iterator(KERNELGEN_TEST_CASSETTES_DIR))
    if (entry.path().extension() == ".json") shipped.push_back(entry.path());
  ASSERT_GE(shipped.size(), 8u) << "the catalog's cassettes are missing from " << KERNELGEN_TEST_CASSETTES_DIR;
  for (const std::filesystem::path& path : shipped) {
    const json cassette = json::parse(read_file(path));
    const auto settings = replay_settings(path);
    const auto env = quiet(replay_transport(path));
    ASSERT_FALSE(cassette["entries"].empty()) << path;
    for (const json& e : cassette["entries"]) {
      const Completion completion = complete(settings, kPrompt, e["key"].get<std::string>(), env);
      EXPECT_EQ(completion.author, e["author"].get<std::string>()) << path << " " << e["key"];
      EXPECT_EQ(completion.author, "hand-written") << path << " " << e["key"];
      EXPECT_FALSE(completion.text.empty());
    }
  }
}

TEST(Cassette, RecordingWritesAnEntryThatReplaysTheSameCompletion) {
  test::FakeLlmServer server;
  server.enqueue(
      test::openai_reply("```glsl\nvoid main() {}\n```", {900, 80, 12}, "stop", "gpt-4o-mini-2024-07-18"));
  test::ScratchDir dir;
  const auto path = dir.path() / "relu.json";
  const Transport recording = recording_transport(curl_post, path, "openai", "openai/gpt-4o-mini");
  const Completion live = complete(live_settings(server), kPrompt, "relu/r1/s0", quiet(recording));

  const json cassette = json::parse(read_file(path));
  ASSERT_EQ(cassette["entries"].size(), 1u);
  EXPECT_EQ(cassette["entries"][0]["key"], "relu/r1/s0");
  EXPECT_EQ(cassette["entries"][0]["author"], "openai/gpt-4o-mini");
  EXPECT_EQ(cassette["entries"][0]["wire_format"], "openai");
  EXPECT_THAT(read_file(path), Not(HasSubstr(kKey)));

  const Completion replayed =
      complete(replay_settings(path), kPrompt, "relu/r1/s0", quiet(replay_transport(path)));
  EXPECT_EQ(replayed.text, live.text);
  EXPECT_EQ(replayed.finish_reason, live.finish_reason);
  EXPECT_EQ(replayed.model, live.model);
  EXPECT_EQ(replayed.usage.prompt_tokens, live.usage.prompt_tokens);
  EXPECT_EQ(replayed.usage.completion_tokens, live.usage.completion_tokens);
  EXPECT_EQ(replayed.usage.reasoning_tokens, live.usage.reasoning_tokens);
  EXPECT_EQ(replayed.raw, live.raw);
  EXPECT_EQ(replayed.author, "openai/gpt-4o-mini");
}

TEST(Cassette, RecordingReplacesAKeysEntryAndSkipsErrors) {
  test::FakeLlmServer server;
  server.enqueue(test::openai_reply("first"));
  server.enqueue(test::error_reply(400, "bad request"));
  server.enqueue(test::openai_reply("second"));
  test::ScratchDir dir;
  const auto path = dir.path() / "relu.json";
  const auto env = quiet(recording_transport(curl_post, path, "openai", "openai/gpt-4o-mini"));
  complete(live_settings(server), kPrompt, "relu/r1/s0", env);
  EXPECT_THROW(complete(live_settings(server), kPrompt, "relu/r1/s1", env), LlmError);
  complete(live_settings(server), kPrompt, "relu/r1/s0", env);
  const json cassette = json::parse(read_file(path));
  ASSERT_EQ(cassette["entries"].size(), 1u);
  EXPECT_EQ(replay_transport(path)({.key = "relu/r1/s0"}).body, cassette["entries"][0]["body"].dump());
  EXPECT_EQ(complete(replay_settings(path), kPrompt, "relu/r1/s0", quiet(replay_transport(path))).text,
            "second");
}

TEST(Cassette, ConcurrentRecordingKeepsEveryEntryAndTheFileAlwaysWhole) {
  test::FakeLlmServer server;
  server.set_responder([](const test::ReceivedRequest&, size_t index) {
    test::ScriptedResponse reply = test::openai_reply("reply " + std::to_string(index));
    reply.delay_s = 0.01 * static_cast<double>(index % 3);
    return reply;
  });
  test::ScratchDir dir;
  const auto path = dir.path() / "relu.json";
  const auto env = quiet(recording_transport(curl_post, path, "openai", "openai/gpt-4o-mini"));

  std::atomic<bool> done{false};
  std::atomic<int> torn{0};
  std::thread reader([&] {
    while (!done) {
      std::ifstream in(path);
      if (!in) continue;
      const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (json::parse(text, nullptr, false).is_discarded()) ++torn;
    }
  });
  std::vector<std::future<Completion>> samples;
  for (int s = 0; s < 12; ++s)
    samples.push_back(std::async(std::launch::async, [&, s] {
      return complete(live_settings(server), kPrompt, "relu/r1/s" + std::to_string(s), env);
    }));
  for (auto& sample : samples) sample.get();
  done = true;
  reader.join();

  EXPECT_EQ(torn, 0);
  const json cassette = json::parse(read_file(path));
  EXPECT_EQ(cassette["entries"].size(), 12u);
  for (const auto& file : std::filesystem::directory_iterator(dir.path()))
    EXPECT_EQ(file.path().filename(), "relu.json") << "left behind: " << file.path();
}

}  // namespace
}  // namespace kernelgen::llm
