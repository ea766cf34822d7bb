#include "kernelgen/contract/dims_override.hpp"

#include <charconv>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace kernelgen {

namespace {

std::string dim_names(const nlohmann::json& dims) {
  std::string names;
  for (const auto& item : dims.items()) names += (names.empty() ? "" : ", ") + item.key();
  return names.empty() ? "none" : names;
}

int64_t positive_size(const std::string& option, const std::string& setting, const std::string& text) {
  int64_t size = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), size);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || size < 1)
    throw std::invalid_argument(option + " " + setting + ": '" + text +
                                "' is not a positive integer; give each size as digits, e.g. m=1,7,130");
  return size;
}

// Each of `settings` (NAME=size[,size...], as `option` takes them) checked against the op's dims and handed
// to `take` as the dim's name and its sizes.
template <typename Take>
void for_each_setting(const nlohmann::json& spec, const std::vector<std::string>& settings,
                      const std::string& option, Take take) {
  if (!spec.is_object())
    throw std::invalid_argument(option + ": the spec is not a JSON object, so it has no dims");
  nlohmann::json dims = spec.value("dims", nlohmann::json::object());
  if (!dims.is_object()) dims = nlohmann::json::object();
  std::set<std::string> named;
  for (const std::string& setting : settings) {
    const size_t equals = setting.find('=');
    if (equals == std::string::npos || equals == 0 || equals + 1 == setting.size())
      throw std::invalid_argument(option + " " + setting +
                                  ": expected NAME=size[,size...], e.g. k=4096 or m=1,7,130");
    const std::string name = setting.substr(0, equals);
    if (!dims.contains(name))
      throw std::invalid_argument(option + " " + setting + ": op '" + spec.value("name", std::string()) +
                                  "' has no dim '" + name + "' (its dims: " + dim_names(dims) + ")");
    if (!named.insert(name).second)
      throw std::invalid_argument(option + " " + setting + ": dim '" + name +
                                  "' is named twice; list all its sizes in one setting, e.g. " + name +
                                  "=1,130");
    std::vector<int64_t> sizes;
    const std::string list = setting.substr(equals + 1);
    for (size_t start = 0; start <= list.size();) {
      const size_t comma = std::min(list.find(',', start), list.size());
      sizes.push_back(positive_size(option, setting, list.substr(start, comma - start)));
      start = comma + 1;
    }
    take(name, setting, sizes);
  }
}

}  // namespace

nlohmann::json with_dims(nlohmann::json spec, const std::vector<std::string>& settings) {
  if (settings.empty()) return spec;
  for_each_setting(spec, settings, "--dims",
                   [&](const std::string& name, const std::string&, const std::vector<int64_t>& sizes) {
                     spec["dims"][name] = sizes;
                   });
  return spec;
}

nlohmann::json with_timed_dims(nlohmann::json spec, const std::vector<std::string>& settings) {
  if (settings.empty()) return spec;
  for_each_setting(
      spec, settings, "--timed-dims",
      [&](const std::string& name, const std::string& setting, const std::vector<int64_t>& sizes) {
        if (sizes.size() != 1)
          throw std::invalid_argument("--timed-dims " + setting +
                                      ": an op is timed at one size a dim; give one, e.g. " + name + "=" +
                                      std::to_string(sizes.back()));
        spec["bench_dims"][name] = sizes.front();
        spec["cpu_bench_dims"][name] = sizes.front();
      });
  return spec;
}

}  // namespace kernelgen
