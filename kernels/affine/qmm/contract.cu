// Contract of the CUDA affine-quantized prompt projection on tensor cores (qmm.cuh) at every bit
// width and group MLX serves, bf16 out.
#include <cuda_runtime.h>

#include <string>

#include "../../common/cuda_contract.hpp"
#include "kc/families/affine.hpp"
#include "qmm.cuh"

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

// Prompt rows: tiles of 128 x rows and 64 W rows, K in 32-column steps (a group is 1, 2 or 4 of them).
// The float64 reference costs m n k a case, so the contract serves up to 512 x 1,024 x 2,048.
template <int B, int G> kc::Entry qmm_entry(const std::string& name) {
  return kc::affine::projection(B, G, kc::DType::bf16)
      .served({{"m", {17, 512}}, {"n", {64, 1024}}, {"k", {256, 2048}}})
      .tile("m", kBM, 1, 1)
      .tile("n", kBN, 1, 1)
      .tile("k", 4 * kBK, G, G)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return qmm_depth(s["k"]); })
      .launches({name + "/tile", name + "/xsum"})
      .release([] {
        if (g_xs) cudaFree(g_xs);
        g_xs = nullptr, g_n = 0;
      })
      .launch([](const kc::Buffers& b) {
        kc::cu::need_aligned16(b, {"x"});
        const kc::Shape& s = b.shape();
        const int M = int(s["m"]), N = int(s["n"]), K = int(s["k"]);
        launch_qmm<B, G, __nv_bfloat16>(b.ptr("x"), b.ptr("q"), b.ptr("s"), b.ptr("b"), xs_workspace(size_t(M) * (K / 32)),
                                        reinterpret_cast<__nv_bfloat16*>(b.out<kc::bf16>("y")), M, N, K,
                                        kc::cu::stream_of(b));
      });
}
}  // namespace

#define KC_QMM(B, G)                                                                                         \
  KC_KERNEL("affine/qmm/b" #B "_g" #G, cuda) { return qmm_entry<B, G>("affine/qmm/b" #B "_g" #G); }          \
  KC_CUDA_LAUNCH("affine/qmm/b" #B "_g" #G "/tile", (kc_affine_qmm<B, G, __nv_bfloat16>), 256, 0);           \
  KC_CUDA_LAUNCH("affine/qmm/b" #B "_g" #G "/xsum", kc_affine_xsum, 256, 0);

KC_QMM(2, 32)
KC_QMM(2, 64)
KC_QMM(2, 128)
KC_QMM(3, 32)
KC_QMM(3, 64)
KC_QMM(3, 128)
KC_QMM(4, 32)
KC_QMM(4, 64)
KC_QMM(4, 128)
KC_QMM(5, 32)
KC_QMM(5, 64)
KC_QMM(5, 128)
KC_QMM(6, 32)
KC_QMM(6, 64)
KC_QMM(6, 128)
KC_QMM(8, 32)
KC_QMM(8, 64)
KC_QMM(8, 128)
