// The OpenCL device the backend holds, shared by its memory (opencl_backend.cpp) and its programs
// (programs.cpp): context, the one in-order queue, the harness's allocations, built programs.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "backends/opencl/runtime.hpp"
#include "kc/backend.hpp"

namespace kc::opencl {

struct Device {
  cl_device_id id = nullptr;
  cl_context ctx = nullptr;
  cl_command_queue queue = nullptr;  // in order: every copy and launch runs after the one before
  bool fp16 = false;
  bool cpu = false;
  size_t sub_align = 128;  // bytes a sub-buffer's origin must be a multiple of
  size_t max_wg = 1;
  cl_ulong local_mem = 0;
  std::string lost;        // set once a command never finished: nothing more is sent
  double copy_wait_s = 120;
  // Options every program is built with: the zebin build's (limits/xpu/CMakeLists.txt), where the
  // device can, so a divide and a sqrt round as the contracts count them (once, correctly).
  std::string options;
  cl_event last = nullptr;  // the last launch's, until sync() waits on it
  std::string last_kernel;  // "kc_cl_row_sum (kernels/rows/sum/xpu/sum.cl)"

  // Each allocation is a cl_mem standing at a range of reserved host addresses no access reaches,
  // so the harness's pointer arithmetic (guards, offsets, overlaps) holds, and a kernel argument is
  // the cl_mem (or a sub-buffer) at that offset.
  struct Alloc {
    cl_mem mem = nullptr;
    size_t bytes = 0;
    std::map<size_t, cl_mem> subs;  // by offset
  };
  std::map<uintptr_t, Alloc> allocs;
  std::map<std::string, cl_program> programs;  // by source path and options
  std::map<std::string, std::string> failed;    // builds that failed, by the same key: their error
  std::map<std::pair<cl_program, std::string>, cl_kernel> kernels;

  // The allocation holding p and p's offset in it; throws Error naming `what` for a pointer the
  // harness did not allocate here.
  std::pair<Alloc*, size_t> find(const void* p, const char* what);
  // A cl_mem starting at p (the allocation, or a sub-buffer to its end).
  cl_mem mem_at(const void* p);
  // Waits for ev with a time limit; a command still running then marks the device lost (OpenCL
  // cannot cancel it) and is a hang. Releases ev.
  SyncResult wait(cl_event ev, double timeout_s, const std::string& what);
};

}  // namespace kc::opencl
