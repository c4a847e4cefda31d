// Build-wide basics every bitwire header leans on: the write-side assertion, 128-bit integer names,
// little-endian word loads and stores, and the floating-point rounding barrier the wire format needs.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

// Writes are the caller's contract: a value out of range, a buffer too small or a misuse of the API is a
// bug in the calling code, checked in builds with assertions (no NDEBUG) and free in release builds.
// Reads never use this: every read of untrusted bytes fails by returning false.
#ifndef BITWIRE_ASSERT
#define BITWIRE_ASSERT(condition) assert(condition)
#endif

// The articles' serialize checks (a magic value between sections, verified on read) cost 39 bits each, so
// they are off unless both ends are built with BITWIRE_SERIALIZE_CHECKS=1. Generated ProtocolIds differ
// with and without them, so mismatched builds refuse each other's packets instead of misreading them.
#ifndef BITWIRE_SERIALIZE_CHECKS
#define BITWIRE_SERIALIZE_CHECKS 0
#endif

// The inlining contract of the hot paths: the bit primitives, the stream operations and every generated
// serialize function within idlc's inline budget are forced inline, so a message's serialize becomes one
// straight-line body in which every bit offset of a fixed-width run is a constant and the stream's state
// lives in registers (a local stream whose address never escapes cannot be aliased by stores to its bytes).
// A user may define it as plain `inline` before including bitwire to trade speed for code size.
#ifndef BITWIRE_FORCE_INLINE
#if defined(__GNUC__) || defined(__clang__)
#define BITWIRE_FORCE_INLINE [[gnu::always_inline]] inline
#else
#define BITWIRE_FORCE_INLINE inline
#endif
#endif

