#include "kernelgen/contract/op_spec.hpp"

#include <algorithm>
#include <filesystem>
#include <cctype>
#include <cmath>
#include <climits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "kernelgen/dim_expression.hpp"
#include "kernelgen/store/files.hpp"
#include "kernelgen/store/hash.hpp"

namespace kernelgen {

using nlohmann::json;

namespace {

// The most elements one tensor may have at any validated or benchmarked size.
constexpr int64_t kMaxElements = int64_t{1} << 31;
// The version of the prompt templates when every op was of contract 1. Specs of contract 1 keep hashing with
// it, so kernels checked in before contract 2 stay current.
constexpr const char* kContract1PromptVersion = "1-d777aab6";

int64_t extent_at(const Extent& extent, std::span<const int64_t> dims) {
  if (!extent.symbolic()) return extent.size;
  if (static_cast<size_t>(extent.dim_index) >= dims.size())
    throw std::invalid_argument("kernelgen: the size of dim '" + extent.dim + "' is needed but was not given");
  return dims[static_cast<size_t>(extent.dim_index)];
}

}  // namespace

bool TensorSpec::symbolic() const {
  return std::any_of(shape.begin(), shape.end(), [](const Extent& e) { return e.symbolic(); });
}

std::vector<int64_t> TensorSpec::shape_at(std::span<const int64_t> dims) const {
  std::vector<int64_t> concrete;
  for (const Extent& extent : shape) concrete.push_back(extent_at(extent, dims));
  return concrete;
}

int64_t TensorSpec::elements(std::span<const int64_t> dims) const {
  int64_t n = 1;
  for (const Extent& extent : shape) n *= extent_at(extent, dims);
  return n;
}

int64_t TensorSpec::bytes(std::span<const int64_t> dims) const {
  return elements(dims) * static_cast<int64_t>(dtype_bytes(dtype));
}

std::vector<TensorSpec> OpSpec::tensors() const {
  std::vector<TensorSpec> all = inputs;
  all.insert(all.end(), outputs.begin(), outputs.end());
  all.insert(all.end(), scratch.begin(), scratch.end());
  return all;
}

const char* OpSpec::binding_role(size_t binding) const {
  return binding < inputs.size() ? "input" : binding < call_tensor_count() ? "output" : "scratch";
}

std::vector<std::string> OpSpec::dim_names() const {
  std::vector<std::string> names;
  for (const DimSpec& dim : dims) names.push_back(dim.name);
  return names;
}

int OpSpec::contract() const {
  for (const TensorSpec& tensor : tensors())
    if (tensor.dtype != DType::f32 || tensor.symbolic() || tensor.index_of) return 2;
  return dims.empty() ? 1 : 2;
}

Tolerance OpSpec::tolerance_of(const TensorSpec& output) const {
  const DTypeInfo& info = dtype_info(output.dtype);
  // An integer (an index, a count) is right or wrong: TOLERANCE is for floats.
  if (info.kind != DTypeKind::Float) return {0, 0};
  if (tolerance) return *tolerance;
  return {info.atol, info.rtol};
}

double OpSpec::flops_at(std::span<const int64_t> values) const {
  if (flops.empty()) return 0;
  return static_cast<double>(DimExpression::parse(flops, dim_names()).evaluate(values));
}

double OpSpec::bytes_at(std::span<const int64_t> values) const {
  if (!bytes.empty()) return static_cast<double>(DimExpression::parse(bytes, dim_names()).evaluate(values));
  double total = 0;
  for (const auto* list : {&inputs, &outputs})
    for (const auto& tensor : *list) total += static_cast<double>(tensor.bytes(values));
  return total;
}

DimValues OpSpec::bench_dims(bool cpu_device) const {
  DimValues values;
  for (const DimSpec& dim : dims) {
    if (cpu_device && dim.cpu_bench > 0) values.push_back(dim.cpu_bench);
    else values.push_back(dim.bench > 0 ? dim.bench : *std::max_element(dim.sizes.begin(), dim.sizes.end()));
  }
  return values;
}

namespace {

[[noreturn]] void reject(const std::string& op, const std::string& field, const std::string& problem) {
  throw std::invalid_argument("op spec" + (op.empty() ? std::string() : " '" + op + "'") + ": " + field + ": " +
                              problem);
}

// `label` names the field in messages when it is nested, e.g. inputs[0].shape.
const json& require(const json& object, const std::string& op, const std::string& key, std::string label = "") {
  if (!object.contains(key)) reject(op, label.empty() ? key : label, "missing");
  return object.at(key);
}

bool is_identifier(const std::string& text) {
  // Not std::regex: libstdc++'s matcher recurses per character and overflows the stack on a long name.
  const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  return !text.empty() && !std::isdigit(static_cast<unsigned char>(text[0])) &&
         std::all_of(text.begin(), text.end(), word);
}

std::string identifier(const json& value, const std::string& op, const std::string& field) {
  if (!value.is_string()) reject(op, field, "must be a string");
  const std::string text = value.get<std::string>();
  if (!is_identifier(text)) reject(op, field, "'" + text + "' is not a C identifier");
  return text;
}

// A positive size that fits the uint32 push constant a kernel receives it in.
int64_t positive_size(const json& value, const std::string& op, const std::string& field) {
  if (!value.is_number_integer() || value.get<int64_t>() <= 0 || value.get<int64_t>() > UINT32_MAX)
    reject(op, field, value.dump() + " is not a positive integer below 2^32");
  return value.get<int64_t>();
}

// A number or a dim name; dims are resolved once every tensor is read.
Extent extent(const json& value, const std::string& op, const std::string& field) {
  if (value.is_string()) return Extent{0, identifier(value, op, field)};
  return Extent{positive_size(value, op, field), ""};
}

DType dtype(const json& value, const std::string& op, const std::string& field) {
  if (!value.is_string()) reject(op, field, "must be a string");
  const std::string name = value.get<std::string>();
  if (auto parsed = parse_dtype(name)) return *parsed;
  reject(op, field, "'" + name + "' is not a dtype; kernelgen has " + dtype_names());
}

std::vector<TensorSpec> tensor_list(const json& list, const std::string& op, const std::string& field) {
  if (!list.is_array()) reject(op, field, "must be an array of tensors");
  std::vector<TensorSpec> tensors;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string where = field + "[" + std::to_string(i) + "]";
    const json& item = list[i];
    if (!item.is_object()) reject(op, where, "must be an object with name, dtype and shape");
    TensorSpec tensor;
    tensor.name = identifier(require(item, op, "name", where + ".name"), op, where + ".name");
    tensor.dtype = dtype(require(item, op, "dtype", where + ".dtype"), op, where + ".dtype");
    const json& shape = require(item, op, "shape", where + ".shape");
    if (!shape.is_array() || shape.empty() || shape.size() > 8)
      reject(op, where + ".shape", "must be an array of 1 to 8 dimensions");
    for (const json& value : shape) tensor.shape.push_back(extent(value, op, where + ".shape"));
    if (item.contains("index")) {
      if (tensor.dtype != DType::i32 && tensor.dtype != DType::u32)
        reject(op, where + ".index", "an INDEX tensor holds indices: declare it i32 or u32");
      tensor.index_of = extent(item.at("index"), op, where + ".index");
    }
    tensors.push_back(std::move(tensor));
  }
  return tensors;
}

double number(const json& object, const std::string& op, const std::string& key, double fallback) {
  if (!object.contains(key)) return fallback;
  if (!object.at(key).is_number()) reject(op, key, "must be a number");
  return object.at(key).get<double>();
}

// A count held in an int: out of int's range is an error, not undefined behaviour in the conversion.
int whole_number(const json& object, const std::string& op, const std::string& key, int fallback) {
  const double value = number(object, op, key, fallback);
  if (!(value >= INT_MIN && value <= INT_MAX)) reject(op, key, json(value).dump() + " is out of range");
  return static_cast<int>(value);
}

std::string string_or_empty(const json& object, const std::string& op, const std::string& key) {
  if (!object.contains(key)) return {};
  if (!object.at(key).is_string()) reject(op, key, "must be a string");
  return object.at(key).get<std::string>();
}

// Gives every symbolic extent its dim's index, collecting the dims in order of first appearance: across the
// shapes of the inputs then the outputs, then the INDEX bounds (a dim only an index bound names comes last).
// cmake/KernelGen.cmake orders them the same way; the push-constant block follows this order.
void resolve_dims(OpSpec& spec, const json& in) {
  const std::string& op = spec.name;
  auto resolve = [&](Extent& extent) {
    if (extent.dim.empty()) return;
    auto found = std::find_if(spec.dims.begin(), spec.dims.end(), [&](const DimSpec& d) { return d.name == extent.dim; });
    if (found == spec.dims.end()) {
      spec.dims.push_back({extent.dim, {}, 0});
      found = spec.dims.end() - 1;
    }
    extent.dim_index = static_cast<int>(found - spec.dims.begin());
  };
  for (auto* list : {&spec.inputs, &spec.outputs})
    for (TensorSpec& tensor : *list)
      for (Extent& extent : tensor.shape) resolve(extent);
  for (TensorSpec& tensor : spec.inputs)
    if (tensor.index_of) resolve(*tensor.index_of);
  // A scratch extent sizes memory from the call's dims; it cannot bring a dim of its own, which no caller
  // gives.
  for (TensorSpec& tensor : spec.scratch)
    for (Extent& extent : tensor.shape) {
      const size_t before = spec.dims.size();
      resolve(extent);
      if (spec.dims.size() != before)
        reject(op, "scratch",
               tensor.name + "'s extent '" + extent.dim +
                   "' is not a dim of the inputs or outputs; size scratch by their dims or by numbers");
    }

  const json sizes = in.value("dims", json::object());
  const json bench = in.value("bench_dims", json::object());
  const json cpu_bench = in.value("cpu_bench_dims", json::object());
  for (const auto* object : {&sizes, &bench, &cpu_bench})
    if (!object->is_object())
      reject(op, object == &sizes ? "dims" : object == &bench ? "bench_dims" : "cpu_bench_dims",
             "must be an object of dim: sizes");
  for (const auto& item : sizes.items()) {
    const std::string& name = item.key();
    const json& list = item.value();
    if (std::none_of(spec.dims.begin(), spec.dims.end(), [&](const DimSpec& d) { return d.name == name; }))
      reject(op, "DIMS", "'" + name + "' is not used by any tensor; remove it or use it in a shape");
    if (!list.is_array() || list.empty()) reject(op, "DIMS " + name, "must list at least one size");
  }
  for (const auto& item : bench.items())
    if (!sizes.contains(item.key())) reject(op, "BENCH_DIMS", "'" + item.key() + "' is not a dim listed in DIMS");
  for (const auto& item : cpu_bench.items())
    if (!sizes.contains(item.key()))
      reject(op, "CPU_BENCH_DIMS", "'" + item.key() + "' is not a dim listed in DIMS");
  for (DimSpec& dim : spec.dims) {
    if (!sizes.contains(dim.name))
      reject(op, "DIMS", "dim '" + dim.name + "' is used in a shape but has no sizes; add e.g. DIMS " + dim.name +
                             "=1,7,64,333");
    for (const json& size : sizes.at(dim.name)) {
      dim.sizes.push_back(positive_size(size, op, "DIMS " + dim.name));
      if (std::count(dim.sizes.begin(), dim.sizes.end(), dim.sizes.back()) > 1)
        reject(op, "DIMS " + dim.name, "size " + size.dump() + " is listed twice");
    }
    if (bench.contains(dim.name)) dim.bench = positive_size(bench.at(dim.name), op, "BENCH_DIMS " + dim.name);
    if (cpu_bench.contains(dim.name))
      dim.cpu_bench = positive_size(cpu_bench.at(dim.name), op, "CPU_BENCH_DIMS " + dim.name);
  }
}

// Every tensor at the largest sizes validated or benchmarked holds at most kMaxElements.
void check_sizes(const OpSpec& spec) {
  DimValues largest;
  for (const DimSpec& dim : spec.dims)
    largest.push_back(std::max({dim.bench, dim.cpu_bench, *std::max_element(dim.sizes.begin(), dim.sizes.end())}));
  const std::pair<const char*, const std::vector<TensorSpec>*> lists[] = {
      {"inputs", &spec.inputs}, {"outputs", &spec.outputs}, {"scratch", &spec.scratch}};
  for (const auto& [field, list] : lists)
    for (size_t t = 0; t < list->size(); ++t) {
      const TensorSpec& tensor = (*list)[t];
      const std::string where =
          std::string(field) + "[" + std::to_string(t) + "].shape (" + tensor.name + ")";
      int64_t elements = 1;
      for (const Extent& extent : tensor.shape) {
        const int64_t size = extent.symbolic() ? largest[static_cast<size_t>(extent.dim_index)] : extent.size;
        // Checked before multiplying: an extent near 2^32 would overflow the product.
        if (size > kMaxElements / elements)
          reject(spec.name, where, "more than 2^31 elements at the largest DIMS/BENCH_DIMS/CPU_BENCH_DIMS");
        elements *= size;
      }
    }
}

// FLOPS and BYTES: a number, or an expression over the dims (checked by parsing it).
std::string dims_expression(const json& in, const OpSpec& spec, const std::string& key, const std::string& argument) {
  if (!in.contains(key)) return {};
  const json& value = in.at(key);
  std::string text;
  if (value.is_number_integer() && value.get<int64_t>() >= 0) {
    text = value.dump();
  } else if (value.is_number()) {
    if (value.get<double>() == 0) return {};
    reject(spec.name, argument, value.dump() + " is not a non-negative integer");
  } else if (value.is_string()) {
    text = value.get<std::string>();
  } else {
    reject(spec.name, argument, "must be a number or an expression over the dims");
  }
  if (text.empty() || text == "0") return {};
  try {
    DimExpression::parse(text, spec.dim_names());
  } catch (const std::invalid_argument& error) {
    reject(spec.name, argument, "'" + text + "': " + error.what());
  }
  return text;
}

}  // namespace

