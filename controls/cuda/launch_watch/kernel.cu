// Gate 5 controls at run time: right row sums (a warp a row, RPB rows a block) whose launchers start
// what their records and picks do not say. Gates 1-4 pass; the launch watch finds each.
//   rows/ctl_unrecorded_launch: also starts a helper that clears the output first, registered
//     nowhere (no KC_CUDA_LAUNCH, no launches.tsv row): gate 5 never read its limits.
//   rows/ctl_pick_lies: its pick names the 4-rows-a-block form past 1,024 columns, but the launcher
//     takes it only past 2,048: gate 3's form shape for it runs the other form.
//   rows/ctl_default_stream: launches on the legacy default stream, as a launcher that ignores
//     Buffers::stream() does (<<<grid, block>>>): an error naming the kernel and the stream.
#include "../../../kernels/common/cuda_contract.hpp"
#include "../common.cuh"

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

template <int RPB> static void row_sum(const kc::Buffers& b, cudaStream_t stream) {
  const int rows = int(b.shape()["rows"]);
  kc_ctl_row_sum<RPB><<<(rows + RPB - 1) / RPB, 32 * RPB, 0, stream>>>(
      reinterpret_cast<const uint16_t*>(b.in<kc::bf16>("x")), b.out<float>("y"), rows, int(b.shape()["cols"]));
}

template <int RPB> static void row_sum(const kc::Buffers& b) { row_sum<RPB>(b, kc::cu::stream_of(b)); }

static kc::Entry row_sum_env(std::vector<std::string> launches, kc::Why why = kc::Why::launch) {
  return kc::rows::sum(kc::DType::bf16, kc::DType::f32)
      .served({{"rows", {7, 64}}, {"cols", {64, 1024, 4096}}})
      .tile("cols", 32, 1, 1)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double((s["cols"] + 31) / 32 + 5); })
      .launches(std::move(launches))
      .control(kc::Gate::limits, why);
}

KC_CONTROL("rows/ctl_unrecorded_launch/f32", cuda) {
  return row_sum_env({"rows/ctl_unrecorded_launch/f32"}).launch([](const kc::Buffers& b) {
    const int rows = int(b.shape()["rows"]);
    kc_ctl_unrecorded_clear<<<(rows + 127) / 128, 128, 0, kc::cu::stream_of(b)>>>(b.out<float>("y"), rows);  // the fault
    row_sum<8>(b);
  });
}

KC_CONTROL("rows/ctl_pick_lies/f32", cuda) {
  return row_sum_env({"rows/ctl_pick_lies/f32/rpb8", "rows/ctl_pick_lies/f32/rpb4"})
      .picks([](const kc::Shape& s) {
        return std::string(s["cols"] > 1024 ? "rows/ctl_pick_lies/f32/rpb4" : "rows/ctl_pick_lies/f32/rpb8");  // the fault
      })
      .launch([](const kc::Buffers& b) {
        if (b.shape()["cols"] > 2048) row_sum<4>(b);
        else row_sum<8>(b);
      });
}

KC_CONTROL("rows/ctl_default_stream/f32", cuda) {
  return row_sum_env({"rows/ctl_default_stream/f32"}, kc::Why::stream).launch([](const kc::Buffers& b) {
    row_sum<8>(b, 0);  // the fault
  });
}

KC_CUDA_LAUNCH("rows/ctl_unrecorded_launch/f32", kc_ctl_row_sum<8>, 256, 0);
KC_CUDA_LAUNCH("rows/ctl_default_stream/f32", kc_ctl_row_sum<8>, 256, 0);
KC_CUDA_LAUNCH("rows/ctl_pick_lies/f32/rpb8", kc_ctl_row_sum<8>, 256, 0);
KC_CUDA_LAUNCH("rows/ctl_pick_lies/f32/rpb4", kc_ctl_row_sum<4>, 128, 0);
