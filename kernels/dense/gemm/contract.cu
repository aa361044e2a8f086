// Contract of the CUDA prompt projection on tensor cores (gemm.cuh): bf16 x and W, fp32 sums,
// bf16 or fp32 out, ragged M, N and K.
#include "../../common/cuda_contract.hpp"
#include "gemm.cuh"
#include "kc/families/dense.hpp"

namespace {
using namespace kc::gemm_cu;

template <class Out> void run_gemm(const kc::Buffers& b) {
  kc::cu::need_aligned16(b, {"x", "w"});
  const kc::Shape& s = b.shape();
  if (s["k"] % 8) throw kc::Error("dense/gemm: k must be a multiple of 8 for 16-byte copies");
  const cudaError_t ok = prepare_gemm<Out>();
  if (ok != cudaSuccess) throw kc::Error(std::string("dense/gemm: cannot opt in to 64 KiB of shared memory: ") + cudaGetErrorString(ok));
  launch_gemm<Out>(b.ptr("x"), b.ptr("w"), static_cast<Out*>(b.ptr("y")), int(s["m"]), int(s["n"]), int(s["k"]),
                   kc::cu::stream_of(b));
}

// Prompt rows. The float64 reference of every case costs m n k, so the contract serves up to 2,048
// rows and 2,048 x 4,096 weights; the kernel itself has no size limit but K % 8 (bench/cuda/dense
// times it to 8,192 rows and 14,336 columns).
// The entry is built before the backend checks the loaded kernel's limits, so the 64 KiB opt-in is
// made here too (where no GPU is present the call fails quietly and the launch reports it).
template <class Out> kc::Entry gemm_entry(kc::DType out) {
  (void)prepare_gemm<Out>();
  return kc::dense::projection(out)
      .served({{"m", {17, 512, 2048}}, {"n", {64, 2048}}, {"k", {64, 4096}}})
      .tile("m", kBM, 1, 1)
      .tile("n", kBN, 1, 1)
      .tile("k", kBK, 8, 8)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return gemm_depth(s["k"]); });
}
}  // namespace

KC_KERNEL("dense/gemm/bf16", cuda) {
  return gemm_entry<__nv_bfloat16>(kc::DType::bf16).launches({"dense/gemm/bf16"}).launch(run_gemm<__nv_bfloat16>);
}
KC_KERNEL("dense/gemm/f32", cuda) {
  return gemm_entry<float>(kc::DType::f32).launches({"dense/gemm/f32"}).launch(run_gemm<float>);
}

// Launch records (one an instantiation the launcher picks by rows; kernels/.../launches.tsv rows).
KC_CUDA_LAUNCH("dense/gemm/bf16", (kc_gemm_bf16<__nv_bfloat16>), 256, kSmemBytes);
KC_CUDA_LAUNCH("dense/gemm/f32", (kc_gemm_bf16<float>), 256, kSmemBytes);
