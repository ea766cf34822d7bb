# kernelgen_add_op(): declare a GPU operation whose Vulkan compute kernel kernelgen checks in under
# generated/<op>/ and embeds into a C++ wrapper library.
#
#   kernelgen_add_op(<name>
#     REFERENCE   <file.cpp>           C++ (Eigen) reference defining the op: KERNELGEN_REFERENCE(<name>) { ... }
#     DESCRIPTION "<text>"             what the op computes, in a sentence
#     INPUTS      <tensor>...          e.g. x:f32[rows,1000]   (name:dtype[extents], row-major; an extent is a
#                                      number or a symbolic dim; dtypes in runtime/include/kernelgen/dtypes.def)
#     OUTPUTS     <tensor>...          at least one
#     [DIMS       dim=s1,s2,...]       every symbolic dim with the sizes validated, e.g. rows=1,5,64,333
#     [BENCH_DIMS dim=size...]         the size benchmarked and timed (default: each dim's largest DIMS)
#     [CPU_BENCH_DIMS dim=size...]     the same on a CPU device such as lavapipe (default: BENCH_DIMS)
#     [INDEX      tensor=extent...]    an i32/u32 input of indices into an extent (a dim or a number)
#     [PARAMS     key=value...]        numeric hyperparameters, passed to the reference as `params`
#     [TOLERANCE  <atol> [<rtol>]]     default per output dtype (f32 1e-5 1e-5, f16 1e-3 1e-3, integers exact)
#     [FLOPS      <expression>]        floating-point operations per call over the dims, e.g. 2*rows*1000
#     [BYTES      <expression>]        bytes moved per call (default: every tensor once), for GB/s
#     [SAMPLES n] [ROUNDS n] [MODEL provider/model] [BUDGET_USD x]    LLM search settings
#     [OPT_ROUNDS n] [BEAM k]          optimisation rounds after the first correct kernel (default 0), each
#                                      asking for SAMPLES ideas per parent and one kernel per idea; the
#                                      fastest k correct kernels are the next round's parents (default 1)
#     [KERNEL     <file.comp>]         a hand-written candidate, validated like any other
#     [VARIANTS   name=<file.comp>...]) kernels for devices with what others lack (cooperative matrices), in
#                                      order of preference: each is checked in under generated/<name>/variants/,
#                                      validated on the validation devices that can run it, and run by the
#                                      wrapper on a device that can; elsewhere the op's own kernel runs
#
# Creates
#   kernelgen::<name>           library: #include <kernelgen/ops/<name>.hpp>, class kernelgen::ops::<name>
#   test_kernelgen_<name>       GoogleTest revalidating the kernel on fresh inputs (ctest label `kernelgen`)
#   bench_kernelgen_<name>      Google Benchmark timing it with GPU timestamps
#   kernelgen_regenerate_<name> target that searches for the kernel again (and kernelgen_regenerate for all)
#   kernelgen_reference_module_<name>
#                               the reference as a module the tool loads: <build>/kernelgen/<name>/reference.so
#
# In kernelgen's tree (add_subdirectory, FetchContent) or from an install (find_package(KernelGen)); either way
# the build step runs the tool kernelgen::tool.
#
# The kernel is checked at build time, never at configure time: the build fails with instructions when
# generated/<name>/ is missing, corrupt or stale and no candidate passes. A kernel.spv that its kernel.comp
# does not compile to is corrupt; one that another glslang compiled fails too, unless KERNELGEN_ALLOW_OTHER_GLSLANG
# is ON: then kernel.comp is built as this glslang compiles it (docs/validation.md). Set KERNELGEN_GENERATED_DIR
# to keep kernels somewhere other than ${PROJECT_SOURCE_DIR}/generated.
include_guard(GLOBAL)

# Where the build step writes the candidate log.
function(_kernelgen_log_dir out)
  if(KERNELGEN_CACHE_DIR)
    set(${out} "${KERNELGEN_CACHE_DIR}" PARENT_SCOPE)
  else()
    set(${out} "${CMAKE_BINARY_DIR}/kernelgen/candidates" PARENT_SCOPE)
  endif()
endfunction()

# Build steps that search validate and time kernels on the GPU: one at a time, so that they never time each other
# (the timing harness also holds a per-device file lock, for generators without job pools and for ctest).
set_property(GLOBAL APPEND PROPERTY JOB_POOLS kernelgen_gpu=1)

if(NOT TARGET kernelgen_regenerate)
  _kernelgen_log_dir(_kernelgen_log)
  # Runs after every kernelgen_regenerate_<op>: the summary table of the candidate log.
  add_custom_target(kernelgen_regenerate
    COMMAND kernelgen::tool report --log-dir "${_kernelgen_log}"
    COMMENT "kernelgen: candidate log summary (${_kernelgen_log})"
    USES_TERMINAL VERBATIM)
  # Optimisation rounds started from every checked-in kernel, then the same summary.
  add_custom_target(kernelgen_optimise
    COMMAND kernelgen::tool report --log-dir "${_kernelgen_log}"
    COMMENT "kernelgen: candidate log summary (${_kernelgen_log})"
    USES_TERMINAL VERBATIM)
  unset(_kernelgen_log)
  # Every op's wrapper library, and so every op's build step: what the kernels need, without tests.
  add_custom_target(kernelgen_ops)
  # Every op's benchmark, which `all` leaves out.
  add_custom_target(kernelgen_benchmarks)
endif()

function(_kernelgen_fail where argument problem fix)
  message(FATAL_ERROR "${where}: ${argument}: ${problem}\n  Fix: ${fix}")
endfunction()

# An unknown argument `word`: fails with `problem` and the `known` keywords (a comma-separated list), and asks
# whether the keyword `word` is closest to was meant, when one is close.
function(_kernelgen_fail_unknown_argument where word problem known)
  string(REPLACE ", " ";" keywords "${known}")
  _kernelgen_closest_keyword("${word}" "${keywords}" closest)
  if(NOT closest STREQUAL "")
    string(APPEND problem "; did you mean ${closest}?")
  endif()
  _kernelgen_fail("${where}" "${word}" "${problem}" "use only ${known}")
endfunction()

# Sets <out> to the keyword that `word` (in any case) looks like a misspelling of: the closest of `keywords` that
# is at most two edits from it, or a prefix of it, or has it as a prefix (DIM, OUTPUT, KERNELS); the first of them
# on a tie. Empty when none is, or when the word has fewer than three characters to go by.
function(_kernelgen_closest_keyword word keywords out)
  string(TOUPPER "${word}" word)
  string(LENGTH "${word}" length)
  set(closest "")
  if(length LESS 3)
    set(keywords "")
  endif()
  foreach(keyword IN LISTS keywords)
    string(LENGTH "${keyword}" keyword_length)
    math(EXPR difference "${keyword_length} - ${length}")
    if(difference LESS 0)
      math(EXPR difference "-(${difference})")
    endif()
    string(FIND "${keyword}" "${word}" word_at)
    string(FIND "${word}" "${keyword}" keyword_at)
    if(word_at EQUAL 0 OR keyword_at EQUAL 0)
      set(distance ${difference})  # the characters the longer has beyond the other
    elseif(difference GREATER 2)
      continue()  # more than two edits apart
    else()
      _kernelgen_edit_distance("${word}" "${keyword}" distance)
      if(distance GREATER 2)
        continue()
      endif()
    endif()
    if(closest STREQUAL "" OR distance LESS closest_distance)
      set(closest "${keyword}")
      set(closest_distance ${distance})
    endif()
  endforeach()
  set(${out} "${closest}" PARENT_SCOPE)
