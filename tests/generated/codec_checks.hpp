// Checks every generated struct and message must pass, written once as templates over the type:
//
//   check_round_trip   write at a bit offset, read into a new and into a dirty object, compare with
//                      operator==, re-write and compare bytes; measure >= written at offsets 0..63;
//                      MaxBits >= measure
//   check_truncations  every shorter buffer fails with kPastEnd, inside the bytes it was given
//   check_worst_case   measure of the worst-case object is MaxBits (less a known slack) and every write
//                      of it, at offsets 0..63, fits MaxBits
//
// Objects are written after `offset` bits of random prefix, so alignment and byte boundaries move.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "bitwire/core/random.hpp"
#include "bitwire/serialize/serialize.hpp"
#include "values.hpp"

namespace bitwire {
// GoogleTest prints read errors by name.
inline void PrintTo(ReadError error, std::ostream* out) {
  *out << to_string(error);
}
}  // namespace bitwire

namespace bitwire::test::gen {

// Iterations for randomized loops: the sanitizer build runs a tenth (the same checks, fewer objects).
inline int scaled(int count) {
#if defined(BITWIRE_SANITIZED) && BITWIRE_SANITIZED
  return count / 10 > 0 ? count / 10 : 1;
#else
  return count;
#endif
}

struct Encoded {
  std::vector<std::byte> bytes;  // the prefix, then the object; ceil((offset + bits) / 8) bytes
  size_t offset = 0;             // bits of prefix before the object
  size_t bits = 0;               // bits the object took
};

inline void write_prefix(WriteStream& stream, size_t offset, uint64_t prefix) {
  while (offset > 0) {
    const int chunk = offset > 32 ? 32 : static_cast<int>(offset);
    stream.write_bits(prefix & low_mask(chunk), chunk);
    prefix >>= chunk;
    offset -= static_cast<size_t>(chunk);
  }
}

// Writes `object` after `offset` (0..63) bits of `prefix`. The buffer has room for twice MaxBytes, so a
// MaxBits that is too small shows as a failed expectation rather than a write past the buffer.
template <typename T>
Encoded encode(const T& object, size_t offset, uint64_t prefix = 0) {
  T copy = object;
  std::vector<std::byte> buffer(2 * T::MaxBytes + 16);
  WriteStream stream(buffer);
  write_prefix(stream, offset, prefix);
  copy.serialize(stream);
  stream.flush();
  Encoded result;
  result.offset = offset;
  result.bits = stream.bits_processed() - offset;
  buffer.resize(stream.bytes_processed());
  result.bytes = std::move(buffer);
  return result;
}

struct Decoded {
  bool ok = false;
  ReadError error = ReadError::kNone;
  size_t error_bit = 0;  // from the start of the buffer
  size_t bits = 0;       // consumed by the object (after the prefix)
  size_t position = 0;   // the stream position at the end, from the start of the buffer
};

// Reads and drops `bits` bits (false when the buffer ends first).
inline bool skip_bits(ReadStream& stream, size_t bits) {
  while (bits > 0) {
    uint64_t ignored = 0;
    const int chunk = bits > 32 ? 32 : static_cast<int>(bits);
    if (!stream.read_bits(ignored, chunk)) return false;
    bits -= static_cast<size_t>(chunk);
  }
  return true;
}

// Reads `object` from `bytes` after skipping `offset` bits.
template <typename T>
Decoded decode(std::span<const std::byte> bytes, size_t offset, T& object) {
  ReadStream stream(bytes);
  skip_bits(stream, offset);
  Decoded result;
  result.ok = object.serialize(stream);
  result.error = stream.error();
  result.error_bit = stream.error_bit();
  result.position = stream.bits_processed();
  result.bits = result.position >= offset ? result.position - offset : 0;
  return result;
}

template <typename T>
std::string describe(const T& value) {
  using bitwire::format_value;
  std::string out;
  format_value(out, value);
  return out;
}

template <typename T>
size_t measure(const T& object) {
  T copy = object;
  return measure_bits(copy);
}

// The full round trip of one canonical object (see values.hpp), with `dirty` as the second destination.
template <typename T>
void check_round_trip(const T& original, const T& dirty, Random& rng) {
  const size_t measured = measure(original);
  EXPECT_LE(measured, T::MaxBits) << describe(original);

  for (size_t offset = 0; offset < 64; ++offset) {
    const Encoded encoded = encode(original, offset, rng.next());
    ASSERT_LE(encoded.bits, measured) << "offset " << offset << ": " << describe(original);
  }

  const size_t offset = rng.below(64);
  const Encoded encoded = encode(original, offset, rng.next());

  T fresh{};
  const Decoded into_fresh = decode(encoded.bytes, offset, fresh);
  ASSERT_TRUE(into_fresh.ok) << to_string(into_fresh.error) << " at bit " << into_fresh.error_bit
                             << ", offset " << offset << ": " << describe(original);
  EXPECT_EQ(into_fresh.error, ReadError::kNone);
  EXPECT_EQ(into_fresh.bits, encoded.bits);
  EXPECT_TRUE(fresh == original) << "wrote " << describe(original) << "\nread  " << describe(fresh);

  T reused = dirty;
  const Decoded into_dirty = decode(encoded.bytes, offset, reused);
  ASSERT_TRUE(into_dirty.ok) << to_string(into_dirty.error);
  EXPECT_EQ(into_dirty.bits, encoded.bits);
  T expected = original;
  keep_unsent(expected, dirty);
  EXPECT_TRUE(reused == expected) << "wrote " << describe(original) << "\ninto  " << describe(dirty)
                                  << "\nread  " << describe(reused);

  // What was read writes the same bytes again.
  const Encoded again = encode(fresh, 0);
  const Encoded first = encode(original, 0);
  EXPECT_EQ(again.bytes, first.bytes) << describe(original);
  EXPECT_EQ(again.bits, first.bits);
}

// Every buffer shorter than the encoding fails with kPastEnd, reporting a bit inside what it was given,
// and never reading beyond it.
template <typename T>
void check_truncations(const T& original, const T& dirty, size_t offset = 0) {
  const Encoded encoded = encode(original, offset, 0x5a5a5a5a5a5a5a5aull);
  const size_t start_byte = offset / 8;
  for (size_t size = start_byte; size < encoded.bytes.size(); ++size) {
    T reused = dirty;
    const Decoded decoded = decode(std::span<const std::byte>(encoded.bytes.data(), size), offset, reused);
    ASSERT_FALSE(decoded.ok) << size << " of " << encoded.bytes.size() << " bytes: " << describe(original);
    EXPECT_EQ(decoded.error, ReadError::kPastEnd) << to_string(decoded.error) << ", " << size << " bytes";
    EXPECT_LE(decoded.error_bit, size * 8);
    EXPECT_LE(decoded.position, size * 8);
  }
}

// `slack` is how far MaxBits lies above the worst encoding the schema can produce (non-zero only where
// two `if`s exclude each other, which MaxBits does not model); `aligns` is the number of aligning
// operations (align, string, bytes, check) the worst-case object performs: each may pad 0..7 bits, and
// the measure counts 7 for each.
template <typename T>
void check_worst_case(const T& worst, size_t slack, size_t aligns) {
  const size_t measured = measure(worst);
  EXPECT_EQ(measured + slack, T::MaxBits) << describe(worst);
  size_t largest = 0;
  for (size_t offset = 0; offset < 64; ++offset) {
    const Encoded encoded = encode(worst, offset, ~uint64_t{0});
    EXPECT_LE(encoded.bits, T::MaxBits) << "offset " << offset;
    EXPECT_LE(encoded.bits, measured) << "offset " << offset;
    EXPECT_GE(encoded.bits + 7 * aligns, measured) << "offset " << offset;
    EXPECT_LE(encoded.bytes.size(), T::MaxBytes + (offset + 7) / 8) << "offset " << offset;
    largest = encoded.bits > largest ? encoded.bits : largest;
    T read{};
    const Decoded decoded = decode(encoded.bytes, offset, read);
    ASSERT_TRUE(decoded.ok) << to_string(decoded.error) << " at offset " << offset;
    EXPECT_EQ(decoded.bits, encoded.bits);
    EXPECT_TRUE(read == worst) << "offset " << offset;
  }
  // Without alignment a write is exactly the measure; with one alignment some start offset pads all 7.
  if (aligns <= 1) {
    EXPECT_EQ(largest, measured);
  }
}

// Bits int_relative spends on a step `d` >= 1 (docs/wire-format.md, "Relative integers").
inline size_t int_relative_bits(uint32_t d) {
  if (d == 1) return 1;
  if (d <= 6) return 2 + 3;
  if (d <= 23) return 3 + 5;
  if (d <= 280) return 4 + 9;
  if (d <= 4377) return 5 + 13;
  if (d <= 69914) return 6 + 17;
  return 6 + 32;
}

// The subset of a sparse array of `n` elements of `element_bits` each whose encoding is longest (the
// count is the same width for every subset), found by dynamic programming over the last sent position:
// an independent derivation of the worst case MaxBits must equal.
inline std::vector<bool> costliest_sparse_pattern(size_t n, size_t element_bits) {
  std::vector<size_t> best(n + 1, 0);  // best[p]: the costliest encoding whose last sent position is p
  std::vector<size_t> from(n + 1, 0);
  size_t last = 0;
  for (size_t p = 1; p <= n; ++p) {
    for (size_t q = 0; q < p; ++q) {
      if (q != 0 && best[q] == 0) continue;
      const size_t cost = best[q] + int_relative_bits(static_cast<uint32_t>(p - q)) + element_bits;
      if (cost > best[p]) {
        best[p] = cost;
        from[p] = q;
      }
    }
    if (best[p] > best[last]) last = p;
  }
  std::vector<bool> pattern(n, false);
  for (size_t p = last; p != 0; p = from[p]) pattern[p - 1] = true;
  return pattern;
}

// Draws `count` random objects of T and runs the round trip on each; the first few also get every
// truncation point.
template <typename T>
void check_random_objects(uint64_t seed, int count, int truncated = 20) {
  Draws draws(seed);
  Random rng(seed ^ 0xD1B54A32D192ED03ull);
  for (int i = 0; i < count; ++i) {
    SCOPED_TRACE("object " + std::to_string(i));
    const T original = draw<T>(draws, Fill::kRandom);
    const T dirty = draw<T>(draws, Fill::kScribble);
    check_round_trip(original, dirty, rng);
    if (i < truncated) check_truncations(original, dirty, rng.below(64));
    if (::testing::Test::HasFailure()) return;  // one failing object is enough to read
  }
}

}  // namespace bitwire::test::gen
