// Test-only entries (not in kc_entries, so never in kernel-contract's run): a row sum that writes
// to an illegal address, one that reads one element past its input, and one that never returns. backend_test runs each, then a served kernel
// after it, to show the fault or hang is reported by its CUDA name and the run goes on;
// planted-contract runs the faults among served entries through the whole command line.
#include "kernels/common/cuda_contract.hpp"

__global__ void kc_test_illegal_address(float* y) {
  // Far past any allocation: the MMU refuses it (cudaErrorIllegalAddress).
  y[(1ll << 40) + threadIdx.x] = 1.f;
}

__global__ void kc_test_spin(const float* x, float* y) {
  // Waits for the input's first word to change, which nothing ever does.
  volatile const unsigned* p = reinterpret_cast<volatile const unsigned*>(x);
  const unsigned first = p[0];
  while (p[0] == first) {
  }
  y[0] = 0.f;
}

KC_KERNEL("test/illegal_address/f32", cuda) {
  return kc::rows::sum(kc::DType::bf16, kc::DType::f32)
      .served({{"rows", {4}}, {"cols", {64}}})
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["cols"]); })
      .note("planted in tests/cuda: must fault with cudaErrorIllegalAddress")
      .launch([](const kc::Buffers& b) { kc_test_illegal_address<<<1, 32, 0, kc::cu::stream_of(b)>>>(b.out<float>("y")); });
}

// The same fault again: planted-contract runs it after a served kernel, so the fresh process that
// took over after the first fault loses the device too and hands over to another.
KC_KERNEL("test/illegal_address_again/f32", cuda) {
  return kc::rows::sum(kc::DType::bf16, kc::DType::f32)
      .served({{"rows", {4}}, {"cols", {64}}})
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["cols"]); })
      .note("planted in tests/cuda: must fault with cudaErrorIllegalAddress")
      .launch([](const kc::Buffers& b) { kc_test_illegal_address<<<1, 32, 0, kc::cu::stream_of(b)>>>(b.out<float>("y")); });
}

__global__ void kc_test_overread(const float* x, float* y, int cols) {
  // One element too many: x[cols] is the first byte after x's 256-byte end, where the backend's
  // fence leaves memory unmapped.
  float s = 0;
  for (int c = 0; c <= cols; ++c) s += x[c];
  y[0] = s;
}

KC_KERNEL("test/overread_end/f32", cuda) {
  return kc::rows::sum(kc::DType::f32, kc::DType::f32)
      .served({{"rows", {1}}, {"cols", {64}}})
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["cols"] + 1); })
      .note("planted in tests/cuda: reads past x; must fault with cudaErrorIllegalAddress where inputs are fenced")
      .launch([](const kc::Buffers& b) {
        kc_test_overread<<<1, 1, 0, kc::cu::stream_of(b)>>>(b.in<float>("x"), b.out<float>("y"), 64);
      });
}

KC_KERNEL("test/spin/f32", cuda) {
  return kc::rows::sum(kc::DType::bf16, kc::DType::f32)
      .served({{"rows", {4}}, {"cols", {64}}})
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["cols"]); })
      .note("planted in tests/cuda: never returns; must be cut off as a hang")
      .launch([](const kc::Buffers& b) {
        kc_test_spin<<<1, 1, 0, kc::cu::stream_of(b)>>>(reinterpret_cast<const float*>(b.in<kc::bf16>("x")),
                                                       b.out<float>("y"));
      });
}