endfunction()

# Sets <out> to the Levenshtein distance of `a` and `b`: the fewest insertions, deletions and substitutions of
# one character that turn one into the other.
function(_kernelgen_edit_distance a b out)
  string(LENGTH "${a}" a_length)
  string(LENGTH "${b}" b_length)
  # row: the distances of a's first i characters to b's first 0, 1, ... b_length characters.
  set(row "")
  foreach(j RANGE ${b_length})
    list(APPEND row ${j})
  endforeach()
  set(i 0)
  while(i LESS a_length)
    string(SUBSTRING "${a}" ${i} 1 a_char)
    math(EXPR i "${i} + 1")
    list(GET row 0 diagonal)
    set(next ${i})
    set(left ${i})
    set(j 0)
    while(j LESS b_length)
      string(SUBSTRING "${b}" ${j} 1 b_char)
      math(EXPR j "${j} + 1")
      list(GET row ${j} above)
      if("${a_char}" STREQUAL "${b_char}")
        set(cell ${diagonal})
      else()
        math(EXPR cell "${diagonal} + 1")
      endif()
      if(above LESS cell)
        math(EXPR cell "${above} + 1")
      endif()
      if(left LESS cell)
        math(EXPR cell "${left} + 1")
      endif()
      list(APPEND next ${cell})
      set(diagonal ${above})
      set(left ${cell})
    endwhile()
    set(row "${next}")
  endwhile()
  list(GET row -1 distance)
  set(${out} ${distance} PARENT_SCOPE)
endfunction()

# Copies the named variables of the calling function into its caller's scope: how each step of kernelgen_add_op
# hands on what it makes.
macro(_kernelgen_propagate)
  foreach(_kernelgen_variable IN ITEMS ${ARGN})
    set(${_kernelgen_variable} "${${_kernelgen_variable}}" PARENT_SCOPE)
  endforeach()
endmacro()

# JSON string literal for arbitrary text.
function(_kernelgen_json_string text out)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REPLACE "\"" "\\\"" text "${text}")
  string(REPLACE "\n" "\\n" text "${text}")
  string(REPLACE "\r" "\\r" text "${text}")
  string(REPLACE "\t" "\\t" text "${text}")
  set(${out} "\"${text}\"" PARENT_SCOPE)
endfunction()

# The dtype table every stage reads (runtime/include/kernelgen/dtypes.def): sets _KERNELGEN_DTYPES (the names)
# and, per dtype, _KERNELGEN_DTYPE_<name>_TYPE (its C++ storage type) and _BYTES in the caller's scope.
macro(_kernelgen_read_dtypes)
  file(STRINGS "${_KERNELGEN_DTYPES_DEF}" _kernelgen_dtype_lines REGEX "^KERNELGEN_DTYPE\\(")
  set(_KERNELGEN_DTYPES "")
  foreach(_kernelgen_line IN LISTS _kernelgen_dtype_lines)
    if(NOT _kernelgen_line MATCHES "^KERNELGEN_DTYPE\\(([a-z0-9]+), ([A-Za-z0-9_:]+), ([0-9]+),")
      message(FATAL_ERROR "kernelgen: cannot read the dtype table line '${_kernelgen_line}' in ${_KERNELGEN_DTYPES_DEF}")
    endif()
    list(APPEND _KERNELGEN_DTYPES "${CMAKE_MATCH_1}")
    set(_KERNELGEN_DTYPE_${CMAKE_MATCH_1}_TYPE "${CMAKE_MATCH_2}")
    set(_KERNELGEN_DTYPE_${CMAKE_MATCH_1}_BYTES "${CMAKE_MATCH_3}")
  endforeach()
endmacro()

# Parses `name:dtype[e0,e1,...]` (each extent a positive number or a dim name). Sets <out>_NAME, _DTYPE,
# _EXTENTS (a list) and _JSON (the spec's tensor, without its index) in the caller's scope, and appends every
# new dim name to the caller's `dims`.
macro(_kernelgen_parse_tensor where argument text out)
  if(NOT "${text}" MATCHES "^([A-Za-z_][A-Za-z0-9_]*):([A-Za-z0-9]+)\\[([^]]*)\\]$")
    _kernelgen_fail("${where}" "${argument}" "'${text}' is not a tensor declaration"
      "write name:dtype[extents], e.g. x:f32[4,8,16,16] or x:f32[rows,1000]")
  endif()
  set(${out}_NAME "${CMAKE_MATCH_1}")
  set(${out}_DTYPE "${CMAKE_MATCH_2}")
  set(_kernelgen_extents "${CMAKE_MATCH_3}")
  if(${out}_DTYPE STREQUAL "bf16")
    _kernelgen_fail("${where}" "${argument}" "bf16 in '${text}' needs GL_EXT_bfloat16, which Debian 12's glslang cannot compile"
      "declare the tensor f16 or f32")
  endif()
  if(NOT ${out}_DTYPE IN_LIST _KERNELGEN_DTYPES)
    string(REPLACE ";" " " _kernelgen_names "${_KERNELGEN_DTYPES}")
    _kernelgen_fail("${where}" "${argument}" "unknown dtype '${${out}_DTYPE}' in '${text}'"
      "use one of: ${_kernelgen_names}")
  endif()
  set(_kernelgen_extent "(0|[1-9][0-9]*|[A-Za-z_][A-Za-z0-9_]*)")
  if(NOT _kernelgen_extents MATCHES "^${_kernelgen_extent}(,${_kernelgen_extent})*$" OR _kernelgen_extents MATCHES "(^|,)0(,|$)")
    _kernelgen_fail("${where}" "${argument}" "malformed shape [${_kernelgen_extents}] in '${text}'"
      "list positive integer extents or dim names separated by commas, e.g. [4,8,16,16] or [rows,1000]")
  endif()
  string(REPLACE "," ";" ${out}_EXTENTS "${_kernelgen_extents}")
  set(_kernelgen_shape "")
  foreach(_kernelgen_e IN LISTS ${out}_EXTENTS)
    if(_kernelgen_e MATCHES "^[0-9]+$")
      list(APPEND _kernelgen_shape "${_kernelgen_e}")
    else()
      list(APPEND _kernelgen_shape "\"${_kernelgen_e}\"")
      if(NOT _kernelgen_e IN_LIST dims)
        list(APPEND dims "${_kernelgen_e}")
      endif()
    endif()
  endforeach()
  string(REPLACE ";" "," _kernelgen_shape "${_kernelgen_shape}")
  set(${out}_JSON "\"name\":\"${${out}_NAME}\",\"dtype\":\"${${out}_DTYPE}\",\"shape\":[${_kernelgen_shape}]")
endmacro()

