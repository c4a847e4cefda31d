// Strict UTF-8 validation (Unicode Table 3-7): no overlong forms, no surrogates, nothing above U+10FFFF,
// no truncated sequences; and no NUL, which the wire refuses inside strings.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "bitwire/core/config.hpp"

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

// On x86-64 with GCC or Clang, the vector check is chosen once per process by what the CPU has: AVX2 (32
// bytes a step) for texts of kUtf8Avx2Minimum bytes or more, else SSSE3 (16 bytes a step, the same
// nibble-table check), else SSE2. BITWIRE_UTF8_AVX2=0 and BITWIRE_UTF8_SSSE3=0 leave those paths out (both:
// no run-time dispatch at all, the SSE2 path). A build for a target with AVX2 or SSSE3 (-mavx2, -mssse3,
// -march=x86-64-v3 ...) still asks the CPU once (see utf8_cpu_has_avx2 for why).
#if BITWIRE_UTF8_SSE2 && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define BITWIRE_UTF8_CAN_DISPATCH 1
#else
#define BITWIRE_UTF8_CAN_DISPATCH 0
#endif
#if !defined(BITWIRE_UTF8_AVX2) && BITWIRE_UTF8_CAN_DISPATCH
#define BITWIRE_UTF8_AVX2 1
#elif !defined(BITWIRE_UTF8_AVX2)
#define BITWIRE_UTF8_AVX2 0
#endif
#if !defined(BITWIRE_UTF8_SSSE3) && BITWIRE_UTF8_CAN_DISPATCH
#define BITWIRE_UTF8_SSSE3 1
#elif !defined(BITWIRE_UTF8_SSSE3)
#define BITWIRE_UTF8_SSSE3 0
#endif
#if (BITWIRE_UTF8_AVX2 || BITWIRE_UTF8_SSSE3) && !BITWIRE_UTF8_CAN_DISPATCH
#error "BITWIRE_UTF8_AVX2 and BITWIRE_UTF8_SSSE3 need BITWIRE_UTF8_SSE2, x86-64 and GCC or Clang"
#endif
#undef BITWIRE_UTF8_CAN_DISPATCH
#if BITWIRE_UTF8_AVX2 || BITWIRE_UTF8_SSSE3
#include <immintrin.h>
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
// Out of line where a faster path exists: only a CPU without SSSE3 takes it, and inlined into check_utf8
// it would make check_utf8 too large to inline into every string read.
#if BITWIRE_UTF8_AVX2 || BITWIRE_UTF8_SSSE3
#define BITWIRE_UTF8_SSE2_INLINE [[gnu::noinline]] inline
#else
#define BITWIRE_UTF8_SSE2_INLINE inline
#endif
BITWIRE_UTF8_SSE2_INLINE bool utf8_valid_sse2(const unsigned char* text, size_t size) {
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
#undef BITWIRE_UTF8_SSE2_INLINE
#endif

#if BITWIRE_UTF8_AVX2 || BITWIRE_UTF8_SSSE3
// The "lookup" check of Keiser and Lemire ("Validating UTF-8 In Less Than One Instruction Per Byte", 2021),
// 32 bytes a step. Every error of Table 3-7 but two shows in a pair of adjacent bytes: three 16-entry
// tables, looked up by the earlier byte's high and low nibbles and the later byte's high nibble, give a bit
// per error class, and a class is present where all three lookups have its bit. The classes (bit: earlier
// byte, later byte):
//   0 a lead (>= 0xC0) not followed by a continuation (0x80..0xBF)
//   1 ASCII followed by a continuation
//   2 0xC0 or 0xC1 (overlong 2-byte leads), followed by anything
//   3 0xE0 followed by 0x80..0x9F (overlong)
//   4 0xED followed by 0xA0..0xBF (surrogates)
//   5 0xF0 or 0xF5..0xFF followed by 0x80..0x8F (overlong, or a lead that never occurs)
//   6 0xF4..0xFF followed by 0x90..0xBF (above U+10FFFF, or a lead that never occurs)
//   7 a continuation followed by a continuation
// Bit 7 is an error only where no 3- or 4-byte lead two or three bytes back asks for a third or fourth byte,
// and where one does, the byte must be a continuation after a continuation: the sum is exactly bit 7 of
// (two back >= 0xE0 or three back >= 0xF0) xor bit 7 of the pair lookup. The other two checks are NUL and
// a sequence cut off by the end of the text.
namespace utf8_lookup {
inline constexpr unsigned char kLeadNoContinuation = 0x01;
inline constexpr unsigned char kAsciiContinuation = 0x02;
inline constexpr unsigned char kOverlong2 = 0x04;
inline constexpr unsigned char kOverlong3 = 0x08;
inline constexpr unsigned char kSurrogate = 0x10;
inline constexpr unsigned char kF0Or8x = 0x20;
inline constexpr unsigned char kF4Or9xBx = 0x40;
inline constexpr unsigned char kTwoContinuations = 0x80;
inline constexpr unsigned char kAnyPair = kLeadNoContinuation | kAsciiContinuation | kTwoContinuations;
// Classes that do not depend on the earlier byte's low nibble have their bit in every entry of that table,
// and the same for the later byte's high nibble.
// clang-format off
inline constexpr unsigned char kFirstHigh[16] = {
    kAsciiContinuation, kAsciiContinuation, kAsciiContinuation, kAsciiContinuation,
    kAsciiContinuation, kAsciiContinuation, kAsciiContinuation, kAsciiContinuation,
    kTwoContinuations,  kTwoContinuations,  kTwoContinuations,  kTwoContinuations,
    kLeadNoContinuation | kOverlong2,
    kLeadNoContinuation,
    kLeadNoContinuation | kOverlong3 | kSurrogate,
    kLeadNoContinuation | kF0Or8x | kF4Or9xBx};
inline constexpr unsigned char kFirstLow[16] = {
    kAnyPair | kOverlong2 | kOverlong3 | kF0Or8x,  // 0xC0, 0xE0, 0xF0
    kAnyPair | kOverlong2,                         // 0xC1
    kAnyPair,
    kAnyPair,
    kAnyPair | kF4Or9xBx,  // 0xF4
    kAnyPair | kF0Or8x | kF4Or9xBx,  // 0xF5..0xFF
    kAnyPair | kF0Or8x | kF4Or9xBx,
    kAnyPair | kF0Or8x | kF4Or9xBx,
    kAnyPair | kF0Or8x | kF4Or9xBx,
    kAnyPair | kF0Or8x | kF4Or9xBx,
    kAnyPair | kF0Or8x | kF4Or9xBx,
    kAnyPair | kF0Or8x | kF4Or9xBx,
    kAnyPair | kF0Or8x | kF4Or9xBx,
    kAnyPair | kSurrogate | kF0Or8x | kF4Or9xBx,  // 0xED
    kAnyPair | kF0Or8x | kF4Or9xBx,
    kAnyPair | kF0Or8x | kF4Or9xBx};
inline constexpr unsigned char kNotContinuation = kLeadNoContinuation | kOverlong2;
inline constexpr unsigned char kContinuation = kAsciiContinuation | kTwoContinuations | kOverlong2;
inline constexpr unsigned char kSecondHigh[16] = {
    kNotContinuation, kNotContinuation, kNotContinuation, kNotContinuation,
    kNotContinuation, kNotContinuation, kNotContinuation, kNotContinuation,
    kContinuation | kOverlong3 | kF0Or8x,       // 0x80..0x8F
    kContinuation | kOverlong3 | kF4Or9xBx,     // 0x90..0x9F
    kContinuation | kSurrogate | kF4Or9xBx,     // 0xA0..0xAF
    kContinuation | kSurrogate | kF4Or9xBx,     // 0xB0..0xBF
    kNotContinuation, kNotContinuation, kNotContinuation, kNotContinuation};
// clang-format on
}  // namespace utf8_lookup

// What the CPU has: bit 0 SSSE3, bit 1 AVX2 (with the OS saving the YMM registers, which
// __builtin_cpu_supports checks).
inline unsigned utf8_detect_cpu_features() {
  __builtin_cpu_init();
  return (__builtin_cpu_supports("ssse3") ? 1u : 0u) | (__builtin_cpu_supports("avx2") ? 2u : 0u);
}

// Asked once per process, while static objects are initialized (before main in a program, on the loading
// thread for a library opened later), so a check is a plain load with no guard to test. A check that runs
// before this initializer (another static object's, or a thread such an initializer started) reads zero:
// no vector extension, the SSE2 path, correct on every x86-64. Formally a thread racing the initializer
// reads a value being written; both values give correct results.
inline const unsigned kUtf8CpuFeatures = utf8_detect_cpu_features();

inline unsigned utf8_cpu_features() {
  return kUtf8CpuFeatures;
}
#endif

// Always the cached answer, never `true` from the translation unit's own target (__AVX2__, __SSSE3__): an
// inline function whose body depended on it would break the one-definition rule when one file of a program
// is built with -mavx2, and the linker could keep that file's copy for every caller, so a CPU without AVX2
// would run AVX2 code.
#if BITWIRE_UTF8_SSSE3
inline bool utf8_cpu_has_ssse3() { return (utf8_cpu_features() & 1u) != 0; }
#endif

#if BITWIRE_UTF8_AVX2
inline bool utf8_cpu_has_avx2() { return (utf8_cpu_features() & 2u) != 0; }
#endif

#if BITWIRE_UTF8_SSSE3
#define BITWIRE_UTF8_SSSE3_INLINE [[gnu::always_inline, gnu::target("ssse3")]] inline

BITWIRE_UTF8_SSSE3_INLINE __m128i utf8_table16(const unsigned char (&table)[16]) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(table));
}

