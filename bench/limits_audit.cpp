// Gate 5 (CUDA): audit time per image for the whole served fatbin — this executable links kc_entries,
// so its .nv_fatbin holds every served kernel and control for every SM this build compiles.
#include <benchmark/benchmark.h>

#include "kc/limits/cuda_audit.hpp"
#include "kc/limits/fatbin.hpp"

namespace {

// Reading alone: the executable, its fatbins, every (decompressed) cubin.
void BM_ReadImages(benchmark::State& state) {
  size_t images = 0;
  for (auto _ : state) {
    auto im = kc::limits::read_images("/proc/self/exe");
    images = im.size();
    benchmark::DoNotOptimize(im.data());
  }
  state.counters["images"] = static_cast<double>(images);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * images));
}
BENCHMARK(BM_ReadImages)->Unit(benchmark::kMillisecond);

// The whole audit as the kernel-contract CLI runs it: read, match every declared launch on every
// SM, check the limits, compare the records. items/s is images audited a second.
void BM_AuditPerImage(benchmark::State& state) {
  kc::limits::CudaAuditConfig cfg;  // defaults: this executable, the source tree's launches and records
  size_t images = 0, lines = 0;
  for (auto _ : state) {
    auto a = kc::limits::audit_cuda(cfg);
    images = a.images;
    lines = a.result.lines.size();
    benchmark::DoNotOptimize(a.result.lines.data());
  }
  state.counters["images"] = static_cast<double>(images);
  state.counters["launch_x_sm"] = static_cast<double>(lines);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * images));
}
BENCHMARK(BM_AuditPerImage)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
