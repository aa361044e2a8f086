#!/usr/bin/env bash
# The OpenCL contract on a machine's GPU through its vendor's OpenCL ICD (e.g. NVIDIA's on an H200):
#   scripts/opencl_on_device.sh BUILD OUT
# BUILD holds bin/kernel-contract (built where the project's packages are); OUT gets the run's log.
# Where the machine has no ICD loader (libOpenCL.so.1), BUILD/opencl-loader/ may hold one (copied
# from the build machine's ocl-icd-libopencl1); where it has NVIDIA's OpenCL library but no ICD file
# for it, one is written to a folder of OUT's and named by OCL_ICD_VENDORS. The device is the first
# GPU, or KC_OPENCL_DEVICE (an index or a part of "platform / device").
set -uo pipefail
build=${1:?usage: opencl_on_device.sh BUILD OUT}
out=${2:?usage: opencl_on_device.sh BUILD OUT}
mkdir -p "$out"
if ! ldconfig -p 2>/dev/null | grep -q 'libOpenCL\.so\.1' && [ -e "$build/opencl-loader/libOpenCL.so.1" ]; then
  export LD_LIBRARY_PATH="$build/opencl-loader${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  echo "opencl_on_device: ICD loader from $build/opencl-loader" | tee -a "$out/opencl.log"
fi
if ! ls /etc/OpenCL/vendors/*.icd >/dev/null 2>&1 && ldconfig -p 2>/dev/null | grep -q 'libnvidia-opencl\.so\.1'; then
  mkdir -p "$out/vendors"
  echo libnvidia-opencl.so.1 > "$out/vendors/nvidia.icd"
  export OCL_ICD_VENDORS="$out/vendors"
  echo "opencl_on_device: no ICD file; NVIDIA's named in $OCL_ICD_VENDORS" | tee -a "$out/opencl.log"
fi
{ nvidia-smi -L 2>/dev/null; ldconfig -p 2>/dev/null | grep -i -E 'opencl|nvidia-opencl'; ls /etc/OpenCL/vendors 2>/dev/null; } \
  >> "$out/opencl.log" 2>&1
command -v clinfo >/dev/null && clinfo -l >> "$out/opencl.log" 2>&1
"$build/bin/kernel-contract" --backend opencl --no-limits 2>&1 | tee -a "$out/opencl.log"
rc=${PIPESTATUS[0]}
echo "opencl_on_device: exit $rc" | tee -a "$out/opencl.log"
exit "$rc"
