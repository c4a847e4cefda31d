#include "bitwire/core/crc32.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "support/seed.hpp"

namespace bitwire {
namespace {

uint32_t crc_of(const std::string& text) {
  return crc32(text.data(), text.size());
}

TEST(Crc32, KnownVectors) {
  EXPECT_EQ(crc_of(""), 0x00000000u);
  EXPECT_EQ(crc_of("123456789"), 0xCBF43926u);
  EXPECT_EQ(crc_of("a"), 0xE8B7BE43u);
  EXPECT_EQ(crc_of("abc"), 0x352441C2u);
  EXPECT_EQ(crc_of("The quick brown fox jumps over the lazy dog"), 0x414FA339u);
  const std::vector<uint8_t> zeros(32, 0x00);
  EXPECT_EQ(crc32(zeros.data(), zeros.size()), 0x190A55ADu);
  const std::vector<uint8_t> ones(32, 0xFF);
  EXPECT_EQ(crc32(ones.data(), ones.size()), 0xFF6CAB0Bu);
}

TEST(Crc32, EveryPathAgreesOnKnownVector) {
  EXPECT_EQ(crc32_bytewise("123456789", 9), 0xCBF43926u);
  EXPECT_EQ(crc32_slice8("123456789", 9), 0xCBF43926u);
  // 0..255 repeated to 1024 bytes, checked against zlib's crc32.
  std::vector<uint8_t> ramp(1024);
  for (size_t i = 0; i < ramp.size(); ++i) ramp[i] = static_cast<uint8_t>(i);
  EXPECT_EQ(crc32(ramp.data(), ramp.size()), 0xB70B4C26u);
}

TEST(Crc32, FastPathsMatchBytewiseAtEveryLengthAndAlignment) {
  // Covers slice-by-8 and, from 128 bytes on, the carry-less multiplication path (on CPUs that have it):
  // every tail length after the 64-byte and 16-byte folding loops, and a non-zero starting state.
  BITWIRE_SEEDED_TEST_SEED(0xc7c);
  std::mt19937_64 rng(seed);
  std::vector<uint8_t> buffer(1100);
  for (auto& b : buffer) b = static_cast<uint8_t>(rng());
  for (size_t offset = 0; offset < 16; ++offset) {
    for (size_t size = 0; size + offset <= 1040; ++size) {
      const uint8_t* p = buffer.data() + offset;
      const uint32_t expected = crc32_bytewise(p, size);
      ASSERT_EQ(crc32(p, size), expected) << "offset " << offset << " size " << size;
      ASSERT_EQ(crc32_slice8(p, size), expected) << "offset " << offset << " size " << size;
      ASSERT_EQ(crc32_clmul(p, size), expected) << "offset " << offset << " size " << size;
      ASSERT_EQ(crc32_wide_clmul(p, size), expected) << "offset " << offset << " size " << size;
      const uint32_t start = static_cast<uint32_t>(rng());
      ASSERT_EQ(crc32(p, size, start), crc32_bytewise(p, size, start))
          << "offset " << offset << " size " << size;
    }
  }
}

TEST(Crc32, LargeInputsMatchBytewise) {
  BITWIRE_SEEDED_TEST_SEED(0x1a7e);
  std::mt19937_64 rng(seed);
  for (size_t size :
       {size_t{300}, size_t{511}, size_t{4096}, size_t{65536}, size_t{65536 + 77}, size_t{1 << 20}}) {
    std::vector<uint8_t> data(size);
    for (auto& b : data) b = static_cast<uint8_t>(rng());
    const uint32_t expected = crc32_bytewise(data.data(), data.size());
    ASSERT_EQ(crc32(data.data(), data.size()), expected) << size;
    ASSERT_EQ(crc32_clmul(data.data(), data.size()), expected) << size;
    ASSERT_EQ(crc32_wide_clmul(data.data(), data.size()), expected) << size;
    ASSERT_EQ(crc32_wide_clmul(data.data(), data.size(), 0x12345678u),
              crc32_bytewise(data.data(), data.size(), 0x12345678u));
  }
  const std::vector<uint8_t> zeros(100000, 0);
  EXPECT_EQ(crc32(zeros.data(), zeros.size()), crc32_bytewise(zeros.data(), zeros.size()));
}

TEST(Crc32, IncrementalEqualsWhole) {
  BITWIRE_SEEDED_TEST_SEED(0x1ac);
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 500; ++round) {
    std::vector<uint8_t> data(rng() % 300);
    for (auto& b : data) b = static_cast<uint8_t>(rng());
    const size_t split = data.empty() ? 0 : rng() % (data.size() + 1);
    const uint32_t whole = crc32(data.data(), data.size());
    const uint32_t first = crc32(data.data(), split);
    ASSERT_EQ(crc32(data.data() + split, data.size() - split, first), whole);
    Crc32 accumulator;
    accumulator.update(data.data(), split).update(data.data() + split, data.size() - split);
    ASSERT_EQ(accumulator.value(), whole);
  }
}

TEST(Crc32, DetectsEverySingleBitFlip) {
  std::vector<uint8_t> data(256);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 7);
  const uint32_t good = crc32(data.data(), data.size());
  for (size_t bit = 0; bit < data.size() * 8; ++bit) {
    data[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
    ASSERT_NE(crc32(data.data(), data.size()), good) << bit;
    data[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
  }
}

}  // namespace
}  // namespace bitwire
