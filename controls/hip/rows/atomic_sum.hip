// HIP build of the CUDA control controls/cuda/rows/atomic_sum.cuh, unchanged: kc_gpu.h gives its
// device code CUDA's spelling; its KC_CUDA_LAUNCH lines are host code, never emitted in a
// device-only code object.
#include "../../cuda/rows/atomic_sum.cuh"
