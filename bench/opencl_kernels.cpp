// The OpenCL entries' kernels on this machine's OpenCL device (PoCL's CPU device here): each
// entry's own launch hook at a large shape, timed from launch to the end of its wait (after a first
// launch that builds the program); the counter is
// the bytes the kernel must move (inputs read once, outputs written once) a second. Inputs are
// whatever the buffers hold: these kernels' speed does not depend on values.
#include <benchmark/benchmark.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "kc/backend.hpp"
#include "kc/registry.hpp"

namespace {

kc::Backend& opencl() {
  static auto all = kc::make_backends();
  for (auto& b : all)
    if (b->name() == "opencl") return *b;
  throw kc::Error("no opencl backend in this build");
}

struct Buf {
  const char* name;
  kc::DType type;
  size_t count;
  kc::Role role;
};

void run(benchmark::State& state, const char* entry, const kc::Shape& shape, const std::vector<Buf>& bufs) {
  kc::Backend& b = opencl();
  if (!b.absent().empty()) {
    state.SkipWithError(("opencl is absent: " + b.absent()).c_str());
    return;
  }
  const kc::Registration* reg = nullptr;
  for (const auto& r : kc::registry())
    if (r.backend == "opencl" && r.name == entry) reg = &r;
  if (!reg) {
    state.SkipWithError((std::string("no OpenCL entry ") + entry).c_str());
    return;
  }
  kc::Entry e = kc::build(*reg);
  std::vector<kc::Buffers::Slot> slots;
  double bytes = 0;
  for (const Buf& f : bufs) {
    const size_t n = f.count * kc::dtype_size(f.type);
    void* p = b.alloc(n);
    std::vector<std::byte> zero(n);
    b.upload(p, zero.data(), n);
    slots.push_back({f.name, f.type, f.count, f.role, p});
    bytes += double(n);
  }
  kc::Buffers view(shape, b.stream(), slots);
  e.rig.run(view);  // the first launch builds the program: not timed
  if (b.sync(600).kind != kc::SyncResult::ok) state.SkipWithError("the first launch did not end well");
  for (auto _ : state) {
    e.rig.run(view);
    if (b.sync(600).kind != kc::SyncResult::ok) {
      state.SkipWithError("the launch did not end well");
      break;
    }
  }
  state.SetBytesProcessed(int64_t(state.iterations() * bytes));
  for (auto& s : slots) b.free(s.ptr);
}

using kc::DType;
using kc::Role;
constexpr size_t R = 512, C = 16384;  // 16 MiB of bf16 a row buffer

void BM_sum(benchmark::State& s) {
  run(s, "rows/sum/f32", {{"rows", R}, {"cols", C}}, {{"x", DType::bf16, R * C, Role::in}, {"y", DType::f32, R, Role::out}});
}
void BM_dot(benchmark::State& s) {
  run(s, "rows/dot/f32", {{"rows", R}, {"cols", C}},
      {{"x", DType::bf16, R * C, Role::in}, {"w", DType::bf16, C, Role::in}, {"y", DType::f32, R, Role::out}});
}
void BM_max(benchmark::State& s) {
  run(s, "rows/max/bf16", {{"rows", R}, {"cols", C}}, {{"x", DType::bf16, R * C, Role::in}, {"y", DType::bf16, R, Role::out}});
}
void BM_rms_norm(benchmark::State& s) {
  run(s, "rows/rms_norm/bf16_out", {{"rows", R}, {"cols", C}},
      {{"x", DType::bf16, R * C, Role::in}, {"w", DType::bf16, C, Role::in}, {"y", DType::bf16, R * C, Role::out}});
}
void BM_softmax(benchmark::State& s) {
  run(s, "rows/softmax/bf16_long", {{"rows", R}, {"cols", C}},
      {{"x", DType::bf16, R * C, Role::in}, {"y", DType::bf16, R * C, Role::out}});
}
void BM_topk64(benchmark::State& s) {
  run(s, "rows/topk/bf16_k64", {{"rows", R}, {"cols", C}},
      {{"x", DType::bf16, R * C, Role::in}, {"ids", DType::i32, R * 64, Role::out}, {"vals", DType::bf16, R * 64, Role::out}});
}
void BM_gemv(benchmark::State& s) {
  constexpr size_t M = 8, N = 4096, K = 4096;
  run(s, "dense/gemv/f32", {{"m", M}, {"n", N}, {"k", K}},
      {{"x", DType::bf16, M * K, Role::in}, {"w", DType::bf16, N * K, Role::in}, {"y", DType::f32, M * N, Role::out}});
}
BENCHMARK(BM_sum)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_dot)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_max)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_rms_norm)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_softmax)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_topk64)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_gemv)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
