#!/usr/bin/env python3
"""Every catalog op at its BENCH_DIMS, kernelgen against PyTorch on the same GPU in one run (issue 12).

kernelgen's time is bench_kernelgen_<op>'s GPU case (BM_<op>_gpu: kernelgen's timing harness, GPU timestamps
around each of 31 back-to-back dispatches, the caches flushed before each, the median), the smaller of the medians
of --processes runs of the benchmark (2): now and then a whole process runs about 3 times slower on an H100, which
benchmarks/RESULTS.md records; where two processes' medians differ by more than 20% the table's footnotes say so.
PyTorch's is measured the same way with CUDA events: the same 256 MiB flush before each run
(KERNELGEN_TIMING_FLUSH_MB), 31 runs after a warm-up, the median. Its precision is pinned (pin_precision): TF32
is off, so fp32 matmul and convolution are fp32 in both, and f16 and bf16 products are summed in f32.

    python3 benchmarks/compare/compare.py --build build [--ops relu,add] [--peaks build/kernelgen/candidates/device_peaks.json]
                                          [--processes 2] [--chosen-only]

Prints a Markdown table: op, the size, both times, kernelgen's GB/s and GFLOP/s, its fraction of the device's
measured peak (when the peaks file is given), and the ratio PyTorch time / kernelgen time (above 1: kernelgen
is faster).
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import torch_ops  # noqa: E402

RUNS = 31


def kernelgen_time(build, op, variant=None):
    """(median us, bytes/s, FLOP/s, label) of BM_<op>_gpu, read from Google Benchmark's JSON output; with
    variant "none", of the op's own kernel where the device would run a variant, and with a variant's name, of that
    variant where the device runs it (KERNELGEN_VARIANT)."""
    binary = build / "ops" / op / f"bench_kernelgen_{op}"
    env = dict(os.environ, KERNELGEN_VARIANT=variant) if variant else None
    result = subprocess.run([str(binary), "--benchmark_filter=_gpu", "--benchmark_format=json"],
                            capture_output=True, text=True, check=True, env=env)
    entry = json.loads(result.stdout)["benchmarks"][0]
    scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}[entry["time_unit"]]
    return entry["real_time"] * scale, entry.get("bytes_per_second", 0.0), entry.get("FLOP/s", 0.0), entry["label"]


def torch_time(call, flush_bytes):
    """Median GPU time (us) of `call` over RUNS runs, each after writing a buffer larger than the L2."""
    flush = torch.empty(max(flush_bytes, 4) // 4, dtype=torch.float32, device="cuda")
    for _ in range(5):
        call()
    torch.cuda.synchronize()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(RUNS)]
    for begin, end in events:
        if flush_bytes:
            flush.zero_()
        begin.record()
        call()
        end.record()
    torch.cuda.synchronize()
    return statistics.median(begin.elapsed_time(end) * 1e3 for begin, end in events)


def catalog(build):
    """The ops whose benchmark was built, in the order of ops/CMakeLists.txt."""
    order = [line.strip()[len("add_subdirectory("):-1] for line in (pathlib.Path("ops") / "CMakeLists.txt").read_text().splitlines()
             if line.strip().startswith("add_subdirectory(")]
    return [op for op in order if (build / "ops" / op / f"bench_kernelgen_{op}").exists()]


def pin_precision():
    """The baseline's precision, pinned: f32 products in f32 (TF32 off, cuBLAS's and cuDNN's), and f16 and bf16
    products summed in f32 throughout, a split-K's partial sums included (PyTorch allows them reduced precision by
    default)."""
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", type=pathlib.Path, default=pathlib.Path("build"))
    parser.add_argument("--ops", help="comma-separated ops (default: every catalog op built)")
    parser.add_argument("--peaks", type=pathlib.Path, help="kernelgen's device_peaks.json, for %% of peak")
    parser.add_argument("--chosen-only", action="store_true",
                        help="time only the kernel this GPU runs, not the op's other variants and portable kernel")
    parser.add_argument("--processes", type=int, default=2,
                        help="runs of each benchmark process; the table takes the smaller median (default 2)")
    args = parser.parse_args()
    pin_precision()
    flush_bytes = int(os.environ.get("KERNELGEN_TIMING_FLUSH_MB", "256")) << 20
    peaks = None
    if args.peaks and args.peaks.exists():
        peaks = next(iter(json.loads(args.peaks.read_text()).values()), None)
    ops = args.ops.split(",") if args.ops else catalog(args.build)

    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}, flush {flush_bytes >> 20} MiB")
    print()
    print("| op | size | kernelgen us | PyTorch us | GB/s | GFLOP/s | % of peak | ratio |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    apart = []
    for op in ops:
        spec = json.loads((args.build / "kernelgen" / op / "spec.json").read_text())
        dims = torch_ops.bench_dims(spec)
        size = " ".join(f"{k}={v}" for k, v in dims.items()) or "x".join(
            str(e) for e in spec["inputs"][0]["shape"])
        # An op with VARIANTS: the kernel this GPU runs (named by the benchmark's label), each other variant this
        # GPU runs (a variant it cannot run times the portable kernel, and is left out below), then its own kernel.
        runs = [(op, None)]
        names = [variant["name"] for variant in spec.get("variants", [])]
        if not args.chosen_only:
            runs += [(f"{op} ({name})", name) for name in names[1:]]
            if names:
                runs.append((f"{op} (portable kernel)", "none"))
        for label, variant in runs:
            try:
                processes = [kernelgen_time(args.build, op, variant) for _ in range(max(args.processes, 1))]
            except (subprocess.CalledProcessError, KeyError, IndexError, json.JSONDecodeError) as failure:
                print(f"| {label} | {size} | failed: {failure} | | | | | |")
                continue
            ours_us, bytes_per_s, flop_per_s, bench_label = min(processes, key=lambda process: process[0])
            medians = [process[0] for process in processes]
            ran = bench_label.split("variant ")[1].split(",")[0] if "variant " in bench_label else None
            if variant is None and ran:
                label = f"{op} ({ran})"
            if variant not in (None, "none") and ran != variant:
                continue
            inputs = torch_ops.make_inputs(spec, dims, "cuda")
            call = torch_ops.op_callable(op, spec, inputs)
            theirs_us = torch_time(call, flush_bytes) if call else float("nan")
            del inputs
            torch.cuda.empty_cache()
            gbps, gflops = bytes_per_s / 1e9, flop_per_s / 1e9
            peak = ""
            if peaks:
                peak = f"{100 * max(gbps / peaks['gbytes_per_second'], gflops / peaks['gflops']):.1f}%"
            print(f"| {label} | {size} | {ours_us:.1f} | {theirs_us:.1f} | {gbps:.0f} | {gflops:.0f} | {peak} | "
                  f"{theirs_us / ours_us:.2f} |", flush=True)
            if max(medians) > 1.2 * min(medians):
                apart.append(f"{label}: " + ", ".join(f"{median:.1f}" for median in medians) + " us")
                # At once as well, for a run cut short before the footnotes.
                print(f"compare.py: {apart[-1]}, more than 20% apart", file=sys.stderr, flush=True)
    if apart:
        print()
        print("Processes whose medians differ by more than 20% (the table takes the smaller):")
        for line in apart:
            print(f"- {line}")


if __name__ == "__main__":
    main()
