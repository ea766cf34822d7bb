#!/usr/bin/env bash
# On a GPU machine: what limits a GEMM's coopmat variant, matmul's (f32 through f16 parts) or matmul_f16's, or the
# tiling of an f16 GEMM's cooperative_matrix2 variant (<op>_cm2: ops/<op>/<op>_cm2.comp retiled by
# benchmarks/gpu/gemm_cm2_sweep.py). The
# cooperative-matrix multiply-adds alone (bench_kernelgen_coopmat_ceiling), torch's matmul at 4096^3 in the op's
# dtype (f32 with TF32 off; f16 with f32 accumulation), then every variant that the op's sweep script
# (benchmarks/gpu/matmul_sweep.py, matmul_f16_sweep.py) writes, each validated on the GPU and timed at
# BENCH_DIMS with the driver's pipeline statistics (registers, shared memory) and the SM clock and power after
# it. Run from the source tree, with the Vulkan loader installed (the device machine's recipe) and the kit that
# benchmarks/gpu/pack_kit.sh packed from a build that built bench_kernelgen_coopmat_ceiling.
# Usage: benchmarks/gpu/sweep_gemm.sh <kit.tar.xz> <matmul|matmul_f16|<op>_cm2> [variant ...]   (the variants
# named, else all)
set -u
kit_file=${1:?usage: $0 <kit.tar.xz> <matmul|matmul_f16> [variant ...]}
op=${2:?usage: $0 <kit.tar.xz> <matmul|matmul_f16> [variant ...]}
shift 2
case $op in
  matmul) sweep=(matmul_sweep.py) dtype=float32 ;;
  matmul_f16) sweep=(matmul_f16_sweep.py) dtype=float16 ;;
  *_cm2)
    op=${op%_cm2}
    sweep=(gemm_cm2_sweep.py "ops/$op/${op}_cm2.comp") dtype=float16
    [[ -f ${sweep[1]} ]] || { echo "$0: no ${sweep[1]} to retile" >&2; exit 2; } ;;
  *) echo "$0: no sweep for op '$op' (matmul, matmul_f16 or <op>_cm2)" >&2; exit 2 ;;
esac
source "$(dirname "$0")/unpack_kit.sh" "$kit_file"
# The GPU alone, without the layer: these are timings.
export VK_DRIVER_FILES=$nvidia_icd VK_ICD_FILENAMES=$nvidia_icd VK_LAYER_PATH=/nonexistent
export KERNELGEN_VALIDATION_DEVICES=gpu KERNELGEN_REDUCED_VALIDATION=1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "== the multiply-adds alone"
"$kit/bin/bench_kernelgen_coopmat_ceiling" 2>&1 | grep -E "^BM_"
echo "== torch.mm $dtype 4096^3 (TF32 off, f16 products summed in f32)"
python3 - "$dtype" <<'PY'
import sys
import torch
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
a = torch.randn(4096, 4096, device="cuda", dtype=getattr(torch, sys.argv[1]))
b = torch.randn_like(a)
for _ in range(20):
    torch.mm(a, b)
times = []
for _ in range(31):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record(); torch.mm(a, b); end.record(); torch.cuda.synchronize()
    times.append(start.elapsed_time(end) * 1000)
median = sorted(times)[len(times) // 2]
print(f"torch.mm: median {median:.1f} us, {2 * 4096**3 / median / 1e6:.1f} TFLOP/s")
PY
echo "== the variants: status, median, TFLOP/s, pipeline statistics; SM clock, power, temperature, throttle reasons"
variants=$(mktemp -d)
python3 "$(dirname "$0")/${sweep[0]}" "${sweep[@]:1}" "$variants" > /dev/null
spec=$kit/kernelgen/$op/spec.json
if (($#)); then names=("$@"); else names=($(cd "$variants" && ls *.comp | sed 's/\.comp$//')); fi
for name in "${names[@]}"; do
  kernel=$variants/$name.comp
  timeout 150 "$kit/bin/kernelgen" validate --spec "$spec" --kernel "$kernel" --time 31 --json 2>/dev/null |
    python3 -c "
import json, sys
v = json.load(sys.stdin); t = v.get('timing') or {}
print(sys.argv[1], v['status'], round((t.get('median_ns') or 0) / 1e3, 1), 'us',
      round((t.get('gflops') or 0) / 1e3, 1), 'TFLOP/s;', ', '.join(p['name'] + ' ' + p['value'] for p in t.get('pipeline', [])),
      v.get('reason', '')[:300])" "$name" || echo "$name: no verdict"
  nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader
done
