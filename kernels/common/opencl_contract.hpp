// Host glue the OpenCL contracts (opencl.cpp beside a kernel) share: the public OpenCL API, the
// rows kernels' launch (one work-group of 256 a row), their chains, and the CUDA twins' envelopes.
#pragma once
#include <string>

#include "kc/families/rows.hpp"
#include "kc/opencl.hpp"
#include "kc/registry.hpp"
#include "served.hpp"

namespace kc::ocl {

using kc::served::decode_env;
using kc::served::prompt_env;
using kc::served::Served;

inline constexpr int kWg = 256;  // KC_WG in kc_rows_cl.h

// The longest chain of a rows kernel that adds its 16-byte vectors (stride kWg vectors) in one
// chain and its ragged columns one a work-item: 8 adds a vector, one for the tail, then the
// tree's 8 levels.
inline double vec_chain(long cols) {
  const long nvec = cols / 8;
  return double((nvec + kWg - 1) / kWg * 8 + (cols % 8 ? 1 : 0) + 8);
}

// The rows kernels' launch: one work-group of kWg a row of `source`'s `kernel`.
inline void rows_launch(const kc::Buffers& b, const char* source, const char* kernel,
                        std::initializer_list<kc::opencl::Arg> args, const std::string& options = "") {
  kc::opencl::launch(b, source, kernel, {size_t(b.shape()["rows"]), size_t(kWg)}, args, options);
}
inline void need_cols(const kc::Buffers& b, long least, long most) {
  const long cols = long(b.shape()["cols"]);
  if (cols < least || cols > most)
    throw kc::Error("cols " + std::to_string(cols) + " is outside the kernel's sizes (" + std::to_string(least) +
                    " to " + std::to_string(most) + ")");
}

}  // namespace kc::ocl
