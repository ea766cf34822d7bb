#pragma once
// What the fuzz targets share: a property that must hold for every input, and a scratch directory for the
// targets that go through files.
#include <stdlib.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace kernelgen::fuzz {

// A broken property prints what broke and aborts, so libFuzzer keeps the input as a crash artifact.
inline void require(bool holds, const char* property) {
  if (holds) return;
  std::fprintf(stderr, "kernelgen fuzz: property broken: %s\n", property);
  std::abort();
}

// One fresh directory for the whole fuzzing run, removed at exit.
inline const std::filesystem::path& scratch_dir() {
  static const std::filesystem::path path = [] {
    std::string pattern = (std::filesystem::temp_directory_path() / "kernelgen_fuzz_XXXXXX").string();
    require(::mkdtemp(pattern.data()) != nullptr, "a temporary directory can be created");
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(scratch_dir(), ignored);
    });
    return std::filesystem::path(pattern);
  }();
  return path;
}

// Plain writes, not write_file_atomic: its fsync would make a run of 20000 inputs take minutes.
inline void write(const std::filesystem::path& path, const uint8_t* data, size_t size) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  require(file.good(), "the scratch file can be written");
}

}  // namespace kernelgen::fuzz
