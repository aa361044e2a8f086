// The blocked float64 reference GEMMs, written once and compiled once per instruction set:
// ref_gemm.cpp includes this file inside a namespace that defines `struct Isa` (vector type V of W
// doubles, an MR x (NV*W) register tile, and ld/st/bcast/zero/add/mul/abs/fma_exact) under that
// set's target pragma. No include guard, no includes: it is a template body, not a header.
//
// Order of the sums, and why it is the plain loop's order: every output's accumulators start at 0,
// k runs ascending inside a micro-kernel and the K blocks run ascending, the accumulators passing
// through the tile buffer between blocks unchanged; fma_exact is only applied where the product is
// exact in double (bf16 x bf16: 16 significant bits; bf16 x an 8-bit code: at most 16), so a fused
// and an unfused multiply-add give the same double. Nothing else is fused (ref_gemm.cpp turns
// contraction off), so each output is bit-equal to the loop `for k: y += x*w; mag += |x*w|`.

constexpr int MR = Isa::MR, NV = Isa::NV, W = Isa::W, NR = NV * W;
// K block: a multiple of every affine group (32, 64, 128). A block of MC rows is 2*MC*KC doubles
// (L2), a micro-panel of W is KC*NR doubles (L1), the tile buffer MC*NC*2 doubles.
constexpr int64_t KC = 128;
constexpr int64_t MC = (96 + MR - 1) / MR * MR;
constexpr int64_t NC = (128 + NR - 1) / NR * NR;
using V = typename Isa::V;

// x rows [m0, m0 + rows), columns [k0, k0 + klen) into micro-panels of MR rows: per column the MR
// values, then their MR magnitudes. Rows past `rows` are 0 (their outputs are never written).
inline void pack_x(const bf16* x, int64_t K, int64_t m0, int64_t rows, int64_t k0, int64_t klen, double* out) {
  for (int64_t p = 0; p * MR < rows; ++p) {
    double* o = out + p * klen * 2 * MR;
    for (int r = 0; r < MR; ++r) {
      int64_t m = p * MR + r;
      if (m < rows) {
        const bf16* src = x + (m0 + m) * K + k0;
        for (int64_t k = 0; k < klen; ++k) {
          double v = wide(src[k]);
          o[k * 2 * MR + r] = v;
          o[k * 2 * MR + MR + r] = std::fabs(v);
        }
      } else {
        for (int64_t k = 0; k < klen; ++k) o[k * 2 * MR + r] = o[k * 2 * MR + MR + r] = 0;
      }
    }
  }
}

// w rows [n0, n0 + cols), columns [k0, k0 + klen) into micro-panels of NR: per column NR values.
inline void pack_w(const bf16* w, int64_t K, int64_t n0, int64_t cols, int64_t k0, int64_t klen, double* out) {
  for (int64_t p = 0; p * NR < cols; ++p) {
    double* o = out + p * klen * NR;
    for (int j = 0; j < NR; ++j) {
      int64_t n = p * NR + j;
      if (n < cols) {
        const bf16* src = w + (n0 + n) * K + k0;
        for (int64_t k = 0; k < klen; ++k) o[k * NR + j] = wide(src[k]);
      } else {
        for (int64_t k = 0; k < klen; ++k) o[k * NR + j] = 0;
      }
    }
  }
}

// One MR x NR tile over klen columns: c holds the tile's values [MR][NR] then magnitudes [MR][NR].
inline void kern_dense(const double* a, const double* b, int64_t klen, double* c) {
  V cv[MR][NV], cm[MR][NV];
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      cv[r][v] = Isa::ld(c + r * NR + v * W);
      cm[r][v] = Isa::ld(c + MR * NR + r * NR + v * W);
    }
  for (int64_t k = 0; k < klen; ++k, a += 2 * MR, b += NR) {
    V bv[NV], bm[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      bv[v] = Isa::ld(b + v * W);
      bm[v] = Isa::abs(bv[v]);
    }
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
      V xa = Isa::bcast(a[r]), xm = Isa::bcast(a[MR + r]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) {
        cv[r][v] = Isa::fma_exact(xa, bv[v], cv[r][v]);
        cm[r][v] = Isa::fma_exact(xm, bm[v], cm[r][v]);
      }
    }
  }
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      Isa::st(c + r * NR + v * W, cv[r][v]);
      Isa::st(c + MR * NR + r * NR + v * W, cm[r][v]);
    }
}