OpSpec parse_op_spec(const json& in) {
  if (!in.is_object()) reject("", "(top level)", "must be a JSON object");
  OpSpec spec;
  spec.name = identifier(require(in, "", "name"), "", "name");
  const std::string& op = spec.name;
  const int contract = whole_number(in, op, "contract", 1);
  if (contract != 1 && contract != 2)
    reject(op, "contract", "version " + std::to_string(contract) + " is not supported (kernelgen reads 1 and 2)");
  spec.description = string_or_empty(in, op, "description");
  spec.reference_path = string_or_empty(in, op, "reference");
  spec.inputs = tensor_list(require(in, op, "inputs"), op, "inputs");
  spec.outputs = tensor_list(require(in, op, "outputs"), op, "outputs");
  if (spec.outputs.empty()) reject(op, "outputs", "an op needs at least one output");
  if (in.contains("scratch")) spec.scratch = tensor_list(in.at("scratch"), op, "scratch");
  std::vector<std::string> names;
  for (const auto& tensor : spec.tensors()) {
    if (std::find(names.begin(), names.end(), tensor.name) != names.end())
      reject(op, spec.scratch.empty() ? "inputs/outputs" : "inputs/outputs/scratch",
             "tensor name '" + tensor.name + "' is used twice");
    names.push_back(tensor.name);
  }
  for (const auto& output : spec.outputs)
    if (output.index_of) reject(op, "outputs", "INDEX applies to inputs; " + output.name + " is an output");
  for (const auto& scratch : spec.scratch) {
    if (scratch.index_of) reject(op, "scratch", "INDEX applies to inputs; " + scratch.name + " is scratch");
    // 32-bit elements: what atomic counters and partial sums use.
    if (dtype_bytes(scratch.dtype) != 4)
      reject(op, "scratch",
             scratch.name + " is " + std::string(dtype_name(scratch.dtype)) + "; scratch is f32, i32 or u32");
  }
  resolve_dims(spec, in);
  check_sizes(spec);
  if (in.contains("params")) {
    const json& params = in.at("params");
    if (!params.is_object()) reject(op, "params", "must be an object of name: number");
    for (const auto& [key, value] : params.items()) {
      identifier(json(key), op, "params");
      if (!value.is_number()) reject(op, "params." + key, "must be a number");
      spec.params[key] = value.get<double>();
    }
  }
  if (in.contains("tolerance")) {
    const json& tolerance = in.at("tolerance");
    if (!tolerance.is_object()) reject(op, "tolerance", "must be an object with atol and rtol, or with ulp");
    if (tolerance.contains("ulp")) {
      if (tolerance.contains("atol") || tolerance.contains("rtol"))
        reject(op, "tolerance", "ulp replaces atol and rtol: give one or the other");
      const double ulp = number(tolerance, op, "ulp", 0);
      if (!(ulp > 0) || ulp > 1e6 || 2 * ulp != std::floor(2 * ulp))
        reject(op, "tolerance", json(ulp).dump() + "ulp is not a positive multiple of 0.5ulp (0.5ulp: correctly rounded)");
      spec.tolerance = Tolerance{.ulp = ulp};
    } else {
      spec.tolerance = Tolerance{number(tolerance, op, "atol", 1e-5), number(tolerance, op, "rtol", 1e-5)};
      if (!(spec.tolerance->atol >= 0) || !(spec.tolerance->rtol >= 0))
        reject(op, "tolerance", "atol and rtol must be >= 0");
    }
  }
  spec.flops = dims_expression(in, spec, "flops", "FLOPS");
  spec.bytes = dims_expression(in, spec, "bytes", "BYTES");
  spec.kernel_path = string_or_empty(in, op, "kernel");
  spec.generated_dir = string_or_empty(in, op, "generated_dir");
  if (in.contains("variants")) {
    const json& variants = in.at("variants");
    if (!variants.is_array()) reject(op, "variants", "must be an array of {name, kernel}");
    for (const json& variant : variants) {
      if (!variant.is_object()) reject(op, "variants", "each must be an object with name and kernel");
      VariantSpec parsed{identifier(variant.value("name", json()), op, "variants.name"),
                         string_or_empty(variant, op, "kernel")};
      if (parsed.kernel_path.empty()) reject(op, "variants." + parsed.name, "needs a kernel file");
      for (const VariantSpec& earlier : spec.variants)
        if (earlier.name == parsed.name) reject(op, "variants." + parsed.name, "is declared twice");
      spec.variants.push_back(parsed);
    }
  }
  if (in.contains("search")) {
    const json& search = in.at("search");
    if (!search.is_object()) reject(op, "search", "must be an object");
    spec.search.samples = whole_number(search, op, "samples", spec.search.samples);
    spec.search.rounds = whole_number(search, op, "rounds", spec.search.rounds);
    spec.search.opt_rounds = whole_number(search, op, "opt_rounds", spec.search.opt_rounds);
    spec.search.beam = whole_number(search, op, "beam", spec.search.beam);
    if (spec.search.opt_rounds < 0) reject(op, "opt_rounds", "must be 0 or more");
    if (spec.search.beam < 1) reject(op, "beam", "must be 1 or more");
    spec.search.model = string_or_empty(search, op, "model");
    spec.search.budget_usd = number(search, op, "budget_usd", 0);
  }
  return spec;
}

