#include "backends/cuda/fence.hpp"

#include <cuda.h>
#include <cuda_runtime.h>

namespace kc::cuda {
namespace {

// The driver calls, by the runtime's entry-point query (CUDA 12.0's signatures).
struct Driver {
  CUresult (*device)(CUdevice*, int) = nullptr;
  CUresult (*attribute)(int*, CUdevice_attribute, CUdevice) = nullptr;
  CUresult (*granularity)(size_t*, const CUmemAllocationProp*, CUmemAllocationGranularity_flags) = nullptr;
  CUresult (*reserve)(CUdeviceptr*, size_t, size_t, CUdeviceptr, unsigned long long) = nullptr;
  CUresult (*address_free)(CUdeviceptr, size_t) = nullptr;
  CUresult (*create)(CUmemGenericAllocationHandle*, size_t, const CUmemAllocationProp*, unsigned long long) = nullptr;
  CUresult (*release)(CUmemGenericAllocationHandle) = nullptr;
  CUresult (*map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long) = nullptr;
  CUresult (*unmap)(CUdeviceptr, size_t) = nullptr;
  CUresult (*access)(CUdeviceptr, size_t, const CUmemAccessDesc*, size_t) = nullptr;
};
Driver drv;

template <class F> bool load(const char* name, F& fn) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult q{};
  if (cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &q) != cudaSuccess ||
      q != cudaDriverEntryPointSuccess || !p) {
    cudaGetLastError();
    return false;
  }
  fn = reinterpret_cast<F>(p);
  return true;
}

CUmemAllocationProp prop_for(int device) {
  CUmemAllocationProp p{};
  p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  p.location.id = device;
  return p;
}

}  // namespace

bool Fence::ready(int device) {
  if (tried_) return ok_;
  tried_ = true;
  device_ = device;
  if (!load("cuDeviceGet", drv.device) || !load("cuDeviceGetAttribute", drv.attribute) ||
      !load("cuMemGetAllocationGranularity", drv.granularity) || !load("cuMemAddressReserve", drv.reserve) ||
      !load("cuMemAddressFree", drv.address_free) || !load("cuMemCreate", drv.create) ||
      !load("cuMemRelease", drv.release) || !load("cuMemMap", drv.map) || !load("cuMemUnmap", drv.unmap) ||
      !load("cuMemSetAccess", drv.access)) {
    why_ = "the driver does not give its virtual memory calls";
    return false;
  }
  CUdevice d = 0;
  int vmm = 0;
  if (drv.device(&d, device) != CUDA_SUCCESS ||
      drv.attribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, d) != CUDA_SUCCESS || !vmm) {
    why_ = "the device has no virtual memory management";
    return false;
  }
  CUmemAllocationProp p = prop_for(device);
  if (drv.granularity(&granule_, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS || !granule_) {
    why_ = "cuMemGetAllocationGranularity failed";
    return false;
  }
  ok_ = true;
  return true;
}

void* Fence::alloc(size_t size) {
  if (!ok_) return nullptr;
  const size_t usable = (size + granule_ - 1) / granule_ * granule_;
  // The smallest spare mapping that holds it (the input goes at its end, so it still ends at the
  // unmapped granule): after the first cases an input costs no driver call.
  Mapping m;
  auto best = spare_.end();
  for (auto it = spare_.begin(); it != spare_.end(); ++it)
    if (it->usable >= usable && (best == spare_.end() || it->usable < best->usable)) best = it;
  if (best != spare_.end()) {
    m = *best;
    spare_bytes_ -= m.usable;
    spare_.erase(best);
  }
  if (!m.va) {
    CUdeviceptr va = 0;
    CUmemGenericAllocationHandle h = 0;
    CUmemAllocationProp p = prop_for(device_);
    if (drv.reserve(&va, usable + granule_, granule_, 0, 0) != CUDA_SUCCESS) return nullptr;
    if (drv.create(&h, usable, &p, 0) != CUDA_SUCCESS) {
      drv.address_free(va, usable + granule_);
      return nullptr;
    }
    CUmemAccessDesc a{};
    a.location = p.location;
    a.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    if (drv.map(va, usable, 0, h, 0) != CUDA_SUCCESS || drv.access(va, usable, &a, 1) != CUDA_SUCCESS) {
      drv.unmap(va, usable);
      drv.release(h);
      drv.address_free(va, usable + granule_);
      return nullptr;
    }
    m.va = va;
    m.handle = h;
    m.usable = usable;
  }
  m.base = reinterpret_cast<void*>(m.va + (m.usable - size));
  live_.push_back(m);
  return m.base;
}

void Fence::release(const Mapping& m) {
  drv.unmap(m.va, m.usable);
  drv.release(m.handle);
  drv.address_free(m.va, m.usable + granule_);
}

void Fence::free(void* base) {
  for (auto it = live_.begin(); it != live_.end(); ++it)
    if (it->base == base) {
      if (spare_bytes_ + it->usable <= kSpareBytes) {
        spare_.push_back(*it);
        spare_bytes_ += it->usable;
      } else {
        release(*it);
      }
      live_.erase(it);
      return;
    }
}

void Fence::forget() {
  live_.clear();
  spare_.clear();
  spare_bytes_ = 0;
}

Fence::~Fence() {
  // At exit the context goes with the process; releasing mappings one by one would only cost time.
  forget();
}

}  // namespace kc::cuda
