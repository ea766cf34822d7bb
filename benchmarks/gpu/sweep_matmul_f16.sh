#!/usr/bin/env bash
# On a GPU machine: matmul_f16's sweep (benchmarks/gpu/sweep_gemm.sh with the op matmul_f16; the checked-in
# variant is `checked_in` among benchmarks/gpu/matmul_f16_sweep.py's).
# Usage: benchmarks/gpu/sweep_matmul_f16.sh <kit.tar.xz> [variant ...]   (the variants named, else all)
exec "$(dirname "$0")/sweep_gemm.sh" "${1:?usage: $0 <kit.tar.xz> [variant ...]}" matmul_f16 "${@:2}"
