// The paged K/V write on the CPU (attention.hpp's append), with the planted fault its control
// switches on.
#pragma once
#include <cstring>

#include "kc/registry.hpp"

namespace kc::attention_cpu {

// stale_page (a control): the newest page of each sequence written through the table entry before it.
inline void append(const kc::Buffers& b, int64_t page, bool stale_page = false) {
  const kc::Shape& s = b.shape();
  const int64_t seqs = s["seqs"], rows = s["rows"], heads = s["kv_heads"], d = s["d"];
  const int64_t max_pages = (s["keys"] + page - 1) / page;
  const kc::bf16 *kn = b.in<kc::bf16>("k_new"), *vn = b.in<kc::bf16>("v_new");
  const int32_t *lens = b.in<int32_t>("lens"), *table = b.in<int32_t>("page_table");
  kc::bf16 *k = b.out<kc::bf16>("k_out"), *v = b.out<kc::bf16>("v_out");
  for (int64_t q = 0; q < seqs; ++q)
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t j = lens[q] - rows + r;
      if (j < 0) continue;
      int64_t p = j / page;
      if (stale_page && p >= 1 && p == (lens[q] - 1) / page) --p;
      const int64_t slot = int64_t(table[q * max_pages + p]) * page + j % page;
      for (int64_t h = 0; h < heads; ++h) {
        const int64_t from = ((q * rows + r) * heads + h) * d, to = (slot * heads + h) * d;
        std::memcpy(k + to, kn + from, size_t(d) * sizeof(kc::bf16));
        std::memcpy(v + to, vn + from, size_t(d) * sizeof(kc::bf16));
      }
    }
}

}  // namespace kc::attention_cpu
