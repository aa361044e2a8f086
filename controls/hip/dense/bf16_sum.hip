// HIP build of the CUDA control's device code, controls/cuda/dense/bf16_sum.cuh, unchanged
// (kernels/common/hip_shim: kc_gpu.h's CUDA spelling): its launch records, host code that is parsed and
// never emitted here, name the kernels the code object holds.
#include "../../cuda/dense/bf16_sum.cuh"
