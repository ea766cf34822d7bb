#include "kernelgen/llm/settings.hpp"

#include <arpa/inet.h>
#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "kernelgen/llm/providers.hpp"

namespace kernelgen::llm {

std::map<std::string, std::string> parse_dotenv(const std::string& text) {
  std::map<std::string, std::string> values;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line[start] == '#') continue;
    line = line.substr(start);
    if (line.rfind("export ", 0) == 0) line = line.substr(7);
    const size_t equals = line.find('=');
    if (equals == std::string::npos) continue;
    std::string key = line.substr(0, equals);
    key.erase(key.find_last_not_of(" \t") + 1);
    std::string value = line.substr(equals + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    const size_t closing = value.empty() ? std::string::npos : value.find(value.front(), 1);
    if (closing != std::string::npos && (value.front() == '"' || value.front() == '\'')) {
      value = value.substr(1, closing - 1);  // what follows the closing quote is a comment
    } else {
      const size_t comment = value.find(" #");
      if (comment != std::string::npos) value = value.substr(0, comment);
      value.erase(value.find_last_not_of(" \t") + 1);
    }
    if (!key.empty()) values[key] = value;
  }
  return values;
}

std::optional<std::string> SettingSources::get(const std::string& name) const {
  if (auto found = explicit_values.find(name); found != explicit_values.end() && !found->second.empty())
    return found->second;
  if (environment)
    if (auto value = environment(name); value && !value->empty()) return value;
  if (auto found = dotenv.find(name); found != dotenv.end() && !found->second.empty()) return found->second;
  return std::nullopt;
}

bool is_secret_setting(std::string_view name) {
  return name.ends_with("_API_KEY");
}

std::optional<std::string> process_environment(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (!value) return std::nullopt;
  return std::string(value);
}

namespace {

double positive_number(const std::string& name, const std::string& text, bool integer) {
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !(value > 0) ||
      (integer && (value != std::floor(value) || value > 1e9)))
    throw std::invalid_argument(name + "=" + text + " is not a positive " + (integer ? "integer" : "number"));
  return value;
}

struct UrlParts {
  std::string scheme;
  std::string host;
};

// The scheme and host, lower-case, as libcurl will read the URL: one without a scheme is http to it.
std::optional<UrlParts> url_parts(const std::string& url) {
  const std::unique_ptr<CURLU, decltype(&curl_url_cleanup)> handle(curl_url(), curl_url_cleanup);
  if (!handle || curl_url_set(handle.get(), CURLUPART_URL, url.c_str(), CURLU_GUESS_SCHEME) != CURLUE_OK)
    return std::nullopt;
  UrlParts parts;
  for (auto [part, text] :
       {std::pair{CURLUPART_SCHEME, &parts.scheme}, std::pair{CURLUPART_HOST, &parts.host}}) {
    char* value = nullptr;
    if (curl_url_get(handle.get(), part, &value, 0) != CURLUE_OK) return std::nullopt;
    *text = value;
    curl_free(value);
    std::transform(text->begin(), text->end(), text->begin(),
                   [](unsigned char c) { return std::tolower(c); });
  }
  return parts;
}

// Whether the URL names a user or password before its host (https://user:pass@host/): credentials that would
// travel wherever the URL goes (command lines, CMakeCache.txt, error messages).
bool has_credentials(const std::string& url) {
  const std::unique_ptr<CURLU, decltype(&curl_url_cleanup)> handle(curl_url(), curl_url_cleanup);
  if (!handle || curl_url_set(handle.get(), CURLUPART_URL, url.c_str(), CURLU_GUESS_SCHEME) != CURLUE_OK)
    return url.find('@') != std::string::npos;  // not a URL curl reads: refuse any that might hold some
  for (CURLUPart part : {CURLUPART_USER, CURLUPART_PASSWORD}) {
    char* value = nullptr;
    if (curl_url_get(handle.get(), part, &value, 0) == CURLUE_OK) {
      curl_free(value);
      return true;
    }
  }
  return false;
}