# `text` with every dim name replaced by its C++ value (`dims.rows`), or by its number in `values` (a list of
# dim=value) when given.
function(_kernelgen_substitute_dims text dims values out)
  # Names first become markers, so a replacement that contains a name is not replaced again.
  set(index 0)
  foreach(dim IN LISTS dims)
    # Twice: a match consumes the character after the name, which may start the next occurrence (rows*rows).
    string(REGEX REPLACE "(^|[^A-Za-z0-9_])${dim}([^A-Za-z0-9_]|$)" "\\1@KGDIM${index}@\\2" text "${text}")
    string(REGEX REPLACE "(^|[^A-Za-z0-9_])${dim}([^A-Za-z0-9_]|$)" "\\1@KGDIM${index}@\\2" text "${text}")
    math(EXPR index "${index} + 1")
  endforeach()
  set(index 0)
  foreach(dim IN LISTS dims)
    if(NOT values STREQUAL "")
      foreach(pair IN LISTS values)
        if(pair MATCHES "^${dim}=(.*)$")
          set(replacement "${CMAKE_MATCH_1}")
        endif()
      endforeach()
    else()
      set(replacement "std::size_t{dims.${dim}}")
    endif()
    string(REPLACE "@KGDIM${index}@" "${replacement}" text "${text}")
    math(EXPR index "${index} + 1")
  endforeach()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# FLOPS or BYTES: an integer expression over numbers and the op's dims. Sets <out> to the JSON value and
# <out>_BENCH to its value at the bench dims.
function(_kernelgen_dims_expression where argument text dims bench out)
  if(NOT text MATCHES "^[0-9A-Za-z_*+/%() -]+$")
    _kernelgen_fail("${where}" ${argument} "'${text}' is not an integer expression"
      "write e.g. ${argument} 2*100*70*130 or 2*rows*1000, with + - * / % and parentheses")
  endif()
  string(REGEX MATCHALL "[A-Za-z_][A-Za-z0-9_]*" names "${text}")
  foreach(used IN LISTS names)
    if(NOT used IN_LIST dims)
      string(REPLACE ";" ", " known "${dims}")
      _kernelgen_fail("${where}" ${argument} "'${used}' in '${text}' is not a dim of the op (dims: ${known})"
        "use numbers and the dims of the op's shapes")
    endif()
  endforeach()
  _kernelgen_substitute_dims("${text}" "${dims}" "${bench}" numeric)
  math(EXPR value "${numeric}")
  if(NOT dims STREQUAL "")  # not if(dims): a dim named n or y reads as false
    set(${out} "\"${text}\"" PARENT_SCOPE)
  else()
    set(${out} "${value}" PARENT_SCOPE)
  endif()
  set(${out}_BENCH "${value}" PARENT_SCOPE)
endfunction()

# `name=a,b,c` lists (DIMS) or `name=a` (BENCH_DIMS) of positive integers, for the op's dims.
function(_kernelgen_parse_sizes where argument pairs dims single out)
  set(found "")
  foreach(pair IN LISTS pairs)
    if(single)
      set(pattern "^([A-Za-z_][A-Za-z0-9_]*)=([1-9][0-9]*)$")
      set(example "rows=32768")
    else()
      set(pattern "^([A-Za-z_][A-Za-z0-9_]*)=([1-9][0-9]*(,[1-9][0-9]*)*)$")
      set(example "rows=1,5,64,333")
    endif()
    if(NOT pair MATCHES "${pattern}")
      _kernelgen_fail("${where}" ${argument} "'${pair}' is not dim=sizes with positive integer sizes"
        "write e.g. ${argument} ${example}")
    endif()
    set(name "${CMAKE_MATCH_1}")
    if(NOT name IN_LIST dims)
      _kernelgen_fail("${where}" ${argument} "'${name}' is not used by any tensor"
        "remove it, or use it as an extent, e.g. x:f32[${name},1000]")
    endif()
    if(name IN_LIST found)
      _kernelgen_fail("${where}" ${argument} "'${name}' is given twice" "give each dim once")
    endif()
    list(APPEND found "${name}")
    string(REPLACE "," ";" sizes "${CMAKE_MATCH_2}")
    foreach(size IN LISTS sizes)
      if(size GREATER 4294967295)
        _kernelgen_fail("${where}" ${argument} "size ${size} of '${name}' does not fit a uint push constant"
          "use sizes below 2^32")
      endif()
    endforeach()
  endforeach()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

function(_kernelgen_write_if_changed path content)
  if(EXISTS "${path}")
    file(READ "${path}" old)
    if(old STREQUAL content)
      return()
    endif()
  endif()
  file(WRITE "${path}" "${content}")
endfunction()

function(_kernelgen_resolve_file where argument path out)
  cmake_path(ABSOLUTE_PATH path BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE OUTPUT_VARIABLE absolute)
  if(NOT EXISTS "${absolute}" OR IS_DIRECTORY "${absolute}")
    _kernelgen_fail("${where}" "${argument}" "file '${path}' does not exist (looked for ${absolute})"
      "give a path relative to ${CMAKE_CURRENT_SOURCE_DIR} or an absolute one")
  endif()
  set(${out} "${absolute}" PARENT_SCOPE)
endfunction()

# The build step's flags from CMake arguments: they win over the environment and the .env file. API keys are
# never among them: CMake stores its arguments in CMakeCache.txt, and a key must not land in a file.
function(_kernelgen_tool_settings out)
  set(flags "")
  foreach(setting KERNELGEN_MODEL OPENAI_BASE_URL ANTHROPIC_BASE_URL GEMINI_BASE_URL KERNELGEN_TOKEN_BUDGET KERNELGEN_OPT_ROUNDS KERNELGEN_MAX_OUTPUT_TOKENS
                  KERNELGEN_TIMEOUT_S KERNELGEN_VALIDATION_TIMEOUT_S)
    if(NOT "${${setting}}" STREQUAL "")
      list(APPEND flags --set "${setting}=${${setting}}")
    endif()
  endforeach()
  foreach(secret OPENAI_API_KEY ANTHROPIC_API_KEY GEMINI_API_KEY)
    if(DEFINED CACHE{${secret}})
      message(WARNING "kernelgen ignores -D${secret}: CMake keeps it in CMakeCache.txt. Remove it from the cache "
                      "(cmake -U ${secret}) and set it in the environment or a .env file instead.")
    endif()
  endforeach()
  if(KERNELGEN_OFFLINE)
    list(APPEND flags --offline)
  endif()
  if(KERNELGEN_ALLOW_OTHER_GLSLANG)
    list(APPEND flags --set KERNELGEN_ALLOW_OTHER_GLSLANG=1)
  endif()
  _kernelgen_log_dir(log_dir)
  list(APPEND flags --log-dir "${log_dir}")
  if(KERNELGEN_CASSETTE_DIR)
    cmake_path(ABSOLUTE_PATH KERNELGEN_CASSETTE_DIR BASE_DIRECTORY "${CMAKE_SOURCE_DIR}" OUTPUT_VARIABLE cassettes)
    list(APPEND flags --cassette-dir "${cassettes}")
  endif()
  list(APPEND flags --dotenv "${CMAKE_SOURCE_DIR}/.env")
  set(${out} "${flags}" PARENT_SCOPE)
endfunction()

