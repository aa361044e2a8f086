// The fit of tc-probe's measurements to the rule space (fit.hpp): brute force over the space,
// each rule stopped at its first miss, so only the rules that fit run every experiment.
#include "fit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "experiments.hpp"

namespace kc::tcprobe {
namespace {

// Misses are counted to this many: where no rule fits, the fewest is reported up to it.
constexpr long kMissCap = 50;

bool fitted(const Exp& e) { return e.family.rfind("special:", 0) != 0; }

std::string hexf(float v) {
  char b[64];
  std::snprintf(b, sizeof b, "%a", double(v));
  return b;
}

}  // namespace

bool same(float gpu, float model) { return (std::isnan(gpu) && std::isnan(model)) || gpu == model; }

std::vector<tc::Rule> space(const InstrInfo& in) {
  std::vector<tc::Rule> v;
  const bool tf32 = in.fmt == tc::Fmt::tf32;
  for (int block = 2; block <= in.K; block *= 2)
    for (int kept = 6; kept <= 48; ++kept)
      for (tc::Cut align : {tc::Cut::zero, tc::Cut::down, tc::Cut::nearest})
        for (bool cg : {true, false})
          for (bool oe : {false, true})
            for (tc::Cut out : {tc::Cut::nearest, tc::Cut::zero, tc::Cut::down})
              for (tc::Cut cut : {tc::Cut::zero, tc::Cut::nearest, tc::Cut::down})
                for (int sig = 8; sig <= 24; ++sig) {
                  if (!tf32 && cut != tc::Cut::zero) continue;
                  if (sig < 23 && (sig < kept - 1 || sig > kept + 3)) continue;  // 24, 23, or near the window
                  v.push_back(tc::Rule{block, kept, align, cg, oe, out, cut, sig});
                }
  return v;
}

long misses(const InstrInfo& in, const tc::Rule& r, const std::vector<Exp>& exps, long cap, const Exp** first) {
  long n = 0;
  for (const Exp& e : exps) {
    if (!fitted(e)) continue;
    if (!same(e.d, tc::simulate(r, in.fmt, e.a.data(), e.b.data(), in.K, e.c))) {
      if (n == 0 && first) *first = &e;
      if (++n >= cap) break;
    }
  }
  return n;
}

Fit fit(const InstrInfo& in, const std::vector<Exp>& exps) {
  Fit f;
  for (const Exp& e : exps) f.fitted += fitted(e);
  const std::vector<tc::Rule> sp = space(in);
  f.models = long(sp.size());
  // Threads take every T-th rule; each keeps its own fewest misses as its cap. Neighbouring rules
  // of the loop mostly die on the same experiment, so the one that last killed a rule goes first.
  std::vector<const Exp*> fitted_exps;
  for (const Exp& e : exps)
    if (fitted(e)) fitted_exps.push_back(&e);
  const unsigned T = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::vector<long>> got(T);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < T; ++t)
    pool.emplace_back([&, t] {
      std::vector<const Exp*> order = fitted_exps;
      long best = f.fitted + 1;
      for (size_t i = t; i < sp.size(); i += T) {
        const long cap = std::clamp(best, 1L, kMissCap);
        long m = 0;
        for (size_t j = 0; j < order.size() && m < cap; ++j) {
          const Exp& e = *order[j];
          if (same(e.d, tc::simulate(sp[i], in.fmt, e.a.data(), e.b.data(), in.K, e.c))) continue;
          if (m++ == 0) std::rotate(order.begin(), order.begin() + long(j), order.begin() + long(j) + 1);
        }
        got[t].push_back(m);
        best = std::min(best, m);
      }
    });
  for (std::thread& th : pool) th.join();
  f.best_misses = f.fitted + 1;
  for (size_t i = 0; i < sp.size(); ++i) {
    const long m = got[i % T][i / T];
    if (m == 0) f.fits.push_back(sp[i]);
    if (m < f.best_misses) f.best = sp[i], f.best_misses = m;
  }
  if (!f.fits.empty()) f.best = f.fits[0], f.best_misses = 0;
  return f;
}