json read_op_spec_json(const std::string& path) {
  try {
    return json::parse(read_file(path));
  } catch (const json::parse_error& error) {
    throw std::invalid_argument(path + ": not valid JSON: " + error.what());
  }
}

OpSpec load_op_spec(const std::string& path) {
  const json parsed = read_op_spec_json(path);
  try {
    return parse_op_spec(parsed);
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument(path + ": " + error.what());
  }
}

namespace {

json extent_json(const Extent& extent) { return extent.symbolic() ? json(extent.dim) : json(extent.size); }

// Contract 1 writes exactly what it always wrote, so its hashes do not change.
json tensors_json(const std::vector<TensorSpec>& tensors) {
  json list = json::array();
  for (const auto& tensor : tensors) {
    json shape = json::array();
    for (const Extent& extent : tensor.shape) shape.push_back(extent_json(extent));
    json item = {{"name", tensor.name}, {"dtype", dtype_name(tensor.dtype)}, {"shape", shape}};
    if (tensor.index_of) item["index"] = extent_json(*tensor.index_of);
    list.push_back(item);
  }
  return list;
}

// DIMS as lists, or one of the bench sizes (a member pointer: &DimSpec::bench) where declared.
json dims_json(const OpSpec& spec) {
  json object = json::object();
  for (const DimSpec& dim : spec.dims) object[dim.name] = dim.sizes;
  return object;
}

json bench_json(const OpSpec& spec, int64_t DimSpec::*size) {
  json object = json::object();
  for (const DimSpec& dim : spec.dims)
    if (dim.*size > 0) object[dim.name] = dim.*size;
  return object;
}

// atol and rtol as they always were, so that the hashes of ops that declare them do not change.
json tolerance_json(const Tolerance& tolerance) {
  if (tolerance.ulp > 0) return {{"ulp", tolerance.ulp}};
  return {{"atol", tolerance.atol}, {"rtol", tolerance.rtol}};
}

}  // namespace

