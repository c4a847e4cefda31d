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

namespace bitwire {

inline constexpr bool kSerializeChecks = BITWIRE_SERIALIZE_CHECKS != 0;

// GCC and Clang have 128-bit integers on 64-bit targets; under -std=c++20 (no GNU extensions) the standard
// library does not count them as integral types, so bitwire names and detects them itself.
__extension__ using int128_t = __int128;
__extension__ using uint128_t = unsigned __int128;

namespace detail {

inline constexpr bool kLittleEndianHost = (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__);

inline uint64_t to_little_endian(uint64_t value) {
  if constexpr (kLittleEndianHost) {
    return value;
  } else {
    return __builtin_bswap64(value);
  }
}

// Reads 8 bytes as a little-endian word. memcpy keeps it free of alignment and aliasing assumptions; the
// compilers turn it into one load.
inline uint64_t load_le64(const std::byte* source) {
  uint64_t value;
  std::memcpy(&value, source, sizeof value);
  return to_little_endian(value);
}

inline void store_le64(std::byte* destination, uint64_t value) {
  value = to_little_endian(value);
  std::memcpy(destination, &value, sizeof value);
}

// Reads the first `count` (< 8) bytes at `source` as the low bytes of a little-endian word; the rest is zero.
inline uint64_t load_le_partial(const std::byte* source, size_t count) {
  unsigned char bytes[8] = {};
  std::memcpy(bytes, source, count);
  uint64_t value;
  std::memcpy(&value, bytes, sizeof value);
  return to_little_endian(value);
}

inline void store_le_partial(std::byte* destination, uint64_t value, size_t count) {
  value = to_little_endian(value);
  std::memcpy(destination, &value, count);
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
