#include "kernelgen/contract/dims_override.hpp"

#include <charconv>
#include <set>
#include <stdexcept>

namespace kernelgen {

namespace {

std::string dim_names(const nlohmann::json& dims) {
  std::string names;
  for (const auto& item : dims.items()) names += (names.empty() ? "" : ", ") + item.key();
  return names.empty() ? "none" : names;
}

int64_t positive_size(const std::string& setting, const std::string& text) {
  int64_t size = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), size);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || size < 1)
    throw std::invalid_argument("--dims " + setting + ": '" + text +
                                "' is not a positive integer; give each size as digits, e.g. m=1,7,130");
  return size;
}

}  // namespace

nlohmann::json with_dims(nlohmann::json spec, const std::vector<std::string>& settings) {
  if (settings.empty()) return spec;
  if (!spec.is_object()) throw std::invalid_argument("--dims: the spec is not a JSON object, so it has no dims");
  nlohmann::json& dims = spec["dims"];
  if (!dims.is_object()) dims = nlohmann::json::object();
  std::set<std::string> named;
  for (const std::string& setting : settings) {
    const size_t equals = setting.find('=');
    if (equals == std::string::npos || equals == 0 || equals + 1 == setting.size())
      throw std::invalid_argument("--dims " + setting + ": expected NAME=size[,size...], e.g. k=4096 or m=1,7,130");
    const std::string name = setting.substr(0, equals);
    if (!dims.contains(name))
      throw std::invalid_argument("--dims " + setting + ": op '" + spec.value("name", std::string()) +
                                  "' has no dim '" + name + "' (its dims: " + dim_names(dims) + ")");
    if (!named.insert(name).second)
      throw std::invalid_argument("--dims " + setting + ": dim '" + name +
                                  "' is named twice; list all its sizes in one setting, e.g. " + name + "=1,130");
    nlohmann::json sizes = nlohmann::json::array();
    const std::string list = setting.substr(equals + 1);
    for (size_t start = 0; start <= list.size();) {
      const size_t comma = std::min(list.find(',', start), list.size());
      sizes.push_back(positive_size(setting, list.substr(start, comma - start)));
      start = comma + 1;
    }
    dims[name] = sizes;
  }
  return spec;
}

}  // namespace kernelgen
