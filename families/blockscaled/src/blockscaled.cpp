// The block-scaled family (kc/families/blockscaled.hpp): layouts, gate 1's plants and the random
// and non-finite fills. The reference is in blockscaled_ref.cpp, gate 4's rows in
// blockscaled_sums.cpp.
#include <cmath>
#include <limits>

#include "blockscaled_detail.hpp"
#include "dense/src/dense_detail.hpp"
#include "kc/numeric.hpp"

namespace kc::blockscaled {

const char* name(Weights w) {
  switch (w) {
    case Weights::fp8_tensor: return "fp8_tensor";
    case Weights::fp8_channel: return "fp8_channel";
    case Weights::fp8_block128: return "fp8_block128";
    case Weights::mxfp4: return "mxfp4";
    case Weights::nvfp4: return "nvfp4";
  }
  return "?";
}
const char* name(Acts a) {
  switch (a) {
    case Acts::bf16: return "bf16";
    case Acts::fp8_tensor: return "fp8_tensor";
    case Acts::fp8_group128: return "fp8_group128";
  }
  return "?";
}
bool is_fp4(Weights w) { return w == Weights::mxfp4 || w == Weights::nvfp4; }
int64_t block_k(Weights w) {
  switch (w) {
    case Weights::fp8_block128: return 128;
    case Weights::mxfp4: return 32;
    case Weights::nvfp4: return 16;
    default: return 0;
  }
}
int64_t block_n(Weights w) { return w == Weights::fp8_block128 ? 128 : 1; }
int64_t k_step(Weights w) { return is_fp4(w) ? block_k(w) : 16; }

namespace detail {
namespace {
int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

Layout layout(Weights w, Acts a, DType out, const Shape& s) {
  Layout L{w, a, out};
  L.m = s["m"], L.n = s["n"], L.k = s["k"];
  if (L.m < 1 || L.n < 1 || L.k < k_step(w) || L.k % k_step(w) != 0)
    throw Error("blockscaled: k must be a positive multiple of " + std::to_string(k_step(w)) + " at " + s.str());
  L.qrow = is_fp4(w) ? L.k / 2 : L.k;
  switch (w) {
    case Weights::fp8_tensor: L.s_cols = 1, L.s_count = 1; break;
    case Weights::fp8_channel: L.s_cols = 1, L.s_count = L.n; break;
    case Weights::fp8_block128: L.s_cols = ceil_div(L.k, 128), L.s_count = ceil_div(L.n, 128) * L.s_cols; break;
    case Weights::mxfp4: case Weights::nvfp4: L.s_cols = L.k / block_k(w), L.s_count = L.n * L.s_cols; break;
  }
  if (a == Acts::fp8_tensor) L.sx_cols = 1, L.sx_count = 1;
  if (a == Acts::fp8_group128) L.sx_cols = ceil_div(L.k, kActGroup), L.sx_count = L.m * L.sx_cols;
  return L;
}

int64_t Layout::s_at(int64_t row, int64_t j) const {
  switch (w) {
    case Weights::fp8_tensor: return 0;
    case Weights::fp8_channel: return row;
    case Weights::fp8_block128: return (row / 128) * s_cols + j / 128;
    default: return row * s_cols + j / block_k(w);
  }
}
int64_t Layout::sx_at(int64_t row, int64_t j) const { return a == Acts::fp8_group128 ? row * sx_cols + j / kActGroup : 0; }
lowp::Format Layout::s_format() const { return w == Weights::mxfp4 ? lowp::Format::e8m0 : lowp::Format::ue4m3; }

bool is_code_operand(Weights w, const std::string& operand) {
  return operand == "xq" || operand == "q" || (operand == "s" && is_fp4(w));
}

std::vector<BsPlant> plant_list(Weights w, Acts a) {
  using plants::At;
  using plants::Kind;
  const bool fp8a = a != Acts::bf16;
  auto code_label = [&](const std::string& op, Kind k, At at) {
    const char* where = at == At::first ? " at the first column" : at == At::middle ? " at the middle column" : "";
    const bool e8 = op == "s" && w == Weights::mxfp4;
    const char* code = k == Kind::neg_nan ? "0xFF" : e8 ? "0xFF" : "0x7F";
    return std::string("NaN code ") + code + " in " + op + where;
  };
  std::vector<BsPlant> v;
  auto add = [&](const std::string& op, Kind k, At at = At::last) {
    plants::Plant p{op, k, at};
    v.push_back({p, is_code_operand(w, op) ? code_label(op, k, at) : plants::name(p)});
  };
  // The single values at the last column first (Rig::plants_at_scale counts them).
  if (fp8a) {
    add("xq", Kind::nan);
    for (Kind k : {Kind::nan, Kind::pinf, Kind::ninf}) add("sx", k);
  } else {
    for (Kind k : {Kind::nan, Kind::pinf, Kind::ninf, Kind::both}) add("x", k);
  }
  if (!is_fp4(w)) add("q", Kind::nan);  // e2m1 has no NaN code
  if (is_fp4(w)) add("s", Kind::nan);
  else for (Kind k : {Kind::nan, Kind::pinf, Kind::ninf}) add("s", k);
  if (w == Weights::nvfp4)
    for (Kind k : {Kind::nan, Kind::pinf, Kind::ninf}) add("g", k);
  // Then leading and middle columns, the other NaN bits and the masked row.
  if (fp8a) {
    add("xq", Kind::nan, At::first), add("xq", Kind::nan, At::middle), add("xq", Kind::neg_nan);
    add("sx", Kind::nan, At::first);
  } else {
    for (auto& p : plants::extras({{"x", plants::kMaskRow}})) v.push_back({p, plants::name(p)});
  }
  if (!is_fp4(w)) add("q", Kind::nan, At::first), add("q", Kind::nan, At::middle), add("q", Kind::neg_nan);
  add("s", Kind::nan, At::first);
  return v;
}

namespace {
// fp32 (1 + U) 2^e, e in [elo, ehi]: a positive scale of spread magnitude.
float spread_f32(fam::Rng& r, int elo, int ehi) {
  return to_f32(std::ldexp(1 + r.unit(), int(r.range(elo, ehi))), Round::nearest);
}
// A uniform e4m3 code that is not NaN; positive and non-zero for gate 1.
uint8_t e4m3_code(fam::Rng& r, bool positive) {
  if (positive) return uint8_t(r.range(1, 0x7E));
  uint8_t c = uint8_t(r.next());
  return (c & 0x7F) == 0x7F ? uint8_t(c ^ 1) : c;
}
// An FP4 byte: two uniform nibbles, or two in [1, 7] (positive, non-zero) for gate 1.
uint8_t e2m1_pair(fam::Rng& r, bool positive) {
  if (!positive) return uint8_t(r.next());
  return uint8_t(r.range(1, 7) | r.range(1, 7) << 4);
}

// MXFP4's random fill draws every e8m0 code but NaN, 0 (2^-127) and 254 (2^127) included: row n's
// blocks take codes from one window of 8 (every block's term stays above the fp32 bound next to
// the others, so each code read wrongly shows), row 0 the lowest, row 1 the highest, the rest in
// turn (32 windows: n >= 32 draws them all). Windows above code 215 would overflow fp32 over a
// dense row: there a row's codes are zero but one a block in its first 8 blocks, each small
// (0.5..1.5) against an activation column held small (2^-4..2^-3) in every row, so that row's
// terms stay below 2^125 and their sum below 2^127. The lowest window's terms are exact fp32
// subnormals (a bf16 x times an e2m1 code times 2^-127 keeps its bits above 2^-149).
void e8m0_rows(const Layout& L, fam::Rng& rs, std::span<bf16> x, std::span<uint8_t> q, std::span<uint8_t> su) {
  constexpr int kWindows = 32, kWide = 8, kDenseTop = 215;
  const int64_t blocks = L.s_cols, bk = block_k(L.w);
  std::vector<int64_t> small_cols;
  for (int64_t r = 0; r < L.n; ++r) {
    const int64_t wi = r == 0 ? 0 : r == 1 ? kWindows - 1 : 1 + (r - 2) % (kWindows - 2);
    const int lo = wi == kWindows - 1 ? 254 - (kWide - 1) : int(wi) * kWide;
    const bool sparse = lo + kWide - 1 > kDenseTop;
    for (int64_t b = 0; b < blocks; ++b)
      su[size_t(r * blocks + b)] = uint8_t(b == 0 && r < 2 ? (r == 0 ? lo : lo + kWide - 1) : lo + rs.range(0, kWide - 1));
    if (!sparse) continue;
    uint8_t* row = &q[size_t(r * L.qrow)];
    std::fill(row, row + L.qrow, uint8_t(0));
    for (int64_t b = 0; b < std::min<int64_t>(blocks, kWide); ++b) {
      su[size_t(r * blocks + b)] = uint8_t(lo + kWide - 1 - b);  // one of each code, the top first
      const int64_t j = b * bk + (r * 7 + b) % bk;
      const uint8_t nib = uint8_t(rs.range(1, 3) | (rs.coin() ? 8 : 0));  // +-0.5, 1, 1.5
      row[j / 2] = uint8_t(j % 2 ? nib << 4 : nib);
      small_cols.push_back(j);
    }
  }
  for (int64_t m = 0; m < L.m; ++m)
    for (int64_t j : small_cols) x[size_t(m * L.k + j)] = to_bf16(float((rs.coin() ? -1 : 1) * std::ldexp(1 + rs.unit(), -4)));
}

// A NaN code: a u8 scale's (e8m0 0xFF, ue4m3 0x7F), or e4m3's (0x7F; 0xFF for the negative one).
void write_code(uint8_t* base, const std::string& op, const Layout& L, plants::Kind k, int64_t at) {
  if (op == "s") base[at] = uint8_t(L.s_format() == lowp::Format::e8m0 ? 0xFF : 0x7F);
  else base[at] = k == plants::Kind::neg_nan ? 0xFF : 0x7F;
}
}  // namespace

void fill(Case& c, const Layout& L) {
  const Fill& f = c.fill();
  const bool nf = f.kind == FillKind::nonfinite;
  const uint64_t seed = c.seed();
  std::span<bf16> x;
  std::span<uint8_t> xq;
  std::span<float> sx, g;
  if (L.a == Acts::bf16) x = c.in<bf16>("x", size_t(L.m * L.k));
  else xq = c.in<uint8_t>("xq", size_t(L.m * L.k)), sx = c.in<float>("sx", size_t(L.sx_count));
  auto q = c.in<uint8_t>("q", size_t(L.n * L.qrow));
  std::span<float> sf;
  std::span<uint8_t> su;
  if (L.s_is_f32()) sf = c.in<float>("s", size_t(L.s_count));
  else su = c.in<uint8_t>("s", size_t(L.s_count));
  if (L.w == Weights::nvfp4) g = c.in<float>("g", 1);
  if (L.out == DType::bf16) c.out<bf16>("y", size_t(L.m * L.n));
  else c.out<float>("y", size_t(L.m * L.n));
  if (f.kind == FillKind::sums) return sums_fill(c, L);

  // One stream a row of each operand, so rows fill on every core and never depend on the count.
  kc::parallel_for(L.m, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      fam::Rng rng(seed, uint64_t(r));
      if (L.a == Acts::bf16) {
        fam::spread_row(rng, &x[r * L.k], L.k, -3, 3);
        if (nf)
          for (int64_t j = 0; j < L.k; ++j) x[r * L.k + j].bits &= 0x7fff;
      } else {
        for (int64_t j = 0; j < L.k; ++j) xq[r * L.k + j] = e4m3_code(rng, nf);
      }
    }
  });
  kc::parallel_for(L.n, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      fam::Rng rng(seed, uint64_t(L.m + r));
      for (int64_t j = 0; j < L.qrow; ++j) q[r * L.qrow + j] = is_fp4(L.w) ? e2m1_pair(rng, nf) : e4m3_code(rng, nf);
    }
  }, fam::grain_for(L.qrow));
  fam::Rng rs(seed, uint64_t(L.m + L.n));
  for (int64_t i = 0; i < L.s_count; ++i) {
    if (L.s_is_f32()) sf[i] = spread_f32(rs, -8, -4);
    else if (L.w == Weights::mxfp4 && nf) su[i] = uint8_t(127 + rs.range(-8, 1));
    else if (L.w == Weights::nvfp4 && nf) su[i] = uint8_t(rs.range(0x18, 0x57));  // ue4m3 normals
    else if (L.w == Weights::nvfp4) su[i] = uint8_t(rs.range(0, 0x7E));  // every code but NaN: 0, subnormals
  }
  if (L.w == Weights::mxfp4 && !nf) e8m0_rows(L, rs, x, q, su);  // FP4 takes bf16 activations alone
  for (size_t i = 0; i < sx.size(); ++i) sx[i] = spread_f32(rs, -6, -2);
  if (!g.empty()) g[0] = spread_f32(rs, -4, -1);
  if (!nf) return;

  const auto list = plant_list(L.w, L.a);
  if (f.plant < 0 || f.plant >= int(list.size())) throw Error("blockscaled: no plant " + std::to_string(f.plant));
  const plants::Plant& p = list[size_t(f.plant)].p;
  const int64_t col = plants::column(p, f, L.k);
  const int64_t am = L.m - 1, wn = L.n - 1;  // the last rows: plants sit in ragged tails
  if (p.operand == "x") {
    plants::write(x.data(), DType::bf16, size_t(am * L.k), L.k, p.kind, col);
  } else if (p.operand == "xq") {
    write_code(xq.data(), "xq", L, p.kind, am * L.k + col);
  } else if (p.operand == "q") {
    write_code(q.data(), "q", L, p.kind, wn * L.qrow + col);
  } else if (p.operand == "s" && !L.s_is_f32()) {
    write_code(su.data(), "s", L, p.kind, L.s_at(wn, col));
  } else {
    // One fp32 scale: the one the planted column's element takes.
    float* dst = p.operand == "s" ? &sf[size_t(L.s_at(wn, col))] : p.operand == "sx" ? &sx[size_t(L.sx_at(am, col))] : &g[0];
    *dst = p.kind == plants::Kind::nan ? std::numeric_limits<float>::quiet_NaN() : float(p.kind == plants::Kind::pinf ? kInf : -kInf);
  }
}

}  // namespace detail
}  // namespace kc::blockscaled
