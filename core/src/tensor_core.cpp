// The tensor-core rule's exact model (kc/tensor_core.hpp): operands decoded to integer significands
// and exponents, products exact in 64 bits, a step's window sum exact in 128.
#include "kc/tensor_core.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "kc/types.hpp"

namespace kc::tc {
namespace {

using i128 = __int128;
using u128 = unsigned __int128;

// value = (neg ? -1 : 1) * mant * 2^exp; `ref` is the exponent a step aligns this addend by.
struct Term {
  bool neg = false;
  uint64_t mant = 0;
  int exp = 0;
  int ref = 0;
};
enum class Kind { finite, inf, nan };
struct Op {
  Kind kind = Kind::finite;
  Term t;
};

int msb(u128 x) {
  const uint64_t hi = uint64_t(x >> 64);
  return hi ? 127 - __builtin_clzll(hi) : 63 - __builtin_clzll(uint64_t(x));
}
int lead(const Term& t) { return t.exp + msb(t.mant); }

// Drops the low `s` bits of mag as `c` says (down: toward -Inf for a negative value).
u128 drop(u128 mag, int s, bool neg, Cut c) {
  if (s <= 0) return mag << -s;
  const u128 q = s >= 128 ? 0 : mag >> s;
  const u128 rem = s >= 128 ? mag : mag & ((u128(1) << s) - 1);
  if (rem == 0) return q;
  if (c == Cut::down) return neg ? q + 1 : q;
  if (c == Cut::nearest) {
    if (s > 127) return q;  // rem < 2^127 <= half
    const u128 half = u128(1) << (s - 1);
    return rem > half || (rem == half && (q & 1)) ? q + 1 : q;
  }
  return q;
}

// mag 2^exp to `sig` significant bits (fp32's subnormal spacing below 2^-126) as c says. Past
// fp32's range the GPU returns Inf in every mode (tc-probe's special:*_overflow rows).
float round_f32(bool neg, u128 mag, int exp, Cut c, int sig = 24) {
  const float inf = std::numeric_limits<float>::infinity();
  if (mag == 0) return 0.f;
  if (exp + msb(mag) > 127) return neg ? -inf : inf;
  const int t = std::max(exp + msb(mag) - (sig - 1), -149);
  const u128 q = drop(mag, t - exp, neg, c);
  if (q == 0) return neg ? -0.f : 0.f;
  const double v = std::ldexp(double(uint64_t(q)), t);  // q <= 2^24: exact
  if (v >= 0x1p128) return neg ? -inf : inf;
  return float(neg ? -v : v);
}

Op decode(Fmt f, uint32_t code, Cut cut) {
  int ebits, fbits, bias;
  switch (f) {
    case Fmt::bf16: ebits = 8, fbits = 7, bias = 127; break;
    case Fmt::fp16: ebits = 5, fbits = 10, bias = 15; break;
    case Fmt::tf32: ebits = 8, fbits = 23, bias = 127; break;
    default: ebits = 4, fbits = 3, bias = 7; break;
  }
  Op o;
  o.t.neg = (code >> (ebits + fbits)) & 1;
  const uint32_t E = (code >> fbits) & ((1u << ebits) - 1);
  uint64_t F = code & ((1u << fbits) - 1);
  const uint32_t emax = (1u << ebits) - 1;
  if (f == Fmt::e4m3) {
    if (E == emax && F == 7) return o.kind = Kind::nan, o;
  } else if (E == emax) {
    return o.kind = F ? Kind::nan : Kind::inf, o;
  }
  o.t.mant = E ? F | (uint64_t(1) << fbits) : F;
  o.t.exp = int(E ? E : 1) - bias - fbits;
  if (f == Fmt::tf32) {  // keep 10 of the 23 fraction bits
    o.t.mant = uint64_t(drop(o.t.mant, 13, o.t.neg, cut)) << 13;
    if (o.t.mant && lead(o.t) > 127) return o.kind = Kind::inf, o;
  }
  o.t.ref = o.t.mant ? lead(o.t) : 0;
  return o;
}

Term from_f32(float c) {
  Term t;
  int e = 0;
  const double m = std::frexp(double(c), &e);  // |m| in [0.5, 1)
  t.neg = std::signbit(c);
  t.mant = uint64_t(std::ldexp(std::fabs(m), 24));
  t.exp = e - 24;
  t.ref = t.mant ? lead(t) : 0;
  return t;
}

// x + y exactly where both fit 64 bits; a value more than 64 bits below the other's leading bit
// is replaced by one of its sign just below that reach, which rounds the same in every mode.
void add_exact(bool& neg, u128& mag, int& exp, const Term& y) {
  if (y.mant == 0) return;
  if (mag == 0) return void((neg = y.neg, mag = y.mant, exp = y.exp));
  Term x{neg, uint64_t(mag), exp, 0};
  Term b = y;
  const int lx = lead(x), ly = lead(b);
  if (lx < ly - 64) x = Term{x.neg, 1, ly - 66, 0};
  if (ly < lx - 64) b = Term{b.neg, 1, lx - 66, 0};
  const int e = std::min(x.exp, b.exp);
  const i128 s = (x.neg ? -1 : 1) * (i128(x.mant) << (x.exp - e)) + (b.neg ? -1 : 1) * (i128(b.mant) << (b.exp - e));
  neg = s < 0, mag = u128(s < 0 ? -s : s), exp = e;
}

}  // namespace

const char* name(Fmt f) {
  static const char* n[] = {"bf16", "fp16", "tf32", "e4m3"};
  return n[int(f)];
}
const char* name(Cut c) {
  static const char* n[] = {"zero", "down", "nearest"};
  return n[int(c)];
}
int operand_bits(Fmt f) { return f == Fmt::tf32 ? 32 : f == Fmt::e4m3 ? 8 : 16; }

double operand_value(Fmt f, uint32_t code, Cut cut) {
  const Op o = decode(f, code, cut);
  if (o.kind == Kind::nan) return std::numeric_limits<double>::quiet_NaN();
  const double v = o.kind == Kind::inf ? HUGE_VAL : std::ldexp(double(o.t.mant), o.t.exp);
  return o.t.neg ? -v : v;
}

float simulate(const Rule& r, Fmt f, const uint32_t* a, const uint32_t* b, int K, float c) {
  if (K < 1 || K > 64 || r.block < 1) throw Error("tensor-core model: K " + std::to_string(K) + " is past 64");
  Term p[64];
  bool nan = std::isnan(c), pinf = std::isinf(c) && c > 0, ninf = std::isinf(c) && c < 0;
  for (int k = 0; k < K; ++k) {
    const Op x = decode(f, a[k], r.cut), y = decode(f, b[k], r.cut);
    if (x.kind == Kind::nan || y.kind == Kind::nan) return std::numeric_limits<float>::quiet_NaN();
    const bool zx = x.kind == Kind::finite && x.t.mant == 0, zy = y.kind == Kind::finite && y.t.mant == 0;
    if (x.kind == Kind::inf || y.kind == Kind::inf) {
      if (zx || zy) nan = true;
      else (x.t.neg != y.t.neg ? ninf : pinf) = true;
      continue;
    }
    p[k].neg = x.t.neg != y.t.neg;
    p[k].mant = x.t.mant * y.t.mant;
    p[k].exp = x.t.exp + y.t.exp;
    if (p[k].mant) p[k].ref = r.op_exp ? x.t.ref + y.t.ref : lead(p[k]);
  }
  if (nan || (pinf && ninf)) return std::numeric_limits<float>::quiet_NaN();
  if (pinf || ninf) return pinf ? HUGE_VALF : -HUGE_VALF;

  float acc = c;
  for (int s0 = 0; s0 < K; s0 += r.block) {
    const Term at = from_f32(acc);
    const Term* add[65];
    int n = 0;
    for (int k = s0; k < std::min(K, s0 + r.block); ++k)
      if (p[k].mant) add[n++] = &p[k];
    if (r.c_in_group && at.mant) add[n++] = &at;
    bool neg = false;
    u128 mag = 0;
    int exp = 0;
    if (n) {
      int e = add[0]->ref;
      for (int i = 1; i < n; ++i) e = std::max(e, add[i]->ref);
      const int u = e - r.kept;
      i128 sum = 0;
      for (int i = 0; i < n; ++i) {
        const i128 q = i128(drop(add[i]->mant, u - add[i]->exp, add[i]->neg, r.align));
        sum += add[i]->neg ? -q : q;
      }
      neg = sum < 0, mag = u128(sum < 0 ? -sum : sum), exp = u;
    }
    if (!r.c_in_group) add_exact(neg, mag, exp, at);
    // An exact zero is +0, C = -0 beside zero products too (special:c_minus_zero_alone).
    acc = mag ? round_f32(neg, mag, exp, r.out, r.sig) : 0.f;
  }
  return acc;
}

double step_bound(const Rule& r, int n, double big, double res) {
  const double per = std::ldexp(1.0, -r.kept) * (r.align == Cut::nearest ? 0.5 : 1.0);
  const double ulp = std::ldexp(1.0, 1 - r.sig) * (r.out == Cut::nearest ? 0.5 : 1.0);
  const int addends = n + (r.c_in_group ? 1 : 0);
  return addends * per * big + ulp * res + 0x1p-149;
}

double depth(const Rule& r, long K) {
  const long steps = (K + r.block - 1) / r.block;
  // Per step: step_bound with big <= m and res <= m, in units of m.
  const double x = double(steps) * (step_bound(r, r.block, 1.0, 1.0) - 0x1p-149);
  // gamma(d) = d u / (1 - d u) >= x  <=>  d >= x / (u (1 + x)); rounded up.
  return std::ceil(x / (0x1p-24 * (1.0 + x)));
}

std::string format(const Rule& r) {
  std::ostringstream o;
  o << "block=" << r.block << " kept=" << r.kept << " align=" << name(r.align) << " c_in_group=" << r.c_in_group
    << " op_exp=" << r.op_exp << " out=" << name(r.out) << " sig=" << r.sig << " cut=" << name(r.cut);
  return o.str();
}

Rule parse(const std::string& s) {
  Rule r;
  std::istringstream in(s);
  std::string kv;
  int seen = 0;
  auto cut = [&](const std::string& v) {
    for (Cut c : {Cut::zero, Cut::down, Cut::nearest})
      if (v == name(c)) return c;
    throw Error("tensor-core rule: no rounding '" + v + "'");
  };
  auto flag = [&](const std::string& v) {
    if (v != "0" && v != "1") throw Error("tensor-core rule: '" + v + "' is not 0 or 1");
    return v == "1";
  };
  while (in >> kv) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos) throw Error("tensor-core rule: '" + kv + "' is no key=value");
    const std::string k = kv.substr(0, eq), v = kv.substr(eq + 1);
    if (k == "block") r.block = std::stoi(v);
    else if (k == "kept") r.kept = std::stoi(v);
    else if (k == "align") r.align = cut(v);
    else if (k == "c_in_group") r.c_in_group = flag(v);
    else if (k == "op_exp") r.op_exp = flag(v);
    else if (k == "out") r.out = cut(v);
    else if (k == "sig") r.sig = std::stoi(v);
    else if (k == "cut") r.cut = cut(v);
    else throw Error("tensor-core rule: no key '" + k + "'");
    ++seen;
  }
  if (seen != 8 || r.block < 1 || r.kept < 0 || r.kept > 48 || r.sig < 2 || r.sig > 24)
    throw Error("tensor-core rule: '" + s + "' is incomplete or out of range");
  return r;
}

