# kernelgen_add_op(): declare a GPU operation whose Vulkan compute kernel kernelgen checks in under
# generated/<op>/ and embeds into a C++ wrapper library.
#
#   kernelgen_add_op(<name>
#     REFERENCE   <file.cpp>           C++ (Eigen) reference defining the op: KERNELGEN_REFERENCE(<name>) { ... }
#     DESCRIPTION "<text>"             what the op computes, in a sentence
#     INPUTS      <tensor>...          e.g. x:f32[4,8,16,16]   (name:dtype[extents], row-major)
#     OUTPUTS     <tensor>...          at least one
#     [PARAMS     key=value...]        numeric hyperparameters, passed to the reference as `params`
#     [TOLERANCE  <atol> [<rtol>]]     default 1e-5 1e-5; atol is relative to the output's largest magnitude
#     [FLOPS      <expression>]        floating-point operations per call, e.g. 2*100*70*130 (for GFLOP/s)
#     [SAMPLES n] [ROUNDS n] [BEAM n] [MODEL provider/model] [BUDGET_USD x]    LLM search settings
#     [KERNEL     <file.comp>])        a hand-written candidate, validated like any other
#
# Creates
#   kernelgen::<name>           library: #include <kernelgen/ops/<name>.hpp>, class kernelgen::ops::<name>
#   test_kernelgen_<name>       GoogleTest revalidating the kernel on fresh inputs (ctest label `kernelgen`)
#   bench_kernelgen_<name>      Google Benchmark timing it with GPU timestamps
#   kernelgen_regenerate_<name> target that searches for the kernel again (and kernelgen_regenerate for all)
#
# The kernel is checked at build time, never at configure time: the build fails with instructions when
# generated/<name>/ is missing, corrupt or stale and no candidate passes. Set KERNELGEN_GENERATED_DIR to keep
# kernels somewhere other than ${PROJECT_SOURCE_DIR}/generated.
include_guard(GLOBAL)

# Where the build step writes the candidate log.
function(_kernelgen_log_dir out)
  if(KERNELGEN_CACHE_DIR)
    set(${out} "${KERNELGEN_CACHE_DIR}" PARENT_SCOPE)
  else()
    set(${out} "${CMAKE_BINARY_DIR}/kernelgen/candidates" PARENT_SCOPE)
  endif()
endfunction()

if(NOT TARGET kernelgen_regenerate)
  _kernelgen_log_dir(_kernelgen_log)
  # Runs after every kernelgen_regenerate_<op>: the summary table of the candidate log.
  add_custom_target(kernelgen_regenerate
    COMMAND kernelgen_tool report --log-dir "${_kernelgen_log}"
    COMMENT "kernelgen: candidate log summary (${_kernelgen_log})"
    USES_TERMINAL VERBATIM)
  unset(_kernelgen_log)
endif()

function(_kernelgen_fail where argument problem fix)
  message(FATAL_ERROR "${where}: ${argument}: ${problem}\n  Fix: ${fix}")
endfunction()

# JSON string literal for arbitrary text.
function(_kernelgen_json_string text out)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REPLACE "\"" "\\\"" text "${text}")
  string(REPLACE "\n" "\\n" text "${text}")
  string(REPLACE "\r" "\\r" text "${text}")
  string(REPLACE "\t" "\\t" text "${text}")
  set(${out} "\"${text}\"" PARENT_SCOPE)
endfunction()

