// timed_tile.cu: a row sum that waits a fixed time for its tile instead of a barrier; same bytes run
// after run on an idle GPU, other bytes beside a load (gate 2's runs under load), and a race for
// compute-sanitizer's racecheck.
#include "../../../kernels/common/cuda_contract.hpp"

namespace kc::rows_ctl {
void timed_tile(const float* x, float* y, int rows, int cols, void* stream);
}

KC_CONTROL("rows/ctl_timed_tile/f32", cuda) {
  return kc::rows::sum(kc::DType::f32, kc::DType::f32)
      .served({{"rows", {7, 64}}, {"cols", {256, 4096}}})
      // Each thread adds two values a tile in turn, then a tree over 128 threads.
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double(2 * ((s["cols"] + 255) / 256) + 8); })
      .launches({"rows/ctl_timed_tile/f32"})
      .control(kc::Gate::repeat, kc::Why::bytes_differ)
      .launch([](const kc::Buffers& b) {
        kc::rows_ctl::timed_tile(b.in<float>("x"), b.out<float>("y"), int(b.shape()["rows"]), int(b.shape()["cols"]),
                                 b.stream());
      });
}
