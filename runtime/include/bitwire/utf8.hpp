// Strict UTF-8 validation (Unicode Table 3-7): no overlong forms, no surrogates, nothing above U+10FFFF,
// no truncated sequences; and no NUL, which the wire refuses inside strings.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "bitwire/config.hpp"

// SSE2 is part of every x86-64 target; BITWIRE_UTF8_SSE2=0 selects the portable path.
#if !defined(BITWIRE_UTF8_SSE2)
#if defined(__SSE2__) || defined(_M_X64)
#define BITWIRE_UTF8_SSE2 1
#else
#define BITWIRE_UTF8_SSE2 0
#endif
#endif
#if BITWIRE_UTF8_SSE2
#include <emmintrin.h>
#endif

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

namespace detail {

// The exact check, one sequence at a time (ASCII runs without a zero byte pass eight bytes at a time).
// It defines the answer: the vector path below only ever confirms kValid and otherwise hands over to it.
constexpr Utf8Status check_utf8_scalar(const unsigned char* text, size_t size) {
  size_t i = 0;
  while (i < size) {
    if (!std::is_constant_evaluated()) {
      // Whole ASCII words, then straight to the word's first byte that is not plain ASCII.
      while (i + 8 <= size) {
        const uint64_t word = load_word8(text + i);
        const uint64_t stop = (word & kEveryByteHigh) | zero_byte_flags(word);
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

#if BITWIRE_UTF8_SSE2
// Texts from this many bytes on take the vector path (its last block loads the three bytes before it).
inline constexpr size_t kUtf8VectorMinimum = 19;

BITWIRE_FORCE_INLINE __m128i utf8_splat(unsigned char byte) { return _mm_set1_epi8(static_cast<char>(byte)); }

// 0xFF in every byte of the 16 at `current` that breaks Table 3-7 or is zero, given the bytes one, two and
// three positions before each. Position-local, so a byte checked twice gets the same answer.
BITWIRE_FORCE_INLINE __m128i utf8_block_errors(__m128i current, __m128i previous1, __m128i previous2,
                                               __m128i previous3) {
  const __m128i zero = _mm_setzero_si128();
  // A continuation byte is required right after any lead (>= 0xC0), two after a 3- or 4-byte lead
  // (>= 0xE0) and three after a 4-byte lead (>= 0xF0); anywhere else it is forbidden. Saturating
  // subtraction leaves a non-zero byte exactly where a threshold is passed.
  const __m128i pending = _mm_or_si128(
      _mm_or_si128(_mm_subs_epu8(previous1, utf8_splat(0xBF)), _mm_subs_epu8(previous2, utf8_splat(0xDF))),
      _mm_subs_epu8(previous3, utf8_splat(0xEF)));
  const __m128i free_position = _mm_cmpeq_epi8(pending, zero);
  // 0x80..0xBF are the signed bytes below -64.
  const __m128i continuation = _mm_cmpgt_epi8(utf8_splat(0xC0), current);
  __m128i errors = _mm_cmpeq_epi8(free_position, continuation);
  // Bytes that never occur: the overlong leads 0xC0 and 0xC1, and 0xF5..0xFF (beyond U+10FFFF); and NUL.
  errors = _mm_or_si128(errors, _mm_cmpeq_epi8(_mm_and_si128(current, utf8_splat(0xFE)), utf8_splat(0xC0)));
  errors = _mm_or_si128(errors, _mm_cmpeq_epi8(_mm_max_epu8(current, utf8_splat(0xF5)), current));
  errors = _mm_or_si128(errors, _mm_cmpeq_epi8(current, zero));
  // Second bytes with a narrower range (signed compares: the byte is a continuation or already an error):
  // after 0xE0 at least 0xA0 (overlong), after 0xED at most 0x9F (surrogates), after 0xF0 at least 0x90
  // (overlong), after 0xF4 at most 0x8F (above U+10FFFF).
  const __m128i after_e0 = _mm_and_si128(_mm_cmpeq_epi8(previous1, utf8_splat(0xE0)),
                                         _mm_cmpgt_epi8(utf8_splat(0xA0), current));
  const __m128i after_ed = _mm_and_si128(_mm_cmpeq_epi8(previous1, utf8_splat(0xED)),
                                         _mm_cmpgt_epi8(current, utf8_splat(0x9F)));
  const __m128i after_f0 = _mm_and_si128(_mm_cmpeq_epi8(previous1, utf8_splat(0xF0)),
                                         _mm_cmpgt_epi8(utf8_splat(0x90), current));
  const __m128i after_f4 = _mm_and_si128(_mm_cmpeq_epi8(previous1, utf8_splat(0xF4)),
                                         _mm_cmpgt_epi8(current, utf8_splat(0x8F)));
  return _mm_or_si128(_mm_or_si128(errors, _mm_or_si128(after_e0, after_ed)), _mm_or_si128(after_f0, after_f4));
}

BITWIRE_FORCE_INLINE __m128i utf8_load16(const unsigned char* at) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
}

// True when the `size` (>= kUtf8VectorMinimum) bytes are valid UTF-8 without NUL; false when anything is
// wrong. Loads only bytes inside [text, text + size). An ASCII prefix (the whole of most game text) costs a
// load, a sign mask and a zero compare per 16 bytes; from the first 16 bytes that hold a byte >= 0x80 on,
// every block gets the full Table 3-7 check, without a branch on the data.
inline bool utf8_valid_sse2(const unsigned char* text, size_t size) {
  const __m128i zero = _mm_setzero_si128();
  __m128i errors = zero;  // 0xFF where a byte is wrong (NUL in the ASCII prefix, any error after it)
  size_t at = 0;
  for (; at + 16 <= size; at += 16) {
    const __m128i block = utf8_load16(text + at);
    if (_mm_movemask_epi8(block) != 0) break;
    errors = _mm_or_si128(errors, _mm_cmpeq_epi8(block, zero));
  }
  if (at + 16 > size) {
    // Every whole block was ASCII; the last 16 bytes overlap them.
    const __m128i last = utf8_load16(text + size - 16);
    if (_mm_movemask_epi8(last) == 0)
      return _mm_movemask_epi8(_mm_or_si128(errors, _mm_cmpeq_epi8(last, zero))) == 0;
    at = size - 16;  // every byte before it is ASCII (it lies in the blocks above)
  }
  // From `at` on, the full check. The bytes before `at` are ASCII, so no sequence is pending across it;
  // before the first byte of the text, shifted-in zero bytes stand for that.
  const __m128i first = utf8_load16(text + at);
  if (at == 0) {
    errors = _mm_or_si128(errors, utf8_block_errors(first, _mm_slli_si128(first, 1), _mm_slli_si128(first, 2),
                                                    _mm_slli_si128(first, 3)));
  } else {
    errors = _mm_or_si128(errors, utf8_block_errors(first, utf8_load16(text + at - 1),
                                                    utf8_load16(text + at - 2), utf8_load16(text + at - 3)));
  }
  for (at += 16; at + 16 <= size; at += 16) {
    errors = _mm_or_si128(errors, utf8_block_errors(utf8_load16(text + at), utf8_load16(text + at - 1),
                                                    utf8_load16(text + at - 2), utf8_load16(text + at - 3)));
  }
  if (at < size) {  // the last 16 bytes, overlapping bytes already checked
    at = size - 16;
    errors = _mm_or_si128(errors, utf8_block_errors(utf8_load16(text + at), utf8_load16(text + at - 1),
                                                    utf8_load16(text + at - 2), utf8_load16(text + at - 3)));
  }
  // No sequence may be cut off by the end: no lead in the last byte, no 3- or 4-byte lead in the last two,
  // no 4-byte lead in the last three.
  const bool truncated = text[size - 1] >= 0xC0 || text[size - 2] >= 0xE0 || text[size - 3] >= 0xF0;
  return _mm_movemask_epi8(errors) == 0 && !truncated;
}
#endif

}  // namespace detail

// Validates `size` bytes and reports the first problem in byte order: kHasNul for a zero byte (a valid
// code point, but one the wire refuses inside strings), kInvalid for an encoding error. Texts of
// kUtf8VectorMinimum bytes or more are checked 16 bytes at a time with SSE2 (baseline on x86-64) where
// available, an ASCII prefix with three instructions per 16 bytes; only a text that fails that check is
// walked again by the exact scalar check, which decides which problem comes first.
constexpr Utf8Status check_utf8(const unsigned char* text, size_t size) {
#if BITWIRE_UTF8_SSE2
  if (!std::is_constant_evaluated() && size >= detail::kUtf8VectorMinimum) {
    if (detail::utf8_valid_sse2(text, size)) return Utf8Status::kValid;
  }
#endif
  return detail::check_utf8_scalar(text, size);
}

}  // namespace bitwire
