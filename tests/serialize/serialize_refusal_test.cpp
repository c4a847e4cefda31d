// Every obligation a reader has toward untrusted bytes, each as a stream that must be refused with an exact
// reason and bit position. The position reported is where the wire group holding the refused bits starts
// (a ranged value, a flag, a padding run, a string payload, a 32-bit magic); for a stream that ends too
// early, the first group that does not fit. After a refusal the stream is latched: every later read fails,
// zero-bit reads included, without consuming bits or writing its destination, and the first reason and
// position stay. All input comes from exactly sized heap blocks, so the sanitizer build sees any over-read.
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "bitwire/serialize/serialize.hpp"
#include "serialize_mixed_message.hpp"

namespace bitwire::test {
namespace {

using Bytes = std::vector<uint8_t>;

std::string name(ReadError error) {
  return to_string(error);
}

// Untrusted input in its own allocation of exactly its size.
class Exact {
 public:
  // Byte loops rather than memcpy: g++ 12 at -O1 with sanitizers reports a false -Warray-bounds for a
  // guarded memcpy into a zero-length allocation.
  explicit Exact(const Bytes& bytes) : size_(bytes.size()), data_(new std::byte[bytes.size()]) {
    for (size_t i = 0; i < size_; ++i) data_[i] = std::byte{bytes[i]};
  }
  template <size_t N>
  Exact(const std::array<uint8_t, N>& bytes, size_t size) : size_(size), data_(new std::byte[size]) {
    for (size_t i = 0; i < size_; ++i) data_[i] = std::byte{bytes[i]};
  }
  std::span<const std::byte> span() const { return {data_.get(), size_}; }

