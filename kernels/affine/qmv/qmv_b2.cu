// qmv's device unit at 2 bits (qmv_unit.cuh): every group's kernels, exports and launches.
#include "kc/cuda_launch.hpp"
#include "qmv_unit.cuh"

KC_QMV(2, 32)
KC_QMV(2, 64)
KC_QMV(2, 128)
#if defined(__CUDACC__)
KC_QMV_BULK(2, 64)
KC_QMV_BULK(2, 128)
#endif