// utf8_block_errors_avx2 on 16 bytes.
BITWIRE_UTF8_SSSE3_INLINE __m128i utf8_block_errors_ssse3(__m128i current, __m128i previous1,
                                                          __m128i previous2, __m128i previous3,
                                                          __m128i first_high, __m128i first_low,
                                                          __m128i second_high) {
  const __m128i nibble = utf8_splat(0x0F);
  const __m128i pair = _mm_and_si128(
      _mm_and_si128(_mm_shuffle_epi8(first_high, _mm_and_si128(_mm_srli_epi16(previous1, 4), nibble)),
                    _mm_shuffle_epi8(first_low, _mm_and_si128(previous1, nibble))),
      _mm_shuffle_epi8(second_high, _mm_and_si128(_mm_srli_epi16(current, 4), nibble)));
  const __m128i due = _mm_and_si128(_mm_or_si128(_mm_subs_epu8(previous2, utf8_splat(0xE0 - 0x80)),
                                                 _mm_subs_epu8(previous3, utf8_splat(0xF0 - 0x80))),
                                    utf8_splat(0x80));
  return _mm_xor_si128(pair, due);
}

// utf8_valid_sse2's contract and shape with the lookup check: true when the `size` (>= kUtf8VectorMinimum)
// bytes are valid UTF-8 without NUL; false when anything is wrong. Loads only bytes inside
// [text, text + size). Only for a CPU with SSSE3 (utf8_cpu_has_ssse3).
[[gnu::target("ssse3")]] inline bool utf8_valid_ssse3(const unsigned char* text, size_t size) {
  const __m128i zero = _mm_setzero_si128();
  __m128i smallest = _mm_set1_epi8(-1);  // the smallest byte at each position over the blocks seen
  size_t at = 0;
  for (; at + 16 <= size; at += 16) {
    const __m128i block = utf8_load16(text + at);
    if (_mm_movemask_epi8(block) != 0) break;
    smallest = _mm_min_epu8(smallest, block);
  }
  if (at + 16 > size) {
    // Every whole block was ASCII; the last 16 bytes overlap them.
    const __m128i last = utf8_load16(text + size - 16);
    if (_mm_movemask_epi8(last) == 0) {
      return _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(smallest, last), zero)) == 0;
    }
    at = size - 16;  // every byte before it is ASCII (it lies in the blocks above)
  }
  const __m128i first_high = utf8_table16(utf8_lookup::kFirstHigh);
  const __m128i first_low = utf8_table16(utf8_lookup::kFirstLow);
  const __m128i second_high = utf8_table16(utf8_lookup::kSecondHigh);
  // From `at` on, the full check; before the first byte of the text, shifted-in zero bytes.
  const __m128i first = utf8_load16(text + at);
  smallest = _mm_min_epu8(smallest, first);
  __m128i errors;  // non-zero where a byte breaks Table 3-7
  if (at == 0) {
    errors = utf8_block_errors_ssse3(first, _mm_slli_si128(first, 1), _mm_slli_si128(first, 2),
                                     _mm_slli_si128(first, 3), first_high, first_low, second_high);
  } else {
    errors = utf8_block_errors_ssse3(first, utf8_load16(text + at - 1), utf8_load16(text + at - 2),
                                     utf8_load16(text + at - 3), first_high, first_low, second_high);
  }
  for (at += 16; at + 16 <= size; at += 16) {
    const __m128i block = utf8_load16(text + at);
    smallest = _mm_min_epu8(smallest, block);
    errors = _mm_or_si128(
        errors, utf8_block_errors_ssse3(block, utf8_load16(text + at - 1), utf8_load16(text + at - 2),
                                        utf8_load16(text + at - 3), first_high, first_low, second_high));
  }
  if (at < size) {  // the last 16 bytes, overlapping bytes already checked (at >= 3: size >= 19)
    at = size - 16;
    const __m128i block = utf8_load16(text + at);
    smallest = _mm_min_epu8(smallest, block);
    errors = _mm_or_si128(
        errors, utf8_block_errors_ssse3(block, utf8_load16(text + at - 1), utf8_load16(text + at - 2),
                                        utf8_load16(text + at - 3), first_high, first_low, second_high));
  }
  const bool truncated = text[size - 1] >= 0xC0 || text[size - 2] >= 0xE0 || text[size - 3] >= 0xF0;
  errors = _mm_or_si128(errors, _mm_cmpeq_epi8(smallest, zero));
  return _mm_movemask_epi8(_mm_cmpeq_epi8(errors, zero)) == 0xFFFF && !truncated;
}

