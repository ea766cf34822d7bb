#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace kernelgen {

// FNV-1a, 64 bits, as 16 hex digits. Detects changed and corrupted files; not a defence against an attacker
// who can also rewrite the manifest.
std::string content_hash(std::string_view bytes);
std::string content_hash(std::span<const uint32_t> words);

}  // namespace kernelgen
