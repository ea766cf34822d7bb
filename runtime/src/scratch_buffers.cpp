#include "kernelgen/scratch_buffers.hpp"

#include <algorithm>
#include <cstddef>

namespace kernelgen {

std::vector<const Buffer*> ScratchBuffers::for_call(std::span<const uint64_t> bytes) {
  if (bytes.empty()) return {};
  const auto large_enough = [&](const std::vector<Buffer>& set) {
    for (std::size_t i = 0; i < bytes.size(); ++i)
      if (set[i].size() < bytes[i]) return false;
    return true;
  };
  if (sets_.empty() || !large_enough(sets_.back())) {
    std::vector<Buffer> set;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      const std::size_t size = std::max<std::size_t>(sets_.empty() ? 0 : sets_.back()[i].size(), bytes[i]);
      const std::vector<uint8_t> zeros(size, 0);
      set.emplace_back(*device_, size).upload(zeros.data(), zeros.size());
    }
    sets_.push_back(std::move(set));
  }
  std::vector<const Buffer*> buffers;
  for (const Buffer& buffer : sets_.back()) buffers.push_back(&buffer);
  return buffers;
}

}  // namespace kernelgen
