// The primitives of the delta form (docs/schema-language.md, "Delta messages"): a numeric value sent
// relative to its baseline value. Generated `serialize_delta` functions call them only for a value that
// differs from its baseline (the caller sends the "changed" bit); like every serialize function each one
// writes, reads and measures with the same code.
//
// Relative encoding of a number whose whole form takes b >= 4 bits (the model sends narrower ones whole):
//   bits(s, 2): the selector; for s in 0..2 the difference goes in a window of w = ceil((s + 1) * b / 4)
//   bits (delta_window_bits in bits.hpp) as code = e + 2^(w-1), where e = d - 1 for d > 0 and e = d for
//   d < 0, d = value - baseline, so d in [-2^(w-1), -1] u [1, 2^(w-1)] (never 0); for s = 3 the value's
//   whole form (int(value, min, max), or its raw bits) follows.
// A writer picks the smallest window the difference fits, and the whole value only when none does; so
// every change has exactly one encoding, and a read refuses any other (kNonCanonical where the code or
// the whole value starts): a difference a smaller window holds, or a whole value the widest window
// holds or equal to the baseline (an unchanged value is the caller's changed bit at 0). It also refuses
// a change that lands outside [min, max] (kValueOutOfRange, at the same bit).
// Raw integers wrap: d and the sum are taken modulo 2^bits, and any result is valid.
// The encoding is version kDeltaFormatVersion (bits.hpp) of the delta form.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "bitwire/core/config.hpp"
#include "bitwire/serialize/serialize.hpp"

