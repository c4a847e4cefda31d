// Golden byte vectors for every serialize primitive. Each expected byte string is worked out by hand from
// the wire rules (docs/wire-format.md, "Bits": LSB first, bit k of the stream is bit k%8 of byte k/8); the
// comment above each vector is the derivation. Every vector is checked both ways: the write gives exactly
// these bytes (and touches nothing after them), and reading these bytes -- from an exactly sized heap
// block, so the sanitizer build sees any over-read -- consumes exactly the stated bits and gives back the
// values. Floats compare as bit patterns.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "bitwire/serialize/serialize.hpp"
#include "serialize_golden.hpp"
#include "serialize_mixed_message.hpp"

namespace bitwire::test {
namespace {

// ---- bits and bool ----

struct Three {
  uint64_t a = 0, b = 0, c = 0;
  bool operator==(const Three&) const = default;
};

TEST(GoldenBits, OneThreeAndFourBitFields) {
  auto one = [](auto& s, auto& v) { return serialize_bits(s, v.v, 1); };
  auto three = [](auto& s, auto& v) { return serialize_bits(s, v.v, 3); };
  auto four = [](auto& s, auto& v) { return serialize_bits(s, v.v, 4); };
  expect_golden(One<uint8_t>{1}, one, {0x01}, 1);    // bit 0
  expect_golden(One<uint8_t>{5}, three, {0x05}, 3);  // 101 at bits 0..2
  expect_golden(One<uint8_t>{10}, four, {0x0A}, 4);  // 1010 at bits 0..3
  // 1 at bit 0, 101 at bits 1..3 (0x0A), 1010 at bits 4..7 (0xA0): 0x01 | 0x0A | 0xA0 = 0xAB.
  expect_golden(
      Three{1, 5, 10},
      [](auto& s, auto& v) {
        return serialize_bits(s, v.a, 1) && serialize_bits(s, v.b, 3) && serialize_bits(s, v.c, 4);
      },
      {0xAB}, 8);
}

TEST(GoldenBits, SixtyFourBitFields) {
  auto b64 = [](auto& s, auto& v) { return serialize_bits(s, v.v, 64); };
  // Aligned: the 8 bytes of the value, low byte first.
  expect_golden(One<uint64_t>{0x0123'4567'89AB'CDEF}, b64, {0xEF, 0xCD, 0xAB, 0x89, 0x67, 0x45, 0x23, 0x01},
                64);
  // After one bit: value bit 0 lands on stream bit 1 (byte 0 = 0x01 | 0x02), value bit 63 on stream bit 64
  // (byte 8 bit 0); 65 bits, 9 bytes.
  expect_golden(
      Three{1, 0x8000'0000'0000'0001, 0},
      [](auto& s, auto& v) { return serialize_bits(s, v.a, 1) && serialize_bits(s, v.b, 64); },
      {0x03, 0, 0, 0, 0, 0, 0, 0, 0x01}, 65);
}

TEST(GoldenBits, ValuesAboveThirtyTwoBits) {
  // 33 bits of 0x123456789: bytes 89 67 45 23 and bit 32 = 1 in byte 4.
  expect_golden(
      One<uint64_t>{0x1'2345'6789}, [](auto& s, auto& v) { return serialize_bits(s, v.v, 33); },
      {0x89, 0x67, 0x45, 0x23, 0x01}, 33);
  // Three zero bits, then 40 bits of 0xFF00FF00FF: 0xFF00FF00FF << 3 = 0x7F807F807F8 -> F8 07 F8 07 F8 07.
  expect_golden(
      Three{0, 0xFF'00FF'00FF, 0},
      [](auto& s, auto& v) { return serialize_bits(s, v.a, 3) && serialize_bits(s, v.b, 40); },
      {0xF8, 0x07, 0xF8, 0x07, 0xF8, 0x07}, 43);
  // 111 at bits 0..2, then 33 bits of 2^32: its only one bit lands on stream bit 35 (byte 4, 0x08).
  expect_golden(
      Three{7, uint64_t{1} << 32, 0},
      [](auto& s, auto& v) { return serialize_bits(s, v.a, 3) && serialize_bits(s, v.b, 33); },
      {0x07, 0x00, 0x00, 0x00, 0x08}, 36);
}

TEST(GoldenBool, OneBitEach) {
  struct Flags {
    bool a = false, b = false, c = false;
    bool operator==(const Flags&) const = default;
  };
  // 1, 0, 1 at bits 0, 1, 2: 0x05.
  expect_golden(
      Flags{true, false, true},
      [](auto& s, auto& v) {
        return serialize_bool(s, v.a) && serialize_bool(s, v.b) && serialize_bool(s, v.c);
      },
      {0x05}, 3, Flags{false, true, false});
}

TEST(GoldenBits, FixedWidthHelpers) {
  struct Prefixed {
    bool flag = false;
    uint8_t u8 = 0;
    uint16_t u16 = 0;
    uint32_t u32 = 0;
    bool operator==(const Prefixed&) const = default;
  };
  // 1, then 0xA5 from bit 1: (0xA5 << 1) | 1 = 0x14B -> 4B 01.
  expect_golden(
      Prefixed{true, 0xA5, 0, 0},
      [](auto& s, auto& v) { return serialize_bool(s, v.flag) && serialize_uint8(s, v.u8); }, {0x4B, 0x01},
      9);
  // (0xBEEF << 1) | 1 = 0x17DDF -> DF 7D 01.
  expect_golden(
      Prefixed{true, 0, 0xBEEF, 0},
      [](auto& s, auto& v) { return serialize_bool(s, v.flag) && serialize_uint16(s, v.u16); },
      {0xDF, 0x7D, 0x01}, 17);
  // (0xDEADBEEF << 1) | 1 = 0x1BD5B7DDF -> DF 7D 5B BD 01.
  expect_golden(
      Prefixed{true, 0, 0, 0xDEAD'BEEF},
      [](auto& s, auto& v) { return serialize_bool(s, v.flag) && serialize_uint32(s, v.u32); },
      {0xDF, 0x7D, 0x5B, 0xBD, 0x01}, 33);
  expect_golden(
      One<uint64_t>{0x0102'0304'0506'0708}, [](auto& s, auto& v) { return serialize_uint64(s, v.v); },
      {0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01}, 64);
}

// ---- ranged integers ----

TEST(GoldenInt, RangesOfOneThreeAndFourBits) {
  // [-4,-3]: range 1, one bit; -3 is offset 1.
  expect_golden(
      One<int32_t>{-3}, [](auto& s, auto& v) { return serialize_int(s, v.v, -4, -3); }, {0x01}, 1);
  // [0,7]: 3 bits; 6 = 110.
  expect_golden(
      One<int32_t>{6}, [](auto& s, auto& v) { return serialize_int(s, v.v, 0, 7); }, {0x06}, 3);
  // [0,8]: bit length of 8 is 4; 8 = 1000.
  expect_golden(
      One<int32_t>{8}, [](auto& s, auto& v) { return serialize_int(s, v.v, 0, 8); }, {0x08}, 4);
  // [-8,7]: range 15, 4 bits; -1 is offset 7.
  expect_golden(
      One<int32_t>{-1}, [](auto& s, auto& v) { return serialize_int(s, v.v, -8, 7); }, {0x07}, 4);
  // [1000,5095] in a uint16: range 4095, 12 bits; 1000 + 0xABC is offset 0xABC -> BC 0A.
  expect_golden(
      One<uint16_t>{1000 + 0xABC}, [](auto& s, auto& v) { return serialize_int(s, v.v, 1000, 5095); },
      {0xBC, 0x0A}, 12);
  // int8 over its whole range: -128 is offset 0, 127 is offset 255.
  auto int8_full = [](auto& s, auto& v) { return serialize_int(s, v.v, int8_t{-128}, int8_t{127}); };
  expect_golden(One<int8_t>{-128}, int8_full, {0x00}, 8, One<int8_t>{5});
  expect_golden(One<int8_t>{127}, int8_full, {0xFF}, 8);
  // [INT32_MIN, INT32_MAX]: 32 bits; -1 is offset 0x7FFFFFFF.
  expect_golden(
      One<int32_t>{-1},
      [](auto& s, auto& v) {
        return serialize_int(s, v.v, std::numeric_limits<int32_t>::min(),
                             std::numeric_limits<int32_t>::max());
      },
      {0xFF, 0xFF, 0xFF, 0x7F}, 32);
}

TEST(GoldenInt, DegenerateRangeWritesNothing) {
  auto degenerate = [](auto& s, auto& v) { return serialize_int(s, v.v, 5, 5); };
  // Nothing on the wire; the reader takes the value from the range (start value 0 must become 5).
  expect_golden(One<int32_t>{5}, degenerate, {}, 0);
  // Between two one-bits it leaves them adjacent: bits 0 and 1 -> 0x03.
  struct Around {
    bool a = false;
    int32_t mid = 0;
    bool b = false;
    bool operator==(const Around&) const = default;
  };
  expect_golden(
      Around{true, 5, true},
      [](auto& s, auto& v) {
        return serialize_bool(s, v.a) && serialize_int(s, v.mid, 5, 5) && serialize_bool(s, v.b);
      },
      {0x03}, 2);
  // The 64- and 128-bit forms and the enum helper are the same: zero bits.
  expect_golden(
      One<int64_t>{int64_t{1} << 40},
      [](auto& s, auto& v) { return serialize_int64(s, v.v, int64_t{1} << 40, int64_t{1} << 40); }, {}, 0);
  expect_golden(
      One<int128_t>{-7}, [](auto& s, auto& v) { return serialize_int128(s, v.v, -7, -7); }, {}, 0);
  expect_golden(
      One<Color>{Color::kBlue},
      [](auto& s, auto& v) { return serialize_enum(s, v.v, Color::kBlue, Color::kBlue); }, {}, 0);
}

TEST(GoldenInt64, RangesAboveThirtyTwoBits) {
  // [0, 2^40-1]: 40 bits; the value's 5 bytes, low first.
  expect_golden(
      One<int64_t>{0x12'3456'789A},
      [](auto& s, auto& v) { return serialize_int64(s, v.v, int64_t{0}, (int64_t{1} << 40) - 1); },
      {0x9A, 0x78, 0x56, 0x34, 0x12}, 40);
  // [1000, 1000 + 2^35]: range 2^35, 36 bits. Offset 0x700000001 -> 01 00 00 00 07; the top offset 2^35
  // is bit 35 alone -> 00 00 00 00 08.
  auto from_1000 = [](auto& s, auto& v) {
    return serialize_int64(s, v.v, int64_t{1000}, 1000 + (int64_t{1} << 35));
  };
  expect_golden(One<int64_t>{1000 + 0x7'0000'0001}, from_1000, {0x01, 0x00, 0x00, 0x00, 0x07}, 36);
  expect_golden(One<int64_t>{1000 + (int64_t{1} << 35)}, from_1000, {0x00, 0x00, 0x00, 0x00, 0x08}, 36);
  // [INT64_MIN, INT64_MAX]: 64 bits; -2 is offset 0x7FFFFFFFFFFFFFFE.
  expect_golden(
      One<int64_t>{-2},
      [](auto& s, auto& v) {
        return serialize_int64(s, v.v, std::numeric_limits<int64_t>::min(),
                               std::numeric_limits<int64_t>::max());
      },
      {0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F}, 64);
  // A 64-bit type over a small range is the small ranged int: [-10,10] is 5 bits, 10 is offset 20 = 10100.
  expect_golden(
      One<int64_t>{10}, [](auto& s, auto& v) { return serialize_int64(s, v.v, int64_t{-10}, int64_t{10}); },
      {0x14}, 5);
  // [0, UINT64_MAX] through serialize_int: the 64 raw bits.
  expect_golden(
      One<uint64_t>{0x8000'0000'0000'0001},
      [](auto& s, auto& v) { return serialize_int(s, v.v, uint64_t{0}, ~uint64_t{0}); },
      {0x01, 0, 0, 0, 0, 0, 0, 0x80}, 64);
}

TEST(GoldenEnum, RangedOverTheUnderlyingValues) {
  // kRed..kBeta is [0,4]: 3 bits; kAlpha = 3 = 011.
  expect_golden(
      One<Color>{Color::kAlpha},
      [](auto& s, auto& v) { return serialize_enum(s, v.v, Color::kRed, Color::kBeta); }, {0x03}, 3);
  // A signed underlying type: [-2,1] is 2 bits; kEast (1) is offset 3, kWest (-2) offset 0.
  enum class Heading : int8_t { kWest = -2, kSouth = -1, kNorth = 0, kEast = 1 };
  auto heading = [](auto& s, auto& v) { return serialize_enum(s, v.v, Heading::kWest, Heading::kEast); };
  expect_golden(One<Heading>{Heading::kEast}, heading, {0x03}, 2);
  expect_golden(One<Heading>{Heading::kWest}, heading, {0x00}, 2, One<Heading>{Heading::kNorth});
}

// ---- check, align, bytes, strings ----

TEST(GoldenCheck, AlignThenMagic) {
  struct Flag {
    bool v = false;
    bool operator==(const Flag&) const = default;
  };
  // 1 at bit 0, 7 zero bits, then 0x12345678 low byte first.
  expect_golden(
      Flag{true}, [](auto& s, auto& v) { return serialize_bool(s, v.v) && serialize_check(s); },
      {0x01, 0x78, 0x56, 0x34, 0x12}, 40);
  // Already aligned: the magic alone.
  expect_golden(
      Flag{}, [](auto& s, auto&) { return serialize_check(s); }, {0x78, 0x56, 0x34, 0x12}, 32);
  // Another magic value.
  expect_golden(
      Flag{}, [](auto& s, auto&) { return serialize_check(s, 0xCAFE'F00D); }, {0x0D, 0xF0, 0xFE, 0xCA}, 32);
}

TEST(GoldenAlign, PadsWithZerosOnlyWhenNeeded) {
  struct Two {
    uint8_t a = 0, b = 0;
    bool operator==(const Two&) const = default;
  };
  // 1 at bit 0, seven zero bits, then 0xFF in byte 1.
  expect_golden(
      Two{1, 0xFF},
      [](auto& s, auto& v) {
        return serialize_bits(s, v.a, 1) && serialize_align(s) && serialize_uint8(s, v.b);
      },
      {0x01, 0xFF}, 16);
  // Aligned: nothing between the bytes; two aligns in a row pad once.
  expect_golden(
      Two{0x42, 0x43},
      [](auto& s, auto& v) {
        return serialize_uint8(s, v.a) && serialize_align(s) && serialize_uint8(s, v.b);
      },
      {0x42, 0x43}, 16);
  expect_golden(
      Two{1, 0},
      [](auto& s, auto& v) { return serialize_bits(s, v.a, 1) && serialize_align(s) && serialize_align(s); },
      {0x01}, 8);
  // On an empty stream: nothing.
  expect_golden(
      Two{}, [](auto& s, auto&) { return serialize_align(s); }, {}, 0);
}

TEST(GoldenBytes, AlignThenRawBytes) {
  struct Block {
    uint8_t head = 0;
    std::array<uint8_t, 9> data{};
    uint8_t tail = 0;
    bool operator==(const Block&) const = default;
  };
  // 11 at bits 0..1, six zero bits, then AA BB CC.
  expect_golden(
      Block{3, {0xAA, 0xBB, 0xCC}, 0},
      [](auto& s, auto& v) { return serialize_bits(s, v.head, 2) && serialize_bytes(s, v.data.data(), 3); },
      {0x03, 0xAA, 0xBB, 0xCC}, 32);
  // Across the first word boundary: five ones, three zero bits, nine bytes.
  expect_golden(
      Block{0x1F, {1, 2, 3, 4, 5, 6, 7, 8, 9}, 0},
      [](auto& s, auto& v) { return serialize_bits(s, v.head, 5) && serialize_bytes(s, v.data.data(), 9); },
      {0x1F, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 80);
  // Zero bytes still align: 1 at bit 0, padding, then the next 1 at bit 8.
  expect_golden(
      Block{1, {}, 1},
      [](auto& s, auto& v) {
        return serialize_bits(s, v.head, 1) && serialize_bytes(s, v.data.data(), 0) &&
               serialize_bits(s, v.tail, 1);
      },
      {0x01, 0x01}, 9);
  // Zero bytes on an aligned stream: nothing.
  expect_golden(
      Block{}, [](auto& s, auto& v) { return serialize_bytes(s, v.data.data(), 0); }, {}, 0);
}

// A string buffer; equal when both hold the same terminated string (bytes after the terminator are not
// part of the value: a read into a used buffer leaves them).
struct Text {
  bool flag = false;
  char s[16] = {};
  bool operator==(const Text& other) const {
    const size_t length = strnlen(s, sizeof s);
    return flag == other.flag && length < sizeof s && std::memcmp(s, other.s, length + 1) == 0;
  }
};
Text text_of(const char* s, bool flag = false) {
  Text t;
  t.flag = flag;
  std::strncpy(t.s, s, sizeof t.s - 1);
  return t;
}

TEST(GoldenString, LengthThenAlignedBytes) {
  auto buffer16 = [](auto& s, auto& v) { return serialize_string(s, v.s, 16); };
  // "h" U+00E9 U+20AC U+1F600 is 1 + 2 + 3 + 4 = 10 bytes. Length int(10, 0, 15): 4 bits 1010, 4 zero bits
  // of padding (0x0A), then the bytes.
  expect_golden(text_of("h\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80"), buffer16,
                {0x0A, 0x68, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98, 0x80}, 88, text_of("garbage"));
  // Empty: a zero length and the padding.
  expect_golden(text_of(""), buffer16, {0x00}, 8, text_of("garbage"));
  // A flag first: length int(2, 0, 3) = 10 at bits 1..2 -> 0x01 | 0x04 = 0x05, padding, "ab".
  expect_golden(
      text_of("ab", true),
      [](auto& s, auto& v) { return serialize_bool(s, v.flag) && serialize_string(s, v.s, 4); },
      {0x05, 0x61, 0x62}, 24);
  // The longest string a 4-byte buffer holds: length 3 = 11, padding, "abc".
  expect_golden(
      text_of("abc"), [](auto& s, auto& v) { return serialize_string(s, v.s, 4); }, {0x03, 0x61, 0x62, 0x63},
      32);
  // A 1-byte buffer holds only "": zero-bit length, aligned, no bytes: nothing at all.
  expect_golden(
      text_of(""), [](auto& s, auto& v) { return serialize_string(s, v.s, 1); }, {}, 0);
}

// ---- int_relative ----

TEST(GoldenIntRelative, EveryTier) {
  auto from = [](uint32_t previous) {
    return [previous](auto& s, auto& v) { return serialize_int_relative(s, previous, v.v); };
  };
  using U = One<uint32_t>;
  // d = 1: flag 1.
  expect_golden(U{101}, from(100), {0x01}, 1);
  // d in [2,6]: flags 0 1 (bit 1 -> 0x02), then int(d, 2, 6) in 3 bits from bit 2.
  expect_golden(U{102}, from(100), {0x02}, 5);  // offset 0
  expect_golden(U{105}, from(100), {0x0E}, 5);  // offset 3: 0x02 | 3 << 2
  expect_golden(U{106}, from(100), {0x12}, 5);  // offset 4: 0x02 | 4 << 2
  // d in [7,23]: flags 0 0 1 (0x04), then int(d, 7, 23) in 5 bits from bit 3.
  expect_golden(U{107}, from(100), {0x04}, 8);  // offset 0
  expect_golden(U{123}, from(100), {0x84}, 8);  // offset 16: 0x04 | 16 << 3
  // d in [24,280]: flags 0 0 0 1 (0x08), then int(d, 24, 280) in 9 bits from bit 4.
  expect_golden(U{124}, from(100), {0x08, 0x00}, 13);  // offset 0
  expect_golden(U{380}, from(100), {0x08, 0x10}, 13);  // offset 256: 0x08 | 256 << 4 = 0x1008
  // d in [281,4377]: flags 0 0 0 0 1 (0x10), then int(d, 281, 4377) in 13 bits from bit 5.
  expect_golden(U{381}, from(100), {0x10, 0x00, 0x00}, 18);   // offset 0
  expect_golden(U{4477}, from(100), {0x10, 0x00, 0x02}, 18);  // offset 4096: 0x10 | 1 << 17
  // d in [4378,69914]: flags 0 0 0 0 0 1 (0x20), then int(d, 4378, 69914) in 17 bits from bit 6.
  expect_golden(U{4478}, from(100), {0x20, 0x00, 0x00}, 23);   // offset 0
  expect_golden(U{5478}, from(100), {0x20, 0xFA, 0x00}, 23);   // offset 1000: 0x20 | 1000 << 6 = 0xFA20
  expect_golden(U{70014}, from(100), {0x20, 0x00, 0x40}, 23);  // offset 65536: 0x20 | 1 << 22
  // d above 69914: six zero flags, then current itself in 32 bits from bit 6.
  // 70015 = 0x1117F; 0x1117F << 6 = 0x445FC0 -> C0 5F 44 00 00.
  expect_golden(U{70015}, from(100), {0xC0, 0x5F, 0x44, 0x00, 0x00}, 38);
  // 0xFFFFFFFF << 6 = 0x3FFFFFFFC0.
  expect_golden(U{0xFFFF'FFFF}, from(0), {0xC0, 0xFF, 0xFF, 0xFF, 0x3F}, 38);
}

TEST(GoldenIntRelative, ReaderAcceptsAWiderTierThanTheWriterWouldPick) {
  // 101 sent in the absolute form: six zero flags, 101 << 6 = 0x1940 -> 40 19 00 00 00.
  expect_read(
      Bytes{0x40, 0x19, 0x00, 0x00, 0x00},
      [](auto& s, auto& v) { return serialize_int_relative(s, uint32_t{100}, v.v); }, One<uint32_t>{101}, 38);
}

// ---- floating point ----

TEST(GoldenFloat, BitPatternsRoundTripExactly) {
  auto f = [](auto& s, auto& v) { return serialize_float(s, v.v); };
  expect_golden(f32_bits(0x7FC1'2345), f, {0x45, 0x23, 0xC1, 0x7F}, 32);  // quiet NaN with a payload
  expect_golden(f32_bits(0x7F80'0001), f, {0x01, 0x00, 0x80, 0x7F}, 32);  // signaling NaN
  expect_golden(f32_bits(0xFFFF'FFFF), f, {0xFF, 0xFF, 0xFF, 0xFF}, 32);  // negative NaN, full payload
  expect_golden(f32_bits(0x8000'0000), f, {0x00, 0x00, 0x00, 0x80}, 32);  // -0
  expect_golden(f32_bits(0x0000'0001), f, {0x01, 0x00, 0x00, 0x00}, 32);  // smallest denormal
  expect_golden(f32_bits(0x007F'FFFF), f, {0xFF, 0xFF, 0x7F, 0x00}, 32);  // largest denormal
  expect_golden(f32_bits(0xFF80'0000), f, {0x00, 0x00, 0x80, 0xFF}, 32);  // -infinity
  // After one bit: (0x3F800000 << 1) | 1 = 0x7F000001 -> 01 00 00 7F, then bit 32 (0) in byte 4.
  struct Prefixed {
    bool flag = false;
    F32 x;
    bool operator==(const Prefixed&) const = default;
  };
  expect_golden(
      Prefixed{true, F32{1.0f}},
      [](auto& s, auto& v) { return serialize_bool(s, v.flag) && serialize_float(s, v.x.v); },
      {0x01, 0x00, 0x00, 0x7F, 0x00}, 33);
}

TEST(GoldenDouble, BitPatternsRoundTripExactly) {
  auto d = [](auto& s, auto& v) { return serialize_double(s, v.v); };
  expect_golden(f64_bits(0x7FF0'0000'0000'0001), d, {0x01, 0, 0, 0, 0, 0, 0xF0, 0x7F}, 64);  // signaling NaN
  // A quiet NaN with a payload.
  expect_golden(f64_bits(0x7FF8'DEAD'BEEF'0001), d, {0x01, 0x00, 0xEF, 0xBE, 0xAD, 0xDE, 0xF8, 0x7F}, 64);
  expect_golden(f64_bits(0x8000'0000'0000'0000), d, {0, 0, 0, 0, 0, 0, 0, 0x80}, 64);  // -0
  // The largest denormal.
  expect_golden(f64_bits(0x000F'FFFF'FFFF'FFFF), d, {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x00}, 64);
  expect_golden(f64_bits(0x0000'0000'0000'0001), d, {0x01, 0, 0, 0, 0, 0, 0, 0}, 64);  // smallest denormal
  // After one bit: (0x3FF0000000000000 << 1) | 1 = 0x7FE0000000000001, and bit 64 (0) in byte 8.
  struct Prefixed {
    bool flag = false;
    F64 x;
    bool operator==(const Prefixed&) const = default;
  };
  expect_golden(
      Prefixed{true, F64{1.0}},
      [](auto& s, auto& v) { return serialize_bool(s, v.flag) && serialize_double(s, v.x.v); },
      {0x01, 0, 0, 0, 0, 0, 0xE0, 0x7F, 0x00}, 65);
}

// ---- compressed float ----
//
// Every step is float32 and rounds: n = (v - min) / delta, clamped to [0,1]; p = n * maxint; s = p + 0.5;
// the integer is floor(s), clamped to maxint. Decode: q = i / maxint; p = q * delta; v = p + min.

auto compressed(float min, float max, float resolution) {
  return [=](auto& s, auto& v) { return serialize_compressed_float(s, v.v, min, max, resolution); };
}

TEST(GoldenCompressedFloat, ValuesBetweenQuantaOverZeroToTen) {
  // delta 10; 10 / 0.01f = 1000.0000224 -> 1000.0f: maxint 1000, 10 bits.
  const auto zero_ten = compressed(0.0f, 10.0f, 0.01f);
  // 0.005f / 10 = 0.00049999997; * 1000 = 0.49999997 (exactly 0.5 - 2^-25); + 0.5 = 1 - 2^-25, a tie
  // between 1 - 2^-24 and 1.0 that rounds to even: 1.0. Integer 1 -> 01 00. (Widened to double: 0.)
  expect_write(F32{0.005f}, zero_ten, {0x01, 0x00}, 10);
  // 0.025f / 10 = 0.0024999999; * 1000 = 2.49999994 rounds to 2.5 (ulp 2^-22); + 0.5 = 3. -> 03 00.
  expect_write(F32{0.025f}, zero_ten, {0x03, 0x00}, 10);
  // 0.105f / 10 = 0.0104999999; * 1000 = 10.49999986 rounds to 10.5 (ulp 2^-20); + 0.5 = 11. -> 0B 00.
  expect_write(F32{0.105f}, zero_ten, {0x0B, 0x00}, 10);
  // 9.995f / 10 = 0.99949998; * 1000 = 999.49998 rounds to 999.5 (ulp 2^-14); + 0.5 = 1000 = 0x3E8 -> E8 03.
  expect_write(F32{9.995f}, zero_ten, {0xE8, 0x03}, 10);
  // On a quantum every variant agrees: 2.5 -> 250 -> FA 00.
  expect_write(F32{2.5f}, zero_ten, {0xFA, 0x00}, 10);
  // Out of [min, max] clamps: -1 -> 0, 11 -> 1000.
  expect_write(F32{-1.0f}, zero_ten, {0x00, 0x00}, 10);
  expect_write(F32{11.0f}, zero_ten, {0xE8, 0x03}, 10);
}

TEST(GoldenCompressedFloat, DecodeOverZeroToTen) {
  const auto zero_ten = compressed(0.0f, 10.0f, 0.01f);
  // 1 / 1000 = 8589935 * 2^-33; * 10 = 10737418.75 * 2^-30 -> 10737419 * 2^-30 = 0x3C23D70B.
  expect_read(Bytes{0x01, 0x00}, zero_ten, f32_bits(0x3C23'D70B), 10);
  // 3 / 1000 = 6442451 * 2^-31; * 10 = 16106127.5 * 2^-29, a tie -> even 16106128 * 2^-29 = 0x3CF5C290.
  expect_read(Bytes{0x03, 0x00}, zero_ten, f32_bits(0x3CF5'C290), 10);
  // 11 / 1000 = 1476395 * 2^-27; * 10 = 14763950 * 2^-27 exactly = 0x3DE147AE.
  expect_read(Bytes{0x0B, 0x00}, zero_ten, f32_bits(kMixedCompressedReadBits), 10);
  // 1000 / 1000 = 1; * 10 = 10 = 0x41200000.
  expect_read(Bytes{0xE8, 0x03}, zero_ten, f32_bits(0x4120'0000), 10);
}

TEST(GoldenCompressedFloat, NonZeroMinDecodeIsBitExact) {
  // [-10,10] at 0.01: delta 20; 20 / 0.01f = 2000.0000447 -> 2000.0f: maxint 2000, 11 bits. 106 = 0x6A.
  // q = 106 / 2000 = 14227079 * 2^-28. q * 20 = 8891924.375 * 2^-23 -> 8891924 * 2^-23 (1.05999994).
  // p - 10 = -9374269.5 * 2^-20, a tie -> even -9374270 * 2^-20 = -8.94000053 = 0xC10F0A3E.
  // (Fused, q * 20 - 10 rounds once from -9374269.453125 to -9374269 * 2^-20 = 0xC10F0A3D.)
  expect_read(Bytes{0x6A, 0x00}, compressed(-10.0f, 10.0f, 0.01f), f32_bits(0xC10F'0A3E), 11);
}

TEST(GoldenCompressedFloat, IntegerClampWitnesses) {
  // [0, 8388609] at 1: maxint 8388609 = 2^23 + 1, 24 bits. Writing max: n = 1, p = 8388609,
  // s = 8388609.5 ties to even 8388610 > maxint: clamped to 8388609 = 0x800001 -> 01 00 80.
  expect_write(F32{8388609.0f}, compressed(0.0f, 8388609.0f, 1.0f), {0x01, 0x00, 0x80}, 24);
  // Decoded: 8388609 / 8388609 = 1; * 8388609 = 8388609 = 0x4B000001.
  expect_read(Bytes{0x01, 0x00, 0x80}, compressed(0.0f, 8388609.0f, 1.0f), f32_bits(0x4B00'0001), 24);
  // [0, 16777215] at 1: maxint 2^24 - 1, 24 bits. Writing max: s = 16777215.5 ties to even 16777216,
  // which needs 25 bits: clamped to 16777215 -> FF FF FF.
  expect_write(F32{16777215.0f}, compressed(0.0f, 16777215.0f, 1.0f), {0xFF, 0xFF, 0xFF}, 24);
}

TEST(GoldenCompressedFloat, FusionWitness) {
  // 8388608 over [0, 16777215] at 1: n = 2^23 / (2^24 - 1) = 0.5 + 2^-25 + ..., rounds up to 0.5 + 2^-24.
  // p = (0.5 + 2^-24)(2^24 - 1) = 8388608.5 - 2^-24, rounds to 8388608; s = 8388608.5 ties to even
  // 8388608 = 0x800000 -> 00 00 80. (Fused, p + 0.5 = 8388608.99999994 rounds to 8388609: 01 00 80.)
  expect_write(F32{8388608.0f}, compressed(0.0f, 16777215.0f, 1.0f), {0x00, 0x00, 0x80}, 24);
}

TEST(GoldenCompressedFloat, StepCountRoundsUpAndNeverBelowOne) {
  // [-1,1] at 0.001: 2 / 0.001f = 1999.99990 -> 1999.99988f, ceil 2000: 11 bits. 1.0 -> 2000 = 0x7D0.
  expect_write(F32{1.0f}, compressed(-1.0f, 1.0f, 0.001f), {0xD0, 0x07}, 11);
  // [0,1] at 2: 0.5 steps, raised to 1: one bit. 0.6 + 0.5 -> 1; 0.4 + 0.5 -> 0.
  expect_write(F32{0.6f}, compressed(0.0f, 1.0f, 2.0f), {0x01}, 1);
  expect_write(F32{0.4f}, compressed(0.0f, 1.0f, 2.0f), {0x00}, 1);
}

// ---- fixed point ----

TEST(GoldenFixed, Q8_8OverMinusHundredToHundred) {
  auto q8_8 = [](auto& s, auto& v) { return serialize_fixed<8>(s, v.v, -100, 100); };
  // raw bounds [-25600, 25600], range 51200: 16 bits. -3.25 is raw -832, offset 24768 = 0x60C0 -> C0 60.
  EXPECT_EQ((to_fixed<8, int16_t>(-3.25)), -832);
  EXPECT_EQ((from_fixed<8>(int16_t{-832})), -3.25);
  expect_golden(One<int16_t>{-832}, q8_8, {0xC0, 0x60}, 16);
  // The ends: -100 is offset 0, 100 is offset 51200 = 0xC800.
  expect_golden(One<int16_t>{-25600}, q8_8, {0x00, 0x00}, 16, One<int16_t>{1});
  expect_golden(One<int16_t>{25600}, q8_8, {0x00, 0xC8}, 16);
}

TEST(GoldenFixed, ToFixedRoundsTiesHalfAwayFromZero) {
  // -3.251953125 * 256 = -832.5: away from zero is -833 (an arithmetic shift would give -832). On the
  // wire: offset -833 + 25600 = 24767 = 0x60BF -> BF 60.
  EXPECT_EQ((to_fixed<8, int16_t>(-3.251953125)), -833);
  EXPECT_EQ((to_fixed<8, int16_t>(3.251953125)), 833);
  EXPECT_EQ((to_fixed<8, int16_t>(-0.001953125)), -1);  // -0.5 raw
  EXPECT_EQ((to_fixed<8, int16_t>(-0.0019)), 0);        // -0.4864 raw
  expect_golden(
      One<int16_t>{to_fixed<8, int16_t>(-3.251953125)},
      [](auto& s, auto& v) { return serialize_fixed<8>(s, v.v, -100, 100); }, {0xBF, 0x60}, 16);
}

TEST(GoldenFixed, ToFixedRoundsValuesThatAreNotTiesToTheNearest) {
  // The largest double below 0.5 is nearer 0 than 1, and an odd integer above 2^52 is already whole: no
  // tie, so no half may be added that the double sum then rounds up.
  EXPECT_EQ((to_fixed<0, int64_t>(0.49999999999999994)), 0);
  EXPECT_EQ((to_fixed<0, int64_t>(-0.49999999999999994)), 0);
  EXPECT_EQ((to_fixed<0, int64_t>(4503599627370497.0)), int64_t{4503599627370497});
  EXPECT_EQ((to_fixed<0, int64_t>(-4503599627370497.0)), -int64_t{4503599627370497});
}

TEST(GoldenFixed, WiderStorage) {
  // Q32.32 in an int64 over [-1,1] units: raw bounds [-2^32, 2^32], range 2^33: 34 bits. 0.5 is raw 2^31,
  // offset 2^32 + 2^31: bit 31 (byte 3, 0x80) and bit 32 (byte 4, 0x01).
  expect_golden(
      One<int64_t>{to_fixed<32, int64_t>(0.5)},
      [](auto& s, auto& v) { return serialize_fixed<32>(s, v.v, -1, 1); }, {0, 0, 0, 0x80, 0x01}, 34);
  // Q112.16 in an int128 over [-2^57, 2^57] units: raw range 2^74, 75 bits. Raw -1 is offset 2^73 - 1:
  // 73 one bits -> nine FF bytes and bit 72 in byte 9.
  expect_golden(
      One<int128_t>{-1},
      [](auto& s, auto& v) { return serialize_fixed<16>(s, v.v, -(int64_t{1} << 57), int64_t{1} << 57); },
      {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01}, 75);
  // Q64.64 over the whole int64 unit range: raw range 2^128 - 2^64, 128 bits. Raw 0 is offset 2^127.
  expect_golden(
      One<int128_t>{0},
      [](auto& s, auto& v) {
        return serialize_fixed<64>(s, v.v, std::numeric_limits<int64_t>::min(),
                                   std::numeric_limits<int64_t>::max());
      },
      {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80}, 128, One<int128_t>{5});
  // A degenerate range: nothing, and the reader takes min << fraction bits = 3 * 256.
  expect_golden(
      One<int16_t>{768}, [](auto& s, auto& v) { return serialize_fixed<8>(s, v.v, 3, 3); }, {}, 0);
}

// ---- 128-bit integers ----

TEST(Golden128, Uint128LowHalfFirst) {
  auto u = [](auto& s, auto& v) { return serialize_uint128(s, v.v); };
  expect_golden(
      One<uint128_t>{(uint128_t{0x0011'2233'4455'6677} << 64) | 0x8899'AABB'CCDD'EEFF}, u,
      {0xFF, 0xEE, 0xDD, 0xCC, 0xBB, 0xAA, 0x99, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x00}, 128);
  // After one bit: value bit 127 lands on stream bit 128, byte 16 bit 0.
  struct Prefixed {
    bool flag = false;
    uint128_t v = 0;
    bool operator==(const Prefixed&) const = default;
  };
  expect_golden(
      Prefixed{true, uint128_t{1} << 127},
      [](auto& s, auto& v) { return serialize_bool(s, v.flag) && serialize_uint128(s, v.v); },
      {0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01}, 129);
}

TEST(Golden128, Int128RangedMatchesInt64WhileTheRangeFits) {
  // [-1000, 2^40]: range 2^40 + 1000, 41 bits. 0x1234567890 is offset 0x1234567C78 -> 78 7C 56 34 12 00.
  expect_golden(
      One<int128_t>{0x12'3456'7890},
      [](auto& s, auto& v) { return serialize_int128(s, v.v, -1000, int128_t{1} << 40); },
      {0x78, 0x7C, 0x56, 0x34, 0x12, 0x00}, 41);
  expect_golden(
      One<int64_t>{0x12'3456'7890},
      [](auto& s, auto& v) { return serialize_int64(s, v.v, int64_t{-1000}, int64_t{1} << 40); },
      {0x78, 0x7C, 0x56, 0x34, 0x12, 0x00}, 41);
  // The same bytes from both for ranges of every width up to 64 bits, at an odd starting bit.
  for (int bits = 1; bits <= 64; ++bits) {
    SCOPED_TRACE("range bits " + std::to_string(bits));
    const int64_t min = bits < 64 ? 3 - (int64_t{1} << (bits - 1)) : std::numeric_limits<int64_t>::min();
    const int64_t max =
        bits < 64 ? min + static_cast<int64_t>(low_mask(bits)) : std::numeric_limits<int64_t>::max();
    const int64_t value = max - (bits > 1 ? 1 : 0);
    std::array<std::byte, 16> narrow{}, wide{};
    WriteStream a(narrow), b(wide);
    uint8_t one = 1;
    int64_t v64 = value;
    auto v128 = static_cast<int128_t>(value);
    serialize_bits(a, one, 1);
    serialize_int64(a, v64, min, max);
    serialize_bits(b, one, 1);
    serialize_int128(b, v128, static_cast<int128_t>(min), static_cast<int128_t>(max));
    a.flush();
    b.flush();
    ASSERT_EQ(a.bits_processed(), static_cast<size_t>(1 + bits));
    ASSERT_EQ(b.bits_processed(), static_cast<size_t>(1 + bits));
    EXPECT_EQ(narrow, wide);
  }
}

TEST(Golden128, SeventyFiveBitRange) {
  // [0, 2^75 - 1]: 75 bits. 2^74 + 0x0102030405060708: the low 64 bits, then 2^10 in the top 11 bits,
  // that is bit 74: byte 9, bit 2 (0x04).
  expect_golden(
      One<int128_t>{(int128_t{1} << 74) + 0x0102'0304'0506'0708},
      [](auto& s, auto& v) { return serialize_int128(s, v.v, 0, (int128_t{1} << 75) - 1); },
      {0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, 0x00, 0x04}, 75);
  // The whole int128 range: 128 bits; -1 is offset 2^127 - 1.
  const auto max = static_cast<int128_t>(~uint128_t{0} >> 1);
  expect_golden(
      One<int128_t>{-1}, [max](auto& s, auto& v) { return serialize_int128(s, v.v, -max - 1, max); },
      {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F}, 128);
}

// ---- nested objects and measure ----

struct Outer {
  bool x = false;
  Inner inner;
  bool y = false;
  template <typename Stream>
  bool serialize(Stream& stream) {
    return serialize_bool(stream, x) && serialize_object(stream, inner) && serialize_bool(stream, y);
  }
  bool operator==(const Outer&) const = default;
};

TEST(GoldenObject, NestedObjectAddsNoBytes) {
  // x = 1 at bit 0, inner.a = 101 at bits 1..3 (0x0A), inner.b = 0 at bit 4, y = 1 at bit 5 (0x20): 0x2B.
  const Outer outer{true, Inner{5, false}, true};
  expect_golden(
      outer, [](auto& s, auto& v) { return v.serialize(s); }, {0x2B}, 6);
  // The same fields written flat give the same bytes.
  expect_golden(
      outer,
      [](auto& s, auto& v) {
        return serialize_bool(s, v.x) && serialize_bits(s, v.inner.a, 3) && serialize_bool(s, v.inner.b) &&
               serialize_bool(s, v.y);
      },
      {0x2B}, 6);
}

template <typename Ops>
size_t measured(Ops ops) {
  MeasureStream stream;
  ops(stream);
  return stream.bits_processed();
}

TEST(GoldenMeasure, ExactWidthsPlusSevenPerAlign) {
  uint8_t a = 1, b = 2;
  // {bits 8; align; bits 8}: 8 + 7 + 8, enough when written from bit 1 (where the align pads 7).
  EXPECT_EQ(measured([&](auto& s) {
              serialize_bits(s, a, 8);
              serialize_align(s);
              serialize_bits(s, b, 8);
            }),
            23u);
  std::array<std::byte, 3> block{};
  EXPECT_EQ(measured([&](auto& s) { serialize_bytes(s, block.data(), 3); }), 7u + 24u);
  EXPECT_EQ(measured([&](auto& s) { serialize_bytes(s, block.data(), 0); }), 7u);
  char text[16] = "abc";
  EXPECT_EQ(measured([&](auto& s) { serialize_string(s, text); }), 4u + 7u + 24u);
  EXPECT_EQ(measured([&](auto& s) { serialize_check(s); }), 7u + 32u);
  float f = 1.0f;
  EXPECT_EQ(measured([&](auto& s) { serialize_compressed_float(s, f, 0.0f, 10.0f, 0.01f); }), 10u);
  uint32_t current = 70015;
  EXPECT_EQ(measured([&](auto& s) { serialize_int_relative(s, 100, current); }), 38u);
  current = 101;
  EXPECT_EQ(measured([&](auto& s) { serialize_int_relative(s, 100, current); }), 1u);
  int32_t degenerate = 5;
  EXPECT_EQ(measured([&](auto& s) { serialize_int(s, degenerate, 5, 5); }), 0u);
  uint128_t wide = 0;
  EXPECT_EQ(measured([&](auto& s) { serialize_uint128(s, wide); }), 128u);
  int128_t q = 0;
  EXPECT_EQ(measured([&](auto& s) { serialize_fixed<16>(s, q, -(int64_t{1} << 57), int64_t{1} << 57); }),
            75u);
}

// ---- the mixed message ----

MixedMessage mixed_read_values() {
  MixedMessage expected = mixed_message_values();
  expected.compressed = std::bit_cast<float>(kMixedCompressedReadBits);
  return expected;
}

TEST(GoldenMixedMessage, WriteGivesExactlyTheBytes) {
  MixedMessage message = mixed_message_values();
  std::array<std::byte, 128> buffer;
  buffer.fill(kCanary);
  const size_t size = write_object(buffer, message);
  ASSERT_EQ(size, kMixedMessageBytes.size());
  const auto* written = reinterpret_cast<const uint8_t*>(buffer.data());
  EXPECT_EQ(hex({written, size}), hex(kMixedMessageBytes));
  for (size_t i = size; i < buffer.size(); ++i) ASSERT_EQ(buffer[i], kCanary) << "byte " << i;
  WriteStream stream(buffer);
  ASSERT_TRUE(message.serialize(stream));
  EXPECT_EQ(stream.bits_processed(), kMixedMessageBits);
}

TEST(GoldenMixedMessage, ReadingTheBytesGivesTheValues) {
  const std::unique_ptr<std::byte[]> exact(new std::byte[kMixedMessageBytes.size()]);
  std::memcpy(exact.get(), kMixedMessageBytes.data(), kMixedMessageBytes.size());
  MixedMessage message;
  const ReadResult result =
      read_object(std::span<const std::byte>(exact.get(), kMixedMessageBytes.size()), message);
  ASSERT_TRUE(result) << to_string(result.error) << " at bit " << result.error_bit;
  EXPECT_EQ(result.bits_read, kMixedMessageBits);
  EXPECT_TRUE(message == mixed_read_values());
}

TEST(GoldenMixedMessage, MeasureIsTheDocumentedBound) {
  // 760 bits written from bit 0 hold 1 + 3 + 5 bits of padding (align, string, check) and no padding for
  // the bytes (already aligned): 751 bits of fields, plus 7 for each of the four aligning operations.
  MixedMessage message = mixed_message_values();
  EXPECT_EQ(measure_bits(message), 751u + 4u * 7u);
}

TEST(GoldenMixedMessage, MeasureCoversEveryStartingBitAndValuesSurvive) {
  MixedMessage message = mixed_message_values();
  const size_t bound = measure_bits(message);
  for (int start = 0; start < 64; ++start) {
    SCOPED_TRACE("start bit " + std::to_string(start));
    std::array<std::byte, 160> buffer{};
    WriteStream writer(buffer);
    uint64_t prefix = 0;
    if (start != 0) serialize_bits(writer, prefix, start);
    ASSERT_TRUE(message.serialize(writer));
    writer.flush();
    EXPECT_LE(writer.bits_processed() - static_cast<size_t>(start), bound);
    ReadStream reader(std::span<const std::byte>(buffer.data(), writer.bytes_processed()));
    uint64_t ignored = 0;
    if (start != 0) {
      ASSERT_TRUE(serialize_bits(reader, ignored, start));
    }
    MixedMessage back;
    ASSERT_TRUE(back.serialize(reader)) << to_string(reader.error()) << " at bit " << reader.error_bit();
    EXPECT_EQ(reader.bits_processed(), writer.bits_processed());
    EXPECT_TRUE(back == mixed_read_values());
  }
}

}  // namespace
}  // namespace bitwire::test
