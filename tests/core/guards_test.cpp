// Reads outside an input: the guards around a float input hold NaN, so a value read there poisons
// the outputs it reaches; on the CPU, a read past an input's end meets a protected page (the
// fault itself is shown through the command line in tests/crash).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <sys/wait.h>
#include <unistd.h>

#include "exec.hpp"
#include "harness.hpp"
#include "kc/numeric.hpp"
#include "kc/registry.hpp"
#include "toy.hpp"

using namespace testing_kc;
using kc::DType;
using kc::Gate;

namespace {
template <class W> bool all_nan(const std::vector<std::byte>& b, DType t) {
  for (size_t at = 0; at + sizeof(W) <= b.size(); at += sizeof(W))
    if (!std::isnan(kc::load_as_double(b.data(), t, at / sizeof(W)))) return false;
  return true;
}
}  // namespace

TEST(Guards, AFloatInputsGuardIsNaNAndAnIntegersIsThePattern) {
  std::vector<std::byte> g(1024), p(1024);
  kc::detail::guard_pattern(g.data(), g.size(), DType::f32, 3, 7);
  EXPECT_TRUE(all_nan<uint32_t>(g, DType::f32));
  kc::detail::guard_pattern(g.data(), g.size(), DType::bf16, 3, 7);
  EXPECT_TRUE(all_nan<uint16_t>(g, DType::bf16));
  kc::detail::guard_pattern(g.data(), g.size(), DType::f16, 3, 7);
  EXPECT_TRUE(all_nan<uint16_t>(g, DType::f16));
  kc::detail::guard_pattern(g.data(), g.size(), DType::f64, 3, 7);
  EXPECT_TRUE(all_nan<uint64_t>(g, DType::f64));
  // Payloads and signs vary with the run, as every guard does.
  std::vector<std::byte> other(1024);
  kc::detail::guard_pattern(other.data(), other.size(), DType::f32, 4, 7);
  EXPECT_NE(std::memcmp(g.data(), other.data(), g.size()), 0);
  kc::detail::guard_pattern(g.data(), g.size(), DType::u8, 3, 7);
  kc::detail::pattern(p.data(), p.size(), 3, 7);
  EXPECT_EQ(std::memcmp(g.data(), p.data(), g.size()), 0);
}

// y = 2x, but the first element also takes 0 · x[-1]: nothing while the element before x is finite,
// NaN once it is the guard's NaN. Gate 1 sees a NaN where float64 has a finite value.
KC_KERNEL("toy/overread/before_start", cpu) {
  return toy::scale()
      .served({{"rows", {1, 5}}, {"cols", {16, 64}}})
      .tile("cols", 64, 8, 8)
      .launch([](const kc::Buffers& b) {
        toy::scale_kernel(b);
        const float* x = b.in<float>("x");
        b.out<float>("y")[0] += 0.f * x[-1];
      });
}

TEST(Guards, AReadBeforeAnInputsStartPoisonsTheOutput) {
  auto v = verdicts("toy/overread/before_start");
  EXPECT_EQ(v[Gate::nonfinite].status, kc::Status::fail) << v[Gate::nonfinite].detail;
  EXPECT_EQ(v[Gate::nonfinite].why, "class_mismatch") << v[Gate::nonfinite].detail;
  EXPECT_EQ(v[Gate::shapes].status, kc::Status::fail) << v[Gate::shapes].detail;
}

// The CPU backend's fenced memory: the byte before the fence is usable, the one at it faults.
TEST(Guards, TheCpuFenceFaultsOnTheFirstBytePastTheEnd) {
  auto& b = cpu();
  void* base = b.alloc_fenced(1000);
  ASSERT_NE(base, nullptr);
  auto* p = static_cast<volatile std::byte*>(base);
  p[999] = std::byte{1};
  EXPECT_EQ(int(p[999]), 1);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::byte v = p[1000];  // past the end: the fence
    _exit(int(v) == 255 ? 3 : 0);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV) << "wait status " << st;
  b.free_fenced(base);
}
