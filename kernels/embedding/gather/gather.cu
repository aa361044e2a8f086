// The CUDA unit of the embedding gather (gather.cuh): its launcher and its launch.
#include "gather.cuh"
#include "kc/cuda_launch.hpp"

void kc::cu::embedding_gather(const void* table, const int32_t* ids, void* y, int tokens, long vocab, long row_bytes,
                              void* stream) {
  launch_embedding_gather<0>(table, ids, y, tokens, vocab, row_bytes, static_cast<cudaStream_t>(stream));
}

KC_CUDA_LAUNCH("embedding/gather", (kc_embedding_gather<0>), 256, 0);
