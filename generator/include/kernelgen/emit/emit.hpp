#pragma once
#include <span>
#include <string>

#include "kernelgen/contract/op_spec.hpp"
#include "kernelgen/store/manifest.hpp"

namespace kernelgen {

// A checked-in variant (VARIANTS name=...): generated/<op>/variants/<name>/.
struct CheckedInVariant {
  std::string name;
  GeneratedKernel kernel;
};

// The C++ source that embeds a checked-in kernel into the op's wrapper library: the SPIR-V words and the
// dispatch grid, as definitions of the wrapper class's static spirv() and grid(), and its variants' words and
// dispatch lines as variants().
std::string emit_kernel_data(const OpSpec& spec, const GeneratedKernel& kernel,
                             std::span<const CheckedInVariant> variants = {});

}  // namespace kernelgen
