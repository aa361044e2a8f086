// qmv's device unit at 6 bits (qmv_unit.cuh): every group's kernels, exports and launches.
#include "kc/cuda_launch.hpp"
#include "qmv_unit.cuh"

KC_QMV(6, 32)
KC_QMV(6, 64)
KC_QMV(6, 128)
