// Gate 5 controls at run time: right row sums (a warp a row, RPB rows a block) whose launchers start
// what their records and picks do not say. Gates 1-4 pass; the launch watch finds each.
//   rows/ctl_unrecorded_launch: also starts a helper that clears the output first, registered
//     nowhere (no KC_CUDA_LAUNCH, no launch row): gate 5 never read its limits.
//   rows/ctl_pick_lies: its pick names the 4-rows-a-block form past 1,024 columns, but the launcher
//     takes it only past 2,048: gate 3's form shape for it runs the other form.
//   rows/ctl_default_stream: launches on the legacy default stream, as a launcher that ignores
//     Buffers::stream() does (<<<grid, block>>>): an error naming the kernel and the stream.
#pragma once
#include "../common.cuh"
#include "kc/cuda_launch.hpp"

__global__ void __launch_bounds__(128) kc_ctl_unrecorded_clear(float* y, int rows) {
  const int i = blockIdx.x * 128 + threadIdx.x;
  if (i < rows) y[i] = 0.f;
}

template <int RPB>
__global__ void __launch_bounds__(32 * RPB) kc_ctl_row_sum(const uint16_t* x, float* y, int rows, int cols) {
  using namespace kc::cu;
  const long row = long(blockIdx.x) * RPB + threadIdx.x / 32;
  if (row >= rows) return;
  float s = 0.f;
  for (int c = threadIdx.x % 32; c < cols; c += 32) s += bf16_to_f32(x[row * cols + c]);
  s = warp_all(s, Add());
  if (threadIdx.x % 32 == 0) y[row] = s;
}

KC_CUDA_LAUNCH("rows/ctl_unrecorded_launch/f32", kc_ctl_row_sum<8>, 256, 0);
KC_CUDA_LAUNCH("rows/ctl_default_stream/f32", kc_ctl_row_sum<8>, 256, 0);
KC_CUDA_LAUNCH("rows/ctl_pick_lies/f32/rpb8", kc_ctl_row_sum<8>, 256, 0);
KC_CUDA_LAUNCH("rows/ctl_pick_lies/f32/rpb4", kc_ctl_row_sum<4>, 128, 0);
