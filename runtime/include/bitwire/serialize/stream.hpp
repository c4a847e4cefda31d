// WriteStream, ReadStream, MeasureStream and ValidateStream: the streams one templated
// `serialize(Stream&)` is instantiated with. Each announces its kind at compile time (kIsWriting /
// kIsReading / kIsMeasuring, and kIsValidating), so the serialize functions in serialize.hpp compile to
// straight-line writes, checked reads, counts, or checked writes.
//
// The Stream concept the primitives rely on: the three kind flags and kIsValidating; a writing stream has
// write_bits / write_align / write_bytes, a reading stream read_bits / read_align / read_bytes / fail_at,
// a measuring stream add_bits / add_align; every stream has bits_processed() and failed(). A writing
// stream also has `refuse(WriteError)`, which the primitives call only when kIsValidating is true (on a
// WriteStream the same contract is an assertion).
//
// A ReadStream faces untrusted bytes: a failed read returns false, records why (ReadError) and where (the
// bit position of the failing operation), and latches: every later read on the stream fails too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "bitwire/serialize/bits.hpp"

namespace bitwire {

template <size_t kBits, bool kAlignedStart>
class ReadRun;

enum class ReadError : uint8_t {
  kNone,
  kPastEnd,           // the read needs more bits than the buffer holds
  kValueOutOfRange,   // a ranged integer or compressed float decoded above its maximum
  kNonZeroPadding,    // alignment padding held a one bit
  kInvalidUtf8,       // a string payload is not well-formed UTF-8
  kInteriorNul,       // a string payload holds a zero byte
  kNotIncreasing,     // an int_relative value is not greater than the previous one
  kCheckMismatch,     // a serialize check did not find its magic value
  kInvalidEnum,       // an enum value outside its declared set
  kInvalidCount,      // a count or length outside its declared bounds
  kInvalidData,       // a value the application's own validation refused
  kConstantMismatch,  // a wire constant (schema `const(value, bits)`) did not hold its value
  kNonZeroReserved,   // reserved bits (schema `reserved(bits)`) held a one bit
  kNonCanonical,      // a delta change not in the smallest form its writer sends (serialize/delta.hpp)
};

constexpr const char* to_string(ReadError error) {
  switch (error) {
    case ReadError::kNone: return "none";
    case ReadError::kPastEnd: return "read past end of buffer";
    case ReadError::kValueOutOfRange: return "value out of range";
    case ReadError::kNonZeroPadding: return "non-zero alignment padding";
    case ReadError::kInvalidUtf8: return "string is not valid UTF-8";
    case ReadError::kInteriorNul: return "string holds a zero byte";
    case ReadError::kNotIncreasing: return "relative value not increasing";
    case ReadError::kCheckMismatch: return "serialize check mismatch";
    case ReadError::kInvalidEnum: return "enum value not in its set";
    case ReadError::kInvalidCount: return "count out of range";
    case ReadError::kInvalidData: return "invalid data";
    case ReadError::kConstantMismatch: return "wire constant does not hold its value";
    case ReadError::kNonZeroReserved: return "reserved bits are not zero";
    case ReadError::kNonCanonical:
      return "delta change not in its smallest form";
  }
  return "unknown read error";
}

// Why a ValidateStream refused a value: each is a write contract that, broken in a release build, would
// put bits on the wire that a correct peer's reader refuses (or, for a non-finite float, misreads).
enum class WriteError : uint8_t {
  kNone,
  kValueOutOfRange,  // a ranged integer outside [min, max]
  kValueTooWide,     // a raw field value with bits set above its width
  kInvalidEnum,      // an enum value outside its declared set
  kInvalidCount,     // a count or length outside its declared bounds (string too long, array too short)
  kInvalidUtf8,      // a string that is not well-formed UTF-8
  kInteriorNul,      // a string holding a zero byte
  kNotIncreasing,    // an int_relative value not above the previous one
  kNotFinite,        // a compressed float that is NaN or infinite
  kInvalidData,      // a serialize function returned false for its own reason
};

constexpr const char* to_string(WriteError error) {
  switch (error) {
    case WriteError::kNone: return "none";
    case WriteError::kValueOutOfRange: return "value out of range";
    case WriteError::kValueTooWide: return "value wider than its field";
    case WriteError::kInvalidEnum: return "enum value not in its set";
    case WriteError::kInvalidCount: return "count or length out of range";
    case WriteError::kInvalidUtf8: return "string is not valid UTF-8";
    case WriteError::kInteriorNul: return "string holds a zero byte";
    case WriteError::kNotIncreasing: return "relative value not increasing";
    case WriteError::kNotFinite: return "compressed float is not finite";
    case WriteError::kInvalidData: return "invalid data";
  }
  return "unknown write error";
}

class WriteStream {
 public:
  static constexpr bool kIsWriting = true;
  static constexpr bool kIsReading = false;
  static constexpr bool kIsMeasuring = false;
  static constexpr bool kIsValidating = false;

