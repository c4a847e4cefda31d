// WriteStream, ReadStream and MeasureStream: the three streams one templated `serialize(Stream&)` is
// instantiated with. Each announces its kind at compile time (kIsWriting / kIsReading / kIsMeasuring), so
// the serialize functions in serialize.hpp compile to straight-line writes, checked reads, or counts.
//
// A ReadStream faces untrusted bytes: a failed read returns false, records why (ReadError) and where (the
// bit position of the failing operation), and latches: every later read on the stream fails too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "bitwire/bits.hpp"

namespace bitwire {

enum class ReadError : uint8_t {
  kNone,
  kPastEnd,            // the read needs more bits than the buffer holds
  kValueOutOfRange,    // a ranged integer or compressed float decoded above its maximum
  kNonZeroPadding,     // alignment padding held a one bit
  kInvalidUtf8,        // a string payload is not well-formed UTF-8
  kInteriorNul,        // a string payload holds a zero byte
  kNotIncreasing,      // an int_relative value is not greater than the previous one
  kCheckMismatch,      // a serialize check did not find its magic value
  kInvalidEnum,        // an enum value outside its declared set
  kInvalidCount,       // a count or length outside its declared bounds
  kInvalidData,        // a value the application's own validation refused
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
  }
  return "unknown read error";
}

class WriteStream {
 public:
  static constexpr bool kIsWriting = true;
  static constexpr bool kIsReading = false;
  static constexpr bool kIsMeasuring = false;

  explicit WriteStream(std::span<std::byte> buffer) : writer_(buffer) {}

  void write_bits(uint64_t value, int bits) { writer_.write_bits(value, bits); }
  void write_align() { writer_.write_align(); }
  void write_bytes(const std::byte* source, size_t count) { writer_.write_bytes(source, count); }

  // Stores the last partial word; call once writing is done, before using the bytes.
  void flush() { writer_.flush(); }

  size_t bits_processed() const { return writer_.bits_written(); }
  size_t bytes_processed() const { return writer_.bytes_written(); }
  int align_bits() const { return writer_.align_bits(); }
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

  explicit ReadStream(std::span<const std::byte> buffer) : reader_(buffer) {}

  // Reads `bits` in [1, 64] into `value`; on failure `value` is untouched.
  bool read_bits(uint64_t& value, int bits) {
    if (!reader_.can_read(static_cast<size_t>(bits))) [[unlikely]] {
      return fail_at(ReadError::kPastEnd, reader_.bits_read());
    }
    value = reader_.read_bits(bits);
    return true;
  }

  // Consumes the padding to the next byte boundary; it must be zero.
  bool read_align() {
    if (failed()) return false;
    const int padding = reader_.align_bits();
    if (padding == 0) return true;
    const size_t start = reader_.bits_read();
    uint64_t value = 0;
    if (!read_bits(value, padding)) return false;
    if (value != 0) return fail_at(ReadError::kNonZeroPadding, start);
    return true;
  }

  // Copies `count` bytes; the stream must be byte-aligned.
  bool read_bytes(std::byte* destination, size_t count) {
    if (failed()) return false;
    if (count > reader_.bits_remaining() / 8) return fail_at(ReadError::kPastEnd, reader_.bits_read());
    reader_.read_bytes(destination, count);
    return true;
  }

  // Records the first failure (reason and bit position) and latches the stream. Returns false so a
  // serialize function can `return stream.fail(...)`.
  bool fail(ReadError reason) { return fail_at(reason, reader_.bits_read()); }
  bool fail_at(ReadError reason, size_t bit) {
    if (error_ == ReadError::kNone) {
      error_ = reason;
      error_bit_ = bit;
    }
    reader_.poison();
    return false;
  }

  bool failed() const { return error_ != ReadError::kNone; }
  ReadError error() const { return error_; }
  // Bit position (from the start of the buffer) of the operation that failed.
  size_t error_bit() const { return error_bit_; }

  size_t bits_processed() const { return reader_.bits_read(); }
  size_t bytes_processed() const { return (reader_.bits_read() + 7) / 8; }
  size_t bits_remaining() const { return reader_.bits_remaining(); }
  int align_bits() const { return reader_.align_bits(); }

 private:
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

  static constexpr int kAlignBound = 7;

  void add_bits(size_t bits) { bits_ += bits; }
  void add_align() { bits_ += kAlignBound; }

  size_t bits_processed() const { return bits_; }
  size_t bytes_processed() const { return (bits_ + 7) / 8; }
  static constexpr bool failed() { return false; }

 private:
  size_t bits_ = 0;
};

}  // namespace bitwire
