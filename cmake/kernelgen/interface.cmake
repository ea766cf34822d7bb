# The generated wrapper's C++ interface, known at configure time: the KG_ variables that cmake/templates/*.in use.
include_guard(GLOBAL)

# The C++ fragments of the wrapper's interface for the `tensors`, in binding order. Constant tensors get
# constants; a tensor with dims gets functions of the call's Dims, whose sizes are checked for overflow. Sets the
# templates' KG_TENSOR_CONSTANTS, KG_TYPED_PARAMS, KG_TYPED_ADDRESSES, KG_TYPED_CALL, KG_OP_TENSORS (the call's
# OpTensor list), KG_BINDING_COUNT (the caller's buffers), KG_SCRATCH_COUNT and KG_SCRATCH_BYTES (the bytes of
# each scratch tensor, C++ expressions over the call's dims).
function(_kernelgen_tensor_interface)
  set(constants "")
  set(typed_params "")
  set(typed_addresses "")
  set(typed_call "")
  set(op_tensors "")
  set(scratch_bytes "")
  set(binding 0)
  foreach(entry IN LISTS tensors)
    string(REPLACE "|" ";" fields "${entry}")
    list(POP_FRONT fields kind tensor dtype extents)
    string(REPLACE "," ";" extents "${extents}")
    list(LENGTH extents rank)
    set(element_bytes "${_KERNELGEN_DTYPE_${dtype}_BYTES}")
    string(REPLACE ";" " * " product "${extents}")
    _kernelgen_substitute_dims("${product}" "${dims}" "${bench_values}" bench_elements)
    math(EXPR bench_bytes "(${bench_elements}) * ${element_bytes}")
    set(symbolic OFF)
    foreach(extent IN LISTS extents)
      if(extent IN_LIST dims)
        set(symbolic ON)
      endif()
    endforeach()
    string(REPLACE ";" "," extents_text "${extents}")
    string(APPEND constants "  // ${tensor}: ${dtype}[${extents_text}], elements of ${_KERNELGEN_DTYPE_${dtype}_TYPE}\n")
    if(symbolic)
      string(REPLACE ";" ", " extents_cpp "${extents}")
      _kernelgen_substitute_dims("${extents_cpp}" "${dims}" "" extents_cpp)
      string(REGEX REPLACE "std::size_t\\{([^}]*)\\}" "int64_t{\\1}" extents_cpp "${extents_cpp}")
      set(declaration "\"${tensor}:${dtype}[${extents_text}]\"")
      string(APPEND constants
        "  static std::array<int64_t, ${rank}> ${tensor}_shape(const Dims& dims) { return {${extents_cpp}}; }\n"
        "  static std::size_t ${tensor}_elements(const Dims& dims) {\n"
        "    return kernelgen::tensor_elements(name, ${declaration}, ${tensor}_shape(dims));\n"
        "  }\n"
        "  static std::size_t ${tensor}_bytes(const Dims& dims) {\n"
        "    return kernelgen::tensor_bytes(name, ${declaration}, ${tensor}_shape(dims), ${element_bytes});\n"
        "  }\n")
      set(bytes_cpp "${tensor}_bytes(dims)")
    else()
      string(REPLACE ";" ", " extents_cpp "${extents}")
      math(EXPR elements "${bench_elements}")
      string(APPEND constants
        "  static constexpr std::array<int64_t, ${rank}> ${tensor}_shape{${extents_cpp}};\n"
        "  static constexpr std::size_t ${tensor}_elements = ${elements};\n"
        "  static constexpr std::size_t ${tensor}_bytes = ${bench_bytes};\n")
      set(bytes_cpp "${tensor}_bytes")
    endif()
    if(kind STREQUAL "SCRATCH")
      list(APPEND scratch_bytes "${bytes_cpp}")
      continue()  # the wrapper's own, after the caller's
    elseif(kind STREQUAL "INPUTS")
      list(APPEND typed_params "const Buffer& ${tensor}")
      list(APPEND op_tensors "{\"${tensor}\", false, ${bytes_cpp}}")
    else()
      list(APPEND typed_params "Buffer& ${tensor}")
      list(APPEND op_tensors "{\"${tensor}\", true, ${bytes_cpp}}")
    endif()
    list(APPEND typed_addresses "&${tensor}")
    list(APPEND typed_call "b[${binding}]")
    math(EXPR binding "${binding} + 1")
  endforeach()
  set(KG_TENSOR_CONSTANTS "${constants}")
  string(REPLACE ";" ", " KG_TYPED_PARAMS "${typed_params}")
  string(REPLACE ";" ", " KG_TYPED_ADDRESSES "${typed_addresses}")
  string(REPLACE ";" ", " KG_TYPED_CALL "${typed_call}")
  string(REPLACE ";" ", " KG_OP_TENSORS "${op_tensors}")
  set(KG_BINDING_COUNT ${binding})
  list(LENGTH scratch_bytes KG_SCRATCH_COUNT)
  string(REPLACE ";" ", " KG_SCRATCH_BYTES "${scratch_bytes}")
  _kernelgen_propagate(KG_TENSOR_CONSTANTS KG_TYPED_PARAMS KG_TYPED_ADDRESSES KG_TYPED_CALL KG_OP_TENSORS
    KG_BINDING_COUNT KG_SCRATCH_COUNT KG_SCRATCH_BYTES)
