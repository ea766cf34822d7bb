#!/usr/bin/env python3
"""Variants of matmul's coopmat kernel (ops/matmul/matmul_coopmat.comp: f32 through f16 parts on tensor cores)
for a sweep on the GPU machine: its tile constants replaced, optionally with the workgroups ordered in groups of
tile rows for the L2.

    matmul_sweep.py OUT_DIR     writes OUT_DIR/<name>.comp for each variant below and prints their names

`kernelgen validate --spec <matmul spec> --kernel OUT_DIR/<name>.comp --time 31` validates one and times it at
BENCH_DIMS; benchmarks/gpu/sweep_matmul.sh runs them all on the GPU machine.
"""
import pathlib
import re
import sys

SOURCE = pathlib.Path(__file__).resolve().parents[2] / "ops/matmul/matmul_coopmat.comp"

# name: (BM, BN, BK, subgroup rows, subgroup columns, LN (the product's n: 8 or 16), row group for the L2 or 0)
VARIANTS = {
    "source": (128, 128, 32, 2, 4, 8, 0),
    "ln16": (128, 128, 32, 2, 4, 16, 0),
    "sg4x2": (128, 128, 32, 4, 2, 8, 0),
    "grouped8": (128, 128, 32, 2, 4, 8, 8),
    "n64_4sg": (128, 64, 32, 2, 2, 8, 0),
    "m64_4sg": (64, 128, 32, 2, 2, 8, 0),
}

GROUPED = """  // Workgroups in groups of {group} tile rows, column by column within a group: neighbours in launch order
  // share slices of a and b in the L2.
  uint gx = gl_NumWorkGroups.x, gy = gl_NumWorkGroups.y, id = gl_WorkGroupID.y * gx + gl_WorkGroupID.x;
  uint per_group = {group}u * gx, first = (id / per_group) * {group}u, rows = min(gy - first, {group}u);
  row0 = (first + (id % per_group) % rows) * BM;
  col0 = ((id % per_group) / rows) * BN;
"""


def variant(source, bm, bn, bk, sg_rows, sg_cols, ln, group):
    threads = sg_rows * sg_cols * 32
    # hi and lo of a's and b's slices, the subgroups' staging for stores, largest[2] and refit[2].
    shared = 2 * (bm * (bk // 8 + 1) + bk * (bn // 8 + 1)) * 16 + (threads // 32) * 16 * ln * 4 + 16
    if shared > 48 * 1024:
        raise ValueError(f"{shared} bytes of shared memory")
    if bk < 24:
        raise ValueError("the exact path stages 16 of k as floats in the hi buffers: BK must be at least 24")
    if (bm * bk // 8) % threads or (bk * bn // 8) % threads:
        raise ValueError("pieces do not divide among the invocations")
    replace = [
        (r"const uint BM = \d+u, BN = \d+u, BK = \d+u;", f"const uint BM = {bm}u, BN = {bn}u, BK = {bk}u;"),
        (r"const uint LM = 16u, LN = \d+u, LK = 16u;", f"const uint LM = 16u, LN = {ln}u, LK = 16u;"),
        (r"const uint SG_ROWS = \d+u, SG_COLS = \d+u,", f"const uint SG_ROWS = {sg_rows}u, SG_COLS = {sg_cols}u,"),
        (r"layout\(local_size_x = \d+\) in;", f"layout(local_size_x = {threads}) in;"),
        (r"// kernelgen: dispatch .*", f"// kernelgen: dispatch (n + {bn - 1}) / {bn} (m + {bm - 1}) / {bm} 1"),
    ]
    for pattern, text in replace:
        source, count = re.subn(pattern, text, source)
        if count != 1:
            raise ValueError(f"{pattern} matched {count} times in {SOURCE}")
    if group:
        tiles = "  row0 = gl_WorkGroupID.y * BM;\n  col0 = gl_WorkGroupID.x * BN;\n"
        if tiles not in source:
            raise ValueError(f"no tile assignment to replace in {SOURCE}")
        source = source.replace(tiles, GROUPED.format(group=group))
    return source


def main():
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    source = SOURCE.read_text()
    for name, parameters in VARIANTS.items():
        (out / f"{name}.comp").write_text(variant(source, *parameters))
        print(name)


if __name__ == "__main__":
    main()
