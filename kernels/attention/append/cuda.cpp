// Contract of the paged K/V write on CUDA (append.cuh, launched by append.cu): bit-exact, a copy.
#include "../../common/cuda_contract.hpp"
#include "append.cuh"
#include "envelope.hpp"

// The served envelope (envelope.hpp); head dims a multiple of 8 (16-byte pieces).
KC_KERNEL("attention/append/paged", cuda) {
  return kc::attention_append::served()
      .launches({"attention/append/paged"})
      .launch([](const kc::Buffers& b) {
        kc::cu::need_aligned16(b, {"k_new", "v_new", "k_out", "v_out"});
        const kc::Shape& s = b.shape();
        const int seqs = int(s["seqs"]), rows = int(s["rows"]), heads = int(s["kv_heads"]), d = int(s["d"]);
        if (d % 8) throw kc::Error("attention/append/paged: d must be a multiple of 8 for 16-byte pieces");
        kc::attn_cu::append_paged(
            b.ptr("k_new"), b.ptr("v_new"), static_cast<const int32_t*>(b.ptr("lens")),
            static_cast<const int32_t*>(b.ptr("page_table")), b.ptr("k_out"), b.ptr("v_out"), seqs, rows, heads, d,
            kc::attention_append::kPage, int((s["keys"] + kc::attention_append::kPage - 1) / kc::attention_append::kPage),
            b.stream());
      });
}
