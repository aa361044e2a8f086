// A kernel of this project's own, held to the contract: a row sum in 4 lanes, fp32.
// The rows family builds the inputs for every gate, the float64 reference and the fp16/bf16
// replays; this file says the envelope, the accumulation and how to launch.
#include <kc/families/rows.hpp>
#include <kc/registry.hpp>

namespace {

void row_sum4(const float* x, float* y, long rows, long cols) {
  for (long r = 0; r < rows; ++r) {
    float lane[4] = {0, 0, 0, 0};
    for (long c = 0; c < cols; ++c) lane[c % 4] += x[r * cols + c];
    y[r] = (lane[0] + lane[1]) + (lane[2] + lane[3]);
  }
}

}  // namespace

KC_KERNEL("outside/row_sum4/f32", cpu) {
  return kc::rows::sum(kc::DType::f32, kc::DType::f32)
      .served({{"rows", {1, 5, 32}}, {"cols", {64, 1000}}})
      .tile("cols", 4, 1, 1)  // four lanes: every width is valid, edges at 3, 4, 5
      // Longest rounding chain: ceil(cols/4) adds in a lane, then two levels of the tree.
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double((s["cols"] + 3) / 4 + 2); })
      .launch([](const kc::Buffers& b) {
        row_sum4(b.in<float>("x"), b.out<float>("y"), b.shape()["rows"], b.shape()["cols"]);
      });
}