namespace bitwire {

inline constexpr bool kSerializeChecks = BITWIRE_SERIALIZE_CHECKS != 0;

// GCC and Clang have 128-bit integers on 64-bit targets; under -std=c++20 (no GNU extensions) the standard
// library does not count them as integral types, so bitwire names and detects them itself.
__extension__ using int128_t = __int128;
__extension__ using uint128_t = unsigned __int128;

namespace detail {

inline constexpr bool kLittleEndianHost = (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__);

BITWIRE_FORCE_INLINE uint64_t to_little_endian(uint64_t value) {
  if constexpr (kLittleEndianHost) {
    return value;
  } else {
    return __builtin_bswap64(value);
  }
}

// Fixed-size loads and stores at any alignment: a memcpy of a constant size, which the compilers turn
// into one move (never a library call).
// g++ sees the reader's 8-byte fast-path load inlined next to a buffer it knows is shorter and warns,
// though a run-time compare (the span holds 8 bytes from the load's first byte) guards every such load.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif
template <typename T>
BITWIRE_FORCE_INLINE T load_raw(const std::byte* source) {
  T value;
  std::memcpy(&value, source, sizeof value);
  return value;
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

template <typename T>
BITWIRE_FORCE_INLINE void store_raw(std::byte* destination, T value) {
  std::memcpy(destination, &value, sizeof value);
}

// Reads 8 bytes as a little-endian word.
BITWIRE_FORCE_INLINE uint64_t load_le64(const std::byte* source) {
  return to_little_endian(load_raw<uint64_t>(source));
}

BITWIRE_FORCE_INLINE void store_le64(std::byte* destination, uint64_t value) {
  store_raw<uint64_t>(destination, to_little_endian(value));
}

// Reads the first `count` (< 8) bytes at `source` as the low bytes of a little-endian word; the rest is
// zero. Loads only those bytes, with at most three fixed-size loads (4, 2, 1) and no library call.
BITWIRE_FORCE_INLINE uint64_t load_le_partial(const std::byte* source, size_t count) {
  uint64_t value = 0;
  unsigned shift = 0;
  if (count & 4) {
    uint32_t word = load_raw<uint32_t>(source);
    if constexpr (!kLittleEndianHost) word = __builtin_bswap32(word);
    value = word;
    shift = 32;
  }
  if (count & 2) {
    uint16_t half = load_raw<uint16_t>(source + shift / 8);
    if constexpr (!kLittleEndianHost) half = __builtin_bswap16(half);
    value |= static_cast<uint64_t>(half) << shift;
    shift += 16;
  }
  if (count & 1) value |= static_cast<uint64_t>(std::to_integer<uint8_t>(source[shift / 8])) << shift;
  return value;
}

// The `count` (in [1, 7]) bytes at `source` as the low bytes of a little-endian word, the rest zero, from
// two overlapping fixed-size loads: the first and the last 4 bytes when count >= 4, the first and the last
// 2 when count >= 2, shifted together (the bytes both loads hold land on the same bits), or the one byte.
// Touches no byte outside [source, source + count). kMinCount, a lower bound on count the caller knows at
// compile time (a run of more than 24 bits fills at least 4 bytes), removes the branches it rules out.
template <size_t kMinCount = 1>
BITWIRE_FORCE_INLINE uint64_t load_le_short(const std::byte* source, size_t count) {
  static_assert(kMinCount >= 1 && kMinCount <= 7, "a short span holds 1 to 7 bytes");
  if (kMinCount >= 4 || count >= 4) {
    uint32_t low = load_raw<uint32_t>(source);
    uint32_t high = load_raw<uint32_t>(source + count - 4);
    if constexpr (!kLittleEndianHost) {
      low = __builtin_bswap32(low);
      high = __builtin_bswap32(high);
    }
    return uint64_t{low} | (uint64_t{high} << ((count - 4) * 8));
  }
  if (kMinCount >= 2 || count >= 2) {
    uint16_t low = load_raw<uint16_t>(source);
    uint16_t high = load_raw<uint16_t>(source + count - 2);
    if constexpr (!kLittleEndianHost) {
      low = __builtin_bswap16(low);
      high = __builtin_bswap16(high);
    }
    return uint64_t{low} | (uint64_t{high} << ((count - 2) * 8));
  }
  return std::to_integer<uint8_t>(source[0]);
}

// The last `count` (in [1, 7]) bytes of a span that holds at least 8 bytes, ending at `end`, as the low
// bytes of a little-endian word: one 8-byte load that ends exactly at `end`, shifted into place. Never
// touches a byte outside [end - 8, end).
BITWIRE_FORCE_INLINE uint64_t load_le_tail(const std::byte* end, size_t count) {
  return load_le64(end - 8) >> ((8 - count) * 8);
}

// Stores the low `count` (in [1, 8]) bytes of `value` little-endian, with at most three fixed-size
// stores (4, 2, 1; or one of 8) and no library call; not a byte more.
BITWIRE_FORCE_INLINE void store_le_partial(std::byte* destination, uint64_t value, size_t count) {
  if (count == 8) {
    store_le64(destination, value);
    return;
  }
  if (count & 4) {
    const auto low = static_cast<uint32_t>(value);
    if constexpr (kLittleEndianHost) store_raw<uint32_t>(destination, low);
    else store_raw<uint32_t>(destination, __builtin_bswap32(low));
    destination += 4;
    value >>= 32;
  }
  if (count & 2) {
    const auto low = static_cast<uint16_t>(value);
    if constexpr (kLittleEndianHost) store_raw<uint16_t>(destination, low);
    else store_raw<uint16_t>(destination, __builtin_bswap16(low));
    destination += 2;
    value >>= 16;
  }
  if (count & 1) *destination = static_cast<std::byte>(value & 0xFF);
}

// Forces `value` to be materialised as a float32 at this point, so that no compiler may contract the
// operation that produced it with the next one into a fused multiply-add (which rounds once instead of
// twice and changes the bytes of compressed floats). The build also passes -ffp-contract=off; this barrier
// keeps the bytes right in a user's project that does not.
inline float force_round(float value) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  asm("" : "+x"(value));
#elif defined(__GNUC__) && defined(__aarch64__)
  asm("" : "+w"(value));
#else
  volatile float stored = value;
  value = stored;
#endif
  return value;
}

template <typename T>
inline constexpr bool kIsInt128 = std::is_same_v<std::remove_cv_t<T>, int128_t> ||
                                  std::is_same_v<std::remove_cv_t<T>, uint128_t>;

}  // namespace detail

// An integer the wire can carry: any standard integer type except bool, or a 128-bit integer.
template <typename T>
concept WireInteger = (std::is_integral_v<T> && !std::is_same_v<std::remove_cv_t<T>, bool>) || detail::kIsInt128<T>;

}  // namespace bitwire

// What generated code calls instead of inlining: the serialize of a struct past idlc's inline budget
// (docs/schema-language.md, "Limits"), so that a deep or wide schema compiles in time linear in its size.
#ifndef BITWIRE_OUT_OF_LINE
#if defined(__GNUC__) || defined(__clang__)
#define BITWIRE_OUT_OF_LINE [[gnu::noinline]] inline
#else
#define BITWIRE_OUT_OF_LINE inline
#endif
#endif
