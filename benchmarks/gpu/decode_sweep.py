#!/usr/bin/env python3
"""Writes the decode kernels' sweep (issue 40) from the templates in benchmarks/gpu/decode/: each @NAME@ of a
template replaced by one choice's value, one .comp a choice, named after its values.

decode_attention_f16_tiles.comp: NT invocations a workgroup, KPI keys an invocation loads at once (a tile is
NT / 16 * KPI keys), at most MAX_RANGES ranges a head of at least MIN_KEYS keys, STRIDE the scratch's ranges
(the spec's second dim of `partials`).
decode_attention_f16_stream.comp: NT invocations a workgroup, B keys a cluster of lanes loads at once, at most
MAX_RANGES ranges a head, PIPE 1 to load a cluster's next block before using this one.
gemv_f16_wide.comp: NT invocations a workgroup, COLS columns of y a workgroup, U 16-byte loads of w an invocation
issues at once.
gemv_residual_rows.comp (examples/decoder_block's gemv_residual): NT invocations a workgroup reading one row of w,
U 16-byte loads an invocation issues at once.

Usage: decode_sweep.py <out dir> [--stride N] [--stream NT,B,MAX_RANGES,PIPE ...] [--gemv-rows NT,U ...]; prints
`<op>=<file>` for each, for variants_on_gpu.sh. --stream and --gemv-rows write those choices alone, in place of the
whole sweep."""
import argparse
import itertools
import pathlib

HERE = pathlib.Path(__file__).resolve().parent / "decode"

ATTENTION = [  # NT, KPI, MAX_RANGES (at most NT: the combine gives each range an invocation)
    (128, 16, 32), (256, 8, 32), (128, 8, 64), (64, 16, 64), (256, 16, 16), (256, 4, 64),
]
STREAM = [  # NT, B, MAX_RANGES, PIPE
    (128, 4, 32, 1), (128, 4, 32, 0), (128, 8, 32, 0), (128, 2, 32, 1), (64, 4, 32, 1), (256, 4, 32, 1),
    (128, 4, 16, 1), (256, 4, 16, 1), (256, 8, 16, 0), (128, 8, 16, 1),
    (128, 4, 8, 1), (64, 4, 16, 1), (64, 4, 8, 1), (128, 2, 16, 1), (256, 2, 16, 1), (256, 4, 8, 1),
]
GEMV = [  # NT, COLS, U
    (128, 4, 8), (128, 4, 16), (64, 2, 16), (256, 8, 16), (64, 2, 8), (32, 1, 16),
]


def write(template, out, name, values):
    text = (HERE / template).read_text()
    for key, value in values.items():
        text = text.replace(f"@{key}@", str(value))
    assert "@" not in text.split("\n", 1)[1].replace("@NAME@", ""), f"{name}: a placeholder is left"
    path = out / f"{name}.comp"
    path.write_text(text)
    return path


def write_stream(out, nt, b, ranges, pipe, stride):
    path = write("decode_attention_f16_stream.comp", out, f"da_stream_t{nt}_b{b}_s{ranges}_p{pipe}",
                 dict(NT=nt, B=b, MAX_RANGES=ranges, MIN_KEYS=16, STRIDE=stride, PIPE=pipe))
    print(f"decode_attention_f16={path}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=pathlib.Path)
    parser.add_argument("--stride", type=int, default=256, help="the sweep spec's ranges of scratch (partials)")
    parser.add_argument("--stream", nargs="+", metavar="NT,B,MAX_RANGES,PIPE",
                        help="write these choices of the stream template alone")
    parser.add_argument("--gemv-rows", nargs="+", metavar="NT,U",
                        help="write these choices of gemv_residual_rows.comp alone")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for choice in args.stream or []:
        nt, b, ranges, pipe = (int(v) for v in choice.split(","))
        if ranges > min(nt, args.stride):
            parser.error(f"--stream {choice}: MAX_RANGES is at most NT and --stride")
        write_stream(args.out, nt, b, ranges, pipe, args.stride)
    for choice in args.gemv_rows or []:
        nt, u = (int(v) for v in choice.split(","))
        path = write("gemv_residual_rows.comp", args.out, f"gemv_residual_rows_t{nt}_u{u}", dict(NT=nt, U=u))
        print(f"gemv_residual={path}")
    if args.stream or args.gemv_rows:
        return
    for nt, kpi, ranges in ATTENTION:
        if ranges > args.stride:
            continue
        path = write("decode_attention_f16_tiles.comp", args.out, f"da_t{nt}_k{kpi}_s{ranges}",
                     dict(NT=nt, KPI=kpi, MAX_RANGES=ranges, MIN_KEYS=16, STRIDE=args.stride))
        print(f"decode_attention_f16={path}")
    for nt, b, ranges, pipe in STREAM:
        if ranges > args.stride:
            continue
        write_stream(args.out, nt, b, ranges, pipe, args.stride)
    for nt, cols, u in GEMV:
        path = write("gemv_f16_wide.comp", args.out, f"gemv_t{nt}_c{cols}_u{u}", dict(NT=nt, COLS=cols, U=u))
        print(f"gemv_f16={path}")


if __name__ == "__main__":
    main()