function(kernelgen_add_op name)
  set(one_value REFERENCE DESCRIPTION FLOPS BYTES SAMPLES ROUNDS OPT_ROUNDS BEAM MODEL BUDGET_USD KERNEL)
  set(multi_value INPUTS OUTPUTS DIMS BENCH_DIMS CPU_BENCH_DIMS INDEX PARAMS TOLERANCE VARIANTS)
  cmake_parse_arguments(PARSE_ARGV 1 KG "" "${one_value}" "${multi_value}")
  # Set here, not at file scope: a consumer calls this function from its own directories, where variables of
  # the directory that included this file are not visible. The helpers below see them as their caller's.
  set(_KERNELGEN_TEMPLATES "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/templates")
  # The runtime's header, in the source tree or installed: where kernelgen's CMakeLists.txt or
  # KernelGenConfig.cmake said.
  get_property(_KERNELGEN_DTYPES_DEF GLOBAL PROPERTY KERNELGEN_DTYPES_DEF)
  _kernelgen_read_dtypes()
  # A JSON number, since values are copied into the spec as they are written.
  set(_KERNELGEN_NUMBER "^-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?$")
  set(where "kernelgen_add_op(${name}) in ${CMAKE_CURRENT_LIST_FILE}")

  # The steps, in order. Each reads `name`, `where`, the KG_ arguments and what the steps before it set here,
  # and sets here what it makes (the comment above each says what). The three *_interface steps set the KG_
  # variables of the templates (cmake/templates/*.in) that the last three steps configure; the five named like
  # an argument (KG_DESCRIPTION, KG_BENCH_DIMS, KG_CPU_BENCH_DIMS, KG_FLOPS, KG_BYTES) replace it after the last
  # step that reads the argument.
  _kernelgen_check_arguments()
  _kernelgen_resolve_op_files()
  _kernelgen_parse_tensors()
  _kernelgen_parse_dim_sizes()
  _kernelgen_tensor_interface()
  _kernelgen_params_json()
  _kernelgen_tolerance_json()
  _kernelgen_cost()
  _kernelgen_search_json()
  _kernelgen_write_spec()
  _kernelgen_op_interface()
  _kernelgen_dims_interface()
  _kernelgen_checked_in_files()
  _kernelgen_add_reference_module()
  _kernelgen_add_build_step()
  _kernelgen_add_wrapper_library()
  _kernelgen_add_op_test()
  _kernelgen_add_op_benchmark()
endfunction()

