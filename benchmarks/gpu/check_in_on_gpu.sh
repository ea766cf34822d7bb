#!/usr/bin/env bash
# On a GPU machine: each op's build step (`kernelgen build-op`, no regeneration) under the full validation protocol
# (the GPU, lavapipe beside it, the Khronos layer's GPU-assisted validation), so that what only a GPU can validate,
# the variants on cooperative matrices, is checked in: a missing variant, or one another glslang compiled, is
# validated on the devices that can run it and written under generated/<op>/variants/. An op whose step fails so
# is tried again without the layer (KERNELGEN_REDUCED_VALIDATION=1, which its manifest then records);
# CHECK_IN_REDUCED=1 goes straight to that, for ops whose variants the kit's layer refuses (Debian 12's layer and
# GL_NV_cooperative_matrix2 modules: docs/validation.md), where the first try only costs time. The op
# folders that changed go to <out>/generated.tar, the build steps' output and records to <out>/logs.tar.xz. Ops not
# started within $CHECK_IN_DEADLINE_S seconds (default 450) are left out, so that what was checked in comes back
# from a call of limited time; each step may take $CHECK_IN_STEP_TIMEOUT_S seconds (default 150; the validator's own
# limit is KERNELGEN_VALIDATION_TIMEOUT_S, default 60). Run from the source tree with the Vulkan loader installed and the kit of
# benchmarks/gpu/pack_kit.sh (its specs name the generated folders of this tree).
# Usage: benchmarks/gpu/check_in_on_gpu.sh <kit.tar.xz> <out dir> <op> ...
set -u
kit_file=${1:?usage: $0 <kit.tar.xz> <out dir> <op> ...}
out=${2:?usage: $0 <kit.tar.xz> <out dir> <op> ...}
shift 2
mkdir -p "$out"
logs=$(mktemp -d)
touch "$logs/started"
source "$(dirname "$0")/unpack_kit.sh" "$kit_file"
source "$(dirname "$0")/full_protocol.sh"
for op in "$@"; do
  if ((SECONDS > ${CHECK_IN_DEADLINE_S:-450})); then echo "LEFT OUT: $op (past the deadline)"; continue; fi
  started=$SECONDS
  step() {
    timeout "${CHECK_IN_STEP_TIMEOUT_S:-150}" "$kit/bin/kernelgen" build-op --spec "$kit/kernelgen/$op/spec.json" --out "$logs/$op.cpp" \
      --log-dir "$logs" "$@"
  }
  if [[ -z ${CHECK_IN_REDUCED:-} ]] && step > "$logs/$op.log" 2>&1; then
    echo "checked: $op ($((SECONDS - started)) s)"
  elif VK_LAYER_PATH=/nonexistent KERNELGEN_REDUCED_VALIDATION=1 step > "$logs/$op.reduced.log" 2>&1; then
    echo "checked without the layer: $op ($((SECONDS - started)) s)"
    [[ -n ${CHECK_IN_REDUCED:-} ]] || { echo "  with it:"; grep -E "kernelgen" "$logs/$op.log" | tail -4; }
  else
    echo "FAILED: $op ($((SECONDS - started)) s)"; tail -6 "$logs/$op.reduced.log"
  fi
  grep -hE "variant '|checked in|kept|reduced" "$logs/$op.log" "$logs/$op.reduced.log" 2>/dev/null | sed 's/^/  /'
done
# What the steps wrote (the copy of the tree on a device machine need not be a git checkout).
find generated examples/decoder_block/generated -type f -newer "$logs/started" | sort | tee "$out/changed.txt" |
  tar -cf "$out/generated.tar" -T -
tar -C "$logs" -cJf "$out/logs.tar.xz" .
