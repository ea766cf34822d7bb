#include "kernelgen/store/hash.hpp"

#include <cstdio>

namespace kernelgen {

namespace {

std::string hex(uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

uint64_t fnv1a(const unsigned char* bytes, size_t size) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) {
    hash ^= bytes[i];
    hash *= 0x100000001b3ull;
  }
  return hash;
}

}  // namespace

std::string content_hash(std::string_view bytes) {
  return hex(fnv1a(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()));
}

std::string content_hash(std::span<const uint32_t> words) {
  return hex(fnv1a(reinterpret_cast<const unsigned char*>(words.data()), words.size_bytes()));
}

}  // namespace kernelgen
