// Undefined behaviour a review found in release builds, each pinned by a test that UBSan (the sanitize
// preset) or a value check catches: a zero-bit read, float-to-fixed conversion of NaN and out-of-range
// values, a whole-object write into a buffer too small for it or with a value out of its range, and the
// two sequence comparisons that must follow one rule.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <span>

#include "bitwire/serialize/bits.hpp"
#include "bitwire/packet/sequence.hpp"
#include "bitwire/serialize/serialize.hpp"

namespace bitwire {
namespace {

// read_bits(0) used to mask with low_mask(0), a shift by 64.
TEST(DefinedBehaviour, ReadZeroBitsReturnsZeroAndConsumesNothing) {
  const std::array<std::byte, 16> bytes = {std::byte{0xFF}, std::byte{0x5A}, std::byte{0xC3}};
  BitReader reader(bytes);
  EXPECT_EQ(reader.read_bits(0), 0u);
  EXPECT_EQ(reader.bits_read(), 0u);
  EXPECT_EQ(reader.read_bits(3), 7u);
  EXPECT_EQ(reader.read_bits(0), 0u);  // with bits pending in the scratch word
  EXPECT_EQ(reader.bits_read(), 3u);
  EXPECT_EQ(reader.read_bits(61), (uint64_t{0xC35A} << 5) | 0x1F);
  EXPECT_EQ(reader.read_bits(0), 0u);  // with the scratch word empty
  EXPECT_EQ(reader.bits_read(), 64u);
  EXPECT_EQ(low_mask(0), 0u);
  EXPECT_EQ(low_mask(1), 1u);
  EXPECT_EQ(low_mask(64), ~uint64_t{0});

  ReadStream stream(bytes);
  uint64_t value = 99;
  EXPECT_TRUE(stream.read_bits(value, 0));
  EXPECT_EQ(value, 0u);
  EXPECT_EQ(stream.bits_processed(), 0u);
}

// to_fixed cast std::round's result straight to the integer: undefined for NaN and for anything beyond
// the type (x86 gives INT_MIN, which then truncates to garbage).
TEST(DefinedBehaviour, ToFixedSaturatesOutOfRangeAndNaN) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ((to_fixed<8, int16_t>(nan)), 0);
  EXPECT_EQ((to_fixed<8, int16_t>(1e300)), INT16_MAX);
  EXPECT_EQ((to_fixed<8, int16_t>(-1e300)), INT16_MIN);
  EXPECT_EQ((to_fixed<8, int16_t>(inf)), INT16_MAX);
  EXPECT_EQ((to_fixed<8, int16_t>(-inf)), INT16_MIN);
  EXPECT_EQ((to_fixed<8, int16_t>(128.0)), INT16_MAX);          // 32768 raw: one past the maximum
  EXPECT_EQ((to_fixed<8, int16_t>(127.99609375)), INT16_MAX);   // 32767 raw: exact
  EXPECT_EQ((to_fixed<8, int16_t>(-128.0)), INT16_MIN);         // -32768 raw: exact
  EXPECT_EQ((to_fixed<8, int16_t>(-128.00390625)), INT16_MIN);  // one below
  EXPECT_EQ((to_fixed<4, uint8_t>(-1.0)), 0);
  EXPECT_EQ((to_fixed<4, uint8_t>(16.0)), 255);
  EXPECT_EQ((to_fixed<0, int64_t>(9.3e18)), INT64_MAX);
  EXPECT_EQ((to_fixed<0, int64_t>(-9.3e18)), INT64_MIN);
  EXPECT_EQ((to_fixed<0, int64_t>(-9223372036854775808.0)), INT64_MIN);
  EXPECT_EQ((to_fixed<0, uint64_t>(1.8446744073709552e19)), UINT64_MAX);
  EXPECT_EQ((to_fixed<0, int128_t>(1e300)), static_cast<int128_t>(~uint128_t{0} >> 1));
  EXPECT_EQ((to_fixed<0, int128_t>(-1e300)), -static_cast<int128_t>(~uint128_t{0} >> 1) - 1);
  EXPECT_EQ((to_fixed<0, uint128_t>(1e300)), ~uint128_t{0});
  EXPECT_EQ((to_fixed<8, int16_t>(-3.25)), -832);  // ordinary values are unchanged
}

struct ThreeWords {
  uint64_t a = 0x0123456789ABCDEFull, b = 0xFEDCBA9876543210ull, c = 0x0F1E2D3C4B5A6978ull;
  template <typename Stream>
  bool serialize(Stream& stream) {
    return serialize_bits(stream, a, 64) && serialize_bits(stream, b, 64) && serialize_bits(stream, c, 64);
  }
};

// write_object used to trust the caller's buffer size: in a release build a 24-byte object written into
// a 16-byte span ran 8 bytes past it.
TEST(DefinedBehaviour, WriteObjectNeverWritesPastItsSpan) {
  ThreeWords object;
  std::array<std::byte, 40> memory;
  memory.fill(std::byte{0xAA});
  EXPECT_EQ(write_object(std::span<std::byte>(memory.data(), 16), object), 0u)
      << "too small: nothing written";
  for (const std::byte b : memory) EXPECT_EQ(b, std::byte{0xAA});
  EXPECT_EQ(write_object(std::span<std::byte>(memory.data(), 23), object), 0u);
  EXPECT_EQ(write_object(std::span<std::byte>(memory.data(), 24), object), 24u);
  for (size_t i = 24; i < memory.size(); ++i) EXPECT_EQ(memory[i], std::byte{0xAA});
  ThreeWords read;
  read.a = read.b = read.c = 0;
  ASSERT_TRUE(read_object(std::span<const std::byte>(memory.data(), 24), read));
  EXPECT_EQ(read.c, object.c);
}

struct HealthAndAmmo {
  int32_t health = 0;  // [0, 100]: 7 bits
  uint32_t ammo = 0;   // [0, 31]: 5 bits
  template <typename Stream>
  bool serialize(Stream& stream) {
    BITWIRE_TRY(serialize_int(stream, health, 0, 100));
    BITWIRE_TRY(serialize_int(stream, ammo, 0u, 31u));
    return true;
  }
};

// A value outside its range used to reach the WriteStream, where the contract is only an assertion: in a
// build without assertions its offset went out whole, into the bits of the next field -- 120 wrote bytes
// every reader refuses, 200 (offset 0b11001000) read back as health 72 and ammo 3. write_object now refuses
// such an object in every build: 0, nothing written.
TEST(DefinedBehaviour, WriteObjectRefusesAValueOutsideItsRange) {
  for (const int32_t health : {120, 200, 101, -1, -5}) {
    HealthAndAmmo object;
    object.health = health;
    object.ammo = 2;
    std::array<std::byte, 8> memory;
    memory.fill(std::byte{0xAA});
    EXPECT_EQ(write_object(std::span<std::byte>(memory), object), 0u) << health;
    for (const std::byte b : memory) EXPECT_EQ(b, std::byte{0xAA}) << health;
  }
  HealthAndAmmo object;
  object.health = 100;
  object.ammo = 31;
  std::array<std::byte, 8> memory{};
  ASSERT_EQ(write_object(std::span<std::byte>(memory), object), 2u);
  HealthAndAmmo read;
  ASSERT_TRUE(read_object(std::span<const std::byte>(memory.data(), 2), read));
  EXPECT_EQ(read.health, 100);
  EXPECT_EQ(read.ammo, 31u);
}

// The one rule (sequence.hpp): the difference of smallest magnitude, the numerically larger sequence newer
// at exactly half the range. sequence_difference(32768, 0) used to be -32768 while
// sequence_greater_than(32768, 0) was true.
TEST(DefinedBehaviour, SequenceComparisonsFollowOneRuleAtHalfRange) {
  EXPECT_TRUE(sequence_greater_than(32768, 0));
  EXPECT_EQ(sequence_difference(32768, 0), 32768);
  EXPECT_FALSE(sequence_greater_than(0, 32768));
  EXPECT_EQ(sequence_difference(0, 32768), -32768);
  EXPECT_TRUE(sequence_greater_than(40000, 7232));
  EXPECT_EQ(sequence_difference(40000, 7232), 32768);
  EXPECT_EQ(sequence_difference(7232, 40000), -32768);
  for (uint32_t b = 0; b < 65536; b += 257) {
    for (uint32_t a = 0; a < 65536; ++a) {
      const auto s1 = static_cast<uint16_t>(a);
      const auto s2 = static_cast<uint16_t>(b);
      const int d = sequence_difference(s1, s2);
      ASSERT_EQ(sequence_greater_than(s1, s2), d > 0) << a << " " << b;
      ASSERT_EQ(sequence_less_than(s1, s2), d < 0) << a << " " << b;
      ASSERT_EQ(d, -sequence_difference(s2, s1)) << a << " " << b;
      ASSERT_EQ(static_cast<uint16_t>(s2 + d), s1) << a << " " << b;
      ASSERT_GE(d, -32768);
      ASSERT_LE(d, 32768);
      // reliable 1.0's published comparison, unchanged.
      const bool published = (s1 > s2 && s1 - s2 <= 32768) || (s1 < s2 && s2 - s1 > 32768);
      ASSERT_EQ(sequence_greater_than(s1, s2), published) << a << " " << b;
    }
  }
}

}  // namespace
}  // namespace bitwire
