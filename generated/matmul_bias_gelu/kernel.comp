#version 450
#extension GL_EXT_control_flow_attributes : require
// c = gelu(a b + bias): a register-blocked, shared-memory tiled SGEMM with the bias and GELU fused into the
// store. A 16x16 workgroup computes a 128x128 tile of c; invocation (x, y) owns an 8x8 block of it: rows
// 4y..4y+3 and 64+4y..64+4y+3, columns 4x..4x+3 and 64+4x..64+4x+3, so its loads from shared memory and its
// stores to c are vec4s. k advances 16 at a time: the workgroup stages a 128x16 tile of a (transposed, As[k][row])
// and a 16x128 tile of b (Bs[k][col]) in shared memory; each step of k is 4 vec4 loads from shared memory for
// 64 multiply-adds. The next tiles are loaded from global memory into registers while the current ones are used.
// Loads are vec4s when k (for a) or n (for b) is a multiple of 4, else guarded scalars; everything past an edge
// is staged as 0. The epilogue adds bias[col] and applies GELU's tanh approximation in the form
// 0.5 x (1 + tanh(u)) = x / (1 + exp(-2u)), u = sqrt(2/pi) (x + 0.044715 x^3): exp(-2u) is inf for very negative
// x (giving -0) and 0 for large x (giving x), never inf / inf for a finite x.
// kernelgen: dispatch (n + 127) / 128 (m + 127) / 128 1
layout(local_size_x = 16, local_size_y = 16) in;
layout(push_constant) uniform Dims { uint m; uint k; uint n; } dims;
layout(set = 0, binding = 0, std430) readonly buffer A { vec4 a4[]; };
layout(set = 0, binding = 1, std430) readonly buffer B { vec4 b4[]; };
layout(set = 0, binding = 2, std430) readonly buffer Bias { vec4 bias4[]; };
layout(set = 0, binding = 3, std430) writeonly buffer C { vec4 c4[]; };

const uint BM = 128u, BN = 128u, BK = 16u;
shared vec4 As[BK][BM / 4u];  // As[kk][r / 4][r % 4] = a[row0 + r][k0 + kk]
shared vec4 Bs[BK][BN / 4u];  // Bs[kk][c / 4][c % 4] = b[k0 + kk][col0 + c]

uint M, K, N, row0, col0, t;

// Staging: 512 vec4s of each tile, two per invocation. For a, element idx is row idx % 128 and k-quad idx / 128
// (consecutive invocations, consecutive rows: conflict-free transposed stores); for b, k-row idx / 32 and
// column quad idx % 32 (coalesced).
vec4 load_a(uint idx, uint k0) {
  uint r = row0 + (idx & 127u), kq = (k0 >> 2) + (idx >> 7);
  if (r >= M) return vec4(0.0);
  if ((K & 3u) == 0u) return kq < (K >> 2) ? a4[r * (K >> 2) + kq] : vec4(0.0);
  vec4 v = vec4(0.0);
  [[unroll]] for (uint j = 0u; j < 4u; ++j) {
    uint kk = kq * 4u + j, e = r * K + kk;
    if (kk < K) v[j] = a4[e >> 2][e & 3u];
  }
  return v;
}

vec4 load_b(uint idx, uint k0) {
  uint kk = k0 + (idx >> 5), cq = (col0 >> 2) + (idx & 31u);
  if (kk >= K) return vec4(0.0);
  if ((N & 3u) == 0u) return cq < (N >> 2) ? b4[kk * (N >> 2) + cq] : vec4(0.0);
  vec4 v = vec4(0.0);
  [[unroll]] for (uint j = 0u; j < 4u; ++j) {
    uint c = cq * 4u + j, e = kk * N + c;
    if (c < N) v[j] = b4[e >> 2][e & 3u];
  }
  return v;
}

vec4 gelu(vec4 x) {
  vec4 u = 0.7978845608 * (x + 0.044715 * x * x * x);
  return x / (1.0 + exp(-2.0 * u));
}

void main() {
  M = dims.m; K = dims.k; N = dims.n;
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
  t = ty * 16u + tx;
  row0 = gl_WorkGroupID.y * BM;
  col0 = gl_WorkGroupID.x * BN;

  vec4 acc[8][2];
  [[unroll]] for (uint i = 0u; i < 8u; ++i) { acc[i][0] = vec4(0.0); acc[i][1] = vec4(0.0); }

  vec4 ra0 = load_a(t, 0u), ra1 = load_a(t + 256u, 0u);
  vec4 rb0 = load_b(t, 0u), rb1 = load_b(t + 256u, 0u);
  for (uint k0 = 0u; k0 < K; k0 += BK) {
    // Stage the tiles held in registers.
    uint r = t & 127u, q = t >> 7;  // a: idx t and t + 256 share r, k-quads q and q + 2
    [[unroll]] for (uint j = 0u; j < 4u; ++j) {
      As[q * 4u + j][r >> 2][r & 3u] = ra0[j];
      As[(q + 2u) * 4u + j][r >> 2][r & 3u] = ra1[j];
    }
    Bs[t >> 5][t & 31u] = rb0;
    Bs[(t >> 5) + 8u][t & 31u] = rb1;
    barrier();
    // Fetch the next tiles while this one is used.
    if (k0 + BK < K) {
      ra0 = load_a(t, k0 + BK); ra1 = load_a(t + 256u, k0 + BK);
      rb0 = load_b(t, k0 + BK); rb1 = load_b(t + 256u, k0 + BK);
    }
    [[unroll]] for (uint kk = 0u; kk < BK; ++kk) {
      vec4 a0 = As[kk][ty], a1 = As[kk][16u + ty];
      vec4 b0 = Bs[kk][tx], b1 = Bs[kk][16u + tx];
      acc[0][0] += a0.x * b0; acc[0][1] += a0.x * b1;
      acc[1][0] += a0.y * b0; acc[1][1] += a0.y * b1;
      acc[2][0] += a0.z * b0; acc[2][1] += a0.z * b1;
      acc[3][0] += a0.w * b0; acc[3][1] += a0.w * b1;
      acc[4][0] += a1.x * b0; acc[4][1] += a1.x * b1;
      acc[5][0] += a1.y * b0; acc[5][1] += a1.y * b1;
      acc[6][0] += a1.z * b0; acc[6][1] += a1.z * b1;
      acc[7][0] += a1.w * b0; acc[7][1] += a1.w * b1;
    }
    barrier();
  }

  // Epilogue: bias, GELU, guarded stores (vec4s when n is a multiple of 4).
  [[unroll]] for (uint h = 0u; h < 2u; ++h) {
    uint col = col0 + h * 64u + tx * 4u;
    if (col >= N) continue;
    vec4 bv = vec4(0.0);
    if ((N & 3u) == 0u) {
      bv = bias4[col >> 2];
    } else {
      for (uint j = 0u; j < 4u && col + j < N; ++j) bv[j] = bias4[(col + j) >> 2][(col + j) & 3u];
    }
    [[unroll]] for (uint i = 0u; i < 8u; ++i) {
      uint row = row0 + (i < 4u ? ty * 4u + i : 64u + ty * 4u + (i - 4u));
      if (row >= M) continue;
      vec4 y = gelu(acc[i][h] + bv);
      if ((N & 3u) == 0u) {
        c4[(row * N + col) >> 2] = y;
      } else {
        for (uint j = 0u; j < 4u && col + j < N; ++j) {
          uint e = row * N + col + j;
          c4[e >> 2][e & 3u] = y[j];
        }
      }
    }
  }
}
