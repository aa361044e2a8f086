// The race an idle GPU hides, through the whole command line (planted-contract, whose entries
// include every served kernel and control): rows/ctl_timed_tile/f32 is red at gate 2 under load,
// and red under compute-sanitizer's racecheck, while a served row sum is clean under every tool.
// This process never touches CUDA; without a GPU (or without compute-sanitizer) it says so.
#include "planted_run.hpp"

namespace {
using kc_test::lines_with;

// planted-contract with args: its output and exit code.
std::pair<std::string, int> contract(const std::string& args) {
  auto [out, st] = kc_test::planted_contract(args);
  return {out, st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1};
}

TEST(LoadedContract, TheTimedTileIsRedUnderLoad) {
  auto [out, rc] = contract("--backend cuda --no-limits --only rows/ctl_timed_tile/f32 --exact");
  if (auto absent = lines_with(out, "== cuda: absent ("); !absent.empty())
    GTEST_SKIP() << "no GPU here: " << absent[0];
  const auto red = lines_with(out, "cuda rows/ctl_timed_tile/f32 gate2");
  ASSERT_EQ(red.size(), 1u) << out;
  EXPECT_EQ(red[0].rfind("RED ", 0), 0u) << red[0];
  EXPECT_NE(red[0].find("under load ("), std::string::npos) << "only the loaded runs may tell: " << red[0];
  EXPECT_EQ(rc, 0);
}

TEST(LoadedContract, RacecheckFindsTheTimedTileAndNothingInARowSum) {
  auto [out, rc] = contract("--sanitize racecheck --only rows/ctl_timed_tile/f32 --exact");
  if (!lines_with(out, "needs NVIDIA's compute-sanitizer").empty()) GTEST_SKIP() << "no compute-sanitizer here";
  if (!lines_with(out, "cuda is absent").empty()) GTEST_SKIP() << "no GPU here";
  const auto red = lines_with(out, "RED   cuda rows/ctl_timed_tile/f32 sanitize racecheck: ");
  ASSERT_EQ(red.size(), 1u) << out;
  EXPECT_NE(red[0].find("Race reported"), std::string::npos) << red[0];
  EXPECT_EQ(rc, 0) << "a control's finding is not held against the run";
  auto [sum, src] = contract("--sanitize all --only rows/sum/f32 --exact");
  for (const char* tool : {"memcheck", "racecheck", "initcheck", "synccheck"})
    EXPECT_EQ(lines_with(sum, std::string("PASS  cuda rows/sum/f32 sanitize ") + tool + ":").size(), 1u) << tool;
  EXPECT_EQ(lines_with(sum, "SANITIZE cuda tools=memcheck,racecheck,initcheck,synccheck entries=1 clean=4 findings=0").size(),
            1u)
      << sum;
  EXPECT_EQ(src, 0);
}

}  // namespace
