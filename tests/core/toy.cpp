#include "toy.hpp"

#include <cmath>
#include <limits>
#include <utility>

#include "kc/numeric.hpp"

namespace toy {
namespace {

struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform() { return double(next() >> 11) * 0x1p-53; }
};

const std::vector<std::string> plants = {"NaN in x", "+Inf in x", "-Inf in x", "+Inf and -Inf in x"};

// Random x with a spread of magnitudes and signs, or planted non-finite values, or integers.
void fill_x(kc::Case& c, std::span<float> x, bool strong) {
  int64_t rows = c.shape()["rows"], cols = c.shape()["cols"];
  Rng r{c.seed()};
  const auto& f = c.fill();
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      x[i * cols + j] = float((r.next() & 1 ? 1 : -1) * std::ldexp(1 + r.uniform(), int(r.next() % 9) - 4));
  if (f.kind == kc::FillKind::nonfinite) {
    int64_t row = rows / 2, col = f.pos >= 0 ? f.pos : cols / 2;
    float inf = std::numeric_limits<float>::infinity();
    float* p = &x[row * cols];
    if (f.plant == 0) p[col] = std::numeric_limits<float>::quiet_NaN();
    if (f.plant == 1) p[col] = inf;
    if (f.plant == 2) p[col] = -inf;
    if (f.plant == 3) p[col] = inf, p[(col + 1) % cols] = -inf;
  }
  if (f.kind == kc::FillKind::sums) {
    for (int64_t i = 0; i < rows; ++i) {
      float* p = &x[i * cols];
      int64_t half = cols / 2;
      // Strong: each of the first half ~ 2^21 / cols, so partial sums reach ~2^20; the second
      // half mirrors the first in reverse (so 32-lane orders do not pair a value with its mirror).
      double unit = strong ? std::max(1.0, std::floor(std::ldexp(1, 21) / double(cols))) : 1;
      for (int64_t j = 0; j < half; ++j) p[j] = float(unit + double(r.next() % 64));
      for (int64_t j = 0; j < half; ++j) p[cols - 1 - j] = -p[j];
      if (cols % 2) p[half] = 3;
      p[0] += 1;  // the result is small but not zero
    }
  }
}

}  // namespace

void scale_kernel(const kc::Buffers& b) {
  const float* x = b.in<float>("x");
  float* y = b.out<float>("y");
  for (size_t i = 0; i < b.count("x"); ++i) y[i] = 2 * x[i];
}

float lanes_sum(const float* x, int64_t n) {
  float lane[8] = {};
  for (int64_t j = 0; j < n; ++j) lane[j % 8] += x[j];
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

void rowsum_kernel(const kc::Buffers& b) {
  int64_t rows = b.shape()["rows"], cols = b.shape()["cols"];
  for (int64_t i = 0; i < rows; ++i) b.out<float>("y")[i] = lanes_sum(b.in<float>("x") + i * cols, cols);
}

kc::Entry scale() {
  kc::Entry e;
  e.rig.plants = plants;
  e.rig.prepare = [](kc::Case& c) {
    size_t n = size_t(c.shape()["rows"] * c.shape()["cols"]);
    fill_x(c, c.in<float>("x", n), true);
    c.out<float>("y", n);
  };
  e.rig.reference = [](const kc::Case& c) {
    kc::Expected e{"y"};
    for (float v : c.get<float>("x")) e.want.push_back(2.0 * v), e.mag.push_back(0);
    return std::vector<kc::Expected>{e};
  };
  return e;
}

kc::Entry rowsum(bool strong) {
  kc::Entry e;
  e.rig.plants = plants;
  e.rig.prepare = [strong](kc::Case& c) {
    size_t rows = size_t(c.shape()["rows"]), cols = size_t(c.shape()["cols"]);
    fill_x(c, c.in<float>("x", rows * cols), strong);
    c.out<float>("y", rows);
  };
  e.rig.reference = [](const kc::Case& c) {
    int64_t rows = c.shape()["rows"], cols = c.shape()["cols"];
    auto x = c.get<float>("x");
    kc::Expected e{"y"};
    for (int64_t i = 0; i < rows; ++i) {
      double s = 0, m = 0;
      for (int64_t j = 0; j < cols; ++j) s += x[i * cols + j], m += std::fabs(double(x[i * cols + j]));
      e.want.push_back(s);
      e.mag.push_back(m);
    }
    return std::vector<kc::Expected>{e};
  };
  e.rig.simulate = [](const kc::Case& c, kc::SumFormat f, kc::SumOrder o) {
    int64_t rows = c.shape()["rows"], cols = c.shape()["cols"];
    auto x = c.get<float>("x");
    std::vector<double> t(static_cast<size_t>(cols)), y;
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) t[j] = x[i * cols + j];
      y.push_back(kc::replay_sum(t.data(), t.size(), f, o));
    }
    return std::vector<std::vector<double>>{y};
  };
  return e;
}

static std::vector<ToyLaunch>& launch_log() {
  static std::vector<ToyLaunch> v;
  return v;
}
void launched(std::string fn, int threads, std::string stream) {
  launch_log().push_back({std::move(fn), threads, std::move(stream)});
}
std::vector<ToyLaunch> take_launched() { return std::exchange(launch_log(), {}); }

static std::function<void()>& wait_hook() {
  static std::function<void()> f;
  return f;
}
void wait_ahead() {
  if (wait_hook()) wait_hook()();
}
void on_wait_ahead(std::function<void()> hook) { wait_hook() = std::move(hook); }

}  // namespace toy
