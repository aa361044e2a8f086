// The CUDA backend: raw device memory (the harness lays out guards and poison itself), one
// non-blocking stream, waits that poll with a time limit, and recovery by device reset after a
// fault or a hang. Every CUDA call is checked and its error reported by name.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <cstdio>
#include <string>
#include <thread>
#include <unordered_set>

#include "backends/cuda/fence.hpp"
#include "backends/cuda/launch_watch.hpp"
#include "backends/cuda/load.hpp"
#include "kc/cuda.hpp"
#include "kc/cuda_module.hpp"
#include "backends/cuda/poison.hpp"
#include "backends/cuda/ref_f64.hpp"
#include "backends/cuda/upstream.hpp"
#include "backends/factories.hpp"
#include "kc/parallel.hpp"
#include "kc/spec.hpp"

namespace kc {
namespace {

std::string cuda_error(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
}

class CudaBackend final : public Backend {
 public:
  ~CudaBackend() override {
    if (!stream_ || hung_ || !lost_.empty()) return;
    for (Stage& s : stage_) {  // best effort at exit
      if (s.host) cudaFreeHost(s.host);
      if (s.done) cudaEventDestroy(s.done);
    }
    cudaStreamDestroy(stream_);
  }
  std::string name() const override { return "cuda"; }

  std::string absent() const override {
    const_cast<CudaBackend*>(this)->probe();
    return absent_;
  }

  std::string device() const override {
    const_cast<CudaBackend*>(this)->probe();
    return device_;
  }

  void* alloc(size_t bytes) override {
    ready("alloc");
    void* p = nullptr;
    cudaError_t e = cudaMalloc(&p, bytes ? bytes : 1);
    if (e != cudaSuccess) {
      cudaGetLastError();  // an allocation failure is not sticky: clear it so the next launch is clean
      throw Error("cuda: cudaMalloc(" + std::to_string(bytes) + " bytes) failed: " + cuda_error(e));
    }
    live_.insert(p);
    return p;
  }

  // Pointers from before a device reset are gone with the old context: they are not in live_ and
  // are ignored. A failure here (a fault still pending before recover) is kept for the next sync.
  void free(void* p) override {
    if (!p || !live_.erase(p)) return;
    if (hung_ || !lost_.empty()) return;  // cudaFree would wait on a kernel that never returns
    cudaError_t e = cudaFree(p);
    if (e != cudaSuccess && pending_.empty()) pending_ = "cudaFree: " + cuda_error(e);
  }

  // An input ending at an unmapped granule (fence.hpp): a read past it is cudaErrorIllegalAddress.
  void* alloc_fenced(size_t size) override {
    ready("alloc");
    return fence_.ready(dev_) ? fence_.alloc(size) : nullptr;
  }
  void free_fenced(void* base) override {
    if (hung_ || !lost_.empty()) return;  // as free(): the driver would wait on the kernel
    fence_.free(base);
  }

  void upload(void* dst, const void* src, size_t n) override { copy(dst, src, n, cudaMemcpyHostToDevice, "upload"); }
  void download(void* dst, const void* src, size_t n) override { copy(dst, src, n, cudaMemcpyDeviceToHost, "download"); }
  // Poison on the device (poison.hpp), finished before the launch it stands before.
  bool fill_pattern(void* dst, size_t n, uint64_t run, uint64_t stream_id) override {
    ready("poison");
    if (const std::string e = cuda::launch_pattern(stream_, dst, n, run, stream_id); !e.empty())
      throw Error("cuda: the poison of " + std::to_string(n) + " bytes: " + e);
    SyncResult r = wait(120);
    if (r.kind != SyncResult::ok) throw Error("cuda: the poison of " + std::to_string(n) + " bytes: " + r.error);
    return true;
  }

  void* stream() override {
    ready("stream");
    return stream_;
  }

  SyncResult sync(double timeout_s) override {
    ready("sync");
    // A launch that could not start (bad configuration, no image for this device) shows here.
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return {SyncResult::fault, cuda_error(e) + " (at launch)"};
    if (!pending_.empty()) {
      std::string p = std::move(pending_);
      pending_.clear();
      return {SyncResult::fault, p};
    }
    return wait(timeout_s);
  }

