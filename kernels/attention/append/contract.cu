// The paged K/V write on CUDA (attention.hpp's append): a thread a 16-byte piece of a new K or V row,
// copied to its slot through the page table. Bit-exact: a copy, no arithmetic.
#include "../../common/cuda_contract.hpp"
#include "envelope.hpp"

// Threads cover seqs x rows x kv_heads x 2 (K, V) x d / 8 pieces.
__global__ void __launch_bounds__(256) kc_attn_append(const uint4* __restrict__ kn, const uint4* __restrict__ vn,
                                                      const int32_t* __restrict__ lens,
                                                      const int32_t* __restrict__ table, uint4* k, uint4* v, int seqs,
                                                      int rows, int heads, int d, int page, int max_pages) {
  const int pieces = d / 8;
  const long n = long(seqs) * rows * heads * 2 * pieces;
  for (long i = blockIdx.x * long(blockDim.x) + threadIdx.x; i < n; i += long(gridDim.x) * blockDim.x) {
    const int c = int(i % pieces), which = int(i / pieces % 2);
    const long item = i / pieces / 2;  // (sequence, row, head)
    const int h = int(item % heads), r = int(item / heads % rows), s = int(item / heads / rows);
    const int j = lens[s] - rows + r;
    if (j < 0) continue;
    const long slot = long(table[long(s) * max_pages + j / page]) * page + j % page;
    const long to = (slot * heads + h) * pieces + c, from = item * pieces + c;
    if (which == 0) k[to] = kn[from];
    else v[to] = vn[from];
  }
}

// The served envelope (envelope.hpp); head dims a multiple of 8 (16-byte pieces).
KC_KERNEL("attention/append/paged", cuda) {
  return kc::attention_append::served()
      .launches({"attention/append/paged"})
      .launch([](const kc::Buffers& b) {
        kc::cu::need_aligned16(b, {"k_new", "v_new", "k_out", "v_out"});
        const kc::Shape& s = b.shape();
        const int seqs = int(s["seqs"]), rows = int(s["rows"]), heads = int(s["kv_heads"]), d = int(s["d"]);
        if (d % 8) throw kc::Error("attention/append/paged: d must be a multiple of 8 for 16-byte pieces");
        const long n = long(seqs) * rows * heads * 2 * (d / 8);
        const int grid = int(std::min<long>((n + 255) / 256, 4096));
        kc_attn_append<<<grid, 256, 0, kc::cu::stream_of(b)>>>(
            static_cast<const uint4*>(b.ptr("k_new")), static_cast<const uint4*>(b.ptr("v_new")),
            static_cast<const int32_t*>(b.ptr("lens")), static_cast<const int32_t*>(b.ptr("page_table")),
            static_cast<uint4*>(b.ptr("k_out")), static_cast<uint4*>(b.ptr("v_out")), seqs, rows, heads, d,
            kc::attention_append::kPage, int((s["keys"] + kc::attention_append::kPage - 1) / kc::attention_append::kPage));
      });
}

KC_CUDA_LAUNCH("attention/append/paged", kc_attn_append, 256, 0);
