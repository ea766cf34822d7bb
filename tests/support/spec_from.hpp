#pragma once
// An op spec from the JSON text of a test, for the tests that declare their own ops.
#include <nlohmann/json.hpp>

#include "kernelgen/contract/op_spec.hpp"

namespace kernelgen::test {

inline OpSpec spec_from(const char* text) {
  return parse_op_spec(nlohmann::json::parse(text));
}

}  // namespace kernelgen::test
