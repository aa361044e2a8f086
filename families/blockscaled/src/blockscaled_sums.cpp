// Gate 4's rows for the block-scaled family (sums_row in kc/families/blockscaled.hpp): integer codes
// and power-of-two scales, so every fp32 sum a kernel makes (within a block on the codes, or of the
// scaled blocks) is an exact integer, and each fp16 / bf16 replay misses.
#include <algorithm>
#include <cmath>

#include "blockscaled_detail.hpp"
#include "dense/src/dense_detail.hpp"
#include "kc/families/blocks.hpp"

namespace kc::blockscaled {
namespace {

constexpr int64_t kEnds = 32;  // the big terms at each end

// A weight scale, by position: FP4's end blocks carry the big weights (4 * 2^7 = 512).
double weight_scale(Weights w, int64_t k, int64_t j) {
  if (!is_fp4(w)) return 2;
  return (j < kEnds || j >= k - kEnds) ? 128 : 2;
}
double act_scale(Acts a) { return a == Acts::fp8_group128 ? 2 : 1; }

}  // namespace

SumsRow sums_row(Weights w, Acts a, int64_t k, uint64_t seed, int64_t interval) {
  if (k < 96 || k % 16 != 0) throw Error("blockscaled: gate 4's rows need k >= 96, a multiple of 16, got " + std::to_string(k));
  // With a tensor-core interval: the positions whose term and mirror both lie in intervals free of
  // big terms (the first and last kEnds columns' intervals).
  auto small_interval = [&](int64_t j) {
    return interval == 0 || (j / interval != 0 && j / interval != (kEnds - 1) / interval &&
                             j / interval != (k - kEnds) / interval && j / interval != (k - 1) / interval);
  };
  std::vector<int64_t> free;  // candidates for p, in [kEnds, k / 2)
  for (int64_t j = kEnds; j < k / 2; ++j)
    if (small_interval(j) && small_interval(k - 1 - j)) free.push_back(j);
  if (free.empty())
    throw Error("blockscaled: gate 4's rows at k = " + std::to_string(k) + " leave no interval of " +
                std::to_string(interval) + " columns free of the " + std::to_string(kEnds) +
                " big terms at each end (serve a larger least k)");
  const bool fp4 = is_fp4(w);
  const double as = act_scale(a);
  fam::Rng r(seed);
  static const double kE2m1[] = {0.5, 1, 1.5, 2, 3, 4, 6};
  SumsRow row;
  for (int attempt = 0; attempt < 64; ++attempt) {
    row.acode.assign(size_t(k), 0), row.wcode.assign(size_t(k), 0);
    // Big terms: a = 256, w = 512 (FP8 256 * 2; FP4 4 * 2^7), mirrored with a's sign flipped.
    const double abig = a == Acts::bf16 ? 256 : 256 / as, wbig = fp4 ? 4 : 256;
    for (int64_t j = 0; j < kEnds; ++j) {
      row.acode[j] = abig, row.acode[k - 1 - j] = -abig;
      row.wcode[j] = row.wcode[k - 1 - j] = wbig;
    }
    // Small terms between: a antisymmetric, w symmetric, neither zero.
    const int64_t amax = a == Acts::bf16 ? 15 : 7;
    for (int64_t j = kEnds; j < k / 2; ++j) {
      const double av = double(r.range(1, amax)) * (r.coin() ? 1 : -1);
      const double wv = (fp4 ? kE2m1[r.range(0, 6)] : double(r.range(1, 16))) * (r.coin() ? 1 : -1);
      const bool kept = small_interval(j) && small_interval(k - 1 - j);
      row.acode[j] = kept ? av : 0, row.acode[k - 1 - j] = kept ? -av : 0;
      row.wcode[j] = row.wcode[k - 1 - j] = wv;
    }
    // One position off its mirror by a unit of a: the row sums to unit * w[p].
    const int64_t p = free[size_t(r.next() % uint64_t(free.size()))];
    row.acode[p] = 1 - row.acode[k - 1 - p];
    row.a.resize(size_t(k)), row.w.resize(size_t(k));
    std::vector<double> terms(static_cast<size_t>(k));
    for (int64_t j = 0; j < k; ++j) {
      row.a[j] = row.acode[j] * as;
      row.w[j] = row.wcode[j] * weight_scale(w, k, j);
      terms[j] = row.a[j] * row.w[j];
    }
    const double exact = row.a[p] * row.w[p] + row.a[k - 1 - p] * row.w[k - 1 - p];
    // Every replay at least half the result away: 100x a bf16 output's rounding bound, and more.
    if (blocks::replays_miss(terms, exact, 0.5 * std::fabs(exact))) return row;
  }
  throw Error("blockscaled: no gate 4 row at k = " + std::to_string(k) + " whose replays all miss");
}

namespace detail {

void sums_fill(Case& c, const Layout& L) {
  const uint64_t seed = c.seed();
  const int64_t xp = std::min<int64_t>(L.m, 2), wp = std::min<int64_t>(L.n, 3);
  std::vector<SumsRow> xr, wr;
  for (int64_t p = 0; p < std::max(xp, wp); ++p) {
    SumsRow r = sums_row(L.w, L.a, L.k, seed ^ (0x5151 * uint64_t(p + 1)), L.interval);
    if (p < xp) xr.push_back(r);
    if (p < wp) wr.push_back(r);
  }
  // Activations: row m takes pattern m % xp.
  if (L.a == Acts::bf16) {
    auto x = c.get_mut<bf16>("x");
    for (int64_t m = 0; m < L.m; ++m)
      for (int64_t j = 0; j < L.k; ++j) x[m * L.k + j] = fam::bf_exact(xr[size_t(m % xp)].a[j]);
  } else {
    auto xq = c.get_mut<uint8_t>("xq");
    auto sx = c.get_mut<float>("sx");
    std::fill(sx.begin(), sx.end(), float(act_scale(L.a)));  // a group of 0 codes keeps its format's scale
    for (int64_t m = 0; m < L.m; ++m)
      for (int64_t j = 0; j < L.k; ++j) {
        const SumsRow& r = xr[size_t(m % xp)];
        xq[m * L.k + j] = uint8_t(lowp::encode(lowp::Format::e4m3, r.acode[j]));
        if (r.acode[j] != 0) sx[size_t(L.sx_at(m, j))] = float(r.a[j] / r.acode[j]);  // its group's others set a 0's
      }
  }
  // Weights: row n takes pattern n % wp; every scale is set from its elements (all agree).
  auto q = c.get_mut<uint8_t>("q");
  for (int64_t n = 0; n < L.n; ++n) {
    const SumsRow& r = wr[size_t(n % wp)];
    for (int64_t j = 0; j < L.k; ++j) {
      const double scale = r.w[j] / r.wcode[j];
      if (is_fp4(L.w)) {
        const uint32_t nib = lowp::encode(lowp::Format::e2m1, r.wcode[j]);
        uint8_t& byte = q[n * L.qrow + j / 2];
        byte = uint8_t(j % 2 ? (byte & 0x0F) | nib << 4 : (byte & 0xF0) | nib);
        c.get_mut<uint8_t>("s")[size_t(L.s_at(n, j))] = uint8_t(lowp::encode(L.s_format(), scale));
      } else {
        q[n * L.qrow + j] = uint8_t(lowp::encode(lowp::Format::e4m3, r.wcode[j]));
        c.get_mut<float>("s")[size_t(L.s_at(n, j))] = float(scale);
      }
    }
  }
  if (L.w == Weights::nvfp4) c.get_mut<float>("g")[0] = 1;
}

}  // namespace detail
}  // namespace kc::blockscaled
