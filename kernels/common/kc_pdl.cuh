// Programmatic dependent launch (CUDA, sm_90 on): a kernel launched with kc_launch_chained may start
// while the kernel ahead of it on the stream still runs. It may read what that kernel cannot be
// writing (weights) at once, and must call kc_wait_ahead() before it reads what it does write (x)
// or writes what it reads (y): the wait returns once the kernel ahead has ended and its writes are
// visible. kc_let_next_start() lets the kernel behind start as this one's blocks free the SMs.
// Below sm_90, and without the launch attribute, both are no-ops and launches run in stream order.
// Gate 2 holds a chained entry (Spec::chained) to this: its chained inputs arrive late, written by
// an upstream kernel that lets it start first (backends/cuda/upstream.cu).
#pragma once
#include <cuda_runtime.h>

#include <utility>

__device__ __forceinline__ void kc_let_next_start() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
__device__ __forceinline__ void kc_wait_ahead() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// kernel<<<grid, block, smem, st>>>(args...), as a programmatic dependent of the kernel ahead.
template <class... P, class... A>
inline cudaError_t kc_launch_chained(void (*kernel)(P...), dim3 grid, dim3 block, size_t smem, cudaStream_t st,
                                     A&&... args) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = smem;
  cfg.stream = st;
  cudaLaunchAttribute at[1];
  at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  at[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = at;
  cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, kernel, std::forward<A>(args)...);
}

// Does the current device start a chained launch early (sm_90 on)? Below, launch plainly.
inline bool kc_chains_here() {
  static const bool yes = [] {
    int dev = 0, major = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess) {
      (void)cudaGetLastError();
      return false;
    }
    return major >= 9;
  }();
  return yes;
}
