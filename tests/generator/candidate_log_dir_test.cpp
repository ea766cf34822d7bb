// Which candidate log `kernelgen list`, `show`, `report` and `devices` read without --log-dir: that of the
// project the current directory lies in, found upwards from it, over a tree of directories made here.
#include "kernelgen/store/candidate_log_dir.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>

#include "kernelgen/store/files.hpp"
#include "scratch_dir.hpp"

namespace kernelgen {
namespace {

namespace fs = std::filesystem;

// A project as cmake -B build leaves it: sources with an op folder, and a build tree whose cache has
// kernelgen's KERNELGEN_CACHE_DIR entry (`cache_dir` its value).
class ProjectTree : public ::testing::Test {
 protected:
  fs::path project() const { return dir.path() / "myproject"; }
  fs::path build() const { return project() / "build"; }

  void configure(const std::string& cache_dir = "") const {
    fs::create_directories(project() / "ops" / "relu");
    fs::create_directories(build() / "kernelgen" / "relu");
    write_file_atomic(build() / "CMakeCache.txt",
                      "CMAKE_BUILD_TYPE:STRING=Release\nKERNELGEN_CACHE_DIR:PATH=" + cache_dir +
                          "\nKERNELGEN_MODEL:STRING=\n");
  }

  test::ScratchDir dir;
};

TEST_F(ProjectTree, InsideABuildTreeItIsThatTreesLog) {
  configure();
  EXPECT_EQ(project_log_dir(build()), build() / "kernelgen" / "candidates");
  EXPECT_EQ(project_log_dir(build() / "kernelgen" / "relu"), build() / "kernelgen" / "candidates");
}

TEST_F(ProjectTree, InTheSourceTreeItIsTheLogOfItsBuildFolder) {
  configure();
  EXPECT_EQ(project_log_dir(project()), build() / "kernelgen" / "candidates");
  EXPECT_EQ(project_log_dir(project() / "ops" / "relu"), build() / "kernelgen" / "candidates");
}

TEST_F(ProjectTree, ALogNoSearchHasWrittenYetIsStillTheProjectsLog) {
  configure();
  EXPECT_FALSE(fs::exists(build() / "kernelgen" / "candidates"));
  EXPECT_EQ(project_log_dir(project()), build() / "kernelgen" / "candidates");
}

TEST_F(ProjectTree, TheBuildTreesKernelgenCacheDirMovesIt) {
  const fs::path elsewhere = dir.path() / "shared_log";
  configure(elsewhere.string());
  EXPECT_EQ(project_log_dir(project() / "ops"), elsewhere);
}

TEST_F(ProjectTree, ABuildTreeThatDoesNotUseKernelgenIsPassedOver) {
  configure();
  const fs::path other_build = project() / "third_party" / "zlib" / "build";
  fs::create_directories(other_build);
  write_file_atomic(other_build / "CMakeCache.txt", "CMAKE_BUILD_TYPE:STRING=Release\n");
  EXPECT_EQ(project_log_dir(other_build), build() / "kernelgen" / "candidates");
}

TEST_F(ProjectTree, OutsideAnyProjectThereIsNone) {
  if (const auto above = project_log_dir(dir.path().parent_path()))
    GTEST_SKIP() << "the temporary directory lies in a project whose log is " << *above;
  fs::create_directories(dir.path() / "notes");
  EXPECT_EQ(project_log_dir(dir.path() / "notes"), std::nullopt);
}

}  // namespace
}  // namespace kernelgen
