#include "kernelgen/contract/reference_module.hpp"

#include <dlfcn.h>

#include <stdexcept>

namespace kernelgen {

std::filesystem::path default_reference_module(const std::filesystem::path& spec_path) {
  return spec_path.parent_path() / "reference.so";
}

ReferenceFunction load_reference(const std::filesystem::path& module, const std::string& op) {
  const std::string where = "op '" + op + "': reference module " + module.string();
  const std::string fix = "kernelgen_add_op(" + op + ") builds it as the target kernelgen_reference_module_" +
                          op + ", at <build>/kernelgen/" + op +
                          "/reference.so; build that, and give it with --reference";
  if (module.empty()) throw std::runtime_error("op '" + op + "': no reference module given. " + fix);
  if (!std::filesystem::is_regular_file(module)) throw std::runtime_error(where + " does not exist. " + fix);
  // An absolute path, since dlopen looks a bare file name up in the library search path. RTLD_NOW: a symbol
  // the module needs and the tool lacks is an error here, naming it, not a crash later. Never closed: the
  // registry keeps pointers into it.
  if (!::dlopen(std::filesystem::absolute(module).c_str(), RTLD_NOW | RTLD_LOCAL)) {
    const char* error = ::dlerror();
    throw std::runtime_error(where + " cannot be loaded: " + (error ? error : "unknown error"));
  }
  if (const ReferenceFunction reference = find_reference(op)) return reference;
  std::string known;
  for (const std::string& name : registered_references()) known += (known.empty() ? "" : ", ") + name;
  throw std::runtime_error(
      where + " registers no reference for the op (references known: " + (known.empty() ? "none" : known) +
      "); its reference.cpp must define KERNELGEN_REFERENCE(" + op + ") { ... }");
}

}  // namespace kernelgen
