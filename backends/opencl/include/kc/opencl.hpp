// What an OpenCL contract needs from the harness: a kernel of an OpenCL C source built into this
// binary (every *.cl under kernels/ and controls/, by its path in the tree, or one added with
// add_source), compiled at run time for the device and launched on the harness's one in-order queue
// with the harness's buffers. No OpenCL header here: a contract builds where OpenCL is absent, and
// its entries then say so by name.
//
//   KC_KERNEL("rows/sum/f32", opencl) {
//     return kc::rows::sum(...).served(...).launch([](const kc::Buffers& b) {
//       kc::opencl::launch(b, "kernels/rows/sum/xpu/sum.cl", "kc_cl_row_sum", {rows, 256},
//                          {kc::opencl::buf(b.in<kc::bf16>("x")), kc::opencl::buf(b.out<float>("y")),
//                           kc::opencl::val(int(cols))});
//     });
//   }
#pragma once
#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <string>

#include "kc/spec.hpp"

namespace kc::opencl {

// One kernel argument: a harness buffer (a pointer Buffers gave, resolved to its cl_mem), a scalar's
// bytes, or a size of local memory.
struct Arg {
  enum Kind { buffer, value, local } kind = value;
  const void* ptr = nullptr;
  size_t bytes = 0;
  unsigned char data[16] = {};
};
inline Arg buf(const void* p) { return {Arg::buffer, p, sizeof(void*), {}}; }
template <class T> Arg val(const T& v) {
  static_assert(sizeof(T) <= sizeof(Arg::data), "a scalar argument of at most 16 bytes");
  Arg a{Arg::value, nullptr, sizeof(T), {}};
  std::memcpy(a.data, &v, sizeof(T));
  return a;
}
inline Arg local_bytes(size_t n) { return {Arg::local, nullptr, n, {}}; }

// `groups` x `groups_y` work-groups of `wg` work-items (a group is wg x 1).
struct Range {
  size_t groups = 1;
  size_t wg = 1;
  size_t groups_y = 1;
};

// Builds `source` once per options (a build error throws kc::Error holding the build log and naming
// the file), then launches `kernel` on b's queue. Throws where the backend is absent, a buffer is not
// the harness's, or the device cannot run `wg` work-items of this kernel in a group.
void launch(const Buffers& b, const std::string& source, const std::string& kernel, Range range,
            std::initializer_list<Arg> args, const std::string& options = "");
// Whether the device running b has cl_khr_fp16 (half arithmetic; half storage is core OpenCL C).
bool has_fp16(const Buffers& b);
// An OpenCL C source this binary does not hold (a test's, an outside project's), by the path its
// build log names. `#include "name"` in it finds kernels/common/name among the built-in sources.
void add_source(const std::string& path, const std::string& text);

}  // namespace kc::opencl
