// The primitives of the delta form (docs/schema-language.md, "Delta messages"): a numeric value sent
// relative to its baseline value. Generated `serialize_delta` functions call them only for a value that
// differs from its baseline (the caller sends the "changed" bit); like every serialize function each one
// writes, reads and measures with the same code.
//
// Relative encoding with `small_bits` = k (the model chooses k per type: half the value's width):
//   bool(small); small: k bits of code = e + 2^(k-1), where e = d - 1 for d > 0 and e = d for d < 0,
//                       d = value - baseline, so d in [-2^(k-1), -1] u [1, 2^(k-1)] (never 0);
//                not small: the value's whole form (int(value, min, max), or its raw bits).
// A read refuses a small change that lands outside [min, max] (kValueOutOfRange) where the code starts.
// Raw integers wrap: d and the sum are taken modulo 2^bits, and any result is valid.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "bitwire/core/config.hpp"
#include "bitwire/serialize/serialize.hpp"

namespace bitwire {

namespace detail {

// The small code of a difference, or false when it does not fit k bits (or is zero).
inline bool delta_small_code(__int128 difference, int small_bits, uint64_t& code) {
  const __int128 half = static_cast<__int128>(1) << (small_bits - 1);
  if (difference == 0 || difference < -half || difference > half) return false;
  code = static_cast<uint64_t>((difference > 0 ? difference - 1 : difference) + half);
  return true;
}

inline __int128 delta_from_code(uint64_t code, int small_bits) {
  const __int128 half = static_cast<__int128>(1) << (small_bits - 1);
  const __int128 e = static_cast<__int128>(code) - half;
  return e >= 0 ? e + 1 : e;
}

}  // namespace detail

// A ranged integer (int(value, min, max) in its whole form) relative to `baseline`, which must lie in
// [min, max] (it is a value both peers decoded). 1 <= small_bits <= 63.
template <typename Stream, WireInteger T>
BITWIRE_FORCE_INLINE bool serialize_int_delta(Stream& stream, T& value, std::type_identity_t<T> baseline,
                                              std::type_identity_t<T> min, std::type_identity_t<T> max,
                                              int small_bits) {
  BITWIRE_ASSERT(small_bits >= 1 && small_bits <= 63);
  bool small = false;
  uint64_t code = 0;
  if constexpr (!Stream::kIsReading) {
    if (!detail::write_contract(
            stream, [&] { return value >= min && value <= max; }, WriteError::kValueOutOfRange)) {
      return false;
    }
    small = detail::delta_small_code(static_cast<__int128>(value) - static_cast<__int128>(baseline),
                                     small_bits, code);
  }
  BITWIRE_TRY(serialize_bool(stream, small));
  if (!small) return serialize_int(stream, value, min, max);
  const size_t at = stream.bits_processed();
  BITWIRE_TRY(serialize_bits(stream, code, small_bits));
  if constexpr (Stream::kIsReading) {
    const __int128 sum = static_cast<__int128>(baseline) + detail::delta_from_code(code, small_bits);
    if (sum < static_cast<__int128>(min) || sum > static_cast<__int128>(max)) [[unlikely]] {
      return stream.fail_at(ReadError::kValueOutOfRange, at);
    }
    value = static_cast<T>(sum);
  }
  return true;
}

// A raw integer of `bits` bits (1..64; signed storage sign-extends from bit bits - 1) relative to
// `baseline`, modulo 2^bits: every code decodes to a valid value.
template <typename Stream, WireInteger T>
BITWIRE_FORCE_INLINE bool serialize_bits_delta(Stream& stream, T& value, std::type_identity_t<T> baseline,
                                               int bits, int small_bits) {
  BITWIRE_ASSERT(bits >= 1 && bits <= 64 && small_bits >= 1 && small_bits < bits);
  const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  // The value of a `bits`-bit pattern in the field's storage.
  const auto widen = [&](uint64_t pattern) {
    pattern &= mask;
    if constexpr (std::is_signed_v<T>) {
      if (bits < 64 && (pattern >> (bits - 1)) != 0) pattern |= ~mask;
    }
    return static_cast<T>(pattern);
  };
  bool small = false;
  uint64_t code = 0;
  if constexpr (!Stream::kIsReading) {
    const auto pattern = static_cast<uint64_t>(value);
    if (!detail::write_contract(
            stream, [&] { return widen(pattern) == value; }, WriteError::kValueTooWide)) {
      return false;
    }
    // The difference modulo 2^bits, as the signed value nearest zero.
    const uint64_t d = (pattern - static_cast<uint64_t>(baseline)) & mask;
    const __int128 difference = (bits < 64 && (d >> (bits - 1)) != 0) || (bits == 64 && (d >> 63) != 0)
                                    ? static_cast<__int128>(d) - (static_cast<__int128>(1) << bits)
                                    : static_cast<__int128>(d);
    small = detail::delta_small_code(difference, small_bits, code);
  }
  BITWIRE_TRY(serialize_bool(stream, small));
  if (!small) {
    if constexpr (std::is_signed_v<T>) {
      return serialize_signed_bits(stream, value, bits);
    } else {
      return serialize_bits(stream, value, bits);
    }
  }
  BITWIRE_TRY(serialize_bits(stream, code, small_bits));
  if constexpr (Stream::kIsReading) {
    const auto difference = static_cast<uint64_t>(detail::delta_from_code(code, small_bits));
    value = widen(static_cast<uint64_t>(baseline) + difference);
  }
  return true;
}

// A compressed float relative to `baseline` (a value both peers decoded), on the quantized integer: the
// whole form is the same int(q, 0, max_integer) serialize_compressed_float writes.
template <typename Stream>
BITWIRE_FORCE_INLINE bool serialize_compressed_float_delta(Stream& stream, float& value, float baseline,
                                                           CompressedFloatParams params, int small_bits) {
  uint32_t integer = 0;
  if constexpr (!Stream::kIsReading) {
    if (!detail::write_contract(
            stream, [&] { return std::isfinite(value); }, WriteError::kNotFinite))
      return false;
    integer = quantize_compressed_float(value, params);
  }
  BITWIRE_TRY(serialize_int_delta(stream, integer, quantize_compressed_float(baseline, params), 0u,
                                  params.max_integer, small_bits));
  if constexpr (Stream::kIsReading) value = dequantize_compressed_float(integer, params);
  return true;
}

// Whether a value differs from its baseline on the wire. Floats compare their bits (a NaN or a -0 is a
// change like any other); a compressed float compares its quantized integers (delta_differs_compressed).
template <typename T>
BITWIRE_FORCE_INLINE bool delta_differs(const T& value, const T& baseline) {
  if constexpr (std::is_same_v<T, float>) {
    return std::bit_cast<uint32_t>(value) != std::bit_cast<uint32_t>(baseline);
  } else if constexpr (std::is_same_v<T, double>) {
    return std::bit_cast<uint64_t>(value) != std::bit_cast<uint64_t>(baseline);
  } else {
    return !(value == baseline);
  }
}

BITWIRE_FORCE_INLINE bool delta_differs_compressed(float value, float baseline,
                                                   const CompressedFloatParams& params) {
  return quantize_compressed_float(value, params) != quantize_compressed_float(baseline, params);
}

}  // namespace bitwire
