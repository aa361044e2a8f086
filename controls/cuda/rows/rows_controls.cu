// The CUDA unit of the rows controls: every control's kernels and launches (its <control>.cuh) and
// the launchers their registrations (cuda.cpp) call (rows_controls.hpp).
#include "rows_controls.hpp"

#include "add_rms_norm_drop_h.cuh"
#include "atomic_sum.cuh"
#include "ctl_max_flt_max.cuh"
#include "ctl_max_int_keys.cuh"
#include "ctl_overread_end.cuh"
#include "ctl_softmax_masked_zero.cuh"
#include "ctl_softmax_online_unguarded.cuh"
#include "ctl_sum_floor_stride.cuh"
#include "fmaxf_max.cuh"
#include "geglu_drop_gelu.cuh"
#include "half_dot.cuh"
#include "in_place_sum.cuh"
#include "kc/cuda_launch.hpp"
#include "launch_watch.cuh"
#include "layer_norm_one_pass.cuh"
#include "swiglu_drop_silu.cuh"
#include "tail_drop_sum.cuh"
#include "u32_offset.cuh"

namespace kc::rows_ctl {
namespace {
cudaStream_t as_stream(void* stream) { return static_cast<cudaStream_t>(stream); }
const uint16_t* u16(const void* p) { return static_cast<const uint16_t*>(p); }
uint16_t* u16(void* p) { return static_cast<uint16_t*>(p); }
using kc::cu::warp_rows_grid;
}  // namespace

void add_rms_norm_drop_h(const void* x, const void* r, const void* w, void* h, void* y, int rows, int cols, float eps,
                         void* stream) {
  kc::cu::launch_add_rms_norm<true>(x, r, w, h, y, rows, cols, eps, as_stream(stream));
}

void u32_offset(const float* x, float* y, int rows, int cols, void* stream) {
  kc_ctl_u32_offset<<<rows, 256, 0, as_stream(stream)>>>(x, y, cols);
}

void atomic_sum(const float* x, float* y, int rows, int cols, unsigned run, void* stream) {
  cudaMemsetAsync(y, 0, sizeof(float) * rows, as_stream(stream));
  kc_ctl_atomic_sum<<<warp_rows_grid(rows), 256, 0, as_stream(stream)>>>(x, y, rows, cols, run);
}

void max_flt_max(const void* x, float* y, int rows, int cols, void* stream) {
  kc_ctl_max_flt_max<<<warp_rows_grid(rows), 256, 0, as_stream(stream)>>>(u16(x), y, rows, cols);
}
void max_int_keys(const void* x, void* y, int rows, int cols, void* stream) {
  kc_ctl_max_int_keys<<<warp_rows_grid(rows), 256, 0, as_stream(stream)>>>(u16(x), u16(y), rows, cols);
}
void overread_end(const void* x, float* y, int rows, int cols, void* stream) {
  kc_ctl_overread_end<<<warp_rows_grid(rows), 256, 0, as_stream(stream)>>>(u16(x), y, rows, cols);
}
void sum_floor_stride(const void* x, float* y, int rows, int cols, void* stream) {
  kc_ctl_sum_floor_stride<<<warp_rows_grid(rows), 256, 0, as_stream(stream)>>>(u16(x), y, rows, cols);
}
void fmaxf_max(const void* x, void* y, int rows, int cols, void* stream) {
  kc_ctl_fmaxf_max<<<warp_rows_grid(rows), 256, 0, as_stream(stream)>>>(u16(x), u16(y), rows, cols);
}
void half_dot(const void* x, const void* w, float* y, int rows, int cols, void* stream) {
  kc_ctl_half_dot<<<warp_rows_grid(rows), 256, 0, as_stream(stream)>>>(u16(x), u16(w), y, rows, cols);
}
void in_place_sum(void* x, float* y, int rows, int cols, void* stream) {
  kc_ctl_in_place_sum<<<warp_rows_grid(rows), 256, 0, as_stream(stream)>>>(u16(x), y, rows, cols);
}
void tail_drop_sum(const void* x, float* y, int rows, int cols, void* stream) {
  kc_ctl_tail_drop_sum<<<warp_rows_grid(rows), 256, 0, as_stream(stream)>>>(u16(x), y, rows, cols);
}

void softmax_masked_zero(const void* x, void* y, int rows, int cols, void* stream) {
  kc_ctl_softmax_masked_zero<<<warp_rows_grid(rows), 256, 0, as_stream(stream)>>>(u16(x), u16(y), rows, cols);
}
void softmax_online_unguarded(const void* x, void* y, int rows, int cols, void* stream) {
  kc_ctl_softmax_online_unguarded<<<warp_rows_grid(rows), 256, 0, as_stream(stream)>>>(u16(x), u16(y), rows, cols);
}

void geglu_drop_gelu(const void* g, const void* u, void* y, long n, void* stream) {
  kc_ctl_geglu_drop_gelu<<<unsigned((n + 255) / 256), 256, 0, as_stream(stream)>>>(u16(g), u16(u), u16(y), n);
}
void swiglu_drop_silu(const void* g, const void* u, void* y, long n, void* stream) {
  kc_ctl_swiglu_drop_silu<<<unsigned((n + 255) / 256), 256, 0, as_stream(stream)>>>(u16(g), u16(u), u16(y), n);
}

void unrecorded_clear(float* y, int rows, void* stream) {
  kc_ctl_unrecorded_clear<<<(rows + 127) / 128, 128, 0, as_stream(stream)>>>(y, rows);
}
void row_sum(const void* x, float* y, int rows, int cols, int rpb, void* stream) {
  if (rpb == 4)
    kc_ctl_row_sum<4><<<(rows + 3) / 4, 32 * 4, 0, as_stream(stream)>>>(u16(x), y, rows, cols);
  else
    kc_ctl_row_sum<8><<<(rows + 7) / 8, 32 * 8, 0, as_stream(stream)>>>(u16(x), y, rows, cols);
}

void layer_norm_one_pass(const void* x, const void* w, const void* b, float* y, float* mean, float* rstd, int rows,
                         int cols, float eps, void* stream) {
  kc::cu::launch_layer_norm<true, float, /*ONE_PASS=*/true>(x, w, b, y, mean, rstd, rows, cols, eps, as_stream(stream));
}

}  // namespace kc::rows_ctl
