#include "kernelgen/store/files.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace kernelgen {

std::string read_file(const std::filesystem::path& path) {
  // An ifstream opens a directory and reads it as empty; that must not pass for an empty file.
  if (std::filesystem::is_directory(path)) throw std::runtime_error("cannot read " + path.string() + ": it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string() + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<uint32_t> read_spirv(const std::filesystem::path& path) {
  const std::string bytes = read_file(path);
  if (bytes.size() % 4 != 0)
    throw std::runtime_error(path.string() + " is " + std::to_string(bytes.size()) +
                             " bytes, not a whole number of 32-bit SPIR-V words");
  std::vector<uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), bytes.size());
  return words;
}

std::filesystem::path hidden_sibling(const std::filesystem::path& path, const std::string& tag) {
  std::random_device entropy;
  std::string name = ".";
  name.append(path.filename().string()).append(".").append(tag);
  name.append(std::to_string(::getpid())).append("_").append(std::to_string(entropy()));
  return path.parent_path() / name;
}

int remove_abandoned_siblings(const std::filesystem::path& directory) {
  static const std::regex kWorkInProgress(R"(\..+\.(?:tmp|new)([0-9]{1,9})_[0-9]+)");
  int removed = 0;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(directory, error)) {
    const std::string name = entry.path().filename().string();
    std::smatch match;
    if (!std::regex_match(name, match, kWorkInProgress)) continue;
    const long pid = std::stol(match[1].str());
    if (pid <= 0 || pid == ::getpid() || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    std::error_code ignored;
    if (std::filesystem::remove_all(entry.path(), ignored) > 0) ++removed;
  }
  return removed;
}

void write_file_atomic(const std::filesystem::path& path, const std::string& bytes) {
  // A bare file name has no parent to create, and create_directories("") throws.
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  const std::filesystem::path temporary = hidden_sibling(path, "tmp");
  FILE* file = std::fopen(temporary.c_str(), "wb");
  if (!file) throw std::runtime_error("cannot write " + temporary.string() + ": " + std::strerror(errno));
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size() && std::fflush(file) == 0 &&
                       ::fsync(::fileno(file)) == 0;
  const int error = errno;
  std::fclose(file);
  if (!written) {
    std::filesystem::remove(temporary);
    throw std::runtime_error("cannot write " + temporary.string() + ": " + std::strerror(error));
  }
  std::filesystem::rename(temporary, path);
}

bool write_file_if_changed(const std::filesystem::path& path, const std::string& bytes) {
  std::error_code error;
  const auto size = std::filesystem::file_size(path, error);
  if (!error && size == bytes.size() && read_file(path) == bytes) return false;
  write_file_atomic(path, bytes);
  return true;
}

}  // namespace kernelgen
