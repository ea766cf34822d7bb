// Where the provider settings come from (CMake arguments, the environment, .env) and what a missing one says.
#include "kernelgen/llm/settings.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace kernelgen::llm {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

// The environment as a map, for SettingSources::environment.
std::function<std::optional<std::string>(const std::string&)> environment(
    std::map<std::string, std::string> values) {
  return [values](const std::string& name) -> std::optional<std::string> {
    auto found = values.find(name);
    if (found == values.end()) return std::nullopt;
    return found->second;
  };
}

std::string resolve_error(const std::string& model, const SettingSources& sources) {
  try {
    resolve_settings(model, sources);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  ADD_FAILURE() << "resolve_settings(" << model << ") did not throw";
  return "";
}

TEST(Settings, DotenvReadsKeyValueLines) {
  const auto values = parse_dotenv(
      "# kernelgen settings\n"
      "\n"
      "OPENAI_API_KEY=sk-plain\n"
      "export KERNELGEN_MODEL=openai/gpt-4o\n"
      "  SPACED = around  \n"
      "not a setting\n");
  EXPECT_EQ(values.at("OPENAI_API_KEY"), "sk-plain");
  EXPECT_EQ(values.at("KERNELGEN_MODEL"), "openai/gpt-4o");
  EXPECT_EQ(values.at("SPACED"), "around");
  EXPECT_EQ(values.size(), 3u);
}

TEST(Settings, DotenvUnquotesValues) {
  const auto values = parse_dotenv("A=\"double quoted\"\nB='single # quoted'\nC=\"\"\n");
  EXPECT_EQ(values.at("A"), "double quoted");
  EXPECT_EQ(values.at("B"), "single # quoted");
  EXPECT_EQ(values.at("C"), "");
}

TEST(Settings, DotenvDropsInlineComments) {
  const auto values = parse_dotenv("A=value # a comment\nB=no#comment\nC=\"quoted\" # a comment\n");
  EXPECT_EQ(values.at("A"), "value");
  EXPECT_EQ(values.at("B"), "no#comment");
  EXPECT_EQ(values.at("C"), "quoted");
}

TEST(Settings, DotenvReadsCrlfLines) {
  const auto values = parse_dotenv("A=1\r\nB=\"two\"\r\n");
  EXPECT_EQ(values.at("A"), "1");
  EXPECT_EQ(values.at("B"), "two");
}

TEST(Settings, ExplicitWinsOverEnvironmentWhichWinsOverDotenv) {
  SettingSources sources;
  sources.explicit_values = {{"OPENAI_BASE_URL", "https://explicit/v1"}};
  sources.environment =
      environment({{"OPENAI_BASE_URL", "https://environment/v1"}, {"OPENAI_API_KEY", "sk-env"}});
  sources.dotenv = {{"OPENAI_BASE_URL", "https://dotenv/v1"},
                    {"OPENAI_API_KEY", "sk-dotenv"},
                    {"KERNELGEN_MODEL", "openai/from-dotenv"}};
  EXPECT_EQ(sources.get("OPENAI_BASE_URL"), "https://explicit/v1");
  EXPECT_EQ(sources.get("OPENAI_API_KEY"), "sk-env");
  EXPECT_EQ(sources.get("KERNELGEN_MODEL"), "openai/from-dotenv");
  EXPECT_EQ(sources.get("ANTHROPIC_API_KEY"), std::nullopt);

  const ProviderSettings settings = resolve_settings("openai/gpt-4o", sources);
  EXPECT_EQ(settings.base_url, "https://explicit/v1");
  EXPECT_EQ(settings.api_key, "sk-env");
}

TEST(Settings, EmptyValuesFallThroughToWeakerSources) {
  SettingSources sources;
  sources.explicit_values = {{"OPENAI_BASE_URL", ""}};
  sources.environment = environment({{"OPENAI_BASE_URL", ""}});
  sources.dotenv = {{"OPENAI_BASE_URL", "http://dotenv/v1"}};
  EXPECT_EQ(sources.get("OPENAI_BASE_URL"), "http://dotenv/v1");
}

TEST(Settings, OpenAiModelSplitsProviderAndModel) {
  SettingSources sources;
  sources.environment = environment({{"OPENAI_API_KEY", "sk-env"}});
  const ProviderSettings settings = resolve_settings("openai/gpt-4o-mini", sources);
  EXPECT_EQ(settings.provider, "openai");
  EXPECT_EQ(settings.model, "gpt-4o-mini");
  EXPECT_EQ(settings.base_url, "");
}

TEST(Settings, MissingKeyForTheOfficialApiNamesTheVariableAndNoKey) {
  SettingSources sources;
  sources.environment = environment({{"ANTHROPIC_API_KEY", "sk-ant-secret-value"}});
  sources.dotenv = {{"SOME_TOKEN", "sk-dotenv-secret"}};
  const std::string message = resolve_error("openai/gpt-4o", sources);
  EXPECT_THAT(message, AllOf(HasSubstr("OPENAI_API_KEY"), HasSubstr("openai/gpt-4o"),
                             Not(HasSubstr("sk-ant-secret-value")), Not(HasSubstr("sk-dotenv-secret"))));

  sources.explicit_values = {{"OPENAI_BASE_URL", "https://api.openai.com/v1"}};
  EXPECT_THAT(resolve_error("openai/gpt-4o", sources), HasSubstr("OPENAI_API_KEY"));
}

TEST(Settings, MissingAnthropicKeyNamesAnthropicApiKey) {
  SettingSources sources;
  sources.environment = environment({{"OPENAI_API_KEY", "sk-openai-secret"}});
  EXPECT_THAT(resolve_error("anthropic/claude-sonnet-4-5", sources),
              AllOf(HasSubstr("ANTHROPIC_API_KEY"), Not(HasSubstr("sk-openai-secret"))));
}

TEST(Settings, GeminiModelReadsTheGeminiKeyAndNeedsNoBaseUrl) {
  SettingSources sources;
  sources.environment = environment({{"GEMINI_API_KEY", "gemini-key"}, {"OPENAI_API_KEY", "sk-openai"}});
  const ProviderSettings settings = resolve_settings("gemini/gemini-2.5-flash", sources);
  EXPECT_EQ(settings.provider, "gemini");
  EXPECT_EQ(settings.model, "gemini-2.5-flash");
  EXPECT_EQ(settings.api_key, "gemini-key");
  EXPECT_EQ(settings.base_url, "");
}

TEST(Settings, MissingGeminiKeyNamesGeminiApiKeyEvenWithAnotherProvidersKey) {
  SettingSources sources;
  sources.environment = environment({{"OPENAI_API_KEY", "sk-openai-secret"}});
  EXPECT_THAT(
      resolve_error("gemini/gemini-2.5-pro", sources),
      AllOf(HasSubstr("gemini/gemini-2.5-pro needs GEMINI_API_KEY"), Not(HasSubstr("sk-openai-secret"))));
  sources.environment =
      environment({{"GEMINI_BASE_URL", "https://generativelanguage.googleapis.com/v1beta/openai/"}});
  EXPECT_THAT(resolve_error("gemini/gemini-2.5-pro", sources), HasSubstr("GEMINI_API_KEY"));
}

TEST(Settings, GeminiBaseUrlElsewhereNeedsNoKey) {
  SettingSources sources;
  sources.environment = environment({{"GEMINI_BASE_URL", "http://127.0.0.1:8080/v1beta/openai/"}});
  EXPECT_EQ(resolve_settings("gemini/gemini-2.5-flash", sources).base_url,
            "http://127.0.0.1:8080/v1beta/openai/");
}

TEST(Settings, LocalBaseUrlNeedsNoKey) {
  SettingSources sources;
  sources.environment = environment({{"OPENAI_BASE_URL", "http://localhost:11434/v1"}});
  const ProviderSettings settings = resolve_settings("openai/qwen2.5-coder", sources);
  EXPECT_EQ(settings.base_url, "http://localhost:11434/v1");
  EXPECT_EQ(settings.model, "qwen2.5-coder");
  EXPECT_EQ(settings.api_key, "");
}

// A provider's key and the base URL it would travel to.
SettingSources key_and_url(const std::string& prefix, const std::string& base_url) {
  SettingSources sources;
  sources.environment =
      environment({{prefix + "_API_KEY", "sk-wire-SECRET"}, {prefix + "_BASE_URL", base_url}});
  return sources;
}

TEST(Settings, KeyTravelsOverHttpsOrToAServerOnThisMachine) {
  for (const std::string url :
       {"https://gateway.example.com/v1", "HTTPS://gateway.example.com/v1", "http://127.0.0.1:8080/v1",
        "http://127.7.0.3/v1", "http://localhost:11434/v1", "http://LocalHost/v1", "http://[::1]:8000/v1"}) {
    SCOPED_TRACE(url);
    EXPECT_EQ(resolve_settings("openai/gpt-4o", key_and_url("OPENAI", url)).api_key, "sk-wire-SECRET");
  }
}

TEST(Settings, KeyOverPlainHttpToAnotherHostIsRefusedNamingTheUrlSettingAndTheFix) {
  for (const std::string url :
       {"http://gateway.example.com/v1", "http://10.0.0.7:8000/v1", "http://127.0.0.1.example.com/v1",
        "http://localhost.example.com/v1", "http://[::2]/v1", "ftp://gateway.example.com/v1"}) {
    SCOPED_TRACE(url);
    EXPECT_THAT(resolve_error("openai/gpt-4o", key_and_url("OPENAI", url)),
                AllOf(HasSubstr("OPENAI_BASE_URL=" + url), HasSubstr("OPENAI_API_KEY unencrypted"),
                      HasSubstr("https://"), HasSubstr("KERNELGEN_ALLOW_INSECURE_HTTP=1"),
                      Not(HasSubstr("sk-wire-SECRET"))));
  }
  EXPECT_THAT(
      resolve_error("anthropic/claude-sonnet-4-5", key_and_url("ANTHROPIC", "http://gateway.example.com")),
      AllOf(HasSubstr("ANTHROPIC_BASE_URL=http://gateway.example.com"), HasSubstr("ANTHROPIC_API_KEY")));
  EXPECT_THAT(resolve_error("gemini/gemini-2.5-flash",
                            key_and_url("GEMINI", "http://gateway.example.com/v1beta/openai")),
              AllOf(HasSubstr("GEMINI_BASE_URL=http://gateway.example.com/v1beta/openai"),
                    HasSubstr("GEMINI_API_KEY unencrypted"), Not(HasSubstr("sk-wire-SECRET"))));
}

// libcurl sends a URL without a scheme over plain http.
TEST(Settings, BaseUrlWithoutASchemeCountsAsPlainHttp) {
  EXPECT_THAT(resolve_error("openai/gpt-4o", key_and_url("OPENAI", "gateway.example.com/v1")),
              HasSubstr("OPENAI_API_KEY unencrypted (http) to gateway.example.com"));
}

TEST(Settings, BaseUrlThatIsNoUrlIsAnErrorWhenAKeyWouldGoThere) {
  EXPECT_THAT(resolve_error("openai/gpt-4o", key_and_url("OPENAI", "http://")),
              AllOf(HasSubstr("OPENAI_BASE_URL=http://"), HasSubstr("is not a URL")));
}

TEST(Settings, InsecureHttpOptInLetsTheKeyTravelOverPlainHttp) {
  SettingSources sources = key_and_url("OPENAI", "http://gpu-box.lan:8000/v1");
  sources.dotenv = {{"KERNELGEN_ALLOW_INSECURE_HTTP", "1"}};
  EXPECT_EQ(resolve_settings("openai/gpt-4o", sources).api_key, "sk-wire-SECRET");
  sources.dotenv = {{"KERNELGEN_ALLOW_INSECURE_HTTP", "0"}};
  EXPECT_THAT(resolve_error("openai/gpt-4o", sources), HasSubstr("KERNELGEN_ALLOW_INSECURE_HTTP=1"));
}

TEST(Settings, PlainHttpWithoutAKeyIsAllowedAnywhere) {
  SettingSources sources;
  sources.environment = environment({{"OPENAI_BASE_URL", "http://gpu-box.lan:8000/v1"}});
  EXPECT_EQ(resolve_settings("openai/qwen2.5-coder", sources).base_url, "http://gpu-box.lan:8000/v1");
}

// Credentials in a base URL would travel wherever the URL goes (command lines, CMakeCache.txt, messages):
// they are refused from every source, with or without a key, and the message names the setting, never the
// password.
TEST(Settings, BaseUrlHoldingCredentialsIsRefusedPointingToTheKeyVariable) {
  for (const std::string url :
       {"https://user:pass-SECRET@gateway.example.com/v1", "https://token-SECRET@gateway.example.com/v1",
        "http://u:p-SECRET@localhost:8000/v1", "user:pass-SECRET@gateway.example.com/v1"}) {
    SCOPED_TRACE(url);
    SettingSources from_environment;
    from_environment.environment = environment({{"OPENAI_BASE_URL", url}});
    SettingSources from_cmake;
    from_cmake.explicit_values = {{"OPENAI_BASE_URL", url}};
    SettingSources from_dotenv;
    from_dotenv.dotenv = {{"OPENAI_BASE_URL", url}, {"OPENAI_API_KEY", "sk-dotenv"}};
    for (const SettingSources* sources : {&from_environment, &from_cmake, &from_dotenv})
      EXPECT_THAT(resolve_error("openai/qwen2.5-coder", *sources),
                  AllOf(HasSubstr("OPENAI_BASE_URL holds credentials"),
                        HasSubstr("put the key in OPENAI_API_KEY"), Not(HasSubstr("SECRET"))));
  }
  EXPECT_THAT(resolve_error("anthropic/claude-sonnet-4-5",
                            key_and_url("ANTHROPIC", "https://me:pw-SECRET@gateway.example.com")),
              AllOf(HasSubstr("ANTHROPIC_BASE_URL holds credentials"), Not(HasSubstr("SECRET"))));
  EXPECT_EQ(resolve_settings("openai/gpt-4o", key_and_url("OPENAI", "https://gateway.example.com/v1?at=a@b"))
                .api_key,
            "sk-wire-SECRET")
      << "an @ after the host is no credential";
}

TEST(Settings, EveryApiKeyIsASecretAndNothingElse) {
  for (const char* name : {"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "MISTRAL_API_KEY"})
    EXPECT_TRUE(is_secret_setting(name)) << name;
  for (const char* name : {"OPENAI_BASE_URL", "GEMINI_BASE_URL", "KERNELGEN_MODEL",
                           "KERNELGEN_ALLOW_INSECURE_HTTP", "API_KEY_FILE", "_API_KEY_HINT"})
    EXPECT_FALSE(is_secret_setting(name)) << name;
}

TEST(Settings, UnknownProviderIsAnErrorListingTheKnownOnesAndTheLocalServerRoute) {
  EXPECT_THAT(resolve_error("ollama/qwen2.5-coder", {}),
              AllOf(HasSubstr("unknown provider 'ollama'"), HasSubstr("openai, anthropic, gemini and replay"),
                    HasSubstr("openai/<model> with OPENAI_BASE_URL")));
}

TEST(Settings, ModelWithoutProviderIsAnError) {
  for (const std::string model : {"gpt-4o", "/gpt-4o", "openai/", ""})
    EXPECT_THAT(resolve_error(model, {}), HasSubstr("provider/model")) << model;
}

TEST(Settings, ReplayModelNamesTheCassetteAndNeedsNoKey) {
  const ProviderSettings settings = resolve_settings("replay/tests/cassettes/relu.json", {});
  EXPECT_EQ(settings.provider, "replay");
  EXPECT_EQ(settings.cassette, "tests/cassettes/relu.json");
  EXPECT_EQ(settings.api_key, "");
}

TEST(Settings, OutputTokensAndTimeoutAreSettings) {
  SettingSources sources;
  sources.environment = environment({{"OPENAI_API_KEY", "sk-env"}});
  sources.explicit_values = {{"KERNELGEN_MAX_OUTPUT_TOKENS", "2048"}, {"KERNELGEN_TIMEOUT_S", "42.5"}};
  const ProviderSettings settings = resolve_settings("openai/gpt-4o", sources);
  EXPECT_EQ(settings.max_output_tokens, 2048);
  EXPECT_DOUBLE_EQ(settings.total_timeout_s, 42.5);
}

TEST(Settings, MalformedNumberNamesTheSetting) {
  SettingSources sources;
  sources.environment = environment({{"OPENAI_API_KEY", "sk-env"}});
  sources.explicit_values = {{"KERNELGEN_TIMEOUT_S", "ten"}};
  EXPECT_THAT(resolve_error("openai/gpt-4o", sources),
              AllOf(HasSubstr("KERNELGEN_TIMEOUT_S"), HasSubstr("ten")));
  sources.explicit_values = {{"KERNELGEN_MAX_OUTPUT_TOKENS", "lots"}};
  EXPECT_THAT(resolve_error("openai/gpt-4o", sources), HasSubstr("KERNELGEN_MAX_OUTPUT_TOKENS"));
}

TEST(Settings, ProcessEnvironmentReadsTheEnvironment) {
  ::setenv("KERNELGEN_SETTINGS_TEST_VARIABLE", "value", 1);
  EXPECT_EQ(process_environment("KERNELGEN_SETTINGS_TEST_VARIABLE"), "value");
  ::unsetenv("KERNELGEN_SETTINGS_TEST_VARIABLE");
  EXPECT_EQ(process_environment("KERNELGEN_SETTINGS_TEST_VARIABLE"), std::nullopt);
}

}  // namespace
}  // namespace kernelgen::llm