#undef BITWIRE_UTF8_SSSE3_INLINE

#endif

#if BITWIRE_UTF8_AVX2
// Texts from this many bytes on take the AVX2 path (its blocks after the first load the three bytes before).
inline constexpr size_t kUtf8Avx2Minimum = 35;

#define BITWIRE_UTF8_AVX2_INLINE [[gnu::always_inline, gnu::target("avx2")]] inline

BITWIRE_UTF8_AVX2_INLINE __m256i utf8_splat32(unsigned char byte) {
  return _mm256_set1_epi8(static_cast<char>(byte));
}

// A 16-entry table in both 128-bit lanes, for vpshufb.
BITWIRE_UTF8_AVX2_INLINE __m256i utf8_table32(const unsigned char (&table)[16]) {
  return _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(table)));
}

BITWIRE_UTF8_AVX2_INLINE __m256i utf8_load32(const unsigned char* at) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at));
}

// The constants of utf8_block_errors_avx2 as 32-byte rows in memory: the three lookup tables (each in both
// lanes) and four byte splats.
struct alignas(32) Utf8Avx2Row {
  unsigned char bytes[32];
};

constexpr Utf8Avx2Row utf8_avx2_table_row(const unsigned char (&table)[16]) {
  Utf8Avx2Row row{};
  for (int i = 0; i < 32; ++i) row.bytes[i] = table[i % 16];
  return row;
}

