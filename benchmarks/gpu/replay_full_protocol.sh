#!/usr/bin/env bash
# On a GPU machine: the catalog's searches replayed from tests/cassettes under the full validation protocol
# (the GPU, lavapipe beside it and the Khronos layer's GPU-assisted validation; validation/protocol.hpp), then
# `kernelgen report` and which checked-in kernels the replay would change. Run from the source tree, with the
# Vulkan loader installed (the device machine's recipe) and the kit that benchmarks/gpu/pack_kit.sh packed.
# Usage: benchmarks/gpu/replay_full_protocol.sh <kit.tar.xz> <output dir> [op...]
set -u
kit_file=${1:?usage: $0 <kit.tar.xz> <output dir> [op...]}
out=${2:?usage: $0 <kit.tar.xz> <output dir> [op...]}
shift 2
mkdir -p "$out/log" "$out/regenerated"
source "$(dirname "$0")/unpack_kit.sh" "$kit_file"
source "$(dirname "$0")/full_protocol.sh"
"$kit/bin/kernelgen" devices | tee "$out/devices.txt"
ops=${*:-$(sed -n 's/^add_subdirectory(\(.*\))$/\1/p' ops/CMakeLists.txt)}
for op in $ops; do
  started=$SECONDS
  "$kit/bin/kernelgen" build-op --spec "$kit/kernelgen/$op/spec.json" --out "$out/regenerated/$op.cpp" \
    --regenerate --set KERNELGEN_MODEL=replay --cassette-dir tests/cassettes --log-dir "$out/log" \
    > "$out/regenerated/$op.log" 2>&1 && echo "replayed: $op ($((SECONDS - started)) s)" ||
    { echo "FAILED: $op ($((SECONDS - started)) s)"; tail -8 "$out/regenerated/$op.log"; }
done 2>&1 | tee "$out/replay.txt"
"$kit/bin/kernelgen" report --log-dir "$out/log" | tee "$out/report.txt"
echo "==== checked-in kernels the replay changed"
git status --short generated/ | tee "$out/changed.txt"