std::vector<tc::Rule> neighbours(const InstrInfo& in, const tc::Rule& r) {
  std::vector<tc::Rule> v;
  const std::vector<tc::Rule> sp = space(in);
  auto diff = [](const tc::Rule& a, const tc::Rule& b) {
    return (a.block != b.block) + (a.kept != b.kept) + (a.align != b.align) + (a.c_in_group != b.c_in_group) +
           (a.op_exp != b.op_exp) + (a.out != b.out) + (a.cut != b.cut) + (a.sig != b.sig);
  };
  for (const tc::Rule& s : sp)
    if (diff(r, s) == 1 && std::abs(s.kept - r.kept) <= 1 && std::abs(s.sig - r.sig) <= 1 &&
        (s.block == r.block || s.block * 2 == r.block || s.block == r.block * 2))
      v.push_back(s);
  return v;
}

std::vector<std::string> rows(const InstrInfo& in, const Fit& f, const std::vector<Exp>& exps, const std::string& sm,
                              const std::string& source) {
  std::vector<std::string> out;
  auto row = [&](const std::string& prop, const std::string& value, const std::string& how) {
    out.push_back(std::string(in.name) + "\t" + sm + "\t" + prop + "\t" + value + "\t" + how + "\t" + source);
  };
  char b[512];
  if (f.fits.empty() && f.best_misses >= kMissCap) {
    std::snprintf(b, sizeof b, "no rule of %ld fits all %ld experiments; every one misses %ld or more", f.models, f.fitted,
                  kMissCap);
    row("rule", "none", b);
  } else if (f.fits.empty()) {
    std::snprintf(b, sizeof b, "no rule of %ld fits all %ld experiments; fewest misses %ld", f.models, f.fitted,
                  f.best_misses);
    row("rule", "none: " + tc::format(f.best), b);
  } else {
    std::snprintf(b, sizeof b, "%zu of %ld rules give the GPU's bits on all %ld fitted experiments", f.fits.size(),
                  f.models, f.fitted);
    row("rule", f.fits.size() == 1 ? tc::format(f.best) : "ambiguous: " + tc::format(f.best), b);
  }
  // Each parameter: the values the fitting rules take, and what rules out its neighbours.
  std::map<std::string, std::set<std::string>> values;
  for (const tc::Rule& r : f.fits) {
    std::istringstream in_(tc::format(r));
    std::string kv;
    while (in_ >> kv) values[kv.substr(0, kv.find('='))].insert(kv.substr(kv.find('=') + 1));
  }
  std::map<std::string, std::string> against;
  const bool norule = f.fits.empty() && f.best_misses >= kMissCap;  // no rule near: no neighbours to state
  for (const tc::Rule& n : norule ? std::vector<tc::Rule>{} : neighbours(in, f.best)) {
    const Exp* first = nullptr;
    const long m = misses(in, n, exps, 1L << 40, &first);
    std::string key, nv;
    std::istringstream a(tc::format(f.best)), c(tc::format(n));
    std::string ka, kc_;
    while (a >> ka && c >> kc_)
      if (ka != kc_) key = ka.substr(0, ka.find('=')), nv = kc_.substr(kc_.find('=') + 1);
    std::snprintf(b, sizeof b, "%s%s=%s misses %ld (first in %s)", against[key].empty() ? "" : "; ", key.c_str(),
                  nv.c_str(), m, first ? first->family.c_str() : "none");
    against[key] += b;
  }
  for (const auto& [key, vals] : values) {
    if (key == "cut" && in.fmt != tc::Fmt::tf32) continue;
    std::string v;
    for (const std::string& s : vals) v += (v.empty() ? "" : "|") + s;
    row(key, v, against[key].empty() ? "no neighbour in the space" : against[key]);
  }
  // Products alone: the GPU's D against the exact product (exact in fp32 for every format here).
  long n = 0, exact = 0;
  for (const Exp& e : exps)
    if (e.family == "exact") ++n, exact += double(e.d) == exact_product_sum(in, e);
  std::snprintf(b, sizeof b, "%ld of %ld lone products (random fractions) returned exactly", exact, n);
  row("products", exact == n ? "exact" : "inexact", b);
  for (const Exp& e : exps) {
    if (fitted(e)) continue;
    const float m = tc::simulate(f.best, in.fmt, e.a.data(), e.b.data(), in.K, e.c);
    if (norule) std::snprintf(b, sizeof b, "exact value %a", exact_product_sum(in, e));
    else
      std::snprintf(b, sizeof b, "exact value %a; the rule's model gives %s%s", exact_product_sum(in, e),
                    hexf(m).c_str(), same(e.d, m) && std::signbit(e.d) == std::signbit(m) ? " (same)" : " (differs)");
    row(e.family, hexf(e.d), b);
  }
  return out;
}

}  // namespace kc::tcprobe
