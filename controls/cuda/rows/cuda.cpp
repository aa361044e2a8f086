// Registrations of the CUDA rows controls: each control's spec and the planted fault it must show,
// launched by rows_controls.cu (its kernels and why it is wrong: its <control>.cuh).
#include <atomic>

#include "../../../kernels/common/cuda_contract.hpp"
#include "../../../kernels/common/kc_rows.cuh"
#include "../../../kernels/rows/layer_norm/layer_norm.cuh"
#include "rows_controls.hpp"

// add_rms_norm_drop_h.cuh: the once-rounded norm under the rounded form's spec.
KC_CONTROL("rows/ctl_add_rms_norm_drop_h/bf16", cuda) {
  using namespace kc::cu;
  return kc::rows::add_rms_norm(kc::rows::Residual::rounded, 1e-6)
      .served({{"rows", {7, 64}}, {"cols", {64, 1024, 4096}}})
      .range("cols", 8, 8)  // the kernel takes whole vectors of 8
      .sums(kc::DType::f32, [](const kc::Shape& s) { return row_depth(s["cols"]); }, 5)
      .ulp("rsqrtf", 2)
      .hidden("a bf16 output: its rounding hides a bf16 sum of squares' error at these widths")
      .launches({"rows/ctl_add_rms_norm_drop_h/bf16/v1", "rows/ctl_add_rms_norm_drop_h/bf16/v2"})
      .control(kc::Gate::shapes, kc::Why::interval)
      .launch([](const kc::Buffers& b) {
        need_aligned16(b, {"x", "r", "w", "h", "y"});
        need_cols(b, 8, kMaxCols);
        kc::rows_ctl::add_rms_norm_drop_h(b.in<kc::bf16>("x"), b.in<kc::bf16>("r"), b.in<kc::bf16>("w"),
                                          b.out<kc::bf16>("h"), b.out<kc::bf16>("y"), int(b.shape()["rows"]),
                                          int(b.shape()["cols"]), 1e-6f, b.stream());
      });
}

// u32_offset.cuh: a row sum whose byte offsets wrap at 4 GiB, red at the far shape alone.
KC_CONTROL("rows/ctl_u32_offset/f32", cuda) {
  return kc::rows::sum(kc::DType::f32, kc::DType::f32)
      .served({{"rows", {1, 64}}, {"cols", {1024, 16384}}})
      // A thread's strided terms, then the block's tree of 8 levels.
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double((s["cols"] + 255) / 256 + 8); })
      .far("rows", {{"rows", 65537}, {"cols", 16384}})
      .launches({"rows/ctl_u32_offset/f32"})
      .control(kc::Gate::far, kc::Why::bound)
      .launch([](const kc::Buffers& b) {
        kc::rows_ctl::u32_offset(b.in<float>("x"), b.out<float>("y"), int(b.shape()["rows"]), int(b.shape()["cols"]),
                                 b.stream());
      });
}

// atomic_sum.cuh: a row sum whose atomic adds change order from run to run.
KC_CONTROL("rows/ctl_atomic_sum/f32", cuda) {
  return kc::rows::sum(kc::DType::f32, kc::DType::f32)
      .served({{"rows", {64}}, {"cols", {1024, 4096}}})
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["cols"] / 32 + 32); })
      .launches({"rows/ctl_atomic_sum/f32"})
      .control(kc::Gate::repeat, kc::Why::bytes_differ)
      .launch([](const kc::Buffers& b) {
        static std::atomic<unsigned> runs{0};
        kc::rows_ctl::atomic_sum(b.in<float>("x"), b.out<float>("y"), int(b.shape()["rows"]), int(b.shape()["cols"]),
                                 runs++, b.stream());
      });
}

// ctl_max_flt_max.cuh: a row max that starts at -FLT_MAX.
// From 2 columns: at 1 a single -Inf is already a whole row, a case gate 1 had before whole rows.
KC_CONTROL("rows/ctl_max_flt_max/f32", cuda) {
  return kc::rows::max(kc::DType::bf16, kc::DType::f32)
      .served({{"rows", {7, 64}}, {"cols", {64, 1024}}})
      .range("cols", 2, 1)
      .launches({"rows/ctl_max_flt_max/f32"})
      .control(kc::Gate::nonfinite, kc::Why::class_mismatch)
      .launch([](const kc::Buffers& b) {
        kc::rows_ctl::max_flt_max(b.in<kc::bf16>("x"), b.out<float>("y"), int(b.shape()["rows"]),
                                  int(b.shape()["cols"]), b.stream());
      });
}

