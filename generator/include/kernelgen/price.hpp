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

// USD for the usage, or nullopt when the model is not in the table: an unknown cost, never a guess.
std::optional<double> cost_usd(const PriceTable& prices, const std::string& model, const llm::Usage& usage);

}  // namespace kernelgen
