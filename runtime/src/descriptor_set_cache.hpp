#pragma once
#include <vulkan/vulkan_core.h>

#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

#include "kernelgen/kernel.hpp"

namespace kernelgen {

// The descriptor sets of one Kernel: one per distinct binding (buffer list, ranges, offsets), at most
// kDescriptorSetCacheCapacity of them, the least recently used given up first. A set is given up only while
// no DescriptorSetHold of it is alive: a Sequence holds its recording's sets until it is reset or destroyed
// (after waiting for its submissions), so no set is rebound under recorded or running work. Past the capacity
// the cache outgrows it only by sets still held, and shrinks back as they are let go. Thread-safe.
class DescriptorSetCache {
 public:
  DescriptorSetCache(VkDevice device, VkDescriptorSetLayout layout, uint32_t binding_count)
      : device_(device), layout_(layout), binding_count_(binding_count) {}
  ~DescriptorSetCache();
  DescriptorSetCache(const DescriptorSetCache&) = delete;
  DescriptorSetCache& operator=(const DescriptorSetCache&) = delete;

  struct Found {
    VkDescriptorSet set;
    DescriptorSetHold hold;
  };
  // The set binding these buffers, written now if it is not cached (into a set given up, or a new one), and
  // held for the caller. `identity`, `ranges` and `offsets` as Kernel::record takes them.
  Found find(std::span<const VkBuffer> buffers, std::span<const uint64_t> identity,
             std::span<const uint64_t> ranges, std::span<const uint64_t> offsets);
  // Frees the sets whose buffer lists hold this Buffer::id() (identities_given) or VkBuffer handle, held or
  // not: the buffer is dying, and the work that used it has ended.
  void forget(bool identities_given, uint64_t key);
  std::size_t size() const;

 private:
  // (identities given, the identities or else the handles, the ranges, the offsets)
  using Key = std::tuple<bool, std::vector<uint64_t>, std::vector<uint64_t>, std::vector<uint64_t>>;
  struct Entry {
    VkDescriptorSet set = VK_NULL_HANDLE;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    std::weak_ptr<const void> hold;           // expired: no one holds the set
    std::list<const Key*>::iterator recency;  // its place in recency_
  };

  // Gives up the least recently used sets not held while the cache is full, and returns one of them to
  // write again, or nothing.
  std::optional<std::pair<VkDescriptorSet, VkDescriptorPool>> make_room();
  std::pair<VkDescriptorSet, VkDescriptorPool> allocate();
  void erase(std::map<Key, Entry>::iterator entry);

  VkDevice device_;
  VkDescriptorSetLayout layout_;
  uint32_t binding_count_;
  mutable std::mutex mutex_;  // a buffer may die, and a kernel record, on another thread
  std::vector<VkDescriptorPool> pools_;
  std::map<Key, Entry> entries_;
  std::list<const Key*> recency_;  // the keys of entries_, most recently used first
};

}  // namespace kernelgen
