// The OpenCL backend (built where CL/cl.h exists; stub.cpp elsewhere): the library opened at run
// time, a device chosen by KC_OPENCL_DEVICE (an index or a name fragment; else the first GPU, else
// the first device), one in-order queue, buffers the harness lays guards and poison in, and every
// wait under a time limit: a command that never finishes is a hang, reported by name, and the device
// is lost to this process (OpenCL cannot cancel a kernel), so the run goes on in a fresh one.
#include <sys/mman.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "backends/factories.hpp"
#include "backends/opencl/device.hpp"

namespace kc::opencl {

std::pair<Device::Alloc*, size_t> Device::find(const void* p, const char* what) {
  const auto at = reinterpret_cast<uintptr_t>(p);
  auto it = allocs.upper_bound(at);
  if (it != allocs.begin()) {
    --it;
    if (at <= it->first + it->second.bytes) return {&it->second, size_t(at - it->first)};
  }
  throw Error(std::string("opencl: ") + what + ": the pointer is not in any buffer the harness allocated here");
}

cl_mem Device::mem_at(const void* p) {
  auto [a, off] = find(p, "kernel argument");
  if (off == 0) return a->mem;
  if (auto it = a->subs.find(off); it != a->subs.end()) return it->second;
  if (off % sub_align)
    throw Error("opencl: a kernel argument " + std::to_string(off) + " bytes into its buffer is not on the device's " +
                std::to_string(sub_align) + "-byte sub-buffer alignment");
  cl_buffer_region r{off, a->bytes - off};
  cl_int e = CL_SUCCESS;
  cl_mem m = rt().clCreateSubBuffer(a->mem, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &r, &e);
  if (e != CL_SUCCESS) throw Error("opencl: clCreateSubBuffer at +" + std::to_string(off) + ": " + cl_error(e));
  return a->subs[off] = m;
}

SyncResult Device::wait(cl_event ev, double timeout_s, const std::string& what) {
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  for (int spins = 0;; ++spins) {
    cl_int st = CL_QUEUED;
    cl_int e = rt().clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, nullptr);
    if (e != CL_SUCCESS || st <= CL_COMPLETE) {
      rt().clReleaseEvent(ev);
      if (e != CL_SUCCESS) return {SyncResult::fault, what + ": clGetEventInfo: " + cl_error(e)};
      if (st < 0) return {SyncResult::fault, what + " ended in error: " + cl_error(st)};
      return {};
    }
    const double s = std::chrono::duration<double>(clock::now() - t0).count();
    if (s > timeout_s) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "%s still running after %.3g s (its event never reached CL_COMPLETE)", what.c_str(), s);
      lost = std::string("an OpenCL command never finished (") + buf + "): the device's queue is stuck behind it";
      return {SyncResult::hang, buf};
    }
    if (spins > 200) std::this_thread::sleep_for(std::chrono::microseconds(spins > 20000 ? 1000 : 20));
  }
}

namespace {

constexpr const char* kCorrectDivide = "-cl-fp32-correctly-rounded-divide-sqrt";

std::string info(cl_device_id d, cl_device_info what) {
  size_t n = 0;
  if (rt().clGetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS || !n) return "";
  std::string s(n, '\0');
  rt().clGetDeviceInfo(d, what, n, s.data(), nullptr);
  s.resize(std::strlen(s.c_str()));
  return s;
}
std::string platform_name(cl_platform_id p) {
  char buf[256] = {};
  rt().clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof buf - 1, buf, nullptr);
  return buf;
}
std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

class OpenClBackend final : public Backend {
 public:
  ~OpenClBackend() override {
    // Nothing to release after a hang: the runtime would wait for the stuck kernel.
    if (!dev_.queue || !dev_.lost.empty()) return;
    for (auto& [k, v] : dev_.kernels) rt().clReleaseKernel(v);
    for (auto& [k, v] : dev_.programs) rt().clReleaseProgram(v);
    rt().clReleaseCommandQueue(dev_.queue);
    rt().clReleaseContext(dev_.ctx);
  }
  std::string name() const override { return "opencl"; }
  std::string absent() const override {
    const_cast<OpenClBackend*>(this)->probe();
    return absent_;
  }
  std::string device() const override {
    const_cast<OpenClBackend*>(this)->probe();
    return line_;
  }
  // PoCL's CPU device runs kernels on threads of this process: a wild write there ends the process,
  // so its entries run in a process the command line supervises, as the CPU backend's do.
  bool host_launches() const override {
    const_cast<OpenClBackend*>(this)->probe();
    return dev_.cpu;
  }
  std::string lost() const override { return dev_.lost; }

