// Contracts of the CUDA layer norm rows (layer_norm.cuh, launched by layer_norm.cu): bf16 in and out,
// fp32 in and out, each at decode and prompt sizes.
#include "../../common/cuda_contract.hpp"
#include "layer_norm.cuh"

namespace {
using namespace kc::cu;
constexpr double kEps = 1e-5;

// Sums: the row's values, then its (x - mean)^2 by fmaf (no rounding of the square), both in the
// chains of ln_depth. After them, up to (x - mean) * rstd * w: / cols, + eps (eps itself rounded
// to fp32: inside the family's eps range), rsqrtf (2 ulp, CUDA C Programming Guide, table of
// single-precision functions), * rstd; * w is exact inside the fmaf that adds b, whose rounding the
// family counts itself (as it does the mean's division and each x - mean).
template <bool F32>
kc::Entry entry(kc::DType t, const char* launch, Served env) {
  return kc::rows::layer_norm(t, t, kEps)
      .served(std::move(env))
      .tile("rows", kBlock / 32, 1, 1)  // up to 8 rows a block at narrow widths
      .tile("cols", kBlock * 8, 8, 8)   // one unit of 8 values a thread across 256 threads
      .sums(kc::DType::f32, [](const kc::Shape& s) { return ln_depth<F32>(s["rows"], s["cols"]); }, 3)
      .ulp("rsqrtf", 2)
      .launches(vpt_launches(launch))
      .picks([base = std::string(launch)](const kc::Shape& s) {
        return vpt_form(base, ln_shape<F32>(s["rows"], s["cols"]).vpt);  // launch_layer_norm's shape
      })
      .launch([](const kc::Buffers& b) {
        need_aligned16(b, {"x", "w", "b", "y"});
        need_cols(b, 8, kMaxCols);
        (F32 ? layer_norm_f32 : layer_norm_bf16)(b.ptr("x"), b.ptr("w"), b.ptr("b"), b.ptr("y"), b.out<float>("mean"),
                                                 b.out<float>("rstd"), int(b.shape()["rows"]), int(b.shape()["cols"]),
                                                 float(kEps), b.stream());
      });
}
}  // namespace

KC_KERNEL("rows/layer_norm/bf16", cuda) {
  return entry<false>(kc::DType::bf16, "rows/layer_norm/bf16", decode_env({64, 4096, 16384}));
}
KC_KERNEL("rows/layer_norm/bf16/prompt", cuda) {
  return entry<false>(kc::DType::bf16, "rows/layer_norm/bf16", prompt_env());
}
KC_KERNEL("rows/layer_norm/f32", cuda) {
  return entry<true>(kc::DType::f32, "rows/layer_norm/f32", decode_env({64, 4096, 16384}));
}
KC_KERNEL("rows/layer_norm/f32/prompt", cuda) {
  return entry<true>(kc::DType::f32, "rows/layer_norm/f32", prompt_env());
}
