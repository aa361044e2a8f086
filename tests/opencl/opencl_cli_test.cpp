// The OpenCL backend as a user meets it, through opencl_cli (kernel-contract over planted entries):
// a write one element past an output breaks its guard and is named; a source that does not compile
// is an ERROR holding the build log, which names the file and line; a kernel that never returns is
// cut off by the wait's time limit, named, and the entries after it run in a fresh process; with no
// ICD, or a device choice that names none, the backend is absent by name; a correct kernel passes.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include "../cli_lines.hpp"

namespace {

struct Ran {
  int code = -1;
  std::string out;
};

Ran cli(const std::string& args, const std::string& env = "") {
  Ran r;
  FILE* p = popen((env + " " + OPENCL_CLI + " --no-limits " + args + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
  int st = pclose(p);
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : 1000 + WTERMSIG(st);
  return r;
}
std::vector<std::string> lines_of(const Ran& r, const std::string& entry) { return cli_lines::of(r.out, "opencl", entry); }

TEST(OpenclCli, ACorrectKernelPassesEveryGate) {
  Ran r = cli("--backend opencl --only planted/1_ok");
  EXPECT_EQ(r.code, 0) << r.out;
  cli_lines::all_pass(r.out, "opencl", "planted/1_ok");
  EXPECT_NE(cli_lines::summary(r.out).find("SUMMARY backend=opencl kernels=1/1 "), std::string::npos) << r.out;
}

TEST(OpenclCli, AWritePastTheOutputBreaksItsGuard) {
  Ran r = cli("--backend opencl --only planted/2_past_end");
  EXPECT_EQ(r.code, 1) << r.out;
  auto v = lines_of(r, "planted/2_past_end");
  ASSERT_EQ(v.size(), 4u) << r.out;
  for (const auto& l : v) {
    EXPECT_EQ(l.rfind("FAIL ", 0), 0u) << l;
    EXPECT_NE(l.find("guard_broken"), std::string::npos) << l;
    EXPECT_NE(l.find("'y': 4 bytes written past its end (bytes +0..+3 after the last element)"), std::string::npos) << l;
  }
}

TEST(OpenclCli, ABuildErrorNamesTheFileAndLineWithItsLog) {
  Ran r = cli("--backend opencl --only planted/3_broken");
  EXPECT_EQ(r.code, 1) << r.out;
  auto v = lines_of(r, "planted/3_broken");
  ASSERT_FALSE(v.empty()) << r.out;
  EXPECT_EQ(v[0].rfind("ERROR  opencl planted/3_broken gate1", 0), 0u) << v[0];
  EXPECT_NE(v[0].find("building tests/opencl/broken.cl"), std::string::npos) << v[0];
  // The log's own line, with the file and line the #line marks give it.
  EXPECT_NE(r.out.find("tests/opencl/broken.cl:3:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not_declared_anywhere"), std::string::npos) << r.out;
}

TEST(OpenclCli, AHangIsCutOffNamedAndTheNextEntryRunsInAFreshProcess) {
  Ran r = cli("--backend opencl --only planted/ --timeout 2");
  EXPECT_EQ(r.code, 1) << r.out;
  auto hang = lines_of(r, "planted/4_hang");
  ASSERT_FALSE(hang.empty()) << r.out;
  EXPECT_EQ(hang[0].rfind("ERROR  opencl planted/4_hang gate1 nonfinite hang", 0), 0u) << hang[0];
  EXPECT_NE(hang[0].find("kc_test_spin (tests/opencl/planted.cl) still running after 2"), std::string::npos) << hang[0];
  EXPECT_NE(r.out.find("continues in another fresh process"), std::string::npos) << r.out;
  cli_lines::all_pass(r.out, "opencl", "planted/5_ok");
  EXPECT_NE(cli_lines::summary(r.out).find("kernels=2/5 "), std::string::npos) << cli_lines::summary(r.out);
}

TEST(OpenclCli, WithNoIcdTheBackendIsAbsentByName) {
  const std::string empty = std::string(::testing::TempDir()) + "no_icds";
  Ran r = cli("--only planted/1_ok", "OCL_ICD_VENDORS=" + empty);
  const size_t at = r.out.find("SUMMARY backend=opencl ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string s = r.out.substr(at, r.out.find('\n', at) - at);
  EXPECT_NE(s.find("SUMMARY backend=opencl kernels=not-run(1) "), std::string::npos) << r.out;
  EXPECT_NE(s.find("absent=\"no OpenCL platform"), std::string::npos) << s;
  EXPECT_TRUE(lines_of(r, "planted/1_ok").empty()) << "an absent backend runs nothing:\n" << r.out;
}

TEST(OpenclCli, ADeviceChoiceThatNamesNoneIsAbsentAndListsTheDevices) {
  Ran r = cli("--backend opencl --only planted/1_ok --opencl-device no-such-device");
  EXPECT_EQ(r.code, 1) << "asked for by name and absent: " << r.out;
  const std::string s = cli_lines::summary(r.out);
  EXPECT_NE(s.find("absent=\"KC_OPENCL_DEVICE='no-such-device' names none of the devices: 0: "), std::string::npos) << s;
  Ran first = cli("--backend opencl --only planted/1_ok --opencl-device 0");
  EXPECT_EQ(first.code, 0) << first.out;
}

}  // namespace
