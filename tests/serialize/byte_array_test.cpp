// serialize_byte_array: a fixed-length array of 8-bit raw values, moved eight bytes per 64-bit field. It
// must put exactly the bits of one 8-bit field per byte on the wire at every starting bit position, read
// them back, and refuse (never over-read) a span that ends inside the array.
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "bitwire/serialize/serialize.hpp"

namespace {

using bitwire::ReadStream;
using bitwire::WriteStream;

// Writes `lead` zero-or-one bits, then the array one way or the other, then a 5-bit trailer.
template <bool kBlock>
std::vector<std::byte> write_with(const std::vector<uint8_t>& data, int lead) {
  std::vector<std::byte> buffer(data.size() + 16);
  WriteStream stream(buffer);
  for (int i = 0; i < lead; ++i) stream.write_bits(static_cast<uint64_t>(i & 1), 1);
  std::vector<uint8_t> copy = data;
  if constexpr (kBlock) {
    bitwire::serialize_byte_array(stream, copy.data(), copy.size());
  } else {
    for (uint8_t& byte : copy) bitwire::serialize_uint8(stream, byte);
  }
  stream.write_bits(0x15, 5);
  stream.flush();
  buffer.resize(stream.bytes_processed());
  return buffer;
}

std::vector<uint8_t> pattern(size_t count) {
  std::vector<uint8_t> data(count);
  for (size_t i = 0; i < count; ++i) data[i] = static_cast<uint8_t>(i * 37 + 11);
  return data;
}

TEST(ByteArray, SameBitsAsOneFieldPerByteAtEveryOffset) {
  for (size_t count : {0u, 1u, 7u, 8u, 9u, 16u, 17u, 33u}) {
    for (int lead = 0; lead < 8; ++lead) {
      const std::vector<uint8_t> data = pattern(count);
      EXPECT_EQ(write_with<true>(data, lead), write_with<false>(data, lead)) << count << " bytes after " << lead;
    }
  }
}

TEST(ByteArray, ReadsBackAtEveryOffset) {
  for (size_t count : {1u, 8u, 17u, 40u}) {
    for (int lead = 0; lead < 8; ++lead) {
      const std::vector<uint8_t> data = pattern(count);
      const std::vector<std::byte> bytes = write_with<true>(data, lead);
      ReadStream stream(bytes);
      uint64_t skipped = 0;
      if (lead != 0) {
        ASSERT_TRUE(stream.read_bits(skipped, lead));
      }
      std::vector<uint8_t> back(count);
      ASSERT_TRUE(bitwire::serialize_byte_array(stream, back.data(), back.size()));
      EXPECT_EQ(back, data);
      uint64_t trailer = 0;
      ASSERT_TRUE(stream.read_bits(trailer, 5));
      EXPECT_EQ(trailer, 0x15u);
    }
  }
}

TEST(ByteArray, TruncatedSpanIsRefusedPastEnd) {
  const std::vector<uint8_t> data = pattern(17);
  const std::vector<std::byte> bytes = write_with<true>(data, 3);
  for (size_t keep = 0; keep * 8 < 3 + 17 * 8; ++keep) {
    // A copy of exactly `keep` bytes: a sanitizer build sees any read past it.
    const std::vector<std::byte> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(keep));
    ReadStream stream(cut);
    uint64_t skipped = 0;
    std::array<uint8_t, 17> back{};
    const bool ok = stream.read_bits(skipped, 3) && bitwire::serialize_byte_array(stream, back.data(), back.size());
    EXPECT_FALSE(ok) << keep;
    EXPECT_EQ(stream.error(), bitwire::ReadError::kPastEnd) << keep;
  }
}

TEST(ByteArray, MeasureAndValidateCountEightBitsPerByte) {
  std::vector<uint8_t> data = pattern(17);
  bitwire::MeasureStream measure;
  EXPECT_TRUE(bitwire::serialize_byte_array(measure, data.data(), data.size()));
  EXPECT_EQ(measure.bits_processed(), 17u * 8);
  bitwire::ValidateStream validate;
  EXPECT_TRUE(bitwire::serialize_byte_array(validate, data.data(), data.size()));
  EXPECT_FALSE(validate.failed());
  EXPECT_EQ(validate.bits_processed(), 17u * 8);
}

}  // namespace