  explicit WriteStream(std::span<std::byte> buffer) : writer_(buffer) {}

  BITWIRE_FORCE_INLINE void write_bits(uint64_t value, int bits) { writer_.write_bits(value, bits); }
  BITWIRE_FORCE_INLINE void write_align() { writer_.write_align(); }
  BITWIRE_FORCE_INLINE void write_bytes(const std::byte* source, size_t count) {
    writer_.write_bytes(source, count);
  }

  // Stores the last partial word; call once writing is done, before using the bytes.
  BITWIRE_FORCE_INLINE void flush() { writer_.flush(); }
  // The same bytes as flush(); the rest of the last 8-byte word may be written (zeroes) where the span holds
  // it, and is left as it was after a message ending with a byte block (BitWriter::flush_padded): for a
  // buffer whose bytes past the message are the caller's scratch, never for zero padding.
  BITWIRE_FORCE_INLINE void flush_padded() { writer_.flush_padded(); }

  BITWIRE_FORCE_INLINE size_t bits_processed() const { return writer_.bits_written(); }
  BITWIRE_FORCE_INLINE size_t bytes_processed() const { return writer_.bytes_written(); }
  BITWIRE_FORCE_INLINE int align_bits() const { return writer_.align_bits(); }
  // A write stream never fails: writes are the caller's contract.
  static constexpr bool failed() { return false; }

 private:
  BitWriter writer_;
};

class ReadStream {
 public:
  static constexpr bool kIsWriting = false;
  static constexpr bool kIsReading = true;
  static constexpr bool kIsMeasuring = false;
  static constexpr bool kIsValidating = false;

  explicit ReadStream(std::span<const std::byte> buffer) : reader_(buffer) {}

  // Reads `bits` in [1, 64] into `value`; on failure `value` is untouched.
  BITWIRE_FORCE_INLINE bool read_bits(uint64_t& value, int bits) {
    if (!reader_.try_read(value, bits)) [[unlikely]] {
      return fail_at(ReadError::kPastEnd, reader_.bits_read());
    }
    return true;
  }

  // Consumes the padding to the next byte boundary; it must be zero. The padding is the rest of the
  // cursor's byte: one bounds test, then that byte alone, shifted by the cursor's bit (a constant where the
  // cursor is), instead of an 8-byte read and a mask.
  BITWIRE_FORCE_INLINE bool read_align() {
    if (failed()) return false;
    const int padding = reader_.align_bits();
    if (padding == 0) return true;
    const size_t start = reader_.bits_read();
    if (!reader_.can_read(static_cast<size_t>(padding))) [[unlikely]]
      return fail_at(ReadError::kPastEnd, start);
    // can_read: the cursor's byte, start / 8, is inside the span.
    const unsigned byte = std::to_integer<unsigned>(reader_.data()[start / 8]);
    reader_.skip(static_cast<size_t>(padding));
    if ((byte >> (start % 8)) != 0) [[unlikely]]
      return fail_at(ReadError::kNonZeroPadding, start);
    return true;
  }

  // Copies `count` bytes; the stream must be byte-aligned.
  BITWIRE_FORCE_INLINE bool read_bytes(std::byte* destination, size_t count) {
    if (failed()) return false;
    if (count > reader_.bits_remaining() / 8) return fail_at(ReadError::kPastEnd, reader_.bits_read());
    reader_.read_bytes(destination, count);
    return true;
  }

