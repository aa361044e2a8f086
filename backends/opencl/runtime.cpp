#include "backends/opencl/runtime.hpp"

#include <dlfcn.h>

namespace kc::opencl {

const Runtime& rt() {
  static const Runtime r = [] {
    Runtime t;
    void* lib = nullptr;
    for (const char* name : {"libOpenCL.so.1", "libOpenCL.so"})
      if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
    if (!lib) {
      const char* why = dlerror();  // may be null
      t.missing = std::string("no OpenCL ICD loader (dlopen libOpenCL.so.1: ") + (why ? why : "no reason given") + ")";
      return t;
    }
#define X(name)                                                              \
  t.name = reinterpret_cast<decltype(&::name)>(dlsym(lib, #name));           \
  if (!t.name && t.missing.empty()) t.missing = "libOpenCL.so.1 has no " #name;
    KC_CL_API(X)
#undef X
    return t;
  }();
  return r;
}

std::string cl_error(cl_int e) {
  const char* n = "an OpenCL error";
  switch (e) {
#define N(c) case c: n = #c; break;
    N(CL_DEVICE_NOT_FOUND) N(CL_DEVICE_NOT_AVAILABLE) N(CL_COMPILER_NOT_AVAILABLE)
    N(CL_MEM_OBJECT_ALLOCATION_FAILURE) N(CL_OUT_OF_RESOURCES) N(CL_OUT_OF_HOST_MEMORY)
    N(CL_BUILD_PROGRAM_FAILURE) N(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    N(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST) N(CL_INVALID_VALUE) N(CL_INVALID_PLATFORM)
    N(CL_INVALID_DEVICE) N(CL_INVALID_CONTEXT) N(CL_INVALID_COMMAND_QUEUE) N(CL_INVALID_MEM_OBJECT)
    N(CL_INVALID_BUILD_OPTIONS) N(CL_INVALID_PROGRAM) N(CL_INVALID_PROGRAM_EXECUTABLE)
    N(CL_INVALID_KERNEL_NAME) N(CL_INVALID_KERNEL) N(CL_INVALID_ARG_INDEX) N(CL_INVALID_ARG_VALUE)
    N(CL_INVALID_ARG_SIZE) N(CL_INVALID_KERNEL_ARGS) N(CL_INVALID_WORK_DIMENSION)
    N(CL_INVALID_WORK_GROUP_SIZE) N(CL_INVALID_WORK_ITEM_SIZE) N(CL_INVALID_GLOBAL_OFFSET)
    N(CL_INVALID_EVENT) N(CL_INVALID_OPERATION) N(CL_INVALID_BUFFER_SIZE) N(CL_INVALID_GLOBAL_WORK_SIZE)
#undef N
    case -1001: n = "CL_PLATFORM_NOT_FOUND_KHR"; break;  // the ICD loader's: no ICD is installed
    default: break;
  }
  return std::string(n) + " (" + std::to_string(e) + ")";
}

}  // namespace kc::opencl
