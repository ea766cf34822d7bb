// spec.json as the build step reads it: any bytes. Malformed specs are refused with std::invalid_argument (or a
// JSON error); an accepted one serialises and parses back to the same meaning.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "fuzz_check.hpp"
#include "kernelgen/contract/op_spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using kernelgen::fuzz::require;
  using nlohmann::json;
  const json in = json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (in.is_discarded()) return 0;
  kernelgen::OpSpec spec;
  try {
    spec = kernelgen::parse_op_spec(in);
  } catch (const std::invalid_argument&) {
    return 0;
  } catch (const json::exception&) {
    return 0;
  }
  // Anything else escaping, including from here on, is a crash libFuzzer reports.
  const kernelgen::OpSpec back = kernelgen::parse_op_spec(kernelgen::to_json(spec));
  require(kernelgen::spec_hash(back, "reference", "prompt") == kernelgen::spec_hash(spec, "reference", "prompt"),
          "a spec parses back from its JSON with the same hash");
  require(kernelgen::spec_slug(back) == kernelgen::spec_slug(spec), "a spec parses back with the same slug");
  require(spec.bytes_at(spec.bench_dims()) > 0, "an accepted spec moves some bytes at its benchmark dims");
  return 0;
}