// A host whose traffic never leaves this machine. libcurl resolves "localhost" itself, to loopback.
bool is_loopback(std::string host) {
  if (host == "localhost") return true;
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  in_addr v4{};
  if (::inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  return ::inet_pton(AF_INET6, host.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}

// Every machine between here and a plain-http server can read the key; only a server on this machine may get
// it unencrypted, unless the user opts in.
void require_key_encrypted_on_the_wire(const std::string& prefix, const ProviderSettings& settings,
                                       const SettingSources& sources) {
  if (settings.api_key.empty() || settings.base_url.empty()) return;
  if (sources.get("KERNELGEN_ALLOW_INSECURE_HTTP") == "1") return;
  const std::string setting = prefix + "_BASE_URL=" + settings.base_url;
  const auto url = url_parts(settings.base_url);
  if (!url) throw std::invalid_argument(setting + " is not a URL; write e.g. https://<host>/v1");
  if (url->scheme == "https" || is_loopback(url->host)) return;
  throw std::invalid_argument(
      setting + " would send " + prefix + "_API_KEY unencrypted (" + url->scheme + ") to " + url->host +
      ". Use https://, or a server on this machine (localhost, 127.0.0.1, [::1]); to send the key over plain "
      "http anyway, set KERNELGEN_ALLOW_INSECURE_HTTP=1 in the environment or .env");
}

// Whether the base URL is the provider's own API (unset, or on its host), which needs a key; any other
// server, such as a local OpenAI-compatible one (Ollama, vLLM, llama.cpp server), may need none.
bool is_providers_own_api(const std::string& base_url, const KnownProvider& provider) {
  if (base_url.empty()) return true;
  const auto url = url_parts(base_url), own = url_parts(std::string(provider.default_base_url));
  return url && own && url->host == own->host;
}

}  // namespace

ProviderSettings resolve_settings(const std::string& model, const SettingSources& sources) {
  const size_t slash = model.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == model.size())
    throw std::invalid_argument("model '" + model +
                                "' is not provider/model; e.g. openai/gpt-4o, anthropic/claude-sonnet-4-5, "
                                "gemini/gemini-2.5-flash or replay/<cassette.json>");
  ProviderSettings settings;
  settings.provider = model.substr(0, slash);
  settings.model = model.substr(slash + 1);
  if (settings.provider == "replay") {
    settings.cassette = settings.model;
    return settings;
  }
  const KnownProvider* known = find_provider(settings.provider);
  if (!known)
    throw std::invalid_argument("unknown provider '" + settings.provider + "' in model '" + model +
                                "'; kernelgen knows openai, anthropic, gemini and replay (a local "
                                "OpenAI-compatible server is openai/<model> with OPENAI_BASE_URL)");
  const std::string prefix(known->settings_prefix);
  settings.base_url = sources.get(prefix + "_BASE_URL").value_or("");
  // Named, never shown: the message must not carry the password on.
  if (has_credentials(settings.base_url))
    throw std::invalid_argument(
        prefix +
        "_BASE_URL holds credentials (user:password@ before the host), which a "
        "URL carries into command lines, CMakeCache.txt and messages. Remove them from the "
        "URL and put the key in " +
        prefix + "_API_KEY (environment or .env)");
  settings.api_key = sources.get(prefix + "_API_KEY").value_or("");
  if (settings.api_key.empty() && is_providers_own_api(settings.base_url, *known))
    throw std::invalid_argument("model " + model + " needs " + prefix +
                                "_API_KEY: set it in the environment or in a .env file (never in CMake arguments, "
                                "which are stored in CMakeCache.txt)");
  require_key_encrypted_on_the_wire(prefix, settings, sources);
  if (auto tokens = sources.get("KERNELGEN_MAX_OUTPUT_TOKENS"))
    settings.max_output_tokens =
        static_cast<int>(positive_number("KERNELGEN_MAX_OUTPUT_TOKENS", *tokens, true));
  if (auto timeout = sources.get("KERNELGEN_TIMEOUT_S"))
    settings.total_timeout_s = positive_number("KERNELGEN_TIMEOUT_S", *timeout, false);
  return settings;
}

}  // namespace kernelgen::llm
