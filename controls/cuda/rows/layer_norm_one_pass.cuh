// Gate 3 control: the served fp32 layer norm (layer_norm.cuh) with its variance from one pass,
// E[x^2] - mean^2 in fp32, clamped at 0 as real code does. On the offset fill (1000 + 0.01 u) the
// two terms are near 1e6 and differ by about 3e-5, which fp32 cannot hold: rstd and y fall outside
// the two-pass interval. On every other fill and gate it is within it: red on gate 3 alone. Its
// kernels are layer_norm.cuh's with ONE_PASS; its launcher (rows_controls.cu) takes every width's
// form, as launch_layer_norm<true, float, true> does.
#pragma once
#include "../../../kernels/rows/layer_norm/layer_norm.cuh"
#include "kc/cuda_launch.hpp"

KC_CUDA_LAUNCH("rows/ctl_layer_norm_one_pass/f32/v1", (kc_layer_norm_vec<true, float, 1, true>), 256, 0);
KC_CUDA_LAUNCH("rows/ctl_layer_norm_one_pass/f32/v2", (kc_layer_norm_vec<true, float, 2, true>), 256, 0);
KC_CUDA_LAUNCH("rows/ctl_layer_norm_one_pass/f32/v4", (kc_layer_norm_vec<true, float, 4, true>), 256, 0);
