# Sourced by the scripts/h200_*.sh runners once B (the build folder) is set: the environment every
# run on the GPU machine needs. Libraries carried beside the binaries (zstd, lz4, a libcudart) come
# first where the machine lacks them; the launch rows (those the build derived, then the tree's) and
# records are this checkout's, wherever it lies.
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH="$B/bin/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export KC_LAUNCHES="${KC_LAUNCHES:-$B/launches/cuda.tsv:$B/launches/hip.tsv:$PWD/kernels:$PWD/controls}"
export KC_CUDA_RECORDS="${KC_CUDA_RECORDS:-$PWD/records/cuda}"
export KC_HIP_RECORDS="${KC_HIP_RECORDS:-$PWD/records/hip}"
export KC_XPU_RECORDS="${KC_XPU_RECORDS:-$PWD/records/xpu}"
