// ReadRun: a reading stream over a run of fixed-width fields -- consecutive fields whose widths are all
// known when the schema is compiled (idlc's model lists them) -- that checks the run's bounds once, loads
// its bits once, and serves every field from registers at a bit offset the compiler knows.
//
// Generated readers use it on a ReadStream as
//
//   bitwire::ReadRun<kRunBits> run_(stream_);
//   if (run_.load()) {
//     ... the run's fields, serialized on run_ ...
//     BITWIRE_TRY(run_.finish());
//   } else {
//     ... the same fields, serialized on stream_ ...
//   }
//
// load() succeeds when the whole run lies inside the span (a span under 8 bytes is loaded whole, a run
// of one chunk at a start the compiler knows loads exactly its own bytes, and a run at a start known only
// at run time whose chunks' 8-byte loads all lie in the span loads each at its own first byte); then
// every read is a shift and a mask with constant amounts once the cursor's start is known (one variable
// shift per 56 bits when it is not), with no bounds test. A field that straddles two 56-bit chunks (every
// 64-bit field) is instead one 8-byte load at its own first byte, when those 8 bytes are run bytes: a
// byte-aligned double is one load, not two chunks joined by shifts, and chunks no field uses are never
// loaded. Every range, enum and count check runs
// on the values exactly as on a ReadStream, and a failed check latches the stream with the same error,
// bit and cursor. When load() fails (a truncated message), nothing was consumed and
// the caller reads field by field, which reports kPastEnd where it happens. No path loads a byte outside
// the span.
//
// With kAlignedStart, load() also requires the cursor on a byte boundary, and the run may hold
// alignments (read_align), whose padding widths are then constants.
//
// Contract: kBits is the sum of the widths the run's reads consume; after a successful load() the caller
// serializes exactly the run's fields on the ReadRun, then calls finish(), which moves the stream's cursor
// past them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "bitwire/serialize/bits.hpp"
#include "bitwire/serialize/stream.hpp"

namespace bitwire {

namespace detail {

// The `kCount` (in [1, 8]) bytes at `at` as the low bytes of a little-endian word, the rest zero: fixed-size
// loads of those bytes only (two overlapping 4-byte loads for 7; 4-2-1 for the others under 8).
template <size_t kCount>
BITWIRE_FORCE_INLINE uint64_t load_le_exact(const std::byte* at) {
  static_assert(kCount >= 1 && kCount <= 8, "one to eight bytes");
  if constexpr (kCount == 8) {
    return load_le64(at);
  } else if constexpr (kCount == 7) {
    return load_le_partial(at, 4) | (load_le_partial(at + 3, 4) << 24);
  } else {
    return load_le_partial(at, kCount);
  }
}

// load_le_exact<count> for a count in [1, 8] that is a constant after inlining (the switch folds away).
BITWIRE_FORCE_INLINE uint64_t load_le_exact_count(const std::byte* at, size_t count) {
  switch (count) {
    case 1:
      return load_le_exact<1>(at);
    case 2:
      return load_le_exact<2>(at);
    case 3:
      return load_le_exact<3>(at);
    case 4:
      return load_le_exact<4>(at);
    case 5:
      return load_le_exact<5>(at);
    case 6:
      return load_le_exact<6>(at);
    case 7:
      return load_le_exact<7>(at);
    default:
      return load_le_exact<8>(at);
  }
}

// The bytes a field is loaded from on ReadRun's constant-field path: `count` bytes from byte `at` of the
// span, shifted right by `shift`, hold the field's bits from bit 0.
struct FieldWindow {
  size_t at = 0;
  size_t count = 0;
  size_t shift = 0;
};

// The window of a field of `bits` bits (in [1, 64]) at bit `offset` of a run of `run_bits` bits that starts
// at stream bit `start`, for a field within 8 bytes of its first byte ((start + offset) % 8 + bits <= 64)
// and inside the run (offset + bits <= run_bits). The fewest bytes, 1, 2, 4 or 8, that cover the field,
// starting at its first byte or earlier so as to end at the run's last byte; when the run is shorter than
// that, the field's own byte count from its first byte. Either way every byte lies in the run's bytes
// [start / 8, (start + run_bits + 7) / 8), and the field ends inside the window. One rule for ReadRun and
// for the test that checks it over every start bit, run length, offset and width.
BITWIRE_FORCE_INLINE constexpr FieldWindow field_window(size_t start, size_t run_bits, size_t offset,
                                                        size_t bits) {
  const size_t run_first = start / 8;
  const size_t run_end = (start + run_bits + 7) / 8;
  const size_t bit = start + offset;
  const size_t first = bit / 8;
  const size_t count = (bit + bits + 7) / 8 - first;  // in [1, 8]: the caller's precondition
  const size_t window = count <= 1 ? 1 : count <= 2 ? 2 : count <= 4 ? 4 : 8;
  if (window <= run_end - run_first) {
    const size_t at = first + window <= run_end ? first : run_end - window;
    return {at, window, bit - at * 8};
  }
  return {first, count, bit % 8};
}

}  // namespace detail

// Whether generated code reads runs through a ReadRun on this stream type (a ReadRun itself, or any other
// reading stream, reads field by field).
template <typename Stream>
inline constexpr bool kReadsRuns = std::is_same_v<Stream, ReadStream>;

template <size_t kBits, bool kAlignedStart = false>
class ReadRun {
  static_assert(kBits >= 1, "a run holds at least one bit");

