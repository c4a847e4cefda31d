// Fuzz target: untrusted bytes through ReadStream under a script of serialize operations that the input
// itself chooses.
//
// Input layout: byte 0 picks the number of operations (1..16), byte 1 the length L of the parameter bytes
// that follow; those L bytes choose each operation and its parameters (ranges, widths, buffer sizes,
// nesting; the operation catalogue of tests/support/serialize_script.hpp); everything after them is the
// stream the script reads.
//
// Checked (any violation aborts, so the fuzzer reports it and the replay test fails):
// - no read outside the span (AddressSanitizer), bits_processed() never above 8 * size, never backwards;
// - a read that succeeds leaves the stream unfailed and consumed no more than measure says (except for the
//   raw form of int_relative, which a writer never uses for small steps);
// - a read that fails returns false, reports a reason that operation can produce, at a bit position
//   inside it, and leaves a scalar destination untouched; a string buffer is always left terminated;
// - after the first failure every read fails, error() / error_bit() stay the first ones and the position
//   does not move;
// - the operations read successfully, written again with WriteStream, read back to the same values; the
//   re-encoding is never longer than what was read, and identical to it when every operation has a
//   single encoding (no int_relative, no compressed float finer than 64 float32 ulps).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "bitwire/core/random.hpp"
#include "bitwire/serialize/serialize.hpp"
#include "support/serialize_script.hpp"

