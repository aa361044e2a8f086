// The HIP backend (built where HIP headers and libamdhip64 exist; stub.cpp elsewhere): raw device
// memory (the harness lays out guards and poison), one non-blocking stream, waits that poll with a
// time limit, recovery by device reset, kernels loaded from this build's code objects for the device's
// chip. It says by name which served chips it could not run: all four without an AMD GPU, the other
// three with one.
#include <hip/hip_runtime_api.h>

#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <thread>
#include <unordered_set>

#include "backends/factories.hpp"
#include "backends/hip/launches.hpp"
#include "kc/limits/paths.hpp"
#include "kc/spec.hpp"

#ifndef KC_HIP_CHIPS  // the served chips, from limits/hip/amd_chips.tsv (backends/hip/backend.cmake)
#error "KC_HIP_CHIPS: the build defines it from the chip table"
#endif

namespace kc {
namespace hip {

// The HIP runtime is opened at run time (dlopen), not linked: a binary built where HIP's headers exist
// still starts where libamdhip64 does not (the GPU machines of other vendors), and then says so.
#define KC_HIP_API(X) \
  X(hipError_t, hipDeviceReset, (void)) \
  X(hipError_t, hipDriverGetVersion, (int*)) \
  X(hipError_t, hipFree, (void*)) \
  X(hipError_t, hipFuncGetAttribute, (int*, hipFunction_attribute, hipFunction_t)) \
  X(hipError_t, hipGetDeviceCount, (int*)) \
  X(hipError_t, hipGetDeviceProperties, (hipDeviceProp_t*, int)) \
  X(const char*, hipGetErrorName, (hipError_t)) \
  X(const char*, hipGetErrorString, (hipError_t)) \
  X(hipError_t, hipGetLastError, (void)) \
  X(hipError_t, hipMalloc, (void**, size_t)) \
  X(hipError_t, hipMemcpyAsync, (void*, const void*, size_t, hipMemcpyKind, hipStream_t)) \
  X(hipError_t, hipModuleGetFunction, (hipFunction_t*, hipModule_t, const char*)) \
  X(hipError_t, hipModuleLoad, (hipModule_t*, const char*)) \
  X(hipError_t, hipRuntimeGetVersion, (int*)) \
  X(hipError_t, hipSetDevice, (int)) \
  X(hipError_t, hipStreamCreateWithFlags, (hipStream_t*, unsigned int)) \
  X(hipError_t, hipStreamDestroy, (hipStream_t)) \
  X(hipError_t, hipStreamQuery, (hipStream_t)) \
  /* end */

#define KC_XSTR(x) KC_STR(x)
#define KC_STR(x) #x
struct Runtime {
  std::string missing;  // "" when every function was found
#define X(ret, name, params) ret(*name) params = nullptr;
  KC_HIP_API(X)
#undef X
};

// The table, loaded once. A header macro (ROCm 6 spells hipGetDeviceProperties as ...R0600) names
// the symbol the header's declaration has, so the table matches the header it was compiled with.
const Runtime& rt() {
  static const Runtime r = [] {
    Runtime t;
    void* lib = nullptr;
    for (const char* name : {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"})
      if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
    if (!lib) {
      const char* why = dlerror();  // may be null
      t.missing = std::string("libamdhip64 not found (dlopen: ") + (why ? why : "no reason given") + ")";
      return t;
    }
#define X(ret, name, params)                                                        \
  t.name = reinterpret_cast<ret(*) params>(dlsym(lib, KC_XSTR(name)));              \
  if (!t.name && t.missing.empty()) t.missing = std::string("libamdhip64 has no ") + KC_XSTR(name);
    KC_HIP_API(X)
#undef X
    return t;
  }();
  return r;
}

std::vector<LaunchDecl>& launch_decls() {
  static std::vector<LaunchDecl> v;
  return v;
}

std::string hip_error(hipError_t e) { return std::string(rt().hipGetErrorName(e)) + ": " + rt().hipGetErrorString(e); }

namespace {
// The served chips (this build's code objects), minus `ran`, as "a, b and c".
std::string others(const std::string& ran) {
  std::string all = KC_HIP_CHIPS, out;
  size_t start = 0;
  std::vector<std::string> v;
  while (start <= all.size()) {
    size_t c = all.find(',', start);
    std::string chip = all.substr(start, c == std::string::npos ? std::string::npos : c - start);
    if (!chip.empty() && chip != ran) v.push_back(chip);
    if (c == std::string::npos) break;
    start = c + 1;
  }
  for (size_t i = 0; i < v.size(); ++i) out += (i ? (i + 1 == v.size() ? " and " : ", ") : "") + v[i];
  return out;
}

// The processor of a gcnArchName ("gfx1100:sramecc-:xnack-" -> "gfx1100").
std::string chip_of(const char* arch) {
  std::string s(arch);
  return s.substr(0, s.find(':'));
}

std::string g_chip;  // the device's chip once probed (kernel() loads its code objects)
std::map<std::string, hipModule_t> g_modules;
}  // namespace

hipFunction_t kernel(const std::string& image, const std::string& symbol) {
  if (g_chip.empty()) throw Error("hip: no device probed: cannot load " + image);
  // The folder of code objects is the contract's own (kc/limits/paths.hpp), never compiled in.
  const std::string dir = kc::limits::contract_path("hip-objects");
  if (dir.empty())
    throw Error("hip: no folder of code objects for " + image + ": set KC_HIP_OBJECTS or a hip-objects line in " +
                kc::limits::paths_file());
  const std::string path = dir + "/" + image + "_" + g_chip + ".co";
  auto it = g_modules.find(path);
  if (it == g_modules.end()) {
    hipModule_t m = nullptr;
    hipError_t e = rt().hipModuleLoad(&m, path.c_str());
    if (e != hipSuccess) throw Error("hip: rt().hipModuleLoad(" + path + "): " + hip_error(e));
    it = g_modules.emplace(path, m).first;
  }
  hipFunction_t f = nullptr;
  hipError_t e = rt().hipModuleGetFunction(&f, it->second, symbol.c_str());
  if (e != hipSuccess) throw Error("hip: " + path + ": no kernel " + symbol + ": " + hip_error(e));
  return f;
}

}  // namespace hip

namespace {
using hip::hip_error;
using hip::rt;

class HipBackend final : public Backend {
 public:
  ~HipBackend() override {
    if (stream_ && hip::rt().missing.empty()) (void)rt().hipStreamDestroy(stream_);  // best effort at exit
  }
  std::string name() const override { return "hip"; }
  std::string absent() const override {
    const_cast<HipBackend*>(this)->probe();
    return absent_;
  }
  std::string device() const override {
    const_cast<HipBackend*>(this)->probe();
    return device_;
  }

  void* alloc(size_t bytes) override {
    ready("alloc");
    void* p = nullptr;
    hipError_t e = rt().hipMalloc(&p, bytes ? bytes : 1);
    if (e != hipSuccess) {
      (void)rt().hipGetLastError();
      throw Error("hip: rt().hipMalloc(" + std::to_string(bytes) + " bytes) failed: " + hip_error(e));
    }
    live_.insert(p);
    return p;
  }
  void free(void* p) override {
    if (!p || !live_.erase(p)) return;
    hipError_t e = rt().hipFree(p);
    if (e != hipSuccess && pending_.empty()) pending_ = "hipFree: " + hip_error(e);
  }
  void upload(void* dst, const void* src, size_t n) override { copy(dst, src, n, hipMemcpyHostToDevice, "upload"); }
  void download(void* dst, const void* src, size_t n) override { copy(dst, src, n, hipMemcpyDeviceToHost, "download"); }
  void* stream() override {
    ready("stream");
    return stream_;
  }

  SyncResult sync(double timeout_s) override {
    ready("sync");
    hipError_t e = rt().hipGetLastError();
    if (e != hipSuccess) return {SyncResult::fault, hip_error(e) + " (at launch)"};
    if (!pending_.empty()) {
      std::string p = std::move(pending_);
      pending_.clear();
      return {SyncResult::fault, p};
    }
    return wait(timeout_s);
  }

  std::string recover() override {
    if (!absent_.empty()) return absent_;
    hipError_t e = rt().hipDeviceReset();
    live_.clear();
    stream_ = nullptr;
    pending_.clear();
    hip::g_modules.clear();  // modules went with the context
    if (e != hipSuccess) return "hipDeviceReset: " + hip_error(e);
    if ((e = rt().hipSetDevice(0)) != hipSuccess) return "hipSetDevice after reset: " + hip_error(e);
    if ((e = rt().hipStreamCreateWithFlags(&stream_, hipStreamNonBlocking)) != hipSuccess) {
      stream_ = nullptr;
      return "hipStreamCreateWithFlags after reset: " + hip_error(e);
    }
    return "";
  }

  std::vector<std::string> check_entry(const Spec& spec) override;

 private:
  void probe() {
    if (probed_) return;
    probed_ = true;
    if (!hip::rt().missing.empty()) {
      absent_ = hip::rt().missing + ": could not run " + hip::others("");
      return;
    }
    int n = 0;
    hipError_t e = rt().hipGetDeviceCount(&n);
    if (e != hipSuccess || n == 0) {
      absent_ = "no AMD GPU (hipGetDeviceCount: " + (e != hipSuccess ? hip_error(e) : std::string("0 devices")) +
                "): could not run " + hip::others("");
      return;
    }
    if ((e = rt().hipSetDevice(0)) != hipSuccess || (e = rt().hipGetDeviceProperties(&prop_, 0)) != hipSuccess) {
      absent_ = "AMD GPU 0 unusable: " + hip_error(e) + ": could not run " + hip::others("");
      return;
    }
    const std::string chip = hip::chip_of(prop_.gcnArchName);
    if (("," + std::string(KC_HIP_CHIPS) + ",").find("," + chip + ",") == std::string::npos) {
      absent_ = "device " + std::string(prop_.name) + " is " + chip + ", not a served chip: could not run " + hip::others("");
      return;
    }
    if ((e = rt().hipStreamCreateWithFlags(&stream_, hipStreamNonBlocking)) != hipSuccess) {
      stream_ = nullptr;
      absent_ = "AMD GPU 0: hipStreamCreateWithFlags: " + hip_error(e);
      return;
    }
    hip::g_chip = chip;
    int drv = 0, rtv = 0;
    (void)rt().hipDriverGetVersion(&drv);  // only for the device line
    (void)rt().hipRuntimeGetVersion(&rtv);
    char buf[512];
    std::snprintf(buf, sizeof buf, "%s (%s, %d CUs, %.1f GiB, driver %d, runtime %d); not run here: %s", prop_.name,
                  chip.c_str(), prop_.multiProcessorCount, prop_.totalGlobalMem / 1073741824.0, drv, rtv,
                  hip::others(chip).c_str());
    device_ = buf;
  }

  void ready(const char* what) {
    probe();
    if (!absent_.empty()) throw Error(std::string("hip: ") + what + ": absent: " + absent_);
    if (!stream_) throw Error(std::string("hip: ") + what + ": no stream (a device reset failed)");
  }

  SyncResult wait(double timeout_s) {
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    for (int spins = 0;; ++spins) {
      hipError_t e = rt().hipStreamQuery(stream_);
      if (e == hipSuccess) return {};
      if (e != hipErrorNotReady) return {SyncResult::fault, hip_error(e)};
      const double s = std::chrono::duration<double>(clock::now() - t0).count();
      if (s > timeout_s) {
        char buf[128];
        std::snprintf(buf, sizeof buf, "launch still running after %.3g s (hipStreamQuery: hipErrorNotReady)", s);
        return {SyncResult::hang, buf};
      }
      if (spins > 1000) std::this_thread::sleep_for(std::chrono::microseconds(spins > 100000 ? 1000 : 20));
    }
  }

  void copy(void* dst, const void* src, size_t n, hipMemcpyKind kind, const char* what) {
    ready(what);
    hipError_t e = rt().hipMemcpyAsync(dst, src, n, kind, stream_);
    if (e != hipSuccess) throw Error(std::string("hip: ") + what + " of " + std::to_string(n) + " bytes: " + hip_error(e));
    SyncResult r = wait(120);
    if (r.kind != SyncResult::ok) throw Error(std::string("hip: ") + what + " of " + std::to_string(n) + " bytes: " + r.error);
  }

  bool probed_ = false;
  std::string absent_, device_;
  hipDeviceProp_t prop_{};
  hipStream_t stream_ = nullptr;
  std::unordered_set<void*> live_;
  std::string pending_;
};

// Each of the spec's launches: the loaded kernel's attributes against the launch and the device.
std::vector<std::string> HipBackend::check_entry(const Spec& spec) {
  std::vector<std::string> problems;
  probe();
  if (!absent_.empty()) return problems;
  for (const std::string& name : spec.launches) {
    int found = 0;
    for (const hip::LaunchDecl& l : hip::launch_decls()) {
      if (l.name != name) continue;
      ++found;
      const std::string who = "launch " + name + " (" + l.symbol + " at " + l.file + ":" + std::to_string(l.line) + ")";
      hipFunction_t f = nullptr;
      try {
        f = hip::kernel(l.image, l.symbol);
      } catch (const Error& e) {
        problems.push_back(who + ": " + e.what());
        continue;
      }
      int max_threads = 0, lds = 0;
      hipError_t e = rt().hipFuncGetAttribute(&max_threads, HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f);
      if (e == hipSuccess) e = rt().hipFuncGetAttribute(&lds, HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f);
      if (e != hipSuccess) {
        problems.push_back(who + ": hipFuncGetAttribute: " + hip_error(e));
        continue;
      }
      char buf[512];
      if (l.threads < 1 || l.threads > max_threads || l.threads > prop_.maxThreadsPerBlock) {
        std::snprintf(buf, sizeof buf, "%s: %d threads a workgroup, the loaded kernel takes at most %d (device %d)", who.c_str(),
                      l.threads, max_threads, prop_.maxThreadsPerBlock);
        problems.push_back(buf);
      }
      if (size_t(lds) + l.dyn_lds > prop_.sharedMemPerBlock) {
        std::snprintf(buf, sizeof buf, "%s: %d static + %zu dynamic LDS bytes, a workgroup may have %zu", who.c_str(), lds,
                      l.dyn_lds, (size_t)prop_.sharedMemPerBlock);
        problems.push_back(buf);
      }
    }
    if (!found) problems.push_back("launch " + name + ": no KC_HIP_LAUNCH registers a kernel for it");
  }
  return problems;
}

}  // namespace

std::unique_ptr<Backend> make_hip_backend() { return std::make_unique<HipBackend>(); }

}  // namespace kc
