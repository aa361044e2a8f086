// The attention family's planted controls on CUDA: the served split and merge kernels
// (kernels/attention/cuda_attention.cuh) with one fault compiled in, red at the gate it was built
// for. CPU twins: controls/cpu/attention_controls.cpp. Head dim 64, fp32 out (no bf16 rounding to
// hide a fault), small envelopes: each fault shows at the first shapes that reach it. Then the
// prompt kernel's (kernels/attention/prompt/prompt.cuh), each red at gate 3. Their kernels are
// attention_controls.cu's, reached through attention.cuh and attention_prompt.cuh.
#include "../../../kernels/attention/cuda_contract.cuh"
#include "../../../kernels/attention/cuda_depth.cuh"
#include "../../../kernels/attention/prompt/prompt_contract.cuh"
#include "attention.cuh"
#include "attention_prompt.cuh"

namespace {
using kc::attention::Cache;
using namespace kc::attn_cu;
using Served = std::vector<std::pair<std::string, std::vector<int64_t>>>;

// As the served decode entries state it (kernels/attention/decode/cuda.cpp).
double key_depth(int64_t span) { return decode_key_depth(span); }

kc::Entry decode_control(Fault f, const char* launch, Cache cache, int64_t page, Served served, kc::Gate gate,
                         kc::Why why) {
  try {
    ctl_split_prepare(f);  // its dynamic shared memory, before the backend checks the launch
  } catch (const std::exception&) {
  }
  kc::attention::Steps st;
  st.merged = true;
  st.p = kc::attention::PRound::bf16;
  st.dot_depth = score_depth;
  return kc::attention::decode(cache, kc::DType::f32, st, page)
      .served(std::move(served))
      .tile("keys", 64, 1, 1)
      .range("d", 64, 64)
      .sums(kc::DType::f32,
            [](const kc::Shape& s) { return key_depth(s.has("window") ? std::min(s["keys"], s["window"] + 9) : s["keys"]); }, 1)
      .ulp("expf (CUDA's stated bound)", 2)
      .ulp("logf (CUDA's stated bound)", 1)
      .launches({launch, "attention/merge/f32/d64"})
      .control(gate, why)
      .launch([f, cache, page](const kc::Buffers& b) {
        decode_with(
            b, cache, page, false,
            [f](const Args& a, int d, void* stream) {
              if (d != 64) throw kc::Error("attention controls: head dim 64 only");
              ctl_split(f, a, stream);
            },
            [f](int) { return ctl_split_wave(f); });
      });
}

const Served kLinearEnv{{"seqs", {2}}, {"rows", {4}}, {"kv_heads", {1}}, {"group", {2}}, {"d", {64}}, {"keys", {1, 300}}};
const Served kRingEnv{{"seqs", {2}}, {"rows", {4}}, {"kv_heads", {1}}, {"group", {2}}, {"d", {64}}, {"window", {40}},
                   {"keys", {1, 300}}};
const Served kPagedEnv{{"seqs", {3}}, {"rows", {4}}, {"kv_heads", {1}}, {"group", {2}}, {"d", {64}}, {"keys", {1, 300}}};

// 100 rows after up to 100 cached keys: seq 0's first block spans positions 100-163, two key tiles
// (the diagonal-offset fault's reach); 200 keys is off the 64-key tile (the padding lane's).
kc::Entry prompt_control(PromptFault f, const char* launch) {
  try {
    ctl_prompt_prepare(f);  // its dynamic shared memory, before the backend checks the launch
  } catch (const std::exception&) {
  }
  kc::attention::Steps st;
  st.p = kc::attention::PRound::bf16;
  st.dot_depth = score_depth;
  return kc::attention::prompt(Cache::linear, kc::DType::bf16, st, 0)
      .served({{"seqs", {2}}, {"rows", {100}}, {"kv_heads", {1}}, {"group", {2}}, {"d", {64}}, {"keys", {1, 200}}})
      .tile("keys", prompt_keys(64), 1, 1)
      .tile("rows", kPromptRows, 1, 1)
      .range("d", 64, 64)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return prompt_key_depth(s["keys"], prompt_keys(64)); }, 1)
      .ulp("expf (CUDA's stated bound)", 2)
      .ulp("logf (CUDA's stated bound)", 1)
      .launches({launch})
      .control(kc::Gate::shapes, kc::Why::interval)
      .launch([f](const kc::Buffers& b) {
        if (b.shape()["d"] != 64) throw kc::Error("attention prompt controls: head dim 64 only");
        ctl_prompt(f, prompt_args(b, Cache::linear, 0), b.stream());
      });
}

}  // namespace

