#!/usr/bin/env python3
"""Variants of matmul's coopmat kernel (ops/matmul/matmul_coopmat.comp: f32 through f16 parts on tensor cores)
for a sweep on the GPU machine: its tile constants replaced, optionally with the workgroups ordered in groups of
tile rows for the L2.

    matmul_sweep.py OUT_DIR     writes OUT_DIR/<name>.comp for each variant below and prints their names

`kernelgen validate --spec <matmul spec> --kernel OUT_DIR/<name>.comp --time 31` validates one and times it at
BENCH_DIMS; `benchmarks/gpu/sweep_gemm.sh <kit> matmul` runs them all on the GPU machine.
"""
import pathlib
import sys

from matmul_f16_sweep import retile, write_variants

SOURCE = pathlib.Path(__file__).resolve().parents[2] / "ops/matmul/matmul_coopmat.comp"

# name: (BM, BN, BK, subgroup rows, subgroup columns, LN (the product's n: 8 or 16), row group for the L2 or 0).
# 16x16x16 products (LN 16) at 128x128 no longer fit 48 KiB since the error bound's terms took 3.2 KB of it.
VARIANTS = {
    "source": (128, 128, 32, 2, 4, 8, 0),
    "sg4x2": (128, 128, 32, 4, 2, 8, 0),
    "grouped8": (128, 128, 32, 2, 4, 8, 8),
    "n64_4sg": (128, 64, 32, 2, 2, 8, 0),
    "m64_4sg": (64, 128, 32, 2, 2, 8, 0),
}


def variant(source, bm, bn, bk, sg_rows, sg_cols, ln, group):
    threads = sg_rows * sg_cols * 32
    # hi and lo of a's and b's slices, the subgroups' staging for stores, largest[2], refit[2] and redo, and the
    # error bound's terms (vec2s: row_bound, column_parts, column_bound).
    shared = 2 * (bm * (bk // 8 + 1) + bk * (bn // 8 + 1)) * 16 + (threads // 32) * 16 * ln * 4 + 20
    shared += 8 * (bm + threads + bn // 8)
    if shared > 48 * 1024:
        raise ValueError(f"{shared} bytes of shared memory")
    if bk < 24:
        raise ValueError("the exact path stages 16 of k as floats in the hi buffers: BK must be at least 24")
    return retile(source, SOURCE, bm, bn, bk, sg_rows, sg_cols, ln, group)


def main():
    source = SOURCE.read_text()
    write_variants(sys.argv[1], VARIANTS, lambda *parameters: variant(source, *parameters))


if __name__ == "__main__":
    main()
