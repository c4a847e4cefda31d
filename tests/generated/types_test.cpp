// The generated code of schemas/types.net: enum headroom (a reader keeps a value it has no name for),
// 64-bit ranges up to 2^64 - 1 and down to INT64_MIN, and fixed-length byte blocks. Golden bytes are
// derived by hand from the wire rules of docs/schema-language.md, one field at a time.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <vector>

#include "codec_checks.hpp"
#include "support/seed.hpp"
#include "types.hpp"

namespace {

using namespace bitwire::test::gen;
namespace dt = demo::types;

constexpr uint64_t kU64Max = std::numeric_limits<uint64_t>::max();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();

std::vector<std::byte> bytes_of(std::initializer_list<int> values) {
  std::vector<std::byte> out;
  for (int v : values) out.push_back(static_cast<std::byte>(v));
  return out;
}

std::vector<std::byte> repeat(std::vector<std::byte> out, int value, size_t count) {
  out.insert(out.end(), count, static_cast<std::byte>(value));
  return out;
}

// Sets `bits` bits of `bytes` at bit `position` to the low bits of `value` (LSB first, as on the wire).
void put_bits(std::vector<std::byte>& bytes, size_t position, uint64_t value, int bits) {
  for (int i = 0; i < bits; ++i) {
    const size_t bit = position + static_cast<size_t>(i);
    const auto mask = static_cast<std::byte>(1u << (bit % 8));
    if ((value >> i) & 1u) {
      bytes[bit / 8] |= mask;
    } else {
      bytes[bit / 8] &= ~mask;
    }
  }
}

template <typename T>
T read_back(const Encoded& encoded) {
  T read;
  const Decoded decoded = decode(encoded.bytes, encoded.offset, read);
  EXPECT_TRUE(decoded.ok) << to_string(decoded.error);
  EXPECT_EQ(decoded.bits, encoded.bits);
  return read;
}

// ---- 64-bit ranges at their limits ----

TEST(TypesWide, WidthsAndMaxBitsAreExact) {
  // raw 64, full 64, top 10 (615 values apart), above_int64 2, full_signed 64, bottom 4, all_ones 64.
  EXPECT_EQ(dt::Wide::MaxBits, 272u);
  static_assert(std::is_same_v<decltype(dt::Wide::full), uint64_t>);
  static_assert(std::is_same_v<decltype(dt::Wide::top), uint64_t>);
  static_assert(std::is_same_v<decltype(dt::Wide::above_int64), uint64_t>);
  static_assert(std::is_same_v<decltype(dt::Wide::bottom), int64_t>);
}

TEST(TypesWide, NewObjectHoldsTheBoundNearestZeroAndTheDefault) {
  const dt::Wide wide;
  EXPECT_EQ(wide.top, 18446744073709551000ull);
  EXPECT_EQ(wide.above_int64, 9223372036854775808ull);
  EXPECT_EQ(wide.bottom, kI64Min + 8);
  EXPECT_EQ(wide.all_ones, kU64Max);
  EXPECT_EQ(wide.full, 0u);
}

TEST(TypesWide, GoldenBytesAtTheTop) {
  dt::Wide wide;
  wide.raw = 0x0123456789abcdefull;
  wide.full = kU64Max;
  wide.top = kU64Max;                       // offset 615 = 0x267 in 10 bits
  wide.above_int64 = 9223372036854775810ull;  // offset 2 in 2 bits
  wide.full_signed = kI64Min;               // offset 0 in 64 bits
  wide.bottom = kI64Min + 8;                // offset 8 in 4 bits
  const Encoded encoded = encode(wide, 0);
  ASSERT_EQ(encoded.bits, 272u);
  std::vector<std::byte> expected = bytes_of({0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01});
  expected = repeat(expected, 0xff, 8);
  expected.push_back(std::byte{0x67});  // bits 128..135: low byte of 615
  expected.push_back(std::byte{0x0a});  // bits 136..137: 615 >> 8 = 2; 138..139: 2; 140..143: 0
  expected = repeat(expected, 0x00, 7);
  expected.push_back(std::byte{0x80});  // bits 200..203: 0; 204..207: 8
  expected = repeat(expected, 0xff, 8);
  EXPECT_EQ(encoded.bytes, expected);
  EXPECT_EQ(read_back<dt::Wide>(encoded), wide);
}

TEST(TypesWide, GoldenBytesAtTheBottom) {
  dt::Wide wide;
  wide.raw = 0;
  wide.full = 0;
  wide.top = 18446744073709551000ull;
  wide.above_int64 = 9223372036854775808ull;
  wide.full_signed = kI64Max;  // offset 2^64 - 1: all 64 bits set
  wide.bottom = kI64Min;
  wide.all_ones = 0;
  const Encoded encoded = encode(wide, 0);
  std::vector<std::byte> expected = repeat({}, 0x00, 17);
  expected.push_back(std::byte{0xf0});  // bits 140..143: the low bits of full_signed
  expected = repeat(expected, 0xff, 7);
  expected.push_back(std::byte{0x0f});  // bits 200..203: its top bits; 204..207: bottom's offset 0
  expected = repeat(expected, 0x00, 8);
  EXPECT_EQ(encoded.bytes, expected);
  EXPECT_EQ(read_back<dt::Wide>(encoded), wide);
}

TEST(TypesWide, EdgesRoundTripAtEveryOffset) {
  const uint64_t tops[] = {18446744073709551000ull, 18446744073709551001ull, kU64Max - 1, kU64Max};
  const int64_t signeds[] = {kI64Min, kI64Min + 1, -1, 0, 1, kI64Max - 1, kI64Max};
  for (size_t i = 0; i < 64; ++i) {
    dt::Wide wide;
    wide.raw = kU64Max >> i;
    wide.full = i % 2 == 0 ? kU64Max : 0;
    wide.top = tops[i % std::size(tops)];
    wide.above_int64 = 9223372036854775808ull + i % 3;
    wide.full_signed = signeds[i % std::size(signeds)];
    wide.bottom = kI64Min + static_cast<int64_t>(i % 9);
    const Encoded encoded = encode(wide, i, 0x5555'5555'5555'5555ull);
    ASSERT_EQ(encoded.bits, 272u);
    EXPECT_EQ(read_back<dt::Wide>(encoded), wide) << "offset " << i;
  }
}

// A read refuses an offset above max - min in each narrow range, where the field starts.
TEST(TypesWide, ReadRefusesOffsetsAboveTheRange) {
  struct Case {
    size_t position;
    int bits;
    uint64_t offset;
  };
  const Case cases[] = {{128, 10, 616}, {128, 10, 1023}, {138, 2, 3}, {204, 4, 9}, {204, 4, 15}};
  for (const Case& c : cases) {
    std::vector<std::byte> bytes(dt::Wide::MaxBytes);
    put_bits(bytes, c.position, c.offset, c.bits);
    dt::Wide read;
    const Decoded decoded = decode(bytes, 0, read);
    EXPECT_FALSE(decoded.ok);
    EXPECT_EQ(decoded.error, bitwire::ReadError::kValueOutOfRange) << c.position;
    EXPECT_EQ(decoded.error_bit, c.position);
  }
}

TEST(TypesWide, EveryTruncationFails) {
  dt::Wide wide;
  wide.full = kU64Max;
  check_truncations(wide, dt::Wide{}, 5);
}

// ---- enum headroom ----

TEST(TypesHeadroom, WireRangeIsTheDeclaredMaximum) {
  // Weapon: [0, 15] in 4 bits; Lean: [-2, 100] in 7 bits.
  dt::Loadout loadout;
  const Encoded encoded = encode(loadout, 0);
  EXPECT_EQ(encoded.bytes[0], std::byte{0x10});  // primary Fists (0), secondary Pistol (1)
  EXPECT_EQ(static_cast<uint8_t>(encoded.bytes[1]) & 0x7f, 0u);  // lean Left: offset 0
  static_assert(sizeof(dt::Weapon) == 1 && sizeof(dt::Lean) == 1);
}

TEST(TypesHeadroom, ReaderKeepsAValueItHasNoEnumeratorFor) {
  for (uint64_t raw : {5u, 9u, 15u}) {
    std::vector<std::byte> bytes(dt::Loadout::MaxBytes);
    put_bits(bytes, 0, raw, 4);
    dt::Loadout read;
    const Decoded decoded = decode(bytes, 0, read);
    ASSERT_TRUE(decoded.ok) << to_string(decoded.error);
    EXPECT_EQ(static_cast<uint8_t>(read.primary), raw);
    EXPECT_EQ(dt::to_string(read.primary), nullptr);
    EXPECT_EQ(describe(read.primary), std::to_string(raw));
    // Forwarded unchanged: the same value goes out again.
    const Encoded again = encode(read, 0);
    EXPECT_EQ(static_cast<uint64_t>(again.bytes[0] & std::byte{0x0f}), raw);
  }
}

TEST(TypesHeadroom, HolesAndValuesAboveTheLargestAreKeptForSignedStorage) {
  for (int value : {-1, 1, 3, 57, 100}) {
    dt::Loadout loadout;
    loadout.lean = static_cast<dt::Lean>(value);
    const Encoded encoded = encode(loadout, 3);
    EXPECT_EQ(static_cast<int>(read_back<dt::Loadout>(encoded).lean), value);
  }
}

TEST(TypesHeadroom, ReadRefusesAValueAboveTheWireMaximum) {
  for (uint64_t offset : {103u, 127u}) {  // -2 + 103 = 101 is the first value above `max 100`
    std::vector<std::byte> bytes(dt::Loadout::MaxBytes);
    put_bits(bytes, 8, offset, 7);
    dt::Loadout read;
    const Decoded decoded = decode(bytes, 0, read);
    EXPECT_FALSE(decoded.ok);
    EXPECT_EQ(decoded.error, bitwire::ReadError::kInvalidEnum);
    EXPECT_EQ(decoded.error_bit, 8u);
  }
  std::vector<std::byte> bytes(dt::Loadout::MaxBytes);
  put_bits(bytes, 8, 102, 7);  // 100 itself: the top of the headroom
  dt::Loadout read;
  ASSERT_TRUE(decode(bytes, 0, read).ok);
  EXPECT_EQ(static_cast<int>(read.lean), 100);
}

// ---- fixed-length byte blocks ----

dt::Blocks sample_blocks(bool with_tag) {
  dt::Blocks blocks;
  blocks.flag = true;
  for (size_t i = 0; i < blocks.key.size(); ++i) blocks.key[i] = static_cast<uint8_t>(i);
  blocks.one[0] = 0xaa;
  for (size_t h = 0; h < 2; ++h) {
    for (size_t i = 0; i < 20; ++i) blocks.hashes[h][i] = static_cast<uint8_t>(0x10 * (h + 1) + i);
  }
  blocks.has_tag = with_tag;
  if (with_tag) blocks.tag = {0xde, 0xad, 0xbe, 0xef};
  return blocks;
}

TEST(TypesBlocks, StorageIsAByteArrayAndMaxBitsCountsOneAlignmentPerBlock) {
  static_assert(std::is_same_v<decltype(dt::Blocks::key), std::array<uint8_t, dt::KeyBytes>>);
  static_assert(std::is_same_v<decltype(dt::Blocks::hashes), std::array<std::array<uint8_t, 20>, 2>>);
  // flag 1; key 7 + 128; one 7 + 8; hashes 2 * (7 + 160); tag 1 + 7 + 32.
  EXPECT_EQ(dt::Blocks::MaxBits, 525u);
}

TEST(TypesBlocks, GoldenBytes) {
  for (bool with_tag : {false, true}) {
    const dt::Blocks blocks = sample_blocks(with_tag);
    const Encoded encoded = encode(blocks, 0);
    std::vector<std::byte> expected = bytes_of({0x01});  // flag, then 7 zero bits of padding
    for (uint8_t b : blocks.key) expected.push_back(std::byte{b});
    expected.push_back(std::byte{0xaa});
    for (const auto& hash : blocks.hashes) {
      for (uint8_t b : hash) expected.push_back(std::byte{b});
    }
    expected.push_back(static_cast<std::byte>(with_tag ? 0x01 : 0x00));  // presence bit
    if (with_tag) expected.insert(expected.end(), {std::byte{0xde}, std::byte{0xad}, std::byte{0xbe}, std::byte{0xef}});
    EXPECT_EQ(encoded.bits, with_tag ? 59u * 8 + 32 : 58u * 8 + 1);
    EXPECT_EQ(encoded.bytes, expected);
    EXPECT_EQ(read_back<dt::Blocks>(encoded), blocks);
  }
}

TEST(TypesBlocks, MeasureIsTheSameForEveryContent) {
  dt::Blocks zero;
  zero.has_tag = true;
  const dt::Blocks full = sample_blocks(true);
  EXPECT_EQ(measure(zero), measure(full));
  EXPECT_EQ(measure(full), dt::Blocks::MaxBits);
}

TEST(TypesBlocks, RoundTripsAtEveryOffset) {
  for (size_t offset = 0; offset < 64; ++offset) {
    const dt::Blocks blocks = sample_blocks(offset % 2 == 0);
    const Encoded encoded = encode(blocks, offset, ~0ull);
    EXPECT_EQ(read_back<dt::Blocks>(encoded), blocks) << "offset " << offset;
  }
}

TEST(TypesBlocks, ReadRefusesNonZeroPaddingBeforeABlock) {
  const Encoded encoded = encode(sample_blocks(false), 0);
  for (int bit = 1; bit < 8; ++bit) {
    std::vector<std::byte> bytes = encoded.bytes;
    bytes[0] |= static_cast<std::byte>(1u << bit);
    dt::Blocks read;
    const Decoded decoded = decode(bytes, 0, read);
    EXPECT_FALSE(decoded.ok);
    EXPECT_EQ(decoded.error, bitwire::ReadError::kNonZeroPadding) << bit;
  }
}

// An array of blocks is an array of arrays: its formatting must find the array overload (declared
// before format_range; std::array<uint8_t> brings no bitwire overload through ADL).
TEST(TypesBlocks, FormatsArraysOfBlocks) {
  const std::string text = describe(sample_blocks(false));
  EXPECT_NE(text.find("hashes=[[16, 17, 18"), std::string::npos) << text;
  EXPECT_NE(text.find("one=[170]"), std::string::npos) << text;
}

TEST(TypesBlocks, EveryTruncationFailsInsideTheBytesGiven) {
  check_truncations(sample_blocks(true), dt::Blocks{}, 0);
  check_truncations(sample_blocks(true), dt::Blocks{}, 13);
}

TEST(TypesLoadout, RoundTripsWithUnknownEnumsAndEdgeValues) {
  dt::Loadout loadout;
  loadout.primary = static_cast<dt::Weapon>(15);
  loadout.secondary = dt::Weapon::RocketLauncher;
  loadout.lean = static_cast<dt::Lean>(99);
  loadout.wide.full = kU64Max;
  loadout.wide.full_signed = kI64Min;
  loadout.blocks = sample_blocks(true);
  for (size_t offset : {0u, 1u, 7u, 33u, 63u}) {
    EXPECT_EQ(read_back<dt::Loadout>(encode(loadout, offset, 0x1234'5678'9abc'def0ull)), loadout);
  }
  EXPECT_LE(measure(loadout), dt::Loadout::MaxBits);
}

}  // namespace