// ctl_max_int_keys.cuh: a row max on integer keys that sort a negative NaN below -Inf.
KC_CONTROL("rows/ctl_max_int_keys/bf16", cuda) {
  return kc::rows::max(kc::DType::bf16, kc::DType::bf16)
      .served({{"rows", {7, 64}}, {"cols", {64, 1024}}})
      .launches({"rows/ctl_max_int_keys/bf16"})
      .control(kc::Gate::nonfinite, kc::Why::class_mismatch)
      .launch([](const kc::Buffers& b) {
        kc::rows_ctl::max_int_keys(b.in<kc::bf16>("x"), b.out<kc::bf16>("y"), int(b.shape()["rows"]),
                                   int(b.shape()["cols"]), b.stream());
      });
}

// ctl_overread_end.cuh: a row sum that reads one column past each row.
// Odd widths and fewer than 128 rows: x (2 bytes an element) never ends on a 256-byte boundary, so
// the read past it always lands in the NaN padding, never on the unmapped granule (a fault).
KC_CONTROL("rows/ctl_overread_end/f32", cuda) {
  return kc::rows::sum(kc::DType::bf16, kc::DType::f32)
      .served({{"rows", {7, 64}}, {"cols", {63, 255}}})
      .range("cols", 1, 2)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["cols"] / 32 + 1 + 5); })
      .launches({"rows/ctl_overread_end/f32"})
      .control(kc::Gate::nonfinite, kc::Why::class_mismatch)
      .launch([](const kc::Buffers& b) {
        kc::rows_ctl::overread_end(b.in<kc::bf16>("x"), b.out<float>("y"), int(b.shape()["rows"]),
                                   int(b.shape()["cols"]), b.stream());
      });
}

// ctl_softmax_masked_zero.cuh: a softmax that writes a fully masked row as zeros.
// From 2 columns: at 1 a single -Inf is already a whole row, a case gate 1 had before whole rows.
// A lane's chain of cols / 32 terms and the warp's 5 levels; after it the reciprocal and the multiply;
// exp_diff's 2 ulp (expf's, and its fma) in the term and again in the sum.
KC_CONTROL("rows/ctl_softmax_masked_zero/bf16", cuda) {
  return kc::rows::softmax(kc::DType::bf16, kc::DType::bf16)
      .served({{"rows", {7, 64}}, {"cols", {64, 1024}}})
      .range("cols", 2, 1)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double((s["cols"] + 31) / 32 + 5); }, 3)
      .ulp("expf (exp_diff), in the term and in the sum", 4)
      .hidden("a bf16 softmax of at most 1,024 terms in [0, 1]: the output's rounding hides the fp32 sum's error")
      .launches({"rows/ctl_softmax_masked_zero/bf16"})
      .control(kc::Gate::nonfinite, kc::Why::class_mismatch)
      .launch([](const kc::Buffers& b) {
        kc::rows_ctl::softmax_masked_zero(b.in<kc::bf16>("x"), b.out<kc::bf16>("y"), int(b.shape()["rows"]),
                                          int(b.shape()["cols"]), b.stream());
      });
}

// ctl_softmax_online_unguarded.cuh: an online softmax with no guard for a lane's leading -Inf.
// Gate 1 runs at the served extremes (64 and 1,024 columns): every single plant but the leading one
// sits past the lanes' first values. A lane's chain: each value one add and a rescale (exp_diff's
// 2 ulp counted as 4 roundings, its fma and the multiply), each of the warp's 5 merges the same.
KC_CONTROL("rows/ctl_softmax_online_unguarded/bf16", cuda) {
  return kc::rows::softmax(kc::DType::bf16, kc::DType::bf16)
      .served({{"rows", {7, 64}}, {"cols", {64, 1024}}})
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double((s["cols"] + 31) / 32 * 7 + 5 * 7); }, 3)
      .ulp("expf (exp_diff), in the term and in the sum", 4)
      .hidden("a bf16 softmax of at most 1,024 terms in [0, 1]: the output's rounding hides the fp32 sum's error")
      .launches({"rows/ctl_softmax_online_unguarded/bf16"})
      .control(kc::Gate::nonfinite, kc::Why::class_mismatch)
      .launch([](const kc::Buffers& b) {
        kc::rows_ctl::softmax_online_unguarded(b.in<kc::bf16>("x"), b.out<kc::bf16>("y"), int(b.shape()["rows"]),
                                               int(b.shape()["cols"]), b.stream());
      });
}

