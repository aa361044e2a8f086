// Formulas through the runner on the CPU: an embedding gather by ids with a stated bad-id rule (a
// kernel that keeps it passes, one that clamps fails at the bad_ids fill), a dot whose exact integer
// sums let gate 4 tell an fp16 sum (named as such), and a formula's own mistakes as errors that name
// them (a buffer it lacks, an output never written, a sum without .sums); a spec's ulps of a function
// the formula does not read added to its bound.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "gates/gates.hpp"
#include "kc/backend.hpp"
#include "kc/formula.hpp"
#include "kc/numeric.hpp"
#include "kc/registry.hpp"
#include "kc/runner.hpp"
#include "run_cpu_entry.hpp"

namespace {

using kc::DType;
using kc::Gate;
using kc::Status;
namespace F = kc::formula;

kc::Entry gather(F::BadId bad) {
  return F::Formula()
      .in("table", DType::f32, {"vocab", "dim"})
      .ids("ids", {"tokens"}, "table", bad)
      .out("y", DType::f32, {"tokens", "dim"})
      .each({"tokens"}, [](auto& f) {
        auto row = f.row("table", f.id("ids"));
        for (int64_t j = 0; j < row.size(); ++j) f.out("y")[j] = row[j];
      })
      .entry()
      .served({{"vocab", {5, 100}}, {"tokens", {1, 9}}, {"dim", {8, 33}}});
}

void gather_cpu(const kc::Buffers& b, bool clamp) {
  const int64_t vocab = b.shape()["vocab"], tokens = b.shape()["tokens"], dim = b.shape()["dim"];
  const float* t = b.in<float>("table");
  const int32_t* ids = b.in<int32_t>("ids");
  float* y = b.out<float>("y");
  for (int64_t i = 0; i < tokens; ++i) {
    int64_t id = ids[i];
    const bool bad = id < 0 || id >= vocab;
    if (clamp) id = std::clamp<int64_t>(id, 0, vocab - 1);
    for (int64_t j = 0; j < dim; ++j) y[i * dim + j] = bad && !clamp ? 0.0f : t[id * dim + j];
  }
}

kc::Entry dot() {
  return F::Formula()
      .in("x", DType::f32, {"rows", "cols"})
      .in("w", DType::f32, {"cols"})
      .out("y", DType::f32, {"rows"})
      .each({"rows"}, [](auto& f) {
        auto x = f.in("x"), w = f.in("w");
        f.out("y")[0] = f.sum(x.size(), [&](int64_t k) { return x[k] * w[k]; });
      })
      .entry()
      .served({{"rows", {1, 7}}, {"cols", {16, 200}}})
      .sums(DType::f32, [](const kc::Shape& s) { return double(s["cols"]); });
}

void dot_cpu(const kc::Buffers& b, bool half) {
  const int64_t rows = b.shape()["rows"], cols = b.shape()["cols"];
  auto h = [&](float v) { return half ? kc::from_f16(kc::to_f16(v)) : v; };
  for (int64_t r = 0; r < rows; ++r) {
    float s = 0;
    for (int64_t c = 0; c < cols; ++c) s = h(s + h(b.in<float>("x")[r * cols + c] * b.in<float>("w")[c]));
    b.out<float>("y")[r] = s;
  }
}

}  // namespace

KC_KERNEL("formula/gather/zero", cpu) {
  return gather(F::BadId::zero).launch([](const kc::Buffers& b) { gather_cpu(b, false); });
}
KC_KERNEL("formula/gather/clamps", cpu) {
  return gather(F::BadId::zero).launch([](const kc::Buffers& b) { gather_cpu(b, true); });
}
KC_KERNEL("formula/dot/f32", cpu) { return dot().launch([](const kc::Buffers& b) { dot_cpu(b, false); }); }
KC_KERNEL("formula/dot/f16_sum", cpu) { return dot().launch([](const kc::Buffers& b) { dot_cpu(b, true); }); }
KC_KERNEL("formula/mistake/no_buffer", cpu) {
  return F::Formula()
      .in("x", DType::f32, {"rows"})
      .out("y", DType::f32, {"rows"})
      .each({"rows"}, [](auto& f) { f.out("y")[0] = f.in("z")[0]; })
      .entry()
      .served({{"rows", {4}}})
      .launch([](const kc::Buffers&) {});
}
KC_KERNEL("formula/mistake/unwritten", cpu) {
  return F::Formula()
      .in("x", DType::f32, {"rows", "cols"})
      .out("y", DType::f32, {"rows", "cols"})
      .each({"rows"}, [](auto& f) { f.out("y")[0] = f.in("x")[0]; })
      .entry()
      .served({{"rows", {4}}, {"cols", {3}}})
      .launch([](const kc::Buffers&) {});
}
KC_KERNEL("formula/mistake/undeclared_sum", cpu) {
  return F::Formula()
      .in("x", DType::f32, {"rows", "cols"})
      .out("y", DType::f32, {"rows"})
      .each({"rows"}, [](auto& f) { f.out("y")[0] = f.sum(f.in("x").size(), [&](int64_t k) { return f.in("x")[k]; }); })
      .entry()
      .served({{"rows", {4}}, {"cols", {3}}})
      .launch([](const kc::Buffers&) {});
}

