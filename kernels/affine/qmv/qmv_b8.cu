// qmv's device unit at 8 bits (qmv_unit.cuh): every group's kernels, exports and launches.
#include "kc/cuda_launch.hpp"
#include "qmv_unit.cuh"

KC_QMV(8, 32)
KC_QMV(8, 64)
KC_QMV(8, 128)
#if defined(__CUDACC__)
KC_QMV_BULK(8, 32)
KC_QMV_BULK(8, 64)
KC_QMV_BULK(8, 128)
#endif
