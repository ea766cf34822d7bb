#!/usr/bin/env python3
"""PyTorch's side of issue 9's latency comparison: the wall time of one op + torch.cuda.synchronize() on the
GPU, for relu, add and matmul at the sizes issue 9 measured (their BENCH_DIMS then, their CPU_BENCH_DIMS in
ops/<op>/CMakeLists.txt now: the latency of small calls), next to bench_kernelgen_<op>'s
BM_<op>_wrapper_call. Also the GPU time from CUDA events, and the throughput of calls queued without a
synchronize between them (next to BM_<op>_submit_in_flight).

    python3 benchmarks/pytorch_op_sync.py [--repeats 2000]
"""
import argparse
import statistics
import time

import torch


def ops(device):
    relu_x = torch.zeros(1024 * 8 * 16 * 16, device=device)
    relu_y = torch.empty_like(relu_x)
    add_x = torch.zeros(4096, 1024, device=device)
    add_y = torch.zeros_like(add_x)
    add_z = torch.empty_like(add_x)
    mm_a = torch.zeros(256, 256, device=device)
    mm_b = torch.zeros(256, 256, device=device)
    mm_c = torch.empty(256, 256, device=device)
    return {
        "relu": lambda: torch.clamp(relu_x, min=0, out=relu_y),
        "add": lambda: torch.add(add_x, add_y, out=add_z),
        "matmul": lambda: torch.mm(mm_a, mm_b, out=mm_c),
    }


def median_us(samples):
    return statistics.median(samples) * 1e6


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=2000)
    args = parser.parse_args()
    device = torch.device("cuda")
    print(f"device: {torch.cuda.get_device_name(device)}, torch {torch.__version__}")
    for name, op in ops(device).items():
        for _ in range(200):  # warm-up: allocator, kernels loaded, clocks up
            op()
        torch.cuda.synchronize()
        wall = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            op()
            torch.cuda.synchronize()
            wall.append(time.perf_counter() - start)
        begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        gpu = []
        for _ in range(200):
            begin.record()
            op()
            end.record()
            end.synchronize()
            gpu.append(begin.elapsed_time(end) * 1e-3)
        start = time.perf_counter()
        for _ in range(args.repeats):
            op()
        torch.cuda.synchronize()
        queued = (time.perf_counter() - start) / args.repeats
        print(f"pytorch {name:7s} op+synchronize median {median_us(wall):8.2f} us   "
              f"gpu (events) median {median_us(gpu):8.2f} us   queued without synchronize {queued * 1e6:8.2f} us/call")


if __name__ == "__main__":
    main()
