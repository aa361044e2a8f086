// The rows family's buffers and fills: names, types and counts; determinism from the seed; gate 1's
// plants in every operand, at Fill::pos, in one row only; random fills with a spread of magnitudes.
#include <cmath>
#include <set>

#include <gtest/gtest.h>

#include "rows_harness.hpp"

namespace {
using namespace rows_test;
using kc::DType;
using kc::Fill;
using kc::FillKind;
using kc::Role;

struct Decl {
  const char* name;
  DType type;
  size_t count;
  Role role;
};

void expect_decls(const kc::Case& c, std::vector<Decl> want) {
  ASSERT_EQ(c.buffers().size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    const auto& d = c.buffers()[i].decl;
    EXPECT_EQ(d.name, want[i].name);
    EXPECT_EQ(d.type, want[i].type) << d.name;
    EXPECT_EQ(d.count, want[i].count) << d.name;
    EXPECT_EQ(d.role, want[i].role) << d.name;
  }
}

TEST(RowsFill, BuffersOfEveryFunction) {
  auto s = shape(3, 40);
  expect_decls(prepared(kc::rows::sum(DType::f32, DType::bf16), s, {}),
               {{"x", DType::f32, 120, Role::in}, {"y", DType::bf16, 3, Role::out}});
  expect_decls(prepared(kc::rows::dot(DType::bf16, DType::f32), s, {}),
               {{"x", DType::bf16, 120, Role::in}, {"w", DType::bf16, 40, Role::in}, {"y", DType::f32, 3, Role::out}});
  expect_decls(prepared(kc::rows::max(DType::f16, DType::f16), s, {}),
               {{"x", DType::f16, 120, Role::in}, {"y", DType::f16, 3, Role::out}});
  expect_decls(prepared(kc::rows::rms_norm(DType::bf16, DType::f16), s, {}),
               {{"x", DType::bf16, 120, Role::in}, {"w", DType::bf16, 40, Role::in}, {"y", DType::f16, 120, Role::out}});
  expect_decls(prepared(kc::rows::softmax(DType::f32, DType::bf16), s, {}),
               {{"x", DType::f32, 120, Role::in}, {"y", DType::bf16, 120, Role::out}});
  expect_decls(prepared(kc::rows::argmax(DType::bf16), s, {}),
               {{"x", DType::bf16, 120, Role::in}, {"id", DType::i32, 3, Role::out}});
  expect_decls(prepared(kc::rows::topk(DType::f32, 4), s, {}),
               {{"x", DType::f32, 120, Role::in}, {"ids", DType::i32, 12, Role::out}, {"vals", DType::f32, 12, Role::out}});
  for (auto e : {kc::rows::geglu(), kc::rows::swiglu()})
    expect_decls(prepared(e, s, {}), {{"g", DType::bf16, 120, Role::in}, {"u", DType::bf16, 120, Role::in},
                                      {"y", DType::bf16, 120, Role::out}});
  for (auto f : {kc::rows::Residual::rounded, kc::rows::Residual::once_rounded})
    expect_decls(prepared(kc::rows::add_rms_norm(f), s, {}),
                 {{"x", DType::bf16, 120, Role::in}, {"r", DType::bf16, 120, Role::in}, {"w", DType::bf16, 40, Role::in},
                  {"h", DType::bf16, 120, Role::out}, {"y", DType::bf16, 120, Role::out}});
}

TEST(RowsFill, DeterministicFromTheSeed) {
  auto e = kc::rows::dot(DType::f32, DType::f32);
  for (FillKind k : {FillKind::random, FillKind::nonfinite, FillKind::sums}) {
    auto a = prepared(e, shape(3, 100), Fill{k, 1, -1}, 7), b = prepared(e, shape(3, 100), Fill{k, 1, -1}, 7);
    auto c = prepared(e, shape(3, 100), Fill{k, 1, -1}, 8);
    EXPECT_EQ(a.buffer("x").bytes, b.buffer("x").bytes) << kc::fill_name(k);
    EXPECT_NE(a.buffer("x").bytes, c.buffer("x").bytes) << kc::fill_name(k);
  }
}

TEST(RowsFill, RandomValuesSpreadInMagnitudeAndSign) {
  auto c = prepared(kc::rows::sum(DType::f32, DType::f32), shape(4, 256), {});
  auto x = values(c, "x");
  std::set<int> exps;
  int neg = 0;
  for (double v : x) {
    ASSERT_TRUE(std::isfinite(v));
    exps.insert(std::ilogb(v));
    neg += v < 0;
  }
  EXPECT_GE(exps.size(), 6u);
  EXPECT_GT(neg, 256);
  EXPECT_LT(neg, 768);
}

// Every plant of every function: the planted operand holds the class at the plant's row and column,
// every other row of it stays finite, and Fill::pos moves the column.
TEST(RowsFill, PlantsInEveryOperand) {
  struct Fn {
    kc::Entry e;
    std::vector<std::string> operands;
    std::vector<bool> per_row;
  };
  std::vector<Fn> fns;
  fns.push_back({kc::rows::sum(DType::f32, DType::f32), {"x"}, {true}});
  fns.push_back({kc::rows::dot(DType::f32, DType::f32), {"x", "w"}, {true, false}});
  fns.push_back({kc::rows::max(DType::bf16, DType::bf16), {"x"}, {true}});
  fns.push_back({kc::rows::rms_norm(DType::bf16, DType::bf16), {"x", "w"}, {true, false}});
  fns.push_back({kc::rows::softmax(DType::f32, DType::f32), {"x"}, {true}});
  fns.push_back({kc::rows::argmax(DType::f32), {"x"}, {true}});
  fns.push_back({kc::rows::topk(DType::f32, 2), {"x"}, {true}});
  fns.push_back({kc::rows::geglu(), {"g", "u"}, {true, true}});
  fns.push_back({kc::rows::swiglu(), {"g", "u"}, {true, true}});
  fns.push_back({kc::rows::add_rms_norm(kc::rows::Residual::rounded), {"x", "r", "w"}, {true, true, false}});
  const int64_t rows = 5, cols = 20;
  for (auto& fn : fns) {
    // Today's four per operand come first (rows_plants_test.cpp checks the rest).
    ASSERT_GT(fn.e.rig.plants.size(), fn.operands.size() * 4);
    for (int p = 0; p < int(fn.operands.size() * 4); ++p) {
      const std::string& op = fn.operands[size_t(p / 4)];
      EXPECT_NE(fn.e.rig.plants[size_t(p)].find(op), std::string::npos) << fn.e.rig.plants[size_t(p)];
      for (int64_t pos : {int64_t(-1), int64_t(0), int64_t(7), int64_t(19), int64_t(45)}) {
        auto c = prepared(fn.e, shape(rows, cols), Fill{FillKind::nonfinite, p, pos});
        int64_t col = pos < 0 ? cols - 1 : pos % cols;
        bool per_row = fn.per_row[size_t(p / 4)];
        int64_t base = per_row ? (rows / 2) * cols : 0;
        for (const auto& other : fn.operands) {
          auto v = values(c, other);
          if (other != op) {
            EXPECT_TRUE(all_finite(v, 0, v.size())) << other << " holds a plant meant for " << op;
            continue;
          }
          double at = v[size_t(base + col)];
          switch (p % 4) {
            case 0: EXPECT_TRUE(std::isnan(at)) << fn.e.rig.plants[size_t(p)]; break;
            case 1: EXPECT_EQ(at, INFINITY); break;
            case 2: EXPECT_EQ(at, -INFINITY); break;
            case 3: {
              EXPECT_EQ(at, INFINITY);
              int nneg = 0;
              for (int64_t j = 0; j < cols; ++j) nneg += v[size_t(base + j)] == -INFINITY;
              EXPECT_EQ(nneg, 1);
              break;
            }
          }
          if (per_row) {  // the other rows stay finite: a NaN must not leak across rows
            EXPECT_TRUE(all_finite(v, 0, size_t(base)));
            EXPECT_TRUE(all_finite(v, size_t(base + cols), v.size()));
          }
        }
      }
    }
  }
}

TEST(RowsFill, OneRowOneColumnShapes) {
  auto e = kc::rows::sum(DType::f32, DType::f32);
  for (int p = 0; p < 4; ++p) {
    auto c = prepared(e, shape(1, 1), Fill{FillKind::nonfinite, p, -1});
    EXPECT_FALSE(std::isfinite(values(c, "x")[0]));
  }
  auto c = prepared(e, shape(1, 1), Fill{FillKind::sums});
  EXPECT_EQ(values(c, "x")[0], 1);
}

TEST(RowsFill, BadShapesAndPlantsAreErrors) {
  auto e = kc::rows::sum(DType::f32, DType::f32);
  kc::Case c(kc::Shape{{"cols", 4}}, {}, 1);
  EXPECT_THROW(e.rig.prepare(c), kc::Error);
  kc::Case z(shape(0, 4), {}, 1);
  EXPECT_THROW(e.rig.prepare(z), kc::Error);
  EXPECT_THROW(prepared(e, shape(2, 4), Fill{FillKind::nonfinite, int(e.rig.plants.size()), -1}), kc::Error);
  EXPECT_THROW(prepared(kc::rows::topk(DType::f32, 8), shape(2, 4), {}), kc::Error);
  EXPECT_THROW(kc::rows::topk(DType::f32, 0), kc::Error);
}

}  // namespace
