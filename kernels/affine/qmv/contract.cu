// Contract of the CUDA affine-quantized decode projection (qmv.cuh) at every bit width and group
// MLX serves, bf16 out.
#include "../../common/cuda_contract.hpp"
#include "kc/families/affine.hpp"
#include "qmv.cuh"

#include <algorithm>
#include <string>

namespace {
using namespace kc::affine_cu;

// Decode rows 1..32 (one block holds them all: m's tile is an mma's 8 x rows); W rows in blocks
// of 16 (n's tile); K in steps of the group, the 8 slices covering 2,048 of it before repeating
// (k's tile). Served from K = 64 (a group of 128: 128), as the dense projections.
template <int B, int G> kc::Entry qmv_entry(const std::string& name) {
  return kc::affine::projection(B, G, kc::DType::bf16)
      .served({{"m", {1, 8, 32}}, {"n", {64, 4096, 16384}}, {"k", {std::max(64, G), 4096, 16384}}})
      .tile("m", kRowsX, 1, 1)
      .tile("n", kRowsW, 1, 1)
      .tile("k", kTileK, G, G)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return qmv_depth(s["k"], G); })
      .launches({name + "/m8", name + "/m16", name + "/m32"})
      .picks([name](const kc::Shape& s) {  // x tiles by rows (qmv_tiles)
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

KC_QMV(2, 32)
KC_QMV(2, 64)
KC_QMV(2, 128)
KC_QMV(3, 32)
KC_QMV(3, 64)
KC_QMV(3, 128)
KC_QMV(4, 32)
KC_QMV(4, 64)
KC_QMV(4, 128)
KC_QMV(5, 32)
KC_QMV(5, 64)
KC_QMV(5, 128)
KC_QMV(6, 32)
KC_QMV(6, 64)
KC_QMV(6, 128)
KC_QMV(8, 32)
KC_QMV(8, 64)
KC_QMV(8, 128)