  // Chunk k holds the stream bits [start + 56k, ...): at least 57 of them (an 8-byte load shifted by the
  // start's bit in its byte), the last chunk every bit up to the run's end.
  static constexpr size_t kChunkBits = 56;
  static constexpr size_t kChunks = (kBits + kChunkBits - 1) / kChunkBits;
  // The bits from the run's start that make every chunk's 8-byte load at its own first byte lie in the
  // span: the last load ends 7 * (kChunks - 1) + 8 bytes after the start's byte, and the start may be
  // 7 bits into it, so kLoadBits bits from the start reach at least to that end.
  static constexpr size_t kLoadBits = (7 * (kChunks - 1) + 8) * 8;
  static_assert(kLoadBits >= kBits, "each chunk serves 56 bits of the run");

 public:
  static constexpr bool kIsWriting = false;
  static constexpr bool kIsReading = true;
  static constexpr bool kIsMeasuring = false;
  static constexpr bool kIsValidating = false;

  BITWIRE_FORCE_INLINE explicit ReadRun(ReadStream& stream) : stream_(stream), start_(stream.reader_.bits_read()) {}

  // True, with the run's bits loaded, when they all lie inside the span; false (nothing loaded or consumed)
  // when not, or when the stream has failed.
  BITWIRE_FORCE_INLINE bool load() {
    const BitReader& reader = stream_.reader_;
    if (kChunks > 1 && !__builtin_constant_p(start_)) {
      // A run of more than one chunk at a start known only at run time (a run inside a loop, or after a
      // variable-width field): when the span holds kLoadBits more bits, every chunk is an 8-byte load at
      // its own place (7 bytes after the last), shifted by the start's bit in its byte: no end to compute,
      // no clamp, one shift amount. This test stands in for the one below (kLoadBits >= kBits), so the
      // usual case costs no more compares; a run that ends in the span's last bytes takes the path below.
      // Not for one chunk: short runs are often a message's last, which would pay the extra compare (both
      // compilers' corpus geomeans are lower without it there; bench/RESULTS.md, branch h-ser4).
      if (reader.bits_remaining() >= kLoadBits) [[likely]] {
        if constexpr (kAlignedStart) {
          if (start_ % 8 != 0) return false;
        }
        const size_t first = start_ / 8;
        const auto shift = kAlignedStart ? 0u : static_cast<unsigned>(start_ % 8);
        load_chunks(reader.data() + first, shift, std::make_index_sequence<kChunks>{});
        base_ = reader.data() + first;
        shift_ = shift;
        return true;
      }
    }
    if (reader.bits_remaining() < kBits) [[unlikely]] {
      hide_cursor();
      return false;
    }
    if constexpr (kAlignedStart) {
      if (start_ % 8 != 0) return false;
    }
    const std::byte* data = reader.data();
    if constexpr (kChunks == 1) {
      if (__builtin_constant_p(start_)) {
        // The run's start is a constant after inlining (a run at a known bit of a fresh stream): load exactly
        // the run's bytes, [start / 8, end), a constant count, whatever the span's size. They lie inside the
        // span (bits_remaining() >= kBits), so no test of the size, no short-span branches.
        constexpr size_t kMinBytes = (kBits + 7) / 8;  // at start % 8 == 0; one more byte at most otherwise
        const size_t first = start_ / 8;
        const auto shift = static_cast<unsigned>(start_ % 8);
        const uint64_t bytes = (shift + kBits + 7) / 8 == kMinBytes
                                   ? detail::load_le_exact<kMinBytes>(data + first)
                                   : detail::load_le_exact<kMinBytes + 1>(data + first);
        chunks_[0] = bytes >> shift;
        return true;
      }
      if (reader.size_bytes() < 8) {
        // A whole message under 8 bytes: the span's bytes (two overlapping fixed-size loads), shifted to the
        // run's first bit. The span holds at least the run's bytes (bits_remaining() <= size_bytes() * 8), so
        // a run of more than 24 bits needs no test of the size at all.
        constexpr size_t kMinSpan = (kBits + 7) / 8;
        chunks_[0] = detail::load_le_short<kMinSpan>(data, reader.size_bytes()) >> start_;
        return true;
      }
    }
    // A run of more than one chunk (over 56 bits) that fits the span proves the span holds 8 bytes or more:
    // bits_remaining() <= size_bytes() * 8.
    const size_t end = (start_ + kBits + 7) / 8;  // one past the run's last byte: end <= size
    const size_t last_end = end < 8 ? 8 : end;    // the last load's end: still inside the span
    const size_t first = start_ / 8;
    const auto shift = kAlignedStart ? 0u : static_cast<unsigned>(start_ % 8);
    // Chunks before the last: 8-byte loads that end at or before `end` (first + 7k + 8 <= end, since the
    // run reaches past bit 56k + 56 of itself).
    // Unrolled by construction: g++ -O2 keeps a loop rolled and the chunks in memory.
    load_chunks(data + first, shift, std::make_index_sequence<kChunks - 1>{});
    // The last chunk: the 8 bytes that end at the run's last byte (or the span's first 8 bytes when the run
    // ends before byte 8), shifted so that bit 0 is the chunk's first stream bit. The shift is in [0, 64):
    // that bit is at or after the load's first bit, and before the run's end, at most 64 bits after it.
    const size_t last_bit = start_ + kChunkBits * (kChunks - 1);
    chunks_[kChunks - 1] = detail::load_le64(data + last_end - 8) >> (last_bit - (last_end - 8) * 8);
    base_ = data + first;
    shift_ = shift;
    return true;
  }

