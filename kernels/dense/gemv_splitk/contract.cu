// Contract of the split-K decode projection: the GEMV's 8 K slices as blocks of their own (a warp
// each: more blocks for narrow W), met in slice order from a workspace by a second launch: a
// replacement bit-equal to dense/gemv (the same mma chains, the same meeting order, no atomics). On the
// sm_90a image the GEMV's wgmma parts run as blocks without a cluster and meet the same way.
#include <cuda_runtime.h>

#include <mutex>
#include <string>
#include <vector>

#include "../../common/cuda_contract.hpp"
#include "../gemv/gemv_entry.hpp"

namespace {
using namespace kc::dense_cu;

// The slices' workspace, kept between launches and freed by the rig's release.
struct Workspace {
  float* p = nullptr;
  size_t n = 0;
  float* get(size_t count) {
    if (count > n) {
      if (p) cudaFree(p);
      p = nullptr;
      n = 0;
      if (cudaMalloc(&p, count * sizeof(float)) != cudaSuccess)
        throw kc::Error("dense/gemv_splitk: cannot allocate its workspace of " + std::to_string(count) + " floats");
      n = count;
    }
    return p;
  }
  void release() {
    if (p) cudaFree(p);
    p = nullptr;
    n = 0;
  }
};
Workspace& workspace() {
  static Workspace w;
  return w;
}

template <class Out, Fault F = Fault::none> void run_splitk(const kc::Buffers& b) {
  kc::cu::need_aligned16(b, {"x", "w"});
  const kc::Shape& s = b.shape();
  if (s["k"] % 8) throw kc::Error("dense/gemv_splitk: k must be a multiple of 8 for 16-byte loads");
  const int M = int(s["m"]), N = int(s["n"]), K = int(s["k"]);
  float* ws = workspace().get(size_t(kSlices) * M * N);
  launch_gemv_splitk<Out, F>(b.ptr("x"), b.ptr("w"), ws, static_cast<Out*>(b.ptr("y")), M, N, K,
                             kc::cu::stream_of(b));
}
template <class Out> void run_gemv(const kc::Buffers& b) {
  const kc::Shape& s = b.shape();
  launch_gemv<Out>(b.ptr("x"), b.ptr("w"), static_cast<Out*>(b.ptr("y")), int(s["m"]), int(s["n"]), int(s["k"]),
                   kc::cu::stream_of(b));
}

// The slices' (or parts') launch at a shape, by rows; the meeting runs at every shape.
std::string splitk_pick(const std::string& name, const kc::Shape& s) {
  const int M = int(s["m"]);
  if (gemv_wgmma()) return name + gemv_wgmma_parts_suffix(M);
  const int mt = gemv_shape(M).mt;
  return name + (mt == 1 ? "/slices_m8" : mt == 2 ? "/slices_m16" : "/slices_m32");
}
template <class Out> kc::Entry splitk_kernel(const std::string& name, const std::string& gemv, kc::DType out) {
  std::vector<std::string> all = gemv_splitk_forms(name);
  all.push_back(name + "/meet");
  return gemv_projection<Out>(out)
      .release([] { workspace().release(); })
      .replaces(gemv, run_gemv<Out>)
      .launches(all)
      .picks(gemv_splitk_forms(name), [name](const kc::Shape& s) { return splitk_pick(name, s); })
      .launch(run_splitk<Out>);
}
}  // namespace

KC_KERNEL("dense/gemv_splitk/bf16", cuda) {
  return splitk_kernel<__nv_bfloat16>("dense/gemv_splitk/bf16", "dense/gemv/bf16", kc::DType::bf16);
}
KC_KERNEL("dense/gemv_splitk/f32", cuda) { return splitk_kernel<float>("dense/gemv_splitk/f32", "dense/gemv/f32", kc::DType::f32); }

// Launch records (one an instantiation the launcher picks by rows; kernels/.../launches.tsv rows).
KC_CUDA_LAUNCH("dense/gemv_splitk/bf16/slices_m8", (kc_gemv_bf16_slices<1, 1>), 32, 0);
KC_CUDA_LAUNCH("dense/gemv_splitk/bf16/slices_m16", (kc_gemv_bf16_slices<2, 1>), 32, 0);
KC_CUDA_LAUNCH("dense/gemv_splitk/bf16/slices_m32", (kc_gemv_bf16_slices<4, 1>), 32, 0);
KC_CUDA_LAUNCH("dense/gemv_splitk/bf16/meet", (kc_gemv_bf16_meet<__nv_bfloat16, Fault(0)>), 256, 0);
KC_CUDA_LAUNCH("dense/gemv_splitk/f32/slices_m8", (kc_gemv_bf16_slices<1, 1>), 32, 0);
KC_CUDA_LAUNCH("dense/gemv_splitk/f32/slices_m16", (kc_gemv_bf16_slices<2, 1>), 32, 0);
KC_CUDA_LAUNCH("dense/gemv_splitk/f32/slices_m32", (kc_gemv_bf16_slices<4, 1>), 32, 0);
KC_CUDA_LAUNCH("dense/gemv_splitk/f32/meet", (kc_gemv_bf16_meet<float, Fault(0)>), 256, 0);
#if defined(__CUDACC__)
// The wgmma form's parts (sm_90a only), one an x width; the output type is the meeting's.
KC_CUDA_LAUNCH("dense/gemv_splitk/bf16/wgmma_parts_m8", (kc_gemv90_parts<8>), kc::gemv90::kThreads, kc::gemv90::smem_bytes<8>());
KC_CUDA_LAUNCH("dense/gemv_splitk/bf16/wgmma_parts_m16", (kc_gemv90_parts<16>), kc::gemv90::kThreads, kc::gemv90::smem_bytes<16>());
KC_CUDA_LAUNCH("dense/gemv_splitk/bf16/wgmma_parts_m32", (kc_gemv90_parts<32>), kc::gemv90::kThreads, kc::gemv90::smem_bytes<32>());
KC_CUDA_LAUNCH("dense/gemv_splitk/f32/wgmma_parts_m8", (kc_gemv90_parts<8>), kc::gemv90::kThreads, kc::gemv90::smem_bytes<8>());
KC_CUDA_LAUNCH("dense/gemv_splitk/f32/wgmma_parts_m16", (kc_gemv90_parts<16>), kc::gemv90::kThreads, kc::gemv90::smem_bytes<16>());
KC_CUDA_LAUNCH("dense/gemv_splitk/f32/wgmma_parts_m32", (kc_gemv90_parts<32>), kc::gemv90::kThreads, kc::gemv90::smem_bytes<32>());
#endif
