#include "kernelgen/op_spec.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "kernelgen/files.hpp"
#include "kernelgen/hash.hpp"

namespace kernelgen {

using nlohmann::json;

int64_t TensorSpec::elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int64_t TensorSpec::bytes() const { return elements() * 4; }

std::vector<TensorSpec> OpSpec::tensors() const {
  std::vector<TensorSpec> all = inputs;
  all.insert(all.end(), outputs.begin(), outputs.end());
  return all;
}

int64_t OpSpec::bytes_moved() const {
  int64_t bytes = 0;
  for (const auto& tensor : tensors()) bytes += tensor.bytes();
  return bytes;
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

std::string identifier(const json& value, const std::string& op, const std::string& field) {
  if (!value.is_string()) reject(op, field, "must be a string");
  const std::string text = value.get<std::string>();
  // Not std::regex: libstdc++'s matcher recurses per character and overflows the stack on a long name.
  const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  if (text.empty() || std::isdigit(static_cast<unsigned char>(text[0])) || !std::all_of(text.begin(), text.end(), word))
    reject(op, field, "'" + text + "' is not a C identifier");
  return text;
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
    const json& dtype = require(item, op, "dtype", where + ".dtype");
    if (!dtype.is_string() || dtype.get<std::string>() != "f32")
      reject(op, where + ".dtype", dtype.dump() + " is not supported; contract v1 has f32");
    tensor.dtype = "f32";
    const json& shape = require(item, op, "shape", where + ".shape");
    if (!shape.is_array() || shape.empty() || shape.size() > 8)
      reject(op, where + ".shape", "must be an array of 1 to 8 dimensions");
    int64_t elements = 1;
    for (const json& extent : shape) {
      if (!extent.is_number_integer() || extent.get<int64_t>() <= 0)
        reject(op, where + ".shape", extent.dump() + " is not a positive integer");
      tensor.shape.push_back(extent.get<int64_t>());
      // Checked before multiplying: an extent near 2^63 would overflow the product.
      if (tensor.shape.back() > (int64_t{1} << 31) / elements) reject(op, where + ".shape", "more than 2^31 elements");
      elements *= tensor.shape.back();
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

}  // namespace

OpSpec parse_op_spec(const json& in) {
  if (!in.is_object()) reject("", "(top level)", "must be a JSON object");
  OpSpec spec;
  spec.name = identifier(require(in, "", "name"), "", "name");
  const std::string& op = spec.name;
  spec.contract = whole_number(in, op, "contract", 1);
  if (spec.contract != 1) reject(op, "contract", "version " + std::to_string(spec.contract) + " is not supported");
  spec.description = string_or_empty(in, op, "description");
  spec.reference_path = string_or_empty(in, op, "reference");
  spec.inputs = tensor_list(require(in, op, "inputs"), op, "inputs");
  spec.outputs = tensor_list(require(in, op, "outputs"), op, "outputs");
  if (spec.outputs.empty()) reject(op, "outputs", "an op needs at least one output");
  std::vector<std::string> names;
  for (const auto& tensor : spec.tensors()) {
    if (std::find(names.begin(), names.end(), tensor.name) != names.end())
      reject(op, "inputs/outputs", "tensor name '" + tensor.name + "' is used twice");
    names.push_back(tensor.name);
  }
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
    if (!tolerance.is_object()) reject(op, "tolerance", "must be an object with atol and rtol");
    spec.atol = number(tolerance, op, "atol", spec.atol);
    spec.rtol = number(tolerance, op, "rtol", spec.rtol);
  }
  if (!(spec.atol >= 0) || !(spec.rtol >= 0)) reject(op, "tolerance", "atol and rtol must be >= 0");
  spec.flops = number(in, op, "flops", 0);
  spec.kernel_path = string_or_empty(in, op, "kernel");
  spec.generated_dir = string_or_empty(in, op, "generated_dir");
  if (in.contains("search")) {
    const json& search = in.at("search");
    if (!search.is_object()) reject(op, "search", "must be an object");
    spec.search.samples = whole_number(search, op, "samples", spec.search.samples);
    spec.search.rounds = whole_number(search, op, "rounds", spec.search.rounds);
    spec.search.beam = whole_number(search, op, "beam", spec.search.beam);
    spec.search.model = string_or_empty(search, op, "model");
    spec.search.budget_usd = number(search, op, "budget_usd", 0);
  }
  return spec;
}

OpSpec load_op_spec(const std::string& path) {
  json parsed;
  try {
    parsed = json::parse(read_file(path));
  } catch (const json::parse_error& error) {
    throw std::invalid_argument(path + ": not valid JSON: " + error.what());
  }
  try {
    return parse_op_spec(parsed);
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument(path + ": " + error.what());
  }
}

namespace {

json tensors_json(const std::vector<TensorSpec>& tensors) {
  json list = json::array();
  for (const auto& tensor : tensors) list.push_back({{"name", tensor.name}, {"dtype", tensor.dtype}, {"shape", tensor.shape}});
  return list;
}

}  // namespace

json to_json(const OpSpec& spec) {
  return {{"contract", spec.contract},
          {"name", spec.name},
          {"description", spec.description},
          {"reference", spec.reference_path},
          {"inputs", tensors_json(spec.inputs)},
          {"outputs", tensors_json(spec.outputs)},
          {"params", spec.params},
          {"tolerance", {{"atol", spec.atol}, {"rtol", spec.rtol}}},
          {"flops", spec.flops},
          {"kernel", spec.kernel_path},
          {"generated_dir", spec.generated_dir},
          {"search",
           {{"samples", spec.search.samples},
            {"rounds", spec.search.rounds},
            {"beam", spec.search.beam},
            {"model", spec.search.model},
            {"budget_usd", spec.search.budget_usd}}}};
}

std::string spec_hash(const OpSpec& spec, const std::string& reference_text, const std::string& prompt_version) {
  const json meaning = {{"contract", spec.contract},
                        {"name", spec.name},
                        {"description", spec.description},
                        {"inputs", tensors_json(spec.inputs)},
                        {"outputs", tensors_json(spec.outputs)},
                        {"params", spec.params},
                        {"tolerance", {{"atol", spec.atol}, {"rtol", spec.rtol}}},
                        {"reference", content_hash(reference_text)},
                        {"prompt", prompt_version}};
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
