// qmm's device unit at 2 and 3 bits (qmm_unit.cuh): every group's kernels, exports and launches; and
// the pre-pass kernel every unit launches (qmm.cuh: defined here alone).
#include "kc/cuda_launch.hpp"
#include "qmm_unit.cuh"

KC_QMM_WS(2, 32)
KC_QMM_WS(2, 64)
KC_QMM_2WG(2, 128)
KC_QMM_WS(3, 32)
KC_QMM_WS(3, 64)
KC_QMM_2WG(3, 128)
