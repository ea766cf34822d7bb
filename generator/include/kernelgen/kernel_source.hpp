#pragma once
#include <optional>
#include <string>

#include "kernelgen/kernel.hpp"

namespace kernelgen {

// The grid a kernel.comp declares for itself on one line: `// kernelgen: dispatch X Y Z`.
// Returns nullopt and fills error when the line is missing, repeated or malformed.
std::optional<Grid> parse_dispatch_line(const std::string& source, std::string* error);

}  // namespace kernelgen
