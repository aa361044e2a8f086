// The float64 references of the MoE, scan and sampling families on hand-made inputs.
#include <cmath>

#include <gtest/gtest.h>

#include "kc/families/moe.hpp"
#include "kc/families/sampling.hpp"
#include "kc/families/scan.hpp"
#include "kc/numeric.hpp"

namespace {
using kc::DType;

// The entry's inputs at shape s, then the named ones overwritten with hand-made values.
kc::Case with(const kc::Entry& e, kc::Shape s, std::vector<std::pair<std::string, std::vector<double>>> in) {
  kc::Case c(s, kc::Fill{}, 42);
  c.spec = &e.spec;
  e.rig.prepare(c);
  for (auto& [name, v] : in) {
    kc::HostBuffer& b = const_cast<kc::HostBuffer&>(c.buffer(name));
    EXPECT_EQ(v.size(), b.decl.count) << name;
    for (size_t i = 0; i < v.size(); ++i) kc::store_from_double(b.bytes.data(), b.decl.type, i, v[i]);
  }
  return c;
}
const kc::Expected& out(const std::vector<kc::Expected>& ex, const std::string& name) {
  for (const auto& e : ex)
    if (e.name == name) return e;
  throw std::runtime_error("no output " + name);
}
kc::Entry route(kc::moe::Route r) {
  return kc::moe::route_formula(r).entry().served({{"tokens", {1, 2}}, {"experts", {64}}}).sums(
      DType::f32, [](const kc::Shape&) { return 8.0; });
}
std::vector<double> logits(std::vector<std::pair<int, double>> set, int tokens = 1) {
  std::vector<double> v(size_t(64 * tokens), -1.0);
  for (auto [i, x] : set) v[size_t(i)] = x;
  return v;
}

TEST(MoeRoute, TieGoesToTheLowerExpert) {
  auto e = route({kc::moe::Score::softmax, 2, false});
  auto c = with(e, {{"tokens", 1}, {"experts", 64}}, {{"logits", logits({{9, 2.0}, {5, 2.0}})}});
  auto ex = e.rig.reference(c);
  EXPECT_EQ(out(ex, "ids").want, (std::vector<double>{5, 9}));
  EXPECT_EQ(out(ex, "weights").want, (std::vector<double>{0.5, 0.5}));
  // Top-1 of the same tie: the lower expert, weight 1.
  auto e1 = route({kc::moe::Score::softmax, 1, false});
  auto c1 = with(e1, {{"tokens", 1}, {"experts", 64}}, {{"logits", logits({{9, 2.0}, {5, 2.0}})}});
  EXPECT_EQ(out(e1.rig.reference(c1), "ids").want, (std::vector<double>{5}));
}

TEST(MoeRoute, NanLogitRanksAboveInfinityAndPoisonsTheWeights) {
  auto e = route({kc::moe::Score::softmax, 2, false});
  auto c = with(e, {{"tokens", 1}, {"experts", 64}}, {{"logits", logits({{3, INFINITY}, {7, NAN}})}});
  auto ex = e.rig.reference(c);
  EXPECT_EQ(out(ex, "ids").want, (std::vector<double>{7, 3}));
  EXPECT_TRUE(std::isnan(out(ex, "weights").want[0]));
  EXPECT_TRUE(std::isnan(out(ex, "weights").want[1]));
}

TEST(MoeRoute, SigmoidBiasPicksButDoesNotWeigh) {
  auto e = route({kc::moe::Score::sigmoid, 2, true});
  std::vector<double> bias(64, 0.0);
  bias[20] = 0.7;  // expert 20 (logit -1: key 0.969) beats 10 (logit 2: key 0.881) and 30 (0.731), weighs its own
  auto c = with(e, {{"tokens", 1}, {"experts", 64}}, {{"logits", logits({{10, 2.0}, {30, 1.0}})}, {"bias", bias}});
  auto ex = e.rig.reference(c);
  EXPECT_EQ(out(ex, "ids").want, (std::vector<double>{20, 10}));
  const double s20 = 1 / (1 + std::exp(1.0)), s10 = 1 / (1 + std::exp(-2.0));
  EXPECT_DOUBLE_EQ(out(ex, "weights").want[0], s20 / (s20 + s10));
  EXPECT_DOUBLE_EQ(out(ex, "weights").want[1], s10 / (s20 + s10));
}

TEST(MoeRoute, ExpertMajorOrder) {
  // Token 0 picks 4 then 1, token 1 picks 1 then 63: expert 1 holds slots 1 and 2, 4 slot 0, 63 slot 3.
  auto v = logits({{4, 3.0}, {1, 2.0}, {64 + 1, 5.0}, {64 + 63, 4.0}}, 2);
  auto e = route({kc::moe::Score::softmax, 2, false});
  auto ex = e.rig.reference(with(e, {{"tokens", 2}, {"experts", 64}}, {{"logits", v}}));
  EXPECT_EQ(out(ex, "ids").want, (std::vector<double>{4, 1, 1, 63}));
  EXPECT_EQ(out(ex, "perm").want, (std::vector<double>{1, 2, 0, 3}));
  const auto& counts = out(ex, "counts").want;
  const auto& offsets = out(ex, "offsets").want;
  EXPECT_EQ(counts[1], 2);
  EXPECT_EQ(counts[4], 1);
  EXPECT_EQ(counts[63], 1);
  EXPECT_EQ(offsets[1], 0);
  EXPECT_EQ(offsets[4], 2);
  EXPECT_EQ(offsets[63], 3);
}

TEST(Scan, OneStep) {
  auto e = kc::scan::selective().entry().served({{"steps", {1}}, {"channels", {1}}, {"state", {2}}}).sums(
      DType::f32, [](const kc::Shape&) { return 2.0; });
  auto c = with(e, {{"steps", 1}, {"channels", 1}, {"state", 2}},
                {{"x", {2}}, {"dt", {0.5}}, {"a", {1, 2}}, {"B", {1, -1}}, {"C", {3, 1}}, {"h0", {1, 2}}});
  auto ex = e.rig.reference(c);
  const double h1 = std::exp(-0.5) * 1 + 1.0, h2 = std::exp(-1.0) * 2 - 1.0;
  EXPECT_DOUBLE_EQ(out(ex, "h").want[0], h1);
  EXPECT_DOUBLE_EQ(out(ex, "h").want[1], h2);
  EXPECT_DOUBLE_EQ(out(ex, "y").want[0], 3 * h1 + h2);
}

TEST(Sampling, DrawAtABucketEdge) {
  auto e = kc::sampling::draw(50).entry().served({{"rows", {1}}, {"vocab", {3}}});
  // Kept in order ids 1, 0, 2 (the tie 0.25 to the lower id): running sums 0.5, 0.75, 1.
  auto id = [&](double u, double top_p) {
    auto c = with(e, {{"rows", 1}, {"vocab", 3}}, {{"p", {0.25, 0.5, 0.25}}, {"u", {u}}, {"top_p", {top_p}}});
    return out(e.rig.reference(c), "id").want[0];
  };
  EXPECT_EQ(id(0.5, 1), 0);           // u at the first edge: a sum must exceed u, so the next bucket
  EXPECT_EQ(id(127.0 / 256, 1), 1);   // just below it
  EXPECT_EQ(id(0.75, 1), 2);          // at the second edge: the last bucket
  EXPECT_EQ(id(0.99609375, 0.5), 1);  // top_p 0.5 keeps the first bucket alone
}

TEST(Sampling, GreedyTieAndNan) {
  auto e = kc::sampling::greedy(DType::f32).entry().served({{"rows", {2}}, {"vocab", {4}}});
  auto c = with(e, {{"rows", 2}, {"vocab", 4}}, {{"logits", {1, 3, 3, 2, 1, INFINITY, NAN, NAN}}});
  EXPECT_EQ(out(e.rig.reference(c), "id").want, (std::vector<double>{1, 2}));
}

}  // namespace
