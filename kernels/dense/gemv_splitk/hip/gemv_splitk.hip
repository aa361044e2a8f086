// HIP build of ../gemv_splitk.cu, unchanged: its kernels at the instantiations the contract serves, with
// CUDA's spelling from kernels/common/kc_gpu.h (and hip_shim/ for the CUDA headers it includes).
#include "../gemv_splitk.cu"
