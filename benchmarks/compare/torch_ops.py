"""PyTorch's version of every catalog op (ops/<op>/reference.cpp), built from the op's spec.json at its BENCH_DIMS:
the same shapes and dtypes, the same parameters. Each entry returns a zero-argument callable that runs the op
once on tensors allocated beforehand, so that timing it times only the op.

Where PyTorch has the op as one call, that call is used (F.layer_norm, F.conv2d, F.scaled_dot_product_attention,
torch.argmax). A fusion is PyTorch's unfused sequence (conv2d, then + bias, then relu), which is what the fused
kernel competes with. PyTorch's argmax returns int64 where the catalog's op writes int32.
"""
import math

import torch
import torch.nn.functional as F

DTYPES = {"f32": torch.float32, "f16": torch.float16, "i32": torch.int32, "u32": torch.int32,
          "i8": torch.int8, "u8": torch.uint8, "bf16": torch.bfloat16}


def shape_at(tensor, dims):
    return [dims[extent] if isinstance(extent, str) else extent for extent in tensor["shape"]]


def bench_dims(spec):
    """BENCH_DIMS, else each dim's largest DIMS size (OpSpec::bench_dims)."""
    return {name: spec["bench_dims"].get(name, max(sizes)) for name, sizes in spec["dims"].items()}


def make_inputs(spec, dims, device):
    """The op's inputs at these dims: normal floats, and indices within their INDEX bound."""
    inputs = {}
    generator = torch.Generator(device=device).manual_seed(0)
    for tensor in spec["inputs"]:
        shape = shape_at(tensor, dims)
        dtype = DTYPES[tensor["dtype"]]
        if "index" in tensor:
            bound = tensor["index"]
            bound = dims[bound] if isinstance(bound, str) else bound
            inputs[tensor["name"]] = torch.randint(0, bound, shape, device=device, dtype=dtype, generator=generator)
        else:
            inputs[tensor["name"]] = torch.randn(shape, device=device, dtype=dtype, generator=generator)
    return inputs


def gelu_tanh(x):
    return F.gelu(x, approximate="tanh")


def op_callable(name, spec, inputs):
    """A callable running `name` once in PyTorch, or None for an op this file does not know."""
    t = list(inputs.values())
    p = spec.get("params", {})
    stride, padding = int(p.get("stride", 1)), int(p.get("padding", 0))
    table = {
        "relu": lambda: torch.relu(t[0]),
        "gelu": lambda: gelu_tanh(t[0]),
        "sigmoid": lambda: torch.sigmoid(t[0]),
        "silu": lambda: F.silu(t[0]),
        "add": lambda: torch.add(t[0], t[1]),
        "add_bf16": lambda: torch.add(t[0], t[1]),
        "mul": lambda: torch.mul(t[0], t[1]),
        "bias_add": lambda: t[0] + t[1].view(1, -1, 1, 1),
        "matmul": lambda: torch.mm(t[0], t[1]),
        "matmul_f16": lambda: torch.mm(t[0], t[1]),
        "matmul_bf16": lambda: torch.mm(t[0], t[1]),
        "bmm": lambda: torch.bmm(t[0], t[1]),
        "transpose": lambda: t[0].t().contiguous(),
        "sum_lastdim": lambda: torch.sum(t[0], dim=-1),
        "max_lastdim": lambda: torch.amax(t[0], dim=-1),
        "argmax": lambda: torch.argmax(t[0], dim=-1),
        "softmax": lambda: torch.softmax(t[0], dim=-1),
        "layernorm": lambda: F.layer_norm(t[0], t[0].shape[-1:], t[1], t[2], p.get("eps", 1e-5)),
        "rmsnorm": lambda: F.rms_norm(t[0], t[0].shape[-1:], t[1], p.get("eps", 1e-6)),
        "conv2d": lambda: F.conv2d(t[0], t[1], t[2], stride=stride, padding=padding),
        "conv2d_strided": lambda: F.conv2d(t[0], t[1], t[2], stride=stride, padding=padding),
        "depthwise_conv2d": lambda: F.conv2d(t[0], t[1].reshape(t[0].shape[1], 1, *t[1].shape[-2:]), None,
                                             stride=stride, padding=padding, groups=t[0].shape[1]),
        "maxpool2d": lambda: F.max_pool2d(t[0], int(p.get("kernel", 2)), int(p.get("stride", 2))),
        "conv2d_bias_relu": lambda: torch.relu(F.conv2d(t[0], t[1], stride=stride, padding=padding) +
                                               t[2].view(1, -1, 1, 1)),
        "matmul_bias_gelu": lambda: gelu_tanh(torch.mm(t[0], t[1]) + t[2]),
        "swiglu": lambda: F.silu(t[0]) * t[1],
        "gemv_f16": lambda: F.linear(t[0], t[1]),
        "attention_f16": lambda: F.scaled_dot_product_attention(t[0][None], t[1][None], t[2][None], is_causal=True),
        "attention_f16_d64": lambda: F.scaled_dot_product_attention(t[0][None], t[1][None], t[2][None],
                                                                     is_causal=True),
        "matmul_bias_silu_f16": lambda: F.silu(torch.addmm(t[2], t[0], t[1])),
        "gate_up_swiglu_f16": lambda: F.silu(F.linear(t[0], t[1])) * F.linear(t[0], t[2]),
        # x[t, h, p, i] * cos[t, p, i] + x[t, h, 1 - p, i] * sin[t, p, i]: flip(2) swaps the halves.
        "rope": lambda: t[0] * t[1][:, None] + t[0].flip(2) * t[2][:, None],
        "attention": lambda: F.scaled_dot_product_attention(t[0][None, None], t[1][None, None], t[2][None, None],
                                                            scale=1.0 / math.sqrt(t[0].shape[-1])),
    }
    if name == "decode_attention_f16":
        # One query per head over a cache of ctx x heads x 128: given to SDPA in its own layout, heads x ctx x 128,
        # arranged once outside the timed call (the same bytes read), so that PyTorch is timed at its best.
        q, k, v = t[0][None, :, None], t[1].transpose(0, 1).contiguous()[None], t[2].transpose(0, 1).contiguous()[None]
        return lambda: F.scaled_dot_product_attention(q, k, v)
    if name == "embedding":
        # F.embedding takes int64 indices: convert once, outside the timed call.
        ids = t[1].long()
        return lambda: F.embedding(ids, t[0])
    return table.get(name)