  std::string recover() override {
    if (!absent_.empty()) return absent_;
    if (!lost_.empty()) return lost_;
    load_.stop();  // gate 2's load, where a loaded run faulted: nothing of it outlives the fault
    if (hung_) {
      // cudaDeviceReset waits for the kernel that never returns: nothing in this process can end it.
      lost_ = "the device is lost for the rest of this process: a kernel still runs (" + hung_what_ +
              "), and CUDA ends a running kernel only with its process";
      return lost_;
    }
    // The reset destroys the context: every allocation, the stream and any kernel still running.
    cudaError_t e = cudaDeviceReset();
    load_.forget();  // its streams and buffers went with the context
    ++generation_;
    live_.clear();
    fence_.forget();
    stream_ = nullptr;
    pending_.clear();
    if (e != cudaSuccess) return "cudaDeviceReset: " + cuda_error(e);
    // A new context, proven by a copy through the new stream and a loaded kernel's attributes. The
    // driver may still be tearing the faulted context down (an exclusive-process device then
    // answers cudaErrorDevicesUnavailable for a moment): retry for up to 5 s before giving up.
    std::string why;
    for (int attempt = 0; attempt < 50; ++attempt) {
      if (attempt) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      why = fresh_context();
      if (why.empty()) return "";
      cudaGetLastError();
    }
    // Some drivers refuse any new context in a process whose context faulted (CUDA's documentation
    // of sticky errors: the process must end). Say so once; every later call fails fast with it.
    lost_ = "the device is lost for the rest of this process: after the fault, " + why;
    return lost_;
  }

  // Set by recover() when the driver refuses a new context or a kernel still runs; a hang seen by
  // a copy (no recover() yet) is already a lost device: nothing in this process ends that kernel.
  std::string lost() const override {
    if (!lost_.empty()) return lost_;
    if (hung_) return "the device is lost for the rest of this process: a kernel still runs (" + hung_what_ + ")";
    return {};
  }

  std::vector<std::string> check_entry(const Spec& spec) override;

  // Gate 5 at run time: the launches each run of an entry starts (launch_watch.hpp).
  bool watches() const override { return true; }
  std::string watch() override {
    probe();
    return !absent_.empty() ? absent_ : !lost().empty() ? lost() : cuda::watch_launches(stream_);
  }
  std::vector<SeenLaunch> seen() override {
    std::vector<SeenLaunch> v = cuda::seen_launches();
    std::erase_if(v, [](const SeenLaunch& l) {
      return l.symbol.starts_with(cuda::kUpstreamSymbol) || l.symbol.starts_with(cuda::kPoisonSymbol) ||
             l.symbol.starts_with(cuda::kLoadSymbolPrefix);
    });
    return v;
  }

  // Gate 2's chained run (upstream.hpp): programmatic dependent launch is sm_90's and later's.
  std::string chains() override {
    probe();
    if (!absent_.empty()) return absent_;
    if (prop_.major < 9)
      return "sm_" + std::to_string(prop_.major) + std::to_string(prop_.minor) +
             " has no programmatic dependent launch (sm_90 and later have it)";
    return {};
  }
  void launch_upstream(const std::vector<LateWrite>& writes, double delay_us) override {
    const std::string e = cuda::launch_upstream(stream(), writes, delay_us);
    if (!e.empty()) throw Error("the upstream kernel of gate 2's chained run: " + e);
  }

  // Gate 2's runs under load (load.hpp).
  std::string no_load() override {
    probe();
    return !absent_.empty() ? absent_ : lost();
  }
  std::string load_start() override {
    ready("load");
    if (const std::string e = load_.start(prop_.multiProcessorCount); !e.empty()) throw Error("cuda: the load: " + e);
    return load_.what();
  }
  std::string load_stop() override { return load_.stop(); }

  // The dense and affine float64 references on this device (ref_f64.cu), while it is usable.
  std::string launch_rows() const override { return cuda::launch_rows(); }
  const RefDevice* references() override {
    if (!absent().empty()) return nullptr;
    if (refs_.name.empty()) {
      refs_.name = "CUDA device " + std::to_string(dev_) + " (" + prop_.name + ")";
      auto usable = [this]() -> std::string {
        return hung_ ? "a launch never returned" : !stream_ ? "a device reset failed" : lost_;
      };
      refs_.dense = [usable](const bf16* x, const bf16* w, int64_t M, int64_t N, int64_t K, double* y, double* mag) {
        const std::string why = usable();
        return why.empty() ? cuda_ref::dense(x, w, M, N, K, y, mag) : why;
      };
      refs_.affine = [usable](const bf16* x, const RefAffineW& w, int64_t M, int64_t N, int64_t K, double* y,
                              double* mag) {
        const std::string why = usable();
        return why.empty() ? cuda_ref::affine(x, w, M, N, K, y, mag) : why;
      };
      refs_.dense_resident = [usable](const bf16* x, const bf16* w, int64_t M, int64_t N, int64_t K,
                                      std::unique_ptr<RefResident>& out) {
        const std::string why = usable();
        return why.empty() ? cuda_ref::dense_kept(x, w, M, N, K, out) : why;
      };
      refs_.affine_resident = [usable](const bf16* x, const RefAffineW& w, int64_t M, int64_t N, int64_t K,
                                       std::unique_ptr<RefResident>& out) {
        const std::string why = usable();
        return why.empty() ? cuda_ref::affine_kept(x, w, M, N, K, out) : why;
      };
    }
    return &refs_;
  }

