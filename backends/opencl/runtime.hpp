// The OpenCL library opened at run time (dlopen of the ICD loader, libOpenCL.so.1), never linked: a
// binary built with OpenCL's headers starts where no loader or ICD is installed, and says so. Only
// the backend's own files include this (core never sees a vendor header).
#pragma once
#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

#include <string>

namespace kc::opencl {

#define KC_CL_API(X)                                                                          \
  X(clGetPlatformIDs) X(clGetPlatformInfo) X(clGetDeviceIDs) X(clGetDeviceInfo)               \
  X(clCreateContext) X(clReleaseContext) X(clCreateCommandQueue) X(clReleaseCommandQueue)     \
  X(clCreateBuffer) X(clCreateSubBuffer) X(clReleaseMemObject) X(clEnqueueWriteBuffer)        \
  X(clEnqueueReadBuffer) X(clCreateProgramWithSource) X(clBuildProgram)                       \
  X(clGetProgramBuildInfo) X(clReleaseProgram) X(clCreateKernel) X(clReleaseKernel)           \
  X(clSetKernelArg) X(clGetKernelWorkGroupInfo) X(clEnqueueNDRangeKernel) X(clFlush)          \
  X(clGetEventInfo) X(clReleaseEvent)

struct Runtime {
  std::string missing;  // "" when the library and every function were found
#define X(name) decltype(&::name) name = nullptr;
  KC_CL_API(X)
#undef X
};

// The table, loaded once.
const Runtime& rt();
// "CL_OUT_OF_RESOURCES (-5)".
std::string cl_error(cl_int e);

}  // namespace kc::opencl
