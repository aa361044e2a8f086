// Contracts of CUDA prompt attention (prompt.cuh: FlashAttention-2 on mma.sync, every SM from
// sm_80; prompt_sm90a.cuh: the warp-specialised wgmma form, head dims 64 and 128 where the loaded
// image is sm_90a's): bf16 q, K and V, P rounded to bf16 for P V, fp32 sums, bf16 out, natural-log
// lse, float64's classes for empty rows. The family's decode formula with many rows a sequence.
// The kernels are reached through their units' exports (prompt_served.hpp).
#include "prompt_contract.cuh"
#include "prompt_served.hpp"
#include "prompt_sm90a.cuh"

namespace {
using kc::attention::Cache;
using Served = std::vector<std::pair<std::string, std::vector<int64_t>>>;

// The wgmma form where its unit's loaded image holds it (sm_90a; KC_CUDA_NO_WGMMA=1 says no, so
// the mma.sync form can be checked on an H200 too).
bool use_wgmma() {
  static const bool yes = kc::attn_cu::served_prompt90_here();
  return yes;
}

// The mma.sync form at head dim d, as launch_prompt<kPromptNone> runs it.
void served_prompt(const kc::attn_cu::PromptArgs& a, int d, void* stream) {
  switch (d) {
    case 64: kc::attn_cu::served_prompt_at<64>(a, stream); break;
    case 128: kc::attn_cu::served_prompt_at<128>(a, stream); break;
    case 256: kc::attn_cu::served_prompt_at<256>(a, stream); break;
    default: kc::attn_cu::bad_prompt_dim(d);
  }
}

void prepare() {
  try {  // at entry build, before the backend checks the launches; without a GPU the launch reports it
    kc::attn_cu::served_prompt_prepare<64>();
    kc::attn_cu::served_prompt_prepare<128>();
    kc::attn_cu::served_prompt_prepare<256>();
  } catch (const std::exception&) {
  }
  if (use_wgmma()) kc::attn_cu::served_prompt90_prepare();
}

// d: the served head dim; 64 and 128 share one envelope and a kernel form (wgmma where the image has
// it), 256 is mma.sync's with its 32-key tiles.
kc::Entry prompt_cuda(Cache cache, int64_t page, Served served, bool window, int d = 64) {
  prepare();
  const bool wg = d != 256 && use_wgmma();
  const char* instr = wg ? kc::attn_cu::kWgmma : kc::attn_cu::kMma;
  kc::attention::Steps st;
  st.p = kc::attention::PRound::bf16;
  st.dot_depth = [instr](const kc::Shape& s) { return kc::cu::tc_depth(instr, long(s["d"])); };
  const int keys = wg ? kc::attn_cu::kKeys90 : kc::attn_cu::prompt_keys(d);
  std::vector<std::string> launches = {"attention/prompt/d256"};
  if (d != 256) launches = wg ? std::vector<std::string>{"attention/prompt/wgmma_d64", "attention/prompt/wgmma_d128"}
                              : std::vector<std::string>{"attention/prompt/d64", "attention/prompt/d128"};
  return kc::attention::prompt(cache, kc::DType::bf16, st, page)
      .served(std::move(served))
      .tile("keys", keys, 1, 1)
      .tile("rows", wg ? kc::attn_cu::kRows90 : kc::attn_cu::kPromptRows, 1, 1)  // gate 3 runs the query block's edges
      .range("d", d == 256 ? 256 : 64, 64)                                        // head dims of 64 and 128, or 256
      .sums(kc::DType::f32,
            [window, instr, keys](const kc::Shape& s) {
              return kc::attn_cu::prompt_key_depth(window ? std::min(s["keys"], s["window"]) : s["keys"], keys, instr);
            },
            1)
      .ulp("expf (CUDA's stated bound)", 2)
      .ulp("logf (CUDA's stated bound)", 1)
      .launches(std::move(launches))
      .note(wg ? "wgmma kernel (sm_90a image)" : "mma.sync kernel")
      .launch([cache, page, wg](const kc::Buffers& b) {
        const kc::attn_cu::PromptArgs a = kc::attn_cu::prompt_args(b, cache, page);
        if (wg) kc::attn_cu::served_prompt90(a, int(b.shape()["d"]), b.stream());
        else served_prompt(a, int(b.shape()["d"]), b.stream());
      });
}

}  // namespace

// Causal prefill over a linear cache, GQA 4 at head dim 128 (64 at the edges): at rows = keys seq 0
// is a whole prompt, at rows < keys a prompt after a cached prefix. Sizes keep the float64
// references of every gate within the contract's time.
KC_KERNEL("attention/prompt/linear_bf16", cuda) {
  return prompt_cuda(Cache::linear, 0,
                     {{"seqs", {3}}, {"rows", {130, 256}}, {"kv_heads", {1}}, {"group", {4}}, {"d", {128}},
                      {"keys", {256, 640}}},
                     false);
}

// A sliding window of 300 keys (tiles left of every row's window skipped), 2 kv heads, GQA 2.
KC_KERNEL("attention/prompt/window_bf16", cuda) {
  return prompt_cuda(Cache::linear, 0,
                     {{"seqs", {3}}, {"rows", {400}}, {"kv_heads", {2}}, {"group", {2}}, {"d", {64}}, {"window", {300}},
                      {"keys", {400, 1200}}},
                     true);
}

// The paged-KV form for cached prefixes: 130 new rows after a prefix of up to 770 keys in pages of
// 16 shuffled over an arena, head dim 128, no GQA.
KC_KERNEL("attention/prompt/paged_bf16", cuda) {
  return prompt_cuda(Cache::paged, 16,
                     {{"seqs", {3}}, {"rows", {130}}, {"kv_heads", {2}}, {"group", {1}}, {"d", {128}},
                      {"keys", {300, 900}}},
                     false);
}

// Head dim 256 (q in shared memory, 32-key tiles): causal GQA 2 over a linear cache, 100 rows
// after up to 200 cached keys.
KC_KERNEL("attention/prompt/linear_d256_bf16", cuda) {
  return prompt_cuda(Cache::linear, 0,
                     {{"seqs", {2}}, {"rows", {100}}, {"kv_heads", {1}}, {"group", {2}}, {"d", {256}},
                      {"keys", {100, 300}}},
                     false, 256);
}
