// The causal depthwise conv1d on the CPU: the taps in one fp32 chain per output. Its control starts
// every chunk from zeros (the carried state dropped), which gates 3 and 4 find.
#include <kc/numeric.hpp>
#include <kc/registry.hpp>

#include "conv1d.hpp"

namespace {

void conv(const kc::Buffers& b, bool carry) {
  const int64_t batch = b.shape()["batch"], seq = b.shape()["seq"], ch = b.shape()["ch"], W = conv1d::kW;
  const kc::bf16* x = b.in<kc::bf16>("x");
  const kc::bf16* st = b.in<kc::bf16>("state");
  const float* w = b.in<float>("w");
  float* y = b.out<float>("y");
  kc::bf16* so = b.out<kc::bf16>("state_out");
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t c = 0; c < ch; ++c) {
      auto xx = [&](int64_t j) {  // the carried state, then the chunk
        return j < W - 1 ? (carry ? st[(n * (W - 1) + j) * ch + c] : kc::bf16{0}) : x[(n * seq + j - (W - 1)) * ch + c];
      };
      for (int64_t t = 0; t < seq; ++t) {
        float s = 0;
        for (int64_t k = 0; k < W; ++k) s += w[c * W + k] * kc::from_bf16(xx(t + k));
        y[(n * seq + t) * ch + c] = s;
      }
      for (int64_t j = 0; j < W - 1; ++j) so[(n * (W - 1) + j) * ch + c] = xx(seq + j);
    }
}

}  // namespace

KC_KERNEL("examples/conv1d/bf16", cpu) { return conv1d::contract().launch([](const kc::Buffers& b) { conv(b, true); }); }

KC_CONTROL("examples/conv1d/ctl_state_dropped", cpu) {
  return conv1d::contract()
      .control(kc::Gate::shapes, kc::Why::bound)
      .note("the carried state read as zeros")
      .launch([](const kc::Buffers& b) { conv(b, false); });
}
