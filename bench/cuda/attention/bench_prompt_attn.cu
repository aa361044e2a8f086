// Throughput of CUDA prompt (prefill) attention (kernels/attention/prompt/prompt.cuh: FlashAttention-2
// on mma.sync) over a linear cache, every sequence a whole prompt (rows = keys = seq), causal or
// not (every row sees every key). Standalone (no harness). 32 q heads over 8 kv heads, bf16;
// table_prompt.py sets PyTorch's scaled_dot_product_attention and FlexAttention beside it.
//   bench_prompt_attention [BATCH SEQ D CAUSAL]...     (default: the shapes below; CAUSAL 1 or 0)
//   bench_prompt_attention --once BATCH SEQ D CAUSAL   (each launch once, untimed: compute-sanitizer)
// Prints CSV: kernel,form,variant,batch,seq,d,causal,us,flops,TFLOPs, a line for each form the build
// serves at the shape (mma: prompt.cuh's mma.sync kernel; wgmma: prompt_sm90a.cuh's, d 64 and 128). Flops: 4 d a (row, visible key)
// pair, every q head (causal: seq (seq + 1) / 2 pairs a sequence, else seq^2). Method:
// bench_check.cuh's time_us over sets of q, K and V holding together >= 4x the L2.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/cuda/bench_check.cuh"
#include "kernels/attention/prompt/prompt_sm90a.cuh"

namespace {
using namespace kc::attn_cu;
constexpr int kQHeads = 32, kKvHeads = 8;
bool g_once = false;

// Random bf16 in [-2, 2).
__global__ void fill_bf16(uint16_t* p, long n, unsigned seed) {
  for (long i = blockIdx.x * long(blockDim.x) + threadIdx.x; i < n; i += long(gridDim.x) * blockDim.x) {
    unsigned h = unsigned(i) * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    const float f = (float(h & 0xffffff) / float(1 << 24)) * 4.f - 2.f;
    p[i] = uint16_t(__float_as_uint(f) >> 16);
  }
}

void bench_shape(int batch, int seq, int kD, bool causal, size_t l2) {
  const long kv = long(batch) * seq * kKvHeads * kD, qn = long(batch) * seq * kQHeads * kD;
  const double set_bytes = (2.0 * kv + 2.0 * qn) * 2;  // K, V, q and out
  const int sets = int(std::min<double>(64, std::max<double>(1, std::ceil(4.0 * double(l2) / set_bytes))));
  const double flops = 4.0 * kD * kQHeads * batch * (causal ? double(seq) * (seq + 1) / 2 : double(seq) * seq);
  const int reps = int(std::max<double>(3, std::min<double>(200, 2e12 / flops)));
  const size_t ns = size_t(sets);
  std::vector<uint16_t*> k(ns), v(ns), q(ns), out(ns);
  std::vector<float*> lse(ns);
  for (size_t i = 0; i < ns; ++i) {
    CK(cudaMalloc(&k[i], size_t(kv) * 2));
    CK(cudaMalloc(&v[i], size_t(kv) * 2));
    CK(cudaMalloc(&q[i], size_t(qn) * 2));
    CK(cudaMalloc(&out[i], size_t(qn) * 2));
    CK(cudaMalloc(&lse[i], size_t(batch) * seq * kQHeads * 4));
    fill_bf16<<<2048, 256>>>(k[i], kv, 11u + 7u * unsigned(i));
    fill_bf16<<<2048, 256>>>(v[i], kv, 13u + 7u * unsigned(i));
    fill_bf16<<<2048, 256>>>(q[i], qn, 5u + 3u * unsigned(i));
  }
  std::vector<int32_t> lens(size_t(batch), seq), pos(size_t(batch) * seq);
  for (size_t i = 0; i < pos.size(); ++i) pos[i] = causal ? int32_t(i % size_t(seq)) : seq - 1;
  int32_t *d_lens, *d_pos;
  CK(cudaMalloc(&d_lens, lens.size() * 4));
  CK(cudaMalloc(&d_pos, pos.size() * 4));
  CK(cudaMemcpy(d_lens, lens.data(), lens.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_pos, pos.data(), pos.size() * 4, cudaMemcpyHostToDevice));
  PromptArgs a{};
  a.lens = d_lens, a.pos = d_pos, a.table = nullptr, a.cache = kLinear;
  a.seqs = batch, a.rows = seq, a.kv_heads = kKvHeads, a.group = kQHeads / kKvHeads, a.window = 0, a.slots = seq;
  a.max_pages = 0, a.sc = float(1.0 / std::sqrt(double(kD)));
  // Each form this build serves at the head dim: mma.sync everywhere, wgmma at 64 and 128 on sm_90a.
  for (const bool wg : {false, true}) {
    if (wg && (kD == 256 || !kc::gemm90::image_has_wgmma())) continue;
    const double us = kc_bench::time_us([&](int i) {
      PromptArgs b = a;
      b.q = q[size_t(i)], b.k = k[size_t(i)], b.v = v[size_t(i)], b.out = out[size_t(i)], b.lse = lse[size_t(i)];
      if (wg) launch_prompt90(b, kD, 0);
      else launch_prompt(b, kD, 0);
    }, sets, reps, g_once);
    std::printf("prompt/linear,%s,sets=%d,%d,%d,%d,%d,%.2f,%.0f,%.1f\n", wg ? "wgmma" : "mma", sets, batch, seq, kD,
                causal ? 1 : 0, us, flops, flops / us * 1e-6);
  }
  std::fflush(stdout);
  for (size_t i = 0; i < ns; ++i) {
    CK(cudaFree(k[i]));
    CK(cudaFree(v[i]));
    CK(cudaFree(q[i]));
    CK(cudaFree(out[i]));
    CK(cudaFree(lse[i]));
  }
  CK(cudaFree(d_lens));
  CK(cudaFree(d_pos));
}

}  // namespace

int main(int argc, char** argv) {
  int dev = 0, l2 = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  struct Shape { int batch, seq, d, causal; };
  std::vector<Shape> shapes;
  int first = 1;
  if (argc > 1 && std::string(argv[1]) == "--once") g_once = true, first = 2;
  if ((argc - first) % 4) {
    std::fprintf(stderr, "usage: bench_prompt_attention [--once] [BATCH SEQ D CAUSAL]...\n");
    return 2;
  }
  for (int i = first; i + 3 < argc; i += 4)
    shapes.push_back({std::atoi(argv[i]), std::atoi(argv[i + 1]), std::atoi(argv[i + 2]), std::atoi(argv[i + 3])});
  if (shapes.empty()) {
    for (auto [b, s] : std::vector<std::pair<int, int>>{{16, 512}, {8, 1024}, {4, 2048}, {2, 4096}, {1, 8192}, {1, 16384}})
      shapes.push_back({b, s, 128, 1});
    for (int d : {64, 128, 256})
      for (int c : {1, 0}) {
        if (d != 128 || c == 0) shapes.push_back({4, 2048, d, c}), shapes.push_back({1, 8192, d, c});
      }
  }
  std::printf("kernel,form,variant,batch,seq,d,causal,us,flops,TFLOPs\n");
  for (const Shape& x : shapes) {
    if (x.batch < 1 || x.seq < 1 || (x.d != 64 && x.d != 128 && x.d != 256)) {
      std::fprintf(stderr, "bench_prompt_attention: batch %d, seq %d, d %d: batch and seq >= 1, d 64, 128 or 256\n",
                   x.batch, x.seq, x.d);
      return 2;
    }
    bench_shape(x.batch, x.seq, x.d, x.causal != 0, size_t(l2));
  }
  return 0;
}
