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

}  // namespace

void register_reference(const char* op, ReferenceFunction function) { registry()[op] = function; }

ReferenceFunction find_reference(const std::string& op) {
  auto found = registry().find(op);
  return found == registry().end() ? nullptr : found->second;
}

void register_terms(const char* op, ReferenceFunction function) { terms_registry()[op] = function; }

ReferenceFunction find_terms(const std::string& op) {
  auto found = terms_registry().find(op);
  return found == terms_registry().end() ? nullptr : found->second;
}

std::vector<std::string> registered_references() {
  std::vector<std::string> names;
  for (const auto& [name, function] : registry()) names.push_back(name);
  return names;
}

}  // namespace kernelgen
