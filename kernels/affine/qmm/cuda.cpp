// Contract of the CUDA affine-quantized prompt projection on tensor cores at every bit width and
// group MLX serves, bf16 out. On an sm_90 device whose loaded image is sm_90a, wgmma tiles of 128 x
// 128, K in steps of 64, a group's x . q in one accumulator: warp-specialized (qmm_ws_sm90a.cuh: a
// producer warpgroup unpacks the codes) for 2 to 6 bits in groups of 32 or 64, two warpgroups that
// unpack between their wgmmas (qmm_sm90a.cuh) for 8 bits and groups of 128, where the producer's
// registers (168 a thread at 384 threads) would spill; both measured on the H200 in
// bench/cuda/dense/h200_prompt.txt. Everywhere else the mma.sync tiles (qmm.cuh: 128 x 64, K in
// steps of 32). All take the sums of x from the same pre-pass. The entry declares the tiles, depth
// and launches of the kernels this process runs. The kernels, their launchers and launch records are
// the device units' (qmm_b*.cu), asked through QmmUnit.
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "../../common/cuda_contract.hpp"
#include "kc/families/affine.hpp"
#include "qmm.cuh"
#include "qmm.hpp"
#include "qmm_sm90a.cuh"

namespace {
using namespace kc::qmm_cu;

// The per-32-column sums of x, kept between launches and freed by the rig's release.
float* g_xs = nullptr;
size_t g_n = 0;
float* xs_workspace(size_t n) {
  if (n > g_n) {
    if (g_xs) cudaFree(g_xs);
    g_xs = nullptr, g_n = 0;
    if (cudaMalloc(&g_xs, n * sizeof(float)) != cudaSuccess)
      throw kc::Error("affine/qmm: cannot allocate its workspace of " + std::to_string(n) + " floats");
    g_n = n;
  }
  return g_xs;
}

// Prompt rows: tiles of 128 x rows and 64 (mma.sync) or 128 (wgmma) W rows; K a multiple of the
// group. Served: 17 to 8,192 rows of 64 to 16,384 outputs over K of 64 (a group of 128: 128) to
// 16,384, every cross of them, as dense/gemm. The float64 references of eighteen entries at 8,192 x
// 16,384 x 16,384 take a device where the backend offers one (kc/ref_device.hpp); on 16 cores each
// entry's would take ~40 s.
// The K tile: mma.sync takes 32 columns a step and declares 4 steps (128, the largest group); wgmma
// takes 64 a step, a group of 128 in two.
template <int B, int G> kc::Entry qmm_entry(const std::string& name) {
  using U = QmmUnit<B, G>;
  const bool wg = U::wgmma();  // decided once by the unit that holds the kernels
  if (wg) (void)U::prepare_wgmma();  // opted in before the backend checks the launch's limits
  return kc::affine::projection(B, G, kc::DType::bf16)
      .served({{"m", {17, 512, 8192}}, {"n", {64, 4096, 16384}}, {"k", {std::max(64, G), 4096, 16384}}})
      .tile("m", wg ? kc::qmm90::kBM : kBM, 1, 1)
      .tile("n", wg ? kc::qmm90::kBN : kBN, 1, 1)
      .tile("k", wg ? std::max(kc::qmm90::kBK, G) : 4 * kBK, G, G)
      .sums(kc::DType::f32,
            [wg](const kc::Shape& s) { return wg ? kc::qmm90::qmm_depth(s["k"], G) : qmm_depth(s["k"]); })
      .note(!wg ? "mma.sync tiles" : kWarpSpecialized<B, G> ? "warp-specialized wgmma tiles (sm_90a image)"
                                                              : "two-warpgroup wgmma tiles (sm_90a image)")
      .launches({name + (wg ? "/tile_wgmma" : "/tile"), name + "/xsum"})
      .release([] {
        if (g_xs) cudaFree(g_xs);
        g_xs = nullptr, g_n = 0;
      })
      .launch([wg](const kc::Buffers& b) {
        kc::cu::need_aligned16(b, {"x"});
        const kc::Shape& s = b.shape();
        const int M = int(s["m"]), N = int(s["n"]), K = int(s["k"]);
        float* xs = xs_workspace(size_t(M) * (K / 32));
        void* y = b.out<kc::bf16>("y");
        if (!wg) {
          U::launch(b.ptr("x"), b.ptr("q"), b.ptr("s"), b.ptr("b"), xs, y, M, N, K, b.stream());
          return;
        }
        const cudaError_t ok = U::prepare_wgmma();
        if (ok != cudaSuccess)
          throw kc::Error(std::string("affine/qmm: cannot opt in to its dynamic shared memory: ") + cudaGetErrorString(ok));
        U::launch_wgmma(b.ptr("x"), b.ptr("q"), b.ptr("s"), b.ptr("b"), xs, y, M, N, K, b.stream());
      });
}
}  // namespace

#define KC_QMM_ENTRY(B, G) \
  KC_KERNEL("affine/qmm/b" #B "_g" #G, cuda) { return qmm_entry<B, G>("affine/qmm/b" #B "_g" #G); }

KC_QMM_ENTRY(2, 32)
KC_QMM_ENTRY(2, 64)
KC_QMM_ENTRY(2, 128)
KC_QMM_ENTRY(3, 32)
KC_QMM_ENTRY(3, 64)
KC_QMM_ENTRY(3, 128)
KC_QMM_ENTRY(4, 32)
KC_QMM_ENTRY(4, 64)
KC_QMM_ENTRY(4, 128)
KC_QMM_ENTRY(5, 32)
KC_QMM_ENTRY(5, 64)
KC_QMM_ENTRY(5, 128)
KC_QMM_ENTRY(6, 32)
KC_QMM_ENTRY(6, 64)
KC_QMM_ENTRY(6, 128)
KC_QMM_ENTRY(8, 32)
KC_QMM_ENTRY(8, 64)
KC_QMM_ENTRY(8, 128)
