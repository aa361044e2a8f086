// Contract of the CUDA affine-quantized prompt projection on tensor cores at every bit width and
// group MLX serves, bf16 out. On an sm_90 device whose loaded image is sm_90a, wgmma tiles of 128 x
// 128, K in steps of 64, a group's x . q in one accumulator: warp-specialized (qmm_ws_sm90a.cuh: a
// producer warpgroup unpacks the codes) for 2 to 6 bits in groups of 32 or 64, two warpgroups that
// unpack between their wgmmas (qmm_sm90a.cuh) for 8 bits and groups of 128, where the producer's
// registers (168 a thread at 384 threads) would spill; both measured on the H200 in
// bench/cuda/dense/h200_prompt.txt. Everywhere else the mma.sync tiles (qmm.cuh: 128 x 64, K in
// steps of 32). All take the sums of x from the same pre-pass. The entry declares the tiles, depth
// and launches of the kernels this process runs.
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "../../common/cuda_contract.hpp"
#include "kc/families/affine.hpp"
#include "qmm.cuh"
#include "qmm_sm90a.cuh"
#include "qmm_ws_sm90a.cuh"

namespace {
using namespace kc::qmm_cu;

// Does this process run the wgmma tiles? Decided once.
bool use_wgmma() {
  static const bool yes = kc::gemm90::image_has_wgmma();
  return yes;
}
// Which wgmma tiles a (bits, group) takes.
template <int B, int G> constexpr bool kWarpSpecialized = B <= 6 && G <= 64;

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

template <int B, int G> cudaError_t prepare_wgmma() {
  if constexpr (kWarpSpecialized<B, G>) return kc::qmmws::prepare<B, G, __nv_bfloat16>();
  else return kc::qmm90::prepare<B, G, __nv_bfloat16>();
}

// Prompt rows: tiles of 128 x rows and 64 (mma.sync) or 128 (wgmma) W rows; K a multiple of the
// group. Served: 17 to 8,192 rows of 64 to 16,384 outputs over K of 64 (a group of 128: 128) to
// 16,384, every cross of them, as dense/gemm. The float64 references of eighteen entries at 8,192 x
// 16,384 x 16,384 take a device where the backend offers one (kc/ref_device.hpp); on 16 cores each
// entry's would take ~40 s.
// The K tile: mma.sync takes 32 columns a step and declares 4 steps (128, the largest group); wgmma
// takes 64 a step, a group of 128 in two.
template <int B, int G> kc::Entry qmm_entry(const std::string& name) {
  const bool wg = use_wgmma();
  if (wg) (void)prepare_wgmma<B, G>();  // opted in before the backend checks the launch's limits
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
        auto* y = reinterpret_cast<__nv_bfloat16*>(b.out<kc::bf16>("y"));
        const cudaStream_t st = kc::cu::stream_of(b);
        if (!wg) {
          launch_qmm<B, G, __nv_bfloat16>(b.ptr("x"), b.ptr("q"), b.ptr("s"), b.ptr("b"), xs, y, M, N, K, st);
          return;
        }
        const cudaError_t ok = prepare_wgmma<B, G>();
        if (ok != cudaSuccess)
          throw kc::Error(std::string("affine/qmm: cannot opt in to its dynamic shared memory: ") + cudaGetErrorString(ok));
        launch_xsum(b.ptr("x"), xs, M, K, st);
        if constexpr (kWarpSpecialized<B, G>)
          kc::qmmws::launch<B, G, __nv_bfloat16>(b.ptr("x"), b.ptr("q"), b.ptr("s"), b.ptr("b"), xs, y, M, N, K, st);
        else
          kc::qmm90::launch<B, G, __nv_bfloat16>(b.ptr("x"), b.ptr("q"), b.ptr("s"), b.ptr("b"), xs, y, M, N, K, st);
      });
}
}  // namespace

#define KC_QMM(B, G)                                                                                         \
  KC_KERNEL("affine/qmm/b" #B "_g" #G, cuda) { return qmm_entry<B, G>("affine/qmm/b" #B "_g" #G); }          \
  KC_CUDA_LAUNCH("affine/qmm/b" #B "_g" #G "/tile", (kc_affine_qmm<B, G, __nv_bfloat16>), 256, 0);           \
  KC_CUDA_LAUNCH("affine/qmm/b" #B "_g" #G "/xsum", kc_affine_xsum, 256, 0);
// The wgmma tiles of a (bits, group): warp-specialized (384 threads) or two warpgroups (256).
#define KC_QMM_WS(B, G)                                                                                      \
  KC_QMM(B, G)                                                                                               \
  KC_CUDA_LAUNCH("affine/qmm/b" #B "_g" #G "/tile_wgmma", (kc_affine_qmm_ws<B, G, __nv_bfloat16>), 384,          \
                 kc::qmmws::smem_bytes<B>());
#define KC_QMM_2WG(B, G)                                                                                     \
  KC_QMM(B, G)                                                                                               \
  KC_CUDA_LAUNCH("affine/qmm/b" #B "_g" #G "/tile_wgmma", (kc_affine_qmm_wgmma<B, G, __nv_bfloat16>), 256,       \
                 kc::qmm90::smem_bytes<B>());

KC_QMM_WS(2, 32)
KC_QMM_WS(2, 64)
KC_QMM_2WG(2, 128)
KC_QMM_WS(3, 32)
KC_QMM_WS(3, 64)
KC_QMM_2WG(3, 128)
KC_QMM_WS(4, 32)
KC_QMM_WS(4, 64)
KC_QMM_2WG(4, 128)
KC_QMM_WS(5, 32)
KC_QMM_WS(5, 64)
KC_QMM_2WG(5, 128)
KC_QMM_WS(6, 32)
KC_QMM_WS(6, 64)
KC_QMM_2WG(6, 128)
KC_QMM_2WG(8, 32)
KC_QMM_2WG(8, 64)
KC_QMM_2WG(8, 128)

// Each KC_QMM_WS / KC_QMM_2WG line must agree with kWarpSpecialized.
static_assert(kWarpSpecialized<6, 64> && !kWarpSpecialized<6, 128> && !kWarpSpecialized<8, 32>);