constexpr Utf8Avx2Row utf8_avx2_splat_row(unsigned char byte) {
  Utf8Avx2Row row{};
  for (unsigned char& b : row.bytes) b = byte;
  return row;
}

inline constexpr Utf8Avx2Row kUtf8Avx2Rows[7] = {utf8_avx2_table_row(utf8_lookup::kFirstHigh),
                                                 utf8_avx2_table_row(utf8_lookup::kFirstLow),
                                                 utf8_avx2_table_row(utf8_lookup::kSecondHigh),
                                                 utf8_avx2_splat_row(0x0F),
                                                 utf8_avx2_splat_row(0xE0 - 0x80),
                                                 utf8_avx2_splat_row(0xF0 - 0x80),
                                                 utf8_avx2_splat_row(0x80)};

// The constants, made once per text: the tables in registers, the splats read from their rows at each
// block. g++ sees their values and rebuilds each splat (a 64-bit immediate, a move and a broadcast) in
// every inlined copy of the block check, and keeping all seven in registers spills some to an aligned
// stack frame; read through a pointer it cannot see through (an empty asm, no instruction), the splats are
// memory operands and the tables stay in registers. clang++ loads them from memory as they are.
struct Utf8Avx2Constants {
  __m256i first_high, first_low, second_high;
  const Utf8Avx2Row* rows;

