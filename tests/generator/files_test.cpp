// Writing files: the atomic write that the build step, the candidate log and `kernelgen report --html` share.
#include "kernelgen/store/files.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <iterator>

#include "scratch_dir.hpp"

namespace kernelgen {
namespace {

namespace fs = std::filesystem;

// Makes `directory` the current directory for the guard's lifetime.
class CurrentDirectory {
 public:
  explicit CurrentDirectory(const fs::path& directory) : previous_(fs::current_path()) {
    fs::current_path(directory);
  }
  ~CurrentDirectory() { fs::current_path(previous_); }
  CurrentDirectory(const CurrentDirectory&) = delete;
  CurrentDirectory& operator=(const CurrentDirectory&) = delete;

 private:
  fs::path previous_;
};

TEST(WriteFileAtomic, WritesABareFileNameInTheCurrentDirectory) {
  const test::ScratchDir dir;
  {
    const CurrentDirectory in(dir.path());
    write_file_atomic("report.html", "<!DOCTYPE html>\n");
  }
  EXPECT_EQ(read_file(dir.path() / "report.html"), "<!DOCTYPE html>\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1)
      << "no temporary file left beside it";
}

TEST(WriteFileAtomic, CreatesTheMissingDirectories) {
  const test::ScratchDir dir;
  write_file_atomic(dir.path() / "a" / "b" / "report.html", "page");
  EXPECT_EQ(read_file(dir.path() / "a" / "b" / "report.html"), "page");
}

}  // namespace
}  // namespace kernelgen