// The tiles of one block, copied to the outputs they hold.
inline void write_block(const double* cb, int64_t mp, int64_t np, int64_t rows, int64_t cols, int64_t m0, int64_t n0,
                        int64_t N, double* y, double* mag) {
  for (int64_t ip = 0; ip < mp; ++ip)
    for (int64_t jp = 0; jp < np; ++jp) {
      const double* t = cb + (ip * np + jp) * 2 * MR * NR;
      for (int r = 0; r < MR && ip * MR + r < rows; ++r)
        for (int j = 0; j < NR && jp * NR + j < cols; ++j) {
          int64_t at = (m0 + ip * MR + r) * N + n0 + jp * NR + j;
          y[at] = t[r * NR + j];
          mag[at] = t[MR * NR + r * NR + j];
        }
    }
}

// Blocks of MC x NC outputs, one task each over all of K; tasks spread over the cores.
void run_dense(const bf16* x, const bf16* w, int64_t M, int64_t N, int64_t K, double* y, double* mag) {
  const int64_t mb = (M + MC - 1) / MC, nb = (N + NC - 1) / NC;
  kc::parallel_for(mb * nb, [&](int64_t t0, int64_t t1) {
    std::vector<double> ap(size_t(MC * KC * 2)), bp(size_t(NC * KC)), cb(size_t(MC * NC * 2));
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t m0 = t / nb * MC, n0 = t % nb * NC;
      const int64_t rows = std::min(MC, M - m0), cols = std::min(NC, N - n0);
      const int64_t mp = (rows + MR - 1) / MR, np = (cols + NR - 1) / NR;
      std::fill(cb.begin(), cb.begin() + mp * np * 2 * MR * NR, 0.0);
      for (int64_t k0 = 0; k0 < K; k0 += KC) {
        const int64_t klen = std::min(KC, K - k0);
        pack_x(x, K, m0, rows, k0, klen, ap.data());
        pack_w(w, K, n0, cols, k0, klen, bp.data());
        for (int64_t jp = 0; jp < np; ++jp)
          for (int64_t ip = 0; ip < mp; ++ip)
            kern_dense(ap.data() + ip * klen * 2 * MR, bp.data() + jp * klen * NR, klen, cb.data() + (ip * np + jp) * 2 * MR * NR);
      }
      write_block(cb.data(), mp, np, rows, cols, m0, n0, N, y, mag);
    }
  });
}

// Affine: per group of the packed x block, the group's sum of x and of |x| for each row (rows in
// MR-row micro-panels): gx[p][g] = MR sums of x, then MR sums of |x|, each over k ascending.
inline void group_sums_x(const double* ap, int64_t rows, int64_t klen, int64_t group, double* gx) {
  const int64_t ng = klen / group;
  for (int64_t p = 0; p * MR < rows; ++p)
    for (int64_t g = 0; g < ng; ++g) {
      const double* a = ap + p * klen * 2 * MR + g * group * 2 * MR;
      double* o = gx + (p * ng + g) * 2 * MR;
      for (int r = 0; r < MR; ++r) {
        double s = 0, m = 0;
        for (int64_t k = 0; k < group; ++k) s += a[k * 2 * MR + r], m += a[k * 2 * MR + MR + r];
        o[r] = s;
        o[MR + r] = m;
      }
    }
}

// Affine weights of rows [n0, n0 + cols), columns [k0, k0 + klen): the codes as doubles per
// micro-panel (per column NR codes), and per group gw[p][g] = NR scales, NR biases, then their
// magnitudes. Columns past `cols` are 0.
inline void pack_affine_w(const AffineW& w, int64_t K, int64_t n0, int64_t cols, int64_t k0, int64_t klen, double* out,
                          double* gw) {
  const int64_t G = K / w.group, ng = klen / w.group, g0 = k0 / w.group;
  for (int64_t p = 0; p * NR < cols; ++p) {
    double* o = out + p * klen * NR;
    double* og = gw + p * ng * 4 * NR;
    for (int j = 0; j < NR; ++j) {
      int64_t n = p * NR + j;
      if (n < cols) {
        const uint32_t* row = w.q + (n0 + n) * w.wpr;
        for (int64_t k = 0; k < klen; ++k) o[k * NR + j] = double(code(row, k0 + k, w.bits));
        for (int64_t g = 0; g < ng; ++g) {
          double s = wide(w.s[(n0 + n) * G + g0 + g]), b = wide(w.b[(n0 + n) * G + g0 + g]);
          double* t = og + g * 4 * NR;
          t[j] = s, t[NR + j] = b, t[2 * NR + j] = std::fabs(s), t[3 * NR + j] = std::fabs(b);
        }
      } else {
        for (int64_t k = 0; k < klen; ++k) o[k * NR + j] = 0;
        for (int64_t g = 0; g < ng; ++g)
          for (int i = 0; i < 4; ++i) og[g * 4 * NR + i * NR + j] = 0;
      }
    }
  }
}

