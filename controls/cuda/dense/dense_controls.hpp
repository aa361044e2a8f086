// What the dense family's CUDA controls' device unit (dense_controls.cu) exports to their
// registrations (cuda.cpp): a launcher a control, each on the harness's stream. Host code.
#pragma once
#include "../../../kernels/dense/gemm/gemm.cuh"
#include "../../../kernels/dense/gemv/gemv.cuh"

namespace kc::dense_ctl {

// dense/ctl_tc_exact_steps/f32's tiles: 64 x 64 of four 32 x 32 warps, two 16 KiB stages: its own
// symbol, no opt-in.
using TcExactSteps = kc::gemm_cu::Cfg<64, 64, 32, 32, 32, 2>;

// bf16 x [M x K] and W [N x K], fp32 y [M x N].
void bf16_sum_launch(const void* x, const void* w, float* y, int M, int N, int K, void* stream);
void early_x_launch(const void* x, const void* w, float* y, int M, int N, int K, void* stream);
void tail_drop_launch(const void* x, const void* w, float* y, int M, int N, int K, void* stream);
void corner_drop_launch(const void* x, const void* w, float* y, int M, int N, int K, void* stream);
void tc_exact_steps_launch(const void* x, const void* w, float* y, int M, int N, int K, void* stream);
// dense/ctl_splitk_reversed/f32: the unit's table (the form it runs, its opt-in, its depth, the GEMV
// the control replaces: GemvUnit), and the split-K form meeting its parts last to first (ws:
// kSlices * M * N floats).
const kc::dense_cu::GemvUnit<float>& splitk_reversed_unit();
void splitk_reversed_launch(const void* x, const void* w, float* ws, float* y, int M, int N, int K, void* stream);

}  // namespace kc::dense_ctl
