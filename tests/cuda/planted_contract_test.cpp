// The planted illegal address and hang through the whole command line (planted-contract, run as a
// user would): the fault is named by CUDA, the hang by the timeout, the entries after each still
// run (in fresh processes when the driver keeps the device from the faulted one) and count in one
// SUMMARY, exit 1. This process
// never touches CUDA, so nothing here holds the device the runs need. Without a GPU it says so.
#include "planted_run.hpp"

namespace {
using kc_test::lines_with;

TEST(PlantedContract, AnIllegalAddressIsNamedAndTheEntriesAfterItRun) {
  auto [out, st] = kc_test::planted_contract("--backend cuda --no-limits --timeout 5");
  ASSERT_NE(st, -1) << "planted-contract did not start";
  if (auto absent = lines_with(out, "== cuda: absent ("); !absent.empty())
    GTEST_SKIP() << "no GPU here, the planted fault cannot run: " << absent[0];
  ASSERT_TRUE(WIFEXITED(st)) << "planted-contract did not exit normally (wait status " << st << ")";
  EXPECT_EQ(WEXITSTATUS(st), 1) << "the planted faults must fail the run";
  for (const char* planted : {"test/illegal_address/f32", "test/illegal_address_again/f32"}) {
    auto v = lines_with(out, std::string("cuda ") + planted + " gate1");
    ASSERT_EQ(v.size(), 1u) << planted;
    EXPECT_EQ(v[0].rfind("ERROR ", 0), 0u) << v[0];
    EXPECT_NE(v[0].find("cudaErrorIllegalAddress"), std::string::npos) << v[0];
  }
  // A read one element past x: a fault where the backend fences its inputs (its device line says),
  // else the NaN guard after x reaches y (a class mismatch).
  auto over = lines_with(out, "cuda test/overread_end/f32 gate1");
  ASSERT_EQ(over.size(), 1u) << out;
  if (!lines_with(out, "inputs end at unmapped memory").empty()) {
    EXPECT_EQ(over[0].rfind("ERROR ", 0), 0u) << over[0];
    EXPECT_NE(over[0].find("cudaErrorIllegalAddress"), std::string::npos) << over[0];
  } else {
    EXPECT_EQ(over[0].rfind("FAIL ", 0), 0u) << over[0];
  }
  // The kernel that never returns is cut off at --timeout and named; the entry after it still runs.
  auto hang = lines_with(out, "cuda test/spin/f32 gate1");
  ASSERT_EQ(hang.size(), 1u) << out;
  EXPECT_EQ(hang[0].rfind("ERROR  cuda test/spin/f32 gate1 nonfinite hang", 0), 0u) << hang[0];
  for (const char* served : {"rows/sum/f32", "rows/max/bf16", "rows/dot/f32"}) {
    auto v = lines_with(out, std::string("cuda ") + served + " gate");
    EXPECT_EQ(v.size(), 5u) << served;  // gates 1-4 and gate 5's launches at run time
    for (const auto& l : v) EXPECT_TRUE(l.rfind("PASS ", 0) == 0 || l.rfind("N/A ", 0) == 0) << l;
    EXPECT_EQ(lines_with(out, std::string("cuda ") + served + " gate5 limits: at run time: ").size(), 1u) << served;
  }
  EXPECT_EQ(lines_with(out, "RED    cuda rows/ctl_tail_drop_sum/f32 gate3").size(), 1u);
  auto s = lines_with(out, "SUMMARY backend=cuda");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].rfind("SUMMARY backend=cuda kernels=3/7 known=0 controls=1/1 limit_problems=0 failures=", 0), 0u) << s[0];
  // Where the driver keeps the device from the faulted process, the run says it goes on elsewhere.
  if (!lines_with(out, "the device is lost").empty())
    EXPECT_FALSE(lines_with(out, "continue in a fresh process (pid").empty());
}

}  // namespace
