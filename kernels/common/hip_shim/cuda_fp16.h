// cuda_fp16.h for clang HIP device-only builds with no ROCm: the 16-bit float types and conversions come
// from kc_gpu.h (see hip_shim/cuda_runtime.h).
#pragma once
#include "cuda_runtime.h"
