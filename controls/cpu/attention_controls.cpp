// The attention family's planted controls on the CPU: each the served kernels' code with one fault
// switched on (kernels/attention/cpu_attention.hpp's Faults, cpu_merge.hpp's drop_scale), red at the
// gate it was built for. Small envelopes: each fault shows at the first shapes that reach it.
#include "../../kernels/attention/cpu_attention.hpp"
#include "../../kernels/attention/append/cpu_append.hpp"
#include "../../kernels/attention/merge/cpu_merge.hpp"
#include "kc/families/attention.hpp"
#include "kc/registry.hpp"

namespace {
using kc::attention::Cache;
using namespace kc::attention_cpu;

double key_depth(int64_t span) { return double(span + span / kTile + 2); }

// A decode control's envelope: fp32 out (no bf16 rounding to hide a fault), the sums' chain, libm's ulps.
kc::Entry decode_control(Cache cache, int64_t page, std::vector<std::pair<std::string, std::vector<int64_t>>> served,
                         kc::Gate gate, kc::Why why, Faults f) {
  kc::attention::Steps st;
  return kc::attention::decode(cache, kc::DType::f32, st, page)
      .served(std::move(served))
      .tile("keys", kTile, 1, 1)
      .range("d", 64, 64)
      .sums(kc::DType::f32,
            [](const kc::Shape& s) { return key_depth(s.has("window") ? std::min(s["keys"], s["window"]) : s["keys"]); }, 1)
      .ulp("expf", 1)
      .ulp("logf", 1)
      .control(gate, why)
      .launch([cache, page, f](const kc::Buffers& b) { decode<float>(b, cache, page, false, false, false, f); });
}

using Served = std::vector<std::pair<std::string, std::vector<int64_t>>>;
const Served kLinear{{"seqs", {2}}, {"rows", {4}}, {"kv_heads", {1}}, {"group", {2}}, {"d", {64}}, {"keys", {1, 300}}};
const Served kRing{{"seqs", {2}}, {"rows", {4}}, {"kv_heads", {1}}, {"group", {2}}, {"d", {64}}, {"window", {40}},
                   {"keys", {1, 300}}};
const Served kPaged{{"seqs", {3}}, {"rows", {4}}, {"kv_heads", {1}}, {"group", {2}}, {"d", {64}}, {"keys", {1, 300}}};

}  // namespace

// Gate 3: the running sum l is never rescaled when the max moves; the random fill's newest key
// jumps (and k ramps up before it), so the max moves late in half the rows.
KC_CONTROL("attention/ctl/no_rescale", cpu) {
  Faults f;
  f.keep_l = true;
  return decode_control(Cache::linear, 0, kLinear, kc::Gate::shapes, kc::Why::interval, f);
}

// Gate 3: a row sees one key past its causal edge (the next row's key, or the slot past the end).
KC_CONTROL("attention/ctl/past_causal_edge", cpu) {
  Faults f;
  f.past_edge = 1;
  return decode_control(Cache::linear, 0, kLinear, kc::Gate::shapes, kc::Why::interval, f);
}

// Gate 3: a row over a ring sees one key before its window (still in the ring).
KC_CONTROL("attention/ctl/past_window", cpu) {
  Faults f;
  f.past_window = 1;
  return decode_control(Cache::ring, 0, kRing, kc::Gate::shapes, kc::Why::interval, f);
}

// Gate 3: a sequence's last page read through the page before it (a stale page id).
KC_CONTROL("attention/ctl/stale_page", cpu) {
  Faults f;
  f.stale_page = true;
  return decode_control(Cache::paged, 16, kPaged, kc::Gate::shapes, kc::Why::interval, f);
}

// Gate 3: sequences 0 and 1 read each other's page table (entries past a sequence's pages name
// spare pages, so the reads stay in the arena).
KC_CONTROL("attention/ctl/swapped_tables", cpu) {
  Faults f;
  f.swap_tables = true;
  return decode_control(Cache::paged, 16, kPaged, kc::Gate::shapes, kc::Why::interval, f);
}

// Gate 1: P.V over whole tiles of slots with p = 0 at the keys a row may not see: an infinite
// value there gives 0 * Inf = NaN where float64 leaves the key out. Finite there, it adds 0s: green
// at gate 3.
KC_CONTROL("attention/ctl/masked_inf_nan", cpu) {
  Faults f;
  f.masked_tiles = true;
  return decode_control(Cache::linear, 0, kLinear, kc::Gate::nonfinite, kc::Why::class_mismatch, f);
}

// Gate 3: P.V reads P as a tf32 mma does (10 fraction bits, cut toward zero: tools/tc-probe's
// operand cut), stated as fp32 P: on the random fill's weights, spread over [2^-6, 1] and more, each
// p_j v_j loses up to 2^-10 of itself, past the fp32 steps' spread. Stated PRound::tf32, the same
// kernel passes (tests/attention).
KC_CONTROL("attention/ctl/p_tf32_stated_f32", cpu) {
  Faults f;
  f.p_tf32 = true;
  return decode_control(Cache::linear, 0, kLinear, kc::Gate::shapes, kc::Why::interval, f);
}

// Gate 3: a merge that adds the last chunk's partial without its scale exp(m_c - max).
KC_CONTROL("attention/ctl/merge_drops_scale", cpu) {
  return kc::attention::merge(kc::attention::Partials::mlo, kc::DType::f32)
      .served({{"rows", {4}}, {"q_heads", {2}}, {"chunks", {8, 16}}, {"d", {64}}})
      .range("d", 64, 64)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["chunks"] + 1); }, 1)
      .ulp("expf", 1)
      .ulp("logf", 1)
      .control(kc::Gate::shapes, kc::Why::interval)
      .launch([](const kc::Buffers& b) { merge<float>(b, true, false, false, /*drop_scale=*/true); });
}

// Gate 3: the K/V write puts each sequence's newest page through the table entry before it; the
// write is bit-exact, so the right page's old values and the wrong page's new ones show.
KC_CONTROL("attention/ctl/append_stale_page", cpu) {
  return kc::attention::append(16)
      .served({{"seqs", {3}}, {"rows", {1, 4}}, {"kv_heads", {1}}, {"d", {64}}, {"keys", {1, 100}}})
      .range("rows", 1, 1)
      .range("d", 64, 64)
      .tile("keys", 16, 1, 1)
      .ops(0)
      .control(kc::Gate::shapes, kc::Why::interval)
      .launch([](const kc::Buffers& b) { kc::attention_cpu::append(b, 16, /*stale_page=*/true); });
}

// Gate 1: a prefill row whose sliding window starts at a key tile's start (key 64) also visits the
// key before it, weighted 0: 0 * Inf is NaN where float64 never reads it. Only the plant at a tile's
// edge (key tile - 1 just before a row's window) reaches that row.
KC_CONTROL("attention/ctl/window_tile_edge", cpu) {
  Faults f;
  f.window_tile_edge = true;
  return kc::attention::prompt(Cache::linear, kc::DType::f32)
      .served({{"seqs", {3}}, {"rows", {80}}, {"kv_heads", {1}}, {"group", {1}}, {"d", {64}}, {"window", {80}},
               {"keys", {80, 192}}})
      .tile("keys", kTile, 1, 1)
      .range("d", 64, 64)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return key_depth(std::min(s["keys"], s["window"])); }, 1)
      .ulp("expf", 1)
      .ulp("logf", 1)
      .control(kc::Gate::nonfinite, kc::Why::class_mismatch)
      .launch([f](const kc::Buffers& b) { decode<float>(b, Cache::linear, 0, false, false, false, f); });
}
