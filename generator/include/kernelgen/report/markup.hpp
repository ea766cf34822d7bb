#pragma once
#include <string>
#include <string_view>

namespace kernelgen {

// Text (or an attribute value) for an HTML or SVG page: the characters markup gives meaning to, as entities.
// The report's text comes from the candidate log (op names, models, record names), which anyone could have
// written.
inline std::string escape_markup(std::string_view text) {
  std::string escaped;
  escaped.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        escaped += "&amp;";
        break;
      case '<':
        escaped += "&lt;";
        break;
      case '>':
        escaped += "&gt;";
        break;
      case '"':
        escaped += "&quot;";
        break;
      case '\'':
        escaped += "&#39;";
        break;
      default:
        escaped += c;
    }
  }
  return escaped;
}

}  // namespace kernelgen
