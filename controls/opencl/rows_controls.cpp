// The OpenCL controls of gates 1-4, each a rows kernel in OpenCL C built to fail one gate for one
// reason (the .cl beside this file says how), run in every test run on PoCL's CPU device.
#include <atomic>

#include "../../kernels/common/opencl_contract.hpp"

using namespace kc::ocl;
using kc::opencl::buf;
using kc::opencl::val;

namespace {
const Served kSmall = {{"rows", {7, 64}}, {"cols", {64, 1024}}};
int cols_of(const kc::Buffers& b) { return int(b.shape()["cols"]); }
}  // namespace

KC_CONTROL("rows/ctl_fmax_max/bf16", opencl) {
  return kc::rows::max(kc::DType::bf16, kc::DType::bf16)
      .served(kSmall)
      .control(kc::Gate::nonfinite, kc::Why::class_mismatch)
      .launch([](const kc::Buffers& b) {
        rows_launch(b, "controls/opencl/fmax_max.cl", "kc_ctl_fmax_max",
                    {buf(b.in<kc::bf16>("x")), buf(b.out<kc::bf16>("y")), val(cols_of(b))});
      });
}

// Sixteen chunks a row, a group of 64 each: a work-item's chain of ceil(cols / 16 / 64), the group's
// six levels, then sixteen adds into y.
KC_CONTROL("rows/ctl_atomic_sum/f32", opencl) {
  return kc::rows::sum(kc::DType::f32, kc::DType::f32)
      .served({{"rows", {64}}, {"cols", {1024, 4096}}})
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double((s["cols"] + 1023) / 1024 + 6 + 16); })
      .control(kc::Gate::repeat, kc::Why::bytes_differ)
      .launch([](const kc::Buffers& b) {
        static std::atomic<unsigned> runs{0};
        const int rows = int(b.shape()["rows"]);
        const char* src = "controls/opencl/atomic_sum.cl";
        kc::opencl::launch(b, src, "kc_ctl_zero", {size_t(rows + 63) / 64, 64}, {buf(b.out<float>("y")), val(rows)});
        kc::opencl::launch(b, src, "kc_ctl_atomic_sum", {size_t(rows) * 16, 64},
                           {buf(b.in<float>("x")), buf(b.out<float>("y")), val(cols_of(b)), val(unsigned(runs++))});
      });
}

KC_CONTROL("rows/ctl_in_place_sum/f32", opencl) {
  return kc::rows::sum(kc::DType::bf16, kc::DType::f32)
      .served(kSmall)
      .range("cols", 2, 2)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double(2 * ((s["cols"] / 2 + kWg - 1) / kWg) + 8); })
      .control(kc::Gate::repeat, kc::Why::input_changed)
      .launch([](const kc::Buffers& b) {
        rows_launch(b, "controls/opencl/in_place_sum.cl", "kc_ctl_in_place_sum",
                    {buf(b.in<kc::bf16>("x")), buf(b.out<float>("y")), val(cols_of(b))});
      });
}

KC_CONTROL("rows/ctl_tail_drop_sum/f32", opencl) {
  return kc::rows::sum(kc::DType::bf16, kc::DType::f32)
      .served({{"rows", {7, 64}}, {"cols", {256, 1024}}})
      .tile("cols", kWg, 1, 1)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double((s["cols"] + kWg - 1) / kWg + 8); })
      .control(kc::Gate::shapes, kc::Why::bound)
      .launch([](const kc::Buffers& b) {
        rows_launch(b, "controls/opencl/tail_drop_sum.cl", "kc_ctl_tail_drop_sum",
                    {buf(b.in<kc::bf16>("x")), buf(b.out<float>("y")), val(cols_of(b))});
      });
}

KC_CONTROL("rows/ctl_half_dot/f32", opencl) {
  return kc::rows::dot(kc::DType::bf16, kc::DType::f32)
      .served(kSmall)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return 131072.0 * double(s["cols"]); })
      .control(kc::Gate::sums, kc::Why::bound)
      .launch([](const kc::Buffers& b) {
        rows_launch(b, "controls/opencl/half_dot.cl", "kc_ctl_half_dot",
                    {buf(b.in<kc::bf16>("x")), buf(b.in<kc::bf16>("w")), buf(b.out<float>("y")), val(cols_of(b))});
      });
}
