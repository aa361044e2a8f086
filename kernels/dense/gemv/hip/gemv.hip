// HIP build of ../gemv.cu, unchanged: its kernels at the instantiations the contract serves, with
// CUDA's spelling from kernels/common/kc_gpu.h (and hip_shim/ for the CUDA headers it includes).
#include "../gemv.cu"
