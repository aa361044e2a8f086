// HIP build of the CUDA control controls/cuda/dense_tail_drop/contract.cu, unchanged (kernels/common/hip_shim:
// kc_gpu.h's CUDA spelling; the registration is parsed, never emitted in a device-only code object).
#include "../../cuda/dense_tail_drop/contract.cu"
