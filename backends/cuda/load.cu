#include "load.hpp"

#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>

namespace {

constexpr int kSpinThreads = 768;            // 24 warps: 6 beside each of an SM's 4 schedulers
constexpr double kSpinUs = 200;              // one spinning launch's life
constexpr size_t kCopyBytes = size_t(64) << 20;

__device__ __forceinline__ uint64_t now_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

std::string err(cudaError_t e) { return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e); }

}  // namespace

// At global scope, so the launch watch's demangled name starts with kLoadSymbolPrefix.
// Four independent chains of multiply-adds a thread, so each warp can issue every cycle, until
// life_ns has passed.
__global__ void __launch_bounds__(kSpinThreads) kc_load_spin(unsigned* sink, uint64_t life_ns) {
  const uint64_t t0 = now_ns();
  float a = threadIdx.x, b = a + 1, c = a + 2, d = a + 3;
  const float m = 0.999f, k = 0.5f;
  while (now_ns() - t0 < life_ns)
#pragma unroll 1
    for (int i = 0; i < 256; ++i) {
      a = fmaf(a, m, k), b = fmaf(b, m, k), c = fmaf(c, m, k), d = fmaf(d, m, k);
    }
  if (a + b + c + d == 0.f) sink[blockIdx.x] = 1;  // never true: keeps the chains
}

namespace kc::cuda {

DeviceLoad::~DeviceLoad() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

std::string DeviceLoad::what() const {
  return "a spinning block of " + std::to_string(kSpinThreads) + " threads on each of " + std::to_string(sms_) +
         " SMs and a 64 MiB device copy, each on a stream of its own";
}

std::string DeviceLoad::start(int sms) {
  if (thread_.joinable()) return "";
  sms_ = sms;
  cudaError_t e = cudaSuccess;
  if (!spin_stream_) {
    cudaStream_t s1 = nullptr, s2 = nullptr;
    if ((e = cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking)) != cudaSuccess ||
        (e = cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking)) != cudaSuccess)
      return "cudaStreamCreateWithFlags: " + err(e);
    spin_stream_ = s1, copy_stream_ = s2;
  }
  // Allocated once and kept: cudaFree waits for the whole device, the harness's stream included.
  if (!from_ && ((e = cudaMalloc(&from_, kCopyBytes)) != cudaSuccess || (e = cudaMalloc(&to_, kCopyBytes)) != cudaSuccess ||
                 (e = cudaMalloc(reinterpret_cast<void**>(&sink_), sizeof(unsigned) * 4096)) != cudaSuccess)) {
    cudaGetLastError();
    return "cudaMalloc of the load's buffers: " + err(e);
  }
  stop_ = false;
  error_.clear();
  thread_ = std::thread([this] { loop(); });
  return "";
}

// Keeps one spinning launch and one copy queued behind the running ones until told to stop.
void DeviceLoad::loop() {
  auto spin = static_cast<cudaStream_t>(spin_stream_), copy = static_cast<cudaStream_t>(copy_stream_);
  const int blocks = sms_ > 0 && sms_ <= 4096 ? sms_ : 132;
  cudaEvent_t spun[2] = {}, copied[2] = {};
  for (int i = 0; i < 2; ++i) {
    cudaEventCreateWithFlags(&spun[i], cudaEventDisableTiming);
    cudaEventCreateWithFlags(&copied[i], cudaEventDisableTiming);
  }
  for (unsigned n = 0; !stop_; ++n) {
    const int i = n & 1;
    // Each event was recorded two rounds ago: once it is done, one launch is left in the queue.
    while (!stop_ && (cudaEventQuery(spun[i]) == cudaErrorNotReady || cudaEventQuery(copied[i]) == cudaErrorNotReady))
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    if (stop_) break;
    kc_load_spin<<<blocks, kSpinThreads, 0, spin>>>(sink_, uint64_t(kSpinUs * 1000));
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaEventRecord(spun[i], spin);
    if (e == cudaSuccess) e = cudaMemcpyAsync(to_, from_, kCopyBytes, cudaMemcpyDeviceToDevice, copy);
    if (e == cudaSuccess) e = cudaEventRecord(copied[i], copy);
    if (e != cudaSuccess) {
      error_ = "the load's launch or copy: " + err(e);
      break;
    }
  }
  // The last spinning launches end within kSpinUs, the last copy within a millisecond or so; polled,
  // not waited for, since a kernel of the entry's that never returns may keep them from starting.
  const auto t0 = std::chrono::steady_clock::now();
  for (cudaStream_t s : {spin, copy}) {
    cudaError_t e;
    while ((e = cudaStreamQuery(s)) == cudaErrorNotReady && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(2))
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    if (e != cudaSuccess && error_.empty())
      error_ = e == cudaErrorNotReady ? "the load's last launches had not ended 2 s after it was stopped"
                                      : "waiting for the load: " + err(e);
  }
  for (int i = 0; i < 2; ++i) cudaEventDestroy(spun[i]), cudaEventDestroy(copied[i]);
}

std::string DeviceLoad::stop() {
  if (!thread_.joinable()) return "";
  stop_ = true;
  thread_.join();
  return error_;
}

void DeviceLoad::forget() {
  stop();
  spin_stream_ = copy_stream_ = nullptr;
  from_ = to_ = nullptr;
  sink_ = nullptr;
}

}  // namespace kc::cuda
