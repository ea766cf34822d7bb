// content_hash: FNV-1a 64, as 16 hex digits, the same for a text and for words holding the same bytes.
#include "kernelgen/store/hash.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace kernelgen {
namespace {

TEST(ContentHash, MatchesTheFnv1aReferenceValues) {
  EXPECT_EQ(content_hash(std::string_view("")), "cbf29ce484222325");
  EXPECT_EQ(content_hash(std::string_view("a")), "af63dc4c8601ec8c");
  EXPECT_EQ(content_hash(std::string_view("foobar")), "85944171f73967e8");
}

TEST(ContentHash, HashesWordsByTheirBytes) {
  const std::vector<uint32_t> words{0x07230203u, 0x00010500u, 7u};
  std::string bytes(words.size() * 4, '\0');
  std::memcpy(bytes.data(), words.data(), bytes.size());
  EXPECT_EQ(content_hash(words), content_hash(bytes));
}

TEST(ContentHash, ChangesWithASingleByte) {
  EXPECT_NE(content_hash(std::string_view("kernel.comp")), content_hash(std::string_view("kernel.comq")));
}

}  // namespace
}  // namespace kernelgen