 private:
  void probe() {
    if (probed_) return;
    probed_ = true;
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
      absent_ = "no CUDA device: " + cuda_error(e);
      return;
    }
    if (n == 0) {
      absent_ = "no CUDA device: cudaGetDeviceCount found 0 devices";
      return;
    }
    if ((e = cudaSetDevice(dev_)) != cudaSuccess || (e = cudaGetDeviceProperties(&prop_, dev_)) != cudaSuccess) {
      absent_ = "CUDA device 0 unusable: " + cuda_error(e);
      return;
    }
    if ((e = cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)) != cudaSuccess) {
      stream_ = nullptr;
      absent_ = "CUDA device 0: cudaStreamCreateWithFlags: " + cuda_error(e);
      return;
    }
    int drv = 0, rt = 0;
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    char buf[256];
    int cm = 0;
    cudaDeviceGetAttribute(&cm, cudaDevAttrComputeMode, dev_);  // 0 (default) if it cannot say
    const char* mode = cm == cudaComputeModeExclusiveProcess ? ", exclusive-process"
                       : cm == cudaComputeModeProhibited     ? ", prohibited"
                                                             : "";
    std::snprintf(buf, sizeof buf, "%s (sm_%d%d, %d SMs, %.1f GiB, driver %d.%d, runtime %d.%d%s)", prop_.name,
                  prop_.major, prop_.minor, prop_.multiProcessorCount, prop_.totalGlobalMem / 1073741824.0,
                  drv / 1000, drv % 1000 / 10, rt / 1000, rt % 1000 / 10, mode);
    device_ = buf;
    device_ += fence_.ready(dev_) ? "; inputs end at unmapped memory" : "; inputs end at NaN guards (" + fence_.why() + ")";
  }

  void ready(const char* what) {
    probe();
    if (!absent_.empty()) throw Error(std::string("cuda: ") + what + ": absent: " + absent_);
    if (!lost_.empty()) throw Error(std::string("cuda: ") + what + ": " + lost_);
    if (!stream_) throw Error(std::string("cuda: ") + what + ": no stream (a device reset failed)");
  }

