#pragma once
// The plain types a reference is called with, without Eigen: what the validator needs to call a reference.
#include <cstdint>
#include <map>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <string>
#include <vector>

#include "kernelgen/dtype.hpp"

namespace kernelgen {

// A tensor's memory as the reference sees it: its name, dtype, data and shape (row-major).
template <class Byte>
struct BasicTensorView {
  std::string name;
  DType dtype = DType::f32;
  Byte* data = nullptr;  // dtype_bytes(dtype) * size() bytes
  std::vector<int64_t> shape;

  int64_t size() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }
  int64_t dim(size_t i) const {
    if (i >= shape.size())
      throw std::out_of_range("kernelgen: reference asked for dimension " + std::to_string(i) + " of " + name +
                              ", a " + std::to_string(shape.size()) + "-d tensor");
    return shape[i];
  }
  // The elements as T, which must be the storage type of the tensor's dtype (float for f32, int32_t for i32,
  // Eigen::half for f16 and Eigen::bfloat16 for bf16 through kernelgen/reference.hpp).
  template <class T>
  auto as() const {
    check(DTypeOf<std::remove_const_t<T>>::value);
    using Element = std::conditional_t<std::is_const_v<Byte>, const std::remove_const_t<T>, std::remove_const_t<T>>;
    return reinterpret_cast<Element*>(data);
  }
  void check(DType wanted) const {
    if (wanted != dtype)
      throw std::invalid_argument("kernelgen: the reference reads tensor " + name + " as " +
                                  std::string(dtype_name(wanted)) + ", but it is declared " +
                                  std::string(dtype_name(dtype)) + "; read it with the matching type (e.g. " +
                                  "kernelgen::as_array<int32_t>(t) for i32, <Eigen::half> for f16)");
  }
};
using ConstTensorView = BasicTensorView<const void>;
using TensorView = BasicTensorView<void>;

// Hyperparameters, by name.
class Params {
 public:
  Params() = default;
  explicit Params(std::map<std::string, double> values) : values_(std::move(values)) {}
  double get(const std::string& name) const {
    auto found = values_.find(name);
    if (found == values_.end())
      throw std::out_of_range("kernelgen: the reference reads PARAMS " + name +
                              ", which the op's declaration does not set");
    return found->second;
  }
  int64_t get_int(const std::string& name) const { return static_cast<int64_t>(get(name)); }
  const std::map<std::string, double>& values() const { return values_; }

 private:
  std::map<std::string, double> values_;
};

using ReferenceFunction = void (*)(std::span<const ConstTensorView> inputs, std::span<const TensorView> outputs,
                                   const Params& params);

// Registration, so the generator tool finds a reference by op name.
void register_reference(const char* op, ReferenceFunction function);
ReferenceFunction find_reference(const std::string& op);
std::vector<std::string> registered_references();

struct ReferenceRegistration {
  ReferenceRegistration(const char* op, ReferenceFunction function) { register_reference(op, function); }
};

// An op's terms: for each output element, the magnitude its rounding error grows with, which validation scales
// rtol by (docs/validation.md). By default validation runs the reference again on the inputs' absolute values; a
// reference whose error grows otherwise (a softmax over computed scores, where near-equal scores amplify their
// rounding) defines KERNELGEN_TERMS(op) beside KERNELGEN_REFERENCE(op), called with the same inputs and writing
// the terms into outputs of the same shapes.
void register_terms(const char* op, ReferenceFunction function);
ReferenceFunction find_terms(const std::string& op);

struct TermsRegistration {
  TermsRegistration(const char* op, ReferenceFunction function) { register_terms(op, function); }
};

}  // namespace kernelgen
// The signature of an op's reference and of its terms: `function` is kernelgen_reference_<op> or
// kernelgen_terms_<op>.
#define KERNELGEN_OP_FUNCTION_SIGNATURE(function)                                                         \
  void function(std::span<const ::kernelgen::ConstTensorView> inputs,                                   \
                std::span<const ::kernelgen::TensorView> outputs,                                       \
                [[maybe_unused]] const ::kernelgen::Params& params)

// The reference's own (an op's generated test declares it).
#define KERNELGEN_REFERENCE_SIGNATURE(op) KERNELGEN_OP_FUNCTION_SIGNATURE(kernelgen_reference_##op)

#define KERNELGEN_REFERENCE(op)                                                                          \
  KERNELGEN_REFERENCE_SIGNATURE(op);                                                                     \
  static const ::kernelgen::ReferenceRegistration kernelgen_registration_##op(#op, &kernelgen_reference_##op); \
  KERNELGEN_REFERENCE_SIGNATURE(op)

#define KERNELGEN_TERMS(op)                                                                              \
  KERNELGEN_OP_FUNCTION_SIGNATURE(kernelgen_terms_##op);                                                 \
  static const ::kernelgen::TermsRegistration kernelgen_terms_registration_##op(#op, &kernelgen_terms_##op); \
  KERNELGEN_OP_FUNCTION_SIGNATURE(kernelgen_terms_##op)
