// Registration of the CUDA embedding control (embedding_controls.cu): a gather reading the next row,
// red at gate 3 where every row is pinned to its stored bytes.
#include "../../../kernels/common/cuda_contract.hpp"
#include "../../../kernels/embedding/gather/gather.cuh"
#include "kc/families/embedding.hpp"

KC_CONTROL("embedding/ctl_next_row/bf16", cuda) {
  return kc::embedding::gather(kc::DType::bf16)
      .served({{"vocab", {3, 1000}}, {"hidden", {64}}, {"tokens", {7}}})
      .range("hidden", 8, 8)
      .launches({"embedding/ctl_next_row"})
      .control(kc::Gate::shapes, kc::Why::interval)
      .note("reads the row after the id's")
      .launch([](const kc::Buffers& b) {
        kc::cu::need_aligned16(b, {"table", "y"});
        kc::cu::embedding_gather_next_row(b.in<kc::bf16>("table"), b.in<int32_t>("ids"), b.out<kc::bf16>("y"),
                                          int(b.shape()["tokens"]), long(b.shape()["vocab"]),
                                          long(b.shape()["hidden"] * 2), b.stream());
      });
}
