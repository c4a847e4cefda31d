// The checks a corpus golden vector runs: idlc's code writes exactly the bytes a reference wrote, reads
// them back, writes them again unchanged, and refuses them one byte short.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "bitwire/serialize/serialize.hpp"

namespace corpus_golden {

// Lower-case hex, two digits a byte.
inline std::vector<std::byte> from_hex(std::string_view hex) {
  auto nibble = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
  std::vector<std::byte> out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<std::byte>(nibble(hex[i]) * 16 + nibble(hex[i + 1])));
  }
  return out;
}

// Sets `width` bits of `bytes` from bit `first` on to `value`, in the streams' order (bit i of the wire is
// bit i % 8 of byte i / 8).
inline void set_bits(std::vector<std::byte>& bytes, int first, int width, std::uint64_t value) {
  for (int i = 0; i < width; ++i) {
    const auto bit = static_cast<std::size_t>(first + i);
    const auto mask = static_cast<std::byte>(1u << (bit % 8));
    bytes[bit / 8] = ((value >> i) & 1) != 0 ? bytes[bit / 8] | mask : bytes[bit / 8] & ~mask;
  }
}

struct Vector {
  std::size_t bytes;
  std::string_view hex;
};

template <typename T>
std::vector<std::byte> write(const T& m) {
  std::vector<std::byte> buffer(T::MaxBytes + 8);
  bitwire::WriteStream stream(std::span<std::byte>(buffer.data(), buffer.size()));
  EXPECT_TRUE(m.serialize(stream));
  stream.flush();
  buffer.resize(stream.bytes_processed());
  return buffer;
}

// Whether the instance itself must read back: `equal` for every lossless field; `rewrites_same` where a
// lossy encoding (a compressed float between two of its steps) reads back the nearest step, so only the
// rewritten bytes are compared.
enum class ReadBack { equal, rewrites_same };

template <typename T>
void expect_golden(const T& m, const Vector& vector, ReadBack read_back = ReadBack::equal) {
  const std::vector<std::byte> golden = from_hex(vector.hex);
  ASSERT_EQ(golden.size(), vector.bytes);
  EXPECT_EQ(write(m), golden);

  T back;
  bitwire::ReadStream in(std::span<const std::byte>(golden.data(), golden.size()));
  ASSERT_TRUE(back.serialize(in));
  if (read_back == ReadBack::equal) {
    EXPECT_TRUE(back == m) << "read back different";
  }
  EXPECT_EQ(write(back), golden);

  T cut;
  bitwire::ReadStream short_in(std::span<const std::byte>(golden.data(), golden.size() - 1));
  EXPECT_FALSE(cut.serialize(short_in));
}

}  // namespace corpus_golden