namespace {

std::map<Gate, kc::GateEvent> run(const std::string& name) { return kc_test::run_cpu_entry(name); }

TEST(Formula, AGatherKeepingItsBadIdRulePasses) {
  auto v = run("formula/gather/zero");
  for (Gate g : {Gate::nonfinite, Gate::repeat, Gate::shapes})
    EXPECT_EQ(v[g].status, Status::pass) << kc::gate_name(g) << ": " << v[g].detail;
  EXPECT_NE(v[Gate::shapes].detail.find("bad_ids"), std::string::npos) << v[Gate::shapes].detail;
}

TEST(Formula, AGatherThatClampsFailsAtTheBadIdsFill) {
  auto v = run("formula/gather/clamps");
  EXPECT_EQ(v[Gate::shapes].status, Status::fail) << v[Gate::shapes].detail;
  EXPECT_NE(v[Gate::shapes].shape.find("fill=bad_ids"), std::string::npos) << v[Gate::shapes].shape;
}

TEST(Formula, ExactIntegerSumsLetGateFourNameAnFp16Sum) {
  auto v = run("formula/dot/f32");
  for (Gate g : {Gate::nonfinite, Gate::repeat, Gate::shapes, Gate::sums})
    EXPECT_EQ(v[g].status, Status::pass) << kc::gate_name(g) << ": " << v[g].detail;
  auto h = run("formula/dot/f16_sum");
  EXPECT_EQ(h[Gate::sums].status, Status::fail) << h[Gate::sums].detail;
  EXPECT_NE(h[Gate::sums].detail.find("matches an fp16 chain sum"), std::string::npos) << h[Gate::sums].detail;
}

TEST(Formula, AFormulasMistakesAreErrorsThatNameThem) {
  auto a = run("formula/mistake/no_buffer");
  EXPECT_EQ(a[Gate::nonfinite].status, Status::error);
  EXPECT_NE(a[Gate::nonfinite].detail.find("no buffer 'z'"), std::string::npos) << a[Gate::nonfinite].detail;
  auto b = run("formula/mistake/unwritten");
  EXPECT_NE(b[Gate::nonfinite].detail.find("y[1] is never written"), std::string::npos) << b[Gate::nonfinite].detail;
  auto c = run("formula/mistake/undeclared_sum");
  EXPECT_NE(c[Gate::nonfinite].detail.find("declare the kernel's sums"), std::string::npos) << c[Gate::nonfinite].detail;
}

// A spec's ulps of a function the formula reads (expf) are the formula's own, counted in its error;
// one it does not read (a kernel's own exp form, as the CUDA and OpenCL softmax rows declare) is a
// step beyond the formula, added on |want| as the spec's ops are.
TEST(FormulaBound, UlpsOfFunctionsItDoesNotReadAreAdded) {
  auto make = [] {
    return F::Formula()
        .in("x", DType::f32, {"n"})
        .out("y", DType::f32, {"n"})
        .each({"n"}, [](auto& f) { f.out("y")[0] = f.exp(f.in("x")[0]); })
        .entry()
        .served({{"n", {4}}});
  };
  const kc::Entry base = make().ulp("expf", 1);
  const kc::Entry more = make().ulp("expf", 1).ulp("ex2 and its argument's roundings", 6);
  EXPECT_TRUE(F::reads_ulp("expf") && !F::reads_ulp("ex2 and its argument's roundings"));
  kc::Case c(kc::Shape{{"n", 4}}, kc::Fill{}, 1);
  c.spec = &base.spec;
  base.rig.prepare(c);
  const auto e = base.rig.reference(c);
  ASSERT_EQ(e[0].err.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    const double b0 = kc::detail::bound_at(base.spec, c.buffer("y"), e[0], i, c.shape(), true);
    const double b1 = kc::detail::bound_at(more.spec, c.buffer("y"), e[0], i, c.shape(), true);
    const double added = 6 * 2 * 0x1p-24 * (1 + 0x1p-24) * std::fabs(e[0].want[i]);
    EXPECT_GT(e[0].err[i], 0);
    EXPECT_NEAR(b1 - b0, added, 1e-9 * added) << i;
  }
}

}  // namespace
