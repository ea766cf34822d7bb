#pragma once
#include <optional>
#include <string>

#include <span>
#include <vector>

#include "kernelgen/dim_expression.hpp"

namespace kernelgen {

// The grid a kernel.comp declares for itself on one line: `// kernelgen: dispatch X Y Z`, each extent an
// integer expression over the op's dims (`(rows + 63) / 64`). Returns nullopt and fills error when the line is
// missing, repeated or malformed, or, for an op without dims, when an extent is 0 or above 2^32-1.
std::optional<GridExpression> parse_dispatch_line(const std::string& source, std::span<const std::string> dims,
                                                  std::string* error);

}  // namespace kernelgen
