// Gate 2's planted controls for the rows family on the CPU: red on gate 2 (bytes_differ,
// input_changed), green on the others.
#include <atomic>
#include <thread>
#include <vector>

#include "../../kernels/rows/cpu_tiles.hpp"
#include "kc/families/rows.hpp"
#include "kc/registry.hpp"
#include "../../kernels/rows/sum/cpu_sum.hpp"

namespace {
using namespace kc::rows_cpu;

kc::Entry envelope(kc::Entry&& e) {
  return std::move(e)
      .served({{"rows", {kRows[0], kRows[1], kRows[2]}}, {"cols", {kCols[0], kCols[1], kCols[2]}}})
      .tile("cols", kTile, 1, 1);
}

// Gate 2: a row sum by atomic adds. Four threads each sum a quarter of every row; their partials
// meet in y through atomic adds taken in turns that a per-call counter rotates, so each run adds
// them in another order and (on values of spread magnitude) rounds differently.
std::atomic<uint64_t> g_calls{0};
void atomic_sum(const kc::Buffers& b) {
  const int64_t rows = b.shape()["rows"], cols = b.shape()["cols"];
  const float* x = b.in<float>("x");
  float* y = b.out<float>("y");
  constexpr int kThreads = 4;
  const uint64_t rot = g_calls.fetch_add(1);
  for (int64_t r = 0; r < rows; ++r) y[r] = 0;
  std::atomic<int> turn{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t)
    ts.emplace_back([&, t] {
      int64_t c0 = cols * t / kThreads, c1 = cols * (t + 1) / kThreads;
      std::vector<float> part(size_t(rows), 0.0f);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = c0; c < c1; ++c) part[size_t(r)] += x[r * cols + c];
      int my_turn = int((uint64_t(t) + rot) % kThreads);
      while (turn.load() != my_turn) std::this_thread::yield();
      for (int64_t r = 0; r < rows; ++r) std::atomic_ref<float>(y[r]).fetch_add(part[size_t(r)]);
      turn.fetch_add(1);
    });
  for (auto& t : ts) t.join();
}

// Gate 2: a row sum right in every output, which then writes into its input (x[r, 0] = its sum).
void in_place_sum(const kc::Buffers& b) {
  sum_f32(b);
  const int64_t rows = b.shape()["rows"], cols = b.shape()["cols"];
  float* x = const_cast<float*>(b.in<float>("x"));
  const float* y = b.out<float>("y");
  for (int64_t r = 0; r < rows; ++r) x[r * cols] = y[r];
}

}  // namespace

KC_CONTROL("rows/sum/atomic", cpu) {
  return envelope(kc::rows::sum(kc::DType::f32, kc::DType::f32))
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["cols"]) / 4 + 4; })
      .control(kc::Gate::repeat, kc::Why::bytes_differ)
      .launch(atomic_sum);
}

KC_CONTROL("rows/sum/writes_input", cpu) {
  return sum_f32_entry().control(kc::Gate::repeat, kc::Why::input_changed).launch(in_place_sum);
}