endfunction()

# The templates' variables that the op as a whole decides: KG_OP, KG_GENERATED_DIR, KG_DESCRIPTION (on one
# line, without trailing backslashes: op.hpp.in puts it in a // comment, which a final backslash would continue
# onto the next line of the header) and KG_SPEC_JSON.
function(_kernelgen_op_interface)
  set(KG_OP "${name}")
  set(KG_GENERATED_DIR "${generated_dir}")
  string(REGEX REPLACE "[\r\n]+" " " KG_DESCRIPTION "${KG_DESCRIPTION}")
  string(REGEX REPLACE "[\\ \t]+$" "" KG_DESCRIPTION "${KG_DESCRIPTION}")
  set(KG_SPEC_JSON "${spec}")
  _kernelgen_propagate(KG_OP KG_GENERATED_DIR KG_DESCRIPTION KG_SPEC_JSON)
endfunction()

# Dims, the struct the wrapper's calls take first, and the templates' variables that declare and pass it: sets
# KG_DIM_COUNT, KG_DIMS_DECLARATION, KG_DIMS_PARAM, KG_DIMS_PARAM_COMMA, KG_DIMS_ARG_COMMA, KG_GRID_CALL,
# KG_DIMS_OR_EMPTY, KG_DIM_WORDS, KG_DIMS_CHECK and KG_DIMS_FROM_VALUES. None of it for an op without
# dims, whose API is contract 1's.
function(_kernelgen_dims_interface)
  list(LENGTH dims KG_DIM_COUNT)
  if(NOT dims STREQUAL "")
    set(fields "")
    set(values "")
    set(names_cpp "")
    set(from_values "")
    set(index 0)
    foreach(dim IN LISTS dims)
      string(APPEND fields "    uint32_t ${dim} = 0;\n")
      list(APPEND values "dims.${dim}")
      list(APPEND names_cpp "\"${dim}\"")
      list(APPEND from_values "static_cast<uint32_t>(values[${index}])")
      math(EXPR index "${index} + 1")
    endforeach()
    string(REPLACE ";" ", " values "${values}")
    string(REPLACE ";" ", " names_cpp "${names_cpp}")
    string(REPLACE ";" ", " from_values "${from_values}")
    string(CONCAT KG_DIMS_DECLARATION
      "  // The symbolic dims, given with every call; the kernel receives them as push constants in this order.\n"
      "  struct Dims {\n${fields}  };\n"
      "  static constexpr std::array<const char*, ${KG_DIM_COUNT}> dim_names{${names_cpp}};\n"
      "  static std::array<int64_t, ${KG_DIM_COUNT}> dim_values(const Dims& dims) { return {${values}}; }\n"
      "  static std::array<uint32_t, ${KG_DIM_COUNT}> dim_words(const Dims& dims) { return {${values}}; }\n")
    set(KG_DIMS_PARAM "const Dims& dims")
    set(KG_DIMS_PARAM_COMMA "const Dims& dims, ")
    set(KG_DIMS_ARG_COMMA "dims, ")
    set(KG_GRID_CALL "grid(dims)")
    set(KG_DIMS_OR_EMPTY "dims")
    set(KG_DIM_WORDS "dim_words(dims)")
    set(KG_DIMS_CHECK "  check_dims(dims);\n")
    set(KG_DIMS_FROM_VALUES "{${from_values}}")
  else()
    string(CONCAT KG_DIMS_DECLARATION
      "  struct Dims {};  // the op has no symbolic dims\n"
      "  static constexpr std::array<const char*, 0> dim_names{};\n"
      "  static std::array<int64_t, 0> dim_values(const Dims&) { return {}; }\n"
      "  static std::array<uint32_t, 0> dim_words(const Dims&) { return {}; }\n")
    set(KG_DIMS_PARAM "")
    set(KG_DIMS_PARAM_COMMA "")
    set(KG_DIMS_ARG_COMMA "")
    set(KG_GRID_CALL "grid()")
    set(KG_DIMS_OR_EMPTY "Dims{}")
    set(KG_DIM_WORDS "dim_words(Dims{})")
    set(KG_DIMS_CHECK "")
    set(KG_DIMS_FROM_VALUES "{}")
  endif()
  _kernelgen_propagate(KG_DIM_COUNT KG_DIMS_DECLARATION KG_DIMS_PARAM KG_DIMS_PARAM_COMMA KG_DIMS_ARG_COMMA
    KG_GRID_CALL KG_DIMS_OR_EMPTY KG_DIM_WORDS KG_DIMS_CHECK KG_DIMS_FROM_VALUES)
endfunction()
