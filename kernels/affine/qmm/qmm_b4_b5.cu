// qmm's device unit at 4 and 5 bits (qmm_unit.cuh): every group's kernels, exports and launches.
#define KC_QMM_XSUM_DECLARED  // the pre-pass kernel is qmm_b2_b3.cu's
#include "kc/cuda_launch.hpp"
#include "qmm_unit.cuh"

KC_QMM_WS(4, 32)
KC_QMM_WS(4, 64)
KC_QMM_2WG(4, 128)
KC_QMM_WS(5, 32)
KC_QMM_WS(5, 64)
KC_QMM_2WG(5, 128)
