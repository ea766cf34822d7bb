#!/usr/bin/env python3
"""Tilings of a GEMM's cooperative_matrix2 variant (its checked-in source, ops/<op>/<op>_cm2.comp or the decoder
block's) for a sweep on the GPU machine: the workgroup's accumulator tile BM x BN, the k step BK, the k steps
unrolled on the fast path KU, and the workgroup size. The kernels share one shape: `const uint BM = ..u, BN = ..u,
BK = ..u, KU = ..u;`, `layout(local_size_x = ..)`, and a dispatch line of (n + BN - 1) / BN columns by
(m + BM - 1) / BM rows (times any third factor, kept as it is).

    gemm_cm2_sweep.py SOURCE OUT_DIR     writes OUT_DIR/<name>.comp for each tiling below and prints their names

benchmarks/gpu/sweep_gemm.sh <kit> <op>_cm2 validates each on the GPU and times it at BENCH_DIMS.
"""
import pathlib
import re
import sys

# name: (BM, BN, BK, KU, invocations)
TILINGS = {
    "m128_n128_k32_t128": (128, 128, 32, 1, 128),
    "m128_n128_k32_t256": (128, 128, 32, 1, 256),
    "m128_n128_k64_t256": (128, 128, 64, 1, 256),
    "m128_n256_k32_t256": (128, 256, 32, 1, 256),
    "m128_n256_k32_u2_t256": (128, 256, 32, 2, 256),
    "m128_n256_k64_t256": (128, 256, 64, 1, 256),
    "m128_n256_k16_u2_t256": (128, 256, 16, 2, 256),
    "m256_n128_k32_t256": (256, 128, 32, 1, 256),
    "m256_n256_k32_t256": (256, 256, 32, 1, 256),
    "m64_n256_k32_t128": (64, 256, 32, 1, 128),
    "m128_n256_k32_t128": (128, 256, 32, 1, 128),
    # k steps unrolled on the fast path (llama.cpp's mul_mm_cm2.comp unrolls 8 steps of BK)
    "m128_n128_k32_u2_t128": (128, 128, 32, 2, 128),
    "m128_n128_k32_u4_t128": (128, 128, 32, 4, 128),
    "m128_n128_k32_u8_t128": (128, 128, 32, 8, 128),
    "m128_n128_k64_u4_t128": (128, 128, 64, 4, 128),
    "m128_n256_k32_u8_t256": (128, 256, 32, 8, 256),
    "m256_n128_k32_u8_t256": (256, 128, 32, 8, 256),
    "m128_n128_k64_u2_t128": (128, 128, 64, 2, 128),
    "m128_n128_k64_u8_t128": (128, 128, 64, 8, 128),
    "m128_n128_k128_u2_t128": (128, 128, 128, 2, 128),
    "m128_n256_k64_u4_t256": (128, 256, 64, 4, 256),
    "m128_n128_k64_u4_t256": (128, 128, 64, 4, 256),
    # More workgroups where m is a prefill's 512 rows: 128 x 128 tiles make 128 of them at n = 4096, one for each
    # of an H200's 132 multiprocessors, where two fit (255 registers at 128 invocations).
    "m64_n128_k64_u4_t128": (64, 128, 64, 4, 128),
    "m128_n64_k64_u4_t128": (128, 64, 64, 4, 128),
    "m64_n64_k64_u4_t128": (64, 64, 64, 4, 128),
    "m64_n128_k64_u4_t64": (64, 128, 64, 4, 64),
    "m128_n64_k64_u4_t64": (128, 64, 64, 4, 64),
    "m64_n128_k64_u4_t256": (64, 128, 64, 4, 256),
    "m128_n64_k64_u4_t256": (128, 64, 64, 4, 256),
}


def retile(source, origin, bm, bn, bk, ku, threads):
    replace = [
        (r"const uint BM = \d+u, BN = \d+u, BK = \d+u, KU = \d+u;",
         f"const uint BM = {bm}u, BN = {bn}u, BK = {bk}u, KU = {ku}u;"),
        (r"layout\(local_size_x = \d+\) in;", f"layout(local_size_x = {threads}) in;"),
        (r"// kernelgen: dispatch \(n \+ \d+\) / \d+ \(m \+ \d+\) / \d+",
         f"// kernelgen: dispatch (n + {bn - 1}) / {bn} (m + {bm - 1}) / {bm}"),
    ]
    for pattern, text in replace:
        source, count = re.subn(pattern, text, source)
        if count != 1:
            raise ValueError(f"{pattern} matched {count} times in {origin}")
    return source


def main():
    source_path, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    source = source_path.read_text()
    out.mkdir(parents=True, exist_ok=True)
    for name, tiling in TILINGS.items():
        (out / f"{name}.comp").write_text(retile(source, source_path, *tiling))
        print(name)


if __name__ == "__main__":
    main()
