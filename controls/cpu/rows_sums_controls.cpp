// Gate 4's planted control for the rows family on the CPU: red on gate 4 (bound), green on the others.
#include "../../kernels/rows/cpu_tiles.hpp"
#include "kc/families/rows.hpp"
#include "kc/registry.hpp"

namespace {
using namespace kc::rows_cpu;

// Gate 4: a dot summed in fp16 (each product rounded to fp16, the chain in fp16), bf16 out. Its
// random inputs are small positive integers (1 to 4) and it serves at most 128 columns, so each
// fp16 partial sum (at most 2048) is exact and gates 1-3 see a correct kernel; gate 4's integer
// rows reach 2^16 and more, which fp16 cannot hold.
void half_dot(const kc::Buffers& b) {
  const int64_t rows = b.shape()["rows"], cols = b.shape()["cols"];
  const float* x = b.in<float>("x");
  const float* w = b.in<float>("w");
  kc::bf16* y = b.out<kc::bf16>("y");
  auto h = [](float v) { return kc::from_f16(kc::to_f16(v)); };
  for (int64_t r = 0; r < rows; ++r) {
    float s = 0;
    for (int64_t c = 0; c < cols; ++c) s = h(s + h(x[r * cols + c] * w[c]));
    y[r] = kc::to_bf16(s);
  }
}

kc::Entry half_dot_entry() {
  kc::Entry e = kc::rows::dot(kc::DType::f32, kc::DType::bf16)
                    .served({{"rows", {1, 3, 64}}, {"cols", {64, 128}}})
                    .tile("cols", 64, 1, 1)
                    .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["cols"]) + 1; });
  // Random fills become small positive integers, where an fp16 sum of <= 128 terms is exact.
  auto family = e.rig.prepare;
  e.rig.prepare = [family](kc::Case& c) {
    family(c);
    if (c.fill().kind != kc::FillKind::random) return;
    uint64_t s = c.seed();
    auto next = [&s] { return (s = s * 6364136223846793005ull + 1442695040888963407ull) >> 33; };
    for (const char* name : {"x", "w"}) {
      auto v = c.get_mut<float>(name);
      for (auto& f : v) f = float(1 + next() % 4);
    }
  };
  return e;
}

}  // namespace

KC_CONTROL("rows/dot/half_sum", cpu) {
  return half_dot_entry().control(kc::Gate::sums, kc::Why::bound).launch(half_dot);
}
