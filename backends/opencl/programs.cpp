// OpenCL C programs: the sources built into this binary (cl_sources.cpp, generated from every *.cl
// under kernels/ and controls/ and the shared headers), their includes spliced in with #line marks
// so a build log names the file and line the error is in, built once per device and options, and
// the launch of one kernel on the backend's queue.
#include <cstdio>
#include <cstring>

#include "backends/opencl/device.hpp"
#include "kc/opencl.hpp"

namespace kc::opencl {

struct SourceFile {
  const char* path;  // in the tree, e.g. "kernels/rows/sum/xpu/sum.cl"
  const char* text;
};
extern const SourceFile kSources[];
extern const size_t kSourceCount;

namespace {

std::map<std::string, std::string>& added() {
  static std::map<std::string, std::string> m;
  return m;
}

const std::string* find_source(const std::string& path) {
  if (auto it = added().find(path); it != added().end()) return &it->second;
  for (size_t i = 0; i < kSourceCount; ++i)
    if (path == kSources[i].path) {
      static std::map<std::string, std::string> held;
      return &held.emplace(path, kSources[i].text).first->second;
    }
  return nullptr;
}

// `path`'s text with each `#include "name"` replaced by the file it names: beside `path`, else in
// kernels/common (the -I of the zebin build).
std::string expand(const std::string& path, int depth = 0) {
  const std::string* text = find_source(path);
  if (!text) throw Error("opencl: no OpenCL C source " + path + " is built into this binary");
  if (depth > 8) throw Error("opencl: " + path + ": includes nested more than 8 deep");
  const std::string dir = path.substr(0, path.rfind('/') + 1);
  std::string out = "#line 1 \"" + path + "\"\n";
  size_t at = 0;
  int line = 1;
  while (at < text->size()) {
    size_t end = text->find('\n', at);
    if (end == std::string::npos) end = text->size();
    const std::string l = text->substr(at, end - at);
    const size_t q = l.find('"');
    if (l.rfind("#include \"", 0) == 0 && l.find('"', q + 1) != std::string::npos) {
      const std::string name = l.substr(q + 1, l.find('"', q + 1) - q - 1);
      std::string inc = dir + name;
      if (!find_source(inc)) inc = "kernels/common/" + name;
      if (!find_source(inc)) throw Error("opencl: " + path + ":" + std::to_string(line) + ": no source " + name + " to include");
      out += expand(inc, depth + 1) + "\n#line " + std::to_string(line + 1) + " \"" + path + "\"\n";
    } else {
      out += l + "\n";
    }
    at = end + 1;
    ++line;
  }
  return out;
}

cl_program program(Device& d, const std::string& path, const std::string& options) {
  const std::string key = path + "\n" + options;
  if (auto it = d.programs.find(key); it != d.programs.end()) return it->second;
  if (auto it = d.failed.find(key); it != d.failed.end()) throw Error(it->second);  // its log printed once
  const std::string src = expand(path);
  const char* p = src.c_str();
  const size_t n = src.size();
  cl_int e = CL_SUCCESS;
  cl_program prog = rt().clCreateProgramWithSource(d.ctx, 1, &p, &n, &e);
  if (e != CL_SUCCESS) throw Error("opencl: " + path + ": clCreateProgramWithSource: " + cl_error(e));
  const std::string all = d.options + (d.options.empty() || options.empty() ? "" : " ") + options;
  e = rt().clBuildProgram(prog, 1, &d.id, all.c_str(), nullptr, nullptr);
  if (e != CL_SUCCESS) {
    size_t len = 0;
    rt().clGetProgramBuildInfo(prog, d.id, CL_PROGRAM_BUILD_LOG, 0, nullptr, &len);
    std::string log(len, '\0');
    if (len) rt().clGetProgramBuildInfo(prog, d.id, CL_PROGRAM_BUILD_LOG, len, log.data(), nullptr);
    log.resize(std::strlen(log.c_str()));
    rt().clReleaseProgram(prog);
    const std::string msg = "opencl: building " + path + (all.empty() ? "" : " with '" + all + "'") +
                            " failed (" + cl_error(e) + "); its build log:\n" + log;
    std::fprintf(stderr, "%s\n", msg.c_str());
    d.failed[key] = msg;
    throw Error(msg);
  }
  return d.programs[key] = prog;
}

cl_kernel kernel(Device& d, const std::string& path, const std::string& name, const std::string& options, size_t wg) {
  cl_program prog = program(d, path, options);
  const auto key = std::make_pair(prog, name);
  auto it = d.kernels.find(key);
  if (it == d.kernels.end()) {
    cl_int e = CL_SUCCESS;
    cl_kernel k = rt().clCreateKernel(prog, name.c_str(), &e);
    if (e != CL_SUCCESS) throw Error("opencl: " + path + " has no kernel " + name + ": " + cl_error(e));
    it = d.kernels.emplace(key, k).first;
  }
  // The device's own limits for this kernel as built, against the launch (gate 5 on the device).
  size_t most = 0;
  cl_ulong local = 0;
  rt().clGetKernelWorkGroupInfo(it->second, d.id, CL_KERNEL_WORK_GROUP_SIZE, sizeof most, &most, nullptr);
  rt().clGetKernelWorkGroupInfo(it->second, d.id, CL_KERNEL_LOCAL_MEM_SIZE, sizeof local, &local, nullptr);
  if (wg > most)
    throw Error("opencl: " + name + " (" + path + "): a launch of " + std::to_string(wg) +
                " work-items a group, the device runs this kernel at most " + std::to_string(most));
  if (local > d.local_mem)
    throw Error("opencl: " + name + " (" + path + ") uses " + std::to_string(local) + " local bytes, the device has " +
                std::to_string(d.local_mem));
  return it->second;
}

Device& device_of(const Buffers& b) {
  auto* d = static_cast<Device*>(b.stream());
  if (!d) throw Error("opencl: these buffers are not the OpenCL backend's (it is absent here)");
  if (!d->lost.empty()) throw Error("opencl: " + d->lost);
  return *d;
}

}  // namespace

void add_source(const std::string& path, const std::string& text) { added()[path] = text; }

bool has_fp16(const Buffers& b) { return device_of(b).fp16; }

void launch(const Buffers& b, const std::string& source, const std::string& name, Range range,
            std::initializer_list<Arg> args, const std::string& options) {
  Device& d = device_of(b);
  cl_kernel k = kernel(d, source, name, options, range.wg);
  cl_uint i = 0;
  for (const Arg& a : args) {
    cl_int e = CL_SUCCESS;
    if (a.kind == Arg::buffer) {
      cl_mem m = d.mem_at(a.ptr);
      e = rt().clSetKernelArg(k, i, sizeof m, &m);
    } else {
      e = rt().clSetKernelArg(k, i, a.bytes, a.kind == Arg::local ? nullptr : a.data);
    }
    if (e != CL_SUCCESS) throw Error("opencl: " + name + ": argument " + std::to_string(i) + ": " + cl_error(e));
    ++i;
  }
  if (d.last) {  // a launch whose sync never came: wait for it first, so events do not pile up
    SyncResult r = d.wait(d.last, d.copy_wait_s, "the launch of " + d.last_kernel);
    d.last = nullptr;
    if (r.kind != SyncResult::ok) throw Error("opencl: " + r.error);
  }
  const size_t global[2] = {range.groups * range.wg, range.groups_y}, local[2] = {range.wg, 1};
  if (!global[0] || !global[1]) return;
  cl_event ev = nullptr;
  cl_int e = rt().clEnqueueNDRangeKernel(d.queue, k, range.groups_y > 1 ? 2 : 1, nullptr, global, local, 0, nullptr, &ev);
  if (e != CL_SUCCESS)
    throw Error("opencl: clEnqueueNDRangeKernel(" + name + ", " + std::to_string(range.groups) + " x " +
                std::to_string(range.groups_y) + " groups of " + std::to_string(range.wg) + "): " + cl_error(e));
  rt().clFlush(d.queue);
  d.last = ev;
  d.last_kernel = name + " (" + source + ")";
}

}  // namespace kc::opencl
