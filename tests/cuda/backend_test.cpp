// The CUDA backend. Where no device is present (here, CI) every device test says so by name and is
// skipped, never passed; the absent() text itself is checked everywhere.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "backends/factories.hpp"
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

TEST(CudaBackend, CopiesRoundTrip) {
  NEED_DEVICE();
  std::vector<unsigned char> a(1 << 20), b(a.size());
  for (size_t i = 0; i < a.size(); ++i) a[i] = (unsigned char)(i * 131 + 7);
  void* p = backend()->alloc(a.size());
  backend()->upload(p, a.data(), a.size());
  backend()->download(b.data(), p, b.size());
  backend()->free(p);
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size()), 0);
  EXPECT_EQ(backend()->sync(5).kind, kc::SyncResult::ok);
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

// A launch that never returns is cut off at the time limit as a hang; the reset ends it and the
// next entry runs.
TEST(CudaBackend, HangIsCutOffAndTheNextEntryRuns) {
  NEED_DEVICE();
  kc::RunOptions opt;
  opt.limits = false;
  opt.timeout_s = 1;
  auto bad = kc::run_entry(reg("test/spin/f32"), *backend(), opt);
  bool hang = false;
  for (const auto& e : bad) hang |= e.why == "hang";
  EXPECT_TRUE(hang) << all(bad);
  std::printf("planted hang, as reported:\n%s", all(bad).c_str());
  auto good = kc::run_entry(reg("rows/max/bf16"), *backend(), opt);
  for (const auto& e : good) EXPECT_TRUE(kc::status_ok(e.status)) << all(good);
}

// The planted illegal-address entry fails with its CUDA error named; the device is reset and the
// served row sum after it passes every gate.
TEST(CudaBackend, FaultIsNamedAndTheNextEntryRuns) {
  NEED_DEVICE();
  kc::RunOptions opt;
  opt.limits = false;
  auto bad = kc::run_entry(reg("test/illegal_address/f32"), *backend(), opt);
  ASSERT_FALSE(bad.empty());
  bool named = false;
  for (const auto& e : bad) {
    EXPECT_EQ(e.status, kc::Status::error) << all(bad);
    named |= e.detail.find("cudaErrorIllegalAddress") != std::string::npos;
  }
  EXPECT_TRUE(named) << all(bad);
  std::printf("planted fault, as reported:\n%s", all(bad).c_str());
  auto good = kc::run_entry(reg("rows/sum/f32"), *backend(), opt);
  for (const auto& e : good) EXPECT_TRUE(kc::status_ok(e.status)) << all(good);
}

}  // namespace
