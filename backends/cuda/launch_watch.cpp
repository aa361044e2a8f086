// CUPTI callbacks on the driver's kernel launches (launch_watch.hpp). One subscriber a process:
// made at the first watch and kept; the callback records only while a watch is on.
#include "backends/cuda/launch_watch.hpp"

#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>  // with generated_cuda_meta.h: the launch calls' parameters
#include <cxxabi.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <tuple>
#include <type_traits>
#include <unordered_map>

#include "kc/cuda.hpp"
#include "kc/cuda_module.hpp"
#include "kc/limits/paths.hpp"

namespace kc::cuda {

namespace {

// The CUPTI calls the watch makes, typed by cupti.h and found with dlsym: CUPTI is opened at run
// time, never linked, so a binary starts (and runs its CPU backend) where no toolkit is installed.
struct Cupti {
  decltype(&cuptiSubscribe) subscribe = nullptr;
  decltype(&cuptiUnsubscribe) unsubscribe = nullptr;
  decltype(&cuptiEnableCallback) enable_callback = nullptr;
  decltype(&cuptiGetResultString) result_string = nullptr;
};
Cupti cupti;  // set by the first open_cupti that finds every call
std::mutex cupti_m;

struct Raw {
  std::string name;  // as the driver names the function (mangled)
  int threads;
  size_t dyn_smem;
  std::string stream;  // "" on the watched stream, else which (SeenLaunch::stream)
  bool operator==(const Raw&) const = default;
};

struct Watch {
  std::mutex m;
  bool on = false;
  CUstream stream = nullptr;  // the harness's: a launch on any other is reported
  std::vector<Raw> raw;
  std::string broken;  // why the subscription failed, for good
  bool subscribed = false;
  // The KC_CUDA_LAUNCH records by their function's demangled name, as the driver names it at launch.
  std::unordered_map<std::string, std::vector<LaunchRecordRef>> records;
};

Watch& state() {
  static Watch w;
  return w;
}

std::string demangle(const char* s) {
  int st = 0;
  char* d = abi::__cxa_demangle(s, nullptr, nullptr, &st);
  std::string out = st == 0 && d ? d : s;
  std::free(d);
  return out;
}

// A launch's stream in words, "" where it is the harness's. The _ptsz calls are the per-thread
// default stream's spellings (nvcc --default-stream per-thread): 0 there means that stream.
std::string stream_words(CUstream s, CUstream ours, bool ptsz) {
  if (s == ours && s != nullptr) return "";
  if (s == CU_STREAM_PER_THREAD || (s == nullptr && ptsz)) return "the per-thread default stream";
  if (s == nullptr || s == CU_STREAM_LEGACY) return "the legacy default stream";
  char b[64];
  std::snprintf(b, sizeof b, "stream %p", static_cast<void*>(s));
  return b;
}

void CUPTIAPI on_launch(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
  const auto* d = static_cast<const CUpti_CallbackData*>(data);
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API || d->callbackSite != CUPTI_API_ENTER) return;
  unsigned bx = 0, by = 0, bz = 0, smem = 0;
  CUstream stream = nullptr;
  const bool ptsz = id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz ||
                    id == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz ||
                    id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz;
  switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
      const auto* p = static_cast<const cuLaunchKernel_params*>(d->functionParams);
      std::tie(bx, by, bz, smem, stream) =
          std::make_tuple(p->blockDimX, p->blockDimY, p->blockDimZ, p->sharedMemBytes, p->hStream);
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
      const auto* p = static_cast<const cuLaunchCooperativeKernel_params*>(d->functionParams);
      std::tie(bx, by, bz, smem, stream) =
          std::make_tuple(p->blockDimX, p->blockDimY, p->blockDimZ, p->sharedMemBytes, p->hStream);
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
      const CUlaunchConfig* c = static_cast<const cuLaunchKernelEx_params*>(d->functionParams)->config;
      if (c)
        std::tie(bx, by, bz, smem, stream) =
            std::make_tuple(c->blockDimX, c->blockDimY, c->blockDimZ, c->sharedMemBytes, c->hStream);
      break;
    }
    default:
      return;
  }
  Watch& w = state();
  std::lock_guard<std::mutex> l(w.m);
  if (!w.on) return;
  Raw r{d->symbolName ? d->symbolName : "(a function the driver does not name)", int(bx * by * bz), size_t(smem),
        stream_words(stream, w.stream, ptsz)};
  for (const Raw& x : w.raw)
    if (x == r) return;
  w.raw.push_back(std::move(r));
}