  ReadRun(const ReadRun&) = delete;
  ReadRun& operator=(const ReadRun&) = delete;

  // Reads `bits` in [1, 64] into `value`: inside the span, which load() proved for the whole run.
  BITWIRE_FORCE_INLINE bool read_bits(uint64_t& value, int bits) {
    BITWIRE_ASSERT(bits >= 0 && bits <= 64);
    if (static_cast<unsigned>(bits) - 1u >= 64u) [[unlikely]] {
      value = 0;
      return bits == 0;
    }
    BITWIRE_ASSERT(offset_ + static_cast<size_t>(bits) <= kBits);
    value = extract(offset_, bits);
    offset_ += static_cast<size_t>(bits);
    return true;
  }

  // Zero bits to the next byte boundary, refused when not zero (kNonZeroPadding at the padding's first
  // bit, the cursor after it, as ReadStream::read_align leaves them). Only on a run that starts on a byte
  // boundary, where the padding's width is a constant.
  BITWIRE_FORCE_INLINE bool read_align() {
    static_assert(kAlignedStart, "an alignment inside a run needs a run that starts on a byte boundary");
    const size_t padding = (8 - offset_ % 8) % 8;
    if (padding == 0) return true;
    BITWIRE_ASSERT(offset_ + padding <= kBits);
    const size_t at = bits_processed();
    const uint64_t value = extract(offset_, static_cast<int>(padding));
    offset_ += padding;
    if (value != 0) [[unlikely]] return fail_at(ReadError::kNonZeroPadding, at);
    return true;
  }

