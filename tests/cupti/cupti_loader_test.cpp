// The launch watch opens CUPTI at run time (never linked): from its soname on the loader's path, then
// the paths file's `cupti` (KC_CUPTI over it). Where no place loads, the watch's reason (gate 5's
// run-time line, N/A) names each library tried and how to point at one.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "backends/cuda/launch_watch.hpp"

using kc::cuda::cupti_places;
using kc::cuda::open_cupti;

TEST(CuptiLoader, APathThatDoesNotExistIsAnErrorNamingTheLibraryAndHowToPointAtOne) {
  const std::string gone = "/nonexistent/kc-cupti-test/libcupti.so.13";
  const std::string why = open_cupti({gone});
  EXPECT_EQ(why.rfind("CUPTI (libcupti", 0), 0u) << why;
  EXPECT_NE(why.find(gone + ": cannot open shared object file"), std::string::npos) << why;
  EXPECT_NE(why.find("LD_LIBRARY_PATH"), std::string::npos) << why;
  EXPECT_NE(why.find("KC_CUPTI"), std::string::npos) << why;
  EXPECT_NE(why.find("`cupti` line in "), std::string::npos) << why;
}

TEST(CuptiLoader, ALibraryWithoutCuptisCallsIsNamedWithTheCallItLacks) {
  const std::string why = open_cupti({"/nonexistent/libcupti.so", "libc.so.6"});
  EXPECT_NE(why.find("/nonexistent/libcupti.so: "), std::string::npos) << why;
  EXPECT_NE(why.find("libc.so.6 has no cuptiSubscribe"), std::string::npos) << why;
}

TEST(CuptiLoader, TheSonameComesFirstThenTheEnvironmentsPath) {
  setenv("KC_CUPTI", "/somewhere/libcupti.so", 1);
  const auto places = cupti_places();
  unsetenv("KC_CUPTI");
  ASSERT_EQ(places.size(), 2u);
  EXPECT_EQ(places[0].rfind("libcupti.so.", 0), 0u) << places[0];
  EXPECT_EQ(places[1], "/somewhere/libcupti.so");
}

// This binary sits in the build's bin/, beside the kc.paths the build wrote with the toolkit's CUPTI:
// that library loads (no GPU needed) and has every call the watch resolves.
TEST(CuptiLoader, TheBuildsPathsFileNamesACuptiThatOpens) {
  if (std::getenv("KC_CUPTI")) GTEST_SKIP() << "KC_CUPTI overrides the file";
  const auto places = cupti_places();
  ASSERT_EQ(places.size(), 2u) << "no `cupti` line in the build's kc.paths";
  EXPECT_TRUE(std::filesystem::is_regular_file(places[1])) << places[1];
  EXPECT_EQ(open_cupti({places[1]}), "");
}
