"""The GPU's measured copy bandwidth, the yardstick of a memory-bound kernel's fraction (benchmarks/RESULTS.md).

Copies a buffer of --mib MiB to another with torch (device to device), --runs times, each timed by CUDA events,
and prints one JSON object: the median time and the bandwidth counting both the bytes read and the bytes written.

    python3 benchmarks/gpu/copy_bandwidth.py --mib 1024 --runs 30
"""
import argparse
import json
import statistics

import torch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, default=1024, help="MiB copied per run")
    parser.add_argument("--runs", type=int, default=30, help="timed runs (the median is reported)")
    args = parser.parse_args()
    count = args.mib * 1024 * 1024 // 4
    source = torch.rand(count, device="cuda")
    target = torch.empty_like(source)
    target.copy_(source)  # warm up
    times_ms = []
    for _ in range(args.runs):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        target.copy_(source)
        end.record()
        end.synchronize()
        times_ms.append(start.elapsed_time(end))
    if not torch.equal(source, target):
        raise SystemExit("copy_bandwidth: the copy differs from its source")
    median_ms = statistics.median(times_ms)
    moved = 2 * count * 4  # read once, written once
    print(json.dumps({"device": torch.cuda.get_device_name(), "mib": args.mib, "runs": args.runs,
                      "median_us": round(median_ms * 1000, 1),
                      "gb_per_s": round(moved / (median_ms / 1000) / 1e9, 1)}))


if __name__ == "__main__":
    main()
