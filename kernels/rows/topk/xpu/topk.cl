// bf16 top-k rows (OpenCL C), k <= 64: ids (int) and values (bf16) of the k largest, descending.
// Stated rule: a NaN ranks above +inf (NaNs tie with each other), -0 ties +0, ties go to the lower
// id, and the order is deterministic. Each element becomes a unique 32-bit key (its rank as a bf16
// above its inverted column: larger key = larger value, then lower id). A radix select over four
// 8-bit digits (a 256-bin local histogram each, read in 16-byte loads; integer counts, so order-free)
// finds the k-th largest key; the k keys at or above it are gathered and each finds its place by
// counting the keys above it. Values are copied from x by id, so a NaN keeps its bits.
// One work-group of 256 a row; k <= cols <= 65,535 (the column rides in 16 bits of the key).
#include "kc_rows_cl.h"

#define KC_MAX_K 64

inline uint kc_rank(uint b) {
  if ((b & 0x7fffu) > 0x7f80u) return 0xffffu;  // NaN
  if (b == 0x8000u) b = 0;                      // -0 ties +0
  return (b & 0x8000u) ? (~b & 0xffffu) : (b | 0x8000u);
}
inline uint kc_key(uint b, int col) { return (kc_rank(b) << 16) | (uint)(0xffff - col); }

KC_ROW_KERNEL void kc_cl_topk(global const ushort* x, global int* ids, global ushort* vals, int cols, int k) {
  local uint hist[KC_WG];  // one bin a work-item: 256 bins, an 8-bit digit's
  local uint sel[KC_MAX_K];
  local uint prefix_s, want_s, count_s;
  const int t = get_local_id(0), nvec = cols / 8, tail = nvec * 8 + t;
  const size_t row = get_group_id(0);
  global const ushort* xr = x + row * cols;
  uint prefix = 0, mask = 0, want = (uint)k;
  for (int shift = 24; shift >= 0; shift -= 8) {
    hist[t] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int v = t; v < nvec; v += KC_WG) {
      const ushort8 u = vload8(v, xr);
      const ushort e[8] = {u.s0, u.s1, u.s2, u.s3, u.s4, u.s5, u.s6, u.s7};
      for (int j = 0; j < 8; ++j) {
        const uint key = kc_key(e[j], 8 * v + j);
        if ((key & mask) == prefix) atomic_inc(&hist[(key >> shift) & 255u]);
      }
    }
    if (tail < cols) {
      const uint key = kc_key(xr[tail], tail);
      if ((key & mask) == prefix) atomic_inc(&hist[(key >> shift) & 255u]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t == 0) {  // the digit where the count of keys at and above it reaches `want`
      uint above = 0;
      int d = 255;
      while (d > 0 && above + hist[d] < want) above += hist[d--];
      prefix_s = prefix | ((uint)d << shift);
      want_s = want - above;
      count_s = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    prefix = prefix_s;
    want = want_s;
    mask |= 255u << shift;
  }
  // prefix is now the k-th largest key (keys are unique): exactly k keys are at or above it.
  for (int v = t; v < nvec; v += KC_WG) {
    const ushort8 u = vload8(v, xr);
    const ushort e[8] = {u.s0, u.s1, u.s2, u.s3, u.s4, u.s5, u.s6, u.s7};
    for (int j = 0; j < 8; ++j) {
      const uint key = kc_key(e[j], 8 * v + j);
      if (key >= prefix) sel[atomic_inc(&count_s)] = key;
    }
  }
  if (tail < cols) {
    const uint key = kc_key(xr[tail], tail);
    if (key >= prefix) sel[atomic_inc(&count_s)] = key;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int i = t; i < k; i += KC_WG) {
    const uint me = sel[i];
    int place = 0;
    for (int j = 0; j < k; ++j) place += sel[j] > me;
    const int col = 0xffff - (int)(me & 0xffffu);
    ids[row * k + place] = col;
    vals[row * k + place] = xr[col];
  }
}
