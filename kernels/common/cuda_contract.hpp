// Host glue the served CUDA contracts' registrations (cuda.cpp beside a kernel) share: the public
// CUDA API (kc/cuda.hpp: launch records, the stream), the served envelopes, and checks that turn a
// bad buffer (misaligned for 16-byte loads, a width off the kernel's step) into a clear kc::Error
// instead of a fault. Host code only: a device unit (.cu) parses none of it.
#pragma once
#include <cstdint>
#include <string>

#include "kc/cuda.hpp"
#include "kc/families/rows.hpp"
#include "kc/registry.hpp"
#include "served.hpp"

namespace kc::cu {

inline cudaStream_t stream_of(const kc::Buffers& b) { return kc::cuda::stream(b); }

// Every named buffer must start on a 16-byte boundary for the vector forms.
inline void need_aligned16(const kc::Buffers& b, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (reinterpret_cast<uintptr_t>(b.ptr(n)) % 16)
      throw kc::Error(std::string("buffer ") + n + " is not 16-byte aligned for 16-byte loads");
}
// Two envelopes a kernel, as an engine calls it (served.hpp).
using kc::served::decode_env;
using kc::served::prompt_env;
using kc::served::Served;

// A launcher that picks one of four instantiations by width registers one launch each: base/v1,
// base/v2, base/v4, base/v8 (vectors a thread), so gate 5 and check_entry see every one.
inline std::vector<std::string> vpt_launches(const std::string& base) {
  return {base + "/v1", base + "/v2", base + "/v4", base + "/v8"};
}
// The one of them a launcher's switch on a shape's vectors a thread takes (8 beyond 4): its form,
// for Entry::picks (gate 3 runs each form at a ragged shape).
inline std::string vpt_form(const std::string& base, int vpt) {
  return base + (vpt <= 1 ? "/v1" : vpt <= 2 ? "/v2" : vpt <= 4 ? "/v4" : "/v8");
}
inline void need_cols(const kc::Buffers& b, int64_t step, int64_t most) {
  const int64_t cols = b.shape()["cols"];
  if (cols < 1 || cols % step || cols > most)
    throw kc::Error("cols " + std::to_string(cols) + " is outside the kernel's sizes (a multiple of " +
                    std::to_string(step) + ", at most " + std::to_string(most) + ")");
}

}  // namespace kc::cu
