// The serialize primitives of the wire format (docs/wire-format.md, "Bits"), each one function template
// that writes, reads or measures depending on the stream it is given:
//
//   template <typename Stream> bool serialize(Stream& stream) {
//     BITWIRE_TRY(serialize_int(stream, health, 0, 100));
//     BITWIRE_TRY(serialize_compressed_float(stream, x, -1000.0f, 1000.0f, 0.01f));
//     return true;
//   }
//
// On a WriteStream or MeasureStream every primitive returns `true` at compile time, so the checks vanish
// and a write compiles to straight-line bit packing. Writes assert their contract (values in range, room
// in the buffer) in builds with assertions. On a ValidateStream the same contracts are checked in every
// build and the first one broken is refused with a WriteError (write_contract below): that is how a
// sender refuses, before queueing, a value a correct peer would refuse. On a ReadStream every primitive validates what it read, and on
// failure returns false, leaves its destination untouched (strings and byte blocks excepted), and records
// the reason and bit position in the stream, which then fails every later read.
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <type_traits>

#include "bitwire/serialize/bits.hpp"
#include "bitwire/core/config.hpp"
#include "bitwire/serialize/fixed_string.hpp"
#include "bitwire/serialize/read_run.hpp"
#include "bitwire/serialize/stream.hpp"
#include "bitwire/serialize/utf8.hpp"
#include "bitwire/serialize/write_run.hpp"

// Returns false from the enclosing function when a serialize call fails (reads only; writes cannot fail).
#define BITWIRE_TRY(expression)            \
  do {                                     \
    if (!(expression)) [[unlikely]] {      \
      return false;                        \
    }                                      \
  } while (0)

