// BitWriter and BitReader: the bit packing under every bitwire stream.
//
// Bits are packed least-significant first into a 64-bit scratch word; each full word is stored
// little-endian, so bit k of a stream is bit (k mod 8) of byte k/8 whatever the host. See
// docs/wire-format.md, section "Bits".
//
// BitWriter trusts its caller (sizes and values are asserted in debug builds). BitReader is safe on any
// span: it never loads a byte outside the span; `try_read` checks the bounds of each read (and says so),
// so the stream layer decides how to fail.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "bitwire/core/config.hpp"

namespace bitwire {

// Bits needed to send any offset in [0, range]: 0 for range 0, else the bit length of range.
constexpr int bits_for_range(uint64_t range) { return range == 0 ? 0 : 64 - std::countl_zero(range); }

constexpr int bits_for_range(uint128_t range) {
  const auto high = static_cast<uint64_t>(range >> 64);
  return high != 0 ? 64 + bits_for_range(high) : bits_for_range(static_cast<uint64_t>(range));
}

// The wire's bits_required(min, max) for integers of up to 64 bits, computed in the unsigned domain so
// that [INT64_MIN, INT64_MAX] is exact.
template <typename T>
constexpr int bits_required(T min, T max) {
  if constexpr (detail::kIsInt128<T>) {
    return bits_for_range(static_cast<uint128_t>(static_cast<uint128_t>(max) - static_cast<uint128_t>(min)));
  } else {
    return bits_for_range(static_cast<uint64_t>(static_cast<uint64_t>(max) - static_cast<uint64_t>(min)));
  }
}

// The delta form's relative windows (docs/schema-language.md, "Delta messages"), shared with idlc so that
// MaxDeltaBits and the generated code cannot disagree. A changed number whose whole form takes `bits` >= 4
// bits is sent as a 2-bit selector s, then for s in 0..2 its difference from the baseline in
// delta_window_bits(bits, s) = ceil((s + 1) * bits / 4) bits, for s = 3 its whole value.
inline constexpr int kDeltaMinRelativeBits = 4;
inline constexpr int kDeltaSelectorBits = 2;
inline constexpr int kDeltaWindows = 3;
constexpr int delta_window_bits(int bits, int selector) {
  return ((selector + 1) * bits + 3) / 4;
}

// The version of the delta form's wire encoding: the windows above, the one encoding a reader accepts for
// each change (serialize/delta.hpp), and how generated delta forms send fields, arrays and the structs of
// other packages (docs/schema-language.md, "Delta messages"). Two builds that send deltas agree on it or
// must not talk: idlc folds it into the ProtocolId of a package with a delta message, Connection::protocol_id
// into a connection that sends delta types (docs/delta.md). Raise it with any change to what a delta's
// bits mean; packages and connections without deltas keep their ids.
inline constexpr int kDeltaFormatVersion = 1;

// All-ones in the low `bits` bits, bits in [0, 64] (0 for anything below 1; never a shift by 64).
BITWIRE_FORCE_INLINE constexpr uint64_t low_mask(int bits) { return bits <= 0 ? 0 : ~uint64_t{0} >> (64 - (bits > 64 ? 64 : bits)); }

class BitWriter {
 public:
  BitWriter() = default;
  explicit BitWriter(std::span<std::byte> buffer) : data_(buffer.data()), capacity_bits_(buffer.size() * 8) {}

  // Appends the low `bits` bits of `value`. Precondition: bits in [1, 64], value < 2^bits, room left.
  BITWIRE_FORCE_INLINE void write_bits(uint64_t value, int bits) {
    BITWIRE_ASSERT(bits >= 1 && bits <= 64);
    BITWIRE_ASSERT(bits == 64 || (value >> bits) == 0);
    BITWIRE_ASSERT(bits_written() + static_cast<size_t>(bits) <= capacity_bits_);
    scratch_ |= value << scratch_bits_;
    scratch_bits_ += static_cast<unsigned>(bits);
    if (scratch_bits_ >= 64) {
      detail::store_le64(data_ + word_index_ * 8, scratch_);
      ++word_index_;
      scratch_bits_ -= 64;
      stored_bits_ = 0;
      // The bits of `value` that did not fit; shifting in two steps keeps a 64-bit shift defined.
      scratch_ = (value >> 1) >> (static_cast<unsigned>(bits) - scratch_bits_ - 1);
    }
  }

