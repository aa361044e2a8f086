// A device that evaluates the dense and affine float64 references in the CPU's place. It must do the
// CPU's arithmetic (families/dense/src/ref_gemm.hpp) op for op: every inner sum from +0 over k
// ascending with exact products, each group folded as y + ((s * sum xq) + (b * sum x)), no other
// fusing, so every double it returns equals the CPU's bit for bit. Core checks that on ragged cases
// before it uses one (check_ref_device) and gives it only problems of at least kRefDeviceMacs
// multiply-adds; a call that fails falls back to the CPU and the run says so.
// It may also keep its answers where it computed them (RefResident): gate 3 then checks the outputs
// there, reduced to what compare() reports, instead of copying 16 bytes an output to the host.
// A backend that has one returns it from Backend::references(); --cpu-references declines it.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

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

// Gate 3's bound at one output, |got - want| <= r |want| + a |want| + g |mag| + floor (the terms
// added in that order, each product and sum rounded alone: the host's Coeffs::at).
struct RefBound {
  double r = 0, a = 0, g = 0, floor = 0;
};

// What a device's check of one output buffer against its answers found, as compare() finds it on
// the host: the outputs outside their bound (a non-finite want or got: outside unless both are NaN,
// or both the same infinity), the worst of them (the largest |got - want| / bound, the first on a
// tie; infinite for a class mismatch or a zero bound), and the passing output nearest its bound
// (min(1, |got - want| / bound), the first of the largest; -1 where none passed with a finite want).
struct RefChecked {
  uint64_t outside = 0;
  uint64_t worst = 0;
  double worst_ratio = 0;
  double near_ratio = -1;
  uint64_t near = 0;
};

// The float64 answers of one output buffer, kept on the device that computed them: at the largest
// shapes they are gigabytes that a copy to the host, a host allocation and a host pass over them
// would cost seconds a case, for a verdict the device can reduce where they are. Freed with it.
class RefResident {
 public:
  virtual ~RefResident() = default;
  virtual uint64_t count() const = 0;
  // want and mag of output i: "" when read, else why not.
  virtual std::string at(uint64_t i, double& want, double& mag) const = 0;
  // Every want and mag into host arrays of count() doubles (the fallback where check() cannot).
  virtual std::string fetch(double* want, double* mag) const = 0;
  // Checks count() outputs of type t (host memory, as fetched from the kernel) against the answers.
  virtual std::string check(const void* got, DType t, const RefBound& k, RefChecked& out) const = 0;
  // Gate 1's check: the outputs whose class (kc::fclass) differs from want's, how many and the first.
  virtual std::string classes(const void* got, DType t, uint64_t& differ, uint64_t& first) const {
    (void)got, (void)t, (void)differ, (void)first;
    return "these answers check no classes";
  }
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
  // The same two forms with the answers kept on the device (RefResident), for a check there; may be
  // empty. "" when done, else why not.
  std::function<std::string(const bf16* x, const bf16* w, int64_t M, int64_t N, int64_t K,
                            std::unique_ptr<RefResident>& out)>
      dense_resident;
  std::function<std::string(const bf16* x, const RefAffineW& w, int64_t M, int64_t N, int64_t K,
                            std::unique_ptr<RefResident>& out)>
      affine_resident;
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

// While one lives (on this thread), a dense or affine reference may leave its Expected's want and
// mag empty and keep its answers in a compact form, for the holder to check where they are: gate
// 3's random fills on the run's device (the reference, then compare(), then the scope ends), gate
// 1's row-class fills on the host as the distinct pairs of rows' answers (its classes checked
// through them, never expanded to every output). Keyed by the host output buffer's bytes; the
// answers die with the scope.
class ResidentScope {
 public:
  ResidentScope();
  ~ResidentScope();
  ResidentScope(const ResidentScope&) = delete;
  ResidentScope& operator=(const ResidentScope&) = delete;
  // The answers kept for the output whose host bytes start at `out` (nullptr: none).
  const RefResident* find(const void* out) const;
  void keep(const void* out, std::unique_ptr<RefResident> r);
  // The scope of this thread, or nullptr.
  static ResidentScope* current();

 private:
  ResidentScope* prev_;
  std::vector<std::pair<const void*, std::unique_ptr<RefResident>>> kept_;
};

// Why the last reference that tried the device fell back to the CPU since the previous call ("" if
// none did); clears it.
std::string take_ref_fallback();

}  // namespace kc
