// The embedding gather on the CPU: each token's row copied as bytes; a bad id (< 0 or >= vocab)
// writes zeros (kc::embedding's stated rule). `shift` reads row id + shift (mod vocab): the control's
// fault, a kernel reading the next row.
#pragma once
#include <cstring>

#include <kc/families/embedding.hpp>
#include <kc/registry.hpp>

namespace kc::embedding_cpu {

template <class T> void gather(const kc::Buffers& b, int64_t shift = 0) {
  const int64_t vocab = b.shape()["vocab"], hidden = b.shape()["hidden"], tokens = b.shape()["tokens"];
  const size_t bytes = size_t(hidden) * sizeof(T);
  const auto* table = reinterpret_cast<const unsigned char*>(b.in<T>("table"));
  auto* y = reinterpret_cast<unsigned char*>(b.out<T>("y"));
  const int32_t* ids = b.in<int32_t>("ids");
  for (int64_t t = 0; t < tokens; ++t) {
    const int64_t id = ids[t];
    if (id < 0 || id >= vocab) std::memset(y + size_t(t) * bytes, 0, bytes);
    else std::memcpy(y + size_t(t) * bytes, table + size_t((id + shift) % vocab) * bytes, bytes);
  }
}

}  // namespace kc::embedding_cpu
