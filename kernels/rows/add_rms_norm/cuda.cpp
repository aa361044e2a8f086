// Contracts of the CUDA residual add + RMS norm rows (add_rms_norm.cuh, launched by add_rms_norm.cu):
// h and y both checked, in the rounded (MLX) and once-rounded forms.
#include "../../common/cuda_contract.hpp"
#include "add_rms_norm.cuh"

namespace {
using namespace kc::cu;
constexpr double kEps = 1e-6;

// As rms_norm: the squares' chain, then / cols, + eps (and eps's own rounding), rsqrtf (2 ulp),
// * inv, * w; the once-rounded form adds s = x + r in fp32 (one more op).
template <bool ONCE>
kc::Entry entry(kc::rows::Residual form, const char* launch, Served env) {
  return kc::rows::add_rms_norm(form, kEps)
      .served(std::move(env))
      .tile("rows", kBlock / 32, 1, 1)
      .tile("cols", kBlock * 8, 8, 8)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return row_depth(s["cols"]); }, ONCE ? 6 : 5)
      .ulp("rsqrtf", 2)
      .hidden("a bf16 output: its rounding hides a bf16 sum of squares' error at these widths (y moves by half of S's)")
      .launches(vpt_launches(launch))
      .picks([base = std::string(launch)](const kc::Shape& s) {
        return vpt_form(base, row_shape(s["cols"]).vpt);  // launch_add_rms_norm's shape
      })
      .launch([](const kc::Buffers& b) {
        need_aligned16(b, {"x", "r", "w", "h", "y"});
        need_cols(b, 8, kMaxCols);
        (ONCE ? add_rms_norm_once_rounded : add_rms_norm_rounded)(
            b.in<kc::bf16>("x"), b.in<kc::bf16>("r"), b.in<kc::bf16>("w"), b.out<kc::bf16>("h"), b.out<kc::bf16>("y"),
            int(b.shape()["rows"]), int(b.shape()["cols"]), float(kEps), b.stream());
      });
}
}  // namespace

KC_KERNEL("rows/add_rms_norm/rounded", cuda) {
  return entry<false>(kc::rows::Residual::rounded, "rows/add_rms_norm/rounded", decode_env({64, 4096, 16384}));
}
KC_KERNEL("rows/add_rms_norm/rounded/prompt", cuda) {
  return entry<false>(kc::rows::Residual::rounded, "rows/add_rms_norm/rounded", prompt_env());
}
KC_KERNEL("rows/add_rms_norm/once_rounded", cuda) {
  return entry<true>(kc::rows::Residual::once_rounded, "rows/add_rms_norm/once_rounded", decode_env({64, 4096, 16384}));
}
KC_KERNEL("rows/add_rms_norm/once_rounded/prompt", cuda) {
  return entry<true>(kc::rows::Residual::once_rounded, "rows/add_rms_norm/once_rounded", prompt_env());
}
