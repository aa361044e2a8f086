// Shared by the CUDA controls: one warp a row, plain 2-byte loads. Each control plants one fault.
#pragma once
#include "../../kernels/common/kc_rows.cuh"

namespace kc::cu {
inline int warp_rows_grid(int rows) { return (rows + 7) / 8; }  // 8 warps (rows) a 256-thread block
}
