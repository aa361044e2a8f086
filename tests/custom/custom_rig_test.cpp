// The rotary-embedding rig of examples/outside_cuda, built from kc/families/blocks.hpp, on the CPU:
// its correct twin passes gates 1-3 (gate 4 does not apply: no sums); the same kernel judged
// without the rig's per-output scale fails gate 3 on the pairs drawn to cancel, and a kernel with
// bf16 products fails it with the scale. So the error model is both needed and not loose.
#include <gtest/gtest.h>

#include <map>

#include "../../examples/outside_cuda/rope_contract.hpp"
#include "kc/backend.hpp"
#include "kc/numeric.hpp"
#include "kc/registry.hpp"
#include "kc/runner.hpp"

namespace {

using kc::Gate;
using kc::Status;

// x0 c -+ x1 s per pair, with the products rounded to `products` first (f32: the right kernel).
void rotate(const kc::Buffers& b, const char* in, const char* out, int64_t heads, kc::DType products) {
  const rope::Dims d = rope::dims_of(b.shape());
  const int64_t half = d.dim / 2;
  const kc::bf16* x = b.in<kc::bf16>(in);
  kc::bf16* y = b.out<kc::bf16>(out);
  const float* cache = b.in<float>("cache");
  const int32_t* pos = b.in<int32_t>("positions");
  auto p = [&](float v) { return products == kc::DType::bf16 ? kc::from_bf16(kc::to_bf16(v)) : v; };
  for (int64_t t = 0; t < d.tokens; ++t)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t i = 0; i < half; ++i) {
        const int64_t a = (t * heads + h) * d.dim + i, bb = a + half;
        const float x0 = kc::from_bf16(x[a]), x1 = kc::from_bf16(x[bb]);
        const float c = cache[pos[t] * d.dim + i], s = cache[pos[t] * d.dim + half + i];
        y[a] = kc::to_bf16(p(x0 * c) - p(x1 * s));
        y[bb] = kc::to_bf16(p(x1 * c) + p(x0 * s));
      }
}

kc::Entry with_kernel(kc::Entry e, kc::DType products) {
  return std::move(e).launch([products](const kc::Buffers& b) {
    const rope::Dims d = rope::dims_of(b.shape());
    rotate(b, "q", "q_out", d.heads, products);
    rotate(b, "k", "k_out", d.kv, products);
  });
}

}  // namespace

// The right kernel judged on |y| alone: the scale the rig states is dropped.
KC_KERNEL("custom/rope/no_scale", cpu) {
  kc::Entry e = rope::contract();
  auto ref = e.rig.reference;
  e.rig.reference = [ref](const kc::Case& c) {
    auto v = ref(c);
    for (auto& x : v) x.scale.clear();
    return v;
  };
  return with_kernel(std::move(e), kc::DType::f32);
}
KC_KERNEL("custom/rope/bf16_products", cpu) { return with_kernel(rope::contract(), kc::DType::bf16); }

namespace {

std::map<Gate, kc::GateEvent> run(const std::string& name) {
  static auto backends = kc::make_backends();
  for (const auto& r : kc::registry())
    if (r.name == name && r.backend == "cpu") {
      std::map<Gate, kc::GateEvent> m;
      for (auto& e : kc::run_entry(r, *backends.front(), {}, {})) m[e.gate] = e;
      return m;
    }
  throw std::runtime_error("no entry " + name);
}

TEST(CustomRig, TheRotaryTwinPassesGatesOneToThree) {
  auto v = run("outside/rope/bf16");
  for (Gate g : {Gate::nonfinite, Gate::repeat, Gate::shapes})
    EXPECT_EQ(v[g].status, Status::pass) << kc::gate_name(g) << ": " << v[g].detail;
  EXPECT_EQ(v[Gate::sums].status, Status::na) << v[Gate::sums].detail;
}

TEST(CustomRig, WithoutItsScaleACorrectRotationFailsWhereItCancels) {
  auto v = run("custom/rope/no_scale");
  EXPECT_EQ(v[Gate::shapes].status, Status::fail) << v[Gate::shapes].detail;
  EXPECT_EQ(v[Gate::shapes].why, "bound") << v[Gate::shapes].detail;
}

TEST(CustomRig, TheScaleStillCatchesBf16Products) {
  auto v = run("custom/rope/bf16_products");
  EXPECT_EQ(v[Gate::shapes].status, Status::fail) << v[Gate::shapes].detail;
  EXPECT_EQ(v[Gate::shapes].why, "bound") << v[Gate::shapes].detail;
}

}  // namespace
