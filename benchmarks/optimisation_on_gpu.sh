#!/usr/bin/env bash
# The figures of docs/optimisation.md, from one run on a GPU machine:
#   1. the catalog's searches replayed from tests/cassettes (correction and optimisation rounds), each op checked
#      in on this GPU, then `kernelgen report` and `report --json` (first correct vs best time, speed-up, % of peak);
#   2. the spread of repeated timings of one kernel: eight separate `kernelgen validate --time 31` per op, and the
#      benchmark's GPU case with 8 repetitions (the same timing harness).
# Usage: benchmarks/optimisation_on_gpu.sh <build dir> <output dir>
# The build dir needs bin/kernelgen, kernelgen/<op>/{spec.json,reference.so} (the op's reference module) and
# ops/<op>/bench_kernelgen_<op> (built on a Debian machine and copied over, with the Vulkan loader they need); run
# it from the source tree the specs name.
set -u
build=${1:?usage: $0 <build dir> <output dir>}
out=${2:?usage: $0 <build dir> <output dir>}
log=$out/log
mkdir -p "$log"
ops="matmul add relu"
for op in $ops; do
  echo "==== $op: replaying its cassette"
  "$build/bin/kernelgen" build-op --spec "$build/kernelgen/$op/spec.json" --out "$out/$op.cpp" --regenerate \
    --set KERNELGEN_MODEL=replay --cassette-dir tests/cassettes --log-dir "$log" 2>&1 |
    grep -v "candidates, [0-9]* accepted"
done
"$build/bin/kernelgen" report --log-dir "$log"
"$build/bin/kernelgen" report --json --log-dir "$log" > "$out/report.json"
cat "$log/device_peaks.json"
for op in $ops; do
  echo "==== $op: kernelgen validate --time 31, 8 separate runs (median_ns p25_ns p75_ns)"
  for run in 1 2 3 4 5 6 7 8; do
    "$build/bin/kernelgen" validate --spec "$build/kernelgen/$op/spec.json" --kernel "generated/$op/kernel.comp" \
      --time 31 --json | python3 -c "import json, sys; t = json.load(sys.stdin)['timing']; print(t['median_ns'], t.get('p25_ns'), t.get('p75_ns'))"
  done
  echo "==== $op: the benchmark's GPU case, 8 repetitions"
  "$build/ops/$op/bench_kernelgen_$op" --benchmark_filter=gpu --benchmark_repetitions=8 2>&1 | grep -E "^BM"
done
