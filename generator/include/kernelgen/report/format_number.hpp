#pragma once
#include <cstdio>
#include <string>

namespace kernelgen {

// One number through a printf pattern ("%.1f us"): the reports' tables and the roofline's labels.
inline std::string format_number(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

}  // namespace kernelgen
