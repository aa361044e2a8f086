// HIP build of the CUDA control controls/cuda/tail_drop_sum/kernel.cu, unchanged: kc_gpu.h gives its device
// code CUDA's spelling and hip_shim/cuda_runtime.h lets its registration parse (host code, never
// emitted in a device-only code object).
#include "../../cuda/tail_drop_sum/kernel.cu"
