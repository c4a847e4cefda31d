// Checking a golden byte vector both ways: the write gives exactly the bytes (and touches nothing after
// them), and reading the bytes -- from an exactly sized heap block, so the sanitizer build sees any
// over-read -- consumes exactly the stated bits and gives back the values.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "bitwire/serialize/serialize.hpp"

namespace bitwire::test {

using Bytes = std::vector<uint8_t>;
inline constexpr std::byte kCanary{0xCD};

inline std::string hex(std::span<const uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string text;
  for (const uint8_t b : bytes) {
    if (!text.empty()) text += ' ';
    text += kDigits[b >> 4];
    text += kDigits[b & 15];
  }
  return text;
}

// A single value, the shape most vectors need.
template <typename T>
struct One {
  T v{};
  bool operator==(const One&) const = default;
};

// Floats and doubles, equal when their bit patterns are.
struct F32 {
  float v = 0;
  friend bool operator==(const F32& x, const F32& y) {
    return std::bit_cast<uint32_t>(x.v) == std::bit_cast<uint32_t>(y.v);
  }
};
struct F64 {
  double v = 0;
  friend bool operator==(const F64& x, const F64& y) {
    return std::bit_cast<uint64_t>(x.v) == std::bit_cast<uint64_t>(y.v);
  }
};
inline F32 f32_bits(uint32_t bits) {
  return F32{std::bit_cast<float>(bits)};
}
inline F64 f64_bits(uint64_t bits) {
  return F64{std::bit_cast<double>(bits)};
}

template <typename Values, typename Ops>
void expect_write(Values values, Ops ops, const Bytes& expected, size_t bits) {
  std::array<std::byte, 256> buffer;
  buffer.fill(kCanary);
  WriteStream stream(buffer);
  ASSERT_TRUE(ops(stream, values));
  stream.flush();
  EXPECT_EQ(stream.bits_processed(), bits);
  ASSERT_EQ(stream.bytes_processed(), expected.size());
  const auto* written = reinterpret_cast<const uint8_t*>(buffer.data());
  EXPECT_EQ(hex({written, expected.size()}), hex(expected));
  for (size_t i = expected.size(); i < buffer.size(); ++i) {
    ASSERT_EQ(buffer[i], kCanary) << "byte " << i << " lies past the written bytes but was touched";
  }
  MeasureStream measure;
  ASSERT_TRUE(ops(measure, values));
  EXPECT_GE(measure.bits_processed(), bits);
}

template <typename Values, typename Ops>
void expect_read(const Bytes& bytes, Ops ops, const Values& expected, size_t bits, Values start = Values{}) {
  const std::unique_ptr<std::byte[]> exact(new std::byte[bytes.size()]);
  if (!bytes.empty()) std::memcpy(exact.get(), bytes.data(), bytes.size());
  ReadStream stream(std::span<const std::byte>(exact.get(), bytes.size()));
  Values values = start;
  ASSERT_TRUE(ops(stream, values)) << to_string(stream.error()) << " at bit " << stream.error_bit();
  EXPECT_FALSE(stream.failed());
  EXPECT_EQ(stream.bits_processed(), bits);
  EXPECT_TRUE(values == expected);
}

template <typename Values, typename Ops>
void expect_golden(const Values& values, Ops ops, const Bytes& bytes, size_t bits, Values start = Values{}) {
  {
    SCOPED_TRACE("write");
    expect_write(values, ops, bytes, bits);
  }
  SCOPED_TRACE("read");
  expect_read(bytes, ops, values, bits, start);
}

}  // namespace bitwire::test
