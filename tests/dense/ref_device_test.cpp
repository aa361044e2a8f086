// A reference device (kc/ref_device.hpp) on the CPU side: core's check takes a device that returns the
// CPU's doubles and refuses one a single ulp or one error away; large problems go to the run's device,
// small ones stay on the CPU, and a device that fails leaves the answer to the CPU with its reason kept.
// tests/cuda/ref_f64_test.cu holds the CUDA device to the same check on a GPU.
#include <gtest/gtest.h>

#include <cstring>

#include "../../families/dense/src/ref_gemm.hpp"
#include "kc/ref_device.hpp"

namespace {
using namespace kc;

// A device that is the CPU, with one fault to plant: `ulp` flips the last bit of one output, `fail`
// refuses every call.
struct Fake {
  enum Fault { none, dense_ulp, affine_mag_ulp, fail } fault = none;
  int calls = 0;
  RefDevice device() {
    RefDevice d;
    d.name = "the fake device";
    d.dense = [this](const bf16* x, const bf16* w, int64_t M, int64_t N, int64_t K, double* y, double* mag) {
      ++calls;
      if (fault == fail) return std::string("out of memory, as planted");
      fam::ref_dense_cpu(x, w, M, N, K, y, mag);
      if (fault == dense_ulp) flip(y[M * N / 2]);
      return std::string();
    };
    d.affine = [this](const bf16* x, const RefAffineW& w, int64_t M, int64_t N, int64_t K, double* y, double* mag) {
      ++calls;
      if (fault == fail) return std::string("out of memory, as planted");
      fam::ref_affine_cpu(x, w, M, N, K, y, mag);
      if (fault == affine_mag_ulp && w.bits == 8) flip(mag[0]);
      return std::string();
    };
    return d;
  }
  static void flip(double& v) {
    uint64_t u;
    std::memcpy(&u, &v, 8);
    u ^= 1;
    std::memcpy(&v, &u, 8);
  }
};

TEST(RefDevice, TheCheckTakesADeviceThatIsTheCpu) {
  Fake f;
  EXPECT_EQ(check_ref_device(f.device()), "");
  EXPECT_EQ(f.calls, 8);  // two dense cases, one affine case a bit width
}

TEST(RefDevice, TheCheckRefusesOneUlpOffInYOrInTheMagnitude) {
  Fake f;
  f.fault = Fake::dense_ulp;
  const std::string d = check_ref_device(f.device());
  EXPECT_NE(d.find("dense 37x45x300: y["), std::string::npos) << d;
  f.fault = Fake::affine_mag_ulp;
  const std::string a = check_ref_device(f.device());
  EXPECT_NE(a.find("affine 8 bits group 128"), std::string::npos) << a;
  EXPECT_NE(a.find("mag[0]"), std::string::npos) << a;
}

TEST(RefDevice, TheCheckRefusesADeviceThatCannotAnswer) {
  Fake f;
  f.fault = Fake::fail;
  EXPECT_NE(check_ref_device(f.device()).find("out of memory, as planted"), std::string::npos);
  RefDevice half = f.device();
  half.affine = nullptr;
  EXPECT_NE(check_ref_device(half).find("lacks"), std::string::npos);
}

// 512 x 512 x 1024 is kRefDeviceMacs exactly; one row fewer stays on the CPU.
TEST(RefDevice, LargeProblemsGoToTheDeviceAndSmallOnesStay) {
  static_assert(kRefDeviceMacs == int64_t(512) * 512 * 1024);
  Fake f;
  const RefDevice d = f.device();
  RefDeviceScope scope(&d);
  const int64_t K = 1024;
  std::vector<bf16> x(size_t(512 * K), bf16{0x3f80}), w(x.size(), bf16{0x4000});  // 1 and 2
  std::vector<double> y(512 * 512), mag(y.size());
  fam::ref_dense(x.data(), w.data(), 511, 512, K, y.data(), mag.data());
  EXPECT_EQ(f.calls, 0);
  fam::ref_dense(x.data(), w.data(), 512, 512, K, y.data(), mag.data());
  EXPECT_EQ(f.calls, 1);
  EXPECT_EQ(y[0], 2048.0);
  EXPECT_EQ(take_ref_fallback(), "");
}

TEST(RefDevice, ADeviceThatFailsLeavesTheAnswerToTheCpuAndSaysWhy) {
  Fake f;
  f.fault = Fake::fail;
  const RefDevice d = f.device();
  const int64_t K = 1024;
  std::vector<bf16> x(size_t(512 * K), bf16{0x3f80}), w(x.size(), bf16{0xc000});  // 1 and -2
  std::vector<double> y(512 * 512, 7.0), mag(y.size());
  {
    RefDeviceScope scope(&d);
    fam::ref_dense(x.data(), w.data(), 512, 512, K, y.data(), mag.data());
  }
  EXPECT_EQ(f.calls, 1);
  EXPECT_EQ(y[512 * 512 - 1], -2048.0);
  EXPECT_EQ(mag[0], 2048.0);
  const std::string why = take_ref_fallback();
  EXPECT_NE(why.find("512x512x1024 reference ran on the CPU: the fake device could not: out of memory"),
            std::string::npos)
      << why;
  EXPECT_EQ(take_ref_fallback(), "");  // taken once
  // Out of the scope the device is not asked at all.
  fam::ref_dense(x.data(), w.data(), 512, 512, K, y.data(), mag.data());
  EXPECT_EQ(f.calls, 1);
}

}  // namespace
