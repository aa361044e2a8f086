// A device that evaluates the dense and affine float64 references in the CPU's place. It must do the
// CPU's arithmetic (families/dense/src/ref_gemm.hpp) op for op: every inner sum from +0 over k
// ascending with exact products, each group folded as y + ((s * sum xq) + (b * sum x)), no other
// fusing, so every double it returns equals the CPU's bit for bit. Core checks that on ragged cases
// before it uses one (check_ref_device) and gives it only problems of at least kRefDeviceMacs
// multiply-adds; a call that fails falls back to the CPU and the run says so.
// A backend that has one returns it from Backend::references(); --cpu-references declines it.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "kc/types.hpp"

namespace kc {

// MLX affine weights (kc/families/affine.hpp): codes packed as one little-endian bit stream a row
// in 32-bit words, wpr words a row; s and b one bf16 a group of `group` columns.
struct RefAffineW {
  const uint32_t* q;
  const bf16* s;
  const bf16* b;
  int bits, group;
  int64_t wpr;
};

struct RefDevice {
  std::string name;  // for the run's note, e.g. "CUDA device 0 (NVIDIA H200)"
  // y[m N + n] = sum_k x[m K + k] w[n K + k], mag = sum_k |x w|; "" when done, else why not.
  std::function<std::string(const bf16* x, const bf16* w, int64_t M, int64_t N, int64_t K, double* y, double* mag)>
      dense;
  // The affine form; "" when done, else why not.
  std::function<std::string(const bf16* x, const RefAffineW& w, int64_t M, int64_t N, int64_t K, double* y,
                            double* mag)>
      affine;
};

// Problems smaller than this stay on the CPU: a device's copies and launch cost more than they save.
constexpr int64_t kRefDeviceMacs = int64_t(1) << 28;

// "" when the device's answers equal the CPU's bit for bit on ragged dense and affine cases (every
// bit width, both group edges), else the first difference.
std::string check_ref_device(const RefDevice& d);

// The device the references may use while the scope lives (nullptr: the CPU alone).
class RefDeviceScope {
 public:
  explicit RefDeviceScope(const RefDevice* d);
  ~RefDeviceScope();
  RefDeviceScope(const RefDeviceScope&) = delete;
  RefDeviceScope& operator=(const RefDeviceScope&) = delete;

 private:
  const RefDevice* prev_;
};

// Why the last reference that tried the device fell back to the CPU since the previous call ("" if
// none did); clears it.
std::string take_ref_fallback();

}  // namespace kc
