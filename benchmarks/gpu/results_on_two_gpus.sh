#!/usr/bin/env bash
# benchmarks/RESULTS.md's whole table and the decoder block beside PyTorch in one call of at most 10 minutes, on
# a machine with two GPUs of one model, where one GPU takes 8-9 minutes for the catalog's rows alone:
# - the first GPU: the cooperative-matrix ceilings, then every catalog op beside PyTorch
#   (benchmarks/gpu/results_on_gpu.sh with COMPARE_ARGS="--chosen-only --processes 1": the variant the GPU runs,
#   one benchmark process a row; about 8 minutes);
# - the second, at the same time: the copy bandwidth, then the decoder block, checked against the CPU reference
#   and then timed beside PyTorch's eager and compiled block (benchmarks/gpu/decoder_block_on_gpu.sh), then
#   the ceilings and the copy bandwidth again.
# Each side's kernelgen and PyTorch run on the same GPU: kernelgen picks it by the UUID that nvidia-smi prints
# (KERNELGEN_DEVICE), PyTorch by CUDA_VISIBLE_DEVICES. nvidia-smi's list of processes, taken every 30 s, goes to
# <out>/processes.txt. Each side has its own CPU cores (taskset): the catalog's benchmark processes draw their
# inputs and check their outputs on every core they have, which would otherwise slow the host side of the
# block's calls and of PyTorch's eager launches. The block's side takes a quarter of the cores.
# Usage: benchmarks/gpu/results_on_two_gpus.sh <kit.tar.xz from pack_bench_kit.sh> <decoder_block executable>
#        <out dir>  (the Vulkan loader installed, as the device machine's recipe says; ROUNDS: the block's rounds)
set -euo pipefail
kit_file=${1:?usage: $0 <kit.tar.xz> <decoder_block executable> <out dir>}
block=$(realpath "${2:?usage: $0 <kit.tar.xz> <decoder_block executable> <out dir>}")
out=${3:?usage: $0 <kit.tar.xz> <decoder_block executable> <out dir>}
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
mapfile -t uuids < <(nvidia-smi --query-gpu=uuid --format=csv,noheader)
if ((${#uuids[@]} < 2)); then
  echo "$0: nvidia-smi lists ${#uuids[@]} GPU(s); this script needs two (benchmarks/gpu/results_on_gpu.sh and" \
    "decoder_block_on_gpu.sh run on one, in two calls)" >&2
  exit 1
fi
nvidia-smi --query-gpu=index,name,uuid,driver_version --format=csv,noheader
(while true; do
  date +%T
  nvidia-smi --query-compute-apps=gpu_uuid,pid,process_name,used_memory --format=csv,noheader
  sleep 30
done) > "$out/processes.txt" 2>&1 &
sampler=$!
trap 'kill $sampler 2>/dev/null || true' EXIT

catalog() {
  taskset -p -c "$1" $BASHPID > /dev/null
  export CUDA_VISIBLE_DEVICES=${uuids[0]} KERNELGEN_DEVICE=${uuids[0]}
  COMPARE_ARGS=${COMPARE_ARGS:---chosen-only --processes 1} "$here/results_on_gpu.sh" "$kit_file"
}

block_side() {
  taskset -p -c "$1" $BASHPID > /dev/null
  export CUDA_VISIBLE_DEVICES=${uuids[1]} KERNELGEN_DEVICE=${uuids[1]}
  source "$here/unpack_kit.sh" "$kit_file"  # its own copy of the kit: $kit, and the driver's manifest
  export VK_DRIVER_FILES=$nvidia_icd
  python3 "$here/copy_bandwidth.py" | tail -1
  ROUNDS=${ROUNDS:-3} "$here/decoder_block_on_gpu.sh" "$block" "$out/block"
  if [[ -x $kit/build/benchmarks/bench_kernelgen_coopmat_ceiling ]]; then
    "$kit/build/benchmarks/bench_kernelgen_coopmat_ceiling" 2>&1 | grep -E "^BM_"
  fi
  python3 "$here/copy_bandwidth.py" | tail -1
  nvidia-smi --id="${uuids[1]}" --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv,noheader
}

cores=$(nproc)
block_cores=$((cores / 4))
echo "cores: the block's side 0-$((block_cores - 1)), the catalog's $block_cores-$((cores - 1))"
catalog "$block_cores-$((cores - 1))" > "$out/catalog.txt" 2>&1 &
catalog_pid=$!
block_side "0-$((block_cores - 1))" > "$out/block.txt" 2>&1 &
block_pid=$!
status=0
wait $block_pid || status=$?
echo "==== the second GPU (${uuids[1]}): the decoder block (exit $status)"
cat "$out/block.txt"
wait $catalog_pid || status=$?
echo "==== the first GPU (${uuids[0]}): the catalog"
cat "$out/catalog.txt"
nvidia-smi --id="${uuids[0]}" --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv,noheader
exit $status
