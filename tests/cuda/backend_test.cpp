// The CUDA backend. Where no device is present (here, CI) every device test says so by name and is
// skipped, never passed; the absent() text itself is checked everywhere.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <vector>

#include "backends/factories.hpp"
#include "core/src/exec.hpp"
#include "kc/registry.hpp"
#include "kc/runner.hpp"

namespace {

std::unique_ptr<kc::Backend>& backend() {
  static std::unique_ptr<kc::Backend> b = kc::make_cuda_backend();
  return b;
}

#define NEED_DEVICE()                                                     \
  do {                                                                    \
    if (std::string why = backend()->absent(); !why.empty()) GTEST_SKIP() << why; \
  } while (0)

const kc::Registration& reg(const std::string& name) {
  for (const auto& r : kc::registry())
    if (r.backend == "cuda" && r.name == name) return r;
  throw std::runtime_error("no cuda entry " + name);
}

std::string all(const std::vector<kc::GateEvent>& evs) {
  std::string s;
  for (const auto& e : evs)
    s += std::string(kc::gate_name(e.gate)) + " " + kc::status_name(e.status) + " " + e.why + " " + e.detail + "\n";
  return s;
}

TEST(CudaBackend, SaysWhyItIsAbsentByCudaName) {
  EXPECT_EQ(backend()->name(), "cuda");
  const std::string why = backend()->absent();
  if (why.empty()) {
    EXPECT_NE(backend()->device().find("sm_"), std::string::npos) << backend()->device();
  } else {
    // "no CUDA device: cudaErrorNoDevice: ..." (or the driver's own error, e.g. cudaErrorInsufficientDriver)
    EXPECT_EQ(why.rfind("no CUDA device: cudaError", 0), 0u) << why;
    EXPECT_THROW(backend()->alloc(16), kc::Error);
  }
}

// 1 MiB goes straight; 4 MiB and up through the two pinned stages, 64 MiB a chunk: 2 chunks and a
// ragged third exercise both stages' reuse in each direction.
TEST(CudaBackend, CopiesRoundTrip) {
  NEED_DEVICE();
  for (size_t n : {size_t(1) << 20, (size_t(128) << 20) + 12345}) {
    std::vector<unsigned char> a(n), b(n);
    for (size_t i = 0; i < n; ++i) a[i] = (unsigned char)(i * 131 + 7 + (i >> 20));
    void* p = backend()->alloc(n);
    backend()->upload(p, a.data(), n);
    backend()->download(b.data(), p, n);
    backend()->free(p);
    EXPECT_EQ(std::memcmp(a.data(), b.data(), n), 0) << n << " bytes";
  }
  EXPECT_EQ(backend()->sync(5).kind, kc::SyncResult::ok);
}

// Poison made on the device is the host's pattern() bit for bit, at odd sizes and offsets (a tail of
// fewer than 8 bytes, a start off 8-byte alignment), under several runs and streams.
TEST(CudaBackend, DevicePoisonIsTheHostsPattern) {
  NEED_DEVICE();
  const size_t n = (size_t(3) << 20) + 5;
  void* p = backend()->alloc(n + 8);
  for (uint64_t run : {1u, 2u, 977u})
    for (uint64_t stream : {0u, 1003u})
      for (size_t off : {size_t(0), size_t(3)}) {
        ASSERT_TRUE(backend()->fill_pattern(static_cast<char*>(p) + off, n, run, stream));
        std::vector<std::byte> want(n), got(n);
        kc::detail::pattern(want.data(), n, run, stream);
        backend()->download(got.data(), static_cast<char*>(p) + off, n);
        size_t first = n;
        for (size_t i = 0; i < n && first == n; ++i)
          if (want[i] != got[i]) first = i;
        EXPECT_EQ(first, n) << "run " << run << " stream " << stream << " offset " << off;
      }
  backend()->free(p);
}

TEST(CudaBackend, ServedKernelPassesCheckEntry) {
  NEED_DEVICE();
  kc::Entry e = kc::build(reg("rows/rms_norm/bf16_out"));
  auto problems = backend()->check_entry(e.spec);
  EXPECT_TRUE(problems.empty()) << problems.front();
  e.spec.launches.push_back("rows/no_such_launch");
  problems = backend()->check_entry(e.spec);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("no KC_CUDA_LAUNCH"), std::string::npos) << problems[0];
}

// Gate 5 at run time: the launch watch sees each kernel a hook starts and the record that registers
// it. A served entry's launches are all its own (and its picks the forms launched); the controls'
// unrecorded helper, lying pick and default-stream launch are named.
TEST(CudaBackend, LaunchWatchNamesEveryKernelAHookStarts) {
  NEED_DEVICE();
  kc::RunOptions opt;
  opt.limits = false;
  auto verdict = [&](const char* name) {
    for (const auto& e : kc::run_entry(reg(name), *backend(), opt))
      if (e.gate == kc::Gate::limits && e.detail.rfind("at run time: ", 0) == 0) return e;
    ADD_FAILURE() << name << ": no run-time gate 5 verdict";
    return kc::GateEvent{};
  };
  auto served = verdict("dense/gemv/bf16");
  EXPECT_EQ(served.status, kc::Status::pass) << served.detail;
  // A form the launcher picks by N at 32 rows ran: two W tiles a block (mma.sync), or 32 x rows in
  // some count of K parts (wgmma, on the sm_90a image).
  EXPECT_TRUE(served.detail.find("dense/gemv/bf16/m32x2 x") != std::string::npos ||
              served.detail.find("dense/gemv/bf16/wgmma_m32_c") != std::string::npos)
      << served.detail;
  EXPECT_NE(served.detail.find("the picked form launched in every run"), std::string::npos) << served.detail;
  auto ctl = verdict("rows/ctl_unrecorded_launch/f32");
  EXPECT_EQ(ctl.status, kc::Status::control_red) << ctl.detail;
  EXPECT_NE(ctl.detail.find("launched kc_ctl_unrecorded_clear(float*, int) (128 threads a block"), std::string::npos)
      << ctl.detail;
  auto lies = verdict("rows/ctl_pick_lies/f32");
  EXPECT_EQ(lies.status, kc::Status::control_red) << lies.detail;
  EXPECT_NE(lies.detail.find("the pick names rows/ctl_pick_lies/f32/rpb4, but the launcher started "
                             "rows/ctl_pick_lies/f32/rpb8"),
            std::string::npos)
      << lies.detail;
  // <<<grid, block>>> with no stream: the legacy default stream, which the harness's non-blocking
  // stream does not wait for.
  auto stream = verdict("rows/ctl_default_stream/f32");
  EXPECT_EQ(stream.status, kc::Status::control_red) << stream.detail;
  EXPECT_NE(stream.detail.find("kc_ctl_row_sum<8>"), std::string::npos) << stream.detail;
  EXPECT_NE(stream.detail.find("on the legacy default stream, not the harness's stream"), std::string::npos)
      << stream.detail;
  EXPECT_EQ(served.detail.find("stream"), std::string::npos) << served.detail;
}

