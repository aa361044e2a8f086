// One evaluation of a formula on a case: its inputs read back as stored, every block called at each
// coordinate of its dims (on every core), every output stored once.
#include <climits>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "kc/families/blocks.hpp"
#include "kc/lowp.hpp"
#include "kc/parallel.hpp"
#include "run.hpp"

namespace kc::formula::detail {

namespace {
const char* const kUlpNames[7] = {"expf", "logf", "tanhf", "erff", "rsqrtf", "sinf", "cosf"};  // Run::ulps' order
}  // namespace

int Def::find(std::string_view name) const {
  for (size_t i = 0; i < bufs.size(); ++i)
    if (bufs[i].name == name) return int(i);
  return -1;
}

int low_bit(double v) {
  if (v == 0 || !std::isfinite(v)) return INT_MAX;
  int e;
  const double f = std::frexp(std::fabs(v), &e);  // v = f 2^e, f in [0.5, 1)
  uint64_t mant = uint64_t(std::ldexp(f, 53));
  int tz = 0;
  while (!(mant & 1)) mant >>= 1, ++tz;
  return e - 53 + tz;
}

static lowp::Format format_of(Code c) {
  switch (c) {
    case Code::e4m3: return lowp::Format::e4m3;
    case Code::e5m2: return lowp::Format::e5m2;
    default: return lowp::Format::e2m1;
  }
}

double code_round(Code c, double v) {
  if (c == Code::int8) {
    if (std::isnan(v)) return 0;  // int8 holds no NaN: a conversion gives 0 (what cvt.rni.sat gives)
    return std::clamp(std::nearbyint(v), -127.0, 127.0);
  }
  if (c == Code::e2m1 && std::isnan(v)) return NAN;  // no code for it: the kernel's NaN has no value
  const lowp::Format f = format_of(c);
  return lowp::decode(f, lowp::encode(f, v));
}

Interval code_interval(Code c, const Interval& iv) {
  if (iv.nan) return iv;
  // Conversion to nearest, saturating, is monotone: the ends' conversions bound every value's.
  return Interval::of(code_round(c, iv.lo), code_round(c, iv.hi));
}

Run::Run(const Def& d, const Case& cs, Mode m) : def(d), c(cs), mode(m) {
  const Shape& s = c.shape();
  for (const auto& b : def.bufs) {
    std::vector<int64_t> e;
    for (const auto& x : b.ext) e.push_back(x.dim.empty() ? x.n : s[x.dim]);
    ext.push_back(std::move(e));
    data.push_back(b.input() ? blocks::read(c, b.name) : std::vector<double>{});
  }
  outs.resize(def.bufs.size());
  const Spec* spec = c.spec;
  declared = spec && spec->sums && spec->sums->summed && spec->sums->depth;
  if (declared) gamma = kc::gamma(spec->sums->depth(s));
  for (int i = 0; i < 7; ++i) ulps[i] = blocks::declared_ulps(c, kUlpNames[i], ulps[i]);
}

Free Run::free_of(int buf, const int64_t* coords, int64_t& base, int skip_first) const {
  const Buffer& b = def.bufs[size_t(buf)];
  const auto& e = ext[size_t(buf)];
  Free f;
  base = 0;
  int64_t stride = 1;
  int64_t strides[8];
  for (size_t k = e.size(); k-- > 0;) strides[k] = stride, stride *= e[k];
  for (size_t k = size_t(skip_first); k < e.size(); ++k) {
    int fixed = -1;
    for (size_t p = 0; p < block->dims.size(); ++p)
      if (!b.ext[k].dim.empty() && b.ext[k].dim == block->dims[p]) fixed = int(p);
    if (fixed >= 0) {
      base += coords[fixed] * strides[k];
      continue;
    }
    if (f.rank == 4) throw Error(fmt::format("formula: '{}' leaves more than 4 extents free", b.name));
    f.ext[f.rank] = e[k];
    f.stride[f.rank++] = strides[k];
    f.n *= e[k];
  }
  return f;
}

template <class N> void store(Run& r, int out, int64_t at, const N& v) {
  const Buffer& b = r.def.bufs[size_t(out)];
  Stored& s = r.outs[size_t(out)];
  const size_t i = size_t(at);
  if (s.written[i]++) throw Error(fmt::format("formula: {}[{}] is written twice", b.name, at));
  const double w = b.kind == Kind::codes ? code_round(b.code, value(v)) : value(v);
  s.want[i] = w;
  if constexpr (std::is_same_v<N, Track>) {
    if (s.err.empty()) return;  // gate 1's classes need want alone
    const double e = error_of(v);
    if (v.pinned || b.kind == Kind::codes) {
      s.pinned[i] = 1;
      const Interval iv = interval_of(v);
      const Interval o = b.kind == Kind::codes ? code_interval(b.code, iv) : iv.rounded(b.type);
      s.lo[i] = std::isfinite(w) ? (o.nan ? -INFINITY : o.lo) : w;
      s.hi[i] = std::isfinite(w) ? (o.nan ? INFINITY : o.hi) : w;
    }
    if (std::isfinite(w)) {
      s.mag[i] = r.declared ? v.m : 0;
      s.err[i] = (r.declared ? v.a : e) * (1 + 0x1p-40);  // the bound's own double roundings
    }
    if (!std::isfinite(e) && std::isfinite(w))
      throw Error(fmt::format("formula: {}[{}] has no finite error bound (a divisor or a root whose error reaches 0)",
                              b.name, at));
  }
}
template void store<double>(Run&, int, int64_t, const double&);
template void store<Track>(Run&, int, int64_t, const Track&);

void store_id(Run& r, int out, int64_t at, int64_t v) {
  const Buffer& b = r.def.bufs[size_t(out)];
  if (b.type != DType::i32 && b.type != DType::i64)
    throw Error(fmt::format("formula: an integer stored in '{}', which holds {}", b.name, dtype_name(b.type)));
  Stored& s = r.outs[size_t(out)];
  if (s.written[size_t(at)]++) throw Error(fmt::format("formula: {}[{}] is written twice", b.name, at));
  s.want[size_t(at)] = double(v);
}

namespace {
template <class N> void run_block(Run& r, const Block& blk, const std::function<void(Ctx<N>&)>& fn) {
  const Shape& s = r.c.shape();
  std::vector<int64_t> sizes;
  int64_t total = 1;
  for (const auto& d : blk.dims) sizes.push_back(s[d]), total *= s[d];
  r.block = &blk;
  parallel_for(total, [&](int64_t lo, int64_t hi) {
    tl_gamma = r.gamma;
    std::vector<int64_t> co(sizes.size() + 1);
    for (int64_t i = lo; i < hi; ++i) {
      int64_t x = i;
      for (size_t k = sizes.size(); k-- > 0;) co[k] = x % sizes[k], x /= sizes[k];
      Ctx<N> f(&r, co.data());
      fn(f);
    }
  }, 64);
}
}  // namespace

void evaluate(Run& r) {
  for (size_t i = 0; i < r.def.bufs.size(); ++i) {
    const Buffer& b = r.def.bufs[i];
    if (b.input()) continue;
    int64_t n = 1;
    for (int64_t e : r.ext[i]) n *= e;
    Stored& s = r.outs[i];
    s.want.assign(size_t(n), 0.0);
    s.written.assign(size_t(n), 0);
    if (r.mode == Mode::track && r.c.fill().kind != FillKind::nonfinite) {
      s.mag.assign(size_t(n), 0.0);
      s.err.assign(size_t(n), 0.0);
      s.lo.assign(size_t(n), 0.0);
      s.hi.assign(size_t(n), 0.0);
      s.pinned.assign(size_t(n), 0);
    }
  }
  for (const auto& blk : r.def.blocks) {
    if (r.mode == Mode::track) run_block<Track>(r, blk, blk.track);
    else run_block<double>(r, blk, blk.ref);
  }
  for (size_t i = 0; i < r.def.bufs.size(); ++i) {
    const Buffer& b = r.def.bufs[i];
    if (b.input()) continue;
    const auto& w = r.outs[i].written;
    for (size_t k = 0; k < w.size(); ++k)
      if (!w[k]) throw Error(fmt::format("formula: {}[{}] is never written (every output once)", b.name, k));
  }
}

}  // namespace kc::formula::detail

namespace kc::formula {
bool reads_ulp(std::string_view function) {
  for (const char* n : detail::kUlpNames)
    if (function == n) return true;
  return false;
}
}  // namespace kc::formula
