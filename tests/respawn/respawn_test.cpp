// After a lost device the rest of a backend's entries run in fresh processes and count in the same
// SUMMARY. respawn_cli (kernel-contract over the fake backend) is run as a user would run it.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

#include "../cli_lines.hpp"
#include "../test_env.hpp"
#include "fake.hpp"
#include "kc/runner.hpp"

namespace {

struct Ran {
  int code = -1;
  std::string out;
  std::multimap<std::string, int> pid;  // entry -> the pid that ran it
  std::vector<std::string> fresh;       // the command lines of the fresh processes
};

std::string temp(const char* what) {
  std::string p = std::string(::testing::TempDir()) + "respawn_" + what + "_XXXXXX";
  int fd = mkstemp(p.data());
  if (fd >= 0) close(fd);
  return p;
}

Ran cli(const std::string& args, const std::string& env = "") {
  Ran r;
  const std::string log = temp("log");
  const std::string cmd = "KC_FAKE_LOG=" + log + " " + env + " " + kc_test::bin_file("respawn_cli") + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
  int st = pclose(p);
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : 1000 + WTERMSIG(st);
  std::ifstream in(log);
  for (std::string line; std::getline(in, line);) {
    std::istringstream ss(line);
    std::string a;
    int pid = 0;
    ss >> a >> pid;
    if (a == "argv") r.fresh.push_back(line);
    else r.pid.emplace(a, pid);
  }
  std::remove(log.c_str());
  return r;
}

std::vector<std::string> lines_of(const std::string& out, const std::string& entry) {
  return cli_lines::of(out, "fake", entry);
}
using cli_lines::summary;
void all_pass(const Ran& r, const std::string& entry) { cli_lines::all_pass(r.out, "fake", entry); }

int pid_of(const Ran& r, const std::string& entry) {
  auto it = r.pid.find(entry);
  return it == r.pid.end() ? -1 : it->second;
}

TEST(Respawn, EntriesAfterALostDeviceRunInFreshProcessesAndCountInOneSummary) {
  Ran r = cli("--backend fake --only lost/ --seed 0x1234 --timeout 7 --repro");
  EXPECT_EQ(r.code, 1) << "the planted faults fail the run:\n" << r.out;
  // The faulted entries fail by their error's name.
  auto f = lines_of(r.out, "lost/2_fault");
  ASSERT_FALSE(f.empty()) << r.out;
  EXPECT_EQ(f[0].rfind("ERROR  fake lost/2_fault gate1 nonfinite fault", 0), 0u) << f[0];
  EXPECT_NE(f[0].find("fakeErrorIllegalAddress"), std::string::npos) << f[0];
  auto g = lines_of(r.out, "lost/5_fault_again");
  ASSERT_FALSE(g.empty()) << r.out;
  EXPECT_NE(g[0].find("fakeErrorIllegalAddress"), std::string::npos) << g[0];
  // Everything after them ran, with its own verdicts.
  all_pass(r, "lost/3_ok");
  all_pass(r, "lost/6_rowsum_ok");
  EXPECT_NE(r.out.find("PASS   fake lost/6_rowsum_ok gate4 sums"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("RED    fake lost/4_control_red gate1 nonfinite class_mismatch"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("KNOWN  fake lost/7_known gate1 nonfinite"), std::string::npos) << r.out;
  // errors counts ERROR lines: gates 1-3 of each planted fault (gate 4 does not apply); no gate FAILed.
  EXPECT_EQ(summary(r.out), "SUMMARY backend=fake kernels=4/6 known=1 controls=1/1 limit_problems=0 failures=0 errors=6") << r.out;
  // Said plainly, once a fresh process.
  EXPECT_NE(r.out.find("The remaining 5 entries of fake continue in a fresh process (pid"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("lost the device too, after lost/5_fault_again"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("The remaining 2 entries of fake continue in another fresh process (pid"), std::string::npos)
      << r.out;
  // In three processes: this run's, then one a lost device.
  const int p0 = pid_of(r, "lost/1_ok"), p1 = pid_of(r, "lost/3_ok"), p2 = pid_of(r, "lost/6_rowsum_ok");
  EXPECT_EQ(pid_of(r, "lost/2_fault"), p0);
  EXPECT_EQ(pid_of(r, "lost/4_control_red"), p1);
  EXPECT_EQ(pid_of(r, "lost/5_fault_again"), p1);
  EXPECT_EQ(pid_of(r, "lost/7_known"), p2);
  EXPECT_TRUE(p0 > 0 && p1 > 0 && p2 > 0 && p0 != p1 && p1 != p2 && p0 != p2) << p0 << " " << p1 << " " << p2;
  // With this run's selection and options; gate 5 stays with the parent.
  ASSERT_EQ(r.fresh.size(), 2u) << r.out;
  for (const auto& a : r.fresh)
    for (const char* want : {"--backend=fake", "--only=lost/", "--seed=0x1234", "--timeout=7", "--repro", "--no-limits"})
      EXPECT_NE(a.find(want), std::string::npos) << want << " missing from " << a;
  EXPECT_NE(r.fresh[0].find("--resume-at=lost/3_ok"), std::string::npos) << r.fresh[0];
  EXPECT_NE(r.fresh[1].find("--resume-at=lost/6_rowsum_ok"), std::string::npos) << r.fresh[1];
}

TEST(Respawn, TheJsonReportHoldsTheFreshProcessesVerdicts) {
  const std::string out = temp("json");
  Ran r = cli("--backend fake --only lost/ --reporter json --out " + out);
  EXPECT_EQ(r.code, 1) << r.out;
  std::ifstream in(out);
  std::vector<nlohmann::json> gates, sums;
  for (std::string l; std::getline(in, l);) {
    nlohmann::json j = nlohmann::json::parse(l, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << "a JSON line does not parse: " << l;
    if (j["type"] == "gate") gates.push_back(j);
    if (j["type"] == "summary") sums.push_back(j);
  }
  std::remove(out.c_str());
  ASSERT_EQ(sums.size(), 1u);
  EXPECT_EQ(sums[0]["kernels"], 6);
  EXPECT_EQ(sums[0]["kernels_passing"], 4);
  EXPECT_EQ(sums[0]["controls_red"], 1);
  EXPECT_EQ(sums[0]["errors"], 6);  // 3 gates of each planted fault
  int rowsum = 0;
  for (const auto& e : gates)
    if (e["entry"] == "lost/6_rowsum_ok") rowsum += e["ok"].get<bool>();
  EXPECT_EQ(rowsum, 4);
}

TEST(Respawn, AFreshProcessThatDiesFailsItsEntryByNameAndTheRestStillRun) {
  Ran r = cli("--backend fake --only crash/");
  EXPECT_EQ(r.code, 1) << r.out;
  auto c = lines_of(r.out, "crash/2_abort");
  ASSERT_EQ(c.size(), 1u) << r.out;
  EXPECT_EQ(c[0].rfind("ERROR  fake crash/2_abort gate1 nonfinite fault: SIGABRT (Aborted); ", 0), 0u) << c[0];
  EXPECT_NE(c[0].find("was killed by signal 6 (SIGABRT"), std::string::npos) << c[0];
  EXPECT_NE(c[0].find("while running this entry"), std::string::npos) << c[0];
  all_pass(r, "crash/3_ok");
  EXPECT_GT(pid_of(r, "crash/3_ok"), 0);
  EXPECT_EQ(r.fresh.size(), 2u) << r.out;
  EXPECT_EQ(summary(r.out), "SUMMARY backend=fake kernels=1/3 known=0 controls=0/0 limit_problems=0 failures=0 errors=4") << r.out;
}

TEST(Respawn, AFreshProcessThatDiesAtOnceIsAnErrorAndNothingAfterItPasses) {
  Ran r = cli("--backend fake --only lost/", "KC_FAKE_CHILD_DIES=1");
  EXPECT_EQ(r.code, 1) << r.out;
  auto f = lines_of(r.out, "(fresh process)");
  ASSERT_EQ(f.size(), 1u) << r.out;
  EXPECT_NE(f[0].find("was killed by signal 6 (SIGABRT"), std::string::npos) << f[0];
  EXPECT_NE(f[0].find("before finishing any entry"), std::string::npos) << f[0];
  for (const char* e : {"lost/3_ok", "lost/4_control_red", "lost/5_fault_again", "lost/6_rowsum_ok", "lost/7_known"}) {
    auto v = lines_of(r.out, e);
    ASSERT_EQ(v.size(), 1u) << e << ":\n" << r.out;
    EXPECT_EQ(v[0].rfind("ERROR ", 0), 0u) << v[0];
    EXPECT_NE(v[0].find("not run: the device was lost and the fresh process (pid"), std::string::npos) << v[0];
  }
  EXPECT_EQ(r.fresh.size(), 1u) << "one that finished nothing is not started again:\n" << r.out;
  EXPECT_EQ(summary(r.out), "SUMMARY backend=fake kernels=1/6 known=0 controls=0/1 limit_problems=0 failures=0 errors=9") << r.out;
}

TEST(Respawn, WithNoFilterEachLossAndCrashStartsOneMoreProcessAndAllCount) {
  Ran r = cli("--backend fake");
  EXPECT_EQ(r.code, 1) << r.out;
  // Lost after lost/2_fault, lost/5_fault_again and crash/1_fault; crash/2_abort kills its process.
  ASSERT_EQ(r.fresh.size(), 4u) << r.out;
  for (const auto& a : r.fresh) EXPECT_EQ(a.find("--only"), std::string::npos) << a;
  all_pass(r, "crash/3_ok");
  EXPECT_EQ(summary(r.out), "SUMMARY backend=fake kernels=5/9 known=1 controls=1/1 limit_problems=0 failures=0 errors=10") << r.out;
}

TEST(Respawn, NoLostDeviceNoFreshProcess) {
  Ran r = cli("--backend fake --only lost/1_ok");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(r.fresh.empty());
  EXPECT_EQ(r.out.find("fresh process"), std::string::npos) << r.out;
  EXPECT_EQ(summary(r.out), "SUMMARY backend=fake kernels=1/1 known=0 controls=0/0 limit_problems=0 failures=0 errors=0") << r.out;
}

TEST(Respawn, AFaultInTheLastEntryNeedsNoFreshProcess) {
  Ran r = cli("--backend fake --only lost/2_fault");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(r.fresh.empty()) << r.out;
  EXPECT_EQ(summary(r.out), "SUMMARY backend=fake kernels=0/1 known=0 controls=0/0 limit_problems=0 failures=0 errors=3") << r.out;
}

TEST(Respawn, TheHiddenResumeOptionsNeedEachOther) {
  Ran r = cli("--backend fake --resume-at=lost/1_ok");
  EXPECT_EQ(r.code, kc::exit_usage) << r.out;
  EXPECT_NE(r.out.find("--stream-fd"), std::string::npos) << r.out;
}

// Without an executable to re-run (run() called as a library), the rest run on here and each fails
// naming the lost device: never a pass.
TEST(Respawn, WithoutAnExecutableTheRestFailNamingTheLostDevice) {
  auto fake = fake::make_backend();
  kc::RunOptions opt;
  opt.backend = "fake";
  opt.only = "lost/";
  opt.limits = false;
  kc::RunResult res = kc::run(opt, {fake.get()}, {});
  EXPECT_EQ(res.exit_code, kc::exit_fail);
  ASSERT_EQ(res.summaries.size(), 1u);
  EXPECT_EQ(res.summaries[0].kernels_passing, 1);
  EXPECT_EQ(res.summaries[0].controls_red, 0);
  int lost = 0;
  for (const auto& e : res.events)
    if (e.entry == "lost/6_rowsum_ok") {
      EXPECT_FALSE(kc::status_ok(e.status)) << e.detail;
      lost += e.detail.find("the device is lost") != std::string::npos;
    }
  EXPECT_GT(lost, 0);
}

}  // namespace