  // Moves the stream's cursor past the run. Call once, after the run's fields.
  BITWIRE_FORCE_INLINE bool finish() {
    BITWIRE_ASSERT(offset_ == kBits);
    stream_.reader_.skip(offset_);
    return true;
  }

  BITWIRE_FORCE_INLINE bool fail(ReadError reason) { return fail_at(reason, bits_processed()); }
  // The stream's cursor goes where a field-by-field read would have left it, then the stream fails.
  BITWIRE_FORCE_INLINE bool fail_at(ReadError reason, size_t bit) {
    stream_.reader_.skip(offset_);
    return stream_.fail_at(reason, bit);
  }

  BITWIRE_FORCE_INLINE bool failed() const { return stream_.failed(); }
  BITWIRE_FORCE_INLINE size_t bits_processed() const { return start_ + offset_; }
  BITWIRE_FORCE_INLINE size_t bytes_processed() const { return (bits_processed() + 7) / 8; }
  BITWIRE_FORCE_INLINE size_t bits_remaining() const { return stream_.bits_remaining() - offset_; }

 private:
  // `bits` in [1, 64] from run bit `offset`: constant chunk indexes and shifts once offset and bits are.
  // Chunks overlap in what they hold (bits past a chunk's 56th are the next chunk's first, or zeros
  // shifted in), so OR-ing them in is exact.
  BITWIRE_FORCE_INLINE uint64_t extract(size_t offset, int bits) const {
    if (__builtin_constant_p(start_) && __builtin_constant_p(offset) && __builtin_constant_p(bits) &&
        (start_ + offset) % 8 + static_cast<size_t>(bits) <= 64) {
      return extract_window(offset, bits);
    }
    const size_t k = offset / kChunkBits;
    const size_t s = offset % kChunkBits;
    const auto width = static_cast<size_t>(bits);
    if (width > kChunkBits - s && direct(offset, width)) {
      return extract_direct(offset, bits);
    }
    uint64_t value = chunks_[chunk(k)] >> s;
    if (width > kChunkBits - s) value |= chunks_[chunk(k + 1)] << (kChunkBits - s);
    if (width > 2 * kChunkBits - s) value |= chunks_[chunk(k + 2)] << (2 * kChunkBits - s);
    return value & low_mask(bits);
  }

  // A field at a start, offset and width that are all constants after inlining, within 8 bytes of its first
  // byte: one load of the fewest bytes, 1, 2, 4 or 8, that cover it and lie inside the run's bytes (the
  // window starts at the field's first byte, or earlier so as to end at the run's last byte), shifted by a
  // constant; the exact count when the run is shorter than that load (two loads for 3, 5, 6 or 7 bytes;
  // only a run under 8 bytes). A run of 3, 5, 6 or 7 bytes would take two loads and an OR for its one
  // chunk, and a byte-aligned field past a chunk's 56 bits a join of two chunks: here each is one load,
  // like a hand-written reader's. Inside the span: load() proved the run is. The arithmetic is
  // detail::field_window, checked exhaustively by bits_run_test.
  BITWIRE_FORCE_INLINE uint64_t extract_window(size_t offset, int bits) const {
    const detail::FieldWindow window = detail::field_window(start_, kBits, offset, static_cast<size_t>(bits));
    const uint64_t value = detail::load_le_exact_count(stream_.reader_.data() + window.at, window.count);
    return (value >> window.shift) & low_mask(bits);
  }