# Parses `name:dtype[e0,e1,...]` into JSON and C++ fragments.
function(_kernelgen_parse_tensor where argument text out_json out_name out_elements out_dims)
  if(NOT text MATCHES "^([A-Za-z_][A-Za-z0-9_]*):([A-Za-z0-9]+)\\[([^]]*)\\]$")
    _kernelgen_fail("${where}" "${argument}" "'${text}' is not a tensor declaration"
      "write name:dtype[extents], e.g. x:f32[4,8,16,16]")
  endif()
  set(name "${CMAKE_MATCH_1}")
  set(dtype "${CMAKE_MATCH_2}")
  set(extents "${CMAKE_MATCH_3}")
  if(NOT dtype IN_LIST _KERNELGEN_DTYPES)
    _kernelgen_fail("${where}" "${argument}" "unknown dtype '${dtype}' in '${text}'"
      "use one of: ${_KERNELGEN_DTYPES} (kernel contract v1)")
  endif()
  if(NOT extents MATCHES "^[1-9][0-9]*(,[1-9][0-9]*)*$")
    _kernelgen_fail("${where}" "${argument}" "malformed shape [${extents}] in '${text}'"
      "list positive integer extents separated by commas, e.g. [4,8,16,16]")
  endif()
  string(REPLACE "," ";" dims "${extents}")
  set(elements 1)
  foreach(dim IN LISTS dims)
    math(EXPR elements "${elements} * ${dim}")
  endforeach()
  set(${out_json} "{\"name\":\"${name}\",\"dtype\":\"${dtype}\",\"shape\":[${extents}]}" PARENT_SCOPE)
  set(${out_name} "${name}" PARENT_SCOPE)
  set(${out_elements} "${elements}" PARENT_SCOPE)
  set(${out_dims} "${dims}" PARENT_SCOPE)
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
  foreach(setting KERNELGEN_MODEL OPENAI_BASE_URL ANTHROPIC_BASE_URL KERNELGEN_TOKEN_BUDGET KERNELGEN_MAX_OUTPUT_TOKENS
                  KERNELGEN_TIMEOUT_S KERNELGEN_VALIDATION_TIMEOUT_S)
    if(NOT "${${setting}}" STREQUAL "")
      list(APPEND flags --set "${setting}=${${setting}}")
    endif()
  endforeach()
  foreach(secret OPENAI_API_KEY ANTHROPIC_API_KEY)
    if(DEFINED CACHE{${secret}})
      message(WARNING "kernelgen ignores -D${secret}: CMake keeps it in CMakeCache.txt. Remove it from the cache "
                      "(cmake -U ${secret}) and set it in the environment or a .env file instead.")
    endif()
  endforeach()
  if(KERNELGEN_OFFLINE)
    list(APPEND flags --offline)
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
  set(one_value REFERENCE DESCRIPTION FLOPS SAMPLES ROUNDS BEAM MODEL BUDGET_USD KERNEL)
  set(multi_value INPUTS OUTPUTS PARAMS TOLERANCE)
  cmake_parse_arguments(PARSE_ARGV 1 KG "" "${one_value}" "${multi_value}")
  # Set here, not at file scope: a consumer calls this function from its own directories, where variables of
  # the directory that included this file are not visible. The helpers below see them as their caller's.
  set(_KERNELGEN_TEMPLATES "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/templates")
  set(_KERNELGEN_DTYPES f32)
  # A JSON number, since values are copied into the spec as they are written.
  set(_KERNELGEN_NUMBER "^-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?$")
  set(where "kernelgen_add_op(${name}) in ${CMAKE_CURRENT_LIST_FILE}")
  set(known "REFERENCE, DESCRIPTION, INPUTS, OUTPUTS, PARAMS, TOLERANCE, FLOPS, SAMPLES, ROUNDS, BEAM, MODEL, BUDGET_USD, KERNEL")

  if(NOT name MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    _kernelgen_fail("kernelgen_add_op(${name}) in ${CMAKE_CURRENT_LIST_FILE}" "name"
      "'${name}' is not a C identifier" "name the op with letters, digits and underscores")
  endif()
  if(KG_UNPARSED_ARGUMENTS)
    list(GET KG_UNPARSED_ARGUMENTS 0 unknown)
    _kernelgen_fail("${where}" "${unknown}" "unknown argument" "use only ${known}")
  endif()
  # cmake_parse_arguments files an unknown keyword after INPUTS, OUTPUTS, PARAMS or TOLERANCE as one of that
  # list's values; no valid value of those lists is a bare upper-case word.
  foreach(list_argument IN LISTS multi_value)
    foreach(value IN LISTS KG_${list_argument})
      if(value MATCHES "^[A-Z][A-Z0-9_]+$")
        _kernelgen_fail("${where}" "${value}" "unknown argument (read as a value of ${list_argument})"
          "use only ${known}")
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

  foreach(required REFERENCE DESCRIPTION OUTPUTS)
    if(NOT DEFINED KG_${required})
      _kernelgen_fail("${where}" "${required}" "missing" "every op needs REFERENCE, DESCRIPTION and OUTPUTS")
    endif()
  endforeach()
  _kernelgen_resolve_file("${where}" REFERENCE "${KG_REFERENCE}" reference)
  set(kernel "")
  if(DEFINED KG_KERNEL)
    _kernelgen_resolve_file("${where}" KERNEL "${KG_KERNEL}" kernel)
  endif()

  # Tensors: JSON for the spec, and the C++ fragments of the wrapper's interface.
  set(constants "")
  set(typed_params "")
  set(typed_addresses "")
  set(typed_call "")
  set(tensor_bytes "")
  set(total_bytes 0)
  set(binding 0)
  set(names "")
  foreach(kind INPUTS OUTPUTS)
    set(${kind}_json "")
    foreach(text IN LISTS KG_${kind})
      _kernelgen_parse_tensor("${where}" ${kind} "${text}" json tensor elements dims)
      if(tensor IN_LIST names)
        _kernelgen_fail("${where}" ${kind} "tensor name '${tensor}' is used twice" "give each tensor its own name")
      endif()
      list(APPEND names "${tensor}")
      list(APPEND ${kind}_json "${json}")
      list(LENGTH dims rank)
      string(REPLACE ";" ", " dims_cpp "${dims}")
      math(EXPR bytes "${elements} * 4")
      math(EXPR total_bytes "${total_bytes} + ${bytes}")
      string(APPEND constants
        "  static constexpr std::array<int64_t, ${rank}> ${tensor}_shape{${dims_cpp}};\n"
        "  static constexpr std::size_t ${tensor}_elements = ${elements};\n"
        "  static constexpr std::size_t ${tensor}_bytes = ${bytes};\n")
      if(kind STREQUAL "INPUTS")
        list(APPEND typed_params "const Buffer& ${tensor}")
      else()
        list(APPEND typed_params "Buffer& ${tensor}")
      endif()
      list(APPEND typed_addresses "&${tensor}")
      list(APPEND typed_call "b[${binding}]")
      list(APPEND tensor_bytes "${bytes}")
      math(EXPR binding "${binding} + 1")
    endforeach()
    string(REPLACE ";" "," ${kind}_json "[${${kind}_json}]")
  endforeach()
  list(LENGTH KG_INPUTS input_count)
  list(LENGTH KG_OUTPUTS output_count)

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

  set(atol 1e-5)
  set(rtol 1e-5)
  if(DEFINED KG_TOLERANCE)
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
  endif()

  set(flops 0)
  if(DEFINED KG_FLOPS)
    if(NOT KG_FLOPS MATCHES "^[0-9*+() ]+$")
      _kernelgen_fail("${where}" FLOPS "'${KG_FLOPS}' is not an integer expression" "write e.g. FLOPS 2*100*70*130")
    endif()
    math(EXPR flops "${KG_FLOPS}")
  endif()

  set(search_json "")
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
    if(NOT KG_MODEL MATCHES "^(openai|anthropic|replay)/[^ ]+$")
      _kernelgen_fail("${where}" MODEL "'${KG_MODEL}' is not provider/model"
        "write e.g. MODEL openai/gpt-4o or anthropic/claude-sonnet-4-5 (providers: openai, anthropic, replay)")
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
  string(CONCAT spec "{\n  \"contract\": 1,\n  \"name\": \"${name}\",\n  \"description\": ${description_json},\n"
           "  \"reference\": ${reference_json},\n  \"inputs\": ${INPUTS_json},\n  \"outputs\": ${OUTPUTS_json},\n"
           "  \"params\": ${params_json},\n  \"tolerance\": {\"atol\": ${atol}, \"rtol\": ${rtol}},\n"
           "  \"flops\": ${flops},\n  \"kernel\": ${kernel_json},\n  \"generated_dir\": ${generated_json},\n"
           "  \"search\": ${search_json}\n}\n")
  string(JSON ignored ERROR_VARIABLE json_error LENGTH "${spec}" inputs)
  if(json_error)
    _kernelgen_fail("${where}" "(spec)" "kernelgen produced an invalid spec: ${json_error}" "report this as a bug")
  endif()
  _kernelgen_write_if_changed("${dir}/spec.json" "${spec}")

  # The wrapper's interface, known at configure time; the kernel data comes from the build step.
  set(KG_OP "${name}")
  set(KG_GENERATED_DIR "${generated_dir}")
  string(REGEX REPLACE "[\r\n]+" " " KG_DESCRIPTION "${KG_DESCRIPTION}")
  set(KG_TENSOR_CONSTANTS "${constants}")
  string(REPLACE ";" ", " KG_TYPED_PARAMS "${typed_params}")
  string(REPLACE ";" ", " KG_TYPED_ADDRESSES "${typed_addresses}")
  string(REPLACE ";" ", " KG_TYPED_CALL "${typed_call}")
  string(REPLACE ";" ", " KG_TENSOR_BYTES "${tensor_bytes}")
  set(KG_BINDING_COUNT ${binding})
  set(KG_BYTES ${total_bytes})
  set(KG_FLOPS ${flops})
  set(KG_SPEC_JSON "${spec}")
  configure_file("${_KERNELGEN_TEMPLATES}/op.hpp.in" "${dir}/include/kernelgen/ops/${name}.hpp" @ONLY)
  configure_file("${_KERNELGEN_TEMPLATES}/op.cpp.in" "${dir}/op.cpp" @ONLY)

  # The checked-in files are dependencies of the build step. The glob is re-checked on every build, so that
  # deleting or adding files in generated/<op>/ re-runs configuration; a kernel that lost a file also loses
  # its emitted kernel data, which makes the build step run and say what is wrong.
  set(kernel_data "${dir}/kernel_data.cpp")
  file(GLOB checked_in CONFIGURE_DEPENDS "${generated_dir}/manifest.json" "${generated_dir}/kernel.comp"
       "${generated_dir}/kernel.spv")
  list(LENGTH checked_in checked_in_count)
  if(NOT checked_in_count EQUAL 3)
    file(REMOVE "${kernel_data}")
  endif()
  _kernelgen_tool_settings(tool_settings)
  add_custom_command(OUTPUT "${kernel_data}"
    COMMAND kernelgen_tool build-op --spec "${dir}/spec.json" --out "${kernel_data}" ${tool_settings}
    DEPENDS kernelgen_tool "${dir}/spec.json" "${reference}" ${kernel} ${checked_in}
    COMMENT "kernelgen: checking ${name}'s kernel in ${generated_dir}"
    VERBATIM)
  add_custom_target(kernelgen_regenerate_${name}
    COMMAND kernelgen_tool build-op --spec "${dir}/spec.json" --out "${kernel_data}" --regenerate ${tool_settings}
    DEPENDS kernelgen_tool
    COMMENT "kernelgen: regenerating ${name}'s kernel"
    USES_TERMINAL VERBATIM)
  add_dependencies(kernelgen_regenerate kernelgen_regenerate_${name})

  add_library(kernelgen_reference_${name} OBJECT "${reference}")
  target_link_libraries(kernelgen_reference_${name} PUBLIC kernelgen::reference)
  target_link_libraries(kernelgen_tool PRIVATE kernelgen_reference_${name})

  add_library(kernelgen_op_${name} STATIC "${dir}/op.cpp" "${kernel_data}")
  add_library(kernelgen::${name} ALIAS kernelgen_op_${name})
  target_include_directories(kernelgen_op_${name} PUBLIC "$<BUILD_INTERFACE:${dir}/include>")
  target_link_libraries(kernelgen_op_${name} PUBLIC kernelgen::runtime)

  # Imported targets are visible only below the directory that found them: find them again where a consumer
  # outside kernelgen's tree declares its op.
  if(KERNELGEN_BUILD_OP_TESTS)
    if(NOT TARGET GTest::gtest_main)
      find_package(GTest REQUIRED)
    endif()
    configure_file("${_KERNELGEN_TEMPLATES}/test.cpp.in" "${dir}/test.cpp" @ONLY)
    add_executable(test_kernelgen_${name} "${dir}/test.cpp")
    target_link_libraries(test_kernelgen_${name} PRIVATE kernelgen::${name} kernelgen_reference_${name}
      kernelgen::core GTest::gtest_main)
    add_test(NAME kernelgen.${name} COMMAND test_kernelgen_${name})
    set_tests_properties(kernelgen.${name} PROPERTIES LABELS kernelgen)
  endif()
  if(KERNELGEN_BUILD_BENCHMARKS)
    if(NOT TARGET benchmark::benchmark)
      find_package(benchmark REQUIRED)
    endif()
    configure_file("${_KERNELGEN_TEMPLATES}/bench.cpp.in" "${dir}/bench.cpp" @ONLY)
    add_executable(bench_kernelgen_${name} "${dir}/bench.cpp")
    target_link_libraries(bench_kernelgen_${name} PRIVATE kernelgen::${name} benchmark::benchmark)
  endif()
endfunction()