  // Zero bits up to the next byte boundary; nothing when already aligned.
  BITWIRE_FORCE_INLINE void write_align() {
    const int padding = align_bits();
    if (padding != 0) write_bits(0, padding);
  }

  // Copies `count` bytes at a byte-aligned position. Precondition: aligned, room left.
  BITWIRE_FORCE_INLINE void write_bytes(const std::byte* source, size_t count) {
    BITWIRE_ASSERT(scratch_bits_ % 8 == 0);
    BITWIRE_ASSERT(bits_written() + count * 8 <= capacity_bits_);
    if (count == 0) return;
    // Settle the pending bytes of the scratch word, copy in one go, then take the last partial word back
    // into the scratch so later bit writes continue after it.
    const size_t start = word_index_ * 8 + scratch_bits_ / 8;
    if (scratch_bits_ != 0) detail::store_le_partial(data_ + word_index_ * 8, scratch_, scratch_bits_ / 8);
    std::memcpy(data_ + start, source, count);
    const size_t end = start + count;
    word_index_ = end / 8;
    scratch_bits_ = static_cast<unsigned>(end % 8) * 8;
    stored_bits_ = scratch_bits_;  // the memcpy stored them
    if (scratch_bits_ == 0) {
      scratch_ = 0;
    } else if (count >= 8) {
      // The partial word's bytes are the source's last end % 8 (fewer than 8 <= count): one load of the
      // source's last 8 bytes, shifted down, instead of reloading the bytes just stored (no store to
      // forward from, no test of the size's bits).
      scratch_ = detail::load_le64(source + count - 8) >> (64 - scratch_bits_);
    } else {
      scratch_ = detail::load_le_partial(data_ + word_index_ * 8, scratch_bits_ / 8);
    }
  }

  // Stores the pending partial word (only the bytes that hold written bits). Idempotent; writing may
  // continue afterwards. Nothing when the partial word's bits are all in the buffer already: the tail of a
  // byte block that nothing followed (the compiler folds the test where the writes are inlined, so a
  // message that ends with bytes or a string has no flush at all).
  BITWIRE_FORCE_INLINE void flush() {
    if (scratch_bits_ > stored_bits_) store_short(data_ + word_index_ * 8, scratch_, (scratch_bits_ + 7) / 8);
  }

  // flush(), except that the pending partial word is stored whole (one 8-byte store) when its 8 bytes lie
  // inside the span: the bytes from the written bits' last byte to the end of that word, at most 7, become
  // zero -- except when the message ends with a byte block whose copy already stored its tail (nothing is
  // pending then, and the bytes after it are left as they were). Never a byte past the span; where the word
  // would cross the span's end it stores exactly, as flush() does. For a caller whose span past the bytes
  // written is its own scratch (a padded buffer, a datagram whose length is bytes_written()); one compare
  // where the span's size is not a constant.
  BITWIRE_FORCE_INLINE void flush_padded() {
    if (scratch_bits_ <= stored_bits_) return;
    if (capacity_bits_ - word_index_ * 64 >= 64) {
      detail::store_le64(data_ + word_index_ * 8, scratch_);
    } else {
      store_short(data_ + word_index_ * 8, scratch_, (scratch_bits_ + 7) / 8);
    }
  }

  BITWIRE_FORCE_INLINE size_t bits_written() const { return word_index_ * 64 + scratch_bits_; }
  BITWIRE_FORCE_INLINE size_t bytes_written() const { return (bits_written() + 7) / 8; }
  size_t capacity_bits() const { return capacity_bits_; }
  // Padding bits the next align would write.
  BITWIRE_FORCE_INLINE int align_bits() const { return static_cast<int>((8 - scratch_bits_ % 8) % 8); }

 private:
  // The low `count` (in [1, 8]) bytes of `value`, little-endian, and not a byte more: two overlapping
  // fixed-size stores (the first and the last 4 bytes when count >= 4, else the first and the last 2), or
  // the one byte; the bytes both stores write get the same value. One or two branches where the count is
  // not a constant, against three for the 4-2-1 split.
  BITWIRE_FORCE_INLINE static void store_short(std::byte* at, uint64_t value, size_t count) {
    BITWIRE_ASSERT(count >= 1 && count <= 8);
    if (count >= 4) {
      store_le<uint32_t>(at, static_cast<uint32_t>(value));
      store_le<uint32_t>(at + count - 4, static_cast<uint32_t>(value >> ((count - 4) * 8)));
    } else if (count >= 2) {
      store_le<uint16_t>(at, static_cast<uint16_t>(value));
      store_le<uint16_t>(at + count - 2, static_cast<uint16_t>(value >> ((count - 2) * 8)));
    } else {
      at[0] = static_cast<std::byte>(value);
    }
  }

