// OpenCL C helpers the rows kernels share (the CUDA/HIP ones are in kc_rows.cuh; OpenCL C is another
// language, so these are its own): bf16 as ushort with round-to-nearest-even, 16-byte loads of eight
// bf16, a NaN-keeping max, and a fixed-order work-group reduction (a 256-leaf tree in local memory)
// so repeated runs give the same bytes. Every rows kernel runs one work-group of 256 a row (sub-group
// 16 on Intel). Built by ocloc for gate 5 and at run
// time by the OpenCL backend, with the same options.
#ifndef KC_ROWS_CL_H
#define KC_ROWS_CL_H

#define KC_WG 256

// Arithmetic as written: no a * b + c fused behind the kernel's back (OpenCL C allows it by default),
// so each rounding the contracts count is the one the kernel makes.
#pragma OPENCL FP_CONTRACT OFF

inline float kc_bf16_to_f32(ushort b) { return as_float(((uint)b) << 16); }
// fp32 -> bf16, round to nearest even; a NaN stays a NaN (quiet bit set).
inline ushort kc_f32_to_bf16(float f) {
  uint u = as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (ushort)((u >> 16) | 0x40u);
  return (ushort)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
// Eight bf16 from one 16-byte load: vector v of p (p + 8v must hold eight values).
inline float8 kc_load8(global const ushort* p, int v) {
  const uint4 u = as_uint4(vload8(v, p));
  return (float8)(as_float(u.x << 16), as_float(u.x & 0xffff0000u), as_float(u.y << 16), as_float(u.y & 0xffff0000u),
                  as_float(u.z << 16), as_float(u.z & 0xffff0000u), as_float(u.w << 16), as_float(u.w & 0xffff0000u));
}
// Eight bf16 rounded from f into one 16-byte store at vector v of p.
inline void kc_store8(float8 f, global ushort* p, int v) {
  vstore8((ushort8)(kc_f32_to_bf16(f.s0), kc_f32_to_bf16(f.s1), kc_f32_to_bf16(f.s2), kc_f32_to_bf16(f.s3),
                    kc_f32_to_bf16(f.s4), kc_f32_to_bf16(f.s5), kc_f32_to_bf16(f.s6), kc_f32_to_bf16(f.s7)),
          v, p);
}
// The eight lanes added in order into s (one chain), as the CUDA forms add a vector.
inline float kc_chain8(float s, float8 f) {
  return s + f.s0 + f.s1 + f.s2 + f.s3 + f.s4 + f.s5 + f.s6 + f.s7;
}

inline float kc_nan_max(float a, float b) { return (a > b || a != a) ? a : b; }

// The work-group's values reduced in one fixed order (a tree over the 256 leaves); every work-item
// gets the result. `red` is a local float[KC_WG].
#define KC_TREE(NAME, OP)                                                  \
  inline float NAME(float v, local float* red) {                         \
    const int t = get_local_id(0);                                       \
    red[t] = v;                                                          \
    barrier(CLK_LOCAL_MEM_FENCE);                                        \
    for (int o = KC_WG / 2; o > 0; o >>= 1) {                            \
      if (t < o) red[t] = OP(red[t], red[t + o]);                        \
      barrier(CLK_LOCAL_MEM_FENCE);                                      \
    }                                                                    \
    const float r = red[0];                                              \
    barrier(CLK_LOCAL_MEM_FENCE);                                        \
    return r;                                                            \
  }
#define KC_ADD(a, b) ((a) + (b))
KC_TREE(kc_wg_sum, KC_ADD)
KC_TREE(kc_wg_max, kc_nan_max)

// Sub-group 16 where the compiler knows Intel's attribute (ocloc, Intel's ICD); others (PoCL, NVIDIA)
// would warn at it or refuse it.
#ifdef cl_intel_required_subgroup_size
#define KC_SUB_GROUP __attribute__((intel_reqd_sub_group_size(16)))
#else
#define KC_SUB_GROUP
#endif
#define KC_ROW_KERNEL __attribute__((reqd_work_group_size(KC_WG, 1, 1))) KC_SUB_GROUP kernel

#endif
