// Toy entries for the harness's own tests: small, exact formulas whose kernels can be broken on
// purpose, one way per test. Not served kernels (those live in kernels/).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "kc/spec.hpp"

namespace toy {
// y[r,c] = 2 x[r,c], f32 (exact in fp32). Plants NaN / +Inf / -Inf / both in x.
kc::Entry scale();
// y[r] = sum_c x[r,c], f32. Gate 4 fill: integers reaching 2^20 with a mirrored second half when
// strong, small integers (fp16 sums exact: a fill too weak to tell) when not.
kc::Entry rowsum(bool strong = true);
// Kernels for them.
void scale_kernel(const kc::Buffers& b);
void rowsum_kernel(const kc::Buffers& b);  // sums in 8 lanes over the row, fp32
float lanes_sum(const float* x, int64_t n);  // what rowsum_kernel does for one row
// What a toy launch hook says it started, for a backend in the tests that watches launches
// (launch_watch_test.cpp): a function's name, its block, and the stream it ran on ("" the harness's).
struct ToyLaunch {
  std::string fn;
  int threads;
  std::string stream;
};
void launched(std::string fn, int threads, std::string stream = "");
std::vector<ToyLaunch> take_launched();
// A chained toy's wait on the kernel ahead (griddepcontrol.wait's stand-in): runs the hook a test
// backend set (chained_test.cpp: its upstream kernel's late writes land), else nothing.
void wait_ahead();
void on_wait_ahead(std::function<void()> hook);
}  // namespace toy
