// Contract of the CUDA prompt projection on tensor cores: bf16 x and W, fp32 sums, bf16 or fp32 out,
// ragged M, N and K. Two kernels, one picked at run time: on an sm_90 device whose loaded image is
// sm_90a, the wgmma kernel (gemm_sm90a.cuh, K steps of 64, 128 x 256 tiles, or 128 x 128 where
// the 256-wide ones would leave half the SMs idle); everywhere else the mma.sync kernel (gemm.cuh,
// 128 x 128 tiles, K steps of 32). The entry declares the tiles of the one this process runs (the
// wgmma kernel's 128 x 128: gate 3's tile shapes all take it; the served 8,192-row shapes take
// 128 x 256, and its picks have gate 3 run 128 x 256 at a ragged shape too) and its launches. The
// kernels, their launchers and their launch records are the device unit's (gemm.cu).
#include "../../common/cuda_contract.hpp"
#include "gemm.cuh"
#include "gemm.hpp"
#include "gemm_sm90a.cuh"
#include "kc/families/dense.hpp"

namespace {
using namespace kc::gemm_cu;

// Which kernel this process runs, decided once by the unit that holds them (the tiles an entry
// declares must be its kernel's).
bool use_wgmma() { return gemm_wgmma(); }

template <class Out> void run_gemm(const kc::Buffers& b) {
  kc::cu::need_aligned16(b, {"x", "w"});
  const kc::Shape& s = b.shape();
  if (s["k"] % 8) throw kc::Error("dense/gemm: k must be a multiple of 8 for 16-byte copies");
  const cudaError_t ok = gemm_prepare<Out>();
  if (ok != cudaSuccess)
    throw kc::Error(std::string("dense/gemm: cannot opt in to its dynamic shared memory: ") + cudaGetErrorString(ok));
  const int M = int(s["m"]), N = int(s["n"]), K = int(s["k"]);
  gemm_launch<Out>(b.ptr("x"), b.ptr("w"), static_cast<Out*>(b.ptr("y")), M, N, K, b.stream());
}

// Prompt rows: the envelope, 17 to 8,192 rows, N and K from 64 to 16,384 (every cross of them,
// up to 8,192 x 16,384 x 16,384; the float64 reference is a blocked GEMM on every core). The kernels
// themselves have no size limit but K % 8.
// The entry is built before the backend checks the loaded kernel's limits, so the shared-memory
// opt-in is made here too (where no GPU is present the call fails quietly and the launch reports it).
template <class Out> kc::Entry gemm_entry(kc::DType out) {
  (void)gemm_prepare<Out>();
  const bool wg = use_wgmma();
  return kc::dense::projection(out)
      .served({{"m", {17, 512, 8192}}, {"n", {64, 4096, 16384}}, {"k", {64, 4096, 16384}}})
      .tile("m", wg ? kc::gemm90::kBM : kBM, 1, 1)
      .tile("n", wg ? 128 : kBN, 1, 1)
      .tile("k", wg ? kc::gemm90::kBK : kBK, 8, 8)
      .sums(kc::DType::f32,
            [wg](const kc::Shape& s) { return gemm_depth(wg ? "wgmma.m64n8k16.bf16" : "mma.m16n8k16.bf16", s["k"]); })
      .note(wg ? "wgmma kernel (sm_90a image)" : "mma.sync kernel");
}

// The launches of the kernel this process runs (the backend checks each against the device).
std::vector<std::string> gemm_launches(const std::string& out) {
  if (use_wgmma()) return {"dense/gemm/" + out + "_wgmma", "dense/gemm/" + out + "_wgmma128"};
  return {"dense/gemm/" + out};
}

// The entry; the wgmma kernel's two tile widths are forms the launcher picks (kc::gemm90::tile_n, asked of gemm.cu),
// each of which gate 3 runs at a ragged shape.
template <class Out> kc::Entry gemm_kernel(const std::string& out, kc::DType type) {
  kc::Entry e = gemm_entry<Out>(type).launches(gemm_launches(out)).launch(run_gemm<Out>);
  if (!use_wgmma()) return e;
  return std::move(e).picks([out](const kc::Shape& s) {
    return "dense/gemm/" + out + (gemm_wgmma_tile_n(int(s["m"]), int(s["n"])) == 256 ? "_wgmma" : "_wgmma128");
  });
}
}  // namespace

KC_KERNEL("dense/gemm/bf16", cuda) { return gemm_kernel<__nv_bfloat16>("bf16", kc::DType::bf16); }
KC_KERNEL("dense/gemm/f32", cuda) { return gemm_kernel<float>("f32", kc::DType::f32); }