// Gate 3: the running sum l is never rescaled when the max moves (the fill's newest key jumps).
KC_CONTROL("attention/ctl/no_rescale", cuda) {
  return decode_control(kKeepL, "attention/ctl/no_rescale", Cache::linear, 0, kLinearEnv,
                        kc::Gate::shapes, kc::Why::interval);
}
// Gate 3: a row sees one key past its causal edge.
KC_CONTROL("attention/ctl/past_causal_edge", cuda) {
  return decode_control(kPastEdge, "attention/ctl/past_causal_edge", Cache::linear, 0, kLinearEnv,
                        kc::Gate::shapes, kc::Why::interval);
}
// Gate 3: a row over a ring sees one key before its window (still in the ring).
KC_CONTROL("attention/ctl/past_window", cuda) {
  return decode_control(kPastWindow, "attention/ctl/past_window", Cache::ring, 0, kRingEnv,
                        kc::Gate::shapes, kc::Why::interval);
}
// Gate 3: a sequence's last page read through the table entry before it (a stale page id).
KC_CONTROL("attention/ctl/stale_page", cuda) {
  return decode_control(kStalePage, "attention/ctl/stale_page", Cache::paged, 16, kPagedEnv,
                        kc::Gate::shapes, kc::Why::interval);
}
// Gate 3: sequences 0 and 1 read each other's page table.
KC_CONTROL("attention/ctl/swapped_tables", cuda) {
  return decode_control(kSwapTables, "attention/ctl/swapped_tables", Cache::paged, 16, kPagedEnv,
                        kc::Gate::shapes, kc::Why::interval);
}
// Gate 1: P.V over the whole tile's slots with p = 0 at keys the row may not see: an infinite
// value there gives 0 * Inf = NaN where float64 leaves the key out.
KC_CONTROL("attention/ctl/masked_inf_nan", cuda) {
  return decode_control(kMaskedTiles, "attention/ctl/masked_inf_nan", Cache::linear, 0, kLinearEnv,
                        kc::Gate::nonfinite, kc::Why::class_mismatch);
}
// Gate 3: a merge that adds the last chunk's partial without its scale exp(m_c - max).
KC_CONTROL("attention/ctl/merge_drops_scale", cuda) {
  return kc::attention::merge(kc::attention::Partials::mlo, kc::DType::f32)
      .served({{"rows", {4}}, {"q_heads", {2}}, {"chunks", {8, 16}}, {"d", {64}}})
      .range("d", 64, 64)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["chunks"] + 1); }, 1)
      .ulp("expf (CUDA's stated bound)", 2)
      .ulp("logf (CUDA's stated bound)", 1)
      .launches({"attention/ctl/merge_drops_scale"})
      .control(kc::Gate::shapes, kc::Why::interval)
      .launch([](const kc::Buffers& b) { ctl_merge_drops_scale(merge_args(b, true, false, false), b.stream()); });
}

// Gate 3: the causal mask off by one: each row sees the key after its position.
KC_CONTROL("attention/ctl/prompt_past_edge", cuda) {
  return prompt_control(kPromptPastEdge, "attention/ctl/prompt_past_edge");
}
// Gate 3: a key count off the tile: the last tile's lanes past the sequence are not masked for its
// last row but read key 0 again, counting it more than once.
KC_CONTROL("attention/ctl/prompt_pad_lane", cuda) {
  return prompt_control(kPromptPadLane, "attention/ctl/prompt_pad_lane");
}
// Gate 3: a wrong diagonal-block offset: the key loop ends after the tile of the block's first row's
// position, one tile early for the rows whose positions reach the next tile.
KC_CONTROL("attention/ctl/prompt_diag_first", cuda) {
  return prompt_control(kPromptDiagFirst, "attention/ctl/prompt_diag_first");
}
