#include "kernelgen/llm/price.hpp"

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "embedded_text.hpp"
#include "kernelgen/store/files.hpp"

namespace kernelgen {

PriceTable parse_prices(const std::string& json_text) {
  const auto parsed = nlohmann::json::parse(json_text, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object() || !parsed.contains("models") || !parsed["models"].is_object())
    throw std::invalid_argument("price table: expected {\"models\": {\"provider/model\": {\"input\": x, \"output\": y}}}");
  PriceTable table;
  for (const auto& [model, price] : parsed["models"].items()) {
    if (!price.is_object() || !price.contains("input") || !price.contains("output") || !price["input"].is_number() ||
        !price["output"].is_number())
      throw std::invalid_argument("price table: " + model + " needs numeric input and output prices");
    table[model] = {price["input"].get<double>(), price["output"].get<double>()};
  }
  return table;
}

PriceTable shipped_prices() { return parse_prices(kShippedPrices); }

PriceTable load_prices() {
  PriceTable table = shipped_prices();
  if (const char* path = std::getenv("KERNELGEN_PRICES"); path && *path) {
    try {
      for (const auto& [model, price] : parse_prices(read_file(path))) table[model] = price;
    } catch (const std::exception& error) {
      throw std::invalid_argument(std::string("KERNELGEN_PRICES=") + path + ": " + error.what());
    }
  }
  return table;
}

void require_price_for_budget(const PriceTable& prices, const std::string& model, double budget_usd) {
  if (budget_usd <= 0 || prices.count(model)) return;
  char budget[32];
  std::snprintf(budget, sizeof budget, "%g", budget_usd);
  throw std::invalid_argument(std::string("BUDGET_USD ") + budget +
                              " cannot be kept: the price table has no price for " + model +
                              ", so the search's cost would stay unknown and never reach the budget. Add its "
                              "price in USD per million tokens to a file that KERNELGEN_PRICES names (on top "
                              "of generator/prices.json), e.g. {\"models\": {\"" +
                              model + "\": {\"input\": 0.5, \"output\": 1.5}}}, or drop BUDGET_USD");
}

std::optional<double> cost_usd(const PriceTable& prices, const std::string& model, const llm::Usage& usage) {
  auto found = prices.find(model);
  if (found == prices.end()) return std::nullopt;
  return (static_cast<double>(usage.prompt_tokens) * found->second.input_per_million +
          static_cast<double>(usage.completion_tokens) * found->second.output_per_million) /
         1e6;
}

}  // namespace kernelgen
