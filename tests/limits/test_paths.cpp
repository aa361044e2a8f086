// The paths file (kc/limits/paths.hpp): where a contract binary finds its launch rows and records,
// never compiled in; the build's own bin/kc.paths; the environment over both.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "kc/limits/cuda_audit.hpp"
#include "kc/limits/error.hpp"
#include "kc/limits/launches.hpp"
#include "kc/limits/paths.hpp"

namespace fs = std::filesystem;
using namespace kc::limits;

TEST(ContractPaths, RelativePathsAreTakenFromTheFilesFolderAndCommentsSkipped) {
  auto e = parse_paths("# a comment\nlaunches kernels\nlaunches /abs/controls  # mine\n"
                       "cuda-records ../records/cuda\nlimits-tool /opt/kc/bin/kernel-contract-limits\n",
                       "/srv/proj/build/bin", "x.paths");
  ASSERT_EQ(e.size(), 4u);
  EXPECT_EQ(e[0], std::make_pair(std::string("launches"), std::string("/srv/proj/build/bin/kernels")));
  EXPECT_EQ(e[1].second, "/abs/controls");
  EXPECT_EQ(e[2].second, "/srv/proj/build/records/cuda");
  EXPECT_EQ(e[3].first, "limits-tool");
}

TEST(ContractPaths, ABadLineIsAnErrorNamingTheFileAndLine) {
  try {
    parse_paths("launches a\nrecords b\n", "/d", "mine.paths");
    FAIL() << "an unknown key was taken";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("mine.paths:2: unknown key 'records'"), std::string::npos) << e.what();
  }
  try {
    parse_paths("cuda-records\n", "/d", "mine.paths");
    FAIL() << "a key with no path was taken";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("mine.paths:1: 'cuda-records' names no path"), std::string::npos) << e.what();
  }
}

// This test binary sits in the build's bin/, beside the kc.paths the build wrote: the CUDA and HIP
// rows derived from the launch declarations (or their committed copies), the source tree's kernels/
// and controls/, its records. No path to them is compiled into the readers.
TEST(ContractPaths, TheBuildsOwnFileIsFoundBesideTheExecutable) {
  if (std::getenv("KC_LAUNCHES") || std::getenv("KC_CUDA_RECORDS")) GTEST_SKIP() << "the environment overrides the file";
  EXPECT_EQ(fs::path(paths_file()).filename(), "kc.paths") << paths_file();
  const auto launches = default_launch_paths();
  ASSERT_EQ(launches.size(), 4u);
  EXPECT_EQ(fs::path(launches[0]).filename(), "cuda.tsv");
  EXPECT_EQ(fs::path(launches[1]).filename(), "hip.tsv");
  EXPECT_EQ(fs::path(launches[2]).filename(), "kernels");
  EXPECT_EQ(fs::path(launches[3]).filename(), "controls");
  EXPECT_TRUE(fs::is_directory(default_records_dir())) << default_records_dir();
  EXPECT_EQ(fs::path(default_records_dir()).filename(), "cuda");
}

TEST(ContractPaths, TheEnvironmentComesFirst) {
  setenv("KC_CUDA_RECORDS", "/elsewhere/records", 1);
  setenv("KC_LAUNCHES", "/a:/b", 1);
  EXPECT_EQ(default_records_dir(), "/elsewhere/records");
  EXPECT_EQ(default_launch_paths(), (std::vector<std::string>{"/a", "/b"}));
  unsetenv("KC_CUDA_RECORDS");
  unsetenv("KC_LAUNCHES");
}
