// The prompt attention's planted controls on CUDA: the served kernel (kernels/attention/prompt/
// prompt.cuh) with one fault compiled in, each red at gate 3 (the attention range) at the first
// shapes that reach it. Head dim 64, a linear cache, the served contract's statement otherwise.
#include "../../../kernels/attention/prompt/prompt_contract.cuh"

namespace {
using kc::attention::Cache;
using namespace kc::attn_cu;

// 100 rows after up to 100 cached keys: seq 0's first block spans positions 100-163, two key tiles
// (the diagonal-offset fault's reach); 200 keys is off the 64-key tile (the padding lane's).
template <int F> kc::Entry prompt_control(const char* launch) {
  try {
    prepare_prompt<64, F>();  // its dynamic shared memory, before the backend checks the launch
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
      .launch([](const kc::Buffers& b) {
        if (b.shape()["d"] != 64) throw kc::Error("attention prompt controls: head dim 64 only");
        launch_prompt_one<64, F>(prompt_args(b, Cache::linear, 0), kc::cu::stream_of(b));
        check_launch("attention prompt control");
      });
}

}  // namespace

// Gate 3: the causal mask off by one: each row sees the key after its position.
KC_CONTROL("attention/ctl/prompt_past_edge", cuda) {
  return prompt_control<kPromptPastEdge>("attention/ctl/prompt_past_edge");
}
// Gate 3: a key count off the tile: the last tile's lanes past the sequence are not masked for its
// last row but read key 0 again, counting it more than once.
KC_CONTROL("attention/ctl/prompt_pad_lane", cuda) {
  return prompt_control<kPromptPadLane>("attention/ctl/prompt_pad_lane");
}
// Gate 3: a wrong diagonal-block offset: the key loop ends after the tile of the block's first row's
// position, one tile early for the rows whose positions reach the next tile.
KC_CONTROL("attention/ctl/prompt_diag_first", cuda) {
  return prompt_control<kPromptDiagFirst>("attention/ctl/prompt_diag_first");
}

KC_CUDA_LAUNCH("attention/ctl/prompt_past_edge", (kc_attn_prompt<64, kc::attn_cu::kPromptPastEdge>), kc::attn_cu::kThreads,
               kc::attn_cu::kPromptSmem<64>);
KC_CUDA_LAUNCH("attention/ctl/prompt_pad_lane", (kc_attn_prompt<64, kc::attn_cu::kPromptPadLane>), kc::attn_cu::kThreads,
               kc::attn_cu::kPromptSmem<64>);
KC_CUDA_LAUNCH("attention/ctl/prompt_diag_first", (kc_attn_prompt<64, kc::attn_cu::kPromptDiagFirst>), kc::attn_cu::kThreads,
               kc::attn_cu::kPromptSmem<64>);
