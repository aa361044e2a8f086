// Contract of the CUDA affine-quantized decode projection (qmv.cuh) at every bit width and group
// MLX serves, bf16 out. At 2 (groups of 64, 128), 4 and 8 bits on an sm_90 device whose loaded image
// is sm_90a the launcher takes the bulk-copy form where it fits (qmv_sm90a.cuh: 1..8 rows, K a
// multiple of 8 groups), the mma.sync kernel elsewhere: the entry declares both forms' launches, its
// picks name the one taken (gate 3 runs each at a ragged shape) and its depth is the taken form's.
#include "../../common/cuda_contract.hpp"
#include "kc/families/affine.hpp"
#include "qmv.cuh"

#include <algorithm>
#include <string>
#include <vector>

namespace {
using namespace kc::affine_cu;

// Decode rows 1..32 (one block holds them all: m's tile is an mma's 8 x rows); W rows in blocks of
// 16, or of 32 at most 9..32 rows (qmv_w_tiles): n's tile is 32, whose edges are also 16's; K in
// steps of the group, the 8 slices covering 2,048 of it before repeating (k's tile). Served from
// K = 64 (a group of 128: 128), as the dense projections.
// The launches this process may take under an entry's name.
template <int B, int G> std::vector<std::string> qmv_launches(const std::string& name) {
  std::vector<std::string> v = {name + "/m8", name + "/m16", name + "/m32"};
  if (qmv_bulk_has<B, G>() && qmv_bulk_used()) v.insert(v.end(), {name + "/bulk_m1", name + "/bulk_m8"});
  return v;
}
// Static, with the opt-in of this translation unit's bulk-copy kernels (gemv_entry.hpp says why).
template <int B, int G> static kc::Entry qmv_entry(const std::string& name) {
  qmv_prepare<B, G, __nv_bfloat16>();
  return kc::affine::projection(B, G, kc::DType::bf16)
      .served({{"m", {1, 8, 32}}, {"n", {64, 4096, 16384}}, {"k", {std::max(64, G), 4096, 16384}}})
      .tile("m", kRowsX, 1, 1)
      .tile("n", kRowsWMost, 1, 1)
      .tile("k", kTileK, G, G)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return qmv_depth_at<B, G>(s["m"], s["k"]); })
      .launches(qmv_launches<B, G>(name))
      .chained({"x"})  // both forms may start before the kernel ahead ends (launch_qmv launches them chained)
      .picks([name](const kc::Shape& s) {  // the bulk-copy form where it serves, else x tiles by rows
        if (qmv_bulk<B, G>(int(s["m"]), int(s["k"]))) return name + (s["m"] == 1 ? "/bulk_m1" : "/bulk_m8");
        const int mt = qmv_tiles(int(s["m"]));
        return name + (mt == 1 ? "/m8" : mt == 2 ? "/m16" : "/m32");
      })
      .launch([](const kc::Buffers& b) {
        kc::cu::need_aligned16(b, {"x", "q"});
        const kc::Shape& s = b.shape();
        launch_qmv<B, G, __nv_bfloat16>(b.ptr("x"), b.ptr("q"), b.ptr("s"), b.ptr("b"), reinterpret_cast<__nv_bfloat16*>(b.out<kc::bf16>("y")),
                                        int(s["m"]), int(s["n"]), int(s["k"]), kc::cu::stream_of(b));
      });
}
}  // namespace

#define KC_QMV(B, G)                                                                                         \
  KC_KERNEL("affine/qmv/b" #B "_g" #G, cuda) { return qmv_entry<B, G>("affine/qmv/b" #B "_g" #G); }          \
  KC_CUDA_LAUNCH("affine/qmv/b" #B "_g" #G "/m8", (kc_affine_qmv<B, G, 1, __nv_bfloat16>), 256, 0);          \
  KC_CUDA_LAUNCH("affine/qmv/b" #B "_g" #G "/m16", (kc_affine_qmv<B, G, 2, __nv_bfloat16>), 256, 0);         \
  KC_CUDA_LAUNCH("affine/qmv/b" #B "_g" #G "/m32", (kc_affine_qmv<B, G, 4, __nv_bfloat16>), 256, 0);

// The bulk-copy form (sm_90a only): at one x row and at 2..8.
#define KC_QMV_BULK(B, G)                                                                                    \
  KC_CUDA_LAUNCH("affine/qmv/b" #B "_g" #G "/bulk_m1", (kc_qmv90<B, G, true, __nv_bfloat16>),                  \
                 kc::qmv90::kThreads, kc::qmv90::kSmemMax);                                                  \
  KC_CUDA_LAUNCH("affine/qmv/b" #B "_g" #G "/bulk_m8", (kc_qmv90<B, G, false, __nv_bfloat16>),                 \
                 kc::qmv90::kThreads, kc::qmv90::kSmemMax);

KC_QMV(2, 32)
KC_QMV(2, 64)
KC_QMV(2, 128)
#if defined(__CUDACC__)
KC_QMV_BULK(2, 64)
KC_QMV_BULK(2, 128)
#endif
KC_QMV(3, 32)
KC_QMV(3, 64)
KC_QMV(3, 128)
KC_QMV(4, 32)
KC_QMV(4, 64)
KC_QMV(4, 128)
#if defined(__CUDACC__)
KC_QMV_BULK(4, 32)
KC_QMV_BULK(4, 64)
KC_QMV_BULK(4, 128)
#endif
KC_QMV(5, 32)
KC_QMV(5, 64)
KC_QMV(5, 128)
KC_QMV(6, 32)
KC_QMV(6, 64)
KC_QMV(6, 128)
KC_QMV(8, 32)
KC_QMV(8, 64)
KC_QMV(8, 128)
#if defined(__CUDACC__)
KC_QMV_BULK(8, 32)
KC_QMV_BULK(8, 64)
KC_QMV_BULK(8, 128)
#endif
