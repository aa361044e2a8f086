// The CPU twin of rope.cu: the same rig and envelope, a scalar loop in fp32. It runs wherever the
// contract does (CI included), so the rig itself is proven on every run.
#include <kc/registry.hpp>

#include "rope_contract.hpp"

namespace {

void rotate(const kc::bf16* x, kc::bf16* y, const float* cache, const int32_t* pos, int64_t tokens, int64_t heads,
            int64_t dim) {
  const int64_t half = dim / 2;
  for (int64_t t = 0; t < tokens; ++t) {
    const float* cs = cache + pos[t] * dim;
    for (int64_t h = 0; h < heads; ++h) {
      const kc::bf16* xh = x + (t * heads + h) * dim;
      kc::bf16* yh = y + (t * heads + h) * dim;
      for (int64_t i = 0; i < half; ++i) {
        const float x0 = kc::from_bf16(xh[i]), x1 = kc::from_bf16(xh[i + half]), c = cs[i], s = cs[half + i];
        yh[i] = kc::to_bf16(x0 * c - x1 * s, kc::Round::nearest);
        yh[i + half] = kc::to_bf16(x1 * c + x0 * s, kc::Round::nearest);
      }
    }
  }
}

}  // namespace

KC_KERNEL("outside/rope/bf16", cpu) {
  return rope::contract().launch([](const kc::Buffers& b) {
    const rope::Dims d = rope::dims_of(b.shape());
    const float* cache = b.in<float>("cache");
    const int32_t* pos = b.in<int32_t>("positions");
    rotate(b.in<kc::bf16>("q"), b.out<kc::bf16>("q_out"), cache, pos, d.tokens, d.heads, d.dim);
    rotate(b.in<kc::bf16>("k"), b.out<kc::bf16>("k_out"), cache, pos, d.tokens, d.kv, d.dim);
  });
}
