#include "kernelgen/validation/sizes.hpp"

#include <algorithm>
#include <random>

namespace kernelgen {

namespace {

bool is_prime(int64_t value) {
  if (value < 2) return false;
  for (int64_t divisor = 2; divisor * divisor <= value; ++divisor)
    if (value % divisor == 0) return false;
  return true;
}

int64_t prime_at_or_above(int64_t value) {
  while (!is_prime(value)) ++value;
  return value;
}

int64_t largest(const DimSpec& dim) { return *std::max_element(dim.sizes.begin(), dim.sizes.end()); }

// A prime in (largest, 2 * largest], drawn; 2 or 3 for a dim whose DIMS go no higher than 1.
int64_t prime_above(const DimSpec& dim, std::mt19937_64& rng) {
  const int64_t top = largest(dim);
  return prime_at_or_above(std::uniform_int_distribution<int64_t>(top + 1, 2 * top)(rng));
}

// A prime below half the dim's largest DIMS value that DIMS do not hold, drawn; else one below the largest value;
// else the largest value (DIMS up to 3).
int64_t prime_below(const DimSpec& dim, std::mt19937_64& rng) {
  for (const int64_t bound : {largest(dim) / 2, largest(dim)}) {
    std::vector<int64_t> primes;
    for (int64_t value = 2; value < bound && primes.size() < 4096; ++value)
      if (is_prime(value) && std::find(dim.sizes.begin(), dim.sizes.end(), value) == dim.sizes.end())
        primes.push_back(value);
    if (!primes.empty()) return primes[std::uniform_int_distribution<size_t>(0, primes.size() - 1)(rng)];
  }
  return largest(dim);
}

// A value = 2 (mod 4) from 2 up to half the dim's largest DIMS value (2 where that is below 2), drawn: a size a
// kernel that loads 4 elements at a time meets with a tail of 2, which neither the primes nor 1 give it.
int64_t two_mod_four(const DimSpec& dim, std::mt19937_64& rng) {
  const int64_t top = std::max<int64_t>(largest(dim) / 2, 2);
  return 2 + 4 * std::uniform_int_distribution<int64_t>(0, (top - 2) / 4)(rng);
}

// k times the workgroup's widest extent plus a small odd remainder r, drawn: k in [1, max(1, largest DIMS / extent)],
// r odd in [1, min(7, extent - 1)] (1 for an extent of one or two). Along that extent the last workgroup, or the
// last pass of a loop that strides by it, has r invocations of work: fewer than a subgroup or a vector.
struct WorkgroupsAndRest {
  int64_t workgroups = 1;
  int64_t rest = 1;
};

WorkgroupsAndRest workgroups_and_rest(const DimSpec& dim, int64_t extent, std::mt19937_64& rng) {
  const int64_t most = std::max<int64_t>(1, largest(dim) / extent);
  const int64_t rest_top = std::max<int64_t>(1, std::min<int64_t>(7, extent - 1));
  WorkgroupsAndRest drawn;
  drawn.workgroups = std::uniform_int_distribution<int64_t>(1, most)(rng);
  drawn.rest = 1 + 2 * std::uniform_int_distribution<int64_t>(0, (rest_top - 1) / 2)(rng);
  return drawn;
}

// The dim's smallest DIMS value above 1 (1 where DIMS hold no other).
int64_t smallest_above_one(const DimSpec& dim) {
  int64_t smallest = 1;
  for (const int64_t value : dim.sizes)
    if (value > 1 && (smallest == 1 || value < smallest)) smallest = value;
  return smallest;
}

// Halves each dim's excess over its largest DIMS value (then the next prime) until the tensors fit `cap` bytes.
void fit_under_cap(const OpSpec& spec, DimValues& dims, int64_t cap) {
  for (int round = 0; round < 64 && allocated_bytes(spec, dims) > cap; ++round) {
    bool shrunk = false;
    for (size_t d = 0; d < dims.size(); ++d) {
      const int64_t top = largest(spec.dims[d]);
      int64_t smaller = prime_at_or_above(top + (dims[d] - top) / 2);
      if (smaller >= dims[d]) smaller = prime_at_or_above(top + 1);  // the halfway prime was this one
      if (smaller < dims[d]) {
        dims[d] = smaller;
        shrunk = true;
      }
    }
    if (!shrunk) return;
  }
}

// Whether a workgroup extent above 1 divides `value`.
bool divides_an_extent(int64_t value, std::array<uint32_t, 3> local_size) {
  return std::any_of(local_size.begin(), local_size.end(), [&](uint32_t e) { return e > 1 && value % e == 0; });
}

}  // namespace

int64_t allocated_bytes(const OpSpec& spec, const DimValues& dims) {
  int64_t bytes = 0;
  for (const TensorSpec& tensor : spec.tensors()) bytes += tensor.bytes(dims);
  return bytes;
}

int64_t ragged_size(std::array<uint32_t, 3> local_size) {
  const int64_t invocations = int64_t{local_size[0]} * local_size[1] * local_size[2];
  int64_t size = std::max<int64_t>(3, invocations + invocations / 2 + 1);
  while (divides_an_extent(size, local_size)) ++size;
  return size;
}

DimValues largest_dims(const OpSpec& spec) {
  DimValues values;
  for (const DimSpec& dim : spec.dims) values.push_back(largest(dim));
  return values;
}

std::vector<DimValues> declared_sizes(const OpSpec& spec, std::array<uint32_t, 3> local_size) {
  // Each dim's DIMS with 1; and its ragged size where its DIMS hold none: more than one workgroup's worth along
  // any axis, and a multiple of none of the workgroup's extents.
  std::vector<std::vector<int64_t>> values;
  std::vector<int64_t> ragged;  // 0 where DIMS hold a ragged size
  const int64_t widest = *std::max_element(local_size.begin(), local_size.end());
  for (const DimSpec& dim : spec.dims) {
    std::vector<int64_t> listed = dim.sizes;
    if (std::find(listed.begin(), listed.end(), 1) == listed.end()) listed.push_back(1);
    std::sort(listed.begin(), listed.end());
    const bool has_ragged = std::any_of(listed.begin(), listed.end(),
                                        [&](int64_t v) { return v > widest && !divides_an_extent(v, local_size); });
    values.push_back(std::move(listed));
    ragged.push_back(has_ragged ? 0 : ragged_size(local_size));
  }
  // Every combination of the lists, the first dim outermost.
  const auto combinations = [](const std::vector<std::vector<int64_t>>& lists) {
    std::vector<DimValues> sizes{{}};
    for (const std::vector<int64_t>& list : lists) {
      std::vector<DimValues> grown;
      for (const DimValues& size : sizes)
        for (int64_t value : list) {
          grown.push_back(size);
          grown.back().push_back(value);
        }
      sizes = std::move(grown);
    }
    return sizes;
  };
  std::vector<DimValues> sizes = combinations(values);
  // Then each added ragged size with every combination of the other dims' lists: one ragged dim at a time, so that
  // a 256-wide workgroup's 385 added to four dims is not 385^4.
  for (size_t d = 0; d < values.size(); ++d) {
    if (ragged[d] == 0) continue;
    std::vector<std::vector<int64_t>> with_ragged = values;
    with_ragged[d] = {ragged[d]};
    for (DimValues& size : combinations(with_ragged)) sizes.push_back(std::move(size));
  }
  return sizes;
}

DimValues largest_declared_size(const OpSpec& spec, std::array<uint32_t, 3> local_size) {
  const std::vector<DimValues> sizes = declared_sizes(spec, local_size);
  DimValues largest = sizes.front();
  for (const DimValues& size : sizes)
    if (allocated_bytes(spec, size) >= allocated_bytes(spec, largest)) largest = size;
  return largest;
}

std::vector<DimValues> validation_sizes(const OpSpec& spec, std::array<uint32_t, 3> local_size, uint64_t seed) {
  std::vector<DimValues> sizes = declared_sizes(spec, local_size);
  if (spec.dims.empty()) return sizes;
  std::mt19937_64 rng(seed ^ 0x5eed0f5123e5ull);
  DimValues below, above;
  for (const DimSpec& dim : spec.dims) {
    below.push_back(prime_below(dim, rng));
    above.push_back(prime_above(dim, rng));
  }
  const auto grown = static_cast<int64_t>(kDrawnSizeGrowth * static_cast<double>(allocated_bytes(spec, largest_dims(spec))));
  const int64_t cap = std::min(kDrawnSizeBytes, grown);
  fit_under_cap(spec, above, cap);
  // Drawn after the primes, so that a seed draws the same primes as before these sizes were added.
  std::vector<DimValues> drawn{below};
  DimValues residue;
  for (const DimSpec& dim : spec.dims) residue.push_back(two_mod_four(dim, rng));
  for (size_t d = residue.size(); allocated_bytes(spec, residue) > kDrawnSizeBytes && d-- > 0;)
    while (residue[d] > 2 && allocated_bytes(spec, residue) > kDrawnSizeBytes) residue[d] = 2 + (residue[d] - 2) / 8 * 4;
  if (allocated_bytes(spec, residue) <= kDrawnSizeBytes) drawn.push_back(residue);
  const int64_t extent = std::max<int64_t>(1, *std::max_element(local_size.begin(), local_size.end()));
  // Where the other dims stand while one is at workgroups and a rest: small, so that the size costs little more
  // than that dim alone, and above 1 where DIMS go above 1.
  DimValues small;
  for (size_t d = 0; d < spec.dims.size(); ++d) small.push_back(std::min(below[d], smallest_above_one(spec.dims[d])));
  for (size_t d = 0; d < spec.dims.size(); ++d) {
    const WorkgroupsAndRest split = workgroups_and_rest(spec.dims[d], extent, rng);
    DimValues size = small;
    size[d] = split.workgroups * extent + split.rest;
    for (int64_t k = split.workgroups; allocated_bytes(spec, size) > kDrawnSizeBytes && k-- > 1;)
      size[d] = k * extent + split.rest;
    for (size_t other = size.size(); allocated_bytes(spec, size) > kDrawnSizeBytes && other-- > 0;)
      if (other != d) size[other] = 1;
    if (allocated_bytes(spec, size) <= kDrawnSizeBytes) drawn.push_back(size);
  }
  drawn.push_back(above);
  for (const DimValues& size : drawn)
    if (std::find(sizes.begin(), sizes.end(), size) == sizes.end()) sizes.push_back(size);
  return sizes;
}

}  // namespace kernelgen
