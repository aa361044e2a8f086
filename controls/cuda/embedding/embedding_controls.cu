// The embedding gather's CUDA control: the served kernel reading row id + 1 (mod vocab).
#include "../../../kernels/embedding/gather/gather.cuh"
#include "kc/cuda_launch.hpp"

void kc::cu::embedding_gather_next_row(const void* table, const int32_t* ids, void* y, int tokens, long vocab,
                                       long row_bytes, void* stream) {
  launch_embedding_gather<1>(table, ids, y, tokens, vocab, row_bytes, static_cast<cudaStream_t>(stream));
}

KC_CUDA_LAUNCH("embedding/ctl_next_row", (kc_embedding_gather<1>), 256, 0);
