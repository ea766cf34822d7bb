#include "kernelgen/llm/cassette.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "kernelgen/store/files.hpp"

namespace kernelgen::llm {

using nlohmann::json;

namespace {

json load_cassette(const std::filesystem::path& path) {
  json cassette;
  try {
    cassette = json::parse(read_file(path));
  } catch (const json::parse_error& error) {
    throw std::invalid_argument("cassette " + path.string() + " is not valid JSON: " + error.what());
  }
  if (!cassette.is_object() || cassette.value("kernelgen_cassette", 0) != 1 || !cassette.contains("entries") ||
      !cassette["entries"].is_array())
    throw std::invalid_argument("cassette " + path.string() +
                                " is not a kernelgen cassette (expects {\"kernelgen_cassette\": 1, \"entries\": [...]})");
  for (const json& entry : cassette["entries"]) {
    if (!entry.is_object() || !entry.contains("key") || !entry["key"].is_string() || !entry.contains("body") ||
        !entry.contains("author") || !entry["author"].is_string())
      throw std::invalid_argument("cassette " + path.string() + ": every entry needs key, author and body");
  }
  return cassette;
}

HttpResponse not_recorded(const std::filesystem::path& path, const std::string& key) {
  HttpResponse response;
  response.status = 404;
  response.body = json{{"error",
                        {{"message", "cassette " + path.string() + " has no response for " + key +
                                         "; record one with KERNELGEN_RECORD=1 and a live model"}}}}
                      .dump();
  return response;
}

}  // namespace

Transport replay_transport(const std::filesystem::path& cassette_path) {
  const json cassette = load_cassette(cassette_path);
  auto entries = std::make_shared<std::map<std::string, json>>();
  for (const json& entry : cassette["entries"]) (*entries)[entry["key"].get<std::string>()] = entry;
  return [entries, cassette_path](const HttpRequest& request) {
    auto found = entries->find(request.key);
    if (found == entries->end()) return not_recorded(cassette_path, request.key);
    const json& entry = found->second;
    HttpResponse response;
    response.status = entry.value("status", 200);
    response.body = entry["body"].is_string() ? entry["body"].get<std::string>() : entry["body"].dump();
    response.headers["x-kernelgen-author"] = entry["author"].get<std::string>();
    response.headers["x-kernelgen-wire-format"] = entry.value("wire_format", "openai");
    return response;
  };
}

Transport recording_transport(Transport live, const std::filesystem::path& cassette_path,
                              const std::string& wire_format, const std::string& author) {
  auto lock = std::make_shared<std::mutex>();
  return [live, cassette_path, wire_format, author, lock](const HttpRequest& request) {
    HttpResponse response = live(request);
    if (response.status < 200 || response.status >= 300) return response;
    std::lock_guard<std::mutex> guard(*lock);
    json cassette = std::filesystem::exists(cassette_path) ? load_cassette(cassette_path)
                                                           : json{{"kernelgen_cassette", 1}, {"entries", json::array()}};
    json body = json::parse(response.body, nullptr, false);
    json entry = {{"key", request.key}, {"wire_format", wire_format}, {"author", author}, {"status", response.status}};
    entry["body"] = body.is_discarded() ? json(response.body) : body;
    auto& entries = cassette["entries"];
    entries.erase(std::remove_if(entries.begin(), entries.end(), [&](const json& e) { return e["key"] == request.key; }),
                  entries.end());
    entries.push_back(entry);
    write_file_atomic(cassette_path, cassette.dump(2) + "\n");
    return response;
  };
}

}  // namespace kernelgen::llm