  // Whether a field that straddles two chunks is read straight from the span instead: one 8-byte load at
  // its first byte (plus that load's next byte for a field of more than 50 bits that does not start on the
  // stream's byte boundary), where joining two chunks costs two shifts and an OR and keeps the chunks
  // live. It is when the 8 bytes from the field's first run byte are all run bytes (then inside the span,
  // which load() proved), and the field either starts on a run byte boundary or is at most 50 bits wide,
  // so that it ends inside those 8 bytes and the next one (its bit in the first byte is at most 7 + 7).
  // Constant once offset and bits are; a run of one chunk (a span under 8 bytes) never straddles.
  BITWIRE_FORCE_INLINE static bool direct(size_t offset, size_t width) {
    constexpr size_t kRunBytes = (kBits + 7) / 8;  // run bytes from the first: at least this many
    return kChunks > 1 && offset / 8 + 8 <= kRunBytes && (offset % 8 == 0 || width <= 50);
  }

  // Precondition: direct(offset, bits). The field's bits from the span: the load at its first byte, shifted
  // by its bit in that byte (at most 14, at most 7 for a field over 50 bits), and when the field reaches
  // past that load (more than 64 - shift bits), its last bits from the next byte, which is then a byte the
  // field covers: inside the run. That byte is read without a test when the run holds it anyway.
  BITWIRE_FORCE_INLINE uint64_t extract_direct(size_t offset, int bits) const {
    constexpr size_t kRunBytes = (kBits + 7) / 8;
    const std::byte* at = base_ + offset / 8;
    const size_t shift = shift_ + offset % 8;
    const auto width = static_cast<size_t>(bits);
    uint64_t value = detail::load_le64(at) >> shift;
    if (width > 50) {
      // shift in [0, 7]: (next << 1) << (63 - shift) is next << (64 - shift), and 0 when shift is 0.
      if (offset / 8 + 9 <= kRunBytes) {
        value |= (static_cast<uint64_t>(at[8]) << 1) << (63 - shift);
      } else if (shift + width > 64) {
        value |= static_cast<uint64_t>(at[8]) << (64 - shift);
      }
    }
    return value & low_mask(bits);
  }

  // Before load()'s false for a run past the span's end: hides the cursor's value from clang++'s optimizer
  // (an empty asm: no instruction, the value unchanged). The caller then reads the same fields on the
  // stream, and where runs sit in a loop (the elements of an array of structs) clang++ sees those reads'
  // positions as affine in the loop counter and gives each its own induction variable, advanced on every
  // element by the path that did load (about fifteen, kept on the stack). Hidden, the positions are computed
  // where they are needed. Only where the run's start is not a constant after inlining (a run at a known
  // bit of a fresh stream is in no such loop, and clang++ read ProbeReport in 12 more instructions with the
  // barrier there), and only with clang++: g++ does not do this, and reads RealPacket and RigidBody in
  // 10-40% more instructions with the barrier.
  BITWIRE_FORCE_INLINE void hide_cursor() {
#if defined(__clang__)
    if (!__builtin_constant_p(start_)) {
      size_t at = start_;
      asm("" : "+r"(at));
      stream_.reader_.skip(at - start_);  // at == start_: moves nothing
    }
#endif
  }

  // Chunks 0 .. K: the 8-byte loads 7 bytes apart from `at`, shifted right by `shift`.
  template <size_t... K>
  BITWIRE_FORCE_INLINE void load_chunks([[maybe_unused]] const std::byte* at, [[maybe_unused]] unsigned shift,
                                        std::index_sequence<K...>) {
    ((chunks_[K] = detail::load_le64(at + 7 * K) >> shift), ...);
  }

  // A chunk index, clamped into the array. Every read inside the run needs no clamp (its chunks exist);
  // the clamp is free where the index is a constant, and it keeps paths the compiler cannot prove dead (a
  // loop over a fixed array, widths known only at run time) visibly inside the array.
  BITWIRE_FORCE_INLINE static size_t chunk(size_t k) { return k < kChunks ? k : kChunks - 1; }

  ReadStream& stream_;
  size_t start_ = 0;      // the stream's cursor at the run's first bit
  size_t offset_ = 0;     // run bits read so far
  const std::byte* base_ = nullptr;  // after load(): the span's byte holding the run's first bit
  unsigned shift_ = 0;               // after load(): the run's first bit in that byte (0 with kAlignedStart)
  uint64_t chunks_[kChunks] = {};
};

}  // namespace bitwire