std::string cupti_error(const char* call, CUptiResult r) {
  const char* s = nullptr;
  cupti.result_string(r, &s);
  return std::string(call) + ": " + (s ? s : "CUPTI error " + std::to_string(int(r)));
}

// Subscribes once; "" or why not.
std::string subscribe(Watch& w) {
  if (w.subscribed || !w.broken.empty()) return w.broken;
  try {
    if (std::string why = open_cupti(cupti_places()); !why.empty()) return w.broken = why;
  } catch (const std::exception& e) {  // a paths file that cannot be read
    return w.broken = std::string("CUPTI: ") + e.what();
  }
  CUpti_SubscriberHandle sub{};
  if (CUptiResult r = cupti.subscribe(&sub, on_launch, nullptr); r != CUPTI_SUCCESS)
    return w.broken = cupti_error("cuptiSubscribe", r);
  for (CUpti_CallbackId id :
       {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz})
    if (CUptiResult r = cupti.enable_callback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, id); r != CUPTI_SUCCESS) {
      cupti.unsubscribe(sub);
      return w.broken = cupti_error("cuptiEnableCallback", r);
    }
  for (const LaunchFn& l : launch_fns()) {
    const char* n = nullptr;
    if (cudaFuncGetName(&n, l.fn) == cudaSuccess && n) w.records[demangle(n)].push_back({l.name, l.threads, l.dyn_smem});
    else cudaGetLastError();  // a function the runtime cannot name matches no launch: seen as unrecorded
  }
  w.subscribed = true;
  return "";
}

}  // namespace

std::vector<std::string> cupti_places() {
  // CUPTI's soname follows the toolkit's major version (libcupti.so.13 for CUDA 13), as cupti.h here.
  std::vector<std::string> v{"libcupti.so." + std::to_string(CUDART_VERSION / 1000)};
  if (std::string p = kc::limits::contract_path("cupti"); !p.empty()) v.push_back(p);
  return v;
}

std::string open_cupti(const std::vector<std::string>& places) {
  std::lock_guard<std::mutex> l(cupti_m);
  std::string tried;
  for (const std::string& p : places) {
    dlerror();
    void* lib = dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* why = dlerror();
      tried += "; " + (why ? std::string(why) : p + ": dlopen gave no reason");
      continue;
    }
    Cupti c;
    const char* missing = nullptr;
    auto find = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
      if (!fn && !missing) missing = name;
    };
    find(c.subscribe, "cuptiSubscribe");
    find(c.unsubscribe, "cuptiUnsubscribe");
    find(c.enable_callback, "cuptiEnableCallback");
    find(c.result_string, "cuptiGetResultString");
    if (!missing) {
      if (!cupti.subscribe) cupti = c;  // the library kept open for the process
      return "";
    }
    dlclose(lib);
    tried += "; " + p + " has no " + missing;
  }
  return "CUPTI (libcupti, the CUDA toolkit's) cannot be opened" + (tried.empty() ? ": no place to look" : tried) +
         "; put its folder on LD_LIBRARY_PATH, or set KC_CUPTI (or a `cupti` line in " + kc::limits::paths_file() +
         ") to the library's path";
}

std::string watch_launches(void* stream) {
  Watch& w = state();
  std::lock_guard<std::mutex> l(w.m);
  if (std::string why = subscribe(w); !why.empty()) return why;
  w.stream = static_cast<CUstream>(stream);
  w.raw.clear();
  w.on = true;
  return "";
}

std::vector<SeenLaunch> seen_launches() {
  Watch& w = state();
  std::vector<Raw> raw;
  {
    std::lock_guard<std::mutex> l(w.m);
    w.on = false;
    raw.swap(w.raw);
  }
  std::vector<SeenLaunch> out;
  for (const Raw& r : raw) {
    SeenLaunch s{demangle(r.name.c_str()), r.threads, r.dyn_smem, {}, r.stream};
    if (const auto it = w.records.find(s.symbol); it != w.records.end()) s.records = it->second;
    for (const ModuleLaunch& m : module_launches())  // a kernel a JIT loaded by module (kc/cuda_module.hpp)
      if (m.symbol == s.symbol) s.records.push_back({m.name, m.threads, m.dyn_smem});
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace kc::cuda
