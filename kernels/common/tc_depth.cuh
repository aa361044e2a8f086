// Gate 3's depth of a tensor-core sum chained through one fp32 accumulator, on the device this
// process runs. Where tools/tc-probe measured the instruction on this SM (records/cuda/
// tensor-cores.tsv; sm_90 on the H200) it is the measured rule's bound, kc::tc::depth: a bound for
// any inputs, 0.66 K for bf16. Elsewhere the rule is unknown and the count stays the one every
// tensor-core contract used before the probe: three fp32 roundings a term, + 16.
#pragma once
#include <cuda_runtime.h>

#include "kc/tensor_core.hpp"

namespace kc::cu {

inline double unmeasured_tc_depth(long K) { return 3.0 * double(K) + 16; }

// The device's SM as major * 10 + minor; 0 without one (any error cleared).
inline int device_sm() {
  int dev = 0, major = 0, minor = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev)) {
    (void)cudaGetLastError();
    return 0;
  }
  return major * 10 + minor;
}

// The measured rule of `instr` where this device is an SM the probe measured, else null.
inline const kc::tc::Measured* measured_here(const char* instr) {
  static const int sm = device_sm();
  return sm == 90 ? kc::tc::find_measured(instr) : nullptr;
}

// `instr` as named in kc/tensor_core.hpp ("mma.m16n8k16.bf16", "wgmma.m64n8k16.bf16"): the wider
// wgmma forms a kernel issues (m64n128k16, ...) are the same dot for every output.
inline double tc_depth(const char* instr, long K) {
  const kc::tc::Measured* m = measured_here(instr);
  return m ? kc::tc::depth(m->rule, K) : unmeasured_tc_depth(K);
}

}  // namespace kc::cu
