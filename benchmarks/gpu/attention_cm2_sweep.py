#!/usr/bin/env python3
"""Choices of attention_f16's cooperative_matrix2 kernel for a sweep on the GPU machine: the workgroup's
invocations, the keys per block and how each block's row sums are taken, for heads of 128 (attention_f16) and of
64 (attention_f16_d64); benchmarks/gpu/attention_cm2/attention_f16_cm2.comp says what each means. The kernel names
them as `#define HEAD_DIM ..`, `#define NT ..`, `#define BC ..` and `#define SUM_BY_PRODUCT ..`. The rows_ choices
are of attention_f16_cm2_rows.comp, whose subgroups own 16 queries each (`#define NSG ..`: subgroups a workgroup);
the staged_ ones of attention_f16_cm2_staged.comp, the same with each block's keys and values staged in shared memory.

    attention_cm2_sweep.py OUT_DIR     writes OUT_DIR/<name>.comp for each choice below and prints their names

On the GPU machine: benchmarks/gpu/variants_on_gpu.sh <kit> attention_f16=OUT_DIR/<name>.comp ... (attention_f16_d64=... for
the d64_ ones) validates each on the GPU and times it at BENCH_DIMS.
"""
import pathlib
import re
import sys

SOURCE = pathlib.Path(__file__).parent / "attention_cm2" / "attention_f16_cm2.comp"
ROWS_SOURCE = pathlib.Path(__file__).parent / "attention_cm2" / "attention_f16_cm2_rows.comp"
STAGED_SOURCE = pathlib.Path(__file__).parent / "attention_cm2" / "attention_f16_cm2_staged.comp"

# name: (head dimension, invocations, keys per block, row sums by a product with ones)
CHOICES = {
    "d128_t256_c64_reduce": (128, 256, 64, 0),
    "d128_t128_c64_reduce": (128, 128, 64, 0),
    "d128_t128_c64_product": (128, 128, 64, 1),
    "d128_t256_c64_product": (128, 256, 64, 1),
    "d128_t128_c128_reduce": (128, 128, 128, 0),
    "d128_t256_c128_reduce": (128, 256, 128, 0),
    "d128_t256_c128_product": (128, 256, 128, 1),
    "d64_t128_c64_reduce": (64, 128, 64, 0),
    "d64_t128_c64_product": (64, 128, 64, 1),
    "d64_t256_c64_reduce": (64, 256, 64, 0),
    "d64_t128_c128_reduce": (64, 128, 128, 0),
    "d64_t256_c128_reduce": (64, 256, 128, 0),
}

# The kernel whose subgroups own 16 query rows each (attention_f16_cm2_rows.comp), name: (head dimension, row groups
# of 16 a workgroup, keys per block).
ROWS_CHOICES = {
    "rows_d128_g4_c16": (128, 4, 16),
    "rows_d128_g4_c32": (128, 4, 32),
    "rows_d128_g4_c64": (128, 4, 64),
    "rows_d128_g8_c32": (128, 8, 32),
    "rows_d128_g2_c32": (128, 2, 32),
    "rows_d64_g4_c32": (64, 4, 32),
    "rows_d64_g4_c64": (64, 4, 64),
    "rows_d64_g8_c64": (64, 8, 64),
}

# attention_f16_cm2_staged.comp, name: (head dimension, row groups of 16 a workgroup, keys per block).
STAGED_CHOICES = {
    "staged_d128_g4_c64": (128, 4, 64),
    "staged_d128_g4_c32": (128, 4, 32),
    "staged_d128_g8_c64": (128, 8, 64),
    "staged_d64_g4_c64": (64, 4, 64),
    "staged_d64_g8_c64": (64, 8, 64),
    "staged_d64_g4_c128": (64, 4, 128),
}


def define(source, path, name, value):
    source, count = re.subn(rf"^#define {name} \d+$", f"#define {name} {value}", source, flags=re.M)
    if count != 1:
        raise ValueError(f"#define {name} matched {count} times in {path}")
    return source


def choose(source, head_dim, threads, keys, by_product):
    for name, value in (("HEAD_DIM", head_dim), ("NT", threads), ("BC", keys), ("SUM_BY_PRODUCT", by_product)):
        source = define(source, SOURCE, name, value)
    return source


def choose_rows(source, head_dim, groups, keys, path=ROWS_SOURCE):
    for name, value in (("HEAD_DIM", head_dim), ("NSG", groups), ("BC", keys)):
        source = define(source, path, name, value)
    rows = 16 * groups  # a workgroup's queries: its dispatch line follows
    source, count = re.subn(r"^// kernelgen: dispatch .*$", f"// kernelgen: dispatch (seq + {rows - 1}) / {rows} heads 1",
                            source, flags=re.M)
    if count != 1:
        raise ValueError(f"the dispatch line matched {count} times in {path}")
    return source


def main():
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    source = SOURCE.read_text()
    for name, choice in CHOICES.items():
        (out / f"{name}.comp").write_text(choose(source, *choice))
        print(name)
    # The staged kernel takes the rows kernel's three choices.
    for path, choices in ((ROWS_SOURCE, ROWS_CHOICES), (STAGED_SOURCE, STAGED_CHOICES)):
        source = path.read_text()
        for name, choice in choices.items():
            (out / f"{name}.comp").write_text(choose_rows(source, *choice, path=path))
            print(name)


if __name__ == "__main__":
    main()
