#include "kernelgen/compile/tensor_extensions.hpp"

#include <map>
#include <mutex>

#include "kernelgen/compile/compile.hpp"
#include "kernelgen/device.hpp"

namespace kernelgen {

namespace {

struct Known {
  const char* vulkan;
  const char* glsl;
  const char* probe;  // a kernel's declarations and main() that use the GLSL extension
  const char* rules;  // TensorExtension::rules
};

// Each probe enables what its extension needs and declares a value of the extension's type: a glslang that does
// not know the extension stops at the #extension line or the type.
constexpr const char* kHeader =
    "#version 450\n"
    "#extension GL_KHR_memory_scope_semantics : require\n"
    "#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require\n";

const Known kKnown[] = {
    {"VK_NV_cooperative_matrix", "GL_NV_cooperative_matrix",
     "#extension GL_NV_cooperative_matrix : require\n"
     "layout(local_size_x = 32) in;\n"
     "void main() { fcoopmatNV<16, gl_ScopeSubgroup, 16, 8> m = fcoopmatNV<16, gl_ScopeSubgroup, 16, "
     "8>(0.0); }\n",
     "fcoopmatNV<16, gl_ScopeSubgroup, 16, 8> and its kin, one subgroup each; f16 products of 16x8x16, "
     "16x16x16 and 16x8x8 into f32 accumulators; coopMatLoadNV counts offset and stride in the buffer's "
     "element type"},
    {"VK_KHR_cooperative_matrix", "GL_KHR_cooperative_matrix",
     "#extension GL_KHR_cooperative_matrix : require\n"
     "layout(local_size_x = 32) in;\n"
     "void main() {\n"
     "  coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> m =\n"
     "      coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA>(0.0);\n"
     "}\n",
     "coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> (and gl_MatrixUseB, and float "
     "gl_MatrixUseAccumulator): 16x16x16 f16 products into f32 are the shape every vendor lists; "
     "coopMatLoad(m, buffer, offset, stride, gl_CooperativeMatrixLayoutRowMajor) counts offset and stride in "
     "the buffer's element type; a subgroup is not 32 wide everywhere (64 on AMD, 8 to 32 on Intel): divide "
     "the work by gl_NumSubgroups and gl_SubgroupID"},
    {"VK_NV_cooperative_matrix2", "GL_NV_cooperative_matrix2",
     "#extension GL_KHR_cooperative_matrix : require\n"
     "#extension GL_NV_cooperative_matrix2 : require\n"
     "layout(local_size_x = 32) in;\n"
     "void main() { tensorLayoutNV<2> layout2 = createTensorLayoutNV(2); }\n",
     "needs GL_KHR_cooperative_matrix too; coopmat<float16_t, gl_ScopeWorkgroup, 128, 32, gl_MatrixUseA> "
     "and kin are shared by the whole workgroup (128 or 256 invocations); coopMatLoadTensorNV and "
     "coopMatStoreTensorNV read and write the bindings straight through tensorLayoutNV<2> "
     "(setTensorLayoutDimensionNV(l, rows, cols), sliceTensorLayoutNV(l, row0, rows, col0, cols)); layouts "
     "of "
     "gl_CooperativeMatrixClampModeConstantNV read 0 past a tensor's edge and drop stores outside it, so "
     "ragged tiles need no guards; on tiles wholly inside, an unclamped layout given "
     "setTensorLayoutStrideNV(l, stride & ~7u, 1) where stride % 8 == 0 tells the compiler every row is "
     "16-byte aligned, without which loads are narrow and several times slower, and so does a slice offset "
     "the compiler sees is a multiple of 8 (a k loop from begin & ~7u where begin % 8 == 0, not from begin); "
     "createTensorViewNV(2, false, "
     "1, 0) loads the transpose (w^T from [out, in] weights); epilogues through "
     "coopMatPerElementNV(result, m, f, args...) with f(uint row, uint col, float element, args...), or "
     "element i < m.length() of matrices of one type; row reductions through coopMatReduceNV"},
    {"VK_KHR_shader_bfloat16", "GL_EXT_bfloat16",
     "#extension GL_EXT_bfloat16 : require\n"
     "layout(local_size_x = 32) in;\n"
     "void main() { bfloat16_t x = bfloat16_t(1.0); }\n",
     ""},
    {"VK_NV_cooperative_vector", "GL_NV_cooperative_vector",
     "#extension GL_NV_cooperative_vector : require\n"
     "layout(local_size_x = 32) in;\n"
     "void main() { coopvecNV<float16_t, 16> v = coopvecNV<float16_t, 16>(0.0); }\n",
     ""},
};

}  // namespace

bool glsl_extension_compiles(const std::string& glsl_extension) {
  static std::mutex mutex;
  static std::map<std::string, bool> probed;
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto found = probed.find(glsl_extension); found != probed.end()) return found->second;
  bool compiles = false;
  for (const Known& known : kKnown)
    if (glsl_extension == known.glsl) compiles = compile_glsl(std::string(kHeader) + known.probe).ok;
  probed[glsl_extension] = compiles;
  return compiles;
}

std::vector<TensorExtension> tensor_extensions(const DeviceInfo& device) {
  std::vector<TensorExtension> extensions;
  for (const Known& known : kKnown) {
    TensorExtension extension{
        known.vulkan, known.glsl, has_extension(device, known.vulkan), glsl_extension_compiles(known.glsl),
        false,        known.rules};
    // The runtime enables these extensions' features where the device has them (kernelgen/device.hpp); a
    // cooperative_matrix2 kernel needs at least its tensor-addressed loads and workgroup-scope matrices.
    const DeviceFeatures& has = device.features;
    if (extension.vulkan == "VK_NV_cooperative_matrix") extension.runtime_enables = has.cooperative_matrix_nv;
    if (extension.vulkan == "VK_KHR_cooperative_matrix")
      extension.runtime_enables = has.cooperative_matrix_khr;
    if (extension.vulkan == "VK_NV_cooperative_matrix2")
      extension.runtime_enables = has.cooperative_matrix_khr && has.cooperative_matrix_tensor_addressing &&
                                  has.cooperative_matrix_workgroup_scope;
    extensions.push_back(extension);
  }
  return extensions;
}

}  // namespace kernelgen
