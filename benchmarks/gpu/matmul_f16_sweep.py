#!/usr/bin/env python3
"""Variants of matmul_f16's coopmat kernel (generated/matmul_f16/variants/coopmat/kernel.comp) for a sweep on the
GPU machine: its tile constants replaced, optionally with the workgroups ordered in groups of rows for the L2
(VARIANTS), and kernels that load their operands straight from the tensors, without shared memory (DIRECT).

    matmul_f16_sweep.py OUT_DIR     writes OUT_DIR/<name>.comp for each variant below and prints their names

Each variant is a whole kernel: `kernelgen validate --spec <matmul_f16 spec> --kernel OUT_DIR/<name>.comp --time 31`
validates it and times it at BENCH_DIMS; benchmarks/gpu/sweep_matmul_f16.sh runs them all on the GPU machine.
"""
import pathlib
import re
import sys

SOURCE = pathlib.Path(__file__).resolve().parents[2] / "generated/matmul_f16/variants/coopmat/kernel.comp"

# name: (BM, BN, BK, subgroup rows, subgroup columns, LN (the product's n: 8 or 16), row group for the L2 or 0)
VARIANTS = {
    "checked_in": (128, 128, 64, 2, 4, 8, 0),
    "ln16": (128, 128, 64, 2, 4, 16, 0),
    "grouped8": (128, 128, 64, 2, 4, 8, 8),
    "ln16_grouped8": (128, 128, 64, 2, 4, 16, 8),
    "sg4x2": (128, 128, 64, 4, 2, 8, 0),
    "sg4x2_ln16": (128, 128, 64, 4, 2, 16, 0),
    "k32_ln16": (128, 128, 32, 2, 4, 16, 0),
    "n256_k32_ln16": (128, 256, 32, 2, 4, 16, 0),
    "m256_k32_ln16": (256, 128, 32, 4, 2, 16, 0),
    "m64_4sg_ln16": (64, 128, 64, 2, 2, 16, 0),
    "n64_4sg_ln16": (128, 64, 64, 2, 2, 16, 0),
    "m64_4sg_k32_ln16": (64, 128, 32, 2, 2, 16, 0),
    # 4 subgroups on the 128x128 tile, 64x64 each: half the fragment loads per product of the 2x4 layout, and
    # 128 invocations, so that two workgroups may share a multiprocessor.
    "sg2x2": (128, 128, 64, 2, 2, 8, 0),
    "sg2x2_ln16": (128, 128, 64, 2, 2, 16, 0),
    "sg2x2_k32": (128, 128, 32, 2, 2, 8, 0),
    "sg2x2_k32_ln16": (128, 128, 32, 2, 2, 16, 0),
    "sg2x2_grouped8": (128, 128, 64, 2, 2, 8, 8),
    # 16 subgroups (512 invocations): twice the warps per multiprocessor to hide the loads' latency behind, each
    # with a quarter of the 128x128 tile's accumulators of the 2x4 layout's (32x32), or, on tiles of 256x128 and
    # 128x256 (k 32, to fit the 48 KiB), half of them (64x32, 32x64) and a third less traffic per product from the L2.
    "sg4x4": (128, 128, 64, 4, 4, 8, 0),
    "sg4x4_ln16": (128, 128, 64, 4, 4, 16, 0),
    "m256_sg4x4_k32": (256, 128, 32, 4, 4, 8, 0),
    "m256_sg4x4_k32_ln16": (256, 128, 32, 4, 4, 16, 0),
    "n256_sg4x4_k32": (128, 256, 32, 4, 4, 8, 0),
    "m256_sg8x2_k32": (256, 128, 32, 8, 2, 8, 0),
    "m256_sg4x4_k32_grouped8": (256, 128, 32, 4, 4, 8, 8),
}

