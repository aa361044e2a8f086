// The dense and affine float64 references (families/dense/src/ref_gemm.*) and what surrounds them in
// a gate: the fill (prepare), the reference, and gate 3's comparison, at prompt and decode shapes.
// GFLOP/s counts 2 M N K (the value GEMM); the reference does as much again for the magnitude.
// No kernel runs: this is the harness's cost per case, which bounds how large an envelope can be.
//
//   bench_reference_gemm --benchmark_filter=reference/dense
#include <benchmark/benchmark.h>

#include <ctime>
#include <string>

#include "../families/dense/src/ref_gemm.hpp"
#include "../core/src/gates/gates.hpp"
#include "kc/families/affine.hpp"
#include "kc/families/dense.hpp"
#include "kc/numeric.hpp"

namespace {

struct Made {
  kc::Entry entry;
  std::string name;
};

// Any envelope holding the benchmarked shapes: compare() needs the spec for its bound.
kc::Entry envelope(kc::Entry&& e) {
  return std::move(e)
      .served({{"m", {1, 8192}}, {"n", {64, 16384}}, {"k", {64, 16384}}})
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["k"]); });
}

const Made& dense() {
  static const Made m{envelope(kc::dense::projection(kc::DType::f32)), "dense"};
  return m;
}
const Made& affine() {
  static const Made m{envelope(kc::affine::projection(4, 64, kc::DType::f32)), "affine_q4_g64"};
  return m;
}

kc::Case prepared(const kc::Entry& e, const kc::Shape& s, kc::FillKind f = kc::FillKind::random) {
  kc::Case c(s, kc::Fill{f, f == kc::FillKind::nonfinite ? 3 : 0}, 0x6b632026);
  c.spec = &e.spec;
  e.rig.prepare(c);
  return c;
}

void label(benchmark::State& st) { st.SetLabel(std::string("kernels: ") + kc::fam::ref_isa_name()); }

double flops(const kc::Shape& s) { return 2.0 * double(s["m"]) * double(s["n"]) * double(s["k"]); }

// CPU seconds of every thread of this process: on a shared host, flops per CPU second (per busy
// core) says what the code does where the wall clock only says how busy the neighbours were.
double process_cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

void reference(benchmark::State& st, const Made* m, kc::Shape s, kc::fam::RefIsa isa) {
  if (!kc::fam::force_ref_isa(isa)) {
    st.SkipWithError("this CPU cannot run that kernel set");
    return;
  }
  kc::Case c = prepared(m->entry, s);
  double cpu = 0;
  for (auto _ : st) {
    double t0 = process_cpu_s();
    benchmark::DoNotOptimize(m->entry.rig.reference(c));
    cpu += process_cpu_s() - t0;
  }
  const double f = flops(s) * double(st.iterations()) * 1e-9;
  st.counters["GFLOP/s"] = benchmark::Counter(f, benchmark::Counter::kIsRate);
  st.counters["GFLOP/core-s"] = f / cpu;
  label(st);
  kc::fam::force_ref_isa(kc::fam::RefIsa::best);
}

// Gates 1 and 4's references: their fills repeat a few rows, which the reference checks and
// evaluates once.
void reference_fill(benchmark::State& st, const Made* m, kc::Shape s, kc::FillKind f) {
  kc::Case c = prepared(m->entry, s, f);
  for (auto _ : st) benchmark::DoNotOptimize(m->entry.rig.reference(c));
  label(st);
}

void prepare(benchmark::State& st, const Made* m, kc::Shape s, kc::FillKind f) {
  for (auto _ : st) benchmark::DoNotOptimize(prepared(m->entry, s, f));
  label(st);
}

// Gate 3's comparison of outputs (the reference rounded to fp32) with the reference: all pass.
void compare(benchmark::State& st, const Made* m, kc::Shape s) {
  kc::Case c = prepared(m->entry, s);
  auto exp = m->entry.rig.reference(c);
  kc::HostBuffer& b = const_cast<kc::HostBuffer&>(c.buffer("y"));
  for (size_t i = 0; i < exp[0].want.size(); ++i) kc::store_from_double(b.bytes.data(), b.decl.type, i, exp[0].want[i]);
  for (auto _ : st) {
    auto o = kc::detail::compare(m->entry.spec, c, exp, true);
    if (o.failed) {
      st.SkipWithError(("a perfect output failed: " + o.detail).c_str());
      break;
    }
  }
  st.counters["outputs/s"] = benchmark::Counter(double(exp[0].want.size()) * double(st.iterations()),
                                                benchmark::Counter::kIsRate);
}

kc::Shape mnk(int64_t m, int64_t n, int64_t k) { return kc::Shape{{"m", m}, {"n", n}, {"k", k}}; }

const int registered = [] {
  for (const Made* m : {&dense(), &affine()}) {
    for (auto s : {mnk(32, 4096, 4096), mnk(512, 4096, 4096), mnk(8192, 4096, 4096), mnk(32, 16384, 16384)})
      benchmark::RegisterBenchmark(("reference/" + m->name + "/" + s.str()).c_str(), reference, m, s,
                                   kc::fam::RefIsa::best)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime()
          ->MinTime(1);
    // The other kernel sets, for hosts without AVX-512 (a set this CPU lacks is reported, not run).
    for (auto [isa, n] : {std::pair{kc::fam::RefIsa::avx2, "avx2"}, {kc::fam::RefIsa::portable, "portable"}})
      benchmark::RegisterBenchmark(("reference_" + std::string(n) + "/" + m->name + "/" + mnk(512, 4096, 4096).str()).c_str(),
                                   reference, m, mnk(512, 4096, 4096), isa)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime()
          ->Iterations(1);
    for (auto s : {mnk(8192, 16384, 16384)}) {
      for (auto [f, n] : {std::pair{kc::FillKind::sums, "sums"}, {kc::FillKind::nonfinite, "nonfinite"}})
        benchmark::RegisterBenchmark(("reference/" + m->name + "/" + n + "/" + s.str()).c_str(), reference_fill, m, s, f)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime()
            ->Iterations(2);
      benchmark::RegisterBenchmark(("prepare/" + m->name + "/random/" + s.str()).c_str(), prepare, m, s,
                                   kc::FillKind::random)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime()
          ->Iterations(2);
      benchmark::RegisterBenchmark(("prepare/" + m->name + "/sums/" + s.str()).c_str(), prepare, m, s,
                                   kc::FillKind::sums)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime()
          ->Iterations(2);
    }
    for (auto s : {mnk(8192, 4096, 4096)})
      benchmark::RegisterBenchmark(("compare/" + m->name + "/" + s.str()).c_str(), compare, m, s)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime()
          ->Iterations(3);
  }
  return 0;
}();

}  // namespace

BENCHMARK_MAIN();