  BITWIRE_UTF8_AVX2_INLINE static Utf8Avx2Constants make() {
    const Utf8Avx2Row* rows = kUtf8Avx2Rows;
    return {row(rows, 0), row(rows, 1), row(rows, 2), rows};
  }

  // Row k (3: 0x0F, 4: 0xE0 - 0x80, 5: 0xF0 - 0x80, 6: 0x80).
  BITWIRE_UTF8_AVX2_INLINE __m256i splat(int k) const {
    const Utf8Avx2Row* at = rows;
#if !defined(__clang__)
    asm("" : "+r"(at));
#endif
    return row(at, k);
  }

  BITWIRE_UTF8_AVX2_INLINE static __m256i row(const Utf8Avx2Row* rows, int k) {
    return _mm256_load_si256(reinterpret_cast<const __m256i*>(rows[k].bytes));
  }
};

// Non-zero in every byte of the 32 at `current` that breaks Table 3-7, given the bytes one, two and three
// positions before each (NUL and a sequence cut off by the end of the text aside). Position-local, so a
// byte checked twice gets the same answer.
BITWIRE_UTF8_AVX2_INLINE __m256i utf8_block_errors_avx2(__m256i current, __m256i previous1, __m256i previous2,
                                                        __m256i previous3, const Utf8Avx2Constants& c) {
  const __m256i nibble = c.splat(3);
  const __m256i pair = _mm256_and_si256(
      _mm256_and_si256(
          _mm256_shuffle_epi8(c.first_high, _mm256_and_si256(_mm256_srli_epi16(previous1, 4), nibble)),
          _mm256_shuffle_epi8(c.first_low, _mm256_and_si256(previous1, nibble))),
      _mm256_shuffle_epi8(c.second_high, _mm256_and_si256(_mm256_srli_epi16(current, 4), nibble)));
  // Bit 7 set where a third (two back >= 0xE0) or fourth (three back >= 0xF0) byte is due.
  const __m256i due = _mm256_and_si256(
      _mm256_or_si256(_mm256_subs_epu8(previous2, c.splat(4)), _mm256_subs_epu8(previous3, c.splat(5))),
      c.splat(6));
  return _mm256_xor_si256(pair, due);
}