namespace bitwire {

namespace detail {

// The code of a difference in a window of `window` bits, or false when it does not fit (or is zero).
inline bool delta_window_code(__int128 difference, int window, uint64_t& code) {
  const __int128 half = static_cast<__int128>(1) << (window - 1);
  if (difference == 0 || difference < -half || difference > half) return false;
  code = static_cast<uint64_t>((difference > 0 ? difference - 1 : difference) + half);
  return true;
}

inline __int128 delta_from_code(uint64_t code, int window) {
  const __int128 half = static_cast<__int128>(1) << (window - 1);
  const __int128 e = static_cast<__int128>(code) - half;
  return e >= 0 ? e + 1 : e;
}

// The selector of the smallest window `difference` fits, with its code; kDeltaWindows (whole) if none.
inline uint32_t delta_selector(__int128 difference, int bits, uint64_t& code) {
  for (int s = 0; s < kDeltaWindows; ++s) {
    if (delta_window_code(difference, delta_window_bits(bits, s), code)) return static_cast<uint32_t>(s);
  }
  return kDeltaWindows;
}

// Whether `difference`, read under `selector`, is what a writer sends: a nonzero difference that no
// smaller window holds (the windows grow with the selector, so the next smaller one decides).
inline bool delta_canonical(__int128 difference, int bits, uint32_t selector) {
  if (difference == 0) return false;
  if (selector == 0) return true;
  uint64_t unused = 0;
  return !delta_window_code(difference, delta_window_bits(bits, static_cast<int>(selector) - 1), unused);
}

// A raw difference modulo 2^bits, as the signed value nearest zero (2^(bits-1) itself counts as negative).
inline __int128 delta_wrapped(uint64_t value, uint64_t baseline, int bits) {
  const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  const uint64_t d = (value - baseline) & mask;
  return (d >> (bits - 1)) != 0 ? static_cast<__int128>(d) - (static_cast<__int128>(1) << bits)
                                : static_cast<__int128>(d);
}

}  // namespace detail

// A ranged integer (int(value, min, max) in its whole form of `bits` = bits_required(min, max) bits,
// 4..64) relative to `baseline`, which must lie in [min, max] (it is a value both peers decoded).
template <typename Stream, WireInteger T>
BITWIRE_FORCE_INLINE bool serialize_int_delta(Stream& stream, T& value, std::type_identity_t<T> baseline,
                                              std::type_identity_t<T> min, std::type_identity_t<T> max,
                                              int bits) {
  BITWIRE_ASSERT(bits >= kDeltaMinRelativeBits && bits <= 64 && bits == bits_required<T>(min, max));
  uint32_t selector = 0;
  uint64_t code = 0;
  if constexpr (!Stream::kIsReading) {
    if (!detail::write_contract(
            stream, [&] { return value >= min && value <= max; }, WriteError::kValueOutOfRange)) {
      return false;
    }
    const __int128 difference = static_cast<__int128>(value) - static_cast<__int128>(baseline);
    BITWIRE_ASSERT(difference != 0);  // the caller sends only a changed value (its changed bit)
    selector = detail::delta_selector(difference, bits, code);
  }
  BITWIRE_TRY(serialize_bits(stream, selector, kDeltaSelectorBits));
  const size_t at = stream.bits_processed();
  if (selector == kDeltaWindows) {
    if constexpr (Stream::kIsReading) {
      T whole{};
      BITWIRE_TRY(serialize_int(stream, whole, min, max));
      if (!detail::delta_canonical(static_cast<__int128>(whole) - static_cast<__int128>(baseline), bits,
                                   selector)) [[unlikely]] {
        return stream.fail_at(ReadError::kNonCanonical, at);
      }
      value = whole;
      return true;
    } else {
      return serialize_int(stream, value, min, max);
    }
  }
  const int window = delta_window_bits(bits, static_cast<int>(selector));
  BITWIRE_TRY(serialize_bits(stream, code, window));
  if constexpr (Stream::kIsReading) {
    const __int128 difference = detail::delta_from_code(code, window);
    const __int128 sum = static_cast<__int128>(baseline) + difference;
    if (sum < static_cast<__int128>(min) || sum > static_cast<__int128>(max)) [[unlikely]] {
      return stream.fail_at(ReadError::kValueOutOfRange, at);
    }
    if (!detail::delta_canonical(difference, bits, selector)) [[unlikely]] {
      return stream.fail_at(ReadError::kNonCanonical, at);
    }
    value = static_cast<T>(sum);
  }
  return true;
}

// A raw integer of `bits` bits (4..64; signed storage sign-extends from bit bits - 1) relative to
// `baseline`, modulo 2^bits: every code decodes to a valid value.
template <typename Stream, WireInteger T>
BITWIRE_FORCE_INLINE bool serialize_bits_delta(Stream& stream, T& value, std::type_identity_t<T> baseline,
                                               int bits) {
  BITWIRE_ASSERT(bits >= kDeltaMinRelativeBits && bits <= 64);
  const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  // The value of a `bits`-bit pattern in the field's storage.
  const auto widen = [&](uint64_t pattern) {
    pattern &= mask;
    if constexpr (std::is_signed_v<T>) {
      if (bits < 64 && (pattern >> (bits - 1)) != 0) pattern |= ~mask;
    }
    return static_cast<T>(pattern);
  };
  uint32_t selector = 0;
  uint64_t code = 0;
  if constexpr (!Stream::kIsReading) {
    const auto pattern = static_cast<uint64_t>(value);
    if (!detail::write_contract(
            stream, [&] { return widen(pattern) == value; }, WriteError::kValueTooWide)) {
      return false;
    }
    const __int128 difference = detail::delta_wrapped(pattern, static_cast<uint64_t>(baseline), bits);
    BITWIRE_ASSERT(difference != 0);  // the caller sends only a changed value (its changed bit)
    selector = detail::delta_selector(difference, bits, code);
  }
  BITWIRE_TRY(serialize_bits(stream, selector, kDeltaSelectorBits));
  const size_t at = stream.bits_processed();
  if (selector == kDeltaWindows) {
    T whole = value;
    if constexpr (std::is_signed_v<T>) {
      BITWIRE_TRY(serialize_signed_bits(stream, whole, bits));
    } else {
      BITWIRE_TRY(serialize_bits(stream, whole, bits));
    }
    if constexpr (Stream::kIsReading) {
      const __int128 difference =
          detail::delta_wrapped(static_cast<uint64_t>(whole), static_cast<uint64_t>(baseline), bits);
      if (!detail::delta_canonical(difference, bits, selector)) [[unlikely]] {
        return stream.fail_at(ReadError::kNonCanonical, at);
      }
      value = whole;
    }
    return true;
  }
  const int window = delta_window_bits(bits, static_cast<int>(selector));
  BITWIRE_TRY(serialize_bits(stream, code, window));
  if constexpr (Stream::kIsReading) {
    const __int128 difference = detail::delta_from_code(code, window);
    if (!detail::delta_canonical(difference, bits, selector)) [[unlikely]] {
      return stream.fail_at(ReadError::kNonCanonical, at);
    }
    value = widen(static_cast<uint64_t>(baseline) + static_cast<uint64_t>(difference));
  }
  return true;
}

// A compressed float relative to `baseline` (a value both peers decoded), on the quantized integer: the
// whole form is the same int(q, 0, max_integer) serialize_compressed_float writes (params.bits >= 4).
template <typename Stream>
BITWIRE_FORCE_INLINE bool serialize_compressed_float_delta(Stream& stream, float& value, float baseline,
                                                           CompressedFloatParams params) {
  uint32_t integer = 0;
  if constexpr (!Stream::kIsReading) {
    if (!detail::write_contract(
            stream, [&] { return std::isfinite(value); }, WriteError::kNotFinite))
      return false;
    integer = quantize_compressed_float(value, params);
  }
  BITWIRE_TRY(serialize_int_delta(stream, integer, quantize_compressed_float(baseline, params), 0u,
                                  params.max_integer, params.bits));
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