GROUPED = """  // Workgroups in groups of {group} tile rows, column by column within a group: neighbours in launch order
  // share slices of a and b in the L2.
  uint gx = gl_NumWorkGroups.x, gy = gl_NumWorkGroups.y, id = gl_WorkGroupID.y * gx + gl_WorkGroupID.x;
  uint per_group = {group}u * gx, first = (id / per_group) * {group}u, rows = min(gy - first, {group}u);
  row0 = (first + (id % per_group) % rows) * BM;
  col0 = ((id % per_group) / rows) * BN;
"""


def variant(source, bm, bn, bk, sg_rows, sg_cols, ln, group):
    threads = sg_rows * sg_cols * 32
    shared = (bm * (bk // 8 + 1) + bk * (bn // 8 + 1)) * 16 + (threads // 32) * 16 * ln * 2
    if shared > 48 * 1024:
        raise ValueError(f"{shared} bytes of shared memory")
    return retile(source, SOURCE, bm, bn, bk, sg_rows, sg_cols, ln, group)


def retile(source, origin, bm, bn, bk, sg_rows, sg_cols, ln, group):
    """`source` (the kernel read from `origin`) with its tile constants, workgroup size and dispatch replaced, and
    its workgroups ordered in groups of `group` tile rows where `group` is not 0: the GEMM kernels' shared shape
    (BM, BN, BK, LM/LN/LK, SG_ROWS/SG_COLS, row0/col0 from the workgroup id)."""
    threads = sg_rows * sg_cols * 32
    if (bm * bk // 8) % threads or (bk * bn // 8) % threads:
        raise ValueError("loads do not divide among the invocations")
    replace = [
        (r"const uint BM = \d+u, BN = \d+u, BK = \d+u;", f"const uint BM = {bm}u, BN = {bn}u, BK = {bk}u;"),
        (r"const uint LM = 16u, LN = \d+u, LK = 16u;", f"const uint LM = 16u, LN = {ln}u, LK = 16u;"),
        (r"const uint SG_ROWS = \d+u, SG_COLS = \d+u,", f"const uint SG_ROWS = {sg_rows}u, SG_COLS = {sg_cols}u,"),
        (r"layout\(local_size_x = \d+\) in;", f"layout(local_size_x = {threads}) in;"),
        (r"// kernelgen: dispatch .*", f"// kernelgen: dispatch (n + {bn - 1}) / {bn} (m + {bm - 1}) / {bm} 1"),
    ]
    for pattern, text in replace:
        source, count = re.subn(pattern, text, source)
        if count != 1:
            raise ValueError(f"{pattern} matched {count} times in {origin}")
    if group:
        tiles = "  row0 = gl_WorkGroupID.y * BM;\n  col0 = gl_WorkGroupID.x * BN;\n"
        if tiles not in source:
            raise ValueError(f"no tile assignment to replace in {origin}")
        source = source.replace(tiles, GROUPED.format(group=group))
    return source


# Every subgroup loads its cooperative-matrix operands straight from the tensors (the L1 and L2 serve the
# subgroups that share them), with no shared memory and no barrier; tiles not wholly inside c, or k not a multiple
# of 16, take a plain loop of one output per invocation at a time.
DIRECT = """#version 450
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require
// kernelgen: dispatch (n + {bn1}) / {bn} (m + {bm1}) / {bm} 1
layout(local_size_x = {threads}) in;
layout(push_constant) uniform Dims {{ uint m; uint k; uint n; }} dims;
layout(set = 0, binding = 0, std430) readonly buffer A {{ float16_t a[]; }};
layout(set = 0, binding = 1, std430) readonly buffer B {{ float16_t b[]; }};
layout(set = 0, binding = 2, std430) writeonly buffer C {{ float16_t c[]; }};
const uint BM = {bm}u, BN = {bn}u, LM = 16u, LN = {ln}u, LK = 16u, UNROLL = {unroll}u;
const uint SG_ROWS = {sg_rows}u, SG_COLS = {sg_cols}u, NT = SG_ROWS * SG_COLS * 32u;
const uint WM = BM / SG_ROWS, WN = BN / SG_COLS, CR = WM / LM, CC = WN / LN;
void main() {{
  uint M = dims.m, K = dims.k, N = dims.n;
  uint row0 = gl_WorkGroupID.y * BM, col0 = gl_WorkGroupID.x * BN, t = gl_LocalInvocationID.x;
  if (K % (LK * UNROLL) != 0u || N % 8u != 0u || row0 + BM > M || col0 + BN > N) {{
    for (uint e = t; e < BM * BN; e += NT) {{
      uint r = row0 + e / BN, col = col0 + e % BN;
      if (r >= M || col >= N) continue;
      float sum = 0.0;
      for (uint kk = 0u; kk < K; ++kk) sum += float(a[r * K + kk]) * float(b[kk * N + col]);
      c[r * N + col] = float16_t(sum);
    }}
    return;
  }}
  uint sg = t / 32u, sr = sg / SG_COLS, sc = sg % SG_COLS;
  uint r0 = row0 + sr * WM, c0 = col0 + sc * WN;
  fcoopmatNV<32, gl_ScopeSubgroup, LM, LN> acc[CR][CC];
  [[unroll]] for (uint i = 0u; i < CR; ++i)
    [[unroll]] for (uint j = 0u; j < CC; ++j) acc[i][j] = fcoopmatNV<32, gl_ScopeSubgroup, LM, LN>(0.0);
  for (uint k0 = 0u; k0 < K; k0 += LK * UNROLL) {{
    [[unroll]] for (uint u = 0u; u < UNROLL; ++u) {{
      uint kk = k0 + u * LK;
      fcoopmatNV<16, gl_ScopeSubgroup, LM, LK> ma[CR];
      [[unroll]] for (uint i = 0u; i < CR; ++i) coopMatLoadNV(ma[i], a, (r0 + i * LM) * K + kk, K, false);
      [[unroll]] for (uint j = 0u; j < CC; ++j) {{
        fcoopmatNV<16, gl_ScopeSubgroup, LK, LN> mb;
        coopMatLoadNV(mb, b, kk * N + c0 + j * LN, N, false);
        [[unroll]] for (uint i = 0u; i < CR; ++i) acc[i][j] = coopMatMulAddNV(ma[i], mb, acc[i][j]);
      }}
    }}
  }}
  [[unroll]] for (uint i = 0u; i < CR; ++i)
    [[unroll]] for (uint j = 0u; j < CC; ++j)
      coopMatStoreNV(fcoopmatNV<16, gl_ScopeSubgroup, LM, LN>(acc[i][j]), c, (r0 + i * LM) * N + c0 + j * LN, N, false);
}}
"""

# name: (BM, BN, subgroup rows, subgroup columns, LN, k steps of 16 unrolled)
DIRECT_VARIANTS = {
    "direct_2x4_ln8_u2": (128, 128, 2, 4, 8, 2),
    "direct_2x4_ln16_u2": (128, 128, 2, 4, 16, 2),
    "direct_2x2_ln16_u2": (64, 64, 2, 2, 16, 2),
    "direct_2x4_ln8_u4": (128, 128, 2, 4, 8, 4),
}


def direct(bm, bn, sg_rows, sg_cols, ln, unroll):
    return DIRECT.format(bm=bm, bn=bn, bm1=bm - 1, bn1=bn - 1, threads=sg_rows * sg_cols * 32, ln=ln,
                         unroll=unroll, sg_rows=sg_rows, sg_cols=sg_cols)


def write_variants(out, variants, make):
    """Writes out/<name>.comp = make(*parameters) for each named variant and prints the names."""
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for name, parameters in variants.items():
        (out / f"{name}.comp").write_text(make(*parameters))
        print(name)


def main():
    source = SOURCE.read_text()
    write_variants(sys.argv[1], VARIANTS, lambda *parameters: variant(source, *parameters))
    write_variants(sys.argv[1], DIRECT_VARIANTS, direct)


if __name__ == "__main__":
    main()
