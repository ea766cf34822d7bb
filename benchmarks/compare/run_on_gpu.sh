#!/usr/bin/env bash
# Everything the catalog needs from a GPU machine, in one call (issues 11 and 12):
#   1. every op's test that was brought along (<build>/ops/<op>/test_kernelgen_<op>, what ctest -L kernelgen runs):
#      its checked-in kernel, and each variant the GPU can run, revalidated on the GPU on fresh inputs;
#   2. the catalog's searches replayed from tests/cassettes on the GPU (kernelgen build-op --regenerate, which
#      rewrites this copy's generated/), then `kernelgen report`: each op validated and timed at its
#      BENCH_DIMS, and the device's measured peaks;
#   3. compare.py: each op's benchmark at BENCH_DIMS beside PyTorch, as a Markdown table.
# Usage: benchmarks/compare/run_on_gpu.sh <build dir> <output dir>
# The build dir needs bin/kernelgen, kernelgen/<op>/{spec.json,reference.so} (the op's reference module),
# ops/<op>/bench_kernelgen_<op> (target kernelgen_benchmarks) and any of ops/<op>/test_kernelgen_<op> (built on a
# Debian machine and copied over, with the Vulkan loader and the shared libraries they need: each test links
# glslang, about 10 MB, so a transfer may carry only some); run it from the source tree the build was configured
# in, or one linked there.
set -u
build=${1:?usage: $0 <build dir> <output dir>}
out=${2:?usage: $0 <build dir> <output dir>}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out/log" "$out/regenerated"

echo "==== 1. the ops' tests on the GPU"
for test in "$build"/ops/*/test_kernelgen_*; do
  "$test" --gtest_brief=1 > "$out/$(basename "$test").log" 2>&1 && echo "passed: $(basename "$test")" ||
    { echo "FAILED: $(basename "$test")"; tail -20 "$out/$(basename "$test").log"; }
done 2>&1 | tee "$out/tests.log"

echo "==== 2. the catalog replayed from its cassettes on the GPU"
ops=$(sed -n 's/^add_subdirectory(\(.*\))$/\1/p' ops/CMakeLists.txt)
for op in $ops; do
  "$build/bin/kernelgen" build-op --spec "$build/kernelgen/$op/spec.json" --out "$out/regenerated/$op.cpp" \
    --regenerate --set KERNELGEN_MODEL=replay \
    --cassette-dir tests/cassettes --log-dir "$out/log" > "$out/regenerated/$op.log" 2>&1 ||
    { echo "FAILED: $op"; tail -5 "$out/regenerated/$op.log"; }
done
"$build/bin/kernelgen" report --log-dir "$out/log" | tee "$out/report.txt"
cat "$out/log/device_peaks.json"

echo "==== 3. kernelgen against PyTorch at BENCH_DIMS"
python3 "$here/compare.py" --build "$build" --peaks "$out/log/device_peaks.json" | tee "$out/compare.md"