// ctl_sum_floor_stride.cuh: a row sum whose row stride is its width rounded down to whole vectors.
// Tiles of one vector; a lane's chain of its vectors' 8 terms, a tail term, the warp's 5 levels.
KC_CONTROL("rows/ctl_sum_floor_stride/f32", cuda) {
  return kc::rows::sum(kc::DType::bf16, kc::DType::f32)
      .served({{"rows", {1, 7}}, {"cols", {64, 1024}}})
      .tile("cols", 8, 1, 1)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double((s["cols"] / 8 + 31) / 32 * 8 + 1 + 5); })
      .launches({"rows/ctl_sum_floor_stride/f32"})
      .control(kc::Gate::shapes, kc::Why::bound)
      .launch([](const kc::Buffers& b) {
        kc::cu::need_aligned16(b, {"x"});
        kc::rows_ctl::sum_floor_stride(b.in<kc::bf16>("x"), b.out<float>("y"), int(b.shape()["rows"]),
                                       int(b.shape()["cols"]), b.stream());
      });
}

// fmaxf_max.cuh: a row max by fmaxf, which drops a NaN.
KC_CONTROL("rows/ctl_fmaxf_max/bf16", cuda) {
  return kc::rows::max(kc::DType::bf16, kc::DType::bf16)
      .served({{"rows", {7, 64}}, {"cols", {64, 1024}}})
      .launches({"rows/ctl_fmaxf_max/bf16"})
      .control(kc::Gate::nonfinite, kc::Why::class_mismatch)
      .launch([](const kc::Buffers& b) {
        kc::rows_ctl::fmaxf_max(b.in<kc::bf16>("x"), b.out<kc::bf16>("y"), int(b.shape()["rows"]),
                                int(b.shape()["cols"]), b.stream());
      });
}

// geglu_drop_gelu.cuh: GeGLU without gelu(g)'s rounding to bf16.
KC_CONTROL("rows/ctl_geglu_drop_gelu/bf16", cuda) {
  return kc::rows::geglu()
      .served({{"rows", {7, 64}}, {"cols", {64, 1024}}})
      .launches({"rows/ctl_geglu_drop_gelu/bf16"})
      .control(kc::Gate::shapes, kc::Why::interval)
      .launch([](const kc::Buffers& b) {
        kc::rows_ctl::geglu_drop_gelu(b.in<kc::bf16>("g"), b.in<kc::bf16>("u"), b.out<kc::bf16>("y"),
                                      long(b.shape()["rows"]) * b.shape()["cols"], b.stream());
      });
}

// half_dot.cuh: a row dot summed in fp16, under a spec that claims fp32 sums of a great depth.
KC_CONTROL("rows/ctl_half_dot/f32", cuda) {
  return kc::rows::dot(kc::DType::bf16, kc::DType::f32)
      .served({{"rows", {7, 64}}, {"cols", {64, 1024}}})
      .sums(kc::DType::f32, [](const kc::Shape& s) { return 131072.0 * double(s["cols"]); })
      .launches({"rows/ctl_half_dot/f32"})
      .control(kc::Gate::sums, kc::Why::bound)
      .launch([](const kc::Buffers& b) {
        kc::rows_ctl::half_dot(b.in<kc::bf16>("x"), b.in<kc::bf16>("w"), b.out<float>("y"), int(b.shape()["rows"]),
                               int(b.shape()["cols"]), b.stream());
      });
}

// in_place_sum.cuh: a row sum that sorts pairs of its input in place.
KC_CONTROL("rows/ctl_in_place_sum/f32", cuda) {
  return kc::rows::sum(kc::DType::bf16, kc::DType::f32)
      .served({{"rows", {7, 64}}, {"cols", {64, 1024}}})
      .range("cols", 2, 2)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["cols"] / 64 + 1 + 5); })
      .launches({"rows/ctl_in_place_sum/f32"})
      .control(kc::Gate::repeat, kc::Why::input_changed)
      .launch([](const kc::Buffers& b) {
        kc::rows_ctl::in_place_sum(const_cast<kc::bf16*>(b.in<kc::bf16>("x")), b.out<float>("y"),
                                   int(b.shape()["rows"]), int(b.shape()["cols"]), b.stream());
      });
}

// launch_watch.cuh: right row sums whose launchers start what their records and picks do not say.
static void row_sum(const kc::Buffers& b, int rpb, void* stream) {
  kc::rows_ctl::row_sum(b.in<kc::bf16>("x"), b.out<float>("y"), int(b.shape()["rows"]), int(b.shape()["cols"]), rpb,
                        stream);
}

static kc::Entry row_sum_env(std::vector<std::string> launches, kc::Why why = kc::Why::launch) {
  return kc::rows::sum(kc::DType::bf16, kc::DType::f32)
      .served({{"rows", {7, 64}}, {"cols", {64, 1024, 4096}}})
      .tile("cols", 32, 1, 1)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double((s["cols"] + 31) / 32 + 5); })
      .launches(std::move(launches))
      .control(kc::Gate::limits, why);
}

