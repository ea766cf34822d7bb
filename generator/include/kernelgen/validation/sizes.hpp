#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "kernelgen/contract/op_spec.hpp"

namespace kernelgen {

// The tensors at a drawn size above DIMS take at most this many bytes together, and at most kDrawnSizeGrowth
// times what they take at the largest DIMS values: each dim comes down toward its largest DIMS value until they
// fit (a conv2d whose three dims all doubled would otherwise validate eight times as long, and the largest size
// is what a validation spends most of its time on).
constexpr int64_t kDrawnSizeBytes = int64_t{16} << 20;
constexpr double kDrawnSizeGrowth = 1.25;

// The sizes a kernel is validated at, {{}} for an op without dims:
// - every combination of the op's DIMS, each dim's list completed with 1 when it lacks it;
// - then, for each dim whose DIMS hold no ragged size (above the workgroup's widest extent, a multiple of none of
//   its extents above 1), ragged_size with every combination of the other dims' lists: one ragged dim at a time;
// - then sizes drawn from `seed` (so KERNELGEN_SEED replays them, and a fresh seed draws fresh ones):
//   - below: every dim a prime below half its largest DIMS value and none of them (below the largest value where
//     there is no such prime, the largest value itself where there is none at all);
//   - residue: every dim = 2 (mod 4), from 2 up to half its largest DIMS value, as cheap as `below` (a prime is
//     odd: 2 mod 4 is a tail of two for a kernel that loads four at a time); within kDrawnSizeBytes by halving
//     dims (staying 2 mod 4, down to 2), last first, and left out where even that does not fit;
//   - for each dim in turn, that dim k times the workgroup's widest extent plus an odd r of 1 to 7 (k from 1 up to
//     its largest DIMS value over the extent), the others at the smaller of their `below` value and their
//     smallest DIMS value above 1; within
//     kDrawnSizeBytes (not the growth cap: like the ragged size, one workgroup may be far above a small dim's
//     DIMS) by lowering k to 1, then the other dims to 1, last first, and left out where even that does not fit;
//   - last, above: every dim a prime above its largest DIMS value and at most about twice it, within the caps
//     above. A prime above 2 is a multiple of no workgroup extent, nor of 4, 32, 64 or 256.
//   The primes are drawn first, so a seed draws the primes it drew before the other drawn sizes were added.
std::vector<DimValues> validation_sizes(const OpSpec& spec, std::array<uint32_t, 3> local_size, uint64_t seed);

// Each dim at its largest DIMS value.
DimValues largest_dims(const OpSpec& spec);

// The sizes above alone, without the drawn ones.
std::vector<DimValues> declared_sizes(const OpSpec& spec, std::array<uint32_t, 3> local_size);

// The declared size whose tensors take the most bytes (the last of several): where the stress runs go.
DimValues largest_declared_size(const OpSpec& spec, std::array<uint32_t, 3> local_size);

// The bytes of the op's tensors at `dims`, all of them together (what a validation allocates; OpSpec::bytes_at
// counts the op's BYTES instead where it declares them).
int64_t allocated_bytes(const OpSpec& spec, const DimValues& dims);

// A size of at least two workgroups that no workgroup extent above 1 divides.
int64_t ragged_size(std::array<uint32_t, 3> local_size);

}  // namespace kernelgen
