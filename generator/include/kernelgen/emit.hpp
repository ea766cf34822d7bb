#pragma once
#include <string>

#include "kernelgen/manifest.hpp"
#include "kernelgen/contract/op_spec.hpp"

namespace kernelgen {

// The C++ source that embeds a checked-in kernel into the op's wrapper library: the SPIR-V words and the
// dispatch grid, as definitions of the wrapper class's static spirv() and grid().
std::string emit_kernel_data(const OpSpec& spec, const GeneratedKernel& kernel);

}  // namespace kernelgen
