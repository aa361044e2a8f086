// A read past an input, on the CPU: a row sum whose last row takes one column too many, reading the
// element after x's end. The CPU backend ends every input at a protected page, so the read faults
// (SIGSEGV) at gate 1's first launch, which the supervising run names: red for a fault. (A read
// that lands in an input's guard instead reads NaN there: tests/core/gates_test.cpp shows it.)
#include "kc/families/rows.hpp"
#include "kc/registry.hpp"

KC_CONTROL("rows/ctl_overread_end/f32", cpu) {
  // Whole rows of 64 floats: x ends on a 256-byte boundary, right at the backend's fence.
  return kc::rows::sum(kc::DType::f32, kc::DType::f32)
      .served({{"rows", {1, 3}}, {"cols", {64, 256}}})
      .range("cols", 64, 64)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["cols"] + 1); })
      .control(kc::Gate::nonfinite, kc::Why::fault)
      .note("run by the command line, whose supervised process the fault ends; a test that runs entries in its own process cannot")
      .launch([](const kc::Buffers& b) {
        const int64_t rows = b.shape()["rows"], cols = b.shape()["cols"];
        const float* x = b.in<float>("x");
        float* y = b.out<float>("y");
        for (int64_t r = 0; r < rows; ++r) {
          float s = 0;
          for (int64_t c = 0; c < cols + (r == rows - 1); ++c) s += x[r * cols + c];
          y[r] = s;
        }
      });
}
