#pragma once
// A fake LLM API on 127.0.0.1 for tests and benchmarks: it speaks OpenAI Chat Completions
// (POST /v1/chat/completions, and at Gemini's path POST /v1beta/openai/chat/completions) and Anthropic
// Messages (POST /v1/messages) over real HTTP on an ephemeral port, answers from a script, and keeps every
// request it received for the test to inspect.
//
//   FakeLlmServer server;
//   server.enqueue(openai_reply("```glsl\n...\n```"));
//   server.enqueue(error_reply(429, "slow down", {{"retry-after", "2"}}));
//   ... settings.base_url = server.base_url(); llm::complete(settings, ...);
//   EXPECT_EQ(server.requests().size(), 2u);
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace httplib {
class Server;
}

namespace kernelgen::test {

// One scripted answer. `action` says whether the server answers at all.
struct ScriptedResponse {
  enum class Action {
    respond,           // status, headers, body (after delay_s)
    hang,              // never answers: holds the connection until the client gives up or the server stops
    close_connection,  // sends the status line and headers, then drops the connection before the body
  };
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  double delay_s = 0;
  Action action = Action::respond;
};

// What the server received. Header names are lower-case.
struct ReceivedRequest {
  std::string path;
  std::map<std::string, std::string> headers;
  std::string body;
  std::chrono::steady_clock::time_point received_at;

  nlohmann::json json() const { return nlohmann::json::parse(body); }
  std::string header(const std::string& name) const;  // "" when absent
};

class FakeLlmServer {
 public:
  using Responder = std::function<ScriptedResponse(const ReceivedRequest& request, size_t index)>;

  FakeLlmServer();  // listening when it returns
  ~FakeLlmServer();
  FakeLlmServer(const FakeLlmServer&) = delete;
  FakeLlmServer& operator=(const FakeLlmServer&) = delete;

  int port() const { return port_; }
  // http://127.0.0.1:<port>
  std::string origin() const;
  // http://127.0.0.1:<port>/v1: an OPENAI_BASE_URL, and an ANTHROPIC_BASE_URL as well.
  std::string base_url() const;

  // Answers are taken from the queue in the order requests arrive; when it is empty, the responder answers
  // (by default: HTTP 500 with x-should-retry: false, saying that the script ran out).
  void enqueue(ScriptedResponse response);
  void set_responder(Responder responder);

  std::vector<ReceivedRequest> requests() const;
  size_t request_count() const;
  // The most requests that were being answered at the same time.
  int max_in_flight() const;

 private:
  void handle(const std::string& path, const std::map<std::string, std::string>& headers,
              const std::string& body, ScriptedResponse* answer);
  // Waits up to `seconds`, or until the server stops; false when it stopped.
  bool wait(double seconds);

  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;

  mutable std::mutex mutex_;
  std::condition_variable stopping_cv_;
  bool stopping_ = false;
  std::deque<ScriptedResponse> queue_;
  Responder responder_;
  std::vector<ReceivedRequest> requests_;
  int in_flight_ = 0;
  int max_in_flight_ = 0;
};

// Response bodies as the real APIs write them, around a completion text, with usage.
struct FakeUsage {
  int64_t prompt_tokens = 100;
  int64_t completion_tokens = 50;
  int64_t reasoning_tokens = 0;
};
std::string openai_completion_body(const std::string& text, const FakeUsage& usage = {},
                                   const std::string& finish_reason = "stop",
                                   const std::string& model = "gpt-4o");
std::string anthropic_message_body(const std::string& text, const FakeUsage& usage = {},
                                   const std::string& stop_reason = "end_turn",
                                   const std::string& model = "claude-sonnet-4-5");

// A replay cassette (kernelgen_cassette 1) whose entries are hand-written OpenAI completions, one for each
// (key, reply text), in order: its JSON text, for a test to write where `--cassette-dir` looks.
std::string hand_written_cassette(const std::vector<std::pair<std::string, std::string>>& replies);

// A 200 with such a body.
ScriptedResponse openai_reply(const std::string& text, const FakeUsage& usage = {},
                              const std::string& finish_reason = "stop", const std::string& model = "gpt-4o");
ScriptedResponse anthropic_reply(const std::string& text, const FakeUsage& usage = {},
                                 const std::string& stop_reason = "end_turn",
                                 const std::string& model = "claude-sonnet-4-5");
// An error in the APIs' shape: {"error": {"message": ..., "type": ..., "code": ...}}.
ScriptedResponse error_reply(int status, const std::string& message,
                             std::vector<std::pair<std::string, std::string>> headers = {},
                             const std::string& code = "");

// A TCP port on 127.0.0.1 that is bound but not listening, for as long as the object lives: connecting to it
// is refused, and no other process can take it meanwhile.
class RefusingPort {
 public:
  RefusingPort();
  ~RefusingPort();
  RefusingPort(const RefusingPort&) = delete;
  RefusingPort& operator=(const RefusingPort&) = delete;
  int port() const { return port_; }

 private:
  int socket_ = -1;
  int port_ = 0;
};

}  // namespace kernelgen::test
