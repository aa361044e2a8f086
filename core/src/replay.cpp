// Gate 4's replays (DESIGN.md §2.4): a sum done the way a kernel summing in fp16 or bf16 would do
// it, every term and every partial sum rounded to the format, in one of three orders.
#include <array>

#include "kc/numeric.hpp"
#include "kc/rig.hpp"

namespace kc {

const char* fill_name(FillKind k) {
  switch (k) {
    case FillKind::random: return "random";
    case FillKind::nonfinite: return "nonfinite";
    case FillKind::sums: return "sums";
  }
  return "?";
}

const char* sum_format_name(SumFormat f) {
  switch (f) {
    case SumFormat::f16: return "f16";
    case SumFormat::bf16: return "bf16";
  }
  return "?";
}

const char* sum_order_name(SumOrder o) {
  switch (o) {
    case SumOrder::chain: return "chain";
    case SumOrder::halves: return "halves";
    case SumOrder::lanes32: return "lanes32";
  }
  return "?";
}

namespace {
struct Narrow {
  DType t;
  double operator()(double x) const { return round_to(t, x, Round::nearest); }
};

// One chain over terms [begin, end) taking every `every`-th term, starting from 0.
double chain(const double* terms, size_t begin, size_t end, size_t every, size_t stride, Narrow r) {
  double s = 0;
  for (size_t i = begin; i < end; i += every) s = r(s + r(terms[i * stride]));
  return s;
}
}  // namespace

double replay_sum(const double* terms, size_t n, SumFormat f, SumOrder o, size_t stride) {
  Narrow r{f == SumFormat::f16 ? DType::f16 : DType::bf16};
  switch (o) {
    case SumOrder::chain: return chain(terms, 0, n, 1, stride, r);
    case SumOrder::halves: {
      // Two contiguous halves, each its own chain, then added.
      size_t mid = n / 2;
      return r(chain(terms, 0, mid, 1, stride, r) + chain(terms, mid, n, 1, stride, r));
    }
    case SumOrder::lanes32: {
      // Lane l sums terms l, l+32, l+64 ...; then the lanes meet by halves (l += l+16, l+8, ...),
      // as a warp's shuffle reduction does.
      std::array<double, 32> lane{};
      for (size_t l = 0; l < 32; ++l) lane[l] = l < n ? chain(terms, l, n, 32, stride, r) : 0.0;
      for (size_t h = 16; h >= 1; h /= 2)
        for (size_t l = 0; l < h; ++l) lane[l] = r(lane[l] + lane[l + h]);
      return lane[0];
    }
  }
  return 0;
}

}  // namespace kc
