// The reference UTF-8 decoder the vector and scalar checks are tested against, and random valid text.
//
// The reference decodes code points the textbook way (lead bits, continuation bits, then the value checked
// against overlong forms, surrogates and U+10FFFF) and reports the first problem in byte order, as
// check_utf8 promises. It shares no code with runtime/include/bitwire/serialize/utf8.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "bitwire/core/random.hpp"
#include "bitwire/serialize/utf8.hpp"

namespace bitwire::test {

inline Utf8Status reference_utf8(const unsigned char* text, size_t size) {
  size_t i = 0;
  while (i < size) {
    const unsigned lead = text[i];
    if (lead == 0) return Utf8Status::kHasNul;
    if (lead < 0x80) {
      ++i;
      continue;
    }
    size_t length = 0;
    uint32_t code = 0;
    if ((lead & 0xE0) == 0xC0) {
      length = 2;
      code = lead & 0x1F;
    } else if ((lead & 0xF0) == 0xE0) {
      length = 3;
      code = lead & 0x0F;
    } else if ((lead & 0xF8) == 0xF0) {
      length = 4;
      code = lead & 0x07;
    } else {
      return Utf8Status::kInvalid;  // a continuation byte without a lead, or 0xF8..0xFF
    }
    for (size_t k = 1; k < length; ++k) {
      if (i + k >= size || (text[i + k] & 0xC0) != 0x80) return Utf8Status::kInvalid;
      code = (code << 6) | (text[i + k] & 0x3Fu);
    }
    constexpr uint32_t kSmallest[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < kSmallest[length] || (code >= 0xD800 && code <= 0xDFFF) || code > 0x10FFFF) {
      return Utf8Status::kInvalid;
    }
    i += length;
  }
  return Utf8Status::kValid;
}

// Valid text of `count` characters of 1 to 4 bytes (never NUL), random code points of each length.
inline std::vector<unsigned char> random_valid_utf8(Random& rng, size_t count) {
  std::vector<unsigned char> text;
  for (size_t i = 0; i < count; ++i) {
    uint32_t code = 0;
    switch (rng.below(4)) {
      case 0:
        code = static_cast<uint32_t>(1 + rng.below(0x7F));
        break;
      case 1:
        code = static_cast<uint32_t>(0x80 + rng.below(0x800 - 0x80));
        break;
      case 2:
        do code = static_cast<uint32_t>(0x800 + rng.below(0x10000 - 0x800));
        while (code >= 0xD800 && code <= 0xDFFF);
        break;
      default:
        code = static_cast<uint32_t>(0x10000 + rng.below(0x110000 - 0x10000));
        break;
    }
    if (code < 0x80) {
      text.push_back(static_cast<unsigned char>(code));
    } else if (code < 0x800) {
      text.push_back(static_cast<unsigned char>(0xC0 | (code >> 6)));
      text.push_back(static_cast<unsigned char>(0x80 | (code & 0x3F)));
    } else if (code < 0x10000) {
      text.push_back(static_cast<unsigned char>(0xE0 | (code >> 12)));
      text.push_back(static_cast<unsigned char>(0x80 | ((code >> 6) & 0x3F)));
      text.push_back(static_cast<unsigned char>(0x80 | (code & 0x3F)));
    } else {
      text.push_back(static_cast<unsigned char>(0xF0 | (code >> 18)));
      text.push_back(static_cast<unsigned char>(0x80 | ((code >> 12) & 0x3F)));
      text.push_back(static_cast<unsigned char>(0x80 | ((code >> 6) & 0x3F)));
      text.push_back(static_cast<unsigned char>(0x80 | (code & 0x3F)));
    }
  }
  return text;
}

}  // namespace bitwire::test
