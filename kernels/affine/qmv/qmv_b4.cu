// qmv's device unit at 4 bits (qmv_unit.cuh): every group's kernels, exports and launches.
#include "kc/cuda_launch.hpp"
#include "qmv_unit.cuh"

KC_QMV(4, 32)
KC_QMV(4, 64)
KC_QMV(4, 128)
#if defined(__CUDACC__)
KC_QMV_BULK(4, 32)
KC_QMV_BULK(4, 64)
KC_QMV_BULK(4, 128)
#endif
