// The cost of a completion from the shipped price table, its override, and an unknown model's cost.
#include "kernelgen/llm/price.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <stdexcept>

#include "generator/scratch_dir.hpp"
#include "runtime/scoped_env.hpp"

namespace kernelgen {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

std::string parse_error(const std::string& text) {
  try {
    parse_prices(text);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  ADD_FAILURE() << "parse_prices accepted " << text;
  return "";
}

TEST(Price, CostOfAKnownModelIsPricePerMillionTokens) {
  const PriceTable prices = shipped_prices();
  ASSERT_TRUE(prices.count("openai/gpt-4o"));
  llm::Usage usage;
  usage.prompt_tokens = 1'000'000;
  usage.completion_tokens = 500'000;
  // gpt-4o: $2.50 in, $10.00 out per million tokens.
  EXPECT_NEAR(*cost_usd(prices, "openai/gpt-4o", usage), 2.50 + 5.00, 1e-9);
}

TEST(Price, ReasoningTokensArePaidAsPartOfCompletionTokens) {
  const PriceTable prices = {{"openai/o3", {2.0, 8.0}}};
  llm::Usage usage;
  usage.prompt_tokens = 1000;
  usage.completion_tokens = 3000;
  usage.reasoning_tokens = 2500;
  EXPECT_NEAR(*cost_usd(prices, "openai/o3", usage), (1000 * 2.0 + 3000 * 8.0) / 1e6, 1e-12);
}

TEST(Price, ShippedTableCoversEveryProvider) {
  const PriceTable prices = shipped_prices();
  EXPECT_TRUE(prices.count("openai/gpt-4o-mini"));
  EXPECT_TRUE(prices.count("anthropic/claude-sonnet-4-5"));
  EXPECT_TRUE(prices.count("gemini/gemini-2.5-flash"));
}

TEST(Price, GeminiIsPricedUnderTheModelStringAUserWrites) {
  llm::Usage usage;
  usage.prompt_tokens = 1'000'000;
  usage.completion_tokens = 1'000'000;
  // gemini-2.5-flash: $0.30 in, $2.50 out per million tokens.
  EXPECT_NEAR(*cost_usd(shipped_prices(), "gemini/gemini-2.5-flash", usage), 0.30 + 2.50, 1e-9);
}

TEST(Price, UnknownModelHasUnknownCost) {
  EXPECT_EQ(cost_usd(shipped_prices(), "openai/qwen2.5-coder", {10, 10, 0}), std::nullopt);
  EXPECT_EQ(cost_usd({}, "openai/gpt-4o", {10, 10, 0}), std::nullopt);
}

TEST(Price, BudgetForAnUnpricedModelIsAnErrorNamingTheModelTheTableAndTheFix) {
  try {
    require_price_for_budget(shipped_prices(), "openai/qwen2.5-coder", 0.5);
    FAIL() << "a budget was accepted for a model without a price";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(),
                AllOf(HasSubstr("BUDGET_USD 0.5"), HasSubstr("no price for openai/qwen2.5-coder"),
                      HasSubstr("KERNELGEN_PRICES"), HasSubstr("generator/prices.json"),
                      HasSubstr(R"("openai/qwen2.5-coder": {"input")"), HasSubstr("drop BUDGET_USD")));
  }
}

TEST(Price, BudgetForAPricedModelOrNoBudgetIsFine) {
  EXPECT_NO_THROW(require_price_for_budget(shipped_prices(), "openai/gpt-4o", 0.5));
  EXPECT_NO_THROW(require_price_for_budget({{"openai/local", {0, 0}}}, "openai/local", 0.5));
  EXPECT_NO_THROW(require_price_for_budget(shipped_prices(), "openai/qwen2.5-coder", 0));
}

TEST(Price, ParsesATable) {
  const PriceTable table = parse_prices(R"({"models": {"openai/local": {"input": 0, "output": 0.5}}})");
  ASSERT_EQ(table.size(), 1u);
  EXPECT_DOUBLE_EQ(table.at("openai/local").input_per_million, 0);
  EXPECT_DOUBLE_EQ(table.at("openai/local").output_per_million, 0.5);
}

TEST(Price, MalformedTableIsAnErrorNamingTheEntry) {
  EXPECT_THAT(parse_error("not json"), HasSubstr("models"));
  EXPECT_THAT(parse_error(R"({"prices": {}})"), HasSubstr("models"));
  EXPECT_THAT(parse_error(R"({"models": {"openai/x": {"input": "cheap", "output": 1}}})"),
              HasSubstr("openai/x"));
  EXPECT_THAT(parse_error(R"({"models": {"openai/y": {"input": 1}}})"), HasSubstr("openai/y"));
}

TEST(Price, OverrideFileAddsAndReplacesShippedEntries) {
  test::ScratchDir dir;
  const auto path = dir.path() / "prices.json";
  std::ofstream(path)
      << R"({"models": {"openai/gpt-4o": {"input": 1, "output": 2}, "openai/local": {"input": 0, "output": 0}}})";
  test::ScopedEnv env("KERNELGEN_PRICES", path.c_str());
  const PriceTable prices = load_prices();
  EXPECT_DOUBLE_EQ(prices.at("openai/gpt-4o").input_per_million, 1);
  EXPECT_DOUBLE_EQ(prices.at("openai/gpt-4o").output_per_million, 2);
  EXPECT_TRUE(prices.count("openai/local"));
  EXPECT_TRUE(prices.count("anthropic/claude-sonnet-4-5"));
}

TEST(Price, MalformedOverrideFileIsAnErrorNamingTheFile) {
  test::ScratchDir dir;
  const auto path = dir.path() / "prices.json";
  std::ofstream(path) << R"({"models": {"openai/gpt-4o": {"input": "free"}}})";
  test::ScopedEnv env("KERNELGEN_PRICES", path.c_str());
  try {
    load_prices();
    FAIL() << "load_prices accepted a malformed override";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(),
                AllOf(HasSubstr("KERNELGEN_PRICES"), HasSubstr(path.string()), HasSubstr("openai/gpt-4o")));
  }
}

TEST(Price, WithoutOverrideTheShippedTableIsUsed) {
  test::ScopedEnv env("KERNELGEN_PRICES", nullptr);
  EXPECT_EQ(load_prices().size(), shipped_prices().size());
}

}  // namespace
}  // namespace kernelgen
