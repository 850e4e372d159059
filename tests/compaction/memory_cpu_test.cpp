// primitives/common/memory.h: a Buffer adopting storage allocated before its count was known.
#include <gtest/gtest.h>

#include <stdexcept>

#include "primitives/common/memory.h"

namespace srt {
namespace {

TEST(Buffer, AdoptsLargerStorageWithItsOwnCount) {
  const size_t before = bytesInUse(MemorySpace::Host);
  {
    RawBuffer raw(MemorySpace::Host, 10 * sizeof(uint32_t) + 3);
    const void* storage = raw.data();
    Buffer<uint32_t> b(std::move(raw), 7);
    EXPECT_EQ(b.size(), 7u);
    EXPECT_EQ(b.bytes(), 7 * sizeof(uint32_t));
    EXPECT_EQ(static_cast<const void*>(b.data()), storage);
    EXPECT_EQ(raw.data(), nullptr) << "the raw buffer still owns the storage";
    b.upload({1, 2, 3, 4, 5, 6, 7});
    EXPECT_EQ(b.download(), (std::vector<uint32_t>{1, 2, 3, 4, 5, 6, 7}));
    EXPECT_EQ(bytesInUse(MemorySpace::Host), before + 10 * sizeof(uint32_t) + 3);
  }
  EXPECT_EQ(bytesInUse(MemorySpace::Host), before) << "adopted storage leaked";
}

TEST(Buffer, AdoptingTooSmallStorageThrowsAndKeepsIt) {
  RawBuffer raw(MemorySpace::Host, 3 * sizeof(uint64_t) + 7);
  EXPECT_THROW((Buffer<uint64_t>(std::move(raw), 4)), std::length_error);
  EXPECT_NE(raw.data(), nullptr) << "a failed adoption took the storage";
  EXPECT_NO_THROW((Buffer<uint64_t>(std::move(raw), 3)));
}

TEST(Buffer, AdoptsEmptyStorageForNoElements) {
  Buffer<float> b(RawBuffer(), 0);
  EXPECT_TRUE(b.empty());
  EXPECT_THROW((Buffer<float>(RawBuffer(), 1)), std::length_error);
}

}  // namespace
}  // namespace srt
