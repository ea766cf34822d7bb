#!/usr/bin/env python3
"""Choices of attention_f16's cooperative_matrix2 kernel for a sweep on the GPU machine: the workgroup's
invocations, the keys per block and how each block's row sums are taken, for heads of 128 (attention_f16) and of
64 (attention_f16_d64); benchmarks/gpu/attention_cm2/attention_f16_cm2.comp says what each means. The kernel names
them as `#define HEAD_DIM ..`, `#define NT ..`, `#define BC ..` and `#define SUM_BY_PRODUCT ..`.

    attention_cm2_sweep.py OUT_DIR     writes OUT_DIR/<name>.comp for each choice below and prints their names

On the GPU machine: benchmarks/gpu/variants_on_gpu.sh <kit> attention_f16=OUT_DIR/<name>.comp ... (attention_f16_d64=... for
the d64_ ones) validates each on the GPU and times it at BENCH_DIMS.
"""
import pathlib
import re
import sys

SOURCE = pathlib.Path(__file__).parent / "attention_cm2" / "attention_f16_cm2.comp"

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


def choose(source, head_dim, threads, keys, by_product):
    for name, value in (("HEAD_DIM", head_dim), ("NT", threads), ("BC", keys), ("SUM_BY_PRODUCT", by_product)):
        source, count = re.subn(rf"^#define {name} \d+$", f"#define {name} {value}", source, flags=re.M)
        if count != 1:
            raise ValueError(f"#define {name} matched {count} times in {SOURCE}")
    return source


def main():
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    source = SOURCE.read_text()
    for name, choice in CHOICES.items():
        (out / f"{name}.comp").write_text(choose(source, *choice))
        print(name)


if __name__ == "__main__":
    main()