  void* alloc(size_t bytes) override {
    ready("alloc");
    cl_int e = CL_SUCCESS;
    cl_mem m = rt().clCreateBuffer(dev_.ctx, CL_MEM_READ_WRITE, bytes ? bytes : 1, nullptr, &e);
    if (e != CL_SUCCESS) throw Error("opencl: clCreateBuffer(" + std::to_string(bytes) + " bytes): " + cl_error(e));
    void* addr = mmap(nullptr, bytes ? bytes : 1, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (addr == MAP_FAILED) {
      rt().clReleaseMemObject(m);
      throw Error("opencl: cannot reserve " + std::to_string(bytes) + " bytes of addresses for a buffer");
    }
    dev_.allocs[reinterpret_cast<uintptr_t>(addr)] = {m, bytes, {}};
    return addr;
  }
  void free(void* p) override {
    auto it = dev_.allocs.find(reinterpret_cast<uintptr_t>(p));
    if (it == dev_.allocs.end()) return;
    if (dev_.lost.empty()) {
      for (auto& [off, m] : it->second.subs) rt().clReleaseMemObject(m);
      rt().clReleaseMemObject(it->second.mem);
    }
    munmap(p, it->second.bytes ? it->second.bytes : 1);
    dev_.allocs.erase(it);
  }
  void upload(void* dst, const void* src, size_t n) override {
    ready("upload");
    auto [a, off] = dev_.find(dst, "upload");
    cl_event ev = nullptr;
    cl_int e = rt().clEnqueueWriteBuffer(dev_.queue, a->mem, CL_FALSE, off, n, src, 0, nullptr, &ev);
    finish(e, ev, "upload", n);
  }
  void download(void* dst, const void* src, size_t n) override {
    ready("download");
    auto [a, off] = dev_.find(src, "download");
    cl_event ev = nullptr;
    cl_int e = rt().clEnqueueReadBuffer(dev_.queue, a->mem, CL_FALSE, off, n, dst, 0, nullptr, &ev);
    finish(e, ev, "download", n);
  }
  void* stream() override {
    ready("stream");
    return &dev_;
  }
  SyncResult sync(double timeout_s) override {
    ready("sync");
    dev_.copy_wait_s = std::max(120.0, timeout_s);
    if (!dev_.last) return {};
    cl_event ev = dev_.last;
    dev_.last = nullptr;
    return dev_.wait(ev, timeout_s, "the launch of " + dev_.last_kernel);
  }
  std::string recover() override { return dev_.lost.empty() ? absent_ : dev_.lost; }

 private:
  void probe() {
    if (probed_) return;
    probed_ = true;
    if (!rt().missing.empty()) {
      absent_ = rt().missing;
      return;
    }
    cl_uint np = 0;
    cl_int e = rt().clGetPlatformIDs(0, nullptr, &np);
    if (e != CL_SUCCESS || np == 0) {
      absent_ = "no OpenCL platform (clGetPlatformIDs: " + (e != CL_SUCCESS ? cl_error(e) : std::string("0 platforms")) +
                "): no ICD is installed (Debian: pocl-opencl-icd for the CPU)";
      return;
    }
    std::vector<cl_platform_id> plats(np);
    rt().clGetPlatformIDs(np, plats.data(), nullptr);
    struct Choice {
      cl_device_id id;
      std::string name;
      bool gpu;
    };
    std::vector<Choice> all;
    for (cl_platform_id p : plats) {
      cl_uint nd = 0;
      if (rt().clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS || !nd) continue;
      std::vector<cl_device_id> ds(nd);
      rt().clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, ds.data(), nullptr);
      for (cl_device_id d : ds) {
        cl_device_type t = 0;
        rt().clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof t, &t, nullptr);
        all.push_back({d, platform_name(p) + " / " + info(d, CL_DEVICE_NAME), (t & CL_DEVICE_TYPE_GPU) != 0});
      }
    }
    if (all.empty()) {
      absent_ = std::to_string(np) + " OpenCL platform(s), no device on any";
      return;
    }
    const Choice* pick = nullptr;
    const char* want = std::getenv("KC_OPENCL_DEVICE");
    if (want && *want) {
      const std::string w = want;
      const bool index = std::all_of(w.begin(), w.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
      for (size_t i = 0; i < all.size() && !pick; ++i)
        if (index ? std::stoul(w) == i : lower(all[i].name).find(lower(w)) != std::string::npos) pick = &all[i];
      if (!pick) {
        absent_ = "KC_OPENCL_DEVICE='" + w + "' names none of the devices:";
        for (size_t i = 0; i < all.size(); ++i) absent_ += " " + std::to_string(i) + ": " + all[i].name + ";";
        absent_.pop_back();
        return;
      }
    }
    for (const auto& c : all)
      if (!pick && c.gpu) pick = &c;
    if (!pick) pick = &all.front();
    open(*pick);
  }

