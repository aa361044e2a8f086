// Gate 2's runs under load (Backend::load_start) and --sanitize's parts that need no GPU. The load is
// played here by a CPU backend whose load flips a flag; a toy that reads the flag gives other bytes
// only while the load runs, as a kernel whose race only a busy device shows.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <sstream>

#include "harness.hpp"
#include "kc/cli.hpp"
#include "kc/registry.hpp"
#include "kc/runner.hpp"
#include "sanitize.hpp"
#include "toy.hpp"

namespace testing_kc {
kc::Backend& cpu() {
  static auto all = kc::make_backends();
  return *all.front();
}
}  // namespace testing_kc

namespace {

using kc::Buffers;
using kc::Gate;
using kc::Status;
using kc::Why;

bool g_loaded = false;

kc::Entry env(kc::Entry e) { return std::move(e).served({{"rows", {1, 5}}, {"cols", {16, 64}}}).tile("cols", 64, 8, 8); }

// Like the scale toy, but while the load runs its first output is one ulp off.
void racy(const Buffers& b) {
  toy::scale_kernel(b);
  if (g_loaded) b.out<float>("y")[0] = std::nextafter(b.out<float>("y")[0], 1e30f);
}

struct Loading : testing_kc::CpuForward {
  int starts = 0, stops = 0;
  std::string no_load() override { return ""; }
  std::string load_start() override {
    ++starts;
    g_loaded = true;
    return "a test load";
  }
  std::string load_stop() override {
    ++stops;
    g_loaded = false;
    return "";
  }
};

kc::GateEvent gate2(kc::Backend& b, const std::string& only, kc::RunResult* out = nullptr,
                    std::vector<std::string>* notes = nullptr) {
  kc::RunOptions opt;
  opt.only = only;
  opt.exact = true;
  opt.backend = "cpu";
  opt.limits = false;
  struct Notes : kc::Reporter {
    std::vector<std::string>* to;
    void gate(const kc::GateEvent&) override {}
    void note(const std::string&, const std::string& t) override {
      if (to) to->push_back(t);
    }
    void summary(const kc::Summary&) override {}
  } rep;
  rep.to = notes;
  kc::RunResult r = kc::run(opt, {&b}, {&rep});
  kc::GateEvent e{};
  for (const auto& ev : r.events)
    if (ev.gate == Gate::repeat) e = ev;
  if (out) *out = r;
  return e;
}

}  // namespace

KC_KERNEL("loadtoy/steady", cpu) { return env(toy::scale()).launch(toy::scale_kernel); }
KC_CONTROL("loadtoy/racy", cpu) { return env(toy::scale()).control(Gate::repeat, Why::bytes_differ).launch(racy); }

TEST(Loaded, ACorrectKernelPassesItsRunsUnderLoad) {
  Loading b;
  const kc::GateEvent e = gate2(b, "loadtoy/steady");
  EXPECT_EQ(e.status, Status::pass) << e.detail;
  EXPECT_NE(e.detail.find("5 runs more at 2 of them under load (a test load), each giving run 1's bytes ("),
            std::string::npos)
      << e.detail;
  EXPECT_EQ(b.starts, 2) << "one load an extreme shape";
  EXPECT_EQ(b.stops, b.starts);
}

TEST(Loaded, ARaceOnlyTheLoadShowsIsRed) {
  Loading b;
  kc::RunResult r;
  const kc::GateEvent e = gate2(b, "loadtoy/racy", &r);
  EXPECT_EQ(e.status, Status::control_red) << e.detail;
  EXPECT_NE(e.detail.find("run 1 of 5 under load (a test load)"), std::string::npos) << e.detail;
  EXPECT_EQ(r.exit_code, kc::exit_ok);
  EXPECT_EQ(b.stops, b.starts) << "the load is stopped when a loaded run fails";
  EXPECT_FALSE(g_loaded);
}

TEST(Loaded, WithoutALoadTheRaceHidesAndTheRunSaysWhy) {
  std::vector<std::string> notes;
  kc::RunResult r;
  const kc::GateEvent e = gate2(testing_kc::cpu(), "loadtoy/racy", &r, &notes);
  EXPECT_EQ(e.status, Status::control_green) << e.detail;
  EXPECT_EQ(r.exit_code, kc::exit_fail);
  bool said = false;
  for (const auto& n : notes)
    said |= n == "gate 2 makes no runs under load here: this backend has no work to run beside its kernels";
  EXPECT_TRUE(said);
  const kc::GateEvent ok = gate2(testing_kc::cpu(), "loadtoy/steady");
  EXPECT_EQ(ok.status, Status::pass);
  EXPECT_EQ(ok.detail.find("under load"), std::string::npos) << ok.detail;
}

TEST(Sanitize, ToolsAreParsedInOrderAndABadOneIsNamed) {
  using kc::detail::parse_sanitizers;
  EXPECT_EQ(parse_sanitizers("racecheck,memcheck"), (std::vector<std::string>{"memcheck", "racecheck"}));
  EXPECT_EQ(parse_sanitizers("all").size(), 4u);
  EXPECT_EQ(parse_sanitizers("synccheck,initcheck,synccheck"), (std::vector<std::string>{"initcheck", "synccheck"}));
  try {
    parse_sanitizers("memcheck,racechek");
    ADD_FAILURE() << "a misspelt tool was taken";
  } catch (const kc::Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown tool 'racechek'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_sanitizers(""), kc::Error);
  EXPECT_THROW(parse_sanitizers("memcheck,"), kc::Error);
}

