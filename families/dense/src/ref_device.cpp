// The run's reference device (kc/ref_device.hpp): which one the float64 references may use, the
// check that it returns the CPU's doubles bit for bit, and the reasons it fell back to the CPU.
#include "kc/ref_device.hpp"

#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <fmt/format.h>
#include <mutex>
#include <tuple>
#include <utility>
#include <vector>

#include "kc/families/affine.hpp"
#include "dense_detail.hpp"
#include "ref_gemm.hpp"

namespace kc {
namespace {

std::atomic<const RefDevice*> g_device{nullptr};
std::mutex g_mu;
std::string g_fallback;

// The first output whose y or mag differs in bits, "" if none.
std::string differ(const std::string& what, const std::vector<double>& y, const std::vector<double>& ym,
                   const std::vector<double>& c, const std::vector<double>& cm) {
  for (size_t i = 0; i < y.size(); ++i)
    for (int part = 0; part < 2; ++part) {
      const double a = part ? ym[i] : y[i], b = part ? cm[i] : c[i];
      if (std::memcmp(&a, &b, sizeof a) != 0)
        return fmt::format("{}: {}[{}] is {:.17g} on the device, {:.17g} on the CPU", what, part ? "mag" : "y", i, a, b);
    }
  return {};
}

thread_local ResidentScope* t_resident = nullptr;

// The resident answers of a device against the CPU's: every want and mag read back equal in bits, and
// a check of outputs made to pass, fail and tie as the host's compare() would judge them.
std::string differ_resident(const std::string& what, const RefResident& r, const std::vector<double>& c,
                            const std::vector<double>& cm) {
  if (r.count() != c.size()) return fmt::format("{}: {} answers kept, {} outputs", what, r.count(), c.size());
  std::vector<double> y(c.size()), ym(c.size());
  if (std::string why = r.fetch(y.data(), ym.data()); !why.empty()) return what + ": " + why;
  if (std::string bad = differ(what + " (kept on the device)", y, ym, c, cm); !bad.empty()) return bad;
  double w = 0, m = 0;
  const uint64_t last = c.size() - 1;
  if (std::string why = r.at(last, w, m); !why.empty()) return what + ": " + why;
  if (std::memcmp(&w, &c[last], 8) != 0 || std::memcmp(&m, &cm[last], 8) != 0)
    return fmt::format("{}: output {} read alone differs from the CPU's", what, last);
  // Outputs as f32: most the answer rounded (passing), every 7th pushed out by 2^-10 of it plus one
  // (failing), one NaN; a bound of 2^-12 relative and 2^-30 of the magnitude.
  const RefBound k{0x1p-12, 0x1p-24, 0x1p-30, 0x1p-100};
  std::vector<float> got(c.size());
  for (size_t i = 0; i < c.size(); ++i) got[i] = float(i % 7 == 3 ? c[i] * (1 + 0x1p-10) + 1 : c[i]);
  got[c.size() / 2] = std::numeric_limits<float>::quiet_NaN();
  RefChecked want{}, dev{};
  for (uint64_t i = 0; i < c.size(); ++i) {
    const double g = got[i], v = c[i];
    const double bound = ((k.r * std::fabs(v) + k.a * std::fabs(v)) + k.g * std::fabs(cm[i])) + k.floor;
    double ratio;
    if (!std::isfinite(v) || !std::isfinite(g)) {
      if ((std::isnan(v) && std::isnan(g)) || v == g) continue;
      ratio = INFINITY;
    } else if (std::fabs(g - v) <= bound) {
      const double nr = bound > 0 ? std::min(1.0, std::fabs(g - v) / bound) : 0;
      if (nr > want.near_ratio) want.near_ratio = nr, want.near = i;
      continue;
    } else {
      ratio = bound > 0 ? std::fabs(g - v) / bound : INFINITY;
    }
    if (!want.outside++ || ratio > want.worst_ratio) want.worst_ratio = ratio, want.worst = i;
  }
  if (std::string why = r.check(got.data(), DType::f32, k, dev); !why.empty()) return what + ": check: " + why;
  if (dev.outside != want.outside || dev.worst != want.worst || dev.near != want.near ||
      std::memcmp(&dev.worst_ratio, &want.worst_ratio, 8) != 0 || std::memcmp(&dev.near_ratio, &want.near_ratio, 8) != 0)
    return fmt::format("{}: the device's check found {} outside, worst {} ({:.17g}), nearest {} ({:.17g}); the CPU's {} "
                       "outside, worst {} ({:.17g}), nearest {} ({:.17g})",
                       what, dev.outside, dev.worst, dev.worst_ratio, dev.near, dev.near_ratio, want.outside, want.worst,
                       want.worst_ratio, want.near, want.near_ratio);
  return {};
}

}  // namespace

ResidentScope::ResidentScope() : prev_(t_resident) { t_resident = this; }
ResidentScope::~ResidentScope() { t_resident = prev_; }
ResidentScope* ResidentScope::current() { return t_resident; }
const RefResident* ResidentScope::find(const void* out) const {
  for (const auto& [k, r] : kept_)
    if (k == out) return r.get();
  return nullptr;
}
void ResidentScope::keep(const void* out, std::unique_ptr<RefResident> r) {
  for (auto& [k, old] : kept_)
    if (k == out) {
      old = std::move(r);
      return;
    }
  kept_.emplace_back(out, std::move(r));
}

RefDeviceScope::RefDeviceScope(const RefDevice* d) : prev_(g_device.exchange(d)) {}
RefDeviceScope::~RefDeviceScope() { g_device.store(prev_); }

std::string take_ref_fallback() {
  std::lock_guard<std::mutex> l(g_mu);
  return std::exchange(g_fallback, std::string());
}

std::string check_ref_device(const RefDevice& d) {
  if (!d.dense || !d.affine) return d.name + " lacks the dense or the affine reference";
  // Values of both signs over 2^-12 .. 2^12 with every mantissa, and signed zeros; code words of
  // uniform bits.
  fam::Rng rng(0x6b63'7265'6673ull);
  auto value = [&] { return fam::spread_or_zero(rng, -12, 12); };
  // Ragged dense cases: no size a multiple of a tile; one with a long K.
  for (auto [M, N, K] : {std::tuple<int64_t, int64_t, int64_t>{37, 45, 300}, {3, 130, 1000}}) {
    std::vector<bf16> x(size_t(M * K)), w(size_t(N * K));
    for (auto& v : x) v = value();
    for (auto& v : w) v = value();
    std::vector<double> y(size_t(M * N)), ym(y.size()), c(y.size()), cm(y.size());
    const std::string what = fmt::format("dense {}x{}x{}", M, N, K);
    if (std::string why = d.dense(x.data(), w.data(), M, N, K, y.data(), ym.data()); !why.empty())
      return what + ": " + why;
    fam::ref_dense_cpu(x.data(), w.data(), M, N, K, c.data(), cm.data());
    if (std::string bad = differ(what, y, ym, c, cm); !bad.empty()) return bad;
    if (d.dense_resident) {
      std::unique_ptr<RefResident> r;
      if (std::string why = d.dense_resident(x.data(), w.data(), M, N, K, r); !why.empty() || !r)
        return what + " (kept on the device): " + (why.empty() ? "no answers" : why);
      if (std::string bad = differ_resident(what, *r, c, cm); !bad.empty()) return bad;
    }
  }
  // Every bit width, groups of 32, 64 and 128 in turn; K of three 128-column groups.
  const int groups[] = {32, 64, 128};
  int turn = 0;
  for (int bits : {2, 3, 4, 5, 6, 8}) {
    const int group = groups[turn++ % 3];
    const int64_t M = 5 + bits, N = 33 + 2 * bits, K = 384, G = K / group, wpr = affine::words_per_row(K, bits);
    std::vector<bf16> x(size_t(M * K)), s(size_t(N * G)), b(s.size());
    std::vector<uint32_t> q(size_t(N * wpr));
    for (auto& v : x) v = value();
    for (auto& v : s) v = value();
    for (auto& v : b) v = value();
    for (auto& v : q) v = uint32_t(rng.next());
    const RefAffineW aw{q.data(), s.data(), b.data(), bits, group, wpr};
    std::vector<double> y(size_t(M * N)), ym(y.size()), c(y.size()), cm(y.size());
    const std::string what = fmt::format("affine {} bits group {} {}x{}x{}", bits, group, M, N, K);
    if (std::string why = d.affine(x.data(), aw, M, N, K, y.data(), ym.data()); !why.empty()) return what + ": " + why;
    fam::ref_affine_cpu(x.data(), aw, M, N, K, c.data(), cm.data());
    if (std::string bad = differ(what, y, ym, c, cm); !bad.empty()) return bad;
    if (d.affine_resident) {
      std::unique_ptr<RefResident> r;
      if (std::string why = d.affine_resident(x.data(), aw, M, N, K, r); !why.empty() || !r)
        return what + " (kept on the device): " + (why.empty() ? "no answers" : why);
      if (std::string bad = differ_resident(what, *r, c, cm); !bad.empty()) return bad;
    }
  }
  return {};
}

namespace fam {
bool ref_device_took(int64_t M, int64_t N, int64_t K, const std::function<std::string(const RefDevice&)>& call) {
  const RefDevice* d = g_device.load();
  if (!d || M * N * K < kRefDeviceMacs) return false;
  std::string why = call(*d);
  if (why.empty()) return true;
  std::lock_guard<std::mutex> l(g_mu);
  if (g_fallback.empty())
    g_fallback = fmt::format("a {}x{}x{} reference ran on the CPU: {} could not: {}", M, N, K, d->name, why);
  return false;
}

bool ref_resident_took(const void* out, const Fill& f, int64_t M, int64_t N, int64_t K,
                       const std::function<std::string(const RefDevice&, std::unique_ptr<RefResident>&)>& call) {
  ResidentScope* scope = ResidentScope::current();
  const RefDevice* d = g_device.load();
  if (!scope || !out || f.kind != FillKind::random || !d || M * N * K < kRefDeviceMacs) return false;
  std::unique_ptr<RefResident> r;
  std::string why = call(*d, r);
  if (why.empty() && r) {
    scope->keep(out, std::move(r));
    return true;
  }
  if (why.empty()) return false;  // this device keeps no answers of this form
  std::lock_guard<std::mutex> l(g_mu);
  if (g_fallback.empty())
    g_fallback = fmt::format("a {}x{}x{} reference ran on the CPU: {} could not keep it: {}", M, N, K, d->name, why);
  return false;
}
}  // namespace fam

}  // namespace kc
