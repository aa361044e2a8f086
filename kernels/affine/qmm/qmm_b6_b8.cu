// qmm's device unit at 6 and 8 bits (qmm_unit.cuh): every group's kernels, exports and launches.
#define KC_QMM_XSUM_DECLARED  // the pre-pass kernel is qmm_b2_b3.cu's
#include "kc/cuda_launch.hpp"
#include "qmm_unit.cuh"

KC_QMM_WS(6, 32)
KC_QMM_WS(6, 64)
KC_QMM_2WG(6, 128)
KC_QMM_2WG(8, 32)
KC_QMM_2WG(8, 64)
KC_QMM_2WG(8, 128)
