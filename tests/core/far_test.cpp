// The far-offset check (gate 7): a row sum over 2 GiB and 64 KiB of floats, stated far, passes it
// and names the rows it held to float64 (around 2^31 bytes of x, and the ends); one that keeps a
// row's byte offset in 31 bits sums row 0 again past 2 GiB and fails it (a correct sum at every
// served shape); an entry that states nothing has no far line; a far shape where nothing passes
// 2^31, a dim the spec lacks, a shape missing a dim and an output that does not grow with the dim
// are errors naming them.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>

#include "harness.hpp"
#include "kc/families/rows.hpp"

namespace {
using kc::Gate;

// 32769 rows of 16384 floats: x is 2^31 + 65536 bytes; row 32768 starts at 2^31 bytes.
const kc::Shape kFar{{"rows", 32769}, {"cols", 16384}};

template <bool Wrap> void row_sum(const kc::Buffers& b) {
  const int64_t rows = b.shape()["rows"], cols = b.shape()["cols"];
  const auto* x = reinterpret_cast<const char*>(b.in<float>("x"));
  for (int64_t r = 0; r < rows; ++r) {
    uint64_t off = uint64_t(r) * uint64_t(cols) * sizeof(float);
    if (Wrap) off &= 0x7fffffffu;  // a 31-bit offset: past 2 GiB, back to the start
    const float* xr = reinterpret_cast<const float*>(x + off);
    float s = 0;
    for (int64_t c = 0; c < cols; ++c) s += xr[c];
    b.out<float>("y")[r] = s;
  }
}

kc::Entry sum(kc::Shape far, const std::string& dim = "rows") {
  return kc::rows::sum(kc::DType::f32, kc::DType::f32)
      .served({{"rows", {1, 3}}, {"cols", {64, 100}}})
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["cols"]) + 1; })
      .far(dim, std::move(far));
}

std::map<Gate, kc::GateEvent> run(const std::string& name, kc::Entry (*make)()) {
  const kc::Registration reg{name, "cpu", __FILE__, __LINE__, false, make};
  std::map<Gate, kc::GateEvent> v;
  for (auto& e : kc::run_entry(reg, testing_kc::cpu(), kc::RunOptions{}, {})) v[e.gate] = e;
  return v;
}

TEST(Far, RowSumPassesAtTheFarShapeAndNamesTheRows) {
  auto v = run("t/far/ok", [] { return sum(kFar).launch(row_sum<false>); });
  ASSERT_TRUE(v.count(Gate::far));
  const std::string& d = v[Gate::far].detail;
  EXPECT_EQ(v[Gate::far].status, kc::Status::pass) << d;
  EXPECT_NE(d.find("rows 0, 32767, 32768 of 32769"), std::string::npos) << d;
  EXPECT_NE(d.find("'x' passes 2^31 bytes at row 32768"), std::string::npos) << d;
}

TEST(Far, ThirtyOneBitOffsetFailsThere) {
  auto v = run("t/far/wrap", [] { return sum(kFar).launch(row_sum<true>); });
  const std::string& d = v[Gate::far].detail;
  EXPECT_EQ(v[Gate::far].status, kc::Status::fail) << d;
  EXPECT_EQ(v[Gate::far].why, "bound") << d;
  EXPECT_NE(d.find("y[2]"), std::string::npos) << d;  // row 32768, checked third
  for (Gate g : {Gate::nonfinite, Gate::repeat, Gate::shapes, Gate::sums})
    EXPECT_EQ(v[g].status, kc::Status::pass) << "gate " << int(g) << ": " << v[g].detail;
}

TEST(Far, NotStatedHasNoLine) {
  auto v = run("t/far/none", [] {
    return kc::rows::sum(kc::DType::f32, kc::DType::f32)
        .served({{"rows", {1, 3}}, {"cols", {64}}})
        .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["cols"]) + 1; })
        .launch(row_sum<false>);
  });
  EXPECT_EQ(v.count(Gate::far), 0u);
}

TEST(Far, BadStatementsAreErrorsNamingThem) {
  auto near = run("t/far/near", [] { return sum({{"rows", 4}, {"cols", 64}}).launch(row_sum<false>); });
  EXPECT_EQ(near[Gate::far].status, kc::Status::error);
  EXPECT_NE(near[Gate::far].detail.find("no buffer that grows with 'rows' passes 2^31 elements or bytes"),
            std::string::npos) << near[Gate::far].detail;
  auto dim = run("t/far/dim", [] { return sum(kFar, "batch").launch(row_sum<false>); });
  EXPECT_NE(dim.begin()->second.detail.find("far: 'batch' is not one of its dims"), std::string::npos)
      << dim.begin()->second.detail;
  auto missing = run("t/far/missing", [] { return sum({{"rows", 32769}}).launch(row_sum<false>); });
  EXPECT_NE(missing.begin()->second.detail.find("the far shape rows:32769 has no 'cols'"), std::string::npos)
      << missing.begin()->second.detail;
  // cols is no row dim here: x grows with it, but y does not.
  auto cols = run("t/far/cols", [] { return sum({{"rows", 1}, {"cols", (int64_t(1) << 29) + 1}}, "cols").launch(row_sum<false>); });
  EXPECT_EQ(cols[Gate::far].status, kc::Status::error) << cols[Gate::far].detail;
  EXPECT_NE(cols[Gate::far].detail.find("output 'y' does not grow with cols"), std::string::npos)
      << cols[Gate::far].detail;
}

}  // namespace
