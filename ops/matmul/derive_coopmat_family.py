#!/usr/bin/env python3
"""Writes bmm's and matmul_bias_gelu's coopmat variants from matmul's (ops/matmul/matmul_coopmat.comp): the same
kernel with a product per z of the dispatch (bmm), or with the bias and GELU applied as each result is stored
(matmul_bias_gelu), each with ACCEPTED 2^-18 for its tolerance of 1e-5. Edit matmul's kernel, then run this:

    python3 ops/matmul/derive_coopmat_family.py           writes ops/bmm/bmm_coopmat.comp and
                                                          ops/matmul_bias_gelu/matmul_bias_gelu_coopmat.comp
    python3 ops/matmul/derive_coopmat_family.py --check   exits 1 where either differs from what it would write

Each variant is then checked in again on a device with VK_NV_cooperative_matrix (kernelgen build-op).
"""
import pathlib
import sys

root = pathlib.Path(__file__).resolve().parents[2]
src = (root / "ops/matmul/matmul_coopmat.comp").read_text()
def apply(s, rep):
    """s with each (old, new, count) replaced, where old occurs exactly count times."""
    for a, b, n in rep:
        if s.count(a) != n:
            sys.exit(f"ops/matmul/matmul_coopmat.comp changed where a variant differs: {a[:80]!r} occurs "
                     f"{s.count(a)} times, not {n}; update {pathlib.Path(__file__).name}")
        s = s.replace(a, b)
    return s
start = src.index("// c[m x n] = a[m x k] * b[k x n] in f32")
end = src.index("// A workgroup of 8 subgroups of 32 computes")
accepted_old = """// The largest bound on the f16 parts' error that a result keeps, relative to its magnitude (absolute below 1):
// 2^-15, a third of matmul's TOLERANCE 1e-4, which leaves the rest to the sums' rounding (about 2^-20 relative,
// 2^-17 at worst at k = 4096: 128 slices' sums added in f32).
const float ACCEPTED = 3.0517578125e-05;"""

gelu_header = """// c[m x n] = gelu(a[m x k] * b[k x n] + bias[n]) in f32, row-major, on tensor cores (GL_NV_cooperative_matrix),
// hand-written: matmul_bias_gelu's variant for devices with VK_NV_cooperative_matrix. It is matmul's variant
// (ops/matmul/matmul_coopmat.comp, whose header says how f32 is emulated by f16 parts and how each tile bounds what
// those parts lose) with the bias and GELU's tanh approximation applied to each result as it is stored, in both
// paths. The bound is checked against the result before GELU (the sum plus its bias), with ACCEPTED 2^-18 rather
// than 2^-15: matmul_bias_gelu keeps f32's default tolerance 1e-5, and GELU's slope is at most 1.13.
//
"""
gelu = apply(src[:start] + gelu_header + src[end:], [
("layout(set = 0, binding = 2, std430) writeonly buffer C { float c[]; };",
 "layout(set = 0, binding = 2, std430) readonly buffer Bias { float bias[]; };\nlayout(set = 0, binding = 3, std430) writeonly buffer C { float c[]; };", 1),
(accepted_old, """// The largest bound on the f16 parts' error that a result keeps before GELU, relative to its magnitude (absolute
// below 1): 2^-18, which GELU's slope (at most 1.13) keeps under half of f32's default tolerance 1e-5, leaving the
// rest to the sums' rounding (about 2^-20 relative; 2^-17 at worst at k = 4096, as for any f32 GEMM there).
const float ACCEPTED = 3.814697265625e-06;""", 1),
("// The tile in f32 through shared memory", """// GELU's tanh approximation as 0.5 x (1 + tanh(u)) = x / (1 + exp(-2u)), u = sqrt(2/pi) (x + 0.044715 x^3):
// exp(-2u) is inf for very negative x (giving -0) and 0 for large x (giving x), never inf / inf for a finite x.
float gelu(float x) {
  float u = 0.7978845608 * (x + 0.044715 * x * x * x);
  return x / (1.0 + exp(-2.0 * u));
}

// The tile in f32 through shared memory""", 1),
("if (r < M && col < N) c[r * N + col] = sums[i][j];", "if (r < M && col < N) c[r * N + col] = gelu(sums[i][j] + bias[col]);", 1),
("""          float v = stage[sg][e];
          c[rr * N + cc] = v;""", """          float v = stage[sg][e] + bias[cc];
          c[rr * N + cc] = gelu(v);""", 1),
])
derived = {"ops/matmul_bias_gelu/matmul_bias_gelu_coopmat.comp": gelu}

