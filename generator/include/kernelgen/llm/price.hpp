#pragma once
#include <map>
#include <optional>
#include <string>

#include "kernelgen/llm/types.hpp"

namespace kernelgen {

struct Price {
  double input_per_million = 0;
  double output_per_million = 0;
};

// model ("provider/model") -> price. The shipped table (generator/prices.json, embedded), with the entries
// of $KERNELGEN_PRICES (a file of the same format) on top.
using PriceTable = std::map<std::string, Price>;
PriceTable shipped_prices();
PriceTable parse_prices(const std::string& json_text);  // throws std::invalid_argument naming the bad entry
PriceTable load_prices();                              // shipped + $KERNELGEN_PRICES

// A budget in USD is kept by the cost the price table gives; for a model missing from it the budget would
// never be reached. Throws std::invalid_argument naming the model, the table and the fix; nothing when
// budget_usd is 0 (no budget).
void require_price_for_budget(const PriceTable& prices, const std::string& model, double budget_usd);

// USD for the usage, or nullopt when the model is not in the table: an unknown cost, never a guess.
std::optional<double> cost_usd(const PriceTable& prices, const std::string& model, const llm::Usage& usage);

}  // namespace kernelgen