// utf8_valid_sse2's contract and shape, 32 bytes a step: true when the `size` (>= kUtf8Avx2Minimum) bytes
// are valid UTF-8 without NUL; false when anything is wrong. Loads only bytes inside [text, text + size).
// Only for a CPU with AVX2 (utf8_cpu_has_avx2). NUL is found as a zero in the bytewise minimum of every
// block (one instruction a block).
[[gnu::target("avx2")]] inline bool utf8_valid_avx2(const unsigned char* text, size_t size) {
  __m256i smallest = _mm256_set1_epi8(-1);  // the smallest byte at each position over the blocks seen
  size_t at = 0;
  for (; at + 32 <= size; at += 32) {
    const __m256i block = utf8_load32(text + at);
    if (_mm256_movemask_epi8(block) != 0) break;
    smallest = _mm256_min_epu8(smallest, block);
  }
  if (at + 32 > size) {
    // Every whole block was ASCII; the last 32 bytes overlap them.
    const __m256i last = utf8_load32(text + size - 32);
    if (_mm256_movemask_epi8(last) == 0) {
      smallest = _mm256_min_epu8(smallest, last);
      return _mm256_movemask_epi8(_mm256_cmpeq_epi8(smallest, _mm256_setzero_si256())) == 0;
    }
    at = size - 32;  // every byte before it is ASCII (it lies in the blocks above)
  }
  const Utf8Avx2Constants constants = Utf8Avx2Constants::make();
  // From `at` on, the full check. The bytes before `at` are ASCII, so no sequence is pending across it;
  // before the first byte of the text, shifted-in zero bytes stand for that.
  const __m256i first = utf8_load32(text + at);
  smallest = _mm256_min_epu8(smallest, first);
  __m256i errors;  // non-zero where a byte breaks Table 3-7
  if (at == 0) {
    // Zero in the low lane, the block's low lane in the high one: vpalignr per lane then shifts bytes
    // in across the lane boundary.
    const __m256i before = _mm256_permute2x128_si256(first, first, 0x08);
    errors = utf8_block_errors_avx2(first, _mm256_alignr_epi8(first, before, 15),
                                    _mm256_alignr_epi8(first, before, 14),
                                    _mm256_alignr_epi8(first, before, 13), constants);
  } else {
    errors = utf8_block_errors_avx2(first, utf8_load32(text + at - 1), utf8_load32(text + at - 2),
                                    utf8_load32(text + at - 3), constants);
  }
  for (at += 32; at + 32 <= size; at += 32) {
    const __m256i block = utf8_load32(text + at);
    smallest = _mm256_min_epu8(smallest, block);
    errors = _mm256_or_si256(
        errors, utf8_block_errors_avx2(block, utf8_load32(text + at - 1), utf8_load32(text + at - 2),
                                       utf8_load32(text + at - 3), constants));
  }
  if (at < size) {  // the last 32 bytes, overlapping bytes already checked (at >= 3: size >= 35)
    at = size - 32;
    const __m256i block = utf8_load32(text + at);
    smallest = _mm256_min_epu8(smallest, block);
    errors = _mm256_or_si256(
        errors, utf8_block_errors_avx2(block, utf8_load32(text + at - 1), utf8_load32(text + at - 2),
                                       utf8_load32(text + at - 3), constants));
  }
  // No sequence may be cut off by the end: no lead in the last byte, no 3- or 4-byte lead in the last two,
  // no 4-byte lead in the last three.
  const bool truncated = text[size - 1] >= 0xC0 || text[size - 2] >= 0xE0 || text[size - 3] >= 0xF0;
  errors = _mm256_or_si256(errors, _mm256_cmpeq_epi8(smallest, _mm256_setzero_si256()));
  return _mm256_testz_si256(errors, errors) != 0 && !truncated;
}

#undef BITWIRE_UTF8_AVX2_INLINE

#endif

#if BITWIRE_UTF8_SSE2
// The vector check the CPU allows, for a text of kUtf8VectorMinimum bytes or more.
inline bool utf8_valid_vector(const unsigned char* text, size_t size) {
#if BITWIRE_UTF8_AVX2
  if (size >= kUtf8Avx2Minimum && utf8_cpu_has_avx2()) return utf8_valid_avx2(text, size);
#endif
#if BITWIRE_UTF8_SSSE3
  if (utf8_cpu_has_ssse3()) return utf8_valid_ssse3(text, size);
#endif
  return utf8_valid_sse2(text, size);
}
#endif

}  // namespace detail

// Validates `size` bytes and reports the first problem in byte order: kHasNul for a zero byte (a valid
// code point, but one the wire refuses inside strings), kInvalid for an encoding error. Texts of
// kUtf8VectorMinimum bytes or more are checked by a vector path where available (utf8_valid_vector: AVX2
// 32 bytes a step from kUtf8Avx2Minimum bytes, else SSSE3 or SSE2 16 bytes a step; an ASCII prefix costs
// a load, a sign mask and a NUL test per block); only a text that fails that check is walked again by the
// exact scalar check, which decides which problem comes first.
constexpr Utf8Status check_utf8(const unsigned char* text, size_t size) {
#if BITWIRE_UTF8_SSE2
  if (!std::is_constant_evaluated() && size >= detail::kUtf8VectorMinimum) {
    if (detail::utf8_valid_vector(text, size)) return Utf8Status::kValid;
  }
#endif
  return detail::check_utf8_scalar(text, size);
}

}  // namespace bitwire