  template <typename T>
  BITWIRE_FORCE_INLINE static void store_le(std::byte* at, T value) {
    if constexpr (!detail::kLittleEndianHost) {
      if constexpr (sizeof(T) == 4) value = __builtin_bswap32(value);
      if constexpr (sizeof(T) == 2) value = __builtin_bswap16(value);
    }
    detail::store_raw<T>(at, value);
  }

  std::byte* data_ = nullptr;
  size_t capacity_bits_ = 0;
  uint64_t scratch_ = 0;
  unsigned scratch_bits_ = 0;  // bits pending in scratch_, always < 64 between calls
  size_t word_index_ = 0;      // index of the word scratch_ will be stored to
  unsigned stored_bits_ = 0;   // the first bits of scratch_ already in the buffer (a byte block's tail)
};

// The reader is a bit cursor over the span, not a scratch word: every read is one unaligned 8-byte load
// at the cursor's byte, shifted and masked, so a read has no refill branch and no state but the cursor
// (which the compilers keep in a register across an inlined serialize). The fast path is taken while the
// 8 bytes from the cursor's byte lie inside the span -- one compare, which also proves the bounds of any
// read of up to kFastBits bits. The last 7 bytes of a span are read by one 8-byte load that ends at the
// span's last byte, shifted into place; a span shorter than 8 bytes is loaded whole by two overlapping
// fixed-size loads (detail::load_le_short), without a library call. No path reads a byte outside the span.
class BitReader {
 public:
  // The widest read the fast path serves: a load at any bit of a byte still holds 57 bits after it.
  static constexpr int kFastBits = 57;

  BitReader() = default;
  explicit BitReader(std::span<const std::byte> buffer)
      : data_(buffer.data()),
        size_bytes_(buffer.size()),
        total_bits_(buffer.size() * 8),
        fast_end_(static_cast<ptrdiff_t>(buffer.size() * 8) - 56) {
    // With a 64-bit size_t no span of 2^60 bytes or more exists (no address space is that large), so its
    // size in bits does not wrap: told so, the compilers test a run of constant bits at a constant start
    // against the byte count (`size < 3`) instead of computing size * 8 first. A narrower size_t gets no
    // hint (the shift would be undefined there).
    if constexpr (sizeof(size_t) >= 8) {
      if (buffer.size() >= (uint64_t{1} << 60)) __builtin_unreachable();
    }
  }

  // True when `bits` more bits are inside the buffer (and the reader has not been poisoned).
  BITWIRE_FORCE_INLINE bool can_read(size_t bits) const { return bits <= total_bits_ - position_; }

  // Reads `bits` in [1, 64] into `value` when they are inside the buffer; false (value untouched) when not.
  // A count of 0 reads nothing and yields 0; a count outside [0, 64] (a caller bug) reads nothing and fails.
  BITWIRE_FORCE_INLINE bool try_read(uint64_t& value, int bits) {
    BITWIRE_ASSERT(bits >= 0 && bits <= 64);
    if (static_cast<unsigned>(bits) - 1u >= 64u) [[unlikely]] {
      value = 0;
      return bits == 0;
    }
    if (bits <= kFastBits) return read_narrow(value, bits);
    // Wider than one load serves: two reads, after one bounds check for both.
    // The halves are read without a bounds test of their own (the one above covers both), so the cursor
    // after them is start + bits on every path: a constant to the compilers where the start is.
    if (!can_read(static_cast<size_t>(bits))) return false;
    const uint64_t low = read_narrow_unchecked(32);
    value = low | (read_narrow_unchecked(bits - 32) << 32);
    return true;
  }

  // Precondition: bits in [0, 64] and can_read(bits). Reading 0 bits returns 0 and consumes nothing. In a
  // release build a count outside [0, 64] also returns 0 and consumes nothing (no shift is ever undefined).
  BITWIRE_FORCE_INLINE uint64_t read_bits(int bits) {
    BITWIRE_ASSERT(bits >= 0 && bits <= 64);
    BITWIRE_ASSERT(can_read(static_cast<size_t>(bits)));
    if (static_cast<unsigned>(bits) - 1u >= 64u) [[unlikely]] return 0;
    uint64_t value = 0;
    try_read(value, bits);
    return value;
  }

