// Contracts of the CUDA softmax rows (softmax.cuh, launched by softmax.cu), bf16 in and out, fp32
// sums.
#include "../../common/cuda_contract.hpp"
#include "softmax.cuh"

using namespace kc::cu;

// y = exp(x - max) * (1 / sum): the row form's exp2_diff (softmax.cuh: ex2's 2 ulp, and at most
// 65.2 ulps from rounding x - max, log2(e) and the fma that adds the 2^64 scale, |x - max| <= 88
// where y is a bf16 normal), the reciprocal and the multiply; the online form's exp_diff (expf's
// 2 ulp and its fma) is within the same declaration (ops 3). An exp's error reaches y twice: in its
// own term, and in the sum (a weighted mean of the terms' errors, all positive), so each is
// declared twice. The bound counts an ulp as 2^-23 of the value, its largest.
// (exp_diff with its fma measured 3.11 x 2^-24 on the H200 over every finite bf16 pair:
// kernels/rows/softmax/h200_ex2_form.txt.)
static constexpr double kExp2Ulps = 2, kExpArgUlps = 66;
static kc::Entry k_rows_softmax_bf16(kc::cu::Served env) {
  return kc::rows::softmax(kc::DType::bf16, kc::DType::bf16)
      .served(std::move(env))
      .invariant("rows")  // the row shape and form follow cols alone: no row count picks them
      .tile("rows", kBlock / 32, 1, 1)
      .tile("cols", kBlock * 8, 8, 8)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return reg_depth(s["cols"]); }, 3)
      .ulp("ex2, in the term and in the sum", 2 * kExp2Ulps)
      .ulp("x - max, log2(e) and the scaling fma rounded (|x - max| <= 88), in the term and in the sum", 2 * kExpArgUlps)
      .hidden("a bf16 softmax of at most 4,096 terms in [0, 1]: the output's rounding hides the fp32 sum's error")
      .launches(vpt_launches("rows/softmax/bf16"))
      .picks([](const kc::Shape& s) { return vpt_form("rows/softmax/bf16", reg_shape(s["cols"]).vpt); })
      .launch([](const kc::Buffers& b) {
        need_aligned16(b, {"x", "y"});
        need_cols(b, 8, 4096);
        softmax_bf16(b.in<kc::bf16>("x"), b.out<kc::bf16>("y"), int(b.shape()["rows"]), int(b.shape()["cols"]),
                     b.stream());
      });
}
KC_KERNEL("rows/softmax/bf16", cuda) { return k_rows_softmax_bf16(kc::cu::decode_env({64, 1024, 4096})); }
KC_KERNEL("rows/softmax/bf16/prompt", cuda) { return k_rows_softmax_bf16(kc::cu::prompt_env()); }

// Rows past 4,096 keys: to 16,384 the vector form (the row in registers), past that the online form
// (a running max and a rescaled sum, then a second pass); 32,768 is served so the online form runs.
static kc::Entry k_rows_softmax_bf16_long(kc::cu::Served env) {
  return kc::rows::softmax(kc::DType::bf16, kc::DType::bf16)
      .served(std::move(env))
      .invariant("rows")  // the row shape and form follow cols alone: no row count picks them
      .tile("rows", kBlock / 32, 1, 1)
      .tile("cols", kBlock * 8, 8, 8)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return long_depth(s["cols"]); }, 3)
      .ulp("ex2 (expf in the online form), in the term and in the sum", 2 * kExp2Ulps)
      .ulp("x - max, log2(e) and the scaling fma rounded (|x - max| <= 88), in the term and in the sum", 2 * kExpArgUlps)
      .hidden("a bf16 output: its rounding (2^-9) is within 100x of what a bf16 or fp16 sum of these terms in [0, 1] loses")
      .launches({"rows/softmax/bf16_long", "rows/softmax/bf16/v1", "rows/softmax/bf16/v2", "rows/softmax/bf16/v4",
                 "rows/softmax/bf16/v8"})
      .picks([](const kc::Shape& s) {  // launch_softmax_long's choice
        const long cols = long(s["cols"]);
        return cols <= kMaxCols ? vpt_form("rows/softmax/bf16", reg_shape(cols).vpt) : std::string("rows/softmax/bf16_long");
      })
      .launch([](const kc::Buffers& b) {
        need_aligned16(b, {"x", "y"});
        need_cols(b, 8, 1 << 16);
        softmax_bf16_long(b.in<kc::bf16>("x"), b.out<kc::bf16>("y"), int(b.shape()["rows"]), int(b.shape()["cols"]),
                          b.stream());
      });
}
KC_KERNEL("rows/softmax/bf16_long", cuda) { return k_rows_softmax_bf16_long(kc::cu::decode_env({64, 8192, 16384, 32768})); }
KC_KERNEL("rows/softmax/bf16_long/prompt", cuda) { return k_rows_softmax_bf16_long(kc::cu::prompt_env()); }
