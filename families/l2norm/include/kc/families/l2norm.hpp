// L2-norm rows (families/l2norm/README.md): bf16 x [rows, cols], y = x rsqrt(sum_c x^2 + eps) in fp32,
// rounded once to bf16 (the q/k normalisation of linear-attention layers). With a residual,
// h = bf16(x + r) is stored (the normalised residual stream) and y normalises h:
// y = bf16(h rsqrt(sum h^2 + eps)). The bf16 point of h is in the formula, so a kernel that
// normalises the fp32 sum and stores h apart fails its intervals.
#pragma once
#include <kc/formula.hpp>

namespace kc::l2norm {

enum class Residual : uint8_t { none, rounded };

// Gate 4: a row's one 2^16 squared dominates its sum of squares; a bf16 sum drops the small terms
// (about cols * 2^7 of 2^32 in rsqrt) and the bf16 outputs round that away.
inline constexpr const char* kHiddenSums =
    "a row's 2^16 squared dominates its sum; a bf16 sum's loss is below the bf16 outputs' rounding";

inline Entry rows(Residual res, double eps = 1e-6) {
  using namespace kc::formula;
  Formula fm;
  fm.in("x", DType::bf16, {"rows", "cols"}, {.rows = kc::plants::kMaskRow});
  if (res == Residual::rounded) fm.in("r", DType::bf16, {"rows", "cols"}, {.rows = kc::plants::kMaskRow});
  fm.out("y", DType::bf16, {"rows", "cols"});
  if (res == Residual::rounded) fm.out("h", DType::bf16, {"rows", "cols"});
  fm.fills({"zeros", "tiny", "range"});
  fm.each({"rows"}, [res, eps](auto& f) {
    using N = std::remove_cvref_t<decltype(f.in("x")[0])>;
    auto x = f.in("x");
    const int64_t n = x.size();
    std::vector<N> v;
    for (int64_t c = 0; c < n; ++c) v.push_back(x[c]);
    if (res == Residual::rounded) {
      auto r = f.in("r");
      auto h = f.out("h");
      for (int64_t c = 0; c < n; ++c) {
        v[size_t(c)] = f.round(v[size_t(c)] + r[c], DType::bf16);
        h[c] = v[size_t(c)];
      }
    }
    N ss = f.sum(n, [&](int64_t c) { return v[size_t(c)] * v[size_t(c)]; });
    N s = f.rsqrt(ss + eps);
    auto y = f.out("y");
    for (int64_t c = 0; c < n; ++c) y[c] = v[size_t(c)] * s;
  });
  return fm.entry();
}

}  // namespace kc::l2norm
