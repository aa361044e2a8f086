// Contract of the split-K decode projection: the GEMV's 8 K slices as blocks of their own (a warp
// each: more blocks for narrow W), met in slice order from a workspace by a second launch: a
// replacement bit-equal to dense/gemv (the same mma chains, the same meeting order, no atomics).
#include <cuda_runtime.h>

#include <mutex>
#include <string>

#include "../../common/cuda_contract.hpp"
#include "../gemv/gemv.cuh"
#include "kc/families/dense.hpp"

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

kc::Entry splitk_entry(kc::DType out) {
  return kc::dense::projection(out)
      .served({{"m", {1, 8, 32}}, {"n", {64, 4096, 16384}}, {"k", {64, 4096, 16384}}})
      .tile("m", kRowsX, 1, 1)
      .tile("n", kRowsW, 1, 1)
      .tile("k", kTileK, 8, 8)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return gemv_depth(s["k"]); })
      .release([] { workspace().release(); });
}
// The slices' launch at a shape (by rows; the meeting runs at every shape).
std::string splitk_pick(const std::string& name, const kc::Shape& s) {
  const int mt = gemv_shape(int(s["m"])).mt;
  return name + (mt == 1 ? "/slices_m8" : mt == 2 ? "/slices_m16" : "/slices_m32");
}
}  // namespace

KC_KERNEL("dense/gemv_splitk/bf16", cuda) {
  return splitk_entry(kc::DType::bf16)
      .replaces("dense/gemv/bf16", run_gemv<__nv_bfloat16>)
      .launches({"dense/gemv_splitk/bf16/slices_m8", "dense/gemv_splitk/bf16/slices_m16", "dense/gemv_splitk/bf16/slices_m32", "dense/gemv_splitk/bf16/meet"})
      .picks({"dense/gemv_splitk/bf16/slices_m8", "dense/gemv_splitk/bf16/slices_m16", "dense/gemv_splitk/bf16/slices_m32"},
             [](const kc::Shape& s) { return splitk_pick("dense/gemv_splitk/bf16", s); })
      .launch(run_splitk<__nv_bfloat16>);
}
KC_KERNEL("dense/gemv_splitk/f32", cuda) {
  return splitk_entry(kc::DType::f32)
      .replaces("dense/gemv/f32", run_gemv<float>)
      .launches({"dense/gemv_splitk/f32/slices_m8", "dense/gemv_splitk/f32/slices_m16", "dense/gemv_splitk/f32/slices_m32", "dense/gemv_splitk/f32/meet"})
      .picks({"dense/gemv_splitk/f32/slices_m8", "dense/gemv_splitk/f32/slices_m16", "dense/gemv_splitk/f32/slices_m32"},
             [](const kc::Shape& s) { return splitk_pick("dense/gemv_splitk/f32", s); })
      .launch(run_splitk<float>);
}

// Launch records (one an instantiation the launcher picks by rows; kernels/.../launches.tsv rows).
KC_CUDA_LAUNCH("dense/gemv_splitk/bf16/slices_m8", (kc_gemv_bf16_slices<1, 1>), 32, 0);
KC_CUDA_LAUNCH("dense/gemv_splitk/bf16/slices_m16", (kc_gemv_bf16_slices<2, 1>), 32, 0);
KC_CUDA_LAUNCH("dense/gemv_splitk/bf16/slices_m32", (kc_gemv_bf16_slices<4, 1>), 32, 0);
KC_CUDA_LAUNCH("dense/gemv_splitk/bf16/meet", (kc_gemv_bf16_meet<__nv_bfloat16, Fault(0)>), 256, 0);
KC_CUDA_LAUNCH("dense/gemv_splitk/f32/slices_m8", (kc_gemv_bf16_slices<1, 1>), 32, 0);
KC_CUDA_LAUNCH("dense/gemv_splitk/f32/slices_m16", (kc_gemv_bf16_slices<2, 1>), 32, 0);
KC_CUDA_LAUNCH("dense/gemv_splitk/f32/slices_m32", (kc_gemv_bf16_slices<4, 1>), 32, 0);
KC_CUDA_LAUNCH("dense/gemv_splitk/f32/meet", (kc_gemv_bf16_meet<float, Fault(0)>), 256, 0);
