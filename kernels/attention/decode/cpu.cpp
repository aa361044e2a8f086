// attention/decode/* on the CPU: 1-8 query rows a sequence against a linear cache, a ring with a
// sliding window, or a paged arena, each row an online softmax in fp32 over 64-key tiles
// (cpu_attention.hpp): scores by an fp32 chain over d, exp and log from libm, out = acc / l.
#include "../cpu_attention.hpp"
#include "kc/families/attention.hpp"
#include "kc/registry.hpp"

namespace {
using kc::attention::Cache;
using namespace kc::attention_cpu;

// A key-sum's longest chain: one add a key, a rescale a tile, the product's rounding; over the most
// keys a row sees (`span`).
double key_depth(int64_t span) { return double(span + span / kTile + 2); }

}  // namespace

// Envelopes: only keys has two served sizes (the context); gate 3's edges run every other dim from
// its least up at small contexts, and keys' edges at the served heads.

// GQA 4 at head dim 128 (64 at the edges), contexts to 1,024 keys, bf16 out.
KC_KERNEL("attention/decode/linear_bf16", cpu) {
  return kc::attention::decode(Cache::linear, kc::DType::bf16)
      .served({{"seqs", {3}}, {"rows", {2}}, {"kv_heads", {1}}, {"group", {4}}, {"d", {128}}, {"keys", {1, 1024}}})
      .tile("keys", kTile, 1, 1)
      .range("d", 64, 64)  // head dims of 64, 128, ...
      .sums(kc::DType::f32, [](const kc::Shape& s) { return key_depth(s["keys"]); }, 1)
      .ulp("expf", 1)
      .ulp("logf", 1)
      .launch([](const kc::Buffers& b) { decode<kc::bf16>(b, Cache::linear, 0, false, false, false); });
}

// A sliding window over a ring (window + 8 slots), GQA 8, fp32 out.
KC_KERNEL("attention/decode/ring_f32", cpu) {
  return kc::attention::decode(Cache::ring, kc::DType::f32)
      .served({{"seqs", {3}}, {"rows", {8}}, {"kv_heads", {1}}, {"group", {8}}, {"d", {64}}, {"window", {64}},
               {"keys", {1, 700}}})
      .tile("keys", kTile, 1, 1)
      .range("d", 64, 64)  // head dims of 64, 128, ...
      .sums(kc::DType::f32, [](const kc::Shape& s) { return key_depth(std::min(s["keys"], s["window"])); }, 1)
      .ulp("expf", 1)
      .ulp("logf", 1)
      .launch([](const kc::Buffers& b) { decode<float>(b, Cache::ring, 0, false, false, false); });
}

// Pages of 16 keys shuffled over an arena, no GQA, P rounded to bf16 for P.V (l sums the fp32 P), bf16 out.
KC_KERNEL("attention/decode/paged_bf16", cpu) {
  kc::attention::Steps st;
  st.p = kc::attention::PRound::bf16;
  return kc::attention::decode(Cache::paged, kc::DType::bf16, st, 16)
      .served({{"seqs", {3}}, {"rows", {4}}, {"kv_heads", {2}}, {"group", {1}}, {"d", {64}}, {"keys", {1, 600}}})
      .tile("keys", kTile, 1, 1)
      .range("d", 64, 64)  // head dims of 64, 128, ...
      .sums(kc::DType::f32, [](const kc::Shape& s) { return key_depth(s["keys"]); }, 1)
      .ulp("expf", 1)
      .ulp("logf", 1)
      .launch([](const kc::Buffers& b) { decode<kc::bf16>(b, Cache::paged, 16, true, false, false); });
}
