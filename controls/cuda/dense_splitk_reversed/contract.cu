// Control: the split-K decode projection meeting its slices last to first (on the sm_90a image, the
// wgmma form's parts: at the shapes where the launcher cuts K in two or more). Within every bound,
// never the GEMV's bits: gate 3's replacement check must catch it.
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "../../../kernels/common/cuda_contract.hpp"
#include "../../../kernels/dense/gemv/gemv.cuh"
#include "kc/families/dense.hpp"

using namespace kc::dense_cu;

namespace {
float* g_ws = nullptr;
size_t g_n = 0;
float* ws(size_t n) {
  if (n > g_n) {
    if (g_ws) cudaFree(g_ws);
    g_ws = nullptr, g_n = 0;
    if (cudaMalloc(&g_ws, n * sizeof(float)) != cudaSuccess) throw kc::Error("dense/ctl_splitk_reversed: no workspace");
    g_n = n;
  }
  return g_ws;
}
// The split-K form's launches for the form this process runs, then the (reversed) meeting.
std::vector<std::string> launches() {
  std::vector<std::string> v = gemv_splitk_forms("dense/ctl_splitk_reversed/f32");
  v.push_back("dense/ctl_splitk_reversed/f32/meet");
  return v;
}
}  // namespace

KC_CONTROL("dense/ctl_splitk_reversed/f32", cuda) {
  gemv_prepare<float>();
  return kc::dense::projection(kc::DType::f32)
      .served({{"m", {1, 8}}, {"n", {64, 4096}}, {"k", {64, 4096}}})
      .tile("m", 8, 1, 1)
      .tile("n", 4, 1, 1)
      .tile("k", gemv_tile_k(), 8, 8)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return gemv_depth_at<float>(s["m"], s["n"], s["k"]); })
      .launches(launches())
      .replaces("dense/gemv/f32",
                [](const kc::Buffers& b) {
                  const kc::Shape& s = b.shape();
                  launch_gemv<float>(b.ptr("x"), b.ptr("w"), b.out<float>("y"), int(s["m"]), int(s["n"]),
                                     int(s["k"]), kc::cu::stream_of(b));
                })
      .control(kc::Gate::shapes, kc::Why::not_bit_equal)
      .release([] {
        if (g_ws) cudaFree(g_ws);
        g_ws = nullptr, g_n = 0;
      })
      .launch([](const kc::Buffers& b) {
        const kc::Shape& s = b.shape();
        const int M = int(s["m"]), N = int(s["n"]), K = int(s["k"]);
        launch_gemv_splitk<float, Fault::reversed_meet>(b.ptr("x"), b.ptr("w"), ws(size_t(kSlices) * M * N),
                                                        b.out<float>("y"), M, N, K, kc::cu::stream_of(b));
      });
}

// Launch records (one an instantiation the launcher picks by rows; kernels/.../launches.tsv rows).
KC_CUDA_LAUNCH("dense/ctl_splitk_reversed/f32/slices_m8", (kc_gemv_bf16_slices<1, 1>), 32, 0);
KC_CUDA_LAUNCH("dense/ctl_splitk_reversed/f32/slices_m16", (kc_gemv_bf16_slices<2, 1>), 32, 0);
KC_CUDA_LAUNCH("dense/ctl_splitk_reversed/f32/slices_m32", (kc_gemv_bf16_slices<4, 1>), 32, 0);
KC_CUDA_LAUNCH("dense/ctl_splitk_reversed/f32/meet", (kc_gemv_bf16_meet<float, Fault(3)>), 256, 0);
#if defined(__CUDACC__)  // the wgmma parts (sm_90a only; not in the HIP build of this control)
KC_CUDA_LAUNCH("dense/ctl_splitk_reversed/f32/wgmma_parts_m8", (kc_gemv90_parts<8>), kc::gemv90::kThreads, kc::gemv90::smem_bytes<8>());
KC_CUDA_LAUNCH("dense/ctl_splitk_reversed/f32/wgmma_parts_m16", (kc_gemv90_parts<16>), kc::gemv90::kThreads, kc::gemv90::smem_bytes<16>());
KC_CUDA_LAUNCH("dense/ctl_splitk_reversed/f32/wgmma_parts_m32", (kc_gemv90_parts<32>), kc::gemv90::kThreads, kc::gemv90::smem_bytes<32>());
#endif
