#pragma once
// The plain types a reference is called with, without Eigen: what the validator needs to call a reference.
#include <cstdint>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace kernelgen {

template <class T>
struct BasicTensorView {
  T* data = nullptr;
  std::vector<int64_t> shape;

  int64_t size() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }
  int64_t dim(size_t i) const {
    if (i >= shape.size())
      throw std::out_of_range("kernelgen: reference asked for dimension " + std::to_string(i) + " of a " +
                              std::to_string(shape.size()) + "-d tensor");
    return shape[i];
  }
};
using ConstTensorView = BasicTensorView<const float>;
using TensorView = BasicTensorView<float>;

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

}  // namespace kernelgen
#define KERNELGEN_REFERENCE_SIGNATURE(op)                                                                 \
  void kernelgen_reference_##op(std::span<const ::kernelgen::ConstTensorView> inputs,                   \
                                std::span<const ::kernelgen::TensorView> outputs,                       \
                                [[maybe_unused]] const ::kernelgen::Params& params)

#define KERNELGEN_REFERENCE(op)                                                                          \
  KERNELGEN_REFERENCE_SIGNATURE(op);                                                                     \
  static const ::kernelgen::ReferenceRegistration kernelgen_registration_##op(#op, &kernelgen_reference_##op); \
  KERNELGEN_REFERENCE_SIGNATURE(op)
