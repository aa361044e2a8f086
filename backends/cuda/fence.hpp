// Inputs that end where a read faults, on CUDA: the driver's virtual memory management maps an
// input's memory and leaves the granule after it reserved but unmapped, so a kernel that reads past
// the end raises cudaErrorIllegalAddress (a fault the runner names) instead of reading whatever the
// allocator put there. The driver calls come through the runtime's entry-point query, so the backend
// still links only cudart.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace kc::cuda {

class Fence {
 public:
  // Loads the driver's calls and the device's granularity once; false (and why()) where the driver
  // or the device cannot (no virtual memory management): inputs then end at NaN guards alone.
  bool ready(int device);
  const std::string& why() const { return why_; }
  // [base, base + size) mapped, base + size the first byte of an unmapped granule; nullptr on failure.
  void* alloc(size_t size);
  void free(void* base);
  // After a device reset every mapping is gone with its context: forget them without a driver call.
  void forget();
  ~Fence();

 private:
  struct Mapping {
    unsigned long long va = 0;  // CUdeviceptr
    unsigned long long handle = 0;  // CUmemGenericAllocationHandle
    size_t usable = 0;         // mapped bytes; the reservation holds one granule more
    void* base = nullptr;      // what alloc returned
  };
  void release(const Mapping& m);
  bool tried_ = false, ok_ = false;
  int device_ = 0;
  size_t granule_ = 0;
  std::string why_;
  std::vector<Mapping> live_, spare_;  // spare: kept for the next inputs that fit
  size_t spare_bytes_ = 0;
  static constexpr size_t kSpareBytes = size_t(4) << 30;
};

}  // namespace kc::cuda
