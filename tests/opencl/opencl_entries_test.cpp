// The OpenCL backend on this machine's device (PoCL's CPU device in CI): present, an OpenCL kernel of
// the tree for each rows kernel and the GEMV, and a control for every gate 1-4. An absent backend is a
// failure here, named, never a skip: the test suite's setup installs an OpenCL device. (Each OpenCL
// entry itself, green on every gate or red on its own, is a CTest test of its own: tests/contract.)
#include <gtest/gtest.h>

#include <set>

#include "kc/backend.hpp"
#include "kc/registry.hpp"

namespace {

kc::Backend& opencl() {
  static auto all = kc::make_backends();
  for (auto& b : all)
    if (b->name() == "opencl") return *b;
  throw kc::Error("this build has no opencl backend");
}

std::vector<kc::Registration> opencl_entries(bool controls) {
  std::vector<kc::Registration> v;
  for (const auto& r : kc::registry())
    if (r.backend == "opencl" && r.control == controls) v.push_back(r);
  return v;
}

}  // namespace

TEST(OpenclBackend, IsPresentWithADevice) {
  EXPECT_EQ(opencl().absent(), "") << "no OpenCL device to run on (scripts/setup installs pocl-opencl-icd)";
  EXPECT_NE(opencl().device(), "");
}

TEST(Controls, EveryGateHasAnOpenclControl) {
  std::set<kc::Gate> gates;
  for (const auto& r : opencl_entries(true)) gates.insert(*kc::build(r).spec.control_gate);
  for (kc::Gate g : {kc::Gate::nonfinite, kc::Gate::repeat, kc::Gate::shapes, kc::Gate::sums})
    EXPECT_TRUE(gates.count(g)) << "no OpenCL control proves gate " << int(g) << " can fail";
}

TEST(Entries, EveryOpenclKernelOfTheTreeIsRegistered) {
  std::set<std::string> names;
  for (const auto& r : opencl_entries(false)) names.insert(r.name);
  for (const char* n : {"rows/sum/f32", "rows/max/bf16", "rows/dot/f32", "rows/argmax/bf16", "rows/rms_norm/bf16_out",
                        "rows/softmax/bf16", "rows/add_rms_norm/rounded", "rows/add_rms_norm/once_rounded",
                        "rows/geglu/bf16", "rows/swiglu/bf16", "rows/topk/bf16_k8", "rows/topk/bf16_k64",
                        "dense/gemv/f32", "dense/gemv/bf16"})
    EXPECT_TRUE(names.count(n)) << n << " has no OpenCL entry";
}