// The planted entries run in a child process (this binary, one test, KC_CUDA_CHILD=1): a fault or
// a hang leaves CUDA unusable for the rest of the process that suffered it on drivers that refuse a
// new context after a sticky error (the H200 here: cudaErrorDevicesUnavailable after
// cudaDeviceReset), and a running kernel ends only with its process. The child shows the report
// (the CUDA error by name; the hang cut off at the limit) and that the entries after it fail fast
// with a clear reason instead of hanging or crashing; this process then runs the next entry.
std::string run_child(const std::string& test) {
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);  // this binary, not the shell's
  if (n <= 0) return "readlink /proc/self/exe failed";
  self[n] = 0;
  std::string cmd = std::string("KC_CUDA_CHILD=1 timeout 60 '") + self + "' --gtest_filter=CudaBackend." + test + " 2>&1";
  std::string out;
  if (FILE* f = popen(cmd.c_str(), "r")) {
    char buf[4096];
    while (size_t n = fread(buf, 1, sizeof buf, f)) out.append(buf, n);
    int rc = pclose(f);
    out += "\n[child exit status " + std::to_string(rc) + "]\n";
  }
  return out;
}

bool child() { return std::getenv("KC_CUDA_CHILD") != nullptr; }

// Child half: the planted entry, then a served one in the same process.
void planted_then_next(const char* planted, const char* expect, const char* next, double timeout_s) {
  kc::RunOptions opt;
  opt.limits = false;
  opt.timeout_s = timeout_s;
  auto bad = kc::run_entry(reg(planted), *backend(), opt);
  std::printf("PLANTED %s:\n%s", planted, all(bad).c_str());
  bool seen = false;
  for (const auto& e : bad) seen |= (e.why + " " + e.detail).find(expect) != std::string::npos;
  EXPECT_TRUE(seen) << "no '" << expect << "' in:\n" << all(bad);
  auto good = kc::run_entry(reg(next), *backend(), opt);
  bool ok = true;
  for (const auto& e : good) ok &= kc::status_ok(e.status);
  std::printf("NEXT IN THIS PROCESS %s: %s\n%s", next, ok ? "passed" : "not run", all(good).c_str());
  if (!ok)  // then each gate that did not pass must say why, by the lost device, not hang or crash (a
            // gate that does not apply, such as gate 4 of rows/max, says so and needs no device)
    for (const auto& e : good)
      if (!kc::status_ok(e.status)) EXPECT_NE((e.detail + e.why).find("lost"), std::string::npos) << all(good);
  // Leave at once: CUDA's exit handlers would wait on a kernel that never returns.
  std::printf("CHILD %s\n", ::testing::Test::HasFailure() ? "FAILED" : "OK");
  std::fflush(stdout);
  std::_Exit(::testing::Test::HasFailure() ? 1 : 0);
}

TEST(CudaBackend, ChildPlantedFault) {
  if (!child()) GTEST_SKIP() << "run by FaultIsNamedAndTheNextEntryRuns in a child process";
  NEED_DEVICE();
  planted_then_next("test/illegal_address/f32", "cudaErrorIllegalAddress", "rows/sum/f32", 30);
}

TEST(CudaBackend, ChildPlantedHang) {
  if (!child()) GTEST_SKIP() << "run by HangIsCutOffAndTheNextEntryRuns in a child process";
  NEED_DEVICE();
  planted_then_next("test/spin/f32", "hang", "rows/max/bf16", 1);
}

void parent(const char* test, const char* expect) {
  std::string out = run_child(test);
  std::printf("%s", out.c_str());
  EXPECT_NE(out.find(expect), std::string::npos) << out;
  EXPECT_NE(out.find("CHILD OK"), std::string::npos) << out;
  kc::RunOptions opt;
  opt.limits = false;
  auto good = kc::run_entry(reg("rows/sum/f32"), *backend(), opt);
  for (const auto& e : good) EXPECT_TRUE(kc::status_ok(e.status)) << all(good);
}

TEST(CudaBackend, FaultIsNamedAndTheNextEntryRuns) {
  if (child()) GTEST_SKIP();
  NEED_DEVICE();
  parent("ChildPlantedFault", "cudaErrorIllegalAddress");
}

TEST(CudaBackend, HangIsCutOffAndTheNextEntryRuns) {
  if (child()) GTEST_SKIP();
  NEED_DEVICE();
  parent("ChildPlantedHang", "launch still running after");
}

}  // namespace
