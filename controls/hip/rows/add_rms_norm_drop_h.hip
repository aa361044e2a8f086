// HIP build of the CUDA control controls/cuda/rows/add_rms_norm_drop_h.cuh, unchanged: kc_gpu.h gives its
// device code CUDA's spelling; its KC_CUDA_LAUNCH lines are host code, never emitted in a
// device-only code object.
#include "../../cuda/rows/add_rms_norm_drop_h.cuh"

// Every form the control's launcher takes (rows_controls.cu), as its CUDA unit holds them.
template void kc::cu::launch_add_rms_norm<true>(const void*, const void*, const void*, void*, void*, int, int, float, cudaStream_t);
