// Contract of the CUDA decode projection (gemv.cuh): bf16 x and W, fp32 sums, bf16 or fp32 out. Two
// kernels, one picked at run time: on an sm_90 device whose loaded image is sm_90a the wgmma form
// (gemv_sm90a.cuh: 64 W rows a block, K in 1, 2, 4 or 8 parts a cluster meets), everywhere else the
// mma.sync form (16 W rows a block, 8 K slices). The entry declares the tiles, depth and launches of
// the one this process runs; its picks name the kernel the launcher takes, which gate 3 runs at a
// ragged shape each. The kernels, their launchers and launch records are the device unit's (gemv.cu),
// asked through its table (gemv_unit).
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
  gemv_unit<Out>().launch(b.ptr("x"), b.ptr("w"), static_cast<Out*>(b.ptr("y")), int(s["m"]), int(s["n"]),
                          int(s["k"]), b.stream());
}

// The launch the launcher takes at a shape (gemv_form, or the wgmma form's): gate 3 runs each at a
// ragged shape.
template <class Out> std::string gemv_pick(const std::string& name, const kc::Shape& s) {
  const GemvUnit<Out>& u = gemv_unit<Out>();
  const int M = int(s["m"]), N = int(s["n"]), K = int(s["k"]);
  if (u.wgmma()) return name + gemv_wgmma_suffix(u.wgmma_form(M, N, K));
  const GemvShape g = u.mma_form(M, N);
  return name + (g.mt == 1 ? "/m8" : g.mt == 2 ? "/m16" : g.nt == 2 ? "/m32x2" : "/m32");
}
std::vector<std::string> gemv_launches(const std::string& name, bool wgmma) {
  if (wgmma) return gemv_wgmma_launches(name);
  return {name + "/m8", name + "/m16", name + "/m32", name + "/m32x2"};
}
template <class Out> kc::Entry gemv_kernel(const std::string& name, kc::DType out) {
  const GemvUnit<Out>& u = gemv_unit<Out>();
  // Its far shape: a 256k vocabulary's projection of one row, whose W passes 2^31 elements (4 GiB)
  // at row 262144; the far-offset check holds the rows around it to float64.
  return gemv_projection<Out>(out, u)
      .far("n", {{"m", 1}, {"n", 262208}, {"k", 8192}})
      .launches(gemv_launches(name, u.wgmma()))
      .picks([name](const kc::Shape& s) { return gemv_pick<Out>(name, s); })
      .launch(run_gemv<Out>);
}
}  // namespace

KC_KERNEL("dense/gemv/bf16", cuda) { return gemv_kernel<__nv_bfloat16>("dense/gemv/bf16", kc::DType::bf16); }
KC_KERNEL("dense/gemv/f32", cuda) { return gemv_kernel<float>("dense/gemv/f32", kc::DType::f32); }
