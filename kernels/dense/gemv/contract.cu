// Contract of the CUDA decode projection (gemv.cuh): bf16 x and W, fp32 sums, bf16 or fp32 out. Two
// kernels, one picked at run time: on an sm_90 device whose loaded image is sm_90a the wgmma form
// (gemv_sm90a.cuh: 64 W rows a block, K in 1, 2, 4 or 8 parts a cluster meets), everywhere else the
// mma.sync form (16 W rows a block, 8 K slices). The entry declares the tiles, depth and launches of
// the one this process runs; its picks name the kernel the launcher takes, which gate 3 runs at a
// ragged shape each.
#include "../../common/cuda_contract.hpp"
#include "gemv_entry.hpp"

#include <string>
#include <vector>

namespace {
using namespace kc::dense_cu;

template <class Out> void run_gemv(const kc::Buffers& b) {
  kc::cu::need_aligned16(b, {"x", "w"});
  const kc::Shape& s = b.shape();
  if (s["k"] % 8) throw kc::Error("dense/gemv: k must be a multiple of 8 for 16-byte loads");
  launch_gemv<Out>(b.ptr("x"), b.ptr("w"), static_cast<Out*>(b.ptr("y")), int(s["m"]), int(s["n"]), int(s["k"]),
                   kc::cu::stream_of(b));
}

// The launch the launcher takes at a shape (gemv_form, or the wgmma form's): gate 3 runs each at a
// ragged shape.
template <class Out> std::string gemv_pick(const std::string& name, const kc::Shape& s) {
  const int M = int(s["m"]), N = int(s["n"]), K = int(s["k"]);
  if (gemv_wgmma()) return name + gemv_wgmma_suffix<Out>(M, N, K);
  const GemvShape g = gemv_form<Out>(M, N);
  return name + (g.mt == 1 ? "/m8" : g.mt == 2 ? "/m16" : g.nt == 2 ? "/m32x2" : "/m32");
}
std::vector<std::string> gemv_launches(const std::string& name) {
  if (gemv_wgmma()) return gemv_wgmma_launches(name);
  return {name + "/m8", name + "/m16", name + "/m32", name + "/m32x2"};
}
template <class Out> kc::Entry gemv_kernel(const std::string& name, kc::DType out) {
  return gemv_projection<Out>(out)
      .launches(gemv_launches(name))
      .picks([name](const kc::Shape& s) { return gemv_pick<Out>(name, s); })
      .launch(run_gemv<Out>);
}
}  // namespace

KC_KERNEL("dense/gemv/bf16", cuda) { return gemv_kernel<__nv_bfloat16>("dense/gemv/bf16", kc::DType::bf16); }
KC_KERNEL("dense/gemv/f32", cuda) { return gemv_kernel<float>("dense/gemv/f32", kc::DType::f32); }

// Launch records (one an instantiation the launcher picks by rows, and at 17-32 rows by N;
// kernels/.../launches.tsv rows).
KC_CUDA_LAUNCH("dense/gemv/bf16/m8", (kc_gemv_bf16<1, 1, __nv_bfloat16, Fault(0)>), 256, 0);
KC_CUDA_LAUNCH("dense/gemv/bf16/m16", (kc_gemv_bf16<2, 1, __nv_bfloat16, Fault(0)>), 256, 0);
KC_CUDA_LAUNCH("dense/gemv/bf16/m32", (kc_gemv_bf16<4, 1, __nv_bfloat16, Fault(0)>), 256, 0);
KC_CUDA_LAUNCH("dense/gemv/bf16/m32x2", (kc_gemv_bf16<4, 2, __nv_bfloat16, Fault(0)>), 256, 0);
KC_CUDA_LAUNCH("dense/gemv/f32/m8", (kc_gemv_bf16<1, 1, float, Fault(0)>), 256, 0);
KC_CUDA_LAUNCH("dense/gemv/f32/m16", (kc_gemv_bf16<2, 1, float, Fault(0)>), 256, 0);
KC_CUDA_LAUNCH("dense/gemv/f32/m32", (kc_gemv_bf16<4, 1, float, Fault(0)>), 256, 0);
KC_CUDA_LAUNCH("dense/gemv/f32/m32x2", (kc_gemv_bf16<4, 2, float, Fault(0)>), 256, 0);
#if defined(__CUDACC__)
// The wgmma form (sm_90a only): one an x width and part count.
#define KC_GEMV90_LAUNCH(OUT, T, NX, C) \
  KC_CUDA_LAUNCH("dense/gemv/" OUT "/wgmma_m" #NX "_c" #C, (kc_gemv90<NX, C, T>), kc::gemv90::kThreads, kc::gemv90::smem_bytes<NX>())
#define KC_GEMV90_LAUNCHES(OUT, T, NX) \
  KC_GEMV90_LAUNCH(OUT, T, NX, 1);     \
  KC_GEMV90_LAUNCH(OUT, T, NX, 2);     \
  KC_GEMV90_LAUNCH(OUT, T, NX, 4);     \
  KC_GEMV90_LAUNCH(OUT, T, NX, 8)
KC_GEMV90_LAUNCHES("bf16", __nv_bfloat16, 8);
KC_GEMV90_LAUNCHES("bf16", __nv_bfloat16, 16);
KC_GEMV90_LAUNCHES("bf16", __nv_bfloat16, 32);
KC_GEMV90_LAUNCHES("f32", float, 8);
KC_GEMV90_LAUNCHES("f32", float, 16);
KC_GEMV90_LAUNCHES("f32", float, 32);
#endif
