#!/usr/bin/env bash
# Packs what a GPU machine without Debian's packages needs to run the catalog's replay under the full validation
# protocol (the GPU, lavapipe beside it, the Khronos validation layer): the kernelgen tool, every op's spec.json
# and reference module from a build tree, lavapipe's and the layer's libraries with every shared library they
# and the tool load (less glibc's), and the JSON manifests that point the Vulkan loader at them. The loader itself
# comes from the device machine's recipe (libvulkan1 and libglvnd). One xz-compressed tar, about 45 MB.
# Usage: benchmarks/gpu/pack_kit.sh <build dir> <kit.tar.xz> [other build dir ...]; benchmarks/gpu/
# replay_full_protocol.sh unpacks it. An other build dir (examples/decoder_block's, say) adds the specs and reference
# modules of its ops whose names the first build's ops do not take.
set -euo pipefail
build=${1:?usage: $0 <build dir> <kit.tar.xz>}
kit_file=${2:?usage: $0 <build dir> <kit.tar.xz>}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/kit/bin" "$stage/kit/lib" "$stage/kit/icd.d" "$stage/kit/explicit_layer.d"
cp "$build/bin/kernelgen" "$stage/kit/bin/"
# The cooperative-matrix ceiling (benchmarks/coopmat_ceiling.cpp) where it was built, for sweep_matmul_f16.sh.
ceiling=$build/benchmarks/bench_kernelgen_coopmat_ceiling
if [[ -x $ceiling ]]; then cp "$ceiling" "$stage/kit/bin/"; else ceiling=; fi
for dir in "$build" "${@:3}"; do
  for spec in "$dir"/kernelgen/*/spec.json; do
    op_dir=$(dirname "$spec")
    op=$(basename "$op_dir")
    [[ -f $spec && ! -d $stage/kit/kernelgen/$op ]] || continue
    mkdir -p "$stage/kit/kernelgen/$op"
    cp "$spec" "$op_dir/reference.so" "$stage/kit/kernelgen/$op/"
  done
done
lvp=/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so
layer=/usr/lib/x86_64-linux-gnu/libVkLayer_khronos_validation.so
layer_manifest=/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json
# KERNELGEN_KIT_LAYER_DEBS: Debian 13's vulkan-validationlayers .deb (1.4.309) and the libstdc++6 .deb it needs,
# whose layer replaces Debian 12's. Debian 12's layer (1.3.239) refuses every SPV_NV_cooperative_matrix2 module, so
# only a kit with the newer one validates the coopmat2 variants under the layer (docs/validation.md). Its libstdc++
# (GCC 14) needs glibc >= 2.38 on the GPU machine. Fetch them with benchmarks/gpu/fetch_layer_debs.sh.
if [[ -n ${KERNELGEN_KIT_LAYER_DEBS:-} ]]; then
  debs=$stage/debs
  for deb in $KERNELGEN_KIT_LAYER_DEBS; do dpkg -x "$deb" "$debs"; done
  layer=$debs/usr/lib/x86_64-linux-gnu/libVkLayer_khronos_validation.so
  layer_manifest=$debs/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json
  cp -L "$debs"/usr/lib/x86_64-linux-gnu/libstdc++.so.6 "$stage/kit/lib/"
fi
cp "$lvp" "$layer" "$stage/kit/lib/"
# Every library they load but glibc's own and the loader's (the device machine's recipe brings libvulkan1), and
# libstdc++ where the Debian 13 layer brought its own.
ldd "$lvp" "$layer" "$build/bin/kernelgen" $ceiling | awk '$3 ~ /^\// {print $3}' | sort -u |
  grep -vE '/(libc|libm|libdl|libpthread|librt|ld-linux-x86-64|libvulkan)\.so' |
  while read -r library; do
    [[ -e $stage/kit/lib/$(basename "$library") ]] || cp -L "$library" "$stage/kit/lib/"
  done
cat > "$stage/kit/icd.d/lvp_icd.json" <<'JSON'
{"file_format_version": "1.0.0", "ICD": {"library_path": "../lib/libvulkan_lvp.so", "api_version": "1.1.230"}}
JSON
sed 's#"library_path": *"[^"]*"#"library_path": "../lib/libVkLayer_khronos_validation.so"#' \
  "$layer_manifest" > "$stage/kit/explicit_layer.d/VkLayer_khronos_validation.json"
tar -C "$stage" -cJf "$kit_file" kit
ls -la "$kit_file"
