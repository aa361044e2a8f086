// Contracts of the CUDA L2-norm rows (l2norm.cuh, launched by l2norm.cu): with and without the bf16
// residual, decode (a few rows) and prompt (many) sizes, cols a multiple of 8 up to 8,192.
#include "../../common/cuda_contract.hpp"
#include "kc/families/l2norm.hpp"
#include "l2norm.cuh"

namespace {
using kc::l2norm::Residual;

std::string form(const std::string& base, const kc::Shape& s) {
  return base + "/v" + std::to_string(kc::cu::l2_vpt(s["cols"]));
}

kc::Entry entry(Residual res, kc::served::Served env) {
  const std::string base = res == Residual::rounded ? "l2norm/add_rows" : "l2norm/rows";
  return kc::l2norm::rows(res)
      .served(std::move(env))
      .range("cols", 8, 8)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return kc::cu::l2_depth(s["cols"]); })
      .ulp("rsqrtf", 2)
      .hidden(kc::l2norm::kHiddenSums)
      .launches({base + "/v1", base + "/v2", base + "/v4"})
      .picks([base](const kc::Shape& s) { return form(base, s); })
      .launch([res](const kc::Buffers& b) {
        const bool add = res == Residual::rounded;
        if (add) kc::cu::need_aligned16(b, {"x", "r", "h", "y"});
        else kc::cu::need_aligned16(b, {"x", "y"});
        kc::cu::need_cols(b, 8, kc::cu::kL2MaxCols);
        kc::cu::l2norm_rows(b.in<kc::bf16>("x"), add ? b.in<kc::bf16>("r") : nullptr,
                            add ? b.out<kc::bf16>("h") : nullptr, b.out<kc::bf16>("y"), int(b.shape()["rows"]),
                            int(b.shape()["cols"]), 1e-6f, b.stream());
      });
}
}  // namespace

KC_KERNEL("l2norm/rows/bf16", cuda) { return entry(Residual::none, kc::cu::decode_env({64, 4096, 8192})); }
KC_KERNEL("l2norm/add_rows/bf16", cuda) { return entry(Residual::rounded, kc::cu::decode_env({64, 4096, 8192})); }
KC_KERNEL("l2norm/rows/bf16/prompt", cuda) { return entry(Residual::none, {{"rows", {1024}}, {"cols", {64, 128}}}); }
