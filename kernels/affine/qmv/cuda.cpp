// Contract of the CUDA affine-quantized decode projection (qmv.cuh) at every bit width and group
// MLX serves, bf16 out. At 2 (groups of 64, 128), 4 and 8 bits on an sm_90 device whose loaded image
// is sm_90a the launcher takes the bulk-copy form where it fits (qmv_sm90a.cuh: 1..8 rows, K a
// multiple of 8 groups), the mma.sync kernel elsewhere: the entry declares both forms' launches, its
// picks name the one taken (gate 3 runs each at a ragged shape) and its depth is the taken form's.
// The kernels, their launchers and launch records are the device units' (qmv_b<bits>.cu), asked
// through QmvUnit.
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
  if (QmvUnit<B, G>::bulk_used()) v.insert(v.end(), {name + "/bulk_m1", name + "/bulk_m8"});
  return v;
}
// With the opt-in of its unit's bulk-copy kernels (each unit's own: QmvUnit).
template <int B, int G> kc::Entry qmv_entry(const std::string& name) {
  using U = QmvUnit<B, G>;
  U::prepare();
  return kc::affine::projection(B, G, kc::DType::bf16)
      .served({{"m", {1, 8, 32}}, {"n", {64, 4096, 16384}}, {"k", {std::max(64, G), 4096, 16384}}})
      .tile("m", kRowsX, 1, 1)
      .tile("n", kRowsWMost, 1, 1)
      .tile("k", kTileK, G, G)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return U::depth(s["m"], s["k"]); })
      .launches(qmv_launches<B, G>(name))
      .chained({"x"})  // both forms may start before the kernel ahead ends (launch_qmv launches them chained)
      .picks([name](const kc::Shape& s) {  // the bulk-copy form where it serves, else x tiles by rows
        if (U::bulk(int(s["m"]), int(s["k"]))) return name + (s["m"] == 1 ? "/bulk_m1" : "/bulk_m8");
        const int mt = qmv_tiles(int(s["m"]));
        return name + (mt == 1 ? "/m8" : mt == 2 ? "/m16" : "/m32");
      })
      .launch([](const kc::Buffers& b) {
        kc::cu::need_aligned16(b, {"x", "q"});
        const kc::Shape& s = b.shape();
        U::launch(b.ptr("x"), b.ptr("q"), b.ptr("s"), b.ptr("b"), b.out<kc::bf16>("y"), int(s["m"]), int(s["n"]),
                  int(s["k"]), b.stream());
      });
}
}  // namespace

#define KC_QMV_ENTRY(B, G) \
  KC_KERNEL("affine/qmv/b" #B "_g" #G, cuda) { return qmv_entry<B, G>("affine/qmv/b" #B "_g" #G); }

KC_QMV_ENTRY(2, 32)
KC_QMV_ENTRY(2, 64)
KC_QMV_ENTRY(2, 128)
KC_QMV_ENTRY(3, 32)
KC_QMV_ENTRY(3, 64)
KC_QMV_ENTRY(3, 128)
KC_QMV_ENTRY(4, 32)
KC_QMV_ENTRY(4, 64)
KC_QMV_ENTRY(4, 128)
KC_QMV_ENTRY(5, 32)
KC_QMV_ENTRY(5, 64)
KC_QMV_ENTRY(5, 128)
KC_QMV_ENTRY(6, 32)
KC_QMV_ENTRY(6, 64)
KC_QMV_ENTRY(6, 128)
KC_QMV_ENTRY(8, 32)
KC_QMV_ENTRY(8, 64)
KC_QMV_ENTRY(8, 128)