// One MR x NR tile over ng groups: per group the sums of x q and |x| q (codes are >= 0) in
// registers, then y += s * (sum x q) + b * (sum x), mag += |s| * (sum |x| q) + |b| * (sum |x|).
inline void kern_affine(const double* a, const double* q, const double* gx, const double* gw, int64_t ng,
                        int64_t group, double* c) {
  for (int64_t g = 0; g < ng; ++g, gx += 2 * MR, gw += 4 * NR) {
    V av[MR][NV], am[MR][NV];
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) av[r][v] = am[r][v] = Isa::zero();
    for (int64_t k = 0; k < group; ++k, a += 2 * MR, q += NR) {
      V qv[NV];
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) qv[v] = Isa::ld(q + v * W);
#pragma GCC unroll 16
      for (int r = 0; r < MR; ++r) {
        V xa = Isa::bcast(a[r]), xm = Isa::bcast(a[MR + r]);
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) {
          av[r][v] = Isa::fma_exact(xa, qv[v], av[r][v]);
          am[r][v] = Isa::fma_exact(xm, qv[v], am[r][v]);
        }
      }
    }
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      V s = Isa::ld(gw + v * W), b = Isa::ld(gw + NR + v * W);
      V sa = Isa::ld(gw + 2 * NR + v * W), ba = Isa::ld(gw + 3 * NR + v * W);
#pragma GCC unroll 16
      for (int r = 0; r < MR; ++r) {
        double* cv = c + r * NR + v * W;
        double* cm = c + MR * NR + r * NR + v * W;
        Isa::st(cv, Isa::add(Isa::ld(cv), Isa::add(Isa::mul(s, av[r][v]), Isa::mul(b, Isa::bcast(gx[r])))));
        Isa::st(cm, Isa::add(Isa::ld(cm), Isa::add(Isa::mul(sa, am[r][v]), Isa::mul(ba, Isa::bcast(gx[MR + r])))));
      }
    }
  }
}

void run_affine(const bf16* x, const AffineW& w, int64_t M, int64_t N, int64_t K, double* y, double* mag) {
  const int64_t mb = (M + MC - 1) / MC, nb = (N + NC - 1) / NC, gmax = KC / w.group;
  kc::parallel_for(mb * nb, [&](int64_t t0, int64_t t1) {
    std::vector<double> ap(size_t(MC * KC * 2)), bp(size_t(NC * KC)), cb(size_t(MC * NC * 2));
    std::vector<double> gx(size_t(MC * gmax * 2)), gw(size_t(NC * gmax * 4));
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t m0 = t / nb * MC, n0 = t % nb * NC;
      const int64_t rows = std::min(MC, M - m0), cols = std::min(NC, N - n0);
      const int64_t mp = (rows + MR - 1) / MR, np = (cols + NR - 1) / NR;
      std::fill(cb.begin(), cb.begin() + mp * np * 2 * MR * NR, 0.0);
      for (int64_t k0 = 0; k0 < K; k0 += KC) {
        const int64_t klen = std::min(KC, K - k0), ng = klen / w.group;
        pack_x(x, K, m0, rows, k0, klen, ap.data());
        group_sums_x(ap.data(), rows, klen, w.group, gx.data());
        pack_affine_w(w, K, n0, cols, k0, klen, bp.data(), gw.data());
        for (int64_t jp = 0; jp < np; ++jp)
          for (int64_t ip = 0; ip < mp; ++ip)
            kern_affine(ap.data() + ip * klen * 2 * MR, bp.data() + jp * klen * NR, gx.data() + ip * ng * 2 * MR,
                        gw.data() + jp * ng * 4 * NR, ng, w.group, cb.data() + (ip * np + jp) * 2 * MR * NR);
      }
      write_block(cb.data(), mp, np, rows, cols, m0, n0, N, y, mag);
    }
  });
}
