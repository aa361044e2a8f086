// The attention input family (DESIGN.md §2.3): decode rows of queries against keys and values held
// in a linear cache, a ring with a sliding window, or a paged arena read through a page table; GQA;
// a batch of sequences of unequal length; the split form (partials per KV chunk) and its merge.
// Each function returns an Entry whose rig builds inputs for every gate, the float64 reference over
// exactly the keys each row may see, the attention range of gate 3 and gate 4's replays.
//
// Dims (decode and split): "seqs" sequences; "rows" query rows a sequence (decode: 1-8, prompt: up
// to keys and past, rows < keys a prefill after a cached prefix; a ring: at most 9); "kv_heads";
// "group" q heads per kv head (GQA 1, 4, 8), q_heads = kv_heads * group, q head h reads kv head
// h / group; "d" head dim; "keys" the longest sequence's key count (tile it with the kernel's key
// tile: rescales are counted per tile); "window" (ring: required; linear, paged: optional) keys a
// row sees back from its position. Merge dims: "rows" (query rows of every sequence), "q_heads",
// "chunks" (partials a row), "d". geometry() gives every size a kernel needs.
//
// Buffers, row-major, bf16 unless named:
//   q [seqs, rows, q_heads, d]; lens i32 [seqs] keys each sequence holds; pos i32 [seqs, rows] each
//   row's position. Sequence s holds lens[s] keys: seq 0 `keys`, the others fewer, and with 3 or more
//   sequences the last holds none (no key yet). Row r sits at pos = lens[s] - rows + r; it sees key j
//   iff 0 <= j <= pos, j > pos - window (with a window) and j < lens[s]: a row at pos < 0 sees none.
//   linear: k, v [seqs, slots, kv_heads, d], key j at slot j (slots = keys + 8: the slots past a
//           sequence's length hold values no row may see).
//   ring:   k, v [seqs, slots, kv_heads, d], key j at slot j % slots, slots = window + 8, holding keys
//           [lens - slots, lens): every row's window, and older keys outside it.
//   paged:  k, v [pages, page, kv_heads, d], page_table i32 [seqs, max_pages]: key j of sequence s in
//           page page_table[s, j / page] at slot j % page. Pages are shuffled over the arena, which
//           holds spare pages no sequence owns; unused table entries name a spare page.
//   decode out: out [seqs, rows, q_heads, d] (bf16 or f32), lse f32 [seqs, rows, q_heads].
//   split  out (f32, chunk c covers keys [c * chunk, (c + 1) * chunk), chunks = ceil(keys / chunk)):
//           Partials::mlo: part_m, part_l [seqs, rows, q_heads, chunks], part_o [..., chunks, d];
//           Partials::lse: part_lse [seqs, rows, q_heads, chunks], part_o [..., chunks, d].
//   merge:  the split's buffers as inputs over [rows, q_heads, chunks(, d)]; out [rows, q_heads, d],
//           lse f32 [rows, q_heads].
//
// The formula, in float64 on the inputs as stored, over a row's visible keys J (a chunk's for a
// partial): s_j = scale * q . k_j (scale = scale(shape), an fp32 value), m = max s_j (NaN if any is
// NaN), c = m, or 0 where m = -Inf (no key, or every score -Inf: nothing to overflow, as
// FlashAttention's guard), p_j = exp(s_j - c), l = sum p_j, o = sum p_j v_j (unnormalized),
// out = o / l, lse = c + log l (log2-based units with LseBase::two: lse / ln 2). So a row with no
// key, or whose every score is -Inf, has out NaN (0/0) and lse -Inf; a NaN score or a +Inf one
// (exp(inf - inf)) makes both NaN. Merge: M = max m_c, C = M or 0 where M = -Inf, w_c = exp(m_c - C),
// out = sum w_c o_c / sum w_c l_c, lse = C + log sum w_c l_c (LSE form: l_c = 1, m_c = lse_c).
// Empty::zero states the widely used rule instead: an empty or fully masked row (every lse_c -Inf,
// for a merge) writes out 0 and lse -Inf; every other output keeps float64's class.
//
// Gate 3, the attention range: each output must lie between float64's values at the two ends of the
// spread the kernel's fp32 steps allow, rounded outward to its type. A weight p_j may move by the
// score's error (gamma(dot depth) of its |q . k| times scale, Steps::score_ops roundings), the
// rounding of s_j - max and of each rescale's argument (up to u (M - s_j) each), and exp's stated
// ulps (spec .ulp("expf" or "exp2f", n), 2 if unstated) once for p_j and once for every rescale of
// its running sums after it (a move of the max, at most once a key tile; with Steps::merged every
// later tile's, and one more for the merge); P rounded to bf16 for P.V
// (Steps::p) moves only the numerator's term; the key sums take gamma(spec depth) (depth counts a
// sum's chain with its rescales and the product's rounding), the division spec ops. out's ends are
// the extremes of sum w_j v_j / sum w_j over every weight in its spread (a linear-fractional
// problem, solved exactly); lse's ends add log's ulps (.ulp("logf" or "log2f"), 1 if unstated).
// Random fill: spread bf16 q, k, v; k[., 0] ramps up along each sequence and its newest key jumps,
// while q[., 0] = +4 on even q heads and -4 on odd ones: the max moves late in half the rows.
// Named fill: offset (k near 1000: a kernel that does not subtract the max overflows exp).
//
// Gate 1: first (and alone at the largest shapes) NaN in q, +Inf in k and v at the planted row's
// last visible key, +Inf in v past its causal edge. Then q, k and v get plants::standard's single values
// (k and v at the planted row's last visible key, a d column by Fill::pos); then masked keys, which
// must not reach any output: past the causal edge (the slot past the sequence's end), the last row's
// key (past every earlier row's edge), outside the window, in a page's padding, in a spare page;
// then whole rows: every visible score -Inf (q -Inf against k > 0), every visible score -Inf but the
// last key's, a sequence with no key. Every score NaN is "NaN in q". The planted row is sequence 0's
// last row, q head 0. Merge: single values in part_m, part_l (part_lse) and part_o of a non-empty
// chunk, and every partial empty, or all but one. prompt() adds plants at sequence 0's first row
// that sees a key, far from the last row in a prefill, after the first four and like them at the
// largest shapes too: NaN in its q, and +Inf in v, NaN in k and in v at the key just past its causal
// edge, which the later rows see and it must not; then, against the spec's key tile T, +Inf in v at
// key m T - 1, m T and m T + 1 (the first m >= 1 a row reaches) just past a row's causal edge and just
// before a row's window (where no row reaches one, the plain plant's place), and a fully masked
// first row tile (the spec's rows tile; every row's visible scores -Inf: out NaN, lse -Inf).
//
// Gate 4: q mirrored (q[d-1-t] = -q[t], one product 2^16) against symmetric integer keys makes
// every q . k exactly 1, so every score is equal, p = 1 and the key sums are integer sums of v
// (mirrored over the keys): exact in fp32, while every fp16 replay overflows and every bf16 replay
// loses the scores (lse shows it at one key) and P.V. The range then drops the sums' gamma. Merge:
// equal m_c, integer l_c and mirrored integer o_c.
#pragma once
#include <cstdint>
#include <functional>

