#include <map>

#include "kernelgen/reference_types.hpp"

namespace kernelgen {

namespace {

// References register during static initialisation, before main; a function-local map is initialised on
// first use, whatever the order of the translation units.
std::map<std::string, ReferenceFunction>& registry() {
  static std::map<std::string, ReferenceFunction> functions;
  return functions;
}

std::map<std::string, ReferenceFunction>& terms_registry() {
  static std::map<std::string, ReferenceFunction> functions;
  return functions;
}

ReferenceFunction find_in(const std::map<std::string, ReferenceFunction>& functions, const std::string& op) {
  auto found = functions.find(op);
  return found == functions.end() ? nullptr : found->second;
}

}  // namespace

void register_reference(const char* op, ReferenceFunction function) { registry()[op] = function; }

ReferenceFunction find_reference(const std::string& op) { return find_in(registry(), op); }

void register_terms(const char* op, ReferenceFunction function) { terms_registry()[op] = function; }

ReferenceFunction find_terms(const std::string& op) { return find_in(terms_registry(), op); }

std::vector<std::string> registered_references() {
  std::vector<std::string> names;
  for (const auto& [name, function] : registry()) names.push_back(name);
  return names;
}

}  // namespace kernelgen
