// BitWriter and BitReader: the bit packing under every bitwire stream.
//
// Bits are packed least-significant first into a 64-bit scratch word; each full word is stored
// little-endian, so bit k of a stream is bit (k mod 8) of byte k/8 whatever the host. See
// docs/wire-format.md, section "Bits".
//
// BitWriter trusts its caller (sizes and values are asserted in debug builds). BitReader is safe on any
// span: it never loads a byte outside the span, and it leaves bounds checking of each read to its caller
// through `can_read`, so the stream layer decides how to fail.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "bitwire/config.hpp"

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

// All-ones in the low `bits` bits, bits in [0, 64] (0 for anything below 1; never a shift by 64).
constexpr uint64_t low_mask(int bits) { return bits <= 0 ? 0 : ~uint64_t{0} >> (64 - (bits > 64 ? 64 : bits)); }

class BitWriter {
 public:
  BitWriter() = default;
  explicit BitWriter(std::span<std::byte> buffer) : data_(buffer.data()), capacity_bits_(buffer.size() * 8) {}

  // Appends the low `bits` bits of `value`. Precondition: bits in [1, 64], value < 2^bits, room left.
  void write_bits(uint64_t value, int bits) {
    BITWIRE_ASSERT(bits >= 1 && bits <= 64);
    BITWIRE_ASSERT(bits == 64 || (value >> bits) == 0);
    BITWIRE_ASSERT(bits_written() + static_cast<size_t>(bits) <= capacity_bits_);
    scratch_ |= value << scratch_bits_;
    scratch_bits_ += static_cast<unsigned>(bits);
    if (scratch_bits_ >= 64) {
      detail::store_le64(data_ + word_index_ * 8, scratch_);
      ++word_index_;
      scratch_bits_ -= 64;
      // The bits of `value` that did not fit; shifting in two steps keeps a 64-bit shift defined.
      scratch_ = (value >> 1) >> (static_cast<unsigned>(bits) - scratch_bits_ - 1);
    }
  }

  // Zero bits up to the next byte boundary; nothing when already aligned.
  void write_align() {
    const int padding = align_bits();
    if (padding != 0) write_bits(0, padding);
  }

  // Copies `count` bytes at a byte-aligned position. Precondition: aligned, room left.
  void write_bytes(const std::byte* source, size_t count) {
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
    scratch_ = scratch_bits_ == 0 ? 0 : detail::load_le_partial(data_ + word_index_ * 8, scratch_bits_ / 8);
  }

  // Stores the pending partial word (only the bytes that hold written bits). Idempotent; writing may
  // continue afterwards.
  void flush() {
    if (scratch_bits_ != 0) detail::store_le_partial(data_ + word_index_ * 8, scratch_, (scratch_bits_ + 7) / 8);
  }

  size_t bits_written() const { return word_index_ * 64 + scratch_bits_; }
  size_t bytes_written() const { return (bits_written() + 7) / 8; }
  size_t capacity_bits() const { return capacity_bits_; }
  // Padding bits the next align would write.
  int align_bits() const { return static_cast<int>((8 - scratch_bits_ % 8) % 8); }

 private:
  std::byte* data_ = nullptr;
  size_t capacity_bits_ = 0;
  uint64_t scratch_ = 0;
  unsigned scratch_bits_ = 0;  // bits pending in scratch_, always < 64 between calls
  size_t word_index_ = 0;      // index of the word scratch_ will be stored to
};

class BitReader {
 public:
  BitReader() = default;
  explicit BitReader(std::span<const std::byte> buffer)
      : data_(buffer.data()), size_bytes_(buffer.size()), total_bits_(buffer.size() * 8), bits_left_(total_bits_) {}

  // True when `bits` more bits are inside the buffer (and the reader has not been poisoned).
  bool can_read(size_t bits) const { return bits <= bits_left_; }

  // Precondition: bits in [0, 64] and can_read(bits). Reading 0 bits returns 0 and consumes nothing. In a
  // release build a count outside [0, 64] also returns 0 and consumes nothing (no shift is ever undefined).
  uint64_t read_bits(int bits) {
    BITWIRE_ASSERT(bits >= 0 && bits <= 64);
    BITWIRE_ASSERT(can_read(static_cast<size_t>(bits)));
    if (static_cast<unsigned>(bits) - 1u >= 64u) [[unlikely]] return 0;
    const auto wanted = static_cast<unsigned>(bits);
    bits_left_ -= wanted;
    if (wanted <= scratch_bits_) {
      // scratch_bits_ is below 64, so this shift is defined.
      const uint64_t value = scratch_ & low_mask(bits);
      scratch_ >>= wanted;
      scratch_bits_ -= wanted;
      return value;
    }
    const uint64_t word = load_next_word();
    const uint64_t value = (scratch_ | (word << scratch_bits_)) & low_mask(bits);
    const unsigned taken = wanted - scratch_bits_;  // in [1, 64]
    scratch_ = (word >> 1) >> (taken - 1);
    scratch_bits_ = 64 - taken;
    return value;
  }

  // Copies `count` bytes from a byte-aligned position. Precondition: aligned and can_read(count * 8).
  void read_bytes(std::byte* destination, size_t count) {
    BITWIRE_ASSERT(bits_read() % 8 == 0);
    BITWIRE_ASSERT(count <= bits_left_ / 8);
    const size_t start = bits_read();
    if (count != 0) std::memcpy(destination, data_ + start / 8, count);
    bits_left_ -= count * 8;
    seek(start + count * 8);
  }

  size_t bits_read() const { return total_bits_ - bits_left_; }
  size_t bits_remaining() const { return bits_left_; }
  size_t total_bits() const { return total_bits_; }
  // Padding bits the next align would consume.
  int align_bits() const { return static_cast<int>((8 - bits_read() % 8) % 8); }

  // After this no read of one bit or more passes can_read: how a failed stream latches its failure.
  void poison() {
    total_bits_ = bits_read();
    bits_left_ = 0;
  }

 private:
  // Loads the next word; the final partial word is assembled from the bytes that exist, never past them.
  uint64_t load_next_word() {
    const size_t offset = word_index_ * 8;
    ++word_index_;
    if (offset + 8 <= size_bytes_) [[likely]] {
      return detail::load_le64(data_ + offset);
    }
    return offset < size_bytes_ ? detail::load_le_partial(data_ + offset, size_bytes_ - offset) : 0;
  }

  void seek(size_t bit) {
    word_index_ = bit / 64;
    const auto offset = static_cast<unsigned>(bit % 64);
    scratch_ = 0;
    scratch_bits_ = 0;
    if (offset != 0) {
      scratch_ = load_next_word() >> offset;
      scratch_bits_ = 64 - offset;
    }
  }

  const std::byte* data_ = nullptr;
  size_t size_bytes_ = 0;
  size_t total_bits_ = 0;
  size_t bits_left_ = 0;     // bits not yet read: the bounds check is one compare
  uint64_t scratch_ = 0;     // unread bits of the last loaded word, lowest first
  unsigned scratch_bits_ = 0;
  size_t word_index_ = 0;    // words loaded so far
};

}  // namespace bitwire
