#!/usr/bin/env bash
# Where a decode kernel's time goes (issue 40): each kernel validated on the GPU alone and timed (`kernelgen validate
# --time 31`) at several sizes of one dim, under each of the timing harness's flushes (KERNELGEN_TIMING_FLUSH:
# write, the default, then read, which leaves the cache's lines clean as a decode step's previous stage does). Its
# time is about a fixed part plus its bytes over the rate it streams at: the slope between two sizes is that rate,
# and what is left at size 0 the fixed part. Run from the source tree with the Vulkan loader installed (the device
# machine's recipe) and the kit benchmarks/gpu/pack_kit.sh packed (with examples/decoder_block's build for its ops).
# Usage: benchmarks/gpu/decode_scaling.sh <kit.tar.xz> <dim> <size,size,...> <op>=<kernel.comp>[@<dims>] ...
#   <dims>: the other dims of the timed size, comma-separated (m=1,k=4096); the kernels are validated at small
#   sizes (SMALL_DIMS, default "--dims" of each op's first DIMS values as the validator adds them) only.
# Prints one line a kernel, size and flush: op kernel dim=size flush verdict us GB/s.
set -u
kit_file=${1:?usage: $0 <kit.tar.xz> <dim> <sizes> <op>=<kernel.comp>[@dims] ...}
dim=${2:?usage: $0 <kit.tar.xz> <dim> <sizes> <op>=<kernel.comp>[@dims] ...}
sizes=${3:?usage: $0 <kit.tar.xz> <dim> <sizes> <op>=<kernel.comp>[@dims] ...}
shift 3
source "$(dirname "$0")/unpack_kit.sh" "$kit_file"
export VK_DRIVER_FILES=$nvidia_icd VK_ICD_FILENAMES=$nvidia_icd VK_LAYER_PATH=/nonexistent
export KERNELGEN_VALIDATION_DEVICES=gpu KERNELGEN_REDUCED_VALIDATION=1
for pair in "$@"; do
  op=${pair%%=*} rest=${pair#*=}
  kernel=${rest%%@*} fixed=
  [[ $rest == *@* ]] && fixed=${rest#*@}
  for size in ${sizes//,/ }; do
    for flush in write read; do
      KERNELGEN_TIMING_FLUSH=$flush timeout 240 "$kit/bin/kernelgen" validate --spec "$kit/kernelgen/$op/spec.json" \
        --kernel "$kernel" --time 31 ${SMALL_DIMS:-} --timed-dims "$dim=$size" ${fixed//,/ } --json 2>/dev/null |
        python3 -c "
import json, sys
v = json.load(sys.stdin); t = v.get('timing') or {}
us = round((t.get('median_ns') or 0) / 1e3, 2)
print(*sys.argv[1:4], t.get('flush', 'write'), v['status'], us, 'us', round(t.get('gbytes_per_second') or 0, 1),
      'GB/s', v.get('reason', '')[:300])" "$op" "$(basename "$kernel")" "$dim=$size" ||
        echo "$op $(basename "$kernel") $flush $dim=$size: no verdict"
    done
  done
done
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv,noheader
