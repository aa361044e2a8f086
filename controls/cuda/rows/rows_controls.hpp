// The launchers of the CUDA rows controls, defined in rows_controls.cu (each control's kernels in its
// <control>.cuh) and called by their registrations (cuda.cpp), on the stream they are given: the
// harness's (Buffers::stream()), but for the control whose fault is the stream. Plain C++, so the
// registrations compile without the device code.
#pragma once

namespace kc::rows_ctl {

// add_rms_norm_drop_h.cuh: the once-rounded norm (launch_add_rms_norm<true>) on bf16 x, r, w, h, y.
void add_rms_norm_drop_h(const void* x, const void* r, const void* w, void* h, void* y, int rows, int cols, float eps,
                         void* stream);
// u32_offset.cuh: a row sum whose row offset wraps at 4 GiB.
void u32_offset(const float* x, float* y, int rows, int cols, void* stream);
// atomic_sum.cuh: y cleared, then the atomic sum in the order of launch number `run`.
void atomic_sum(const float* x, float* y, int rows, int cols, unsigned run, void* stream);
// The one-warp-a-row controls, bf16 x [rows, cols]: y [rows] is fp32 (float*) or bf16 (void*).
void max_flt_max(const void* x, float* y, int rows, int cols, void* stream);
void max_int_keys(const void* x, void* y, int rows, int cols, void* stream);
void overread_end(const void* x, float* y, int rows, int cols, void* stream);
void sum_floor_stride(const void* x, float* y, int rows, int cols, void* stream);
void fmaxf_max(const void* x, void* y, int rows, int cols, void* stream);
void half_dot(const void* x, const void* w, float* y, int rows, int cols, void* stream);
void in_place_sum(void* x, float* y, int rows, int cols, void* stream);
void tail_drop_sum(const void* x, float* y, int rows, int cols, void* stream);
// The softmax controls: bf16 x and y [rows, cols].
void softmax_masked_zero(const void* x, void* y, int rows, int cols, void* stream);
void softmax_online_unguarded(const void* x, void* y, int rows, int cols, void* stream);
// The GLU controls: n elements of bf16 g, u and y.
void geglu_drop_gelu(const void* g, const void* u, void* y, long n, void* stream);
void swiglu_drop_silu(const void* g, const void* u, void* y, long n, void* stream);
// launch_watch.cuh: the helper with no record, and the row sum at rpb = 8 or 4 rows a block.
void unrecorded_clear(float* y, int rows, void* stream);
void row_sum(const void* x, float* y, int rows, int cols, int rpb, void* stream);
// layer_norm_one_pass.cuh: the fp32 layer norm with the one-pass variance
// (launch_layer_norm<true, float, true>).
void layer_norm_one_pass(const void* x, const void* w, const void* b, float* y, float* mean, float* rstd, int rows,
                         int cols, float eps, void* stream);

}  // namespace kc::rows_ctl
