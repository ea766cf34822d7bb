#!/usr/bin/env bash
# benchmarks/RESULTS.md's table in one call on a GPU machine: the cooperative-matrix multiply-adds alone (the
# ceiling of the instructions the f16 GEMMs use), then every catalog op at its BENCH_DIMS beside PyTorch
# (benchmarks/compare/compare.py: each op's checked-in kernel, the variant this GPU runs where it has one, and its
# portable kernel). Run from the source tree with the Vulkan loader installed (the device machine's recipe).
# Each benchmark process draws its inputs at BENCH_DIMS and checks the output its timing left against the CPU
# reference, both on every core: on an H100 machine (16 cores) the catalog's 33 ops and their variants' rows took
# 374 + 141 + 193 s in three calls (relu to bmm, sum_lastdim to matmul_bias_gelu, the rest). Where one call of at
# most 10 minutes is not enough, run the ops in parts (the third argument) on one warm machine.
# Usage: benchmarks/gpu/results_on_gpu.sh <kit.tar.xz from pack_bench_kit.sh> [device_peaks.json] [op,op,...]
# COMPARE_ARGS: more arguments for compare.py, e.g. "--chosen-only --processes 1" (the variant this GPU runs
# alone, one benchmark process a row), with which the whole catalog fits one call on an H200 (benchmarks/RESULTS.md).
set -euo pipefail
kit_file=${1:?usage: $0 <kit.tar.xz> [device_peaks.json] [op,op,...]}
peaks=${2:-}
ops=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/unpack_kit.sh" "$kit_file"
export VK_DRIVER_FILES=$nvidia_icd
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "==== the cooperative-matrix multiply-adds alone"
if [[ -x $kit/build/benchmarks/bench_kernelgen_coopmat_ceiling ]]; then
  "$kit/build/benchmarks/bench_kernelgen_coopmat_ceiling" 2>&1 | grep -E "^BM_"
fi
echo "==== every op beside PyTorch"
python3 "$here/../compare/compare.py" --build "$kit/build" ${peaks:+--peaks "$peaks"} ${ops:+--ops "$ops"} ${COMPARE_ARGS:-}