  // Copies `count` bytes from a byte-aligned position. Precondition: aligned and can_read(count * 8).
  BITWIRE_FORCE_INLINE void read_bytes(std::byte* destination, size_t count) {
    BITWIRE_ASSERT(bits_read() % 8 == 0);
    BITWIRE_ASSERT(count <= bits_remaining() / 8);
    if (count != 0) std::memcpy(destination, data_ + position_ / 8, count);
    position_ += count * 8;
  }

  // Moves the cursor over `bits` already read some other way (a ReadRun). Precondition: can_read(bits).
  BITWIRE_FORCE_INLINE void skip(size_t bits) {
    BITWIRE_ASSERT(can_read(bits));
    position_ += bits;
  }

  BITWIRE_FORCE_INLINE const std::byte* data() const { return data_; }
  BITWIRE_FORCE_INLINE size_t size_bytes() const { return size_bytes_; }
  BITWIRE_FORCE_INLINE size_t bits_read() const { return position_; }
  BITWIRE_FORCE_INLINE size_t bits_remaining() const { return total_bits_ - position_; }
  size_t total_bits() const { return total_bits_; }
  // Padding bits the next align would consume.
  BITWIRE_FORCE_INLINE int align_bits() const { return static_cast<int>((8 - position_ % 8) % 8); }

  // After this no read of one bit or more passes can_read: how a failed stream latches its failure.
  void poison() {
    total_bits_ = position_;
    fast_end_ = 0;
  }

 private:
  // bits in [1, kFastBits].
  BITWIRE_FORCE_INLINE bool read_narrow(uint64_t& value, int bits) {
    if (static_cast<ptrdiff_t>(position_) < fast_end_) [[likely]] {
      // position_ / 8 + 8 <= size: the load is inside the span, and so are the `bits` bits after the
      // cursor (position_ % 8 + bits <= 64).
      value = (detail::load_le64(data_ + position_ / 8) >> (position_ % 8)) & low_mask(bits);
      position_ += static_cast<unsigned>(bits);
      return true;
    }
    return read_tail(value, bits);
  }

  // bits in [1, kFastBits] and can_read(bits): the fast path's load, or the tail's, with no bounds test.
  BITWIRE_FORCE_INLINE uint64_t read_narrow_unchecked(int bits) {
    uint64_t value = 0;
    if (static_cast<ptrdiff_t>(position_) < fast_end_) [[likely]] {
      value = (detail::load_le64(data_ + position_ / 8) >> (position_ % 8)) & low_mask(bits);
      position_ += static_cast<unsigned>(bits);
    } else {
      read_tail_unchecked(value, bits);
    }
    return value;
  }

  // A read near the end of the span (or after poison): bounds-checked, then served from the span's last
  // 8 bytes, or from the whole span when it is shorter than 8 bytes.
  BITWIRE_FORCE_INLINE bool read_tail(uint64_t& value, int bits) {
    if (!can_read(static_cast<size_t>(bits))) return false;
    read_tail_unchecked(value, bits);
    return true;
  }

  // read_tail after its bounds test (can_read(bits) holds).
  BITWIRE_FORCE_INLINE void read_tail_unchecked(uint64_t& value, int bits) {
    uint64_t word = 0;
    size_t base_bits = 0;  // the stream bit that is bit 0 of `word`
    if (size_bytes_ >= 8) {
      word = detail::load_le64(data_ + size_bytes_ - 8);
      base_bits = (size_bytes_ - 8) * 8;
    } else {
      word = detail::load_le_short(data_, size_bytes_);  // size_bytes_ >= 1: can_read passed
    }
    // position_ >= base_bits here (the fast path covers every earlier position), and position_ + bits
    // <= total_bits_ = base_bits + 64 at most, so the shift is below 64 and the bits are all in `word`.
    value = (word >> (position_ - base_bits)) & low_mask(bits);
    position_ += static_cast<unsigned>(bits);
  }

  const std::byte* data_ = nullptr;
  size_t size_bytes_ = 0;
  size_t total_bits_ = 0;  // the readable end; poison pulls it back to the cursor
  // Positions below this have 8 bytes from their byte inside the span: (size - 7) * 8, signed so that a
  // span under 8 bytes needs no clamp (it is then at most 0, below every position).
  ptrdiff_t fast_end_ = 0;
  size_t position_ = 0;    // bits read so far
};

}  // namespace bitwire