namespace bitwire {

// The magic value serialize_check writes and verifies by default.
inline constexpr uint32_t kCheckMagic = 0x12345678;

namespace detail {

// The unsigned domain a ranged value of type T is encoded in: 32 bits for types up to 32 bits, 64 for
// 64, 128 for 128 (the wire is the same bits whatever the domain; only the arithmetic width differs).
template <typename T>
using WireUnsigned =
    std::conditional_t<(sizeof(T) <= 4), uint32_t, std::conditional_t<(sizeof(T) <= 8), uint64_t, uint128_t>>;

// A write contract: asserted on a WriteStream, checked on a ValidateStream (which records `reason` and
// makes the primitive return false). `holds` is a callable so that a release WriteStream evaluates nothing.
template <typename Stream, typename Condition>
BITWIRE_FORCE_INLINE bool write_contract(Stream& stream, Condition&& holds, WriteError reason) {
  if constexpr (Stream::kIsValidating) {
    return holds() || stream.refuse(reason);
  } else {
    BITWIRE_ASSERT(holds());
    (void)stream;
    (void)holds;
    (void)reason;
    return true;
  }
}

constexpr WriteError write_error_for(ReadError reason) {
  switch (reason) {
    case ReadError::kInvalidCount: return WriteError::kInvalidCount;
    case ReadError::kInvalidEnum: return WriteError::kInvalidEnum;
    default: return WriteError::kValueOutOfRange;
  }
}

template <typename U>
constexpr int bits_for_unsigned(U range) {
  if constexpr (sizeof(U) == 16) {
    return bits_for_range(static_cast<uint128_t>(range));
  } else {
    return bits_for_range(static_cast<uint64_t>(range));
  }
}

template <typename Stream, typename U>
BITWIRE_FORCE_INLINE void write_wide(Stream& stream, U value, int bits) {
  if constexpr (sizeof(U) == 16) {
    if (bits > 64) {
      stream.write_bits(static_cast<uint64_t>(value), 64);
      stream.write_bits(static_cast<uint64_t>(value >> 64), bits - 64);
      return;
    }
  }
  stream.write_bits(static_cast<uint64_t>(value), bits);
}

template <typename Stream, typename U>
BITWIRE_FORCE_INLINE bool read_wide(Stream& stream, U& value, int bits) {
  if constexpr (sizeof(U) == 16) {
    if (bits > 64) {
      uint64_t low = 0;
      uint64_t high = 0;
      if (!stream.read_bits(low, 64) || !stream.read_bits(high, bits - 64)) return false;
      value = (static_cast<U>(high) << 64) | low;
      return true;
    }
  }
  uint64_t word = 0;
  if (!stream.read_bits(word, bits)) return false;
  value = static_cast<U>(word);
  return true;
}

// The ranged integer of the wire: value - min in bits_required(min, max) bits; nothing when min == max.
// `reason` is what a read reports for an offset above max - min.
template <typename Stream, WireInteger T>
BITWIRE_FORCE_INLINE bool serialize_ranged(Stream& stream, T& value, T min, T max, ReadError reason) {
  using U = WireUnsigned<T>;
  BITWIRE_ASSERT(min <= max);
  const auto range = static_cast<U>(static_cast<U>(max) - static_cast<U>(min));
  const int bits = bits_for_unsigned(range);
  if constexpr (Stream::kIsWriting) {
    if (!write_contract(stream, [&] { return value >= min && value <= max; }, write_error_for(reason))) return false;
    if (bits == 0) return true;
    if constexpr (sizeof(T) < 8) {
      // The offset of a value in [min, max] in 64-bit arithmetic: the same number as in U (it is below
      // 2^32), with no zero-extension of a 32-bit difference before it is shifted into its word.
      write_wide(stream, static_cast<uint64_t>(static_cast<int64_t>(value) - static_cast<int64_t>(min)),
                 bits);
    } else {
      write_wide(stream, static_cast<U>(static_cast<U>(value) - static_cast<U>(min)), bits);
    }
    return true;
  } else if constexpr (Stream::kIsReading) {
    if (bits == 0) {
      if (stream.failed()) return false;
      value = min;
      return true;
    }
    U offset = 0;
    if (!read_wide(stream, offset, bits)) return false;
    if (offset > range) [[unlikely]] {
      return stream.fail_at(reason, stream.bits_processed() - static_cast<size_t>(bits));
    }
    value = static_cast<T>(static_cast<U>(static_cast<U>(min) + offset));
    return true;
  } else {
    stream.add_bits(static_cast<size_t>(bits));
    return true;
  }
}

template <typename T, int FractionBits>
constexpr T fixed_raw_bound(int64_t units) {
  // units * 2^FractionBits, computed without signed overflow; the bound must fit T (a schema error if not).
  const auto raw = static_cast<int128_t>(static_cast<uint128_t>(static_cast<int128_t>(units)) << FractionBits);
  BITWIRE_ASSERT((raw >> FractionBits) == units);
  if constexpr (!kIsInt128<T>) {
    BITWIRE_ASSERT(raw >= static_cast<int128_t>(std::numeric_limits<T>::min()) &&
                   raw <= static_cast<int128_t>(std::numeric_limits<T>::max()));
  }
  return static_cast<T>(raw);
}

}  // namespace detail

// ---- bits and booleans ----

// The low `bits` bits of `value`, bits in [1, width of T]. Writes assert value < 2^bits.
template <typename Stream, std::unsigned_integral T>
  requires(!std::is_same_v<T, bool>)
BITWIRE_FORCE_INLINE bool serialize_bits(Stream& stream, T& value, int bits) {
  BITWIRE_ASSERT(bits >= 1 && bits <= static_cast<int>(sizeof(T) * 8));
  if constexpr (Stream::kIsWriting) {
    stream.write_bits(static_cast<uint64_t>(value), bits);
    return true;
  } else if constexpr (Stream::kIsReading) {
    uint64_t word = 0;
    if (!stream.read_bits(word, bits)) return false;
    value = static_cast<T>(word);
    return true;
  } else {
    stream.add_bits(static_cast<size_t>(bits));
    return true;
  }
}

// A signed value in its low `bits` bits of two's complement (bits in [1, width of T]); reads sign-extend.
// Writes assert the value fits a signed field of that width.
template <typename Stream, std::signed_integral T>
BITWIRE_FORCE_INLINE bool serialize_signed_bits(Stream& stream, T& value, int bits) {
  BITWIRE_ASSERT(bits >= 1 && bits <= static_cast<int>(sizeof(T) * 8));
  if constexpr (Stream::kIsWriting) {
    const bool fits = detail::write_contract(
        stream,
        [&] {
          return bits == 64 || (static_cast<int64_t>(value) >= -(int64_t{1} << (bits - 1)) &&
                                static_cast<int64_t>(value) < (int64_t{1} << (bits - 1)));
        },
        WriteError::kValueTooWide);
    if (!fits) return false;
    stream.write_bits(static_cast<uint64_t>(static_cast<int64_t>(value)) & low_mask(bits), bits);
    return true;
  } else if constexpr (Stream::kIsReading) {
    uint64_t word = 0;
    if (!stream.read_bits(word, bits)) return false;
    const uint64_t sign = uint64_t{1} << (bits - 1);
    value = static_cast<T>(static_cast<int64_t>((word ^ sign) - sign));
    return true;
  } else {
    stream.add_bits(static_cast<size_t>(bits));
    return true;
  }
}

template <typename Stream>
BITWIRE_FORCE_INLINE bool serialize_uint8(Stream& stream, uint8_t& value) { return serialize_bits(stream, value, 8); }
template <typename Stream>
BITWIRE_FORCE_INLINE bool serialize_uint16(Stream& stream, uint16_t& value) { return serialize_bits(stream, value, 16); }
template <typename Stream>
BITWIRE_FORCE_INLINE bool serialize_uint32(Stream& stream, uint32_t& value) { return serialize_bits(stream, value, 32); }
template <typename Stream>
BITWIRE_FORCE_INLINE bool serialize_uint64(Stream& stream, uint64_t& value) { return serialize_bits(stream, value, 64); }

template <typename Stream>
BITWIRE_FORCE_INLINE bool serialize_bool(Stream& stream, bool& value) {
  if constexpr (Stream::kIsWriting) {
    stream.write_bits(value ? 1u : 0u, 1);
    return true;
  } else if constexpr (Stream::kIsReading) {
    uint64_t bit = 0;
    if (!stream.read_bits(bit, 1)) return false;
    value = bit != 0;
    return true;
  } else {
    stream.add_bits(1);
    return true;
  }
}

// ---- integers ----

// A ranged integer in [min, max]: bits_required(min, max) bits, zero for a single-value range. Any integer
// type (8 to 64 bits, signed or unsigned) or a 128-bit integer; the wire does not depend on the type.
template <typename Stream, WireInteger T>
BITWIRE_FORCE_INLINE bool serialize_int(Stream& stream, T& value, std::type_identity_t<T> min, std::type_identity_t<T> max) {
  return detail::serialize_ranged(stream, value, min, max, ReadError::kValueOutOfRange);
}

// The 64-bit ranged integer of the wire format (the same bits as serialize_int on a 64-bit type).
template <typename Stream, WireInteger T>
  requires(sizeof(T) == 8)
BITWIRE_FORCE_INLINE bool serialize_int64(Stream& stream, T& value, std::type_identity_t<T> min, std::type_identity_t<T> max) {
  return detail::serialize_ranged(stream, value, min, max, ReadError::kValueOutOfRange);
}

// A ranged 128-bit integer: identical bits to serialize_int64 while the range fits 64 bits.
template <typename Stream, WireInteger T>
  requires(detail::kIsInt128<T>)
BITWIRE_FORCE_INLINE bool serialize_int128(Stream& stream, T& value, std::type_identity_t<T> min, std::type_identity_t<T> max) {
  return detail::serialize_ranged(stream, value, min, max, ReadError::kValueOutOfRange);
}

// All 128 bits: the low 64-bit half first, then the high half.
template <typename Stream>
BITWIRE_FORCE_INLINE bool serialize_uint128(Stream& stream, uint128_t& value) {
  if constexpr (Stream::kIsWriting) {
    stream.write_bits(static_cast<uint64_t>(value), 64);
    stream.write_bits(static_cast<uint64_t>(value >> 64), 64);
    return true;
  } else if constexpr (Stream::kIsReading) {
    return detail::read_wide(stream, value, 128);
  } else {
    stream.add_bits(128);
    return true;
  }
}

// A 128-bit integer, signed or not, as its 128 raw bits (two's complement), low half first.
template <typename Stream, typename T>
  requires(detail::kIsInt128<T>)
BITWIRE_FORCE_INLINE bool serialize_raw128(Stream& stream, T& value) {
  auto bits = static_cast<uint128_t>(value);
  if (!serialize_uint128(stream, bits)) return false;
  if constexpr (Stream::kIsReading) value = static_cast<T>(bits);
  return true;
}

// An element count or length in [min, max]: the ranged integer, refused with kInvalidCount.
template <typename Stream>
BITWIRE_FORCE_INLINE bool serialize_count(Stream& stream, uint32_t& count, uint32_t min, uint32_t max) {
  return detail::serialize_ranged(stream, count, min, max, ReadError::kInvalidCount);
}

// An enum over the contiguous underlying values [min, max]; a read outside it fails with kInvalidEnum.
template <typename Stream, typename E>
  requires std::is_enum_v<E>
BITWIRE_FORCE_INLINE bool serialize_enum(Stream& stream, E& value, E min, E max) {
  using Underlying = std::underlying_type_t<E>;
  auto raw = static_cast<Underlying>(value);
  if (!detail::serialize_ranged(stream, raw, static_cast<Underlying>(min), static_cast<Underlying>(max),
                                ReadError::kInvalidEnum)) {
    return false;
  }
  if constexpr (Stream::kIsReading) value = static_cast<E>(raw);
  return true;
}

// Membership of a sparse enum (declared values with gaps), after serialize_enum over [min, max] wrote or
// read the value in `bits` bits: `is_member` says whether the value is one of the enumerators. A read
// refuses a non-member (kInvalidEnum, where the value started); a ValidateStream refuses it too, so a
// sender never queues a value its peer refuses; a WriteStream asserts it.
template <typename Stream>
BITWIRE_FORCE_INLINE bool serialize_enum_member(Stream& stream, bool is_member, int bits) {
  if constexpr (Stream::kIsReading) {
    if (!is_member) [[unlikely]] {
      return stream.fail_at(ReadError::kInvalidEnum, stream.bits_processed() - static_cast<size_t>(bits));
    }
    return true;
  } else if constexpr (Stream::kIsWriting) {
    (void)bits;
    return detail::write_contract(stream, [&] { return is_member; }, WriteError::kInvalidEnum);
  } else {
    (void)is_member;
    (void)bits;
    return true;
  }
}

// A fixed-point value in Q format: `raw` is the value scaled by 2^FractionBits, held in an integer of 8 to
// 128 bits (unsigned storage suits ranges without negative values); min_units and max_units bound the
// value in whole units. On the wire it is the ranged integer over
// [min_units << FractionBits, max_units << FractionBits]; the round trip is exact.
template <int FractionBits, typename Stream, WireInteger T>
BITWIRE_FORCE_INLINE bool serialize_fixed(Stream& stream, T& raw, int64_t min_units, int64_t max_units) {
  static_assert(FractionBits >= 0 && FractionBits < static_cast<int>(sizeof(T) * 8),
                "the fraction must leave at least the sign bit for the integer part");
  return detail::serialize_ranged(stream, raw, detail::fixed_raw_bound<T, FractionBits>(min_units),
                                  detail::fixed_raw_bound<T, FractionBits>(max_units), ReadError::kValueOutOfRange);
}

// Converts a real value to a Q-format raw value, rounding ties half away from zero (the wire never
// rounds; this is the one place a value is quantized). A result beyond T saturates at T's minimum or
// maximum, and NaN gives 0, in every build (a cast of an out-of-range double to an integer would be
// undefined behaviour).
template <int FractionBits, typename T>
inline T to_fixed(double value) {
  // std::round is exact and rounds halfway cases away from zero; floor(x + 0.5) would round the sum first.
  const double scaled = std::round(std::ldexp(value, FractionBits));
  if (std::isnan(scaled)) return T{0};
  // T's limits as doubles: the minimum (0 or -2^(n-1)) is exact, and 2^(n-1) or 2^n is the first value
  // past the maximum, so the comparisons are exact too.
  constexpr bool kSigned = std::is_signed_v<T> || std::is_same_v<T, int128_t>;
  constexpr int kValueBits = static_cast<int>(sizeof(T) * 8) - (kSigned ? 1 : 0);
  constexpr double kLimit = [] {
    double limit = 1.0;
    for (int i = 0; i < kValueBits; ++i) limit *= 2.0;
    return limit;
  }();
  constexpr double kMin = kSigned ? -kLimit : 0.0;
  // 2^kValueBits - 1, built without overflow (the double kLimit - 1 is not exact for 64 bits and more).
  constexpr T kHalf = static_cast<T>(1) << (kValueBits - 1);
  constexpr T kMax = static_cast<T>(kHalf - 1 + kHalf);
  if (scaled < kMin) return static_cast<T>(kMin);
  if (scaled >= kLimit) return kMax;
  return static_cast<T>(scaled);
}

template <int FractionBits, typename T>
inline double from_fixed(T raw) {
  return std::ldexp(static_cast<double>(raw), -FractionBits);
}

// ---- floating point ----

// The 32 IEEE bits; every pattern (NaN payloads, -0, denormals) round-trips exactly.
template <typename Stream>
BITWIRE_FORCE_INLINE bool serialize_float(Stream& stream, float& value) {
  auto bits = std::bit_cast<uint32_t>(value);
  if (!serialize_bits(stream, bits, 32)) return false;
  if constexpr (Stream::kIsReading) value = std::bit_cast<float>(bits);
  return true;
}

template <typename Stream>
BITWIRE_FORCE_INLINE bool serialize_double(Stream& stream, double& value) {
  auto bits = std::bit_cast<uint64_t>(value);
  if (!serialize_bits(stream, bits, 64)) return false;
  if constexpr (Stream::kIsReading) value = std::bit_cast<double>(bits);
  return true;
}

// The quantization of a compressed float, computed in float32 exactly as the wire format says.
// The most quanta a compressed float may have: the largest float32 below 2^32 (its integer has at most 32 bits).
inline constexpr float kMaxCompressedFloatSteps = 4294967040.0f;

struct CompressedFloatParams {
  float min = 0;
  float delta = 0;
  uint32_t max_integer = 1;
  int bits = 1;
};

constexpr CompressedFloatParams compressed_float_params(float min, float max, float resolution) {
  CompressedFloatParams params;
  params.min = min;
  params.delta = max - min;
  float values = params.delta / resolution;
  if (!(values >= 1.0f)) values = 1.0f;
  if (values > kMaxCompressedFloatSteps) values = kMaxCompressedFloatSteps;
  // ceil, for a value in [1, 2^32): exact because every float at or above 2^23 is already an integer.
  auto whole = static_cast<uint64_t>(values);
  if (static_cast<float>(whole) < values) ++whole;
  params.max_integer = static_cast<uint32_t>(whole);
  params.bits = bits_for_range(static_cast<uint64_t>(params.max_integer));
  return params;
}

// The integer a compressed float writes: clamp((value - min) / delta, 0, 1) * max_integer, rounded to
// float32, plus 0.5, rounded to float32, floored, and clamped to max_integer.
BITWIRE_FORCE_INLINE uint32_t quantize_compressed_float(float value, const CompressedFloatParams& params) {
  float normalized = (value - params.min) / params.delta;
  if (!(normalized >= 0.0f)) normalized = 0.0f;  // also maps NaN (a write contract violation) to 0
  if (normalized > 1.0f) normalized = 1.0f;
  const float product = detail::force_round(normalized * static_cast<float>(params.max_integer));
  const float sum = product + 0.5f;
  const auto integer = static_cast<uint32_t>(sum);  // floor: sum is at least 0.5 and below 2^32
  return integer > params.max_integer ? params.max_integer : integer;
}

BITWIRE_FORCE_INLINE float dequantize_compressed_float(uint32_t integer, const CompressedFloatParams& params) {
  const float normalized = detail::force_round(static_cast<float>(integer) / static_cast<float>(params.max_integer));
  const float product = detail::force_round(normalized * params.delta);
  return product + params.min;
}

// The parameters of a compressed float, computed by the compiler. Generated code passes them to
// serialize_compressed_float so that no parameter is computed at run time, even where the compiler
// chooses not to inline the call (g++ often does not, and then spends two divisions and a bit scan per
// field on constants).
consteval CompressedFloatParams compressed_float_constant(float min, float max, float resolution) {
  return compressed_float_params(min, max, resolution);
}

// A compressed float with precomputed parameters (compressed_float_constant): the same bits as the
// (min, max, resolution) form below.
template <typename Stream>
BITWIRE_FORCE_INLINE bool serialize_compressed_float(Stream& stream, float& value, CompressedFloatParams params) {
  if constexpr (Stream::kIsWriting) {
    if (!detail::write_contract(stream, [&] { return std::isfinite(value); }, WriteError::kNotFinite)) return false;
    stream.write_bits(quantize_compressed_float(value, params), params.bits);
    return true;
  } else if constexpr (Stream::kIsReading) {
    uint64_t integer = 0;
    if (!stream.read_bits(integer, params.bits)) return false;
    if (integer > params.max_integer) [[unlikely]] {
      return stream.fail_at(ReadError::kValueOutOfRange, stream.bits_processed() - static_cast<size_t>(params.bits));
    }
    value = dequantize_compressed_float(static_cast<uint32_t>(integer), params);
    return true;
  } else {
    stream.add_bits(static_cast<size_t>(params.bits));
    return true;
  }
}

// A float in [min, max] at `resolution`: ceil(delta / resolution) steps in the fewest bits. Lossy: a read
// returns the nearest quantum. Requires min < max, resolution > 0, all finite; writes assert a finite value.
template <typename Stream>
BITWIRE_FORCE_INLINE bool serialize_compressed_float(Stream& stream, float& value, float min, float max, float resolution) {
  BITWIRE_ASSERT(min < max && resolution > 0.0f);
  return serialize_compressed_float(stream, value, compressed_float_params(min, max, resolution));
}

// ---- alignment, bytes, strings ----

// A fixed-length array of 8-bit raw values at any bit position: the same bits as one 8-bit field per byte
// (byte i at bits [8i, 8i + 8) from the start), moved eight bytes per 64-bit field -- a little-endian load
// of eight bytes is exactly those 64 bits -- and the rest one byte each. No alignment, nothing to check.
template <typename Stream>
BITWIRE_FORCE_INLINE bool serialize_byte_array(Stream& stream, uint8_t* data, size_t count) {
  size_t i = 0;
  if constexpr (Stream::kIsWriting) {
    for (; i + 8 <= count; i += 8) stream.write_bits(detail::load_le64(reinterpret_cast<const std::byte*>(data + i)), 64);
    for (; i < count; ++i) stream.write_bits(data[i], 8);
    return true;
  } else if constexpr (Stream::kIsReading) {
    uint64_t word = 0;
    for (; i + 8 <= count; i += 8) {
      if (!stream.read_bits(word, 64)) return false;
      detail::store_le64(reinterpret_cast<std::byte*>(data + i), word);
    }
    for (; i < count; ++i) {
      if (!stream.read_bits(word, 8)) return false;
      data[i] = static_cast<uint8_t>(word);
    }
    return true;
  } else {
    (void)data;
    stream.add_bits(count * 8);
    return true;
  }
}


// Zero bits to the next byte boundary (none when aligned). Reads refuse non-zero padding.
template <typename Stream>
BITWIRE_FORCE_INLINE bool serialize_align(Stream& stream) {
  if constexpr (Stream::kIsWriting) {
    stream.write_align();
    return true;
  } else if constexpr (Stream::kIsReading) {
    return stream.read_align();
  } else {
    stream.add_align();
    return true;
  }
}

// Aligns (always, even for zero bytes), then `count` raw bytes. The count itself is not sent.
template <typename Stream>
BITWIRE_FORCE_INLINE bool serialize_bytes(Stream& stream, std::byte* data, size_t count) {
  if constexpr (Stream::kIsWriting) {
    stream.write_align();
    stream.write_bytes(data, count);
    return true;
  } else if constexpr (Stream::kIsReading) {
    return stream.read_align() && stream.read_bytes(data, count);
  } else {
    stream.add_align();
    stream.add_bits(count * 8);
    return true;
  }
}

template <typename Stream, typename T>
  requires(sizeof(T) == 1 && std::is_trivially_copyable_v<T> && !std::is_same_v<T, std::byte>)
BITWIRE_FORCE_INLINE bool serialize_bytes(Stream& stream, T* data, size_t count) {
  return serialize_bytes(stream, reinterpret_cast<std::byte*>(data), count);
}

namespace detail {

// The text of a string after its length is known on a write (`length`) and set by a read: the length as
// int(length, 0, max_length), then the characters as bytes (aligned). Writes assert well-formed UTF-8 without
// NUL (a validating stream refuses it); reads refuse anything else, leave `buffer` terminated after the
// text and, refused, leave it empty with `length` 0.
template <typename Stream>
BITWIRE_FORCE_INLINE bool serialize_string_text(Stream& stream, char* buffer, uint32_t& length,
                                                uint32_t max_length) {
  if constexpr (!Stream::kIsReading) {
    if (!detail::write_contract(stream, [&] { return length <= max_length; }, WriteError::kInvalidCount)) return false;
    if constexpr (Stream::kIsValidating) {
      const Utf8Status status = check_utf8(reinterpret_cast<const unsigned char*>(buffer), length);
      if (status != Utf8Status::kValid) {
        return stream.refuse(status == Utf8Status::kHasNul ? WriteError::kInteriorNul : WriteError::kInvalidUtf8);
      }
    } else {
      BITWIRE_ASSERT(check_utf8(reinterpret_cast<const unsigned char*>(buffer), length) == Utf8Status::kValid);
    }
    if (!detail::serialize_ranged(stream, length, uint32_t{0}, max_length, ReadError::kInvalidCount))
      return false;
    return serialize_bytes(stream, buffer, length);
  } else {
    buffer[0] = '\0';  // a refused read leaves an empty string
    length = 0;
    uint32_t read_length = 0;
    if (!detail::serialize_ranged(stream, read_length, uint32_t{0}, max_length, ReadError::kInvalidCount)) {
      return false;
    }
    if (!serialize_bytes(stream, buffer, read_length)) {
      buffer[0] = '\0';
      return false;
    }
    const Utf8Status status = check_utf8(reinterpret_cast<const unsigned char*>(buffer), read_length);
    if (status != Utf8Status::kValid) [[unlikely]] {
      buffer[0] = '\0';
      return stream.fail_at(status == Utf8Status::kHasNul ? ReadError::kInteriorNul : ReadError::kInvalidUtf8,
                            stream.bits_processed() - size_t{read_length} * 8);
    }
    buffer[read_length] = '\0';
    length = read_length;
    return true;
  }
}

}  // namespace detail

// A NUL-terminated string in a buffer of `buffer_size` bytes (so at most buffer_size - 1 characters):
// the length as int(length, 0, buffer_size - 1), then the characters as bytes (aligned). A write finds the
// length by scanning for the terminator (8 bytes a step). Writes assert well-formed UTF-8 without NUL; reads
// refuse anything else and always leave the buffer terminated.
template <typename Stream>
inline bool serialize_string(Stream& stream, char* buffer, size_t buffer_size) {
  BITWIRE_ASSERT(buffer_size >= 1 && buffer_size - 1 <= std::numeric_limits<uint32_t>::max());
  const auto max_length = static_cast<uint32_t>(buffer_size - 1);
  uint32_t length = 0;
  if constexpr (!Stream::kIsReading)
    length = static_cast<uint32_t>(detail::bounded_length(buffer, buffer_size));
  return detail::serialize_string_text(stream, buffer, length, max_length);
}

template <typename Stream, size_t N>
inline bool serialize_string(Stream& stream, char (&buffer)[N]) {
  return serialize_string(stream, buffer, N);
}

// A FixedString<N> (what generated code uses for `string<N>`): the same bits as serialize_string with a
// buffer of N + 1 bytes, without the scan: a write takes the stored length, a read sets it.
template <typename Stream, size_t N>
BITWIRE_FORCE_INLINE bool serialize_string(Stream& stream, FixedString<N>& text) {
  uint32_t length = static_cast<uint32_t>(text.size());
  const bool ok = detail::serialize_string_text(stream, text.storage(), length, static_cast<uint32_t>(N));
  // A read leaves the text terminated after `length` (0 when refused): only the length is stored.
  if constexpr (Stream::kIsReading) text.set_terminated_length(length);
  return ok;
}

// ---- composition ----

// An increasing value relative to the previous one (current > previous, no wrap-around): a ladder of
// one-bit flags picks the smallest tier the difference fits; beyond the last tier `current` goes as 32
// raw bits. Reads refuse a value that is not above `previous` or does not fit 32 bits.
template <typename Stream>
BITWIRE_FORCE_INLINE bool serialize_int_relative(Stream& stream, uint32_t previous, uint32_t& current) {
  struct Tier {
    uint32_t min;
    uint32_t max;
  };
  static constexpr Tier kTiers[] = {{2, 6}, {7, 23}, {24, 280}, {281, 4377}, {4378, 69914}};

  uint32_t difference = 0;
  if constexpr (!Stream::kIsReading) {
    if (!detail::write_contract(stream, [&] { return current > previous; }, WriteError::kNotIncreasing)) return false;
    difference = current - previous;
  }
  // A sum above 32 bits is refused at `at`: where the difference's bits start (the flag, for +1).
  const auto apply = [&](uint32_t delta, size_t at) {
    if constexpr (Stream::kIsReading) {
      const uint64_t sum = uint64_t{previous} + delta;
      if (sum > std::numeric_limits<uint32_t>::max()) [[unlikely]] {
        return stream.fail_at(ReadError::kValueOutOfRange, at);
      }
      current = static_cast<uint32_t>(sum);
    }
    return true;
  };

  bool plus_one = difference == 1;
  if (!serialize_bool(stream, plus_one)) return false;
  if (plus_one) return apply(1, stream.bits_processed() - 1);
  for (const Tier& tier : kTiers) {
    bool in_tier = difference <= tier.max;
    if (!serialize_bool(stream, in_tier)) return false;
    if (in_tier) {
      const size_t at = stream.bits_processed();
      if (!detail::serialize_ranged(stream, difference, tier.min, tier.max, ReadError::kValueOutOfRange)) {
        return false;
      }
      return apply(difference, at);
    }
  }
  uint32_t absolute = current;
  if (!serialize_bits(stream, absolute, 32)) return false;
  if constexpr (Stream::kIsReading) {
    if (absolute <= previous) [[unlikely]] return stream.fail_at(ReadError::kNotIncreasing, stream.bits_processed() - 32);
    current = absolute;
  }
  return true;
}

// A nested object: its own serialize function, inline, with nothing added around it.
template <typename Stream, typename T>
BITWIRE_FORCE_INLINE bool serialize_object(Stream& stream, T& object) {
  if constexpr (Stream::kIsReading) {
    if (stream.failed()) return false;
  }
  return object.serialize(stream);
}

// The articles' serialize check: align, then a 32-bit magic value the reader verifies. Placed at the end
// of a packet (or between sections) it catches a reader and writer that disagree on the layout.
template <typename Stream>
BITWIRE_FORCE_INLINE bool serialize_check(Stream& stream, uint32_t magic = kCheckMagic) {
  if (!serialize_align(stream)) return false;
  uint32_t value = magic;
  if (!serialize_bits(stream, value, 32)) return false;
  if constexpr (Stream::kIsReading) {
    if (value != magic) [[unlikely]] return stream.fail_at(ReadError::kCheckMismatch, stream.bits_processed() - 32);
  }
  return true;
}

// A wire constant (`const(value, bits)` in a schema): `value` in `bits` bits (1..64, value < 2^bits),
// stored nowhere. A write always writes the value; a read refuses any other with `reason` at the
// constant's first bit.
template <typename Stream>
BITWIRE_FORCE_INLINE bool serialize_constant(Stream& stream, uint64_t value, int bits,
                                             ReadError reason = ReadError::kConstantMismatch) {
  BITWIRE_ASSERT(bits >= 1 && bits <= 64 && (bits == 64 || (value >> bits) == 0));
  uint64_t wire = value;
  if (!serialize_bits(stream, wire, bits)) return false;
  if constexpr (Stream::kIsReading) {
    if (wire != value) [[unlikely]] return stream.fail_at(reason, stream.bits_processed() - static_cast<size_t>(bits));
  }
  return true;
}

// Reserved bits (`reserved(bits)` in a schema): `bits` zero bits (1..64), stored nowhere; a read refuses a
// one bit (kNonZeroReserved), so a later protocol can give them a meaning old readers notice.
template <typename Stream>
BITWIRE_FORCE_INLINE bool serialize_reserved(Stream& stream, int bits) {
  return serialize_constant(stream, 0, bits, ReadError::kNonZeroReserved);
}

// ---- whole objects ----

struct ValidateResult {
  WriteError error = WriteError::kNone;
  size_t error_bit = 0;  // bits counted before the refused operation
  size_t bits = 0;       // the conservative bound (as measure_bits) when valid
  explicit operator bool() const { return error == WriteError::kNone; }
};

// Runs `object`'s serialize on a ValidateStream: whether every write contract holds (so that every correct
// reader accepts what a WriteStream would write), and the measured bound.
template <typename T>
inline ValidateResult validate_object(T& object) {
  ValidateStream stream;
  if (!object.serialize(stream) && !stream.failed()) stream.refuse(WriteError::kInvalidData);
  ValidateResult result;
  result.error = stream.error();
  result.error_bit = stream.error_bit();
  result.bits = stream.bits_processed();
  return result;
}

// A conservative bound on the bits `object` takes, at any starting bit position.
template <typename T>
inline size_t measure_bits(T& object) {
  MeasureStream stream;
  object.serialize(stream);
  return stream.bits_processed();
}

// Writes `object` (anything with `template <typename S> bool serialize(S&)`) into `buffer` and returns the
// bytes used, or 0 (nothing written) when the object breaks a write contract (a value out of its range, a
// string too long, ...) or the buffer is smaller than measure_bits(object): never a byte past the span,
// and never bits a correct reader refuses or misreads, in any build. A WriteStream only asserts its
// contracts, and without assertions an out-of-range offset would run into the next field's bits; so one
// ValidateStream pass checks them all and measures the same bound. A generated MaxBytes always fits.
template <typename T>
inline size_t write_object(std::span<std::byte> buffer, T& object) {
  ValidateStream check;
  if (!object.serialize(check) || check.failed() || check.bits_processed() > buffer.size() * 8) return 0;
  WriteStream stream(buffer);
  object.serialize(stream);
  stream.flush();
  return stream.bytes_processed();
}

struct ReadResult {
  ReadError error = ReadError::kNone;
  size_t error_bit = 0;       // where the failing operation started
  size_t bits_read = 0;       // bits consumed on success
  explicit operator bool() const { return error == ReadError::kNone; }
};

// Reads `object` from `bytes`; on failure the object may be partly written and the result says why.
template <typename T>
inline ReadResult read_object(std::span<const std::byte> bytes, T& object) {
  ReadStream stream(bytes);
  ReadResult result;
  if (!object.serialize(stream) && !stream.failed()) stream.fail(ReadError::kInvalidData);
  result.error = stream.error();
  result.error_bit = stream.error_bit();
  result.bits_read = stream.bits_processed();
  return result;
}

}  // namespace bitwire
