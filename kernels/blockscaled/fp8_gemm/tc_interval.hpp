// The depth of one 128-column interval of the FP8 wgmma GEMM (fp8_gemm_sm90a.cuh): four wgmma
// k32 steps chained through the accumulator from zero, each under the e4m3 tensor core's measured
// rule (kc/tensor_core.hpp: 13 fraction bits kept below the step's largest addend, the result cut
// to 14 bits, both toward zero; tools/tc-probe on the H200, records/cuda/tensor-cores.tsv). It was
// measured on wgmma m64n8k32; the kernel's m64n128k32 is the same instruction at a wider N, each
// output the same 32-product dot.
#pragma once
#include "kc/registry.hpp"
#include "kc/tensor_core.hpp"

namespace kc::fp8gemm {
inline double tc_interval_depth() {
  const kc::tc::Measured* m = kc::tc::find_measured("wgmma.m64n8k32.e4m3");
  if (!m) throw kc::Error("blockscaled/fp8_gemm: no measured rule for wgmma.m64n8k32.e4m3 (kc/tensor_core.hpp)");
  return kc::tc::depth(m->rule, 128);
}
}  // namespace kc::fp8gemm