namespace bitwire::test {
namespace {

// Answers the catalogue's random draws from the fuzzer's bytes, so every choice is steered directly:
// below(n) takes only the bytes n needs. Past the end every draw is zero.
class ByteSource {
 public:
  ByteSource(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  uint64_t next() { return take(8); }
  uint64_t below(uint64_t bound) {
    if (bound <= 1) return 0;
    return take((static_cast<int>(std::bit_width(bound - 1)) + 7) / 8) % bound;
  }
  int64_t range(int64_t low, int64_t high) {
    return low + static_cast<int64_t>(below(static_cast<uint64_t>(high) - static_cast<uint64_t>(low) + 1));
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  double uniform(double low, double high) { return low + (high - low) * uniform(); }

 private:
  uint64_t take(int bytes) {
    uint64_t value = 0;
    for (int i = 0; i < bytes && position_ < size_; ++i) value |= uint64_t{data_[position_++]} << (8 * i);
    return value;
  }

  const uint8_t* data_;
  size_t size_;
  size_t position_ = 0;
};

const Script* g_script = nullptr;  // printed when a check fails

[[noreturn]] void fail(const char* what, int line) {
  std::fprintf(stderr, "serialize_fuzz: check failed (line %d): %s\nscript:%s\n", line, what,
               g_script != nullptr ? describe_script(*g_script).c_str() : " (none)");
  std::abort();
}

#define FUZZ_CHECK(condition)                     \
  do {                                            \
    if (!(condition)) fail(#condition, __LINE__); \
  } while (0)

constexpr uint32_t error_bit_of(ReadError error) {
  return uint32_t{1} << static_cast<unsigned>(error);
}

// The reasons each operation may give when it fails.
uint32_t allowed_errors(const Op& op) {
  return std::visit(
      [](const auto& item) -> uint32_t {
        using Item = std::decay_t<decltype(item)>;
        uint32_t allowed = error_bit_of(ReadError::kPastEnd);
        if constexpr (std::is_same_v<Item, AlignOp> || std::is_same_v<Item, BytesOp>) {
          allowed |= error_bit_of(ReadError::kNonZeroPadding);
        } else if constexpr (std::is_same_v<Item, CheckOp>) {
          allowed |= error_bit_of(ReadError::kNonZeroPadding) | error_bit_of(ReadError::kCheckMismatch);
        } else if constexpr (std::is_same_v<Item, StringOp>) {
          allowed |= error_bit_of(ReadError::kInvalidCount) | error_bit_of(ReadError::kNonZeroPadding) |
                     error_bit_of(ReadError::kInvalidUtf8) | error_bit_of(ReadError::kInteriorNul);
        } else if constexpr (std::is_same_v<Item, RelativeOp>) {
          allowed |= error_bit_of(ReadError::kValueOutOfRange) | error_bit_of(ReadError::kNotIncreasing);
        } else if constexpr (std::is_same_v<Item, CompressedFloatOp>) {
          allowed |= error_bit_of(ReadError::kValueOutOfRange);
        } else if constexpr (requires { typename Item::Underlying; }) {  // an enum
          allowed |= error_bit_of(ReadError::kInvalidEnum);
        } else if constexpr (
            requires { item.sample; } || requires { item.raw; }) {  // ranged, fixed
          allowed |= error_bit_of(ReadError::kValueOutOfRange);
        } else if constexpr (std::is_same_v<Item, NestedOp>) {
          for (const Op& inner : item.body.ops) allowed |= allowed_errors(inner);
        }
        return allowed;
      },
      op.item);
}

bool is_scalar(const Op& op) {
  return !std::holds_alternative<StringOp>(op.item) && !std::holds_alternative<BytesOp>(op.item) &&
         !std::holds_alternative<NestedOp>(op.item);
}

std::string describe_op(const Op& op) {
  return std::visit([](const auto& item) { return item.describe(); }, op.item);
}

// True when the operation, as read, has exactly one encoding, so re-writing it reproduces its input bits.
bool single_encoding(const Op& op) {
  if (std::holds_alternative<RelativeOp>(op.item))
    return false;  // the raw 32-bit form also covers small steps
  if (const auto* compressed = std::get_if<CompressedFloatOp>(&op.item)) {
    // Quantizing a dequantized value gives the same integer back when a step is at least 64 float32 ulps
    // of the largest magnitude in the range (the float arithmetic errors stay below half a step).
    const ReferenceQuantizer quantizer(compressed->min, compressed->max, compressed->resolution);
    const float magnitude = std::max(std::fabs(compressed->min), std::fabs(compressed->max));
    const double ulp = static_cast<double>(std::nextafter(magnitude, INFINITY) - magnitude);
    return static_cast<double>(quantizer.delta) / quantizer.max_integer >= 64 * ulp;
  }
  if (const auto* nested = std::get_if<NestedOp>(&op.item)) {
    for (const Op& inner : nested->body.ops) {
      if (!single_encoding(inner)) return false;
    }
  }
  return true;
}

// int_relative readers also take the raw 32-bit form for small steps, which measure (a bound on what a
// writer produces) does not cover.
bool has_relative(const Op& op) {
  if (std::holds_alternative<RelativeOp>(op.item)) return true;
  if (const auto* nested = std::get_if<NestedOp>(&op.item)) {
    for (const Op& inner : nested->body.ops) {
      if (has_relative(inner)) return true;
    }
  }
  return false;
}

size_t measure_op(const Op& op) {
  Op copy = op;
  MeasureStream measure;
  serialize_op(measure, copy);
  return measure.bits_processed();
}

bool bit_at(std::span<const std::byte> bytes, size_t bit) {
  return ((std::to_integer<unsigned>(bytes[bit / 8]) >> (bit % 8)) & 1u) != 0;
}

// Re-writes the operations that read successfully and reads them back.
void check_rewrite(const Script& read, size_t bits_read, std::span<const std::byte> input, uint64_t salt) {
  Script rewritten = read;
  MeasureStream measure;
  for (Op& op : rewritten) serialize_op(measure, op);
  std::vector<std::byte> buffer((measure.bits_processed() + 7) / 8);
  WriteStream writer(buffer);
  for (Op& op : rewritten) serialize_op(writer, op);
  writer.flush();
  const size_t bits_written = writer.bits_processed();
  FUZZ_CHECK(bits_written <= measure.bits_processed());
  FUZZ_CHECK(bits_written <= bits_read);

  bool single = true;
  for (const Op& op : read) single = single && single_encoding(op);
  if (single) {
    FUZZ_CHECK(bits_written == bits_read);
    for (size_t bit = 0; bit < bits_written; ++bit) {
      FUZZ_CHECK(bit_at(buffer, bit) == bit_at(input, bit));
    }
  }

  Script again = rewritten;
  Random scrambler(salt);
  for (Op& op : again) scramble_op(op, scrambler);
  ReadStream reader(std::span<const std::byte>(buffer.data(), writer.bytes_processed()));
  for (size_t i = 0; i < again.size(); ++i) {
    FUZZ_CHECK(serialize_op(reader, again[i]));
    std::string why;
    if (!same_op(rewritten[i], again[i], why)) {
      std::fprintf(stderr, "operation #%zu: %s\n", i, why.c_str());
      fail("re-written value reads back the same", __LINE__);
    }
  }
  FUZZ_CHECK(reader.bits_processed() == bits_written);
}

void run(const Script& script, std::span<const std::byte> input) {
  const size_t limit = input.size() * 8;
  ReadStream reader(input);
  // The destinations start as junk (string buffers without a terminator) so that what a read leaves
  // behind is the reader's doing.
  Script read = script;
  Random scrambler(input.size());
  for (Op& op : read) scramble_op(op, scrambler);
  size_t succeeded = 0;
  bool failed = false;
  ReadError first_error = ReadError::kNone;
  size_t first_error_bit = 0;
  size_t failed_at = 0;

  for (Op& op : read) {
    const Op before = op;
    const size_t start = reader.bits_processed();
    const bool ok = serialize_op(reader, op);
    const size_t end = reader.bits_processed();
    FUZZ_CHECK(end <= limit);
    FUZZ_CHECK(end >= start);
    if (const auto* text = std::get_if<StringOp>(&op.item)) {
      // Whatever happened, the buffer holds a terminated string (the documented contract), and on
      // success a well-formed one.
      const size_t length = strnlen(text->buffer.data(), text->buffer_size);
      FUZZ_CHECK(length < text->buffer_size);
      if (ok) {
        FUZZ_CHECK(check_utf8(reinterpret_cast<const unsigned char*>(text->buffer.data()), length) ==
                   Utf8Status::kValid);
      }
    }
    if (failed) {
      FUZZ_CHECK(!ok);
      FUZZ_CHECK(reader.error() == first_error);
      FUZZ_CHECK(reader.error_bit() == first_error_bit);
      FUZZ_CHECK(end == failed_at);
      if (is_scalar(op)) FUZZ_CHECK(describe_op(op) == describe_op(before));
      continue;
    }
    if (ok) {
      FUZZ_CHECK(!reader.failed());
      if (!has_relative(op)) FUZZ_CHECK(end - start <= measure_op(op));
      ++succeeded;
      continue;
    }
    FUZZ_CHECK(reader.failed());
    FUZZ_CHECK(reader.error() != ReadError::kNone);
    FUZZ_CHECK((allowed_errors(op) & error_bit_of(reader.error())) != 0);
    FUZZ_CHECK(reader.error_bit() >= start && reader.error_bit() <= limit);
    if (is_scalar(op)) FUZZ_CHECK(describe_op(op) == describe_op(before));
    failed = true;
    first_error = reader.error();
    first_error_bit = reader.error_bit();
    failed_at = end;
  }

  if (failed) {
    // The raw stream calls are latched too.
    uint64_t value = 0;
    std::byte byte{};
    FUZZ_CHECK(!reader.read_bits(value, 1));
    FUZZ_CHECK(!reader.read_align());
    FUZZ_CHECK(!reader.read_bytes(&byte, 0));
    FUZZ_CHECK(reader.error() == first_error && reader.error_bit() == first_error_bit);
    FUZZ_CHECK(reader.bits_processed() == failed_at);
  }

  read.resize(succeeded);
  const size_t bits_read = succeeded == 0 ? 0 : read.back().end_bit;
  check_rewrite(read, bits_read, input, input.size() * 0x9E3779B97F4A7C15ull + succeeded);
}

}  // namespace
}  // namespace bitwire::test

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace bitwire::test;
  if (size < 2) return 0;
  const size_t op_count = 1 + data[0] % 16;
  const size_t parameter_bytes = std::min<size_t>(data[1], size - 2);
  ByteSource source(data + 2, parameter_bytes);
  Script script(op_count);
  for (Op& op : script) op = random_op(source, 0);
  g_script = &script;
  run(script, std::span<const std::byte>(reinterpret_cast<const std::byte*>(data) + 2 + parameter_bytes,
                                         size - 2 - parameter_bytes));
  g_script = nullptr;
  return 0;
}
