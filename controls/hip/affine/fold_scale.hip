// HIP build of the CUDA control controls/cuda/affine_fold_scale/contract.cu, unchanged (kernels/common/hip_shim:
// kc_gpu.h's CUDA spelling; the registration is parsed, never emitted in a device-only code object).
#include "../../cuda/affine_fold_scale/contract.cu"
