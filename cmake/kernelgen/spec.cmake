# The op's spec, <build>/kernelgen/<op>/spec.json: what the kernelgen tool reads (PARAMS, TOLERANCE, FLOPS and
# BYTES, the search settings, and the tensors and dims that shapes.cmake parsed).
include_guard(GLOBAL)

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
# `<n>ulp` (0.5ulp, 1ulp, 1.5ulp, ...) judges the outputs in ulps of their dtype instead of atol and rtol.
function(_kernelgen_tolerance_json)
  set(tolerance_json "")
  if(DEFINED KG_TOLERANCE AND KG_TOLERANCE MATCHES "ulp")
    if(NOT KG_TOLERANCE MATCHES "^(0\\.5|[1-9][0-9]*(\\.[05])?)ulp$")
      _kernelgen_fail("${where}" TOLERANCE "'${KG_TOLERANCE}' is not a positive multiple of 0.5ulp"
        "write e.g. TOLERANCE 0.5ulp (correctly rounded) or TOLERANCE 1ulp, alone")
    endif()
    set(tolerance_json "  \"tolerance\": {\"ulp\": ${CMAKE_MATCH_1}},\n")
  elseif(DEFINED KG_TOLERANCE)
    set(rtol 1e-5)
    list(LENGTH KG_TOLERANCE count)
    if(count GREATER 2)
      _kernelgen_fail("${where}" TOLERANCE "takes one or two numbers, got ${count}"
        "write TOLERANCE <atol> [<rtol>], or TOLERANCE <n>ulp")
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

# FLOPS and BYTES, expressions over the `dims`, checked by evaluating them at the bench_values and cpu_bench_values:
# sets flops (the spec's value, 0 without FLOPS) and bytes_json (the spec's line for BYTES, empty without it).
function(_kernelgen_cost)
  set(flops 0)
  if(DEFINED KG_FLOPS)
    _kernelgen_dims_expression("${where}" FLOPS "${KG_FLOPS}" "${dims}" "${bench_values}" flops)
    _kernelgen_dims_expression("${where}" FLOPS "${KG_FLOPS}" "${dims}" "${cpu_bench_values}" cpu_flops)
  endif()
  set(bytes_json "")
  if(DEFINED KG_BYTES)
    _kernelgen_dims_expression("${where}" BYTES "${KG_BYTES}" "${dims}" "${bench_values}" bytes)
    _kernelgen_dims_expression("${where}" BYTES "${KG_BYTES}" "${dims}" "${cpu_bench_values}" cpu_bytes)
    set(bytes_json "  \"bytes\": ${bytes},\n")
  endif()
  _kernelgen_propagate(flops bytes_json)
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
  set(scratch_json "")
  if(NOT SCRATCH_json STREQUAL "[]")
    set(scratch_json "  \"scratch\": ${SCRATCH_json},\n")
  endif()
  string(CONCAT spec "{\n  \"contract\": 2,\n  \"name\": \"${name}\",\n  \"description\": ${description_json},\n"
           "  \"reference\": ${reference_json},\n  \"inputs\": ${INPUTS_json},\n  \"outputs\": ${OUTPUTS_json},\n"
           "${scratch_json}"
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