  // After a reset: select the device, make a stream, and prove both work. "" or what failed.
  std::string fresh_context() {
    cudaError_t e;
    if ((e = cudaSetDevice(dev_)) != cudaSuccess) return "cudaSetDevice after reset: " + cuda_error(e);
    if ((e = cudaFree(nullptr)) != cudaSuccess) return "context after reset (cudaFree(0)): " + cuda_error(e);
    if (!stream_ && (e = cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)) != cudaSuccess) {
      stream_ = nullptr;
      return "cudaStreamCreateWithFlags after reset: " + cuda_error(e);
    }
    if (!cuda::launch_fns().empty()) {
      cudaFuncAttributes a{};
      if ((e = cudaFuncGetAttributes(&a, cuda::launch_fns().front().fn)) != cudaSuccess)
        return "loading kernels after reset (cudaFuncGetAttributes): " + cuda_error(e);
    }
    void* p = nullptr;
    if ((e = cudaMalloc(&p, 256)) != cudaSuccess) return "cudaMalloc after reset: " + cuda_error(e);
    e = cudaMemsetAsync(p, 0, 256, stream_);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream_);
    cudaFree(p);
    if (e != cudaSuccess) return "a copy after reset: " + cuda_error(e);
    return "";
  }

  // Polls the stream so a kernel that never returns is cut off instead of blocking the run.
  SyncResult wait(double timeout_s) { return poll([this] { return cudaStreamQuery(stream_); }, timeout_s); }

  // Polls query() (a stream's or an event's) until it says done, failed, or timeout_s passed (a hang).
  template <class Query> SyncResult poll(Query&& query, double timeout_s) {
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    for (int spins = 0;; ++spins) {
      cudaError_t e = query();
      if (e == cudaSuccess) return {};
      if (e != cudaErrorNotReady) return {SyncResult::fault, cuda_error(e)};
      double s = std::chrono::duration<double>(clock::now() - t0).count();
      if (s > timeout_s) {
        char buf[128];
        std::snprintf(buf, sizeof buf, "launch still running after %.3g s (cudaStreamQuery: cudaErrorNotReady)", s);
        hung_ = true;
        hung_what_ = buf;
        return {SyncResult::hang, buf};
      }
      if (spins > 1000) std::this_thread::sleep_for(std::chrono::microseconds(spins > 100000 ? 1000 : 20));
    }
  }

  void copy(void* dst, const void* src, size_t n, cudaMemcpyKind kind, const char* what) {
    ready(what);
    auto fail = [&](const std::string& why) {
      throw Error(std::string("cuda: ") + what + " of " + std::to_string(n) + " bytes: " + why);
    };
    if (n >= kStagedFrom && staging()) {
      staged(static_cast<std::byte*>(dst), static_cast<const std::byte*>(src), n, kind, fail);
    } else {
      cudaError_t e = cudaMemcpyAsync(dst, src, n, kind, stream_);
      if (e != cudaSuccess) fail(cuda_error(e));
    }
    // Copies are small next to the launch limit; a kernel still running shows as a hang here.
    SyncResult r = wait(120);
    if (r.kind != SyncResult::ok) fail(r.error);
  }

  // Large copies go through two pinned buffers: a pageable copy runs at a few GB/s, a pinned one at
  // the bus's speed, and the host's copy into (or out of) one stage, on every core, overlaps the bus
  // copy of the other. At the largest shapes a case moves gigabytes each way.
  static constexpr size_t kStage = size_t(64) << 20, kStagedFrom = size_t(4) << 20;
  struct Stage {
    std::byte* host = nullptr;
    cudaEvent_t done = nullptr;  // recorded after the last bus copy that used the stage
  };

  // The stages of this context (a reset frees them with it); false where pinned memory is refused,
  // and copies then go unstaged.
  bool staging() {
    if (stage_gen_ == generation_) return stage_ok_;
    stage_gen_ = generation_;
    stage_ok_ = true;
    for (Stage& s : stage_) {
      s = Stage{};
      void* p = nullptr;
      if (cudaMallocHost(&p, kStage) != cudaSuccess || cudaEventCreateWithFlags(&s.done, cudaEventDisableTiming) != cudaSuccess) {
        cudaGetLastError();
        stage_ok_ = false;
      }
      s.host = static_cast<std::byte*>(p);
    }
    return stage_ok_;
  }

  static void host_copy(std::byte* dst, const std::byte* src, size_t n) {
    constexpr size_t kSlice = size_t(1) << 20;
    kc::parallel_for(int64_t((n + kSlice - 1) / kSlice), [&](int64_t b, int64_t e) {
      const size_t lo = size_t(b) * kSlice, hi = std::min(n, size_t(e) * kSlice);
      std::memcpy(dst + lo, src + lo, hi - lo);
    });
  }

  template <class Fail> void staged(std::byte* dst, const std::byte* src, size_t n, cudaMemcpyKind kind, Fail&& fail) {
    const size_t chunks = (n + kStage - 1) / kStage;
    auto len = [&](size_t i) { return std::min(kStage, n - i * kStage); };
    auto done = [&](Stage& s) {  // the stage's last bus copy has finished
      SyncResult r = poll([&] { return cudaEventQuery(s.done); }, 120);
      if (r.kind != SyncResult::ok) fail(r.error);
    };
    auto bus = [&](Stage& s, void* to, const void* from, size_t bytes) {
      cudaError_t e = cudaMemcpyAsync(to, from, bytes, kind, stream_);
      if (e == cudaSuccess) e = cudaEventRecord(s.done, stream_);
      if (e != cudaSuccess) fail(cuda_error(e));
    };
    if (kind == cudaMemcpyHostToDevice) {
      for (size_t i = 0; i < chunks; ++i) {
        Stage& s = stage_[i % 2];
        done(s);
        host_copy(s.host, src + i * kStage, len(i));
        bus(s, dst + i * kStage, s.host, len(i));
      }
      return;
    }
    // Device to host: chunk i + 1 is on the bus while chunk i leaves its stage.
    bus(stage_[0], stage_[0].host, src, len(0));
    for (size_t i = 0; i < chunks; ++i) {
      if (i + 1 < chunks) bus(stage_[(i + 1) % 2], stage_[(i + 1) % 2].host, src + (i + 1) * kStage, len(i + 1));
      done(stage_[i % 2]);
      host_copy(dst + i * kStage, stage_[i % 2].host, len(i));
    }
  }

  bool probed_ = false;
  std::string absent_, device_;
  int dev_ = 0;
  cudaDeviceProp prop_{};
  cudaStream_t stream_ = nullptr;
  uint64_t generation_ = 0;  // device resets so far
  std::unordered_set<void*> live_;  // allocations of the current generation
  cuda::Fence fence_;               // inputs' fenced mappings
  std::string pending_;
  bool hung_ = false;        // a launch never returned: a reset would wait for it forever
  std::string hung_what_;
  std::string lost_;         // non-empty: the device cannot be used again in this process, and why
  Stage stage_[2];
  RefDevice refs_;
  cuda::DeviceLoad load_;
  uint64_t stage_gen_ = ~uint64_t(0);  // the generation the stages belong to
  bool stage_ok_ = false;
};

