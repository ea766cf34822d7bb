#!/usr/bin/env python3
"""The timings a GPU check-in just recorded (each kernel's and variant's manifest.json: GPU timestamps at BENCH_DIMS,
median of 31 runs, each after a 256 MiB flush of the L2) beside PyTorch timed the same way in the same process
(benchmarks/compare/compare.py's torch_time), for ops whose kernels benchmarks/gpu/check_in_on_gpu.sh checked in
on this machine a moment before, without a build of their benchmarks.

    checked_in_beside_torch.py SPEC_DIR OP...     (SPEC_DIR/<op>/spec.json, as the kit of pack_kit.sh holds them)
"""
import json
import pathlib
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "compare"))
import compare  # noqa: E402
import torch_ops  # noqa: E402


def manifests(spec):
    """(label, manifest) of the op's kernel and of each checked-in variant, in the spec's order of preference."""
    generated = pathlib.Path(spec["generated_dir"])
    rows = [(f"{variant['name']}", generated / "variants" / variant["name"] / "manifest.json")
            for variant in spec.get("variants", [])]
    rows.append(("portable kernel", generated / "manifest.json"))
    return [(label, json.loads(path.read_text())) for label, path in rows if path.exists()]


def main():
    spec_dir, ops = pathlib.Path(sys.argv[1]), sys.argv[2:]
    compare.pin_precision()
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    print("| op | kernel | size | kernelgen us | PyTorch us | TFLOP/s | ratio | timed on |")
    print("|---|---|---|---:|---:|---:|---:|---|")
    for op in ops:
        spec = json.loads((spec_dir / op / "spec.json").read_text())
        dims = torch_ops.bench_dims(spec)
        call = torch_ops.op_callable(op, spec, torch_ops.make_inputs(spec, dims, "cuda"))
        theirs = compare.torch_time(call, 256 << 20) if call else float("nan")
        torch.cuda.empty_cache()
        for label, manifest in manifests(spec):
            timing = manifest.get("timing") or {}
            ours = (timing.get("median_ns") or float("nan")) / 1e3
            print(f"| {op} | {label} | {timing.get('dims', '')} | {ours:.1f} | {theirs:.1f} | "
                  f"{(timing.get('gflops') or 0) / 1e3:.1f} | {theirs / ours:.2f} | {timing.get('device', '')} |",
                  flush=True)


if __name__ == "__main__":
    main()
