// The run's reference device (kc/ref_device.hpp): which one the float64 references may use, the
// check that it returns the CPU's doubles bit for bit, and the reasons it fell back to the CPU.
#include "kc/ref_device.hpp"

#include <atomic>
#include <cstring>
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

}  // namespace

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
}  // namespace fam

}  // namespace kc
