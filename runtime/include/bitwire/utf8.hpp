// Strict UTF-8 validation (Unicode Table 3-7): no overlong forms, no surrogates, nothing above U+10FFFF,
// no truncated sequences.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "bitwire/config.hpp"

namespace bitwire {

namespace detail {

inline constexpr uint64_t kEveryByteLow = 0x0101010101010101u;
inline constexpr uint64_t kEveryByteHigh = 0x8080808080808080u;

// Eight bytes at `text` as a little-endian word: byte k of memory is bits [8k, 8k + 8) on every host.
BITWIRE_FORCE_INLINE uint64_t load_word8(const unsigned char* text) {
  return load_le64(reinterpret_cast<const std::byte*>(text));
}

// The high bit of each zero byte of `word` up to and including its first zero byte (higher flags may be
// wrong), so the lowest flag marks the first zero byte exactly, and the result is 0 when there is none.
constexpr uint64_t zero_byte_flags(uint64_t word) { return (word - kEveryByteLow) & ~word & kEveryByteHigh; }

// Bytes before the first zero byte in [text, text + size): strnlen without a library call, eight bytes at
// a time. Loads only bytes inside [text, text + size).
BITWIRE_FORCE_INLINE size_t bounded_length(const char* text, size_t size) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(text);
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    const uint64_t flags = zero_byte_flags(load_word8(bytes + i));
    if (flags != 0) return i + static_cast<size_t>(std::countr_zero(flags)) / 8;
  }
  while (i < size && bytes[i] != 0) ++i;
  return i;
}

}  // namespace detail

enum class Utf8Status : uint8_t { kValid, kInvalid, kHasNul };

// Validates `size` bytes and reports the first problem in byte order: kHasNul for a zero byte (a valid
// code point, but one the wire refuses inside strings), kInvalid for an encoding error. Runs of ASCII
// without a zero byte pass eight bytes at a time; the exact checks run from the first other byte.
constexpr Utf8Status check_utf8(const unsigned char* text, size_t size) {
  size_t i = 0;
  while (i < size) {
    if (!std::is_constant_evaluated()) {
      // Whole ASCII words, then straight to the word's first byte that is not plain ASCII.
      while (i + 8 <= size) {
        const uint64_t word = detail::load_word8(text + i);
        const uint64_t stop = (word & detail::kEveryByteHigh) | detail::zero_byte_flags(word);
        if (stop != 0) {
          i += static_cast<size_t>(std::countr_zero(stop)) / 8;
          break;
        }
        i += 8;
      }
      if (i == size) break;
    }
    const unsigned char lead = text[i];
    if (lead < 0x80) {
      if (lead == 0) return Utf8Status::kHasNul;
      ++i;
      continue;
    }
    size_t length = 0;
    unsigned char low = 0x80;   // allowed range of the second byte
    unsigned char high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      if (lead == 0xE0) low = 0xA0;   // overlong
      if (lead == 0xED) high = 0x9F;  // surrogates
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      if (lead == 0xF0) low = 0x90;   // overlong
      if (lead == 0xF4) high = 0x8F;  // above U+10FFFF
    } else {
      return Utf8Status::kInvalid;
    }
    if (size - i < length) return Utf8Status::kInvalid;
    if (text[i + 1] < low || text[i + 1] > high) return Utf8Status::kInvalid;
    for (size_t k = 2; k < length; ++k) {
      if ((text[i + k] & 0xC0) != 0x80) return Utf8Status::kInvalid;
    }
    i += length;
  }
  return Utf8Status::kValid;
}

}  // namespace bitwire
