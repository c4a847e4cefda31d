// Reference pieces for randomized serialize tests: an encoder that builds the wire bits one bool at a
// time straight from the rules of docs/wire-format.md (independent of BitWriter), the compressed-float
// quantization re-derived in float32, and random draws of ranged values, 128-bit values and UTF-8 text.
// Random draws take any source with Random's interface (next, below, range, uniform).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include "bitwire/core/config.hpp"

namespace bitwire::test {

// ---- helpers on 128-bit values ----

inline std::string hex128(uint128_t value) {
  char text[40];
  std::snprintf(text, sizeof text, "0x%016llx%016llx", static_cast<unsigned long long>(value >> 64),
                static_cast<unsigned long long>(value));
  return text;
}

template <typename Rng>
uint128_t random128(Rng& rng) {
  return (static_cast<uint128_t>(rng.next()) << 64) | rng.next();
}

// Random value with `width` in [0, 128] random low bits.
template <typename Rng>
uint128_t random_bits(Rng& rng, int width) {
  if (width == 0) return 0;
  const uint128_t all = random128(rng);
  return width == 128 ? all : all & ((static_cast<uint128_t>(1) << width) - 1);
}

inline int reference_bit_length(uint128_t value) {
  int length = 0;
  while (value != 0) {
    ++length;
    value >>= 1;
  }
  return length;
}

// ---- the reference encoder: one bool per wire bit, straight from the rules ----

class ReferenceBits {
 public:
  void put(uint128_t value, int bits) {
    for (int i = 0; i < bits; ++i) bits_.push_back(((value >> i) & 1) != 0);
  }
  void align() {
    while (bits_.size() % 8 != 0) {
      bits_.push_back(false);
      ++padding_;
    }
  }
  void put_bytes(const unsigned char* data, size_t count) {
    align();
    for (size_t i = 0; i < count; ++i) put(data[i], 8);
  }
  void reset_padding() { padding_ = 0; }

  size_t size() const { return bits_.size(); }
  size_t padding() const { return padding_; }
  std::vector<unsigned char> bytes() const {
    std::vector<unsigned char> out((bits_.size() + 7) / 8, 0);
    for (size_t i = 0; i < bits_.size(); ++i) {
      if (bits_[i]) out[i / 8] = static_cast<unsigned char>(out[i / 8] | (1u << (i % 8)));
    }
    return out;
  }

 private:
  std::vector<bool> bits_;
  size_t padding_ = 0;
};

// The ranged integer of the wire, as the reference writes it: value - min in bit_length(max - min) bits.
inline void reference_ranged(ReferenceBits& ref, uint128_t biased_value, uint128_t biased_min,
                             uint128_t biased_max) {
  ref.put(biased_value - biased_min, reference_bit_length(biased_max - biased_min));
}

// ---- integer ranges of any wire type ----

template <typename T>
inline constexpr bool kSigned = std::is_same_v<T, int128_t> || std::is_signed_v<T>;
template <typename T>
inline constexpr int kWidth = static_cast<int>(sizeof(T) * 8);

// Maps T onto [0, 2^width) preserving order, so ranges can be drawn in one unsigned domain.
template <typename T>
uint128_t biased(T value) {
  uint128_t raw = static_cast<uint128_t>(value);
  if constexpr (kWidth<T> < 128) raw &= (static_cast<uint128_t>(1) << kWidth<T>)-1;
  if constexpr (kSigned<T>) raw ^= static_cast<uint128_t>(1) << (kWidth<T> - 1);
  return raw;
}

template <typename T>
T unbiased(uint128_t raw) {
  if constexpr (kSigned<T>) raw ^= static_cast<uint128_t>(1) << (kWidth<T> - 1);
  return static_cast<T>(raw);
}

template <typename T>
struct RangeSample {
  T min;
  T max;
  T value;
};

// A range whose size has a random bit length (0 = a single value, up to the whole type), placed at a random
// spot, and a value inside it that lands on either end a quarter of the time.
template <typename T, typename Rng>
RangeSample<T> random_range(Rng& rng) {
  const int width = static_cast<int>(rng.below(kWidth<T> + 1));
  uint128_t range = random_bits(rng, width);
  if (width > 0) range |= static_cast<uint128_t>(1) << (width - 1);
  uint128_t top = ~static_cast<uint128_t>(0);
  if constexpr (kWidth<T> < 128) top = (static_cast<uint128_t>(1) << kWidth<T>)-1;
  uint128_t low = random_bits(rng, kWidth<T>);
  if (low > top - range) low = top - range - (range == top ? 0 : random_bits(rng, width) % (top - range + 1));
  uint128_t offset = random_bits(rng, width);
  if (offset > range) offset -= range + 1;
  const uint64_t edge = rng.below(8);
  if (edge == 0) offset = 0;
  if (edge == 1) offset = range;
  return {unbiased<T>(low), unbiased<T>(low + range), unbiased<T>(low + offset)};
}

// The compressed float, re-derived from the rules in float32 (the build forbids fused multiply-add).
struct ReferenceQuantizer {
  float min;
  float delta;
  uint32_t max_integer;
  int bits;

  ReferenceQuantizer(float lo, float hi, float resolution) : min(lo), delta(hi - lo) {
    const float values = std::clamp(delta / resolution, 1.0f, 4294967040.0f);
    max_integer = static_cast<uint32_t>(std::ceil(values));
    bits = reference_bit_length(max_integer);
  }
  uint32_t quantize(float value) const {
    const float normalized = std::clamp((value - min) / delta, 0.0f, 1.0f);
    const float product = normalized * static_cast<float>(max_integer);
    const float rounded = std::floor(product + 0.5f);
    return std::min(static_cast<uint32_t>(rounded), max_integer);
  }
  float dequantize(uint32_t integer) const {
    const float normalized = static_cast<float>(integer) / static_cast<float>(max_integer);
    const float scaled = normalized * delta;
    return scaled + min;
  }
};

inline void append_utf8(std::string& out, uint32_t code_point) {
  if (code_point < 0x80) {
    out += static_cast<char>(code_point);
  } else if (code_point < 0x800) {
    out += static_cast<char>(0xC0 | (code_point >> 6));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  } else if (code_point < 0x10000) {
    out += static_cast<char>(0xE0 | (code_point >> 12));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code_point >> 18));
    out += static_cast<char>(0x80 | ((code_point >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  }
}

// Random well-formed UTF-8 without NUL, mixing 1- to 4-byte sequences, of at most `max_bytes` bytes.
template <typename Rng>
std::string random_utf8(Rng& rng, size_t max_bytes) {
  std::string text;
  const size_t target = rng.below(4) == 0 ? max_bytes : rng.below(max_bytes + 1);
  for (int attempts = 0; attempts < 1000 && text.size() < target; ++attempts) {
    uint32_t code_point = 0;
    switch (rng.below(4)) {
      case 0:
        code_point = static_cast<uint32_t>(rng.range(1, 0x7F));
        break;
      case 1:
        code_point = static_cast<uint32_t>(rng.range(0x80, 0x7FF));
        break;
      case 2:
        code_point = static_cast<uint32_t>(rng.range(0x800, 0xFFFF - 0x800));
        if (code_point >= 0xD800) code_point += 0x800;  // skip the surrogates
        break;
      default:
        code_point = static_cast<uint32_t>(rng.range(0x10000, 0x10FFFF));
        break;
    }
    std::string next = text;
    append_utf8(next, code_point);
    if (next.size() <= target) text = next;
  }
  return text;
}

}  // namespace bitwire::test
