#pragma once
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kernelgen::llm {

struct HttpRequest {
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  double connect_timeout_s = 10;
  double total_timeout_s = 600;
  std::string key;  // which sample of which round: lets a replay transport find the recorded answer
};

struct HttpResponse {
  int status = 0;                              // 0: no HTTP response (see error)
  std::map<std::string, std::string> headers;  // names lower-case
  std::string body;
  std::string error;  // transport failure: connection refused, timeout, ...
  bool timed_out = false;
};

// Sends one request. The live one is libcurl; tests and replays substitute their own.
using Transport = std::function<HttpResponse(const HttpRequest&)>;

HttpResponse curl_post(const HttpRequest& request);

}  // namespace kernelgen::llm
