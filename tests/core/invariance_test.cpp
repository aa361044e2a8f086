// The invariance check (gate 6): a row sum stating rows invariant passes it; one whose split is
// chosen by the batch size, one whose order depends on a row's position and one reading its
// neighbour fail it for batch_variant (each still a correct fp32 sum at gates 1-4); an entry that
// states nothing has no invariance line; a stated dim the spec lacks, and an output that does not
// grow with the dim, are errors naming them.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "harness.hpp"
#include "kc/families/rows.hpp"
#include "kc/numeric.hpp"

namespace {
using kc::Gate;

enum class Kind { ok, split_by_batch, odd_rows_reversed, reads_neighbour, bad_dim };

template <Kind K> void row_sum(const kc::Buffers& b) {
  const int64_t rows = b.shape()["rows"], cols = b.shape()["cols"];
  const float* x = b.in<float>("x");
  for (int64_t r = 0; r < rows; ++r) {
    float s = 0;
    // Each order a correct fp32 chain; which one depends on the batch, the position or (reading
    // its neighbour's first value) the row beside it.
    const bool reversed = (K == Kind::odd_rows_reversed && r % 2) || (K == Kind::split_by_batch && rows < 4) ||
                          (K == Kind::reads_neighbour && rows > 1 && x[((r + 1) % rows) * cols] > 0);
    for (int64_t c = 0; c < cols; ++c) s += x[r * cols + (reversed ? cols - 1 - c : c)];
    b.out<float>("y")[r] = s;
  }
}

template <Kind K> kc::Entry entry() {
  return kc::rows::sum(kc::DType::f32, kc::DType::f32)
      .served({{"rows", {2, 5, 9}}, {"cols", {64, 100}}})
      .range("cols", 1, 1)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["cols"]) + 1; })
      .invariant(K == Kind::bad_dim ? "batch" : "rows")
      .launch(row_sum<K>);
}

std::map<Gate, kc::GateEvent> run(const std::string& name, kc::Entry (*make)()) {
  const kc::Registration reg{name, "cpu", __FILE__, __LINE__, false, make};
  std::map<Gate, kc::GateEvent> v;
  for (auto& e : kc::run_entry(reg, testing_kc::cpu(), kc::RunOptions{}, {})) v[e.gate] = e;
  return v;
}

TEST(Invariance, RowSumPassesInEveryBatch) {
  auto v = run("t/inv/ok", entry<Kind::ok>);
  ASSERT_TRUE(v.count(Gate::invariance));
  EXPECT_EQ(v[Gate::invariance].status, kc::Status::pass) << v[Gate::invariance].detail;
  // Rows 9 against 1 (the single row), 2, 5 and 9 itself, moved.
  EXPECT_NE(v[Gate::invariance].detail.find("in 4 batches (rows at 1, 2, 5, 9)"), std::string::npos)
      << v[Gate::invariance].detail;
}

TEST(Invariance, BatchDependentKernelsFail) {
  using Make = kc::Entry (*)();
  for (auto [name, make] : {std::pair<std::string, Make>{"t/inv/split_by_batch", entry<Kind::split_by_batch>},
                            std::pair<std::string, Make>{"t/inv/odd_rows_reversed", entry<Kind::odd_rows_reversed>},
                            std::pair<std::string, Make>{"t/inv/reads_neighbour", entry<Kind::reads_neighbour>}}) {
    auto v = run(name, make);
    EXPECT_EQ(v[Gate::invariance].status, kc::Status::fail) << name << ": " << v[Gate::invariance].detail;
    EXPECT_EQ(v[Gate::invariance].why, "batch_variant") << name;
    EXPECT_NE(v[Gate::invariance].detail.find("y["), std::string::npos) << v[Gate::invariance].detail;
    // Correct sums everywhere else: only the invariance check can tell.
    for (Gate g : {Gate::nonfinite, Gate::repeat, Gate::shapes, Gate::sums})
      EXPECT_EQ(v[g].status, kc::Status::pass) << name << " gate " << int(g) << ": " << v[g].detail;
  }
}

TEST(Invariance, NotStatedHasNoLine) {
  auto v = run("t/inv/none", [] {
    return kc::rows::sum(kc::DType::f32, kc::DType::f32)
        .served({{"rows", {1, 3}}, {"cols", {64}}})
        .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["cols"]) + 1; })
        .launch(row_sum<Kind::ok>);
  });
  EXPECT_EQ(v.count(Gate::invariance), 0u);
  EXPECT_EQ(v.count(Gate::sums), 1u);
}

TEST(Invariance, BadStatementsAreErrorsNamingThem) {
  auto v = run("t/inv/bad_dim", entry<Kind::bad_dim>);
  ASSERT_FALSE(v.empty());
  EXPECT_EQ(v.begin()->second.status, kc::Status::error);
  EXPECT_NE(v.begin()->second.detail.find("invariant: 'batch' is not one of its dims"), std::string::npos)
      << v.begin()->second.detail;
  // cols is no batch dim: x grows with it, but y does not.
  auto c = run("t/inv/cols", [] {
    return kc::rows::sum(kc::DType::f32, kc::DType::f32)
        .served({{"rows", {1}}, {"cols", {64, 100}}})
        .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["cols"]) + 1; })
        .invariant("cols")
        .launch(row_sum<Kind::ok>);
  });
  EXPECT_EQ(c[Gate::invariance].status, kc::Status::error) << c[Gate::invariance].detail;
  EXPECT_NE(c[Gate::invariance].detail.find("output 'y' does not grow with cols"), std::string::npos)
      << c[Gate::invariance].detail;
}

}  // namespace
