// Contracts of CUDA decode attention (cuda_attention.cuh): each row split over KV chunks chosen to
// fill the GPU (cuda_launch.cuh's decode_chunking), the chunks' partials merged, bf16 q, K and V,
// P rounded to bf16 for P V, fp32 sums, natural-log lse, float64's classes for empty rows. The
// kernels are the served split's and merge's (cuda_served.hpp): decode has no device unit of its own.
#include <cmath>

#include "../cuda_contract.cuh"
#include "../cuda_depth.cuh"

namespace {
using kc::attention::Cache;
using Served = std::vector<std::pair<std::string, std::vector<int64_t>>>;

// A row's longest sum chain (cuda_depth.cuh): its chunk's, then the merge's.
double key_depth(int64_t span) { return kc::attn_cu::decode_key_depth(span); }

// The steps every decode entry states: merged chunks, P in bf16 for P V, a score's dot on the
// tensor cores then times the scale.
kc::attention::Steps decode_steps() {
  kc::attention::Steps st;
  st.merged = true;
  st.p = kc::attention::PRound::bf16;
  st.dot_depth = kc::attn_cu::score_depth;
  return st;
}

std::vector<std::string> launch_names(const char* out) {
  std::vector<std::string> v;
  for (int d : {64, 128, 256}) {
    v.push_back("attention/split/d" + std::to_string(d));
    v.push_back(std::string("attention/merge/") + out + "/d" + std::to_string(d));
  }
  return v;
}

kc::Entry decode_cuda(Cache cache, kc::DType out, int64_t page, Served served, int64_t d_least) {
  kc::attn_cu::served_prepare();
  const bool ring = cache == Cache::ring;
  const int64_t tile = d_least >= 128 ? 32 : 64;  // d 256 runs 32-key tiles (Tile<256>)
  return kc::attention::decode(cache, out, decode_steps(), page)
      .served(std::move(served))
      .tile("keys", tile, 1, 1)
      .range("d", d_least, d_least)  // head dims of 64, 128, 256: the kernels' three
      .sums(kc::DType::f32,
            [ring](const kc::Shape& s) { return key_depth(ring ? std::min(s["keys"], s["window"] + 9) : s["keys"]); }, 1)
      .ulp("expf (CUDA's stated bound)", 2)
      .ulp("logf (CUDA's stated bound)", 1)
      .launches(launch_names(out == kc::DType::bf16 ? "bf16" : "f32"))
      .launch([cache, page, out](const kc::Buffers& b) {
        kc::attn_cu::decode_with(b, cache, page, out == kc::DType::bf16, kc::attn_cu::served_split, kc::attn_cu::served_wave);
      });
}

}  // namespace

// GQA 4 at head dim 128 (64 at the edges), contexts to 8k keys, bf16 out.
KC_KERNEL("attention/decode/linear_bf16", cuda) {
  return decode_cuda(Cache::linear, kc::DType::bf16, 0,
                     {{"seqs", {3}}, {"rows", {2}}, {"kv_heads", {1}}, {"group", {4}}, {"d", {128}}, {"keys", {1, 1024, 8192}}},
                     64);
}

// Long contexts, 32k and 128k keys (a second sequence of about half as many): one row of one head a
// sequence, so the float64 references of every gate stay within the contract's time (the kernel is
// the one above: a block's rows are the m16's, filled or not).
// Its far shape: 129 such sequences of 128k keys, whose k and v pass 2^31 elements (4 GiB each) at
// sequence 127; the far-offset check holds the sequences around it to float64.
KC_KERNEL("attention/decode/linear_bf16/long", cuda) {
  return decode_cuda(Cache::linear, kc::DType::bf16, 0,
                     {{"seqs", {2}}, {"rows", {1}}, {"kv_heads", {1}}, {"group", {1}}, {"d", {128}},
                      {"keys", {32768, 131072}}},
                     64)
      .far("seqs", {{"seqs", 129}, {"rows", 1}, {"kv_heads", 1}, {"group", 1}, {"d", 128}, {"keys", 131072}});
}

// A sliding window of 1,000 keys over a ring (window + 8 slots), 8 rows of GQA 8, fp32 out.
KC_KERNEL("attention/decode/ring_f32", cuda) {
  return decode_cuda(Cache::ring, kc::DType::f32, 0,
                            {{"seqs", {3}}, {"rows", {8}}, {"kv_heads", {1}}, {"group", {8}}, {"d", {64}},
                             {"window", {1000}}, {"keys", {1, 2000, 131072}}},
                            64);
}

// Pages of 16 keys shuffled over an arena, head dim 256 (128 at the edges), bf16 out.
KC_KERNEL("attention/decode/paged_bf16", cuda) {
  return decode_cuda(Cache::paged, kc::DType::bf16, 16,
                               {{"seqs", {3}}, {"rows", {4}}, {"kv_heads", {2}}, {"group", {1}}, {"d", {256}},
                                {"keys", {1, 600, 8192}}},
                               128);
}
