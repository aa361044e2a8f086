// The row-wise FP8 quantizer on the CPU (kc/lowp.hpp's conversion: nearest, saturating). Its
// control converts by truncation toward zero, which gate 3's intervals on the codes find.
#include <cmath>

#include <kc/lowp.hpp>
#include <kc/registry.hpp>

#include "fp8_quant.hpp"

namespace {

void quantize(const kc::Buffers& b, bool truncate) {
  const int64_t rows = b.shape()["rows"], cols = b.shape()["cols"];
  const kc::bf16* x = b.in<kc::bf16>("x");
  uint8_t* q = b.out<uint8_t>("q");
  float* scale = b.out<float>("scale");
  for (int64_t r = 0; r < rows; ++r) {
    float amax = 0;
    for (int64_t c = 0; c < cols; ++c) {
      const float v = std::fabs(kc::from_bf16(x[r * cols + c]));
      amax = std::isnan(v) || std::isnan(amax) ? NAN : std::max(amax, v);
    }
    const float s = std::max(amax, 1e-12f) / 448.0f;
    scale[r] = std::isnan(amax) ? NAN : s;
    for (int64_t c = 0; c < cols; ++c) {
      float v = kc::from_bf16(x[r * cols + c]) / scale[r];
      if (truncate && std::isfinite(v)) v = std::trunc(v * 8) / 8;  // drops the bits e4m3 would round
      q[r * cols + c] = uint8_t(kc::lowp::encode(kc::lowp::Format::e4m3, v));
    }
  }
}

}  // namespace

KC_KERNEL("examples/fp8_quant/e4m3", cpu) { return fp8q::contract().launch([](const kc::Buffers& b) { quantize(b, false); }); }

KC_CONTROL("examples/fp8_quant/ctl_truncated", cpu) {
  return fp8q::contract()
      .control(kc::Gate::shapes, kc::Why::interval)
      .note("x / scale cut toward zero to 1/8 before the e4m3 conversion")
      .launch([](const kc::Buffers& b) { quantize(b, true); });
}
