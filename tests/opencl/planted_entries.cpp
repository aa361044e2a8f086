// Planted OpenCL entries for opencl_cli (the registry holds only what that executable links): a
// correct row sum, one that writes one element past its output, one whose source does not compile,
// and one that never returns. The sources are this file's, added under their own names.
#include "kc/families/rows.hpp"
#include "kc/opencl.hpp"
#include "kc/registry.hpp"

namespace {

const char* const kPlanted = R"cl(
kernel void kc_test_sum(global const float* x, global float* y, int cols) {
  const int r = get_global_id(0);
  float s = 0.f;
  for (int c = 0; c < cols; ++c) s += x[r * cols + c];
  y[r] = s;
}
// The last work-item also writes y[rows]: one float past the output's end.
kernel void kc_test_past_end(global const float* x, global float* y, int cols, int rows) {
  const int r = get_global_id(0);
  float s = 0.f;
  for (int c = 0; c < cols; ++c) s += x[r * cols + c];
  y[r] = s;
  if (r == rows - 1) y[rows] = s;
}
// Spins until a flag no run sets.
kernel void kc_test_spin(global const float* x, volatile global int* y) {
  while (y[0] != 0x13572468 || y[1] != 0x24681357) {}
}
)cl";

const char* const kBroken = R"cl(kernel void kc_test_broken(global float* y) {
  y[0] = 1.0f;
  y[1] = not_declared_anywhere;
}
)cl";

const bool kAdded = [] {
  kc::opencl::add_source("tests/opencl/planted.cl", kPlanted);
  kc::opencl::add_source("tests/opencl/broken.cl", kBroken);
  return true;
}();

kc::Entry sum_entry() {
  return kc::rows::sum(kc::DType::f32, kc::DType::f32)
      .served({{"rows", {4, 64}}, {"cols", {16, 100}}})
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["cols"]); });
}
size_t rows_of(const kc::Buffers& b) { return size_t(b.shape()["rows"]); }

}  // namespace

KC_KERNEL("planted/1_ok", opencl) {
  return sum_entry().launch([](const kc::Buffers& b) {
    kc::opencl::launch(b, "tests/opencl/planted.cl", "kc_test_sum", {rows_of(b), 1},
                       {kc::opencl::buf(b.in<float>("x")), kc::opencl::buf(b.out<float>("y")),
                        kc::opencl::val(int(b.shape()["cols"]))});
  });
}
KC_KERNEL("planted/2_past_end", opencl) {
  return sum_entry().launch([](const kc::Buffers& b) {
    kc::opencl::launch(b, "tests/opencl/planted.cl", "kc_test_past_end", {rows_of(b), 1},
                       {kc::opencl::buf(b.in<float>("x")), kc::opencl::buf(b.out<float>("y")),
                        kc::opencl::val(int(b.shape()["cols"])), kc::opencl::val(int(rows_of(b)))});
  });
}
KC_KERNEL("planted/3_broken", opencl) {
  return sum_entry().launch([](const kc::Buffers& b) {
    kc::opencl::launch(b, "tests/opencl/broken.cl", "kc_test_broken", {1, 1}, {kc::opencl::buf(b.out<float>("y"))});
  });
}
KC_KERNEL("planted/4_hang", opencl) {
  return sum_entry().launch([](const kc::Buffers& b) {
    kc::opencl::launch(b, "tests/opencl/planted.cl", "kc_test_spin", {1, 1},
                       {kc::opencl::buf(b.in<float>("x")), kc::opencl::buf(b.out<float>("y"))});
  });
}
KC_KERNEL("planted/5_ok", opencl) {
  return sum_entry().launch([](const kc::Buffers& b) {
    kc::opencl::launch(b, "tests/opencl/planted.cl", "kc_test_sum", {rows_of(b), 1},
                       {kc::opencl::buf(b.in<float>("x")), kc::opencl::buf(b.out<float>("y")),
                        kc::opencl::val(int(b.shape()["cols"]))});
  });
}
