#pragma once
// An op's reference, loaded at run time. kernelgen_add_op builds each op's reference.cpp as a module of its
// own, <build>/kernelgen/<op>/reference.so, so that the one kernelgen tool, installed or built, serves every
// op of every project: the tool exports its symbols, and the module's KERNELGEN_REFERENCE registers into the
// tool's registry when it is loaded. A changed reference relinks its own module and re-runs its own op's
// step.
#include <filesystem>
#include <string>

#include "kernelgen/reference_types.hpp"

namespace kernelgen {

// Where kernelgen_add_op builds the op's module: reference.so beside the op's spec.json.
std::filesystem::path default_reference_module(const std::filesystem::path& spec_path);

// Loads `module` into this process (once; it stays loaded) and returns the reference it registers for `op`.
// Throws std::runtime_error naming the module and the op when the module is missing, cannot be loaded, or
// registers no reference for the op.
ReferenceFunction load_reference(const std::filesystem::path& module, const std::string& op);

}  // namespace kernelgen
