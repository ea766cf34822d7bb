#!/usr/bin/env python3
"""The decoder block of examples/decoder_block in PyTorch, eager and under torch.compile, on the same weights.

Reads the safetensors file `decoder_block bench` wrote (model.layers.0.* in Hugging Face's names, projections f16
[out, in], norms f32) and times one step with CUDA events, in f16 throughout (the activations too, as a
model.half() Llama runs):
- a prefill of `--tokens` tokens (`--past 0`), the attention through scaled_dot_product_attention(is_causal=True);
- a decode step of `--tokens` tokens after `--past` tokens: the new keys and values written into a preallocated f16
  KV cache (as Hugging Face's StaticCache does), then scaled_dot_product_attention over the cache's first
  past + tokens positions.
Prints one JSON object: the medians in microseconds.

Usage: decoder_block_torch.py --weights llama.safetensors --tokens 512 [--past 0] [--heads 32] [--iterations 50]
"""
import argparse
import json
import pathlib
import statistics
import struct
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "compare"))
import compare  # noqa: E402

DTYPES = {"F16": torch.float16, "F32": torch.float32}


def read_safetensors(path, device):
    with open(path, "rb") as f:
        (length,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(length))
        data = f.read()
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        t = torch.frombuffer(bytearray(data[begin:end]), dtype=DTYPES[entry["dtype"]]).reshape(entry["shape"])
        tensors[name.removeprefix("model.layers.0.")] = t.to(device)
    return tensors


def rope_tables(tokens, head_dim, theta, device):
    inv = theta ** (-torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim)
    angles = torch.arange(tokens, dtype=torch.float64)[:, None] * inv[None, :]
    emb = torch.cat([angles, angles], dim=-1)
    return emb.cos().to(device, torch.float16), emb.sin().to(device, torch.float16)


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat([-x2, x1], dim=-1)


def make_block(w, heads, eps, cos, sin, past=0, k_cache=None, v_cache=None):
    def rms_norm(x, weight):
        variance = x.float().pow(2).mean(-1, keepdim=True)
        return (x.float() * torch.rsqrt(variance + eps)).to(x.dtype) * weight

    def block(x):
        tokens, hidden = x.shape
        head_dim = hidden // heads
        h = rms_norm(x, w["input_layernorm.weight"])
        q = F.linear(h, w["self_attn.q_proj.weight"]).view(tokens, heads, head_dim).transpose(0, 1)
        k = F.linear(h, w["self_attn.k_proj.weight"]).view(tokens, heads, head_dim).transpose(0, 1)
        v = F.linear(h, w["self_attn.v_proj.weight"]).view(tokens, heads, head_dim).transpose(0, 1)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        if k_cache is None:
            a = F.scaled_dot_product_attention(q[None], k[None], v[None], is_causal=True)[0]
        else:  # the cache is [heads, capacity, head_dim]; the new tokens go at past..
            k_cache[:, past:past + tokens] = k
            v_cache[:, past:past + tokens] = v
            keys, values = k_cache[:, :past + tokens], v_cache[:, :past + tokens]
            mask = None
            if tokens > 1:  # query t sees positions up to past + t
                mask = torch.ones(tokens, past + tokens, dtype=torch.bool, device=x.device).tril(past)
            a = F.scaled_dot_product_attention(q[None], keys[None], values[None], attn_mask=mask)[0]
        x = x + F.linear(a.transpose(0, 1).reshape(tokens, hidden), w["self_attn.o_proj.weight"])
        h = rms_norm(x, w["post_attention_layernorm.weight"])
        g = F.silu(F.linear(h, w["mlp.gate_proj.weight"])) * F.linear(h, w["mlp.up_proj.weight"])
        return x + F.linear(g, w["mlp.down_proj.weight"])

    return block


def time_us(fn, x, iterations):
    """Medians of the CUDA-event span and of the host's call-to-synchronize time, in microseconds."""
    for _ in range(5):
        fn(x)
    torch.cuda.synchronize()
    events, walls = [], []
    for _ in range(iterations):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        began = time.perf_counter()
        start.record()
        fn(x)
        stop.record()
        stop.synchronize()
        walls.append((time.perf_counter() - began) * 1e6)
        events.append(start.elapsed_time(stop) * 1000.0)
    return statistics.median(events), statistics.median(walls)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--weights", required=True)
    parser.add_argument("--tokens", type=int, default=512)
    parser.add_argument("--past", type=int, default=0)
    parser.add_argument("--heads", type=int, default=32)
    parser.add_argument("--theta", type=float, default=500000.0)
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--no-compile", action="store_true")
    args = parser.parse_args()
    compare.pin_precision()
    device = torch.device("cuda")
    w = read_safetensors(args.weights, device)
    w = {name: t.to(torch.float16) for name, t in w.items()}  # the norms too: f16 throughout, as model.half()
    hidden = w["self_attn.q_proj.weight"].shape[0]
    head_dim = hidden // args.heads
    cos, sin = rope_tables(args.past + args.tokens, head_dim, args.theta, device)
    cos, sin = cos[args.past:], sin[args.past:]
    k_cache = v_cache = None
    if args.past > 0:
        shape = (args.heads, args.past + args.tokens, head_dim)
        k_cache = torch.randn(shape, device=device, dtype=torch.float16)
        v_cache = torch.randn(shape, device=device, dtype=torch.float16)
    block = make_block(w, args.heads, 1e-6, cos, sin, args.past, k_cache, v_cache)
    x = (torch.rand(args.tokens, hidden, device=device) * 2 - 1).to(torch.float16)
    out = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "tokens": args.tokens,
           "past": args.past}
    with torch.inference_mode():
        out["eager_us"], out["eager_wall_us"] = time_us(block, x, args.iterations)
        if not args.no_compile:
            try:
                compiled = torch.compile(block)
                out["compile_us"], out["compile_wall_us"] = time_us(compiled, x, args.iterations)
            except Exception as e:  # noqa: BLE001 - report why, keep the eager figure
                out["compile_error"] = f"{type(e).__name__}: {e}"[:300]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
