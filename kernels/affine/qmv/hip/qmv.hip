// HIP build of qmv's device units (../qmv_b*.cu, one a bit width), unchanged: their kernels at the
// instantiations the contract serves, in one code object, with CUDA's spelling from
// kernels/common/kc_gpu.h (and hip_shim/ for the CUDA headers they include).
#include "../qmv_b2.cu"
#include "../qmv_b3.cu"
#include "../qmv_b4.cu"
#include "../qmv_b5.cu"
#include "../qmv_b6.cu"
#include "../qmv_b8.cu"