KC_CONTROL("rows/ctl_unrecorded_launch/f32", cuda) {
  return row_sum_env({"rows/ctl_unrecorded_launch/f32"}).launch([](const kc::Buffers& b) {
    kc::rows_ctl::unrecorded_clear(b.out<float>("y"), int(b.shape()["rows"]), b.stream());  // the fault
    row_sum(b, 8, b.stream());
  });
}

KC_CONTROL("rows/ctl_pick_lies/f32", cuda) {
  return row_sum_env({"rows/ctl_pick_lies/f32/rpb8", "rows/ctl_pick_lies/f32/rpb4"})
      .picks([](const kc::Shape& s) {
        return std::string(s["cols"] > 1024 ? "rows/ctl_pick_lies/f32/rpb4" : "rows/ctl_pick_lies/f32/rpb8");  // the fault
      })
      .launch([](const kc::Buffers& b) {
        if (b.shape()["cols"] > 2048) row_sum(b, 4, b.stream());
        else row_sum(b, 8, b.stream());
      });
}

KC_CONTROL("rows/ctl_default_stream/f32", cuda) {
  return row_sum_env({"rows/ctl_default_stream/f32"}, kc::Why::stream).launch([](const kc::Buffers& b) {
    row_sum(b, 8, nullptr);  // the fault: the legacy default stream, not b.stream()
  });
}

// layer_norm_one_pass.cuh: the served fp32 layer norm with a one-pass variance.
KC_CONTROL("rows/ctl_layer_norm_one_pass/f32", cuda) {
  using namespace kc::cu;
  return kc::rows::layer_norm(kc::DType::f32, kc::DType::f32, 1e-5)
      .served({{"rows", {7, 64}}, {"cols", {64, 1024, 4096}}})
      .tile("rows", kBlock / 32, 1, 1)
      .tile("cols", kBlock * 8, 8, 8)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return ln_depth<true>(s["rows"], s["cols"]); }, 3)
      .ulp("rsqrtf", 2)
      .launches({"rows/ctl_layer_norm_one_pass/f32/v1", "rows/ctl_layer_norm_one_pass/f32/v2",
                 "rows/ctl_layer_norm_one_pass/f32/v4"})
      .picks([](const kc::Shape& s) { return vpt_form("rows/ctl_layer_norm_one_pass/f32", ln_shape<true>(s["rows"], s["cols"]).vpt); })
      .control(kc::Gate::shapes, kc::Why::interval)
      .launch([](const kc::Buffers& b) {
        need_aligned16(b, {"x", "w", "b", "y"});
        need_cols(b, 8, 4096);
        kc::rows_ctl::layer_norm_one_pass(b.ptr("x"), b.ptr("w"), b.ptr("b"), b.out<float>("y"), b.out<float>("mean"),
                                          b.out<float>("rstd"), int(b.shape()["rows"]), int(b.shape()["cols"]), 1e-5f,
                                          b.stream());
      });
}

// swiglu_drop_silu.cuh: SwiGLU without silu's rounding to bf16.
KC_CONTROL("rows/ctl_swiglu_drop_silu/bf16", cuda) {
  return kc::rows::swiglu()
      .served({{"rows", {7, 64}}, {"cols", {64, 1024}}})
      .launches({"rows/ctl_swiglu_drop_silu/bf16"})
      .control(kc::Gate::shapes, kc::Why::interval)
      .launch([](const kc::Buffers& b) {
        kc::rows_ctl::swiglu_drop_silu(b.in<kc::bf16>("g"), b.in<kc::bf16>("u"), b.out<kc::bf16>("y"),
                                       long(b.shape()["rows"]) * b.shape()["cols"], b.stream());
      });
}

// tail_drop_sum.cuh: a row sum in tiles of 32 columns that drops a partial tile's last input.
KC_CONTROL("rows/ctl_tail_drop_sum/f32", cuda) {
  return kc::rows::sum(kc::DType::bf16, kc::DType::f32)
      .served({{"rows", {7, 64}}, {"cols", {64, 1024}}})
      .tile("cols", 32, 1, 1)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double((s["cols"] + 31) / 32 + 5); })
      .launches({"rows/ctl_tail_drop_sum/f32"})
      .control(kc::Gate::shapes, kc::Why::bound)
      .launch([](const kc::Buffers& b) {
        kc::rows_ctl::tail_drop_sum(b.in<kc::bf16>("x"), b.out<float>("y"), int(b.shape()["rows"]),
                                    int(b.shape()["cols"]), b.stream());
      });
}
