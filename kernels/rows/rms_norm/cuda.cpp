// Contracts of the CUDA RMS norm rows (rms_norm.cuh, launched by rms_norm.cu): the 16-byte form with
// bf16, fp16 and fp32 out, and the block-tree form with fp32 out at any width.
#include "../../common/cuda_contract.hpp"
#include "rms_norm.cuh"

namespace {
using namespace kc::cu;
constexpr double kEps = 1e-6;
// Gate 4 with a 16-bit output: y moves by half of S's relative error, and a bf16 sum of these
// widths' squares loses less than 100x the output's own half ulp, so the rounding hides it.
constexpr const char* kHidden16 =
    "a 16-bit output: its rounding hides a bf16 sum of squares' error at these widths (y moves by half of S's)";

// Sums: the row's squares (depth by the kernel's shape); then mean (/cols), + eps (eps itself
// rounded to fp32: one more rounding), rsqrtf (2 ulp, CUDA C Programming Guide, table of
// single-precision functions), * inv, * w. RUN: rms_norm.cu's launcher for the output type.
using VecLaunch = void (*)(const void* x, const void* w, void* y, int rows, int cols, float eps, void* stream);
template <VecLaunch RUN>
kc::Entry vec_entry(kc::DType out, const char* launch, Served env) {
  return kc::rows::rms_norm(kc::DType::bf16, out, kEps)
      .served(std::move(env))
      .invariant("rows")  // the row shape is reg_shape(cols): no row count picks it
      .tile("rows", kBlock / 32, 1, 1)  // up to 8 rows a block at narrow widths
      .tile("cols", kBlock * 8, 8, 8)   // one 16-byte vector a thread across 256 threads
      .sums(kc::DType::f32, [](const kc::Shape& s) { return reg_depth(s["cols"]); }, 5)
      .ulp("rsqrtf", 2)
      .hidden(out == kc::DType::f32 ? "" : kHidden16)
      .launches(vpt_launches(launch))
      .picks([base = std::string(launch)](const kc::Shape& s) {
        return vpt_form(base, reg_shape(s["cols"]).vpt);  // launch_rms_norm_vec's shape
      })
      .launch([](const kc::Buffers& b) {
        need_aligned16(b, {"x", "w", "y"});
        need_cols(b, 8, kMaxCols);
        RUN(b.in<kc::bf16>("x"), b.in<kc::bf16>("w"), b.ptr("y"), int(b.shape()["rows"]), int(b.shape()["cols"]),
            float(kEps), b.stream());
      });
}
}  // namespace

KC_KERNEL("rows/rms_norm/bf16_out", cuda) {
  return vec_entry<rms_norm_bf16_out>(kc::DType::bf16, "rows/rms_norm/bf16_out", decode_env({64, 4096, 16384}));
}
KC_KERNEL("rows/rms_norm/bf16_out/prompt", cuda) {
  return vec_entry<rms_norm_bf16_out>(kc::DType::bf16, "rows/rms_norm/bf16_out", prompt_env());
}
KC_KERNEL("rows/rms_norm/f16_out", cuda) {
  return vec_entry<rms_norm_f16_out>(kc::DType::f16, "rows/rms_norm/f16_out", decode_env({64, 4096, 16384}));
}
KC_KERNEL("rows/rms_norm/f16_out/prompt", cuda) {
  return vec_entry<rms_norm_f16_out>(kc::DType::f16, "rows/rms_norm/f16_out", prompt_env());
}
KC_KERNEL("rows/rms_norm/f32_out", cuda) {
  return vec_entry<rms_norm_f32_out>(kc::DType::f32, "rows/rms_norm/f32_out", decode_env({64, 4096, 16384}));
}
KC_KERNEL("rows/rms_norm/f32_out/prompt", cuda) {
  return vec_entry<rms_norm_f32_out>(kc::DType::f32, "rows/rms_norm/f32_out", prompt_env());
}

// The tree form's tile is the 16-byte form's pass over a row, 256 threads x 8 columns; at widths
// not a multiple of 8 the 2-byte form runs, whose own pass is 256 columns (2,047 and 2,049 are its
// ragged last passes too).
static kc::Entry tree_entry(Served env) {
  return kc::rows::rms_norm(kc::DType::bf16, kc::DType::f32, kEps)
      .served(std::move(env))
      .tile("cols", 2048, 1, 1)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return tree_depth(s["cols"]); }, 5)
      .ulp("rsqrtf", 2)
      .launches({"rows/rms_norm/tree_f32/v1", "rows/rms_norm/tree_f32/v2", "rows/rms_norm/tree_f32/v4",
                 "rows/rms_norm/tree_f32/v8", "rows/rms_norm/tree_f32/r16", "rows/rms_norm/tree_f32/r32",
                 "rows/rms_norm/tree_f32/r64"})
      .picks([](const kc::Shape& s) {  // the harness's buffers are 256-byte aligned
        const int f = tree_form(int(s["cols"]), true);
        return std::string("rows/rms_norm/tree_f32/") + (f <= 8 ? "v" : "r") + std::to_string(f);
      })
      .launch([](const kc::Buffers& b) {
        need_cols(b, 1, 1 << 20);
        rms_norm_tree_f32(b.in<kc::bf16>("x"), b.in<kc::bf16>("w"), b.out<float>("y"), int(b.shape()["rows"]),
                          int(b.shape()["cols"]), float(kEps), b.stream());
      });
}
// Gate 3 visits width 1 (its least) and the tile's edges; the served widths keep gate 4 to rows with
// sums to replay, 257 is a 2-byte form's ragged pass, 2,056 the 16-byte form's, and 4,096, 8,192 and
// 16,384 run each 16-byte launch at its widest.
KC_KERNEL("rows/rms_norm/tree_f32", cuda) { return tree_entry(decode_env({64, 257, 2056, 4096, 8192, 16384})); }
KC_KERNEL("rows/rms_norm/tree_f32/prompt", cuda) { return tree_entry(prompt_env()); }
