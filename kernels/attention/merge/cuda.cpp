// Contracts of the CUDA merge (cuda_attention.cuh's kc_attn_merge, launched by merge.cu): a warp a
// row, the chunks in order.
#include "../cuda_contract.cuh"

namespace {
std::vector<std::string> merge_launches(const char* out) {
  std::vector<std::string> v;
  for (int d : {64, 128, 256}) v.push_back(std::string("attention/merge/") + out + "/d" + std::to_string(d));
  return v;
}
}  // namespace

// (m, l, o) partials of a split's 8-32 chunks, bf16 out. Sums: a product and an add a chunk.
KC_KERNEL("attention/merge/mlo_bf16", cuda) {
  return kc::attention::merge(kc::attention::Partials::mlo, kc::DType::bf16)
      .served({{"rows", {5}}, {"q_heads", {4}}, {"chunks", {8, 32}}, {"d", {128}}})
      .range("d", 64, 64)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["chunks"] + 1); }, 1)
      .ulp("expf (CUDA's stated bound)", 2)
      .ulp("logf (CUDA's stated bound)", 1)
      .launches(merge_launches("bf16"))
      .launch([](const kc::Buffers& b) {
        kc::attn_cu::served_merge(kc::attn_cu::merge_args(b, true, false, false), int(b.shape()["d"]), true,
                                  b.stream());
      });
}

// (o, lse) partials in base 2 under the stated empty-row rule, fp32 out.
KC_KERNEL("attention/merge/lse2_f32", cuda) {
  kc::attention::Steps st;
  st.empty = kc::attention::Empty::zero;
  st.base = kc::attention::LseBase::two;
  return kc::attention::merge(kc::attention::Partials::lse, kc::DType::f32, st)
      .served({{"rows", {5}}, {"q_heads", {4}}, {"chunks", {8, 32}}, {"d", {64}}})
      .range("d", 64, 64)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["chunks"] + 1); }, 1)
      .ulp("exp2f (CUDA's stated bound)", 2)
      .ulp("log2f (CUDA's stated bound)", 1)
      .launches(merge_launches("f32"))
      .launch([](const kc::Buffers& b) {
        kc::attn_cu::served_merge(kc::attn_cu::merge_args(b, false, true, true), int(b.shape()["d"]), false,
                                  b.stream());
      });
}