json to_json(const OpSpec& spec) {
  json out = {{"contract", spec.contract()},
              {"name", spec.name},
              {"description", spec.description},
              {"reference", spec.reference_path},
              {"inputs", tensors_json(spec.inputs)},
              {"outputs", tensors_json(spec.outputs)},
              {"dims", dims_json(spec)},
              {"bench_dims", bench_json(spec, &DimSpec::bench)},
              {"cpu_bench_dims", bench_json(spec, &DimSpec::cpu_bench)},
              {"params", spec.params},
              {"flops", spec.flops},
              {"bytes", spec.bytes},
              {"kernel", spec.kernel_path},
              {"generated_dir", spec.generated_dir},
              {"search",
               {{"samples", spec.search.samples},
                {"rounds", spec.search.rounds},
                {"opt_rounds", spec.search.opt_rounds},
                {"beam", spec.search.beam},
                {"model", spec.search.model},
                {"budget_usd", spec.search.budget_usd}}}};
  if (spec.tolerance) out["tolerance"] = tolerance_json(*spec.tolerance);
  if (!spec.scratch.empty()) out["scratch"] = tensors_json(spec.scratch);
  if (!spec.variants.empty()) {
    out["variants"] = json::array();
    for (const VariantSpec& variant : spec.variants)
      out["variants"].push_back({{"name", variant.name}, {"kernel", variant.kernel_path}});
  }
  return out;
}

