// Random valid values for generated structs: the primitives the `<schema>_random.hpp` headers idlc writes
// (idlc --random / --bench, idlc_generate(... RANDOM | BENCHMARK)) call for each field. Every value drawn
// here is one a read can return, so a random object written and read back compares equal:
//   - integers inside their declared range (a quarter of the draws on an end of it),
//   - raw fields as any bit pattern of their width (signed ones sign-extended, as a read gives them),
//   - float and double as any bit pattern except NaN (NaN != NaN; infinities and denormals included),
//   - compressed floats as exact quanta, strings as valid UTF-8 without NUL, byte blocks as any octets.
// Deterministic: one seed gives the same objects with every compiler (bitwire::Random specifies its
// sequence). Not for packet paths: test and benchmark code only.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <array>
#include <string>

#include "bitwire/serialize/fixed_string.hpp"
#include "bitwire/serialize/fixed_vector.hpp"
#include "bitwire/core/random.hpp"
#include "bitwire/serialize/serialize.hpp"

namespace bitwire::random_fill_detail {

// In [min, max]; one draw in eight is min, one is max, so boundaries are always exercised.
inline int64_t range(Random& rng, int64_t min, int64_t max) {
  switch (rng.below(8)) {
    case 0: return min;
    case 1: return max;
    default: return rng.range(min, max);
  }
}

// The same for an unsigned storage whose bounds may lie above INT64_MAX (up to 2^64 - 1).
inline uint64_t urange(Random& rng, uint64_t min, uint64_t max) {
  switch (rng.below(8)) {
    case 0: return min;
    case 1: return max;
    default: {
      const uint64_t span = max - min;
      return min + (span == UINT64_MAX ? rng.next() : rng.below(span + 1));
    }
  }
}

// The same for a 128-bit integer (int128_t or uint128_t) in [min, max]: the offset from min drawn in
// the unsigned domain, 128 random bits reduced to the span (uniform enough for tests).
template <typename T>
inline T range128(Random& rng, T min, T max) {
  switch (rng.below(8)) {
    case 0:
      return min;
    case 1:
      return max;
    default: {
      const auto span = static_cast<uint128_t>(static_cast<uint128_t>(max) - static_cast<uint128_t>(min));
      const uint64_t low = rng.next();
      const uint64_t high = rng.next();
      const uint128_t draw = (static_cast<uint128_t>(high) << 64) | low;
      const uint128_t offset = span == ~uint128_t{0} ? draw : draw % (span + 1);
      return static_cast<T>(static_cast<uint128_t>(static_cast<uint128_t>(min) + offset));
    }
  }
}

// A count or length in [min, max] (uniform, ends favoured as in range()).
inline uint32_t count(Random& rng, uint32_t min, uint32_t max) {
  return static_cast<uint32_t>(range(rng, min, max));
}

// Any `bits`-bit pattern (1..64), all-zero and all-one favoured.
inline uint64_t raw_unsigned(Random& rng, int bits) {
  const uint64_t mask = ~uint64_t{0} >> (64 - bits);
  switch (rng.below(8)) {
    case 0: return 0;
    case 1: return mask;
    default: return rng.next() & mask;
  }
}

// A `bits`-bit two's-complement pattern, sign-extended to 64 bits (what a read of a signed raw field gives).
inline int64_t raw_signed(Random& rng, int bits) {
  const uint64_t pattern = raw_unsigned(rng, bits);
  const int shift = 64 - bits;
  return static_cast<int64_t>(pattern << shift) >> shift;
}

inline float any_float(Random& rng) {
  const float value = std::bit_cast<float>(static_cast<uint32_t>(rng.next()));
  return value != value ? 0.0f : value;
}

inline double any_double(Random& rng) {
  const double value = std::bit_cast<double>(rng.next());
  return value != value ? 0.0 : value;
}

// A quantum of the compressed float: exactly what a read returns for some wire integer.
inline float compressed(Random& rng, CompressedFloatParams params) {
  const auto integer = static_cast<uint32_t>(range(rng, 0, params.max_integer));
  return dequantize_compressed_float(integer, params);
}

// Valid UTF-8 of at most `max_bytes` bytes and no NUL: mostly ASCII, with 2-, 3- and 4-byte sequences
// (no surrogates, nothing above U+10FFFF). The byte length is drawn first (ends favoured), then filled.
inline void utf8(Random& rng, std::string& out, uint32_t max_bytes) {
  out.clear();
  const uint32_t length = count(rng, 0, max_bytes);
  while (out.size() < length) {
    const size_t room = length - out.size();
    const uint64_t kind = rng.below(8);
    if (kind < 5 || room < 2) {
      out += static_cast<char>(1 + rng.below(127));
    } else if (kind == 5 || room < 3) {
      const auto cp = static_cast<uint32_t>(0x80 + rng.below(0x800 - 0x80));
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (kind == 6 || room < 4) {
      auto cp = static_cast<uint32_t>(0x800 + rng.below(0x10000 - 0x800 - 0x800));
      if (cp >= 0xD800) cp += 0x800;  // skip the surrogates
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      const auto cp = static_cast<uint32_t>(0x10000 + rng.below(0x110000 - 0x10000));
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
}

template <size_t N>
void string(Random& rng, FixedString<N>& value) {
  std::string text;
  utf8(rng, text, static_cast<uint32_t>(N));
  const bool fits = value.assign(text);
  BITWIRE_ASSERT(fits);
  (void)fits;
}

template <size_t N>
void bytes(Random& rng, FixedVector<uint8_t, N>& value) {
  const bool fits = value.resize(count(rng, 0, static_cast<uint32_t>(N)));
  BITWIRE_ASSERT(fits);
  (void)fits;
  for (uint8_t& byte : value) byte = static_cast<uint8_t>(rng.next());
}

// A fixed-length byte block (`bytes[N]`): any octets.
template <size_t N>
void block(Random& rng, std::array<uint8_t, N>& value) {
  for (uint8_t& byte : value) byte = static_cast<uint8_t>(rng.next());
}

}  // namespace bitwire::random_fill_detail