  template <class C> void open(const C& c) {
    dev_.id = c.id;
    cl_int e = CL_SUCCESS;
    dev_.ctx = rt().clCreateContext(nullptr, 1, &c.id, nullptr, nullptr, &e);
    if (e != CL_SUCCESS) {
      absent_ = c.name + ": clCreateContext: " + cl_error(e);
      return;
    }
    dev_.queue = rt().clCreateCommandQueue(dev_.ctx, c.id, 0, &e);  // in order, the default
    if (e != CL_SUCCESS) {
      dev_.queue = nullptr;
      absent_ = c.name + ": clCreateCommandQueue: " + cl_error(e);
      return;
    }
    cl_device_type t = 0;
    cl_uint align_bits = 1024, units = 0;
    rt().clGetDeviceInfo(c.id, CL_DEVICE_TYPE, sizeof t, &t, nullptr);
    rt().clGetDeviceInfo(c.id, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, nullptr);
    rt().clGetDeviceInfo(c.id, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof dev_.max_wg, &dev_.max_wg, nullptr);
    rt().clGetDeviceInfo(c.id, CL_DEVICE_LOCAL_MEM_SIZE, sizeof dev_.local_mem, &dev_.local_mem, nullptr);
    rt().clGetDeviceInfo(c.id, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, nullptr);
    dev_.cpu = (t & CL_DEVICE_TYPE_CPU) != 0;
    dev_.sub_align = std::max<size_t>(1, align_bits / 8);
    cl_device_fp_config fp = 0;
    rt().clGetDeviceInfo(c.id, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, nullptr);
    if (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) dev_.options = kCorrectDivide;
    dev_.fp16 = (" " + info(c.id, CL_DEVICE_EXTENSIONS) + " ").find(" cl_khr_fp16 ") != std::string::npos;
    line_ = c.name + " (" + info(c.id, CL_DEVICE_VERSION) + ", driver " + info(c.id, CL_DRIVER_VERSION) + ", " +
            std::to_string(units) + " compute units, " + (dev_.fp16 ? "cl_khr_fp16" : "no cl_khr_fp16") +
            (dev_.options.empty() ? ", divides and sqrt not correctly rounded" : "") + ")";
  }

  void ready(const char* what) {
    probe();
    if (!absent_.empty()) throw Error(std::string("opencl: ") + what + ": absent: " + absent_);
    if (!dev_.lost.empty()) throw Error(std::string("opencl: ") + what + ": " + dev_.lost);
  }
  void finish(cl_int e, cl_event ev, const char* what, size_t n) {
    if (e != CL_SUCCESS) throw Error(std::string("opencl: ") + what + " of " + std::to_string(n) + " bytes: " + cl_error(e));
    rt().clFlush(dev_.queue);
    SyncResult r = dev_.wait(ev, dev_.copy_wait_s, std::string(what) + " of " + std::to_string(n) + " bytes");
    if (r.kind != SyncResult::ok) throw Error("opencl: " + r.error);
  }

  bool probed_ = false;
  std::string absent_, line_;
  Device dev_;
};

}  // namespace
}  // namespace kc::opencl

namespace kc {
std::unique_ptr<Backend> make_opencl_backend() { return std::make_unique<opencl::OpenClBackend>(); }
}  // namespace kc