bmm_header = """// c[i] = a[i] * b[i] for each of batch products, a[i] m x k, b[i] k x n, c[i] m x n, in f32, row-major, on tensor
// cores (GL_NV_cooperative_matrix), hand-written: bmm's variant for devices with VK_NV_cooperative_matrix. It is
// matmul's variant (ops/matmul/matmul_coopmat.comp, whose header says how f32 is emulated by f16 parts and how each
// tile bounds what those parts lose), one product per z of the dispatch: a, b and c start at that product's
// matrices. Its bound is held to 2^-18 (ACCEPTED), for bmm's tolerance of 1e-5. Its workgroup stays 256 x 1: the
// same kernel laid out 32 x 8 (gl_LocalInvocationIndex for the index) ran 2.9 times slower on the H100
// (benchmarks/RESULTS.md).
//
"""
bmm = apply(src[:start] + bmm_header + src[end:], [
("// kernelgen: dispatch (n + 127) / 128 (m + 127) / 128 1", "// kernelgen: dispatch (n + 127) / 128 (m + 127) / 128 batch", 1),
("layout(push_constant) uniform Dims { uint m; uint k; uint n; } dims;", "layout(push_constant) uniform Dims { uint batch; uint m; uint k; uint n; } dims;", 1),
("uint M, K, N, row0, col0;", "uint M, K, N, row0, col0;\nuint a_at, b_at, c_at;  // where this product's a, b and c start", 1),
("    uint e = (r * K + kk) / 4u;", "    uint e = (a_at + r * K + kk) / 4u;", 1),
("v[j] = r < M && kk + j < K ? a[r * K + kk + j] : 0.0;", "v[j] = r < M && kk + j < K ? a[a_at + r * K + kk + j] : 0.0;", 1),
("    uint e = (kk * N + col) / 4u;", "    uint e = (b_at + kk * N + col) / 4u;", 1),
("v[j] = kk < K && col + j < N ? b[kk * N + col + j] : 0.0;", "v[j] = kk < K && col + j < N ? b[b_at + kk * N + col + j] : 0.0;", 1),
("if (r < M && col < N) c[r * N + col] = sums[i][j];", "if (r < M && col < N) c[c_at + r * N + col] = sums[i][j];", 1),
("          c[rr * N + cc] = v;", "          c[c_at + rr * N + cc] = v;", 1),
("  col0 = gl_WorkGroupID.x * BN;\n", "  col0 = gl_WorkGroupID.x * BN;\n  a_at = gl_WorkGroupID.z * M * K;\n  b_at = gl_WorkGroupID.z * K * N;\n  c_at = gl_WorkGroupID.z * M * N;\n", 1),
(accepted_old, """// The largest bound on the f16 parts' error that a result keeps, relative to its magnitude (absolute below 1):
// 2^-18, under half of f32's default tolerance 1e-5, which bmm keeps (matmul declares 1e-4 and accepts 2^-15),
// leaving the rest to the sums' rounding (about 2^-20 relative).
const float ACCEPTED = 3.814697265625e-06;""", 1),
])
derived["ops/bmm/bmm_coopmat.comp"] = bmm

stale = [path for path, text in derived.items() if (root / path).read_text() != text]
if "--check" in sys.argv[1:]:
    for path in stale:
        print(f"{path} differs from what {pathlib.Path(__file__).name} derives from ops/matmul/matmul_coopmat.comp")
    sys.exit(1 if stale else 0)
for path in stale:
    (root / path).write_text(derived[path])
    print(f"wrote {path}")
