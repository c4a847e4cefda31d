// ValidateStream: every write contract a WriteStream asserts is checked and refused with its reason, in
// every build; a value that passes is one every correct reader accepts; the bound it counts equals
// MeasureStream's. And the fixed containers never write past capacity.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "bitwire/serialize/fixed_string.hpp"
#include "bitwire/serialize/fixed_vector.hpp"
#include "bitwire/serialize/serialize.hpp"

namespace bitwire {
namespace {

template <typename F>
ValidateStream run(F&& f) {
  ValidateStream stream;
  f(stream);
  return stream;
}

struct Sample {
  uint32_t a = 7;
  int b = -5;
  FixedString<8> text = "h\xC3\xA9llo";
  float f = 1.5f;
  template <typename Stream>
  bool serialize(Stream& stream) {
    BITWIRE_TRY(serialize_bits(stream, a, 3));
    BITWIRE_TRY(serialize_int(stream, b, -10, 10));
    BITWIRE_TRY(serialize_string(stream, text));
    BITWIRE_TRY(serialize_compressed_float(stream, f, 0.0f, 10.0f, 0.01f));
    BITWIRE_TRY(serialize_align(stream));
    return true;
  }
};

TEST(ValidateStream, AcceptsWhatIsInRangeAndCountsLikeMeasure) {
  Sample sample;
  const ValidateResult result = validate_object(sample);
  EXPECT_TRUE(result);
  EXPECT_EQ(result.bits, measure_bits(sample));
}

TEST(ValidateStream, RefusesRangedIntegerOutsideItsRange) {
  int value = 11;
  const ValidateStream s = run([&](auto& stream) { EXPECT_FALSE(serialize_int(stream, value, -10, 10)); });
  EXPECT_EQ(s.error(), WriteError::kValueOutOfRange);
}

TEST(ValidateStream, RefusesCountOutsideItsBounds) {
  uint32_t count = 0;
  const ValidateStream s = run([&](auto& stream) { EXPECT_FALSE(serialize_count(stream, count, 1u, 16u)); });
  EXPECT_EQ(s.error(), WriteError::kInvalidCount);
}

TEST(ValidateStream, RefusesEnumOutsideItsSet) {
  enum class Color : uint8_t { kRed, kGreen, kBlue };
  Color color = static_cast<Color>(3);
  const ValidateStream s =
      run([&](auto& stream) { EXPECT_FALSE(serialize_enum(stream, color, Color::kRed, Color::kBlue)); });
  EXPECT_EQ(s.error(), WriteError::kInvalidEnum);
}

TEST(ValidateStream, RefusesRawBitsWiderThanTheirField) {
  uint16_t value = 1u << 10;
  ValidateStream s = run([&](auto& stream) { serialize_bits(stream, value, 10); });
  EXPECT_EQ(s.error(), WriteError::kValueTooWide);
  int8_t narrow = -9;  // a 4-bit signed field holds [-8, 7]
  s = run([&](auto& stream) { EXPECT_FALSE(serialize_signed_bits(stream, narrow, 4)); });
  EXPECT_EQ(s.error(), WriteError::kValueTooWide);
}

TEST(ValidateStream, RefusesNonFiniteCompressedFloat) {
  float value = std::numeric_limits<float>::infinity();
  const ValidateStream s =
      run([&](auto& stream) { EXPECT_FALSE(serialize_compressed_float(stream, value, 0.0f, 1.0f, 0.1f)); });
  EXPECT_EQ(s.error(), WriteError::kNotFinite);
}

TEST(ValidateStream, RefusesStringsTheReaderRefuses) {
  char invalid[8] = "\xED\xA0\x80";  // an encoded surrogate
  ValidateStream s = run([&](auto& stream) { EXPECT_FALSE(serialize_string(stream, invalid)); });
  EXPECT_EQ(s.error(), WriteError::kInvalidUtf8);
  char unterminated[4] = {'a', 'b', 'c', 'd'};
  s = run([&](auto& stream) { EXPECT_FALSE(serialize_string(stream, unterminated)); });
  EXPECT_EQ(s.error(), WriteError::kInvalidCount);
}

TEST(ValidateStream, RefusesRelativeValueNotIncreasing) {
  uint32_t current = 5;
  const ValidateStream s = run([&](auto& stream) { EXPECT_FALSE(serialize_int_relative(stream, 5u, current)); });
  EXPECT_EQ(s.error(), WriteError::kNotIncreasing);
}

TEST(ValidateStream, KeepsTheFirstViolation) {
  int a = 50;
  uint32_t count = 99;
  ValidateStream stream;
  serialize_int(stream, a, 0, 10);
  serialize_count(stream, count, 0u, 8u);
  EXPECT_EQ(stream.error(), WriteError::kValueOutOfRange);
  EXPECT_EQ(stream.error_bit(), 0u);
}

// A sparse enum (0, 1, 10, 11 in 4 bits): the range check alone lets 2..9 through; the membership check
// refuses them on read and on validation alike.
enum class Sparse : uint8_t { kIdle = 0, kWalk = 1, kRun = 10, kSprint = 11 };
constexpr bool is_member(Sparse s) {
  return s == Sparse::kIdle || s == Sparse::kWalk || s == Sparse::kRun || s == Sparse::kSprint;
}
struct WithSparse {
  Sparse mode = Sparse::kIdle;
  template <typename Stream>
  bool serialize(Stream& stream) {
    BITWIRE_TRY(serialize_enum(stream, mode, Sparse::kIdle, Sparse::kSprint));
    return serialize_enum_member(stream, is_member(mode), 4);
  }
};

TEST(ValidateStream, RefusesSparseEnumValueInAGap) {
  WithSparse message;
  message.mode = static_cast<Sparse>(5);
  const ValidateResult result = validate_object(message);
  EXPECT_EQ(result.error, WriteError::kInvalidEnum);
  const std::byte five[] = {std::byte{5}};
  WithSparse read;
  EXPECT_EQ(read_object(five, read).error, ReadError::kInvalidEnum);
  message.mode = Sparse::kRun;
  EXPECT_TRUE(validate_object(message));
}

// ---- FixedString ----

TEST(FixedString, AssignRefusesWhatDoesNotFit) {
  FixedString<4> s = "ab";
  EXPECT_FALSE(s.assign("abcde"));
  EXPECT_EQ(s, "ab");  // unchanged
  EXPECT_FALSE(s.assign(std::string_view("a\0b", 3)));
  EXPECT_TRUE(s.assign("abcd"));
  EXPECT_EQ(s.size(), 4u);
}

TEST(FixedString, TruncationCutsAtACodePointBoundary) {
  FixedString<4> s;
  // "a" + U+00E9 (2 bytes) + U+20AC (3 bytes): 6 bytes; 4 would split the euro sign.
  EXPECT_EQ(s.assign_truncated("a\xC3\xA9\xE2\x82\xAC"), 3u);
  EXPECT_EQ(s, "a\xC3\xA9");
  FixedString<3> t;
  EXPECT_EQ(t.assign_truncated("\xF0\x9F\x9A\x80"), 0u);  // a 4-byte code point does not fit at all
  EXPECT_TRUE(t.empty());
  EXPECT_EQ(t.assign_truncated("abcdef"), 3u);
  EXPECT_EQ(t, "abc");
  EXPECT_EQ(t.assign_truncated(std::string_view("x\0yz", 4)), 1u);  // stops before a zero byte
}

TEST(FixedString, TheStoredLengthIsTheStringWhateverTheStorageHolds) {
  FixedString<3> s = "ab";
  EXPECT_EQ(s.size(), 2u);
  char* storage = s.storage();
  for (size_t i = 0; i < s.kBufferSize; ++i) storage[i] = 'z';  // no terminator anywhere
  EXPECT_EQ(s.size(), 2u);                                      // no scan: the length is what was stored
  EXPECT_EQ(s.view(), "zz");
  s.set_length(100);  // clamped to the capacity, and terminated
  EXPECT_EQ(s.size(), 3u);
  EXPECT_STREQ(s.c_str(), "zzz");
  s.set_length(1);
  EXPECT_EQ(s, "z");
  EXPECT_STREQ(s.c_str(), "z");
  // Every other way in keeps the length: literal, assign, assign_truncated, a refused assign.
  FixedString<4> t = "abc";
  EXPECT_EQ(t.size(), 3u);
  EXPECT_TRUE(t.assign("wxyz"));
  EXPECT_EQ(t.size(), 4u);
  EXPECT_FALSE(t.assign("too long"));
  EXPECT_EQ(t.size(), 4u);
  EXPECT_EQ(t.assign_truncated("a\xC3\xA9\xC3\xA9"), 3u);
  EXPECT_EQ(t.size(), 3u);
  EXPECT_EQ(sizeof(FixedString<255>), 257u);  // a one-byte length up to 255
  EXPECT_EQ(sizeof(FixedString<256>), 260u);  // two bytes above (aligned)
}

// ---- FixedVector ----

TEST(FixedVector, PushAndResizeRefusePastCapacity) {
  FixedVector<int, 2> v;
  EXPECT_TRUE(v.push_back(1));
  EXPECT_TRUE(v.push_back(2));
  EXPECT_FALSE(v.push_back(3));
  EXPECT_EQ(v.size(), 2u);
  EXPECT_FALSE(v.resize(3));
  EXPECT_EQ(v.size(), 2u);
  EXPECT_TRUE(v.resize(1));
  EXPECT_EQ(v.size(), 1u);
}

}  // namespace
}  // namespace bitwire
