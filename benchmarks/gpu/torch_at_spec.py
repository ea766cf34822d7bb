#!/usr/bin/env python3
"""One catalog op in PyTorch at its BENCH_DIMS or at dims given on the command line, timed as compare.py times
it (CUDA events, the caches flushed before each of 31 runs, the median; its precision pinned as there): the
PyTorch side of a comparison whose kernelgen side is `kernelgen validate --time 31` of a kernel, for ops or sizes
that have no benchmark binary on the GPU machine.

    python3 benchmarks/gpu/torch_at_spec.py <build>/kernelgen/gemv_f16/spec.json m=16

Prints one line: the op, its dims and the median in microseconds.
"""
import json
import os
import pathlib
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "compare"))
import compare  # noqa: E402
import torch_ops  # noqa: E402


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    spec = json.loads(pathlib.Path(sys.argv[1]).read_text())
    dims = torch_ops.bench_dims(spec)
    for setting in sys.argv[2:]:
        name, _, value = setting.partition("=")
        if name not in dims or not value.isdigit():
            sys.exit(f"{setting}: expected <dim>=<size> for one of {', '.join(dims)}")
        dims[name] = int(value)
    compare.pin_precision()
    call = torch_ops.op_callable(spec["name"], spec, torch_ops.make_inputs(spec, dims, "cuda"))
    if call is None:
        sys.exit(f"{spec['name']}: benchmarks/compare/torch_ops.py has no PyTorch call for it")
    flush_bytes = int(os.environ.get("KERNELGEN_TIMING_FLUSH_MB", "256")) << 20
    median = compare.torch_time(call, flush_bytes)
    print(f"torch {spec['name']} {' '.join(f'{k}={v}' for k, v in dims.items())}: {median:.1f} us")


if __name__ == "__main__":
    main()