TEST(Sanitize, TheCommandRunsThisExecutableUnderTheToolForOneEntry) {
  kc::RunOptions opt;
  opt.backend = "cuda";
  opt.seed = 0x10;
  opt.timeout_s = 3;
  opt.self_args = {"-m", "kernel_contract", "f.py"};
  const auto a = kc::detail::sanitizer_command("/opt/cs", "racecheck", "/bin/kc", opt, "rows/sum/f32");
  const std::vector<std::string> want{"/opt/cs", "--tool", "racecheck", "--print-limit", "20", "--show-backtrace", "no",
                                      "--report-api-errors", "no", "/bin/kc", "-m", "kernel_contract", "f.py",
                                      "--backend=cuda", "--seed=0x10", "--timeout=60", "--no-limits",
                                      "--sanitize-launches", "--only=rows/sum/f32", "--exact"};
  EXPECT_EQ(a, want);
}

TEST(Sanitize, AReportIsAFindingItsDetailsAndSummaryAreNot) {
  std::istringstream race(
      "========= COMPUTE-SANITIZER\n"
      "kc-sanitize: done rows/ctl_timed_tile/f32 launches=2\n"
      "========= Error: Race reported between Write access at kc_ctl_timed_tile+0x2f0\n"
      "=========     and Read access at kc_ctl_timed_tile+0x3a0 [768 hazards]\n"
      "========= Warning: Race reported between Write access at k+0x10\n"
      "=========\n"
      "========= RACECHECK SUMMARY: 2 hazards displayed (1 error, 1 warning)\n");
  const auto s = kc::detail::read_sanitized(race);
  ASSERT_EQ(s.findings.size(), 1u);
  EXPECT_EQ(s.findings[0], "Error: Race reported between Write access at kc_ctl_timed_tile+0x2f0");
  EXPECT_EQ(s.errors, 1);
  EXPECT_EQ(s.launches, 2);

  std::istringstream clean("========= COMPUTE-SANITIZER\nkc-sanitize: done rows/sum/f32 launches=3\n"
                           "========= ERROR SUMMARY: 0 errors\n");
  const auto c = kc::detail::read_sanitized(clean);
  EXPECT_TRUE(c.findings.empty());
  EXPECT_EQ(c.errors, 0);
  EXPECT_EQ(c.launches, 3);

  std::istringstream fault("========= Invalid __global__ read of size 4 bytes\n=========     at k+0x30\n"
                           "kc-sanitize: error at rows:1/cols:7: cudaErrorLaunchFailure\n"
                           "========= ERROR SUMMARY: 1 error\n");
  const auto f = kc::detail::read_sanitized(fault);
  ASSERT_EQ(f.findings.size(), 1u);
  EXPECT_EQ(f.findings[0], "Invalid __global__ read of size 4 bytes");
  EXPECT_EQ(f.launches, -1);
  EXPECT_EQ(f.trouble, "at rows:1/cols:7: cudaErrorLaunchFailure");
}

// Through the command line: a bad tool is bad usage (2), a missing compute-sanitizer an error (1)
// that names it.
TEST(Sanitize, TheCommandLineNamesABadToolAndAMissingSanitizer) {
  struct CudaNamed : testing_kc::CpuForward {
    std::string name() const override { return "cuda"; }
  };
  auto cli = [](std::vector<std::string> args, std::string& err) {
    std::vector<std::unique_ptr<kc::Backend>> bs;
    bs.push_back(std::make_unique<CudaNamed>());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    testing::internal::CaptureStderr();
    testing::internal::CaptureStdout();
    const int rc = kc::cli_main(int(argv.size()), argv.data(), std::move(bs));
    err = testing::internal::GetCapturedStderr() + testing::internal::GetCapturedStdout();
    return rc;
  };
  std::string err;
  EXPECT_EQ(cli({"kc", "--sanitize", "memcheck,bogus"}, err), kc::exit_usage);
  EXPECT_NE(err.find("unknown tool 'bogus'"), std::string::npos) << err;
  EXPECT_EQ(cli({"kc", "--sanitize", "racecheck", "--backend", "cpu"}, err), kc::exit_usage);

  const char* path = std::getenv("PATH");
  const std::string saved = path ? path : "";
  setenv("KC_COMPUTE_SANITIZER", "/nonexistent/compute-sanitizer", 1);
  EXPECT_EQ(kc::detail::find_compute_sanitizer(), "");
  unsetenv("KC_COMPUTE_SANITIZER");
  setenv("PATH", "/nonexistent", 1);
  unsetenv("CUDA_HOME");
  unsetenv("CUDA_PATH");
  EXPECT_EQ(kc::detail::find_compute_sanitizer(), "");
  const int rc = cli({"kc", "--sanitize", "racecheck"}, err);
  setenv("PATH", saved.c_str(), 1);
  EXPECT_EQ(rc, kc::exit_fail);
  EXPECT_NE(err.find("--sanitize needs NVIDIA's compute-sanitizer"), std::string::npos) << err;
}
