// Contracts of the CUDA bf16 top-k rows (topk.cuh, launched by topk.cu) at k = 8 and k = 64. The
// family checks the stated rule on every output: a NaN ranks above +inf, ties go to the lower id,
// deterministic.
#include "../../common/cuda_contract.hpp"
#include "topk.cuh"

namespace {
using namespace kc::cu;

kc::Entry topk_entry(int k, int least_cols, const char* launch, bool prompt) {
  return kc::rows::topk(kc::DType::bf16, k)
      .served(prompt ? prompt_env(least_cols) : decode_env({int64_t(least_cols), 4096, 16384}))
      .tile("cols", kBlock * 8, 8, least_cols)
      .launches(vpt_launches(launch))
      .picks([base = std::string(launch)](const kc::Shape& s) {
        return vpt_form(base, row_shape(s["cols"]).vpt);  // launch_topk_bf16's shape
      })
      .launch([k](const kc::Buffers& b) {
        need_aligned16(b, {"x"});
        need_cols(b, 8, kMaxCols);
        const int cols = int(b.shape()["cols"]);
        if (cols < k) throw kc::Error("top-k: cols " + std::to_string(cols) + " < k " + std::to_string(k));
        topk_bf16(b.in<kc::bf16>("x"), b.out<int32_t>("ids"), b.out<kc::bf16>("vals"), int(b.shape()["rows"]), cols,
                  k, b.stream());
      });
}
}  // namespace

KC_KERNEL("rows/topk/bf16_k8", cuda) { return topk_entry(8, 8, "rows/topk/bf16_k8", false); }
KC_KERNEL("rows/topk/bf16_k8/prompt", cuda) { return topk_entry(8, 8, "rows/topk/bf16_k8", true); }
KC_KERNEL("rows/topk/bf16_k64", cuda) { return topk_entry(64, 64, "rows/topk/bf16_k64", false); }
KC_KERNEL("rows/topk/bf16_k64/prompt", cuda) { return topk_entry(64, 64, "rows/topk/bf16_k64", true); }