std::string OpSpec::variant_dir(const VariantSpec& variant) const {
  return (std::filesystem::path(generated_dir) / "variants" / variant.name).string();
}

std::string spec_hash(const OpSpec& spec, const std::string& reference_text, const std::string& prompt_version) {
  json meaning = {{"contract", spec.contract()},
                  {"name", spec.name},
                  {"description", spec.description},
                  {"inputs", tensors_json(spec.inputs)},
                  {"outputs", tensors_json(spec.outputs)},
                  {"params", spec.params},
                  {"reference", content_hash(reference_text)}};
  // Only where declared, so that the hashes of ops without scratch do not change.
  if (!spec.scratch.empty()) meaning["scratch"] = tensors_json(spec.scratch);
  if (spec.contract() == 1) {
    meaning["tolerance"] = tolerance_json(spec.tolerance_of(spec.outputs.front()));
    meaning["prompt"] = kContract1PromptVersion;
  } else {
    meaning["tolerance"] = spec.tolerance ? tolerance_json(*spec.tolerance) : json();
    meaning["dims"] = dims_json(spec);
    meaning["prompt"] = prompt_version;
  }
  return content_hash(meaning.dump());
}

namespace {

std::string shapes(const std::vector<TensorSpec>& tensors) {
  std::string text;
  for (size_t t = 0; t < tensors.size(); ++t) {
    if (t) text += "_";
    text += join_extents(tensors[t].shape, 'x');
  }
  return text;
}

}  // namespace

std::string join_extents(const std::vector<int64_t>& shape, char separator) {
  std::string text;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (d) text += separator;
    text += std::to_string(shape[d]);
  }
  return text;
}

std::string join_extents(const std::vector<Extent>& shape, char separator) {
  std::string text;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (d) text += separator;
    text += shape[d].text();
  }
  return text;
}

std::string dims_text(const OpSpec& spec, std::span<const int64_t> dims) {
  std::string text;
  for (size_t d = 0; d < spec.dims.size() && d < dims.size(); ++d)
    text += (d ? " " : "") + spec.dims[d].name + "=" + std::to_string(dims[d]);
  return text;
}

std::string spec_slug(const OpSpec& spec) {
  std::string slug = spec.name + "_i" + shapes(spec.inputs) + "_o" + shapes(spec.outputs);
  for (const auto& [key, value] : spec.params) {
    std::string number = json(value).dump();
    std::replace(number.begin(), number.end(), '.', 'p');
    std::replace(number.begin(), number.end(), '-', 'm');
    slug += "_" + key + number;
  }
  return slug;
}

}  // namespace kernelgen