// Each of the spec's launches: its loaded kernels' attributes against this device's limits and the
// launch's declared threads and dynamic shared bytes.
std::vector<std::string> CudaBackend::check_entry(const Spec& spec) {
  std::vector<std::string> problems;
  probe();
  if (!absent_.empty()) return problems;
  if (!lost_.empty()) return {lost_};
  for (const std::string& name : spec.launches) {
    int found = 0;
    for (const cuda::LaunchFn& l : cuda::launch_fns()) {
      if (l.name != name) continue;
      ++found;
      const std::string who = "launch " + name + " (" + l.symbol() + " at " + l.file + ":" + std::to_string(l.line) + ")";
      cudaFuncAttributes a{};
      cudaError_t e = cudaFuncGetAttributes(&a, l.fn);
      if (e != cudaSuccess) {
        cudaGetLastError();
        problems.push_back(who + ": cudaFuncGetAttributes: " + cuda_error(e));
        continue;
      }
      char buf[512];
      if (l.threads < 1 || l.threads > a.maxThreadsPerBlock || l.threads > prop_.maxThreadsPerBlock) {
        std::snprintf(buf, sizeof buf, "%s: %d threads a block, the loaded kernel takes at most %d (device %d; %d registers a thread)",
                      who.c_str(), l.threads, a.maxThreadsPerBlock, prop_.maxThreadsPerBlock, a.numRegs);
        problems.push_back(buf);
      }
      // Registers are allocated per warp in units of 256 (DESIGN.md §2.4 gate 5).
      const int warps = (l.threads + 31) / 32;
      const long regs = (long)warps * (((long)a.numRegs * 32 + 255) / 256 * 256);
      if (regs > prop_.regsPerBlock) {
        std::snprintf(buf, sizeof buf, "%s: %d registers x %d warps need %ld registers, a block has %d", who.c_str(),
                      a.numRegs, warps, regs, prop_.regsPerBlock);
        problems.push_back(buf);
      }
      const size_t smem = a.sharedSizeBytes + l.dyn_smem;
      if (smem > prop_.sharedMemPerBlockOptin) {
        std::snprintf(buf, sizeof buf, "%s: %zu static + %zu dynamic shared bytes, a block may have %zu", who.c_str(),
                      (size_t)a.sharedSizeBytes, l.dyn_smem, (size_t)prop_.sharedMemPerBlockOptin);
        problems.push_back(buf);
      } else if (l.dyn_smem > (size_t)a.maxDynamicSharedSizeBytes) {
        std::snprintf(buf, sizeof buf, "%s: %zu dynamic shared bytes, the kernel allows %d (cudaFuncSetAttribute missing)",
                      who.c_str(), l.dyn_smem, a.maxDynamicSharedSizeBytes);
        problems.push_back(buf);
      }
    }
    // A kernel a JIT loads by module at its first launch has no loaded function to ask here: gate 5
    // read its cubins offline, and the launch watch checks each launch against its declaration.
    for (const cuda::ModuleLaunch& m : cuda::module_launches()) found += m.name == name;
    if (!found)
      problems.push_back("launch " + name + ": no KC_CUDA_LAUNCH registers a kernel for it, nor a module launch " +
                         "(kc/cuda_module.hpp)");
  }
  return problems;
}

}  // namespace

std::unique_ptr<Backend> make_cuda_backend() { return std::make_unique<CudaBackend>(); }

}  // namespace kc
