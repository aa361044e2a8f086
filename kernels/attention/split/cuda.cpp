// Contracts of the CUDA split (cuda_attention.cuh's kc_attn_split over the entry's chunks, launched
// by split_d64.cu, split_d128.cu and split_d256.cu): one launch a head dim, every cache; P rounded
// to bf16 for P V.
#include "../cuda_contract.cuh"
#include "../cuda_depth.cuh"

namespace {
using kc::attention::Cache;

// A chunk's longest chain and a score's dot (cuda_depth.cuh).
double key_depth(int64_t span) { return kc::attn_cu::chunk_key_depth(span); }
double dot_depth(const kc::Shape& s) { return kc::attn_cu::score_depth(s); }
std::vector<std::string> split_launches() { return {"attention/split/d64", "attention/split/d128", "attention/split/d256"}; }

}  // namespace

// Chunks of 256 keys over a paged cache: (m, l, unnormalized o), float64's classes.
KC_KERNEL("attention/split/paged_mlo", cuda) {
  kc::attn_cu::served_prepare();
  kc::attention::Steps st;
  st.dot_depth = dot_depth;
  st.p = kc::attention::PRound::bf16;
  return kc::attention::split(Cache::paged, kc::attention::Partials::mlo, 256, st, 16)
      .served({{"seqs", {3}}, {"rows", {2}}, {"kv_heads", {1}}, {"group", {4}}, {"d", {128}}, {"keys", {1, 700, 8192}}})
      .tile("keys", 64, 1, 1)
      .range("d", 64, 64)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return key_depth(std::min<int64_t>(s["keys"], 256)); }, 0)
      .ulp("expf (CUDA's stated bound)", 2)
      .launches(split_launches())
      .launch([](const kc::Buffers& b) { kc::attn_cu::split_entry(b, Cache::paged, 16, 256, true, false); });
}

// Chunks of 128 keys over a linear cache: (o, lse) in base 2, an empty chunk 0 and -Inf (stated).
KC_KERNEL("attention/split/linear_lse2", cuda) {
  kc::attn_cu::served_prepare();
  kc::attention::Steps st;
  st.dot_depth = dot_depth;
  st.p = kc::attention::PRound::bf16;
  st.score_ops = 2;  // the dot times fp32(scale * log2(e)), itself rounded
  st.empty = kc::attention::Empty::zero;
  st.base = kc::attention::LseBase::two;
  return kc::attention::split(Cache::linear, kc::attention::Partials::lse, 128, st)
      .served({{"seqs", {3}}, {"rows", {2}}, {"kv_heads", {2}}, {"group", {1}}, {"d", {256}}, {"keys", {1, 400}}})
      .tile("keys", 32, 1, 1)  // d 256 runs 32-key tiles (Tile<256>)
      .range("d", 128, 128)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return key_depth(std::min<int64_t>(s["keys"], 128)); }, 1)
      .ulp("exp2f (CUDA's stated bound)", 2)
      .ulp("log2f (CUDA's stated bound)", 1)
      .launches(split_launches())
      .launch([](const kc::Buffers& b) { kc::attn_cu::split_entry(b, Cache::linear, 0, 128, false, true); });
}
