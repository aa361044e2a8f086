// Gate 5 control (XPU): a row sum built in large-GRF mode (256 registers a thread; the file name's
// .grf256 asks the build for -cl-intel-256-GRF-per-thread), declared in launches.tsv as grf=128. Level
// Zero cannot tell a kernel's GRF mode, so the launch states it; the audit must fail this one.
__attribute__((reqd_work_group_size(256, 1, 1)))
__attribute__((intel_reqd_sub_group_size(16)))
kernel void kc_ctl_xpu_grf_mismatch(global const float* x, global float* y, int cols) {
  local float part[256];
  const int t = get_local_id(0);
  global const float* row = x + (size_t)get_group_id(0) * cols;
  float acc = 0.f;
  for (int c = t; c < cols; c += 256) acc += row[c];
  part[t] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int o = 128; o > 0; o >>= 1) {
    if (t < o) part[t] += part[t + o];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (t == 0) y[get_group_id(0)] = part[0];
}
