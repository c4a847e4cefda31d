// WriteRun: a writing stream over a run of fixed-width fields -- consecutive fields whose widths are all
// known when the schema is compiled (idlc's model lists them) -- that assembles the run's bits in 64-bit
// registers at bit offsets the compiler knows, then appends them to the stream one whole word at a time.
//
// Generated writers use it on a WriteStream as
//
//   bitwire::WriteRun<kRunBits> run_(stream_);
//   ... the run's fields, serialized on run_ ...
//   run_.finish();
//
// Each field is its value (offset from the minimum, quantized, enum or bool: computed by the same
// serialize primitives as on a WriteStream) shifted by a constant and OR-ed into a register; the stream's
// cursor is touched once per 64 bits of the run, by finish(), instead of once per field. Where the stream's
// start bit is itself a constant (a message written from a fresh stream) the compilers fold both to the
// same stores; where it is not (a message after a variable-length part, or packed after other messages)
// each field costs no variable shift, no cursor update and no store test.
//
// The bits on the wire are exactly those of the same fields written one by one: the run's bit k is the
// stream's bit start + k. The writer's contract is unchanged: values are asserted in range in debug builds
// (a value wider than its field is caught when it is written into the run), and finish() appends through
// WriteStream::write_bits, which asserts the room left exactly as field-by-field writes do. A release build
// checks nothing, as before; the containers measure a message before they write it.
//
// Contract: kBits is the sum of the widths the run's writes produce; the caller serializes exactly the
// run's fields on the WriteRun, then calls finish() once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "bitwire/serialize/bits.hpp"
#include "bitwire/serialize/stream.hpp"

namespace bitwire {

// Whether generated code writes runs through a WriteRun on this stream type. A ValidateStream writes field
// by field, so that every value is checked and refused with its own reason and bit.
template <typename Stream>
inline constexpr bool kWritesRuns = std::is_same_v<Stream, WriteStream>;

template <size_t kBits>
class WriteRun {
  static_assert(kBits >= 1, "a run holds at least one bit");

  static constexpr size_t kWords = (kBits + 63) / 64;

 public:
  static constexpr bool kIsWriting = true;
  static constexpr bool kIsReading = false;
  static constexpr bool kIsMeasuring = false;
  static constexpr bool kIsValidating = false;

  BITWIRE_FORCE_INLINE explicit WriteRun(WriteStream& stream) : stream_(stream) {}

  WriteRun(const WriteRun&) = delete;
  WriteRun& operator=(const WriteRun&) = delete;

  // Places the low `bits` bits (in [1, 64]) of `value` at the run's next bit. Precondition: value < 2^bits
  // and the run has room (asserted).
  BITWIRE_FORCE_INLINE void write_bits(uint64_t value, int bits) {
    BITWIRE_ASSERT(bits >= 1 && bits <= 64);
    BITWIRE_ASSERT(bits == 64 || (value >> bits) == 0);
    BITWIRE_ASSERT(offset_ + static_cast<size_t>(bits) <= kBits);
    const size_t k = offset_ / 64;
    const auto s = static_cast<unsigned>(offset_ % 64);
    words_[word(k)] |= value << s;
    // The bits that did not fit go to the next word (s > 0 here, so the shift is in [1, 63]).
    if (s + static_cast<unsigned>(bits) > 64) words_[word(k + 1)] |= value >> (64 - s);
    offset_ += static_cast<size_t>(bits);
  }

  // Appends the run to the stream: whole words, then the last partial one. Call once, after the run's fields.
  BITWIRE_FORCE_INLINE void finish() {
    BITWIRE_ASSERT(offset_ == kBits);
    append_words(std::make_index_sequence<kWords - 1>{});
    stream_.write_bits(words_[kWords - 1], static_cast<int>(kBits - 64 * (kWords - 1)));
  }

  // A write stream never fails: writes are the caller's contract.
  static constexpr bool failed() { return false; }
  BITWIRE_FORCE_INLINE size_t bits_processed() const { return stream_.bits_processed() + offset_; }
  BITWIRE_FORCE_INLINE size_t bytes_processed() const { return (bits_processed() + 7) / 8; }

 private:
  // A word index, clamped into the array. Every write inside the run needs no clamp; the clamp is free
  // where the index is a constant, and it keeps paths the compiler cannot prove dead (a loop over a fixed
  // array it does not unroll) visibly inside the array.
  BITWIRE_FORCE_INLINE static size_t word(size_t k) { return k < kWords ? k : kWords - 1; }

  // Words 0 .. K, whole. Unrolled by construction: g++ -O2 keeps a loop rolled, and the words in memory.
  template <size_t... K>
  BITWIRE_FORCE_INLINE void append_words(std::index_sequence<K...>) {
    (stream_.write_bits(words_[K], 64), ...);
  }

  WriteStream& stream_;
  size_t offset_ = 0;  // run bits written so far
  uint64_t words_[kWords] = {};
};

}  // namespace bitwire
