// The glue families' float64 references against values computed by hand (mpmath at 40 digits), on
// inputs written into a prepared case: RoPE's exact angle at positions 10^6 and 2^20 - 1, with the
// bound its fp32 angle pos * inv_freq costs there (wide enough for fp32's cosf of that angle, and
// no wider than the angle's two roundings allow); an embedding id at the table's last row, and the
// stated rule one past it.
#include <gtest/gtest.h>

#include <cmath>

#include "kc/families/embedding.hpp"
#include "kc/families/l2norm.hpp"
#include "kc/families/rope.hpp"
#include "kc/numeric.hpp"

namespace {

kc::Case prepared(const kc::Entry& e, const kc::Shape& s) {
  kc::Case c(s, kc::Fill{}, 7);
  c.spec = &e.spec;
  e.rig.prepare(c);
  return c;
}

const kc::Expected& out(const std::vector<kc::Expected>& v, const std::string& name) {
  for (const auto& e : v)
    if (e.name == name) return e;
  throw std::runtime_error("no output " + name);
}

struct Hand {
  int64_t pos;
  int pair;
  double cos, sin;  // of pos * 10000^(-2 pair / 64), by mpmath at 40 digits
};
constexpr Hand kHand[] = {
    {1000000, 0, 0.93675212753314478694, -0.34999350217129295212},
    {1000000, 1, -0.68551407414563423185, 0.72805937542775581841},
    {1000000, 31, 0.16478947180630990227, 0.98632876363908063504},
    {1048575, 0, 0.78804223952892746867, -0.61562117305875088409},
    {1048575, 1, 0.099544366668901119727, -0.99503312460665718673},
    {1048575, 31, -0.028846486199267820672, 0.99958385352803466098},
};

// q's head: 1 at the pair's first element, 0 elsewhere, so y_a = cos and y_b = sin of its angle.
TEST(RopeReference, TheExactAngleAtLargePositions) {
  const auto e = kc::rope::contract({});
  const kc::Shape s{{"tokens", 1}, {"heads", 1}, {"kv", 1}, {"dim", 64}};
  for (const Hand& h : kHand) {
    kc::Case c = prepared(e, s);
    c.get_mut<int32_t>("positions")[0] = int32_t(h.pos);
    auto q = c.get_mut<kc::bf16>("q");
    for (size_t k = 0; k < q.size(); ++k) q[k] = kc::to_bf16(k == size_t(h.pair) ? 1.0f : 0.0f);
    const auto ref = e.rig.reference(c);
    const auto& y = out(ref, "q_out");
    const size_t a = size_t(h.pair), b = size_t(h.pair + 32);
    // float64's angle: pos * theta^(-2i/64) to a few double ulps of itself (1e-10 rad at 10^6),
    // a million times finer than the fp32 angle the bound allows for.
    const double exact_to = 8 * std::ldexp(double(h.pos), -52);
    EXPECT_NEAR(y.want[a], h.cos, exact_to) << "pos " << h.pos << " pair " << h.pair;
    EXPECT_NEAR(y.want[b], h.sin, exact_to) << "pos " << h.pos << " pair " << h.pair;
    // The bound on y_a: what the fp32 angle costs. At pair 0 the angle is pos itself, an fp32
    // integer, exact: only cosf's ulps remain. At pair 1 the fp32 product pos * inv_freq rounds
    // at up to 2^-4 of a radian, and so does the fp32 inv_freq: a kernel's cosf of its own angle
    // must be inside, and the bound is no more than those roundings and cosf's.
    const float inv = float(kc::rope::inv_freq(h.pair, 64, 10000));
    const float angle = float(h.pos) * inv;
    const double kernel = double(std::cos(angle));
    const double err = y.err[a];
    EXPECT_LE(std::fabs(kernel - y.want[a]), err) << "pos " << h.pos << " pair " << h.pair;
    const double ulp = std::ldexp(1.0, std::ilogb(double(h.pos) * kc::rope::inv_freq(h.pair, 64, 10000)) - 23);
    EXPECT_LE(err, 2.5 * ulp + 1e-6) << "pos " << h.pos << " pair " << h.pair;
    if (h.pair == 1) {
      EXPECT_GE(err, 0.5 * ulp) << "the fp32 angle's rounding is in the bound";
    }
  }
}

TEST(EmbeddingReference, AnIdAtTheTablesLastRowAndOnePast) {
  const auto e = kc::embedding::gather(kc::DType::f32);
  const kc::Shape s{{"vocab", 5}, {"hidden", 8}, {"tokens", 3}};
  kc::Case c = prepared(e, s);
  auto ids = c.get_mut<int32_t>("ids");
  ids[0] = 4, ids[1] = 5, ids[2] = -1;  // the last row; one past it; negative
  auto table = c.get_mut<float>("table");
  for (size_t k = 0; k < table.size(); ++k) table[k] = float(k) + 0.25f;  // row r, column j: 8 r + j + 1/4
  const auto ref = e.rig.reference(c);
  const auto& y = out(ref, "y");
  for (int j = 0; j < 8; ++j) {
    EXPECT_EQ(y.want[size_t(j)], 32 + j + 0.25) << j;
    EXPECT_EQ(y.lo[size_t(j)], y.hi[size_t(j)]) << "a copied row is checked bit-exact";
    EXPECT_EQ(y.want[size_t(8 + j)], 0.0) << "id 5 of 5 rows: zeros by the stated rule";
    EXPECT_EQ(y.want[size_t(16 + j)], 0.0) << "id -1: zeros by the stated rule";
  }
}

// L2 norm of the row (3, 4, 0, ...): y = (0.6, 0.8) up to eps.
TEST(L2NormReference, AHandRow) {
  auto e = kc::l2norm::rows(kc::l2norm::Residual::none, 0.0);
  std::move(e).sums(kc::DType::f32, [](const kc::Shape& sh) { return double(sh["cols"]); });
  const kc::Shape s{{"rows", 1}, {"cols", 8}};
  kc::Case c = prepared(e, s);
  auto x = c.get_mut<kc::bf16>("x");
  for (size_t k = 0; k < x.size(); ++k) x[k] = kc::to_bf16(k == 0 ? 3.0f : k == 1 ? 4.0f : 0.0f);
  const auto ref = e.rig.reference(c);
  const auto& y = out(ref, "y");
  EXPECT_DOUBLE_EQ(y.want[0], 0.6);
  EXPECT_DOUBLE_EQ(y.want[1], 0.8);
  EXPECT_EQ(y.want[2], 0.0);
}

}  // namespace