 private:
  size_t size_;
  std::unique_ptr<std::byte[]> data_;
};

// An object with no fields: reading it consumes nothing, so only the latch can refuse it.
struct Empty {
  template <typename Stream>
  bool serialize(Stream&) {
    return true;
  }
};

// The latch: reads of every shape fail, move nothing and write nothing; the first failure stays.
void expect_latched(ReadStream& stream, ReadError error, size_t bit) {
  const size_t position = stream.bits_processed();
  bool flag = true;
  EXPECT_FALSE(serialize_bool(stream, flag));
  EXPECT_TRUE(flag);
  uint64_t wide = 7;
  EXPECT_FALSE(serialize_bits(stream, wide, 64));
  EXPECT_EQ(wide, 7u);
  int32_t degenerate = 9;
  EXPECT_FALSE(serialize_int(stream, degenerate, 3, 3)) << "zero-bit ranged read on a failed stream";
  EXPECT_EQ(degenerate, 9);
  EXPECT_FALSE(serialize_align(stream)) << "align on a failed stream";
  std::array<std::byte, 1> none{std::byte{0x5A}};
  EXPECT_FALSE(serialize_bytes(stream, none.data(), 0)) << "bytes(0) on a failed stream";
  Inner inner{6, true};
  EXPECT_FALSE(serialize_object(stream, inner)) << "object on a failed stream";
  EXPECT_EQ(inner, (Inner{6, true}));
  Empty empty;
  EXPECT_FALSE(serialize_object(stream, empty)) << "empty object on a failed stream";
  char text[1] = {'\0'};
  EXPECT_FALSE(serialize_string(stream, text)) << "zero-bit string on a failed stream";
  EXPECT_FALSE(serialize_check(stream));
  EXPECT_EQ(stream.bits_processed(), position);
  EXPECT_TRUE(stream.failed());
  EXPECT_EQ(name(stream.error()), name(error));
  EXPECT_EQ(stream.error_bit(), bit);
}

template <typename Ops>
void expect_refused(const Bytes& bytes, Ops ops, ReadError error, size_t bit) {
  const Exact input(bytes);
  ReadStream stream(input.span());
  EXPECT_FALSE(ops(stream));
  ASSERT_TRUE(stream.failed());
  EXPECT_EQ(name(stream.error()), name(error));
  EXPECT_EQ(stream.error_bit(), bit);
  expect_latched(stream, error, bit);
}

template <typename Ops>
void expect_accepted(const Bytes& bytes, Ops ops) {
  const Exact input(bytes);
  ReadStream stream(input.span());
  EXPECT_TRUE(ops(stream)) << name(stream.error()) << " at bit " << stream.error_bit();
}

// ---- values above their range ----

TEST(RefuseValueAboveRange, Int) {
  // [0,4] takes 3 bits; 5, 6 and 7 do not belong to it.
  for (uint8_t offset = 5; offset <= 7; ++offset) {
    int32_t value = -1;
    expect_refused(
        {offset}, [&](ReadStream& s) { return serialize_int(s, value, 0, 4); }, ReadError::kValueOutOfRange,
        0);
    EXPECT_EQ(value, -1);
  }
  // After a flag: 1 | 5 << 1 = 0x0B, refused at bit 1.
  bool flag = false;
  int32_t value = -1;
  expect_refused(
      {0x0B}, [&](ReadStream& s) { return serialize_bool(s, flag) && serialize_int(s, value, 0, 4); },
      ReadError::kValueOutOfRange, 1);
  EXPECT_EQ(value, -1);
  // [INT32_MIN, 0] has range 2^31, 32 bits: offset 0xFFFFFFFF is above it.
  expect_refused(
      {0xFF, 0xFF, 0xFF, 0xFF},
      [&](ReadStream& s) { return serialize_int(s, value, std::numeric_limits<int32_t>::min(), 0); },
      ReadError::kValueOutOfRange, 0);
  EXPECT_EQ(value, -1);
}

TEST(RefuseValueAboveRange, Int64) {
  // [0, 2^40] takes 41 bits; 2^40 + 1 and 2^41 - 1 are above it.
  int64_t value = -1;
  auto ops = [&](ReadStream& s) { return serialize_int64(s, value, int64_t{0}, int64_t{1} << 40); };
  expect_refused({0x01, 0, 0, 0, 0, 0x01}, ops, ReadError::kValueOutOfRange, 0);
  expect_refused({0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01}, ops, ReadError::kValueOutOfRange, 0);
  // [-2^62, 2^62] takes 64 bits; offset 2^63 + 1.
  expect_refused(
      {0x01, 0, 0, 0, 0, 0, 0, 0x80},
      [&](ReadStream& s) { return serialize_int64(s, value, -(int64_t{1} << 62), int64_t{1} << 62); },
      ReadError::kValueOutOfRange, 0);
  EXPECT_EQ(value, -1);
}

TEST(RefuseValueAboveRange, Int128) {
  // [0, 2^74] takes 75 bits; 2^74 + 1 is bit 0 and bit 74 (byte 9, 0x04).
  int128_t value = -1;
  expect_refused(
      {0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0x04},
      [&](ReadStream& s) { return serialize_int128(s, value, 0, int128_t{1} << 74); },
      ReadError::kValueOutOfRange, 0);
  // [0, 2^64] takes 65 bits; 2^64 + 1. After three bits of flags: refused at bit 3.
  uint8_t head = 0;
  expect_refused(
      {0x08, 0, 0, 0, 0, 0, 0, 0, 0x08},
      [&](ReadStream& s) {
        return serialize_bits(s, head, 3) && serialize_int128(s, value, 0, int128_t{1} << 64);
      },
      ReadError::kValueOutOfRange, 3);
  EXPECT_TRUE(value == -1);
}

TEST(RefuseValueAboveRange, Enum) {
  // kRed..kBeta is [0,4] in 3 bits: 5 is not an enumerator.
  Color color = Color::kGreen;
  expect_refused(
      {0x05}, [&](ReadStream& s) { return serialize_enum(s, color, Color::kRed, Color::kBeta); },
      ReadError::kInvalidEnum, 0);
  EXPECT_EQ(color, Color::kGreen);
}

TEST(RefuseValueAboveRange, Fixed) {
  // Q8.8 over [-100,100]: raw range 51200 in 16 bits; 51201 = 0xC801 and 0xFFFF are above it.
  int16_t raw = 77;
  auto ops = [&](ReadStream& s) { return serialize_fixed<8>(s, raw, -100, 100); };
  expect_refused({0x01, 0xC8}, ops, ReadError::kValueOutOfRange, 0);
  expect_refused({0xFF, 0xFF}, ops, ReadError::kValueOutOfRange, 0);
  EXPECT_EQ(raw, 77);
  // Q112.16 over [-2^57, 2^57] units: raw range 2^74 in 75 bits; 2^74 + 1 is above it.
  int128_t wide = 5;
  expect_refused(
      {0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0x04},
      [&](ReadStream& s) { return serialize_fixed<16>(s, wide, -(int64_t{1} << 57), int64_t{1} << 57); },
      ReadError::kValueOutOfRange, 0);
  EXPECT_TRUE(wide == 5);
}

TEST(RefuseValueAboveRange, StringLength) {
  // A 5-byte buffer holds 4 characters: the length is int(length, 0, 4) in 3 bits, and 5 is refused
  // before any payload byte is looked at.
  char text[5] = "keep";
  expect_refused(
      {0x05, 'a', 'b', 'c', 'd', 'e'}, [&](ReadStream& s) { return serialize_string(s, text); },
      ReadError::kInvalidCount, 0);
  EXPECT_STREQ(text, "") << "a refused string read leaves the buffer empty and terminated";
  bool flag = false;
  expect_refused(
      {0x0B, 'a', 'b', 'c', 'd', 'e'},
      [&](ReadStream& s) { return serialize_bool(s, flag) && serialize_string(s, text); },
      ReadError::kInvalidCount, 1);
}

TEST(RefuseValueAboveRange, IntRelativeTierPayloads) {
  // Each bounded tier's payload has more codes than the tier has values.
  struct Case {
    Bytes bytes;
    size_t bit;
  };
  const Case cases[] = {
      {{0x16}, 2},              // flags 0 1, int(d, 2, 6) offset 5: 0x02 | 5 << 2
      {{0x8C}, 3},              // flags 0 0 1, int(d, 7, 23) offset 17: 0x04 | 17 << 3
      {{0x18, 0x10}, 4},        // flags 0 0 0 1, int(d, 24, 280) offset 257: 0x08 | 257 << 4
      {{0x30, 0x00, 0x02}, 5},  // flags 0 0 0 0 1, int(d, 281, 4377) offset 4097: 0x10 | 4097 << 5
      {{0x60, 0x00, 0x40}, 6},  // flags 0 0 0 0 0 1, int(d, 4378, 69914) offset 65537: 0x20 | 65537 << 6
  };
  for (const Case& c : cases) {
    uint32_t current = 12345;
    expect_refused(
        c.bytes, [&](ReadStream& s) { return serialize_int_relative(s, 100, current); },
        ReadError::kValueOutOfRange, c.bit);
    EXPECT_EQ(current, 12345u);
  }
}

TEST(RefuseValueAboveRange, CompressedFloatInteger) {
  // [0,10] at 0.01: maxint 1000 in 10 bits; 1001 = 0x3E9 and 1023 are refused.
  float value = 42.0f;
  auto ops = [&](ReadStream& s) { return serialize_compressed_float(s, value, 0.0f, 10.0f, 0.01f); };
  expect_refused({0xE9, 0x03}, ops, ReadError::kValueOutOfRange, 0);
  expect_refused({0xFF, 0x03}, ops, ReadError::kValueOutOfRange, 0);
  EXPECT_EQ(value, 42.0f);
  // [0, 8388609] at 1: maxint 8388609 in 24 bits; 8388610 (what an unclamped writer emits) is refused.
  expect_refused(
      {0x02, 0x00, 0x80},
      [&](ReadStream& s) { return serialize_compressed_float(s, value, 0.0f, 8388609.0f, 1.0f); },
      ReadError::kValueOutOfRange, 0);
  EXPECT_EQ(value, 42.0f);
}

// ---- reading past the end ----

TEST(RefusePastEnd, EveryTruncationOfTheMixedMessage) {
  for (size_t size = 0; size <= kMixedMessageBytes.size(); ++size) {
    SCOPED_TRACE("first " + std::to_string(size) + " bytes");
    const Exact input(kMixedMessageBytes, size);
    MixedMessage message;
    const ReadResult result = read_object(input.span(), message);
    if (size == kMixedMessageBytes.size()) {
      EXPECT_TRUE(result);
      continue;
    }
    size_t expected_bit = SIZE_MAX;
    for (const WireGroup& group : kMixedMessageGroups) {
      if (group.start + group.width > size * 8) {
        expected_bit = group.start;
        break;
      }
    }
    EXPECT_EQ(name(result.error), name(ReadError::kPastEnd));
    EXPECT_EQ(result.error_bit, expected_bit);
    // The same through a stream, which then stays failed.
    ReadStream stream(input.span());
    MixedMessage again;
    EXPECT_FALSE(again.serialize(stream));
    expect_latched(stream, ReadError::kPastEnd, expected_bit);
  }
}

TEST(RefusePastEnd, EachPrimitive) {
  uint64_t wide = 1;
  bool flag = false;
  expect_refused(
      {}, [&](ReadStream& s) { return serialize_bool(s, flag); }, ReadError::kPastEnd, 0);
  expect_refused(
      {0, 0, 0, 0, 0, 0, 0}, [&](ReadStream& s) { return serialize_bits(s, wide, 64); }, ReadError::kPastEnd,
      0);
  // Seven bits, then a 2-bit field needs bit 8.
  uint8_t small = 0;
  expect_refused(
      {0x00}, [&](ReadStream& s) { return serialize_bits(s, small, 7) && serialize_bits(s, small, 2); },
      ReadError::kPastEnd, 7);
  uint128_t u128 = 3;
  // Fifteen bytes: the low half reads, the high half does not fit.
  expect_refused(
      Bytes(15, 0), [&](ReadStream& s) { return serialize_uint128(s, u128); }, ReadError::kPastEnd, 64);
  EXPECT_TRUE(u128 == 3);
  float f = 1.0f;
  expect_refused(
      {0, 0, 0}, [&](ReadStream& s) { return serialize_float(s, f); }, ReadError::kPastEnd, 0);
  double d = 1.0;
  expect_refused(
      Bytes(7, 0), [&](ReadStream& s) { return serialize_double(s, d); }, ReadError::kPastEnd, 0);
  expect_refused(
      {0x00}, [&](ReadStream& s) { return serialize_compressed_float(s, f, 0.0f, 10.0f, 0.01f); },
      ReadError::kPastEnd, 0);
  EXPECT_EQ(f, 1.0f);
  EXPECT_EQ(d, 1.0);
  // Bytes: a flag, padding, then three bytes where two remain.
  std::array<std::byte, 3> block{};
  expect_refused(
      {0x01, 0xAA, 0xBB},
      [&](ReadStream& s) { return serialize_bool(s, flag) && serialize_bytes(s, block.data(), 3); },
      ReadError::kPastEnd, 8);
  // String: length 3 of a 16-byte buffer, padding, two payload bytes.
  char text[16] = {};
  expect_refused(
      {0x03, 'a', 'b'}, [&](ReadStream& s) { return serialize_string(s, text); }, ReadError::kPastEnd, 8);
  EXPECT_EQ(text[0], '\0');  // a refused string leaves the buffer terminated
  // Check: three of the four magic bytes.
  expect_refused(
      {0x78, 0x56, 0x34}, [&](ReadStream& s) { return serialize_check(s); }, ReadError::kPastEnd, 0);
  // int_relative: the flags run out, and the absolute value runs out.
  uint32_t current = 9;
  expect_refused(
      {0x00}, [&](ReadStream& s) { return serialize_int_relative(s, 0, current); }, ReadError::kPastEnd, 6);
  expect_refused(
      {0x00, 0, 0, 0}, [&](ReadStream& s) { return serialize_int_relative(s, 0, current); },
      ReadError::kPastEnd, 6);
  EXPECT_EQ(current, 9u);
}

// ---- padding ----

TEST(RefuseNonZeroPadding, Align) {
  // A flag at bit 0, then one padding bit set at each of bits 1..7.
  for (int k = 1; k < 8; ++k) {
    bool flag = false;
    expect_refused(
        {static_cast<uint8_t>(1 | 1 << k)},
        [&](ReadStream& s) { return serialize_bool(s, flag) && serialize_align(s); },
        ReadError::kNonZeroPadding, 1);
  }
  // Three bits, then padding bit 7 set: refused where the padding starts.
  uint8_t head = 0;
  expect_refused(
      {0x85}, [&](ReadStream& s) { return serialize_bits(s, head, 3) && serialize_align(s); },
      ReadError::kNonZeroPadding, 3);
}

TEST(RefuseNonZeroPadding, BytesStringAndCheck) {
  bool flag = false;
  std::array<std::byte, 1> block{};
  expect_refused(
      {0x81, 0xAA},
      [&](ReadStream& s) { return serialize_bool(s, flag) && serialize_bytes(s, block.data(), 1); },
      ReadError::kNonZeroPadding, 1);
  // A zero-length block still aligns, and still checks.
  expect_refused(
      {0x03}, [&](ReadStream& s) { return serialize_bool(s, flag) && serialize_bytes(s, block.data(), 0); },
      ReadError::kNonZeroPadding, 1);
  // String: length 1 in 4 bits, padding bit 4 set.
  char text[16] = {};
  expect_refused(
      {0x11, 'a'}, [&](ReadStream& s) { return serialize_string(s, text); }, ReadError::kNonZeroPadding, 4);
  expect_refused(
      {0x81, 0x78, 0x56, 0x34, 0x12},
      [&](ReadStream& s) { return serialize_bool(s, flag) && serialize_check(s); },
      ReadError::kNonZeroPadding, 1);
}

TEST(RefuseNonZeroPadding, TrailingBitsAreNotPadding) {
  // The unused bits of the final byte belong to no operation: a reader never looks at them.
  bool flag = false;
  expect_accepted({0xFF}, [&](ReadStream& s) { return serialize_bool(s, flag); });
  EXPECT_TRUE(flag);
}

// ---- strings ----

// A string of a 16-byte buffer: the length in 4 bits, 4 bits of padding, the payload from bit 8.
Bytes string_stream(const Bytes& payload) {
  Bytes bytes(payload.size() + 1);
  bytes[0] = static_cast<uint8_t>(payload.size());
  for (size_t i = 0; i < payload.size(); ++i) bytes[i + 1] = payload[i];
  return bytes;
}

TEST(RefuseString, InvalidUtf8) {
  const Bytes cases[] = {
      {0xC0, 0xAF},              // overlong '/'
      {0xC1, 0xBF},              // overlong U+007F
      {0xE0, 0x80, 0xAF},        // overlong, three bytes
      {0xF0, 0x80, 0x80, 0xAF},  // overlong, four bytes
      {0xED, 0xA0, 0x80},        // U+D800, a surrogate
      {0xED, 0xBF, 0xBF},        // U+DFFF
      {0xF4, 0x90, 0x80, 0x80},  // U+110000
      {0xF5, 0x80, 0x80, 0x80},  // lead byte past U+10FFFF
      {0xFF},                    // never a UTF-8 byte
      {'a', 0xE2, 0x82},         // truncated at the end of the payload
      {0xC3, 'A'},               // continuation missing
      {0xF0, 0x9F, 0x98, 'x'},   // fourth byte missing
      {0x80},                    // stray continuation
      {'a', 0xBF, 'b'},          // stray continuation inside
  };
  for (const Bytes& payload : cases) {
    SCOPED_TRACE("payload of " + std::to_string(payload.size()) + " bytes starting " +
                 std::to_string(payload[0]));
    char text[16] = "unchanged";
    expect_refused(
        string_stream(payload), [&](ReadStream& s) { return serialize_string(s, text); },
        ReadError::kInvalidUtf8, 8);
  }
}

TEST(RefuseString, InteriorNul) {
  const Bytes cases[] = {{'a', 0x00, 'b'}, {0x00}, {'a', 'b', 0x00}, {0xC3, 0xA9, 0x00, 0xC3, 0xA9}};
  for (const Bytes& payload : cases) {
    char text[16] = "unchanged";
    expect_refused(
        string_stream(payload), [&](ReadStream& s) { return serialize_string(s, text); },
        ReadError::kInteriorNul, 8);
  }
  // After a flag: length at bits 1..4, padding, payload from bit 8.
  bool flag = false;
  char text[16] = {};
  expect_refused(
      {0x05, 'a', 0x00}, [&](ReadStream& s) { return serialize_bool(s, flag) && serialize_string(s, text); },
      ReadError::kInteriorNul, 8);
}

// The eight-bytes-at-a-time ASCII path hands over to the exact check wherever the first other byte sits:
// one sequence at every position of an ASCII run, in exactly sized heap blocks (ASan sees any load past).
TEST(RefuseString, Utf8WordPathHandsOverAtEveryPosition) {
  struct Case {
    Bytes sequence;
    Utf8Status status;
  };
  const Case cases[] = {
      {{0x00}, Utf8Status::kHasNul},
      {{0xFF}, Utf8Status::kInvalid},
      {{0xC3, 0xA9}, Utf8Status::kValid},
      {{0xF0, 0x9F, 0x98, 0x80}, Utf8Status::kValid},
      {{0xED, 0xA0, 0x80}, Utf8Status::kInvalid},
      {{0xE2, 0x82}, Utf8Status::kInvalid},  // truncated where the block ends
      {{0x7F}, Utf8Status::kValid},
  };
  for (const Case& c : cases) {
    for (size_t before = 0; before <= 24; ++before) {
      for (size_t after = 0; after <= 17; ++after) {
        if (c.sequence.size() == 2 && c.sequence[0] == 0xE2 && after != 0) continue;  // truncated only at the end
        const size_t size = before + c.sequence.size() + after;
        const std::unique_ptr<unsigned char[]> block(new unsigned char[size]);
        for (size_t i = 0; i < size; ++i) block[i] = static_cast<unsigned char>('a' + i % 26);
        std::memcpy(block.get() + before, c.sequence.data(), c.sequence.size());
        ASSERT_EQ(check_utf8(block.get(), size), c.status) << before << " ASCII bytes before, " << after << " after";
      }
    }
  }
}

// The writer's length scan (eight bytes at a time) finds the first NUL at every position, or the buffer's
// size when there is none, without loading past the buffer.
TEST(RefuseString, BoundedLengthFindsTheFirstNulAtEveryPosition) {
  for (size_t size = 0; size <= 40; ++size) {
    for (size_t nul = 0; nul <= size; ++nul) {
      const std::unique_ptr<char[]> block(new char[size == 0 ? 1 : size]);
      for (size_t i = 0; i < size; ++i) block[i] = static_cast<char>(i % 2 == 0 ? 'x' : 0xE9);
      if (nul < size) block[nul] = '\0';
      if (nul + 3 < size) block[nul + 3] = '\0';  // a later NUL changes nothing
      ASSERT_EQ(detail::bounded_length(block.get(), size), nul) << "size " << size;
    }
  }
}

TEST(RefuseString, EveryBoundaryOfWellFormedUtf8IsAccepted) {
  // The refusals above are not over-eager: the extremes of each form are read.
  const Bytes cases[] = {
      {0x7F},                    // U+007F
      {0xC2, 0x80},              // U+0080
      {0xDF, 0xBF},              // U+07FF
      {0xE0, 0xA0, 0x80},        // U+0800
      {0xED, 0x9F, 0xBF},        // U+D7FF
      {0xEE, 0x80, 0x80},        // U+E000
      {0xEF, 0xBF, 0xBF},        // U+FFFF
      {0xF0, 0x90, 0x80, 0x80},  // U+10000
      {0xF4, 0x8F, 0xBF, 0xBF},  // U+10FFFF
  };
  for (const Bytes& payload : cases) {
    char text[16] = {};
    expect_accepted(string_stream(payload), [&](ReadStream& s) { return serialize_string(s, text); });
    EXPECT_EQ(std::memcmp(text, payload.data(), payload.size()), 0);
    EXPECT_EQ(text[payload.size()], '\0');
  }
}

// ---- int_relative ----

TEST(RefuseIntRelative, AbsoluteFormNotAbovePrevious) {
  // Six zero flags, then current in 32 bits from bit 6: 100 << 6 = 0x1900, 50 << 6 = 0xC80.
  struct Case {
    uint32_t previous;
    Bytes bytes;
  };
  const Case cases[] = {
      {100, {0x00, 0x19, 0x00, 0x00, 0x00}},  // equal
      {100, {0x80, 0x0C, 0x00, 0x00, 0x00}},  // below
      {0, {0x00, 0x00, 0x00, 0x00, 0x00}},    // 0 after 0
      {0xFFFF'FFFF, {0xC0, 0xFF, 0xFF, 0xFF, 0x3F}},
  };
  for (const Case& c : cases) {
    uint32_t current = 777;
    expect_refused(
        c.bytes, [&](ReadStream& s) { return serialize_int_relative(s, c.previous, current); },
        ReadError::kNotIncreasing, 6);
    EXPECT_EQ(current, 777u);
  }
}

TEST(RefuseIntRelative, SumAboveThirtyTwoBits) {
  // previous + difference must fit 32 bits; refused where the group carrying the difference starts.
  struct Case {
    uint32_t previous;
    Bytes bytes;
    size_t bit;
  };
  const Case cases[] = {
      {0xFFFF'FFFF, {0x01}, 0},                      // flag 1: d = 1
      {0xFFFF'FFFE, {0x02}, 2},                      // flags 0 1, d = 2
      {0xFFFF'FFFF - 69913, {0x20, 0x00, 0x40}, 6},  // flags 0 0 0 0 0 1, d = 69914
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("previous " + std::to_string(c.previous));
    uint32_t current = 777;
    expect_refused(
        c.bytes, [&](ReadStream& s) { return serialize_int_relative(s, c.previous, current); },
        ReadError::kValueOutOfRange, c.bit);
    EXPECT_EQ(current, 777u);
  }
  // The largest sums that fit are read.
  uint32_t current = 0;
  expect_accepted({0x01}, [&](ReadStream& s) { return serialize_int_relative(s, 0xFFFF'FFFE, current); });
  EXPECT_EQ(current, 0xFFFF'FFFFu);
  expect_accepted({0x20, 0x00, 0x40},
                  [&](ReadStream& s) { return serialize_int_relative(s, 0xFFFF'FFFF - 69914, current); });
  EXPECT_EQ(current, 0xFFFF'FFFFu);
}

// ---- check ----

TEST(RefuseCheck, WrongMagic) {
  expect_refused(
      {0x79, 0x56, 0x34, 0x12}, [&](ReadStream& s) { return serialize_check(s); }, ReadError::kCheckMismatch,
      0);
  // A flag, padding, then the magic with its top byte off by one: refused where the magic starts.
  bool flag = false;
  expect_refused(
      {0x01, 0x78, 0x56, 0x34, 0x13},
      [&](ReadStream& s) { return serialize_bool(s, flag) && serialize_check(s); }, ReadError::kCheckMismatch,
      8);
  // The default magic read where another was written.
  expect_refused(
      {0x0D, 0xF0, 0xFE, 0xCA}, [&](ReadStream& s) { return serialize_check(s); }, ReadError::kCheckMismatch,
      0);
}

// ---- destinations and the latch ----

TEST(RefusedReadLeavesDestination, EveryScalarPrimitive) {
  const Exact empty(Bytes{});
  auto on_empty = [&](auto ops) {
    ReadStream stream(empty.span());
    EXPECT_FALSE(ops(stream));
    EXPECT_EQ(name(stream.error()), name(ReadError::kPastEnd));
  };
  uint8_t u8 = 0x11;
  uint16_t u16 = 0x2222;
  uint32_t u32 = 0x3333'3333;
  uint64_t u64 = 0x4444'4444'4444'4444;
  uint128_t u128 = 0x55;
  bool flag = true;
  int32_t i32 = -6;
  int64_t i64 = -7;
  int128_t i128 = -8;
  Color color = Color::kBeta;
  int16_t raw = -9;
  float f = -1.5f;
  double d = -2.5;
  float compressed = 3.5f;
  uint32_t current = 10;
  on_empty([&](ReadStream& s) { return serialize_uint8(s, u8); });
  on_empty([&](ReadStream& s) { return serialize_uint16(s, u16); });
  on_empty([&](ReadStream& s) { return serialize_uint32(s, u32); });
  on_empty([&](ReadStream& s) { return serialize_uint64(s, u64); });
  on_empty([&](ReadStream& s) { return serialize_uint128(s, u128); });
  on_empty([&](ReadStream& s) { return serialize_bool(s, flag); });
  on_empty([&](ReadStream& s) { return serialize_int(s, i32, -10, 10); });
  on_empty([&](ReadStream& s) { return serialize_int64(s, i64, int64_t{-10}, int64_t{1} << 50); });
  on_empty([&](ReadStream& s) { return serialize_int128(s, i128, -10, int128_t{1} << 100); });
  on_empty([&](ReadStream& s) { return serialize_enum(s, color, Color::kRed, Color::kBeta); });
  on_empty([&](ReadStream& s) { return serialize_fixed<8>(s, raw, -100, 100); });
  on_empty([&](ReadStream& s) { return serialize_float(s, f); });
  on_empty([&](ReadStream& s) { return serialize_double(s, d); });
  on_empty([&](ReadStream& s) { return serialize_compressed_float(s, compressed, -1.0f, 1.0f, 0.001f); });
  on_empty([&](ReadStream& s) { return serialize_int_relative(s, 5, current); });
  EXPECT_EQ(u8, 0x11);
  EXPECT_EQ(u16, 0x2222);
  EXPECT_EQ(u32, 0x3333'3333u);
  EXPECT_EQ(u64, 0x4444'4444'4444'4444u);
  EXPECT_TRUE(u128 == 0x55);
  EXPECT_TRUE(flag);
  EXPECT_EQ(i32, -6);
  EXPECT_EQ(i64, -7);
  EXPECT_TRUE(i128 == -8);
  EXPECT_EQ(color, Color::kBeta);
  EXPECT_EQ(raw, -9);
  EXPECT_EQ(f, -1.5f);
  EXPECT_EQ(d, -2.5);
  EXPECT_EQ(compressed, 3.5f);
  EXPECT_EQ(current, 10u);
}

TEST(FailureLatches, ZeroBitReadsFailAfterAFailure) {
  // A value out of range on a byte boundary, with plenty of bytes after it: every later read fails,
  // including the ones that would consume nothing (the stream is aligned, so align has nothing to do).
  const Exact input(Bytes{0xFF, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00});
  ReadStream stream(input.span());
  int32_t value = 1;
  EXPECT_FALSE(serialize_int(stream, value, 0, 200));
  EXPECT_EQ(stream.align_bits(), 0);
  expect_latched(stream, ReadError::kValueOutOfRange, 0);
  // And the values that would have read fine: a flag, a 32-bit group, a string of a 1-byte buffer.
  bool flag = true;
  EXPECT_FALSE(serialize_bool(stream, flag));
  uint32_t word = 3;
  EXPECT_FALSE(serialize_uint32(stream, word));
  EXPECT_EQ(word, 3u);
  uint32_t current = 4;
  EXPECT_FALSE(serialize_int_relative(stream, 1, current));
  EXPECT_EQ(current, 4u);
  float f = 2.0f;
  EXPECT_FALSE(serialize_compressed_float(stream, f, 0.0f, 1.0f, 2.0f));
  EXPECT_EQ(f, 2.0f);
  int16_t raw = 5;
  EXPECT_FALSE(serialize_fixed<8>(stream, raw, 3, 3));
  EXPECT_EQ(raw, 5);
  EXPECT_EQ(name(stream.error()), name(ReadError::kValueOutOfRange));
  EXPECT_EQ(stream.error_bit(), 0u);
}

TEST(FailureLatches, FirstReasonAndBitAreKept) {
  // Bad padding at bit 1, then a later past-end and an out-of-range attempt change nothing.
  const Exact input(Bytes{0x03, 0x07});
  ReadStream stream(input.span());
  bool flag = false;
  ASSERT_TRUE(serialize_bool(stream, flag));
  EXPECT_FALSE(serialize_align(stream));
  EXPECT_EQ(name(stream.error()), name(ReadError::kNonZeroPadding));
  EXPECT_EQ(stream.error_bit(), 1u);
  uint64_t wide = 0;
  EXPECT_FALSE(serialize_bits(stream, wide, 64));
  int32_t value = 0;
  EXPECT_FALSE(serialize_int(stream, value, 0, 4));
  EXPECT_FALSE(serialize_check(stream));
  EXPECT_FALSE(stream.fail(ReadError::kInvalidData));
  expect_latched(stream, ReadError::kNonZeroPadding, 1);
}

// An object whose own validation refuses a value that read fine.
struct Even {
  uint8_t v = 0;
  template <typename Stream>
  bool serialize(Stream& stream) {
    BITWIRE_TRY(serialize_uint8(stream, v));
    if constexpr (Stream::kIsReading) {
      if (v % 2 != 0) return false;
    }
    return true;
  }
};

TEST(FailureLatches, ApplicationRefusalIsReportedAsInvalidData) {
  const Exact odd(Bytes{0x03});
  Even even;
  const ReadResult result = read_object(odd.span(), even);
  EXPECT_FALSE(result);
  EXPECT_EQ(name(result.error), name(ReadError::kInvalidData));
  const Exact good(Bytes{0x04});
  EXPECT_TRUE(read_object(good.span(), even));
  EXPECT_EQ(even.v, 4);
}

}  // namespace
}  // namespace bitwire::test
