// Contract of the split-K decode projection: the GEMV's 8 K slices as blocks of their own (a warp
// each: more blocks for narrow W), met in slice order from a workspace by a second launch: a
// replacement bit-equal to dense/gemv (the same mma chains, the same meeting order, no atomics). On the
// sm_90a image the GEMV's wgmma parts run as blocks without a cluster and meet the same way. The
// kernels, their launchers and launch records are the device unit's (gemv_splitk.cu), asked through
// its table (gemv_splitk_unit).
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

template <class Out> void run_splitk(const kc::Buffers& b) {
  kc::cu::need_aligned16(b, {"x", "w"});
  const kc::Shape& s = b.shape();
  if (s["k"] % 8) throw kc::Error("dense/gemv_splitk: k must be a multiple of 8 for 16-byte loads");
  const int M = int(s["m"]), N = int(s["n"]), K = int(s["k"]);
  float* ws = workspace().get(size_t(kSlices) * M * N);
  gemv_splitk_launch<Out>(b.ptr("x"), b.ptr("w"), ws, static_cast<Out*>(b.ptr("y")), M, N, K, b.stream());
}
// The GEMV it replaces, this unit's copy of it.
template <class Out> void run_gemv(const kc::Buffers& b) {
  const kc::Shape& s = b.shape();
  gemv_splitk_unit<Out>().launch(b.ptr("x"), b.ptr("w"), static_cast<Out*>(b.ptr("y")), int(s["m"]), int(s["n"]),
                                 int(s["k"]), b.stream());
}

// The slices' (or parts') launch at a shape, by rows; the meeting runs at every shape.
std::string splitk_pick(const std::string& name, bool wgmma, const kc::Shape& s) {
  const int M = int(s["m"]);
  if (wgmma) return name + gemv_wgmma_parts_suffix(M);
  const int mt = gemv_shape(M).mt;
  return name + (mt == 1 ? "/slices_m8" : mt == 2 ? "/slices_m16" : "/slices_m32");
}
template <class Out> kc::Entry splitk_kernel(const std::string& name, const std::string& gemv, kc::DType out) {
  const GemvUnit<Out>& u = gemv_splitk_unit<Out>();
  const bool wgmma = u.wgmma();
  std::vector<std::string> all = gemv_splitk_forms(name, wgmma);
  all.push_back(name + "/meet");
  return gemv_projection<Out>(out, u)
      .release([] { workspace().release(); })
      .replaces(gemv, run_gemv<Out>)
      .launches(all)
      .picks(gemv_splitk_forms(name, wgmma), [name, wgmma](const kc::Shape& s) { return splitk_pick(name, wgmma, s); })
      .launch(run_splitk<Out>);
}
}  // namespace

KC_KERNEL("dense/gemv_splitk/bf16", cuda) {
  return splitk_kernel<__nv_bfloat16>("dense/gemv_splitk/bf16", "dense/gemv/bf16", kc::DType::bf16);
}
KC_KERNEL("dense/gemv_splitk/f32", cuda) { return splitk_kernel<float>("dense/gemv_splitk/f32", "dense/gemv/f32", kc::DType::f32); }

