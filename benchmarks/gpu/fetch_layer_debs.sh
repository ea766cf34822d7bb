#!/usr/bin/env bash
# Downloads Debian 13's Khronos validation layer (vulkan-validationlayers 1.4.309.0-1) and the libstdc++6 it needs
# (14.2.0-19) as .deb files into a folder, each checked against its pinned sha256 (Debian 13's Packages index), for
# benchmarks/gpu/pack_kit.sh (KERNELGEN_KIT_LAYER_DEBS). From the Debian mirror the machine's apt sources name, or
# $KERNELGEN_DEBIAN_MIRROR. The binary packages, not the source: the mirror that CI and these machines reach does
# not serve that release's vulkan-validationlayers source tarball (404), and the layer is only the GPU kit's.
# Usage: benchmarks/gpu/fetch_layer_debs.sh <folder>   (prints the two paths)
set -euo pipefail
folder=${1:?usage: $0 <folder>}
mirror=${KERNELGEN_DEBIAN_MIRROR:-$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources \
  /etc/apt/sources.list.d/*.list 2>/dev/null | grep -oE '(^URIs:|^deb[[:space:]]).*' | grep -oE 'https?://[^[:space:]]+' |
  grep -E '/debian/?$' | head -n1 || true)}
[[ -n $mirror ]] || { echo "$0: no Debian mirror in /etc/apt/sources*; set KERNELGEN_DEBIAN_MIRROR" >&2; exit 1; }
mkdir -p "$folder"
while read -r path sha; do
  file=$folder/$(basename "$path")
  [[ -f $file ]] || curl -fsSL --retry 3 -o "$file" "${mirror%/}/pool/main/$path"
  echo "$sha  $file" | sha256sum -c --status || { echo "$0: $file does not match its pinned sha256 $sha" >&2; exit 1; }
  echo "$file"
done <<'PINS'
v/vulkan-validationlayers/vulkan-validationlayers_1.4.309.0-1_amd64.deb ff7e18ef011ff448ac799daf16134a676ccf9c5987e1a9f4b779611ed5fc3b0d
g/gcc-14/libstdc++6_14.2.0-19_amd64.deb ab1fa05837aa7a92aae748fd07a18a35f7d18bb4a71c4724fe2bbf0e32089de0
PINS
