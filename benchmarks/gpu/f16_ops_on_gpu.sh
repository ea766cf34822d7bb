#!/usr/bin/env bash
# Issue 23's f16 ops on a GPU machine beside PyTorch: gemv_f16 at m = 1, 4 and 16, the two epilogue fusions' and
# matmul_f16's cooperative-matrix variants, and attention_f16's, each timed by `kernelgen validate --time 31`
# (validated on the GPU first, layer off) and then in PyTorch by torch_at_spec.py, in turn, ROUNDS times (2).
# Usage, from the source tree on the GPU machine with the Vulkan loader installed:
#   [ROUNDS=n] benchmarks/gpu/f16_ops_on_gpu.sh <kit.tar.xz from pack_kit.sh>
set -euo pipefail
kit_file=${1:?usage: $0 <kit.tar.xz>}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
source "$here/unpack_kit.sh" "$kit_file"
export VK_DRIVER_FILES=$nvidia_icd
# The GPU alone, without lavapipe: reduced validation, asked for (these are timings).
export KERNELGEN_REDUCED_VALIDATION=1
# The timed output of each kernel is checked against the CPU reference at BENCH_DIMS: minutes for attention.
export KERNELGEN_VALIDATION_TIMEOUT_S=500

# kernelgen's time of <kernel> for <op> at its BENCH_DIMS, or with one dim set (<dim>=<value>).
kernelgen_time() {
  local op=$1 kernel=$2 dims=${3:-} spec=$kit/kernelgen/$1/spec.json
  if [[ -n $dims ]]; then
    python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); n, v = sys.argv[3].split("="); s["bench_dims"][n] = int(v); json.dump(s, open(sys.argv[2], "w"))' \
      "$spec" "$work/$op.json" "$dims"
    spec=$work/$op.json
  fi
  "$kit/bin/kernelgen" validate --spec "$spec" --reference "$kit/kernelgen/$op/reference.so" --kernel "$kernel" \
    --time 31 2>&1 | grep -E "GPU time|FAIL|: [A-Z_]+:" | sed "s|^|kernelgen $op $kernel $dims: |" || true
}
torch_time() { python3 "$here/torch_at_spec.py" "$kit/kernelgen/$1/spec.json" ${2:-}; }

for round in $(seq "${ROUNDS:-2}"); do
  echo "==== round $round"
  for m in 1 4 16; do
    kernelgen_time gemv_f16 generated/gemv_f16/kernel.comp "m=$m"
    torch_time gemv_f16 "m=$m"
  done
  for op in gate_up_swiglu_f16 matmul_bias_silu_f16 matmul_f16 attention_f16; do
    kernelgen_time $op generated/$op/variants/coopmat/kernel.comp
    torch_time $op
  done
done
