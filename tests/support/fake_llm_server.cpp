#include "fake_llm_server.hpp"

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <csignal>
#include <stdexcept>

namespace kernelgen::test {

using nlohmann::json;

namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

ScriptedResponse script_ran_out(size_t index) {
  return error_reply(500, "fake LLM server: no scripted response left for request " + std::to_string(index),
                     {{"x-should-retry", "false"}});
}

}  // namespace

std::string ReceivedRequest::header(const std::string& name) const {
  auto found = headers.find(lower(name));
  return found == headers.end() ? "" : found->second;
}

FakeLlmServer::FakeLlmServer() : server_(std::make_unique<httplib::Server>()) {
  // A client that gives up closes its end while a hanging answer is still pending; writing to it later must
  // fail with EPIPE, not kill the test.
  std::signal(SIGPIPE, SIG_IGN);
  // Enough workers that hanging and delayed answers never queue the requests of a concurrency test.
  server_->new_task_queue = [] { return new httplib::ThreadPool(64); };
  auto route = [this](const httplib::Request& request, httplib::Response& response) {
    std::map<std::string, std::string> headers;
    for (const auto& [name, value] : request.headers) headers[lower(name)] = value;
    ScriptedResponse answer;
    handle(request.path, headers, request.body, &answer);
    response.status = answer.status;
    for (const auto& [name, value] : answer.headers) response.set_header(name, value);
    if (answer.action == ScriptedResponse::Action::close_connection) {
      // Headers promise a body; the provider refuses to write it, so httplib drops the connection.
      response.set_content_provider(1024, "application/json",
                                    [](size_t, size_t, httplib::DataSink&) { return false; });
      return;
    }
    response.set_content(answer.body, "application/json");
  };
  server_->Post("/v1/chat/completions", route);
  server_->Post("/v1beta/openai/chat/completions", route);
  server_->Post("/v1/messages", route);
  int listening = -1;
  server_->set_socket_options([&listening](socket_t socket) {
    httplib::default_socket_options(socket);
    listening = socket;
  });
  port_ = server_->bind_to_any_port("127.0.0.1");
  if (port_ <= 0) throw std::runtime_error("fake LLM server: cannot bind a port on 127.0.0.1");
  // httplib 0.11 listens with a backlog of 5: more simultaneous connections than that, with the accept loop
  // slowed by a loaded machine, get their SYN dropped and retried a second later. Listening again widens it.
  ::listen(listening, SOMAXCONN);
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  // stop() is a no-op before the server runs, so do not hand it out before.
  while (!server_->is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

FakeLlmServer::~FakeLlmServer() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  stopping_cv_.notify_all();
  server_->stop();
  thread_.join();
}

std::string FakeLlmServer::origin() const {
  return "http://127.0.0.1:" + std::to_string(port_);
}

std::string FakeLlmServer::base_url() const {
  return origin() + "/v1";
}

void FakeLlmServer::enqueue(ScriptedResponse response) {
  std::lock_guard<std::mutex> lock(mutex_);
  queue_.push_back(std::move(response));
}

void FakeLlmServer::set_responder(Responder responder) {
  std::lock_guard<std::mutex> lock(mutex_);
  responder_ = std::move(responder);
}

std::vector<ReceivedRequest> FakeLlmServer::requests() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return requests_;
}

size_t FakeLlmServer::request_count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return requests_.size();
}

int FakeLlmServer::max_in_flight() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return max_in_flight_;
}

bool FakeLlmServer::wait(double seconds) {
  std::unique_lock<std::mutex> lock(mutex_);
  return !stopping_cv_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return stopping_; });
}

void FakeLlmServer::handle(const std::string& path, const std::map<std::string, std::string>& headers,
                           const std::string& body, ScriptedResponse* answer) {
  ReceivedRequest request{path, headers, body, std::chrono::steady_clock::now()};
  Responder responder;
  size_t index = 0;
  bool scripted = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    index = requests_.size();
    requests_.push_back(request);
    max_in_flight_ = std::max(max_in_flight_, ++in_flight_);
    scripted = !queue_.empty();
    if (scripted) {
      *answer = std::move(queue_.front());
      queue_.pop_front();
    } else {
      responder = responder_;
    }
  }
  if (!scripted) *answer = responder ? responder(request, index) : script_ran_out(index);

  if (answer->action == ScriptedResponse::Action::hang) {
    wait(1e6);
    *answer = error_reply(503, "fake LLM server stopped");
  } else if (answer->delay_s > 0) {
    wait(answer->delay_s);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  --in_flight_;
}

std::string openai_completion_body(const std::string& text, const FakeUsage& usage,
                                   const std::string& finish_reason, const std::string& model) {
  json body = {{"id", "chatcmpl-fake"},
               {"object", "chat.completion"},
               {"created", 1700000000},
               {"model", model},
               {"choices", json::array({{{"index", 0},
                                         {"message", {{"role", "assistant"}, {"content", text}}},
                                         {"finish_reason", finish_reason}}})},
               {"usage",
                {{"prompt_tokens", usage.prompt_tokens},
                 {"completion_tokens", usage.completion_tokens},
                 {"total_tokens", usage.prompt_tokens + usage.completion_tokens}}}};
  if (usage.reasoning_tokens)
    body["usage"]["completion_tokens_details"] = {{"reasoning_tokens", usage.reasoning_tokens}};
  return body.dump();
}

std::string anthropic_message_body(const std::string& text, const FakeUsage& usage,
                                   const std::string& stop_reason, const std::string& model) {
  return json{{"id", "msg_fake"},
              {"type", "message"},
              {"role", "assistant"},
              {"model", model},
              {"content", json::array({{{"type", "text"}, {"text", text}}})},
              {"stop_reason", stop_reason},
              {"stop_sequence", nullptr},
              {"usage", {{"input_tokens", usage.prompt_tokens}, {"output_tokens", usage.completion_tokens}}}}
      .dump();
}

std::string hand_written_cassette(const std::vector<std::pair<std::string, std::string>>& replies) {
  nlohmann::json entries = nlohmann::json::array();
  for (const auto& [key, text] : replies)
    entries.push_back({{"key", key}, {"author", "hand-written"}, {"body", openai_completion_body(text)}});
  return nlohmann::json{{"kernelgen_cassette", 1}, {"entries", entries}}.dump();
}

ScriptedResponse openai_reply(const std::string& text, const FakeUsage& usage,
                              const std::string& finish_reason, const std::string& model) {
  return {200, {}, openai_completion_body(text, usage, finish_reason, model)};
}

ScriptedResponse anthropic_reply(const std::string& text, const FakeUsage& usage,
                                 const std::string& stop_reason, const std::string& model) {
  return {200, {}, anthropic_message_body(text, usage, stop_reason, model)};
}

ScriptedResponse error_reply(int status, const std::string& message,
                             std::vector<std::pair<std::string, std::string>> headers,
                             const std::string& code) {
  json error = {{"message", message}, {"type", status == 429 ? "rate_limit_error" : "api_error"}};
  error["code"] = code.empty() ? json() : json(code);
  return {status, std::move(headers), json{{"error", error}}.dump()};
}

RefusingPort::RefusingPort() {
  socket_ = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof address;
  if (socket_ < 0 || ::bind(socket_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::getsockname(socket_, reinterpret_cast<sockaddr*>(&address), &length) != 0)
    throw std::runtime_error("cannot reserve a port on 127.0.0.1");
  port_ = ntohs(address.sin_port);
}

RefusingPort::~RefusingPort() {
  if (socket_ >= 0) ::close(socket_);
}

}  // namespace kernelgen::test
