#include "descriptor_set_cache.hpp"

#include <algorithm>

#include "vk_check.hpp"

namespace kernelgen {

namespace {

constexpr uint32_t kSetsPerPool = 16;
// How many of the least recently used sets one miss looks at when the cache is full. A held one moves to the
// front instead of being given up, so a recording that holds more sets than the capacity costs each miss
// these looks, not a walk over every set.
constexpr int kLooksPerMiss = 8;

}  // namespace

DescriptorSetCache::~DescriptorSetCache() {
  for (VkDescriptorPool pool : pools_) vkDestroyDescriptorPool(device_, pool, nullptr);
}

DescriptorSetCache::Found DescriptorSetCache::find(std::span<const VkBuffer> buffers,
                                                   std::span<const uint64_t> identity,
                                                   std::span<const uint64_t> ranges,
                                                   std::span<const uint64_t> offsets) {
  Key key{!identity.empty(),
          {identity.begin(), identity.end()},
          {ranges.begin(), ranges.end()},
          {offsets.begin(), offsets.end()}};
  if (identity.empty())
    for (VkBuffer buffer : buffers) std::get<1>(key).push_back(reinterpret_cast<uint64_t>(buffer));
  const std::lock_guard<std::mutex> lock(mutex_);
  auto entry = entries_.find(key);
  if (entry != entries_.end()) {
    recency_.splice(recency_.begin(), recency_, entry->second.recency);
  } else {
    const auto room = make_room();
    const auto [set, pool] = room ? *room : allocate();
    std::vector<VkDescriptorBufferInfo> infos(binding_count_);
    std::vector<VkWriteDescriptorSet> writes(binding_count_);
    for (uint32_t i = 0; i < binding_count_; ++i) {
      infos[i] = {buffers[i], offsets.empty() ? 0 : offsets[i], ranges.empty() ? VK_WHOLE_SIZE : ranges[i]};
      writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      writes[i].dstSet = set;
      writes[i].dstBinding = i;
      writes[i].descriptorCount = 1;
      writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      writes[i].pBufferInfo = &infos[i];
    }
    vkUpdateDescriptorSets(device_, binding_count_, writes.data(), 0, nullptr);
    entry = entries_.emplace(std::move(key), Entry{set, pool, {}, {}}).first;
    recency_.push_front(&entry->first);
    entry->second.recency = recency_.begin();
  }
  DescriptorSetHold hold = entry->second.hold.lock();
  if (!hold) {
    hold = std::make_shared<const char>('\0');
    entry->second.hold = hold;
  }
  return {entry->second.set, std::move(hold)};
}

std::optional<std::pair<VkDescriptorSet, VkDescriptorPool>> DescriptorSetCache::make_room() {
  std::optional<std::pair<VkDescriptorSet, VkDescriptorPool>> reused;
  for (int look = 0; look < kLooksPerMiss && entries_.size() >= kDescriptorSetCacheCapacity; ++look) {
    const auto oldest = entries_.find(*recency_.back());
    if (!oldest->second.hold.expired()) {
      recency_.splice(recency_.begin(), recency_, oldest->second.recency);
      continue;
    }
    // No one holds it, so no recorded or running work of a Sequence binds it: it can be written again.
    if (!reused) {
      reused.emplace(oldest->second.set, oldest->second.pool);
      recency_.erase(oldest->second.recency);
      entries_.erase(oldest);
    } else {
      erase(oldest);
    }
  }
  return reused;
}

std::pair<VkDescriptorSet, VkDescriptorPool> DescriptorSetCache::allocate() {
  // Sets are freed when a buffer dies, so any pool may have room: the newest first, then a new one.
  VkDescriptorSetAllocateInfo allocate{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  allocate.descriptorSetCount = 1;
  allocate.pSetLayouts = &layout_;
  VkDescriptorSet set = VK_NULL_HANDLE;
  for (auto pool = pools_.rbegin(); pool != pools_.rend(); ++pool) {
    allocate.descriptorPool = *pool;
    if (vkAllocateDescriptorSets(device_, &allocate, &set) == VK_SUCCESS) return {set, *pool};
  }
  VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kSetsPerPool * binding_count_};
  VkDescriptorPoolCreateInfo create{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  create.flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT;
  create.maxSets = kSetsPerPool;
  create.poolSizeCount = 1;
  create.pPoolSizes = &size;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  vk_check(vkCreateDescriptorPool(device_, &create, nullptr, &pool), "creating a descriptor pool");
  pools_.push_back(pool);
  allocate.descriptorPool = pool;
  vk_check(vkAllocateDescriptorSets(device_, &allocate, &set), "allocating a descriptor set");
  return {set, pool};
}

void DescriptorSetCache::erase(std::map<Key, Entry>::iterator entry) {
  vkFreeDescriptorSets(device_, entry->second.pool, 1, &entry->second.set);
  recency_.erase(entry->second.recency);
  entries_.erase(entry);
}

void DescriptorSetCache::forget(bool identities_given, uint64_t key) {
  const std::lock_guard<std::mutex> lock(mutex_);
  for (auto entry = entries_.begin(); entry != entries_.end();) {
    // A set names a buffer whatever range of it it binds.
    const bool given = std::get<0>(entry->first);
    const std::vector<uint64_t>& keys = std::get<1>(entry->first);
    if (given == identities_given && std::find(keys.begin(), keys.end(), key) != keys.end())
      erase(entry++);
    else
      ++entry;
  }
}

std::size_t DescriptorSetCache::size() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

}  // namespace kernelgen
