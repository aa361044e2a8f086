// Achieved bandwidth of CUDA decode attention (kernels/attention/cuda_launch.cuh's launch_decode:
// split over KV chunks, then the merge) over a linear cache and a paged one (pages of 16 keys,
// shuffled), beside the device-to-device copy of the same K and V bytes, timed the same way.
// Standalone (no harness). One query row a sequence, 32 q heads over 8 kv heads, d 128, bf16.
//   bench_decode [BATCH KEYS]...     (default: the shapes below)
//   bench_decode --once BATCH KEYS   (each launch once, untimed: for compute-sanitizer)
// Prints CSV: kernel,variant,batch,keys,us,bytes,GBps. Bytes: K and V read once, q read, out
// written (bf16) and lse; a copy's bytes are what it reads and writes (2x the K and V bytes).
// Method (bench_rows.cu's): NS sets of every buffer holding together >= 4x the L2, launches
// rotating through them back to back on one stream between two events, the median of 7 timings.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "bench/cuda/bench_check.cuh"
#include "kernels/attention/cuda_launch.cuh"

namespace {
using namespace kc::attn_cu;
constexpr int kQHeads = 32, kKvHeads = 8, kD = 128, kPage = 16;
int g_sets = 1;
bool g_once = false;

double time_us(const std::function<void(int)>& f, int reps) { return kc_bench::time_us(f, g_sets, reps, g_once); }

void row(const char* name, const char* variant, long batch, long keys, double us, double bytes) {
  std::printf("%s,%s,%ld,%ld,%.2f,%.0f,%.1f\n", name, variant, batch, keys, us, bytes, bytes / us * 1e-3);
  std::fflush(stdout);
}

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

void bench_shape(int batch, int keys, size_t l2) {
  const long kv_elems = long(batch) * keys * kKvHeads * kD;  // K (and V) elements of one set
  const double kv_bytes = 2.0 * kv_elems * 2;
  g_sets = int(std::min<double>(64, std::max<double>(1, std::ceil(4.0 * double(l2) / kv_bytes))));
  const int reps = int(std::max<double>(5, std::min<double>(400, 2e9 / kv_bytes)));
  const size_t ns = size_t(g_sets);
  std::vector<uint16_t*> kv(ns), q(ns), out(ns);
  std::vector<float*> lse(ns);
  for (int i = 0; i < g_sets; ++i) {
    CK(cudaMalloc(&kv[size_t(i)], size_t(2 * kv_elems) * 2));
    CK(cudaMalloc(&q[size_t(i)], size_t(batch) * kQHeads * kD * 2));
    CK(cudaMalloc(&out[size_t(i)], size_t(batch) * kQHeads * kD * 2));
    CK(cudaMalloc(&lse[size_t(i)], size_t(batch) * kQHeads * 4));
    fill_bf16<<<2048, 256>>>(kv[size_t(i)], 2 * kv_elems, 11u + 7u * unsigned(i));
    fill_bf16<<<64, 256>>>(q[size_t(i)], long(batch) * kQHeads * kD, 5u + 3u * unsigned(i));
  }
  // Every sequence holds `keys` keys; its one row sits at the last position. Pages shuffled.
  const int pages_per = (keys + kPage - 1) / kPage;
  std::vector<int32_t> lens(size_t(batch), keys), pos(size_t(batch), keys - 1), table(size_t(batch) * pages_per);
  std::iota(table.begin(), table.end(), 0);
  std::shuffle(table.begin(), table.end(), std::mt19937(7));
  int32_t *d_lens, *d_pos, *d_table;
  CK(cudaMalloc(&d_lens, lens.size() * 4));
  CK(cudaMalloc(&d_pos, pos.size() * 4));
  CK(cudaMalloc(&d_table, table.size() * 4));
  CK(cudaMemcpy(d_lens, lens.data(), lens.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_pos, pos.data(), pos.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_table, table.data(), table.size() * 4, cudaMemcpyHostToDevice));

  Sizes z;
  z.seqs = batch, z.rows = 1, z.kv_heads = kKvHeads, z.group = kQHeads / kKvHeads, z.d = kD, z.keys = keys;
  z.scale = float(1.0 / std::sqrt(double(kD)));
  const double bytes = kv_bytes + batch * kQHeads * kD * 2.0 * 2 + batch * kQHeads * 4.0;
  const std::string var = "sets=" + std::to_string(g_sets);
  cudaStream_t st = 0;
  for (int cache : {kLinear, kPaged}) {
    z.cache = cache;
    z.slots = cache == kPaged ? kPage : keys;
    z.max_pages = pages_per;
    void* ws;
    const Chunking c = decode_chunking(z, wave_of<kNone>(kD));
    CK(cudaMalloc(&ws, decode_workspace(z, c)));
    const double us = time_us([&](int i) {
      const uint16_t *k = kv[size_t(i)], *v = kv[size_t(i)] + kv_elems;
      launch_decode<uint16_t>(q[size_t(i)], k, v, d_lens, d_pos, cache == kPaged ? d_table : nullptr, out[size_t(i)],
                              lse[size_t(i)], ws, z, st);
    }, reps);
    const std::string v = var + " chunk=" + std::to_string(c.chunk) + " chunks=" + std::to_string(c.chunks);
    row(cache == kPaged ? "decode/paged16" : "decode/linear", v.c_str(), batch, keys, us, bytes);
    CK(cudaFree(ws));
  }
  // The copy of one set's K and V bytes (read and written).
  uint16_t* dst;
  CK(cudaMalloc(&dst, size_t(2 * kv_elems) * 2));
  row("copy/memcpy", var.c_str(), batch, keys, time_us([&](int i) {
        CK(cudaMemcpyAsync(dst, kv[size_t(i)], size_t(kv_bytes), cudaMemcpyDeviceToDevice, st));
      }, reps), 2 * kv_bytes);
  CK(cudaFree(dst));
  for (int i = 0; i < g_sets; ++i) {
    CK(cudaFree(kv[size_t(i)]));
    CK(cudaFree(q[size_t(i)]));
    CK(cudaFree(out[size_t(i)]));
    CK(cudaFree(lse[size_t(i)]));
  }
  CK(cudaFree(d_lens));
  CK(cudaFree(d_pos));
  CK(cudaFree(d_table));
}

}  // namespace

int main(int argc, char** argv) {
  int dev = 0, l2 = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  std::vector<std::pair<int, int>> shapes;
  int first = 1;
  if (argc > 1 && std::string(argv[1]) == "--once") g_once = true, first = 2;
  for (int i = first; i + 1 < argc; i += 2) shapes.push_back({std::atoi(argv[i]), std::atoi(argv[i + 1])});
  if (shapes.empty())
    shapes = {{1, 1024}, {1, 8192}, {1, 32768}, {1, 131072}, {8, 8192}, {8, 32768}, {8, 131072},
              {32, 8192}, {64, 1024}, {64, 8192}, {64, 32768}};
  std::printf("kernel,variant,batch,keys,us,bytes,GBps\n");
  for (auto [b, k] : shapes) bench_shape(b, k, size_t(l2));
  return 0;
}