#include "kc/spec.hpp"

namespace kc::attention {

enum class Cache : uint8_t { linear, ring, paged };
// P as P.V reads it (l sums the fp32 P either way): fp32; bf16 (to nearest); tf32, the operand of a
// tf32 mma, cut to 10 fraction bits toward zero as tools/tc-probe measured (docs/tensor-cores.md).
enum class PRound : uint8_t { f32, bf16, tf32 };
enum class Empty : uint8_t { propagate, zero };  // float64's class, or the stated 0 / -Inf rule
enum class LseBase : uint8_t { e, two };       // lse in natural or base-2 units
enum class Partials : uint8_t { mlo, lse };    // (max, sum, unnormalized o) or (lse, normalized o)

// A kernel's fp32 steps, as the range follows them (its sums' depth, ops and ulps are the spec's).
struct Steps {
  PRound p = PRound::f32;
  int score_ops = 1;  // roundings of a score after its dot: scale (1), a folded log2(e) (2)
  std::function<double(const Shape&)> dot_depth;  // the q . k chain; empty: d
  Empty empty = Empty::propagate;
  LseBase base = LseBase::e;
  // Decode only: the kernel cuts a row's keys into chunks of its choosing (each a whole number of
  // key tiles), a partial a chunk, and merges the partials. A chunk's running max starts afresh, so
  // rescales are counted by the tiles after a key alone, and the merge's rescale of each partial is
  // one more exp on every weight.
  bool merged = false;
};

// Every size a kernel needs at a shape.
struct Geometry {
  Cache cache = Cache::linear;
  int64_t seqs = 1, rows = 1, kv_heads = 1, group = 1, q_heads = 1, d = 1, keys = 1;
  int64_t window = 0;     // 0: none
  int64_t slots = 0;      // linear and ring: slots a sequence; paged: the page size
  int64_t pages = 0, max_pages = 0;  // paged: pages in the arena, table entries a sequence
  int64_t chunk = 0, chunks = 0;     // split: keys a chunk, chunks a row
  float scale = 1;        // fp32(1 / sqrt(d))
};
Geometry geometry(Cache cache, const Shape& s, int64_t page = 16, int64_t chunk = 0);
float scale(const Shape& s);  // fp32(1 / sqrt(d))

Entry decode(Cache cache, DType out, Steps steps = {}, int64_t page = 16);
// Prefill: decode's entry with prompt's plants (gate 1 above); a linear or paged cache.
Entry prompt(Cache cache, DType out, Steps steps = {}, int64_t page = 16);
Entry split(Cache cache, Partials form, int64_t chunk, Steps steps = {}, int64_t page = 16);
Entry merge(Partials form, DType out, Steps steps = {});

// The paged cache's write: each sequence's newest `rows` keys (k_new, v_new [seqs, rows, kv_heads,
// d] bf16; row r is key lens[s] - rows + r, none where that is below 0) copied into the arena's k and
// v [pages, page, kv_heads, d] through page_table, in place (k_out, v_out are k and v): bit-exact,
// every other slot of the arena (spare pages and padding included) unchanged. Dims: seqs, rows,
// kv_heads, d, keys (the longest sequence after the write; lens as decode's).
Entry append(int64_t page = 16);

}  // namespace kc::attention
