// The glue kernels for bench/cuda/glue/bench.py: a small shared library (ctypes) whose C functions
// launch the served kernels of kernels/embedding, kernels/rope and kernels/l2norm (their .cuh
// launchers, the very code the contracts register) on the caller's stream, so the script times them
// beside eager PyTorch, torch.compile and a copy of the same bytes by one method.
#include <cstdint>

#include "kernels/embedding/gather/gather.cuh"
#include "kernels/l2norm/rows/l2norm.cuh"
#include "kernels/rope/rotary/rope.cuh"

using namespace kc::cu;

extern "C" {

int kc_glue_embedding(const void* table, const int32_t* ids, void* y, int tokens, long vocab, long row_bytes,
                      void* stream) {
  if (row_bytes % 16) return 1;
  launch_embedding_gather<0>(table, ids, y, tokens, vocab, row_bytes, static_cast<cudaStream_t>(stream));
  return int(cudaGetLastError());
}

// pairs: 0 half-split, 1 interleaved; norm: 0 none, 1 before, 2 after (angles computed in fp32).
int kc_glue_rope(const void* q, const void* k, const int32_t* pos, const void* q_w, const void* k_w, void* q_out,
                 void* k_out, int tokens, int heads, int kv, int dim, double theta, float eps, int pairs, int norm,
                 void* stream) {
  if (!rope_dim_ok(dim)) return 1;
  const RopeArgs a{q, k, pos, nullptr, nullptr, q_w, k_w, q_out, k_out, tokens, heads, kv, dim, theta, eps};
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (pairs == 1 && norm == 0) launch_rope<kRopeInterleaved, kRopeComputed, kRopeNoNorm, kRopeOk>(a, s);
  else if (pairs == 0 && norm == 0) launch_rope<kRopeHalves, kRopeComputed, kRopeNoNorm, kRopeOk>(a, s);
  else if (pairs == 0 && norm == 1) launch_rope<kRopeHalves, kRopeComputed, kRopeNormBefore, kRopeOk>(a, s);
  else if (pairs == 0 && norm == 2) launch_rope<kRopeHalves, kRopeComputed, kRopeNormAfter, kRopeOk>(a, s);
  else return 1;
  return int(cudaGetLastError());
}

// r and h null: no residual.
int kc_glue_l2norm(const void* x, const void* r, void* h, void* y, int rows, int cols, float eps, void* stream) {
  if (cols % 8 || cols > kL2MaxCols) return 1;
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (r) launch_l2norm_rows<true, false>(x, r, h, y, rows, cols, eps, s);
  else launch_l2norm_rows<false, false>(x, nullptr, nullptr, y, rows, cols, eps, s);
  return int(cudaGetLastError());
}
}