const std::vector<Measured>& measured_sm90() {
  // bf16, fp16, tf32: one step of all K products and C, 25 fraction bits below the largest
  // operand-exponent sum, truncated, the sum truncated to fp32; tf32 operands truncated. e4m3
  // (wgmma): the same over 32 products with 13 bits, the sum truncated to 14 significant bits.
  const Cut z = Cut::zero;
  static const std::vector<Measured> m = {
      {"mma.m16n8k16.bf16", Fmt::bf16, 16, {16, 25, z, true, true, z, z, 24}},
      {"mma.m16n8k16.fp16", Fmt::fp16, 16, {16, 25, z, true, true, z, z, 24}},
      {"mma.m16n8k8.tf32", Fmt::tf32, 8, {8, 25, z, true, true, z, z, 24}},
      {"wgmma.m64n8k16.bf16", Fmt::bf16, 16, {16, 25, z, true, true, z, z, 24}},
      {"wgmma.m64n8k16.fp16", Fmt::fp16, 16, {16, 25, z, true, true, z, z, 24}},
      {"wgmma.m64n8k8.tf32", Fmt::tf32, 8, {8, 25, z, true, true, z, z, 24}},
      {"wgmma.m64n8k32.e4m3", Fmt::e4m3, 32, {32, 13, z, true, true, z, z, 14}},
  };
  return m;
}
const Measured* find_measured(const std::string& instr) {
  for (const Measured& m : measured_sm90())
    if (instr == m.instr) return &m;
  return nullptr;
}

}  // namespace kc::tc