# Checks the op's name and its arguments as cmake_parse_arguments left them (unknown ones, also among the values
# of the `multi_value` keywords; missing values; the required ones), and registers the op: the global properties
# KERNELGEN_OP_<name>_DECLARED_IN and KERNELGEN_OPS.
function(_kernelgen_check_arguments)
  set(known "REFERENCE, DESCRIPTION, INPUTS, OUTPUTS, DIMS, BENCH_DIMS, CPU_BENCH_DIMS, INDEX, PARAMS, TOLERANCE, FLOPS, BYTES, SAMPLES, ROUNDS, OPT_ROUNDS, BEAM, MODEL, BUDGET_USD, KERNEL, VARIANTS")
  if(NOT name MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    _kernelgen_fail("${where}" "name" "'${name}' is not a C identifier"
      "name the op with letters, digits and underscores")
  endif()
  if(KG_UNPARSED_ARGUMENTS)
    list(GET KG_UNPARSED_ARGUMENTS 0 unknown)
    _kernelgen_fail_unknown_argument("${where}" "${unknown}" "unknown argument" "${known}")
  endif()
  # cmake_parse_arguments files an unknown keyword after INPUTS, OUTPUTS, PARAMS or TOLERANCE as one of that
  # list's values; no valid value of those lists is a bare upper-case word.
  foreach(list_argument IN LISTS multi_value)
    foreach(value IN LISTS KG_${list_argument})
      if(value MATCHES "^[A-Z][A-Z0-9_]+$")
        _kernelgen_fail_unknown_argument("${where}" "${value}"
          "unknown argument (read as a value of ${list_argument})" "${known}")
      endif()
    endforeach()
  endforeach()
  if(KG_KEYWORDS_MISSING_VALUES)
    list(GET KG_KEYWORDS_MISSING_VALUES 0 empty)
    _kernelgen_fail("${where}" "${empty}" "given without a value" "give ${empty} a value or leave it out")
  endif()
  get_property(declared_in GLOBAL PROPERTY "KERNELGEN_OP_${name}_DECLARED_IN")
  if(declared_in)
    _kernelgen_fail("${where}" "name" "op '${name}' is already declared in ${declared_in}"
      "give each op a unique name")
  endif()
  set_property(GLOBAL PROPERTY "KERNELGEN_OP_${name}_DECLARED_IN" "${CMAKE_CURRENT_LIST_FILE}")
  set_property(GLOBAL APPEND PROPERTY KERNELGEN_OPS "${name}")  # every op declared, in order

  foreach(required REFERENCE DESCRIPTION OUTPUTS)
    if(NOT DEFINED KG_${required})
      _kernelgen_fail("${where}" "${required}" "missing" "every op needs REFERENCE, DESCRIPTION and OUTPUTS")
    endif()
  endforeach()
endfunction()

# REFERENCE, KERNEL and VARIANTS: sets `reference` and `kernel` (absolute paths; kernel empty without KERNEL),
# `variant_names` and `variant_kernels` (the VARIANTS in order, the kernels as absolute paths) and
# `variants_json` (the spec's list).
function(_kernelgen_resolve_op_files)
  _kernelgen_resolve_file("${where}" REFERENCE "${KG_REFERENCE}" reference)
  set(kernel "")
  if(DEFINED KG_KERNEL)
    _kernelgen_resolve_file("${where}" KERNEL "${KG_KERNEL}" kernel)
  endif()
  set(variant_names "")
  set(variant_kernels "")
  set(variants_json "")
  foreach(pair IN LISTS KG_VARIANTS)
    if(NOT pair MATCHES "^([A-Za-z_][A-Za-z0-9_]*)=(.+)$")
      _kernelgen_fail("${where}" VARIANTS "'${pair}' is not name=file.comp" "write e.g. VARIANTS coopmat=matmul_coopmat.comp")
    endif()
    set(variant "${CMAKE_MATCH_1}")
    if(variant IN_LIST variant_names)
      _kernelgen_fail("${where}" VARIANTS "variant '${variant}' is given twice" "give each variant its own name")
    endif()
    _kernelgen_resolve_file("${where}" VARIANTS "${CMAKE_MATCH_2}" variant_kernel)
    list(APPEND variant_names "${variant}")
    list(APPEND variant_kernels "${variant_kernel}")
    _kernelgen_json_string("${variant_kernel}" variant_kernel_json)
    list(APPEND variants_json "{\"name\": \"${variant}\", \"kernel\": ${variant_kernel_json}}")
  endforeach()
  string(REPLACE ";" ", " variants_json "[${variants_json}]")
  _kernelgen_propagate(reference kernel variant_names variant_kernels variants_json)
endfunction()

# INPUTS, OUTPUTS and INDEX: sets `tensors` (kind|name|dtype|extents for each, kind INPUTS or OUTPUTS and the
# extents separated by commas), `dims` (the symbolic dims in order of first appearance in the shapes, then those
# only an INDEX bound names: the push-constant order) and INPUTS_json and OUTPUTS_json (the spec's lists).
function(_kernelgen_parse_tensors)
  set(dims "")
  set(names "")
  set(tensors "")
  foreach(kind INPUTS OUTPUTS)
    foreach(text IN LISTS KG_${kind})
      _kernelgen_parse_tensor("${where}" ${kind} "${text}" tensor)
      if(tensor_NAME IN_LIST names)
        _kernelgen_fail("${where}" ${kind} "tensor name '${tensor_NAME}' is used twice" "give each tensor its own name")
      endif()
      list(APPEND names "${tensor_NAME}")
      string(REPLACE ";" "," extents "${tensor_EXTENTS}")
      list(APPEND tensors "${kind}|${tensor_NAME}|${tensor_DTYPE}|${extents}")
      set(json_${tensor_NAME} "${tensor_JSON}")
    endforeach()
  endforeach()

  # INDEX tensor=extent: an integer input whose values index an extent (a dim or a number).
  foreach(pair IN LISTS KG_INDEX)
    if(NOT pair MATCHES "^([A-Za-z_][A-Za-z0-9_]*)=([1-9][0-9]*|[A-Za-z_][A-Za-z0-9_]*)$")
      _kernelgen_fail("${where}" INDEX "'${pair}' is not tensor=extent" "write e.g. INDEX ids=vocab")
    endif()
    set(indexed "${CMAKE_MATCH_1}")
    set(bound "${CMAKE_MATCH_2}")
    set(is_input OFF)
    foreach(entry IN LISTS tensors)
      if(entry MATCHES "^INPUTS\\|${indexed}\\|(i32|u32)\\|")
        set(is_input ON)
      endif()
    endforeach()
    if(NOT is_input)
      _kernelgen_fail("${where}" INDEX "'${indexed}' is not an i32 or u32 input"
        "name an integer input, e.g. INPUTS ids:i32[n] with INDEX ids=vocab")
    endif()
    if(bound MATCHES "^[0-9]+$")
      string(APPEND json_${indexed} ",\"index\":${bound}")
    else()
      if(NOT bound IN_LIST dims)
        list(APPEND dims "${bound}")
      endif()
      string(APPEND json_${indexed} ",\"index\":\"${bound}\"")
    endif()
  endforeach()

  foreach(kind INPUTS OUTPUTS)
    set(${kind}_json "")
    foreach(entry IN LISTS tensors)
      if(entry MATCHES "^${kind}\\|([^|]+)\\|")
        list(APPEND ${kind}_json "{${json_${CMAKE_MATCH_1}}}")
      endif()
    endforeach()
    string(REPLACE ";" "," ${kind}_json "[${${kind}_json}]")
  endforeach()
  _kernelgen_propagate(tensors dims INPUTS_json OUTPUTS_json)
endfunction()

# DIMS, BENCH_DIMS and CPU_BENCH_DIMS for the `dims`: sets dims_json, bench_json and cpu_bench_json (the spec's
# objects), bench_values (dim=size for every dim: its BENCH_DIMS size, else its largest DIMS size) and
# cpu_bench_values (the same with its CPU_BENCH_DIMS size, else its bench size).
function(_kernelgen_parse_dim_sizes)
  _kernelgen_parse_sizes("${where}" DIMS "${KG_DIMS}" "${dims}" OFF listed)
  _kernelgen_parse_sizes("${where}" BENCH_DIMS "${KG_BENCH_DIMS}" "${dims}" ON benched)
  _kernelgen_parse_sizes("${where}" CPU_BENCH_DIMS "${KG_CPU_BENCH_DIMS}" "${dims}" ON cpu_benched)
  set(dims_json "")
  set(bench_json "")
  set(bench_values "")
  set(cpu_bench_json "")
  set(cpu_bench_values "")
  foreach(dim IN LISTS dims)
    if(NOT dim IN_LIST listed)
      _kernelgen_fail("${where}" DIMS "dim '${dim}' is used in a shape but has no sizes"
        "list the sizes to validate, e.g. DIMS ${dim}=1,7,64,333")
    endif()
    foreach(pair IN LISTS KG_DIMS)
      if(pair MATCHES "^${dim}=(.*)$")
        set(sizes "${CMAKE_MATCH_1}")
      endif()
    endforeach()
    list(APPEND dims_json "\"${dim}\":[${sizes}]")
    string(REPLACE "," ";" size_list "${sizes}")
    list(SORT size_list COMPARE NATURAL ORDER DESCENDING)
    list(GET size_list 0 bench)
    foreach(pair IN LISTS KG_BENCH_DIMS)
      if(pair MATCHES "^${dim}=(.*)$")
        set(bench "${CMAKE_MATCH_1}")
        list(APPEND bench_json "\"${dim}\":${bench}")
      endif()
    endforeach()
    list(APPEND bench_values "${dim}=${bench}")
    set(cpu_bench "${bench}")
    foreach(pair IN LISTS KG_CPU_BENCH_DIMS)
      if(pair MATCHES "^${dim}=(.*)$")
        set(cpu_bench "${CMAKE_MATCH_1}")
        list(APPEND cpu_bench_json "\"${dim}\":${cpu_bench}")
      endif()
    endforeach()
    list(APPEND cpu_bench_values "${dim}=${cpu_bench}")
  endforeach()
  string(REPLACE ";" "," dims_json "{${dims_json}}")
  string(REPLACE ";" "," bench_json "{${bench_json}}")
  string(REPLACE ";" "," cpu_bench_json "{${cpu_bench_json}}")
  _kernelgen_propagate(dims_json bench_json cpu_bench_json bench_values cpu_bench_values)
endfunction()

# The C++ fragments of the wrapper's interface for the `tensors`, in binding order. Constant tensors get
# constants; a tensor with dims gets functions of the call's Dims. Sets the templates' KG_TENSOR_CONSTANTS,
# KG_TYPED_PARAMS, KG_TYPED_ADDRESSES, KG_TYPED_CALL, KG_TENSOR_BYTES, KG_BENCH_TENSOR_BYTES,
# KG_CPU_BENCH_TENSOR_BYTES and KG_BINDING_COUNT, and total_bytes and cpu_total_bytes: the bytes of all tensors
# at the bench and CPU bench dims.
function(_kernelgen_tensor_interface)
  set(constants "")
  set(typed_params "")
  set(typed_addresses "")
  set(typed_call "")
  set(tensor_bytes "")
  set(bench_tensor_bytes "")
  set(cpu_bench_tensor_bytes "")
  set(total_bytes 0)
  set(cpu_total_bytes 0)
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
    math(EXPR total_bytes "${total_bytes} + ${bench_bytes}")
    list(APPEND bench_tensor_bytes "${bench_bytes}")
    _kernelgen_substitute_dims("${product}" "${dims}" "${cpu_bench_values}" cpu_bench_elements)
    math(EXPR cpu_bench_bytes "(${cpu_bench_elements}) * ${element_bytes}")
    math(EXPR cpu_total_bytes "${cpu_total_bytes} + ${cpu_bench_bytes}")
    list(APPEND cpu_bench_tensor_bytes "${cpu_bench_bytes}")
    set(symbolic OFF)
    foreach(extent IN LISTS extents)
      if(extent IN_LIST dims)
        set(symbolic ON)
      endif()
    endforeach()
    string(REPLACE ";" "," extents_text "${extents}")
    string(APPEND constants "  // ${tensor}: ${dtype}[${extents_text}], elements of ${_KERNELGEN_DTYPE_${dtype}_TYPE}\n")
    if(symbolic)
      _kernelgen_substitute_dims("${product}" "${dims}" "" elements_cpp)
      string(REPLACE ";" ", " extents_cpp "${extents}")
      _kernelgen_substitute_dims("${extents_cpp}" "${dims}" "" extents_cpp)
      string(REGEX REPLACE "std::size_t\\{([^}]*)\\}" "int64_t{\\1}" extents_cpp "${extents_cpp}")
      string(APPEND constants
        "  static std::array<int64_t, ${rank}> ${tensor}_shape(const Dims& dims) { return {${extents_cpp}}; }\n"
        "  static std::size_t ${tensor}_elements(const Dims& dims) { return ${elements_cpp}; }\n"
        "  static std::size_t ${tensor}_bytes(const Dims& dims) { return ${tensor}_elements(dims) * ${element_bytes}; }\n")
      list(APPEND tensor_bytes "${tensor}_bytes(dims)")
    else()
      string(REPLACE ";" ", " extents_cpp "${extents}")
      math(EXPR elements "${bench_elements}")
      string(APPEND constants
        "  static constexpr std::array<int64_t, ${rank}> ${tensor}_shape{${extents_cpp}};\n"
        "  static constexpr std::size_t ${tensor}_elements = ${elements};\n"
        "  static constexpr std::size_t ${tensor}_bytes = ${bench_bytes};\n")
      list(APPEND tensor_bytes "${tensor}_bytes")
    endif()
    if(kind STREQUAL "INPUTS")
      list(APPEND typed_params "const Buffer& ${tensor}")
    else()
      list(APPEND typed_params "Buffer& ${tensor}")
    endif()
    list(APPEND typed_addresses "&${tensor}")
    list(APPEND typed_call "b[${binding}]")
    math(EXPR binding "${binding} + 1")
  endforeach()
  set(KG_TENSOR_CONSTANTS "${constants}")
  string(REPLACE ";" ", " KG_TYPED_PARAMS "${typed_params}")
  string(REPLACE ";" ", " KG_TYPED_ADDRESSES "${typed_addresses}")
  string(REPLACE ";" ", " KG_TYPED_CALL "${typed_call}")
  string(REPLACE ";" ", " KG_TENSOR_BYTES "${tensor_bytes}")
  string(REPLACE ";" ", " KG_BENCH_TENSOR_BYTES "${bench_tensor_bytes}")
  string(REPLACE ";" ", " KG_CPU_BENCH_TENSOR_BYTES "${cpu_bench_tensor_bytes}")
  set(KG_BINDING_COUNT ${binding})
  _kernelgen_propagate(KG_TENSOR_CONSTANTS KG_TYPED_PARAMS KG_TYPED_ADDRESSES KG_TYPED_CALL KG_TENSOR_BYTES
    KG_BENCH_TENSOR_BYTES KG_CPU_BENCH_TENSOR_BYTES KG_BINDING_COUNT total_bytes cpu_total_bytes)
endfunction()

# PARAMS: sets params_json, the spec's object of numbers the reference receives as `params`.
function(_kernelgen_params_json)
  set(params_json "")
  foreach(pair IN LISTS KG_PARAMS)
    if(NOT pair MATCHES "^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
      _kernelgen_fail("${where}" PARAMS "'${pair}' is not key=value" "write e.g. PARAMS stride=1 padding=0")
    endif()
    set(key "${CMAKE_MATCH_1}")  # the next MATCHES clears CMAKE_MATCH_<n>
    set(value "${CMAKE_MATCH_2}")
    if(NOT value MATCHES "${_KERNELGEN_NUMBER}")
      _kernelgen_fail("${where}" PARAMS "value of '${key}' is not a number: '${value}'"
        "write numbers as JSON does, e.g. alpha=0.1 beta=-2e-3")
    endif()
    list(APPEND params_json "\"${key}\":${value}")
  endforeach()
  string(REPLACE ";" "," params_json "{${params_json}}")
  _kernelgen_propagate(params_json)
endfunction()

# TOLERANCE: sets tolerance_json, the spec's line for it (empty without TOLERANCE: the output dtype's default).
function(_kernelgen_tolerance_json)
  set(tolerance_json "")
  if(DEFINED KG_TOLERANCE)
    set(rtol 1e-5)
    list(LENGTH KG_TOLERANCE count)
    if(count GREATER 2)
      _kernelgen_fail("${where}" TOLERANCE "takes one or two numbers, got ${count}" "write TOLERANCE <atol> [<rtol>]")
    endif()
    list(GET KG_TOLERANCE 0 atol)
    if(count EQUAL 2)
      list(GET KG_TOLERANCE 1 rtol)
    endif()
    foreach(value IN ITEMS ${atol} ${rtol})
      if(NOT value MATCHES "${_KERNELGEN_NUMBER}" OR value MATCHES "^-")
        _kernelgen_fail("${where}" TOLERANCE "'${value}' is not a non-negative number" "write e.g. TOLERANCE 1e-4 1e-4")
      endif()
    endforeach()
    set(tolerance_json "  \"tolerance\": {\"atol\": ${atol}, \"rtol\": ${rtol}},\n")
  endif()
  _kernelgen_propagate(tolerance_json)
endfunction()

# FLOPS and BYTES, expressions over the `dims`: sets flops (the spec's value, 0 without FLOPS), flops_BENCH and
# cpu_flops_BENCH (its values at the bench_values and cpu_bench_values) and bytes_json (the spec's line for
# BYTES, empty without it). With BYTES, its values at the bench dims replace total_bytes and cpu_total_bytes.
function(_kernelgen_cost)
  set(flops 0)
  set(flops_BENCH 0)
  set(cpu_flops_BENCH 0)
  if(DEFINED KG_FLOPS)
    _kernelgen_dims_expression("${where}" FLOPS "${KG_FLOPS}" "${dims}" "${bench_values}" flops)
    _kernelgen_dims_expression("${where}" FLOPS "${KG_FLOPS}" "${dims}" "${cpu_bench_values}" cpu_flops)
  endif()
  set(bytes_json "")
  if(DEFINED KG_BYTES)
    _kernelgen_dims_expression("${where}" BYTES "${KG_BYTES}" "${dims}" "${bench_values}" bytes)
    _kernelgen_dims_expression("${where}" BYTES "${KG_BYTES}" "${dims}" "${cpu_bench_values}" cpu_bytes)
    set(bytes_json "  \"bytes\": ${bytes},\n")
    set(total_bytes ${bytes_BENCH})
    set(cpu_total_bytes ${cpu_bytes_BENCH})
  endif()
  _kernelgen_propagate(flops flops_BENCH cpu_flops_BENCH bytes_json total_bytes cpu_total_bytes)
endfunction()

# SAMPLES, ROUNDS, OPT_ROUNDS, BEAM, MODEL and BUDGET_USD: sets search_json, the spec's object of the LLM search
# settings given.
function(_kernelgen_search_json)
  set(search_json "")
  if(DEFINED KG_OPT_ROUNDS)
    if(NOT KG_OPT_ROUNDS MATCHES "^(0|[1-9][0-9]*)$")
      _kernelgen_fail("${where}" OPT_ROUNDS "'${KG_OPT_ROUNDS}' is not a whole number" "write e.g. OPT_ROUNDS 2 (0: none)")
    endif()
    list(APPEND search_json "\"opt_rounds\":${KG_OPT_ROUNDS}")
  endif()
  foreach(setting SAMPLES ROUNDS BEAM)
    if(DEFINED KG_${setting})
      if(NOT KG_${setting} MATCHES "^[1-9][0-9]*$")
        _kernelgen_fail("${where}" ${setting} "'${KG_${setting}}' is not a positive integer" "write e.g. ${setting} 4")
      endif()
      string(TOLOWER ${setting} key)
      list(APPEND search_json "\"${key}\":${KG_${setting}}")
    endif()
  endforeach()
  if(DEFINED KG_MODEL)
    if(NOT KG_MODEL MATCHES "^(openai|anthropic|gemini|replay)/[^ ]+$")
      _kernelgen_fail("${where}" MODEL "'${KG_MODEL}' is not provider/model with a provider kernelgen knows"
        "write e.g. MODEL openai/gpt-4o, anthropic/claude-sonnet-4-5 or gemini/gemini-2.5-flash (providers: openai, anthropic, gemini, replay; a local OpenAI-compatible server is openai/<model> with OPENAI_BASE_URL)")
    endif()
    list(APPEND search_json "\"model\":\"${KG_MODEL}\"")
  endif()
  if(DEFINED KG_BUDGET_USD)
    if(NOT KG_BUDGET_USD MATCHES "${_KERNELGEN_NUMBER}" OR KG_BUDGET_USD MATCHES "^-")
      _kernelgen_fail("${where}" BUDGET_USD "'${KG_BUDGET_USD}' is not a non-negative number" "write e.g. BUDGET_USD 2.50")
    endif()
    list(APPEND search_json "\"budget_usd\":${KG_BUDGET_USD}")
  endif()
  string(REPLACE ";" "," search_json "{${search_json}}")
  _kernelgen_propagate(search_json)
endfunction()

# The spec the build step reads, from the JSON the steps before made: sets generated_dir (where the op's kernel
# is checked in), dir (the op's folder in the build tree, <build>/kernelgen/<op>) and spec, and writes it to
# <dir>/spec.json unless it is there already.
function(_kernelgen_write_spec)
  if(DEFINED KERNELGEN_GENERATED_DIR)
    set(generated_dir "${KERNELGEN_GENERATED_DIR}/${name}")
  else()
    set(generated_dir "${PROJECT_SOURCE_DIR}/generated/${name}")
  endif()
  set(dir "${CMAKE_BINARY_DIR}/kernelgen/${name}")

  _kernelgen_json_string("${KG_DESCRIPTION}" description_json)
  _kernelgen_json_string("${reference}" reference_json)
  _kernelgen_json_string("${kernel}" kernel_json)
  _kernelgen_json_string("${generated_dir}" generated_json)
  string(CONCAT spec "{\n  \"contract\": 2,\n  \"name\": \"${name}\",\n  \"description\": ${description_json},\n"
           "  \"reference\": ${reference_json},\n  \"inputs\": ${INPUTS_json},\n  \"outputs\": ${OUTPUTS_json},\n"
           "  \"dims\": ${dims_json},\n  \"bench_dims\": ${bench_json},\n"
           "  \"cpu_bench_dims\": ${cpu_bench_json},\n"
           "  \"params\": ${params_json},\n${tolerance_json}  \"flops\": ${flops},\n${bytes_json}"
           "  \"kernel\": ${kernel_json},\n  \"variants\": ${variants_json},\n"
           "  \"generated_dir\": ${generated_json},\n"
           "  \"search\": ${search_json}\n}\n")
  string(JSON ignored ERROR_VARIABLE json_error LENGTH "${spec}" inputs)
  if(json_error)
    _kernelgen_fail("${where}" "(spec)" "kernelgen produced an invalid spec: ${json_error}" "report this as a bug")
  endif()
  _kernelgen_write_if_changed("${dir}/spec.json" "${spec}")
  _kernelgen_propagate(generated_dir dir spec)
endfunction()

# The templates' variables that the op as a whole decides: KG_OP, KG_GENERATED_DIR, KG_DESCRIPTION (on one
# line), KG_SPEC_JSON and, replacing the arguments of those names, KG_BYTES, KG_FLOPS, KG_CPU_BYTES and
# KG_CPU_FLOPS: the bytes and FLOPs of a call at the bench and CPU bench dims.
function(_kernelgen_op_interface)
  set(KG_OP "${name}")
  set(KG_GENERATED_DIR "${generated_dir}")
  string(REGEX REPLACE "[\r\n]+" " " KG_DESCRIPTION "${KG_DESCRIPTION}")
  set(KG_SPEC_JSON "${spec}")
  set(KG_BYTES ${total_bytes})
  set(KG_FLOPS ${flops_BENCH})
  set(KG_CPU_BYTES ${cpu_total_bytes})
  set(KG_CPU_FLOPS ${cpu_flops_BENCH})
  _kernelgen_propagate(KG_OP KG_GENERATED_DIR KG_DESCRIPTION KG_SPEC_JSON KG_BYTES KG_FLOPS KG_CPU_BYTES
    KG_CPU_FLOPS)
endfunction()

# Dims, the struct the wrapper's calls take first, and the templates' variables that declare and pass it: sets
# KG_DIM_COUNT, KG_DIMS_DECLARATION, KG_DIMS_PARAM, KG_DIMS_PARAM_COMMA, KG_DIMS_ARG_COMMA, KG_GRID_CALL,
# KG_DIMS_OR_EMPTY, KG_DIM_WORDS, KG_DIMS_CHECK, KG_DIMS_FROM_VALUES, and KG_BENCH_DIMS and KG_CPU_BENCH_DIMS (the
# Dims of bench_values and cpu_bench_values, replacing the arguments of those names). None of it for an op without
# dims, whose API is contract 1's.
function(_kernelgen_dims_interface)
  list(LENGTH dims KG_DIM_COUNT)
  if(NOT dims STREQUAL "")
    set(fields "")
    set(values "")
    set(names_cpp "")
    set(bench_init "")
    set(cpu_bench_init "")
    set(from_values "")
    set(index 0)
    foreach(dim IN LISTS dims)
      string(APPEND fields "    uint32_t ${dim} = 0;\n")
      list(APPEND values "dims.${dim}")
      list(APPEND names_cpp "\"${dim}\"")
      foreach(pair IN LISTS bench_values)
        if(pair MATCHES "^${dim}=(.*)$")
          list(APPEND bench_init "${CMAKE_MATCH_1}")
        endif()
      endforeach()
      foreach(pair IN LISTS cpu_bench_values)
        if(pair MATCHES "^${dim}=(.*)$")
          list(APPEND cpu_bench_init "${CMAKE_MATCH_1}")
        endif()
      endforeach()
      list(APPEND from_values "static_cast<uint32_t>(values[${index}])")
      math(EXPR index "${index} + 1")
    endforeach()
    string(REPLACE ";" ", " values "${values}")
    string(REPLACE ";" ", " names_cpp "${names_cpp}")
    string(REPLACE ";" ", " bench_init "${bench_init}")
    string(REPLACE ";" ", " cpu_bench_init "${cpu_bench_init}")
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
    set(KG_BENCH_DIMS "{${bench_init}}")
    set(KG_CPU_BENCH_DIMS "{${cpu_bench_init}}")
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
    set(KG_BENCH_DIMS "{}")
    set(KG_CPU_BENCH_DIMS "{}")
    set(KG_DIMS_FROM_VALUES "{}")
  endif()
  _kernelgen_propagate(KG_DIM_COUNT KG_DIMS_DECLARATION KG_DIMS_PARAM KG_DIMS_PARAM_COMMA KG_DIMS_ARG_COMMA
    KG_GRID_CALL KG_DIMS_OR_EMPTY KG_DIM_WORDS KG_DIMS_CHECK KG_BENCH_DIMS KG_CPU_BENCH_DIMS KG_DIMS_FROM_VALUES)
endfunction()

# The checked-in files are dependencies of the build step. The glob is re-checked on every build, so that
# deleting or adding files in generated/<op>/ re-runs configuration; a kernel that lost a file also loses its
# emitted kernel data, which makes the build step run and say what is wrong. Sets kernel_data (the build step's
# output, <dir>/kernel_data.cpp) and checked_in (the files of generated_dir and of its variants' folders).
function(_kernelgen_checked_in_files)
  set(kernel_data "${dir}/kernel_data.cpp")
  set(checked_in_patterns "")
  foreach(kernel_dir IN ITEMS "${generated_dir}" LISTS variant_names)
    if(NOT kernel_dir STREQUAL generated_dir)
      set(kernel_dir "${generated_dir}/variants/${kernel_dir}")
    endif()
    list(APPEND checked_in_patterns "${kernel_dir}/manifest.json" "${kernel_dir}/kernel.comp" "${kernel_dir}/kernel.spv")
  endforeach()
  file(GLOB checked_in CONFIGURE_DEPENDS ${checked_in_patterns})
  list(LENGTH checked_in checked_in_count)
  list(LENGTH checked_in_patterns expected_count)
  if(NOT checked_in_count EQUAL expected_count)
    file(REMOVE "${kernel_data}")
  endif()
  _kernelgen_propagate(kernel_data checked_in)
endfunction()

# The op's reference, compiled once: into the op's test, and into a module the tool loads (see
# generator/include/kernelgen/reference_module.hpp). The tool links no reference, so a changed reference relinks
# this module and re-runs this op's step alone. Creates kernelgen_reference_<name> (an OBJECT library) and the
# module, <dir>/reference.so, whose target it sets reference_module to.
function(_kernelgen_add_reference_module)
  add_library(kernelgen_reference_${name} OBJECT "${reference}")
  set_target_properties(kernelgen_reference_${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_link_libraries(kernelgen_reference_${name} PUBLIC kernelgen::reference)
  set(reference_module kernelgen_reference_module_${name})
  add_library(${reference_module} MODULE)
  target_link_libraries(${reference_module} PRIVATE kernelgen_reference_${name})
  # $<1:...>: the folder itself, without the per-configuration subfolder a multi-config generator would add.
  set_target_properties(${reference_module} PROPERTIES PREFIX "" OUTPUT_NAME reference
    LIBRARY_OUTPUT_DIRECTORY "$<1:${dir}>")
  _kernelgen_propagate(reference_module)
endfunction()

# The build step, which runs kernelgen::tool build-op on the spec to check the kernel in and writes kernel_data:
# a custom command whose dependencies are every input of the check (the tool, the reference module, the spec, the
# declared kernels, the checked-in files), and the targets kernelgen_regenerate_<name> and
# kernelgen_optimise_<name>, which run it on request.
function(_kernelgen_add_build_step)
  _kernelgen_tool_settings(tool_settings)
  set(build_op kernelgen::tool build-op --spec "${dir}/spec.json" --reference "$<TARGET_FILE:${reference_module}>"
               --out "${kernel_data}")
  # The step rewrites kernel_data.cpp only when it changes, and Ninja restats custom commands' outputs: a step
  # that re-runs for a touched reference leaves the op's library as it was.
  add_custom_command(OUTPUT "${kernel_data}"
    COMMAND ${build_op} ${tool_settings}
    DEPENDS kernelgen::tool ${reference_module} "${dir}/spec.json" "${reference}" ${kernel} ${variant_kernels}
            ${checked_in}
    COMMENT "kernelgen: checking ${name}'s kernel in ${generated_dir}"
    JOB_POOL kernelgen_gpu
    VERBATIM)
  # On request: search again (regenerate), or optimise the checked-in kernel; each also under a target for all ops.
  foreach(request regenerate optimise)
    if(request STREQUAL "regenerate")
      set(what "regenerating ${name}'s kernel")
    else()
      set(what "optimising ${name}'s checked-in kernel")
    endif()
    add_custom_target(kernelgen_${request}_${name}
      COMMAND ${build_op} --${request} ${tool_settings}
      DEPENDS kernelgen::tool ${reference_module}
      COMMENT "kernelgen: ${what}"
      USES_TERMINAL VERBATIM)
    add_dependencies(kernelgen_${request} kernelgen_${request}_${name})
  endforeach()
endfunction()

# kernelgen::<name>, the wrapper library: the interface known at configure time (op.hpp and op.cpp, configured
# into <dir> from the templates' variables) and the kernel data the build step writes.
function(_kernelgen_add_wrapper_library)
  configure_file("${_KERNELGEN_TEMPLATES}/op.hpp.in" "${dir}/include/kernelgen/ops/${name}.hpp" @ONLY)
  configure_file("${_KERNELGEN_TEMPLATES}/op.cpp.in" "${dir}/op.cpp" @ONLY)
  add_library(kernelgen_op_${name} STATIC "${dir}/op.cpp" "${kernel_data}")
  add_library(kernelgen::${name} ALIAS kernelgen_op_${name})
  target_include_directories(kernelgen_op_${name} PUBLIC "$<BUILD_INTERFACE:${dir}/include>")
  target_link_libraries(kernelgen_op_${name} PUBLIC kernelgen::runtime)
  add_dependencies(kernelgen_ops kernelgen_op_${name})
endfunction()

# With KERNELGEN_BUILD_OP_TESTS, test_kernelgen_<name>: the GoogleTest, configured into <dir>/test.cpp, that
# revalidates the kernel on fresh inputs, registered as the ctest test kernelgen.<name>.
function(_kernelgen_add_op_test)
  if(NOT KERNELGEN_BUILD_OP_TESTS)
    return()
  endif()
  # Imported targets are visible only below the directory that found them: find them again where a consumer
  # outside kernelgen's tree declares its op.
  if(NOT TARGET GTest::gtest_main)
    find_package(GTest REQUIRED)
  endif()
  configure_file("${_KERNELGEN_TEMPLATES}/test.cpp.in" "${dir}/test.cpp" @ONLY)
  add_executable(test_kernelgen_${name} "${dir}/test.cpp")
  # At -O1: the kernel, the validator and the reference it runs are compiled as the build type says, in the
  # libraries it links; its own source, GoogleTest's templates mostly, compiles in about 70% of -O3's time.
  target_compile_options(test_kernelgen_${name} PRIVATE $<$<CXX_COMPILER_ID:GNU,Clang>:-O1>)
  # The generator library for its glslang: the test compiles kernel.comp to check it is what the wrapper runs.
  target_link_libraries(test_kernelgen_${name} PRIVATE kernelgen::${name} kernelgen_reference_${name}
    kernelgen::core kernelgen::generator GTest::gtest_main)
  add_test(NAME kernelgen.${name} COMMAND test_kernelgen_${name})
  # A GPU of its own under ctest --resource-spec-file; the runtime opens the one ctest names (README).
  set_tests_properties(kernelgen.${name} PROPERTIES LABELS kernelgen RESOURCE_GROUPS gpu:1)
endfunction()

# With KERNELGEN_BUILD_BENCHMARKS, bench_kernelgen_<name>: the Google Benchmark, configured into <dir>/bench.cpp,
# that times the kernel. Built on request, not by `all`: by its name or with every op's, kernelgen_benchmarks.
function(_kernelgen_add_op_benchmark)
  if(NOT KERNELGEN_BUILD_BENCHMARKS)
    return()
  endif()
  if(NOT TARGET benchmark::benchmark)  # found again, as GTest above
    find_package(benchmark REQUIRED)
  endif()
  configure_file("${_KERNELGEN_TEMPLATES}/bench.cpp.in" "${dir}/bench.cpp" @ONLY)
  add_executable(bench_kernelgen_${name} EXCLUDE_FROM_ALL "${dir}/bench.cpp")
  target_link_libraries(bench_kernelgen_${name} PRIVATE kernelgen::${name} benchmark::benchmark)
  add_dependencies(kernelgen_benchmarks bench_kernelgen_${name})
endfunction()
