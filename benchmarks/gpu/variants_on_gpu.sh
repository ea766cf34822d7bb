#!/usr/bin/env bash
# On a GPU machine: hand-written variants validated against their op's reference on the GPU alone and timed at
# BENCH_DIMS (`kernelgen validate --time 31`), each given as <op>=<kernel.comp>, with the driver's pipeline
# statistics and the SM clock after it. For kernels not yet declared as VARIANTS: new tensor-core paths, before
# they are checked in. Run from the source tree, with the Vulkan loader installed (the device machine's recipe) and
# the kit that benchmarks/gpu/pack_kit.sh packed.
# Usage: benchmarks/gpu/variants_on_gpu.sh <kit.tar.xz> <op>=<kernel.comp> ...
# VALIDATE_ARGS: more arguments for `kernelgen validate`, e.g. "--dims heads=1 seq=100" for a sweep that validates
# at fewer sizes than DIMS (the timed size is still checked), and "--timed-dims heads=4" to time (and check the
# timed output) at a smaller size than BENCH_DIMS, where the check at 32 heads of 4096 takes attention_f16's CPU
# reference more than a minute a kernel; VALIDATE_TIMEOUT_S: each kernel's limit (240 s).
# The kernels run one after another. Two of these scripts at once on one GPU time each other's load too: the
# validator's timed runs take no lock across processes (benchmarks/RESULTS.md: the decoder block's causal_attention
# timed 495.2 us beside nine other validations, 158.1 alone).
# Without the layer the validation device has robust buffer access. Until 2026-11-29 the tool timed the kernels
# there too, which slowed some 2.4-7.5x (decode_attention_f16's: 100-311 us against 39-49 on the device opened
# plainly; benchmarks/RESULTS.md), others hardly (matmul_f16's cm2 tiling 479.0 us swept, 463.7 benchmarked). It
# now times on the device opened plainly (instrumented() in generator/src/validation/validate.cpp).
set -u
kit_file=${1:?usage: $0 <kit.tar.xz> <op>=<kernel.comp> ...}
shift
source "$(dirname "$0")/unpack_kit.sh" "$kit_file"
export VK_DRIVER_FILES=$nvidia_icd VK_ICD_FILENAMES=$nvidia_icd VK_LAYER_PATH=/nonexistent
export KERNELGEN_VALIDATION_DEVICES=gpu KERNELGEN_REDUCED_VALIDATION=1
for pair in "$@"; do
  op=${pair%%=*} kernel=${pair#*=}
  started=$SECONDS
  timeout ${VALIDATE_TIMEOUT_S:-240} "$kit/bin/kernelgen" validate --spec "$kit/kernelgen/$op/spec.json" --kernel "$kernel" --time 31 ${VALIDATE_ARGS:-} \
    --json 2>/dev/null |
    python3 -c "
import json, sys
v = json.load(sys.stdin); t = v.get('timing') or {}
print(sys.argv[1], v['status'], round((t.get('median_ns') or 0) / 1e3, 1), 'us',
      round((t.get('gflops') or 0) / 1e3, 1), 'TFLOP/s;', ', '.join(p['name'] + ' ' + p['value'] for p in t.get('pipeline', [])),
      v.get('reason', '')[:400])" "$pair" || echo "$pair: no verdict"
  echo "  ($((SECONDS - started)) s; $(nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv,noheader))"
done
