// The prompt GEMM's host side its registration (cuda.cpp) needs beside gemm.cuh's tiles: the depth
// its entry states. Apart from gemm.cuh so that the device units including that (gemm.cu, qmm's)
// parse no harness header.
#pragma once
#include "../../common/tc_depth.cuh"

namespace kc::gemm_cu {

// Depth of the tensor-core sums: one fp32 accumulator over K in k16 steps of `instr`, bound by the
// rule tools/tc-probe measured on this device, or three roundings a term where none was measured
// (tc_depth.cuh).
inline double gemm_depth(const char* instr, long K) { return kc::cu::tc_depth(instr, K); }

}  // namespace kc::gemm_cu
