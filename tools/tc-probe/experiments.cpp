// Experiment families (experiments.hpp): operand codes built from exponents and fraction bits, so
// every product's exponent is chosen, never found.
#include "experiments.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <random>

namespace kc::tcprobe {
namespace {

struct F {
  int ebits, fbits, bias, emin, emax;
  int used;  // fraction bits experiments set (tf32: 10 of the 23, except the cut family)
};
F info(tc::Fmt f) {
  switch (f) {
    case tc::Fmt::bf16: return {8, 7, 127, -126, 127, 7};
    case tc::Fmt::fp16: return {5, 10, 15, -14, 15, 10};
    case tc::Fmt::tf32: return {8, 23, 127, -126, 127, 10};
    default: return {4, 3, 7, -6, 8, 3};
  }
}

struct Gen {
  const InstrInfo& in;
  F f;
  std::mt19937_64 rng;
  std::vector<Exp> out;
  int E0, Tmin;  // the large products' exponent; the least product exponent of normal operands

  Gen(const InstrInfo& i, uint64_t seed) : in(i), f(info(i.fmt)), rng(seed) {
    Tmin = std::max(2 * f.emin, -100);
    E0 = std::min(2 * f.emax - 1, 20);
  }
  uint64_t bits(int n) { return n ? rng() >> (64 - n) : 0; }
  int uni(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
  // A code of (-1)^neg (1 + frac / 2^fbits) 2^e, e in [emin, emax]; frac's low bits past `used` zero.
  uint32_t code(bool neg, int e, uint64_t frac) const {
    if (in.fmt == tc::Fmt::e4m3 && e == f.emax) frac = std::min<uint64_t>(frac, 6);  // 7 there is NaN
    return (uint32_t(neg) << (f.ebits + f.fbits)) | (uint32_t(e + f.bias) << f.fbits) | uint32_t(frac);
  }
  uint64_t frac(bool random) { return random ? bits(f.used) << (f.fbits - f.used) : 0; }
  uint32_t one() const { return code(false, 0, 0); }
  // Operands whose product is (-1)^neg (1.fa)(1.fb) 2^T, both normal.
  void pair(Exp& x, int k, int T, bool neg, uint64_t fa, uint64_t fb) {
    T = std::clamp(T, 2 * f.emin, 2 * f.emax);
    int ea = T / 2, eb = T - ea;
    if (eb > f.emax) eb = f.emax, ea = T - eb;
    if (eb < f.emin) eb = f.emin, ea = T - eb;
    x.a[k] = code(neg, ea, fa), x.b[k] = code(false, eb, fb);
  }
  Exp blank(const char* family) {
    Exp x;
    x.a.assign(in.K, 0), x.b.assign(in.K, 0);
    x.family = family;
    return x;
  }
  float f32(bool neg, int e, uint64_t frac23) {
    return float((neg ? -1.0 : 1.0) * std::ldexp(1.0 + std::ldexp(double(frac23), -23), e));
  }

  void make() {
    const int K = in.K, J = std::min(60, E0 - Tmin);
    for (int i = 0; i < 200; ++i) {
      Exp x = blank("exact");
      pair(x, uni(0, K - 1), uni(-3, 3), bits(1), frac(true), frac(true));
      out.push_back(x);
    }
    for (int j = 1; j <= J; ++j)
      for (int k : {1, K / 2, K - 1})
        for (bool neg : {false, true})
          for (bool rf : {false, true}) {
            Exp x = blank("window");
            pair(x, 0, E0, false, 0, 0);
            pair(x, k, E0 - j, neg, frac(rf), frac(rf));
            out.push_back(x);
            Exp y = blank("window_cbig");
            y.c = f32(false, E0, 0);
            pair(y, k, E0 - j, neg, frac(rf), frac(rf));
            out.push_back(y);
          }
    for (int j = 1; j <= 60; ++j)
      for (bool neg : {false, true})
        for (bool rf : {false, true}) {
          Exp x = blank("window_csml");
          pair(x, uni(0, K - 1), E0, false, 0, 0);
          x.c = f32(neg, E0 - j, rf ? bits(23) : 0);
          out.push_back(x);
          if (j > J) continue;
          Exp y = blank("cancel_c");
          const int k0 = uni(0, K - 1), k1 = (k0 + uni(1, K - 1)) % K;
          const uint64_t fa = frac(rf), fb = frac(rf);
          pair(y, k0, E0, false, fa, fb);
          pair(y, k1, E0, true, fa, fb);
          y.c = f32(neg, E0 - j, rf ? bits(23) : 0);
          out.push_back(y);
        }
    const int D = std::min(J, 40);
    for (int i : {0, K - 1})
      for (int j = 0; j < K; ++j)
        for (int k = 0; k < K; ++k) {
          if (j == i || k == i || k == j) continue;
          Exp x = blank("blocks");
          pair(x, i, E0, false, 0, 0);
          pair(x, j, E0, true, 0, 0);
          pair(x, k, E0 - D, false, 0, 0);
          out.push_back(x);
        }
    random_family("narrow", 1500, 6);
    random_family("wide", 1500, std::min(45, E0 - Tmin));
    if (in.fmt == tc::Fmt::tf32)
      for (int i = 0; i < 600; ++i) {
        Exp x = blank("cut");
        const int k = uni(0, K - 1);
        uint32_t& big = (i % 2 ? x.b : x.a)[k];
        x.a[k] = x.b[k] = one();
        big = code(bits(1), uni(-10, 10), bits(23));
        out.push_back(x);
      }
    specials();
  }

  void random_family(const char* name, int n, int span) {
    const bool tf32 = in.fmt == tc::Fmt::tf32;
    for (int i = 0; i < n; ++i) {
      Exp x = blank(name);
      for (int k = 0; k < in.K; ++k) {
        if (uni(0, 4) == 0) continue;  // a zero product now and then
        pair(x, k, E0 - uni(0, span), bits(1), tf32 ? bits(23) : frac(true), tf32 ? bits(23) : frac(true));
      }
      if (uni(0, 4)) x.c = f32(bits(1), E0 + 1 - uni(0, span + 1), bits(23));
      out.push_back(x);
    }
  }

  void special(const char* name, Exp x) {
    x.family = std::string("special:") + name;
    out.push_back(x);
  }
  void specials() {
    const bool e4 = in.fmt == tc::Fmt::e4m3;
    const uint32_t nan = e4 ? 0x7F : (uint32_t((1u << f.ebits) - 1) << f.fbits) | (1u << (f.fbits - 1));
    const uint32_t inf = uint32_t((1u << f.ebits) - 1) << f.fbits, sign = 1u << (f.ebits + f.fbits);
    Exp x = blank("");
    x.a[0] = nan, x.b[0] = one();
    special("nan_operand", x);
    if (!e4) {
      x = blank(""), x.a[0] = inf, x.b[0] = one();
      special("inf_operand", x);
      x = blank(""), x.a[0] = inf, x.b[0] = 0;
      special("inf_times_zero", x);
      x = blank(""), x.a[0] = inf, x.b[0] = one(), x.a[1] = inf | sign, x.b[1] = one();
      special("inf_minus_inf", x);
    }
    x = blank(""), x.a[0] = x.b[0] = one(), x.c = std::numeric_limits<float>::infinity();
    special("c_inf", x);
    x.c = std::numeric_limits<float>::quiet_NaN();
    special("c_nan", x);
    // Subnormal operands times a power of two that makes the product a normal fp32.
    const int up = in.fmt == tc::Fmt::bf16 || in.fmt == tc::Fmt::tf32 ? 100 : 0;
    for (uint32_t s : {1u, (1u << f.fbits) - 1}) {
      x = blank(""), x.a[0] = s;
      x.b[0] = up ? code(false, up, 0) : one();
      special(s == 1 ? "subnormal_operand_least" : "subnormal_operand_largest", x);
    }
    x = blank(""), pair(x, 0, -7, false, 0, 0), x.c = 0x1p-140f;
    special("c_subnormal_plus_normal", x);
    x = blank(""), x.c = 0x1p-140f;
    special("c_subnormal_alone", x);
    if (f.ebits == 8) {
      x = blank(""), pair(x, 0, -140, false, 0, 0);
      special("product_subnormal", x);
      x = blank(""), pair(x, 0, 200, false, 0, 0);
      special("product_overflow", x);
      x = blank(""), pair(x, 0, 127, false, 0, 0), x.c = std::numeric_limits<float>::max();
      special("sum_overflow", x);
    }
    x = blank(""), x.c = -0.f;
    special("c_minus_zero_alone", x);
    x = blank(""), pair(x, 0, 0, false, 0, 0), pair(x, 1, 0, true, 0, 0);
    special("cancel_to_zero", x);
  }
};

}  // namespace

const std::vector<InstrInfo>& instrs() {
  static const std::vector<InstrInfo> v = {
      {Instr::mma_bf16, "mma.m16n8k16.bf16", tc::Fmt::bf16, 16, false},
      {Instr::mma_fp16, "mma.m16n8k16.fp16", tc::Fmt::fp16, 16, false},
      {Instr::mma_tf32, "mma.m16n8k8.tf32", tc::Fmt::tf32, 8, false},
      {Instr::mma_e4m3, "mma.m16n8k32.e4m3", tc::Fmt::e4m3, 32, false},
      {Instr::wgmma_bf16, "wgmma.m64n8k16.bf16", tc::Fmt::bf16, 16, true},
      {Instr::wgmma_fp16, "wgmma.m64n8k16.fp16", tc::Fmt::fp16, 16, true},
      {Instr::wgmma_tf32, "wgmma.m64n8k8.tf32", tc::Fmt::tf32, 8, true},
      {Instr::wgmma_e4m3, "wgmma.m64n8k32.e4m3", tc::Fmt::e4m3, 32, true},
  };
  return v;
}
const InstrInfo* find_instr(const std::string& name) {
  for (const InstrInfo& i : instrs())
    if (name == i.name) return &i;
  return nullptr;
}

std::vector<Exp> experiments(const InstrInfo& in, uint64_t seed) {
  Gen g(in, seed);
  g.make();
  return g.out;
}

double exact_product_sum(const InstrInfo& in, const Exp& e) {
  double s = e.c;
  for (int k = 0; k < in.K; ++k) s += tc::operand_value(in.fmt, e.a[k]) * tc::operand_value(in.fmt, e.b[k]);
  return s;
}

}  // namespace kc::tcprobe
