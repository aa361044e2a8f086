// Entries on the fake backend, in the order a run visits them. lost/: two planted faults among
// passing kernels, a red control and a known finding; crash/: a fault, then an entry whose process
// dies (abort), then a passing kernel.
#include <cmath>
#include <cstdlib>

#include "fake.hpp"
#include "kc/registry.hpp"
#include "toy.hpp"

namespace {
kc::Entry scale_env(kc::Entry e) {
  return std::move(e).served({{"rows", {1, 5}}, {"cols", {16, 64}}}).tile("cols", 64, 8, 8);
}
void drops_nan(const kc::Buffers& b) {
  toy::scale_kernel(b);
  float* y = b.out<float>("y");
  for (size_t i = 0; i < b.count("y"); ++i)
    if (std::isnan(y[i])) y[i] = 0;
}
// A correct scale kernel that records which process ran it.
#define LOGGED(NAME, KERNEL) [](const kc::Buffers& b) { fake::log_run(NAME), KERNEL(b); }
}  // namespace

KC_KERNEL("lost/1_ok", fake) { return scale_env(toy::scale()).launch(LOGGED("lost/1_ok", toy::scale_kernel)); }
KC_KERNEL("lost/2_fault", fake) {
  return scale_env(toy::scale()).launch([](const kc::Buffers& b) {
    fake::log_run("lost/2_fault");
    toy::scale_kernel(b);
    fake::plant_fault();
  });
}
KC_KERNEL("lost/3_ok", fake) { return scale_env(toy::scale()).launch(LOGGED("lost/3_ok", toy::scale_kernel)); }
KC_CONTROL("lost/4_control_red", fake) {
  return scale_env(toy::scale())
      .control(kc::Gate::nonfinite, kc::Why::class_mismatch)
      .launch(LOGGED("lost/4_control_red", drops_nan));
}
KC_KERNEL("lost/5_fault_again", fake) {
  return scale_env(toy::scale()).launch([](const kc::Buffers& b) {
    fake::log_run("lost/5_fault_again");
    toy::scale_kernel(b);
    fake::plant_fault();
  });
}
KC_KERNEL("lost/6_rowsum_ok", fake) {
  return toy::rowsum()
      .served({{"rows", {1, 6}}, {"cols", {64, 256}}})
      .tile("cols", 64, 8, 8)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["cols"] / 8 + 3); })
      .launch(LOGGED("lost/6_rowsum_ok", toy::rowsum_kernel));
}
KC_KERNEL("lost/7_known", fake) {
  return scale_env(toy::scale()).known(kc::Gate::nonfinite, "NaN becomes 0").launch(LOGGED("lost/7_known", drops_nan));
}

KC_KERNEL("crash/1_fault", fake) {
  return scale_env(toy::scale()).launch([](const kc::Buffers& b) {
    toy::scale_kernel(b);
    fake::plant_fault();
  });
}
KC_KERNEL("crash/2_abort", fake) {
  return scale_env(toy::scale()).launch([](const kc::Buffers&) { std::abort(); });
}
KC_KERNEL("crash/3_ok", fake) { return scale_env(toy::scale()).launch(LOGGED("crash/3_ok", toy::scale_kernel)); }
