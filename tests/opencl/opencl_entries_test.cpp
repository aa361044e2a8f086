// The project's own OpenCL entries on this machine's OpenCL device (PoCL's CPU device in CI): every
// kernel green on every gate, every control red on its gate for its reason and green (or ALSO) on
// the others, each under three seeds; every gate 1-4 has an OpenCL control. An absent backend is a
// failure here, named, never a skip: the test suite's setup installs an OpenCL device.
#include <gtest/gtest.h>

#include <set>

#include "kc/backend.hpp"
#include "kc/registry.hpp"
#include "kc/runner.hpp"

namespace kc {
void PrintTo(const Registration& r, std::ostream* os) { *os << r.backend << ":" << r.name; }
}  // namespace kc

namespace {

kc::RunOptions three_seeds() {
  kc::RunOptions o;
  o.seeds = 3;
  return o;
}

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

std::string test_name(const testing::TestParamInfo<kc::Registration>& i) {
  std::string n = i.param.name;
  for (char& c : n)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

class Kernel : public testing::TestWithParam<kc::Registration> {};
class Control : public testing::TestWithParam<kc::Registration> {};

}  // namespace

TEST(OpenclBackend, IsPresentWithADevice) {
  EXPECT_EQ(opencl().absent(), "") << "no OpenCL device to run on (scripts/setup installs pocl-opencl-icd)";
  EXPECT_NE(opencl().device(), "");
}

TEST_P(Kernel, GreenOnEveryGate) {
  ASSERT_EQ(opencl().absent(), "");
  for (const auto& e : kc::run_entry(GetParam(), opencl(), three_seeds()))
    EXPECT_TRUE(e.status == kc::Status::pass || e.status == kc::Status::na)
        << "gate " << int(e.gate) << " " << kc::status_name(e.status) << " " << e.why << " at " << e.shape << ": "
        << e.detail;
}

TEST_P(Control, RedOnItsGateGreenOnTheOthers) {
  ASSERT_EQ(opencl().absent(), "");
  kc::Entry spec = kc::build(GetParam());
  int red = 0;
  for (const auto& e : kc::run_entry(GetParam(), opencl(), three_seeds())) {
    if (e.gate == *spec.spec.control_gate) {
      EXPECT_EQ(e.status, kc::Status::control_red) << "gate " << int(e.gate) << ": " << e.detail;
      red += e.status == kc::Status::control_red;
    } else {
      EXPECT_TRUE(e.status == kc::Status::pass || e.status == kc::Status::na || e.status == kc::Status::also)
          << "gate " << int(e.gate) << " " << kc::status_name(e.status) << " " << e.why << ": " << e.detail;
    }
  }
  EXPECT_GT(red, 0) << "its gate never ran";
}

INSTANTIATE_TEST_SUITE_P(Opencl, Kernel, testing::ValuesIn(opencl_entries(false)), test_name);
INSTANTIATE_TEST_SUITE_P(Opencl, Control, testing::ValuesIn(opencl_entries(true)), test_name);

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
