// The reference and comparison path on the CPU, in outputs checked per second: for a rows family
// entry at a shape, the float64 reference (rig.reference) on a prepared case, then gate 3's own
// comparison (kc::detail::compare, the code the shapes gate runs) of outputs against it. The outputs
// are the reference rounded to the output type (a perfect kernel), so every output is checked and
// none fails. No kernel runs: this is the harness's cost per output, not a kernel's.
//
//   bench_reference_compare --benchmark_filter=rms_norm
#include <benchmark/benchmark.h>

#include <functional>
#include <string>
#include <vector>

#include "../core/src/gates/gates.hpp"
#include "kc/families/rows.hpp"
#include "kc/numeric.hpp"

namespace {

struct Made {
  kc::Entry entry;
  std::string name;
};

kc::Entry envelope(kc::Entry&& e, bool sums, int ops = 0) {
  e = std::move(e).served({{"rows", {1, 64}}, {"cols", {256, 4096}}}).tile("cols", 256, 1, 1);
  if (sums) e = std::move(e).sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["cols"]) / 16 + 8; }, ops);
  return e;
}

std::vector<Made> entries() {
  using kc::DType;
  std::vector<Made> m;
  m.push_back({envelope(kc::rows::sum(DType::f32, DType::f32), true), "sum/f32"});
  m.push_back({envelope(kc::rows::dot(DType::bf16, DType::f32), true), "dot/bf16_in"});
  m.push_back({envelope(kc::rows::rms_norm(DType::f32, DType::f32), true, 6), "rms_norm/f32_out"});
  m.push_back({envelope(kc::rows::rms_norm(DType::bf16, DType::bf16), true, 6), "rms_norm/bf16_out"});
  m.push_back({envelope(kc::rows::softmax(DType::bf16, DType::bf16), true, 1), "softmax/bf16_out"});
  m.push_back({envelope(kc::rows::geglu(), false), "geglu/bf16 (intervals)"});
  m.push_back({envelope(kc::rows::add_rms_norm(kc::rows::Residual::rounded), true, 6), "add_rms_norm/rounded (intervals)"});
  return m;
}

// A case with the reference written into its outputs.
kc::Case perfect_case(const kc::Entry& e, const kc::Shape& s) {
  kc::Case c(s, kc::Fill{}, 0x6b632026);
  c.spec = &e.spec;
  e.rig.prepare(c);
  for (const auto& ex : e.rig.reference(c)) {
    kc::HostBuffer& b = const_cast<kc::HostBuffer&>(c.buffer(ex.name));
    for (size_t i = 0; i < ex.want.size(); ++i) kc::store_from_double(b.bytes.data(), b.decl.type, i, ex.want[i]);
  }
  return c;
}

size_t outputs(const kc::Case& c) {
  size_t n = 0;
  for (const auto& b : c.buffers())
    if (b.decl.role != kc::Role::in) n += b.decl.count;
  return n;
}

void reference_and_compare(benchmark::State& st, const kc::Entry* e, kc::Shape s) {
  kc::Case c = perfect_case(*e, s);
  for (auto _ : st) {
    auto exp = e->rig.reference(c);
    auto o = kc::detail::compare(e->spec, c, exp, true);
    if (o.failed) {
      st.SkipWithError(("a perfect output failed: " + o.detail).c_str());
      break;
    }
    benchmark::DoNotOptimize(o);
  }
  st.SetItemsProcessed(int64_t(st.iterations()) * int64_t(outputs(c)));
  st.counters["outputs"] = double(outputs(c));
}

void reference_only(benchmark::State& st, const kc::Entry* e, kc::Shape s) {
  kc::Case c = perfect_case(*e, s);
  for (auto _ : st) benchmark::DoNotOptimize(e->rig.reference(c));
  st.SetItemsProcessed(int64_t(st.iterations()) * int64_t(outputs(c)));
}

const std::vector<Made>& all() {
  static const std::vector<Made> m = entries();
  return m;
}

// Named like google/benchmark's shape arguments: rows/rms_norm/f32_out/rows:64/cols:4096.
const int registered = [] {
  for (const auto& m : all())
    for (int64_t rows : {1, 64})
      for (int64_t cols : {256, 4096}) {
        kc::Shape s{{"rows", rows}, {"cols", cols}};
        std::string n = "rows/" + m.name + "/" + s.str();
        benchmark::RegisterBenchmark(("reference+compare/" + n).c_str(), reference_and_compare, &m.entry, s)
            ->Unit(benchmark::kMicrosecond);
        benchmark::RegisterBenchmark(("reference/" + n).c_str(), reference_only, &m.entry, s)
            ->Unit(benchmark::kMicrosecond);
      }
  return 0;
}();

}  // namespace

BENCHMARK_MAIN();