  // Records the first failure (reason and bit position) and latches the stream. Returns false so a
  // serialize function can `return stream.fail(...)`.
  BITWIRE_FORCE_INLINE bool fail(ReadError reason) { return fail_at(reason, reader_.bits_read()); }
  BITWIRE_FORCE_INLINE bool fail_at(ReadError reason, size_t bit) {
    if (error_ == ReadError::kNone) {
      error_ = reason;
      error_bit_ = bit;
    }
    reader_.poison();
    return false;
  }

  BITWIRE_FORCE_INLINE bool failed() const { return error_ != ReadError::kNone; }
  ReadError error() const { return error_; }
  // Bit position (from the start of the buffer) of the operation that failed.
  size_t error_bit() const { return error_bit_; }

  BITWIRE_FORCE_INLINE size_t bits_processed() const { return reader_.bits_read(); }
  BITWIRE_FORCE_INLINE size_t bytes_processed() const { return (reader_.bits_read() + 7) / 8; }
  BITWIRE_FORCE_INLINE size_t bits_remaining() const { return reader_.bits_remaining(); }
  BITWIRE_FORCE_INLINE int align_bits() const { return reader_.align_bits(); }

 private:
  template <size_t kBits, bool kAlignedStart>
  friend class ReadRun;  // reads a run of fixed-width fields straight from the span, then moves the cursor

  BitReader reader_;
  ReadError error_ = ReadError::kNone;
  size_t error_bit_ = 0;
};

// Counts a conservative bound: exact widths, plus 7 bits for each operation that aligns (align, bytes,
// string, check), so the count is enough at any starting bit position.
class MeasureStream {
 public:
  static constexpr bool kIsWriting = false;
  static constexpr bool kIsReading = false;
  static constexpr bool kIsMeasuring = true;
  static constexpr bool kIsValidating = false;

  static constexpr int kAlignBound = 7;

  BITWIRE_FORCE_INLINE void add_bits(size_t bits) { bits_ += bits; }
  BITWIRE_FORCE_INLINE void add_align() { bits_ += kAlignBound; }

  BITWIRE_FORCE_INLINE size_t bits_processed() const { return bits_; }
  BITWIRE_FORCE_INLINE size_t bytes_processed() const { return (bits_ + 7) / 8; }
  static constexpr bool failed() { return false; }

 private:
  size_t bits_ = 0;
};

// A writer that writes nothing: the serialize functions see a write stream (every branch a write takes),
// and every write contract the primitives assert on a WriteStream -- ranges, field widths, enum sets,
// counts, string lengths, UTF-8, increasing relative values, finite compressed floats -- is checked here
// instead, and the first violation is recorded with its reason and bit position. A message that passes
// writes bits every correct reader accepts. It also counts the same conservative bound a MeasureStream
// counts, so one pass both validates and measures.
class ValidateStream {
 public:
  static constexpr bool kIsWriting = true;
  static constexpr bool kIsReading = false;
  static constexpr bool kIsMeasuring = false;
  static constexpr bool kIsValidating = true;

  BITWIRE_FORCE_INLINE void write_bits(uint64_t value, int bits) {
    if (bits < 1 || bits > 64 || (bits < 64 && (value >> bits) != 0)) refuse(WriteError::kValueTooWide);
    bits_ += static_cast<size_t>(bits > 0 ? bits : 0);
  }
  BITWIRE_FORCE_INLINE void write_align() { bits_ += MeasureStream::kAlignBound; }
  BITWIRE_FORCE_INLINE void write_bytes(const std::byte*, size_t count) { bits_ += count * 8; }
  BITWIRE_FORCE_INLINE void flush() {}

  // Records the first violation; returns false so a primitive can `return stream.refuse(...)`.
  BITWIRE_FORCE_INLINE bool refuse(WriteError reason) {
    if (error_ == WriteError::kNone) {
      error_ = reason;
      error_bit_ = bits_;
    }
    return false;
  }

  BITWIRE_FORCE_INLINE bool failed() const { return error_ != WriteError::kNone; }
  WriteError error() const { return error_; }
  // Bits counted (the conservative bound) before the refused operation.
  size_t error_bit() const { return error_bit_; }
  BITWIRE_FORCE_INLINE size_t bits_processed() const { return bits_; }
  BITWIRE_FORCE_INLINE size_t bytes_processed() const { return (bits_ + 7) / 8; }

 private:
  size_t bits_ = 0;
  WriteError error_ = WriteError::kNone;
  size_t error_bit_ = 0;
};

}  // namespace bitwire
