#pragma once
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "kernelgen/llm/types.hpp"

namespace kernelgen::llm {

// KEY=value lines, as a .env file holds them: comments, blank lines, `export KEY=...` and quoted values.
std::map<std::string, std::string> parse_dotenv(const std::string& text);

// Where a setting can come from, strongest first: explicit (CMake arguments passed to the tool), the process
// environment, the .env file.
struct SettingSources {
  std::map<std::string, std::string> explicit_values;
  std::function<std::optional<std::string>(const std::string&)> environment;
  std::map<std::string, std::string> dotenv;

  std::optional<std::string> get(const std::string& name) const;
};

// The provider settings for a model string "provider/model" (e.g. openai/gpt-4o, anthropic/claude-sonnet-4-5,
// gemini/gemini-2.5-flash, openai/qwen2.5-coder with OPENAI_BASE_URL pointing at Ollama,
// replay/<cassette.json>). Throws std::invalid_argument naming what is missing, e.g. the key variable to set,
// never the key itself; and when the key would travel unencrypted: a base URL that is not https:// and not on
// this machine (localhost, 127.0.0.0/8, [::1]) needs KERNELGEN_ALLOW_INSECURE_HTTP=1; and for a base URL
// that holds credentials (https://user:pass@host/), which must go in the API key variable instead.
ProviderSettings resolve_settings(const std::string& model, const SettingSources& sources);

// Whether a setting holds a secret: a provider key, OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY or any
// other *_API_KEY. Secrets come from the environment or .env alone, never from a command line (which any user
// may read in the process list), and no validation worker inherits them.
bool is_secret_setting(std::string_view name);

// The process environment, for SettingSources::environment.
std::optional<std::string> process_environment(const std::string& name);

}  // namespace kernelgen::llm
