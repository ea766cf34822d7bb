#!/usr/bin/env bash
# Packs what benchmarks/gpu/results_on_gpu.sh needs on a GPU machine without Debian's packages: every op's
# benchmark (<build>/ops/<op>/bench_kernelgen_<op>, target kernelgen_benchmarks) with its spec.json, the
# cooperative-matrix ceiling (bench_kernelgen_coopmat_ceiling) where it was built, and every shared library they
# load but glibc's and the Vulkan loader's (the device machine's recipe brings libvulkan1). The kit's build/ folder
# has the build tree's layout, so that compare.py --build reads it. One xz-compressed tar.
# Usage: benchmarks/gpu/pack_bench_kit.sh <build dir> <kit.tar.xz>
set -euo pipefail
build=${1:?usage: $0 <build dir> <kit.tar.xz>}
kit_file=${2:?usage: $0 <build dir> <kit.tar.xz>}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/kit/lib" "$stage/kit/build/benchmarks"
shopt -s nullglob
benches=("$build"/ops/*/bench_kernelgen_*)
if ((${#benches[@]} == 0)); then
  echo "$0: $build/ops holds no bench_kernelgen_<op>: build the target kernelgen_benchmarks first" >&2
  exit 1
fi
for bench in "${benches[@]}"; do
  op=$(basename "$(dirname "$bench")")
  mkdir -p "$stage/kit/build/ops/$op" "$stage/kit/build/kernelgen/$op"
  cp "$bench" "$stage/kit/build/ops/$op/"
  cp "$build/kernelgen/$op/spec.json" "$stage/kit/build/kernelgen/$op/"
done
ceiling=$build/benchmarks/bench_kernelgen_coopmat_ceiling
if [[ -x $ceiling ]]; then cp "$ceiling" "$stage/kit/build/benchmarks/"; else ceiling=; fi
ldd "${benches[@]}" $ceiling | awk '$3 ~ /^\// {print $3}' | sort -u |
  grep -vE '/(libc|libm|libdl|libpthread|librt|ld-linux-x86-64|libvulkan)\.so' |
  while read -r library; do cp -L "$library" "$stage/kit/lib/"; done
tar -C "$stage" -cJf "$kit_file" kit
ls -l "$kit_file"
