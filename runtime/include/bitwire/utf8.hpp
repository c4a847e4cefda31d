// Strict UTF-8 validation (Unicode Table 3-7): no overlong forms, no surrogates, nothing above U+10FFFF,
// no truncated sequences.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bitwire {

enum class Utf8Status : uint8_t { kValid, kInvalid, kHasNul };

// Validates `size` bytes and reports the first problem in byte order: kHasNul for a zero byte (a valid
// code point, but one the wire refuses inside strings), kInvalid for an encoding error.
constexpr Utf8Status check_utf8(const unsigned char* text, size_t size) {
  size_t i = 0;
  while (i < size) {
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
