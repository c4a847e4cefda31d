// A catalogue of serialize operations for randomized tests: every primitive of the wire format (nested
// objects included) as a small struct that draws random parameters and values, serializes itself through
// any stream, encodes itself with an independent reference encoder built from the wire rules, compares a
// read-back value with the written one and describes itself for failure messages.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "bitwire/core/random.hpp"
#include "bitwire/serialize/serialize.hpp"
#include "support/serialize_reference.hpp"

namespace bitwire::test {

// ---- the operations ----

struct Op;

template <typename Stream>
bool serialize_op(Stream& stream, Op& op);
inline void reference_op(const Op& op, ReferenceBits& ref);
inline bool same_op(const Op& written, const Op& read, std::string& why);
inline int align_ops(const Op& op);
template <typename Rng>
Op random_op(Rng& rng, int depth);
inline void scramble_op(Op& op, Random& rng);

// The low `bits` bits, through serialize_bits on a T, or all of T through the serialize_uintN helper.
template <typename T>
struct BitsOp {
  int bits = 1;
  bool helper = false;
  T value = 0;

  template <typename Rng>
  static BitsOp random(Rng& rng, int) {
    BitsOp op;
    op.helper = rng.below(4) == 0;
    op.bits = op.helper ? kWidth<T> : 1 + static_cast<int>(rng.below(kWidth<T>));
    op.value = static_cast<T>(rng.next() & low_mask(op.bits));
    return op;
  }
  template <typename Stream>
  bool serialize(Stream& stream) {
    if (!helper) return serialize_bits(stream, value, bits);
    if constexpr (sizeof(T) == 1) {
      return serialize_uint8(stream, value);
    } else if constexpr (sizeof(T) == 2) {
      return serialize_uint16(stream, value);
    } else if constexpr (sizeof(T) == 4) {
      return serialize_uint32(stream, value);
    } else {
      return serialize_uint64(stream, value);
    }
  }
  void reference(ReferenceBits& ref) const { ref.put(value, bits); }
  bool same(const BitsOp& read) const { return read.value == value; }
  void scramble(Random& rng) { value = static_cast<T>(rng.next()); }
  std::string describe() const {
    return "bits" + std::to_string(kWidth<T>) + (helper ? "(helper) " : " ") + std::to_string(bits) + ": " +
           std::to_string(static_cast<uint64_t>(value));
  }
};

struct BoolOp {
  bool value = false;

  template <typename Rng>
  static BoolOp random(Rng& rng, int) {
    return {rng.below(2) == 1};
  }
  template <typename Stream>
  bool serialize(Stream& stream) {
    return serialize_bool(stream, value);
  }
  void reference(ReferenceBits& ref) const { ref.put(value ? 1 : 0, 1); }
  bool same(const BoolOp& read) const { return read.value == value; }
  void scramble(Random& rng) { value = rng.below(2) == 1; }
  std::string describe() const { return std::string("bool ") + (value ? "true" : "false"); }
};

enum class RangedForm { kInt, kInt64, kInt128 };

template <typename T, RangedForm Form>
struct RangedOp {
  RangeSample<T> sample{};

  template <typename Rng>
  static RangedOp random(Rng& rng, int) {
    return {random_range<T>(rng)};
  }
  template <typename Stream>
  bool serialize(Stream& stream) {
    if constexpr (Form == RangedForm::kInt) {
      return serialize_int(stream, sample.value, sample.min, sample.max);
    } else if constexpr (Form == RangedForm::kInt64) {
      return serialize_int64(stream, sample.value, sample.min, sample.max);
    } else {
      return serialize_int128(stream, sample.value, sample.min, sample.max);
    }
  }
  void reference(ReferenceBits& ref) const {
    reference_ranged(ref, biased(sample.value), biased(sample.min), biased(sample.max));
  }
  bool same(const RangedOp& read) const { return read.sample.value == sample.value; }
  void scramble(Random& rng) { sample.value = static_cast<T>(random128(rng)); }
  std::string describe() const {
    return "int" + std::to_string(kWidth<T>) + (kSigned<T> ? "s" : "u") + " form " +
           std::to_string(static_cast<int>(Form)) + " [" + hex128(biased(sample.min)) + ", " +
           hex128(biased(sample.max)) + "] biased value " + hex128(biased(sample.value));
  }
};

// A float or double carried as its bit pattern, so NaN payloads and signed zeros are compared exactly.
template <typename Float, typename Bits>
struct FloatingOp {
  Bits pattern = 0;

  template <typename Rng>
  static FloatingOp random(Rng& rng, int) {
    constexpr int kMantissa = std::numeric_limits<Float>::digits - 1;
    constexpr Bits kExponentMask =
        static_cast<Bits>(~Bits{0} << kMantissa) & static_cast<Bits>(~Bits{0} >> 1);
    Bits bits = static_cast<Bits>(rng.next());
    switch (rng.below(6)) {
      case 0:  // NaN with a random payload (quiet or signalling) and sign
        bits |= kExponentMask;
        if ((bits & ~kExponentMask & static_cast<Bits>(~Bits{0} >> 1)) == 0) bits |= 1;
        break;
      case 1:  // an infinity
        bits = static_cast<Bits>((bits & ~static_cast<Bits>(~Bits{0} >> 1)) | kExponentMask);
        break;
      case 2:  // a zero of either sign
        bits &= ~static_cast<Bits>(~Bits{0} >> 1);
        break;
      case 3:  // a denormal
        bits &= ~kExponentMask;
        break;
      default:  // any pattern
        break;
    }
    return {bits};
  }
  template <typename Stream>
  bool serialize(Stream& stream) {
    Float value = std::bit_cast<Float>(pattern);
    bool ok = false;
    if constexpr (sizeof(Float) == 4) ok = serialize_float(stream, value);
    if constexpr (sizeof(Float) == 8) ok = serialize_double(stream, value);
    pattern = std::bit_cast<Bits>(value);
    return ok;
  }
  void reference(ReferenceBits& ref) const { ref.put(pattern, kWidth<Bits>); }
  bool same(const FloatingOp& read) const { return read.pattern == pattern; }
  void scramble(Random& rng) { pattern = static_cast<Bits>(rng.next()); }
  std::string describe() const {
    return std::string(sizeof(Float) == 4 ? "float" : "double") + " bits " + hex128(pattern);
  }
};
using FloatOp = FloatingOp<float, uint32_t>;
using DoubleOp = FloatingOp<double, uint64_t>;

struct CompressedFloatOp {
  float min = 0;
  float max = 1;
  float resolution = 1;
  float value = 0;

  template <typename Rng>
  static CompressedFloatOp random(Rng& rng, int) {
    CompressedFloatOp op;
    if (rng.below(8) == 0) {
      op.min = 0.0f;
      op.max = 10.0f;
      op.resolution = 0.01f;
    } else {
      op.min = static_cast<float>(rng.below(4) == 0 ? rng.uniform(-1e5, 1e5) : rng.uniform(-1000, 1000));
      op.max = op.min + static_cast<float>(std::pow(10.0, rng.uniform(-3, 5)));
      if (!(op.max > op.min)) op.max = op.min + 1.0f;  // a span below the float spacing at min
      // From fewer than one step up to beyond the 4294967040-step cap.
      const double steps = std::ldexp(rng.uniform(0.5, 1.0), static_cast<int>(rng.below(35)));
      op.resolution = static_cast<float>((static_cast<double>(op.max) - op.min) / steps);
      if (!(op.resolution > 0.0f)) op.resolution = op.max - op.min;
    }
    const float delta = op.max - op.min;
    switch (rng.below(8)) {
      case 0:
        op.value = op.min;
        break;
      case 1:
        op.value = op.max;
        break;
      case 2:
        op.value = op.min + static_cast<float>(rng.uniform(-1.0, 2.0)) * delta;
        break;  // clamped
      default:
        op.value = op.min + static_cast<float>(rng.uniform()) * delta;
        break;
    }
    return op;
  }
  template <typename Stream>
  bool serialize(Stream& stream) {
    return serialize_compressed_float(stream, value, min, max, resolution);
  }
  void reference(ReferenceBits& ref) const {
    const ReferenceQuantizer quantizer(min, max, resolution);
    ref.put(quantizer.quantize(value), quantizer.bits);
  }
  // The reader must return exactly the writer's own quantization of the value, and that quantization must
  // be within half a step (plus float32 rounding) of the value clamped to the range.
  bool same(const CompressedFloatOp& read) const {
    const ReferenceQuantizer quantizer(min, max, resolution);
    const float expected = quantizer.dequantize(quantizer.quantize(value));
    if (std::bit_cast<uint32_t>(read.value) != std::bit_cast<uint32_t>(expected)) return false;
    const double clamped =
        std::clamp(static_cast<double>(value), static_cast<double>(min), static_cast<double>(max));
    const double step = static_cast<double>(quantizer.delta) / quantizer.max_integer;
    const double slack =
        std::ldexp(std::fabs(min) + std::fabs(max) + static_cast<double>(quantizer.delta), -20);
    return std::fabs(static_cast<double>(read.value) - clamped) <= 0.5 * step + slack;
  }
  void scramble(Random& rng) { value = static_cast<float>(rng.uniform(-1e9, 1e9)); }
  std::string describe() const {
    char text[160];
    std::snprintf(text, sizeof text, "compressed float %.9g in [%.9g, %.9g] at %.9g", value, min, max,
                  resolution);
    return text;
  }
};

struct AlignOp {
  template <typename Rng>
  static AlignOp random(Rng&, int) {
    return {};
  }
  template <typename Stream>
  bool serialize(Stream& stream) {
    return serialize_align(stream);
  }
  void reference(ReferenceBits& ref) const { ref.align(); }
  bool same(const AlignOp&) const { return true; }
  void scramble(Random&) {}
  std::string describe() const { return "align"; }
};

struct BytesOp {
  std::vector<unsigned char> data;
  bool as_std_byte = false;

  template <typename Rng>
  static BytesOp random(Rng& rng, int) {
    BytesOp op;
    const uint64_t kind = rng.below(10);
    const size_t count = kind < 2   ? 0
                         : kind < 7 ? rng.below(17)
                         : kind < 9 ? 17 + rng.below(84)
                                    : 100 + rng.below(500);
    op.data.resize(count);
    for (auto& byte : op.data) byte = static_cast<unsigned char>(rng.next());
    op.as_std_byte = rng.below(2) == 1;
    return op;
  }
  template <typename Stream>
  bool serialize(Stream& stream) {
    if (as_std_byte) return serialize_bytes(stream, reinterpret_cast<std::byte*>(data.data()), data.size());
    return serialize_bytes(stream, data.data(), data.size());
  }
  void reference(ReferenceBits& ref) const { ref.put_bytes(data.data(), data.size()); }
  bool same(const BytesOp& read) const { return read.data == data; }
  void scramble(Random& rng) {
    for (auto& byte : data) byte = static_cast<unsigned char>(rng.next());
  }
  std::string describe() const { return "bytes " + std::to_string(data.size()); }
};

struct StringOp {
  size_t buffer_size = 1;
  std::vector<char> buffer = std::vector<char>(1, '\0');

  template <typename Rng>
  static StringOp random(Rng& rng, int) {
    StringOp op;
    const uint64_t kind = rng.below(8);
    op.buffer_size = kind == 0 ? 1 : kind < 6 ? 1 + rng.below(40) : 1 + rng.below(600);
    const std::string text = random_utf8(rng, op.buffer_size - 1);
    op.buffer.assign(op.buffer_size, '\0');
    std::memcpy(op.buffer.data(), text.data(), text.size());
    return op;
  }
  size_t length() const { return strnlen(buffer.data(), buffer_size); }
  template <typename Stream>
  bool serialize(Stream& stream) {
    return serialize_string(stream, buffer.data(), buffer_size);
  }
  void reference(ReferenceBits& ref) const {
    ref.put(length(), reference_bit_length(buffer_size - 1));
    ref.put_bytes(reinterpret_cast<const unsigned char*>(buffer.data()), length());
  }
  bool same(const StringOp& read) const {
    const size_t n = length();
    return read.buffer[n] == '\0' && std::memcmp(read.buffer.data(), buffer.data(), n) == 0;
  }
  void scramble(Random&) { buffer.assign(buffer_size, 'x'); }
  std::string describe() const {
    return "string of " + std::to_string(length()) + " bytes, buffer " + std::to_string(buffer_size);
  }
};

struct RelativeOp {
  uint32_t previous = 0;
  uint32_t current = 1;

  struct Tier {
    uint32_t min;
    uint32_t max;
  };
  static constexpr Tier kTiers[] = {{1, 1}, {2, 6}, {7, 23}, {24, 280}, {281, 4377}, {4378, 69914}};

  template <typename Rng>
  static RelativeOp random(Rng& rng, int) {
    const uint64_t tier = rng.below(7);
    uint32_t lo = 69915;
    uint32_t hi = 0xFFFFFFFFu;
    if (tier < 6) {
      lo = kTiers[tier].min;
      hi = kTiers[tier].max;
    }
    const uint64_t edge = rng.below(4);
    const auto difference = static_cast<uint32_t>(edge == 0 ? lo : edge == 1 ? hi : rng.range(lo, hi));
    RelativeOp op;
    op.previous = static_cast<uint32_t>(rng.below(uint64_t{0xFFFFFFFFu} - difference + 1));
    op.current = op.previous + difference;
    return op;
  }
  template <typename Stream>
  bool serialize(Stream& stream) {
    return serialize_int_relative(stream, previous, current);
  }
  void reference(ReferenceBits& ref) const {
    const uint32_t difference = current - previous;
    for (size_t tier = 0; tier < std::size(kTiers); ++tier) {
      if (difference <= kTiers[tier].max) {
        ref.put(1, 1);  // after `tier` zero flags
        reference_ranged(ref, difference, kTiers[tier].min, kTiers[tier].max);
        return;
      }
      ref.put(0, 1);
    }
    ref.put(current, 32);
  }
  bool same(const RelativeOp& read) const { return read.current == current; }
  void scramble(Random& rng) { current = static_cast<uint32_t>(rng.next()); }
  std::string describe() const {
    return "int_relative " + std::to_string(previous) + " -> " + std::to_string(current);
  }
};

enum class SmallEnum : uint8_t {};
enum class SignedEnum : int16_t {};
enum class WideEnum : int64_t {};

template <typename E>
struct EnumOp {
  using Underlying = std::underlying_type_t<E>;
  RangeSample<Underlying> sample{};

  template <typename Rng>
  static EnumOp random(Rng& rng, int) {
    return {random_range<Underlying>(rng)};
  }
  template <typename Stream>
  bool serialize(Stream& stream) {
    E value = static_cast<E>(sample.value);
    const bool ok = serialize_enum(stream, value, static_cast<E>(sample.min), static_cast<E>(sample.max));
    sample.value = static_cast<Underlying>(value);
    return ok;
  }
  void reference(ReferenceBits& ref) const {
    reference_ranged(ref, biased(sample.value), biased(sample.min), biased(sample.max));
  }
  bool same(const EnumOp& read) const { return read.sample.value == sample.value; }
  void scramble(Random& rng) { sample.value = static_cast<Underlying>(rng.next()); }
  std::string describe() const {
    return "enum" + std::to_string(kWidth<Underlying>) + " [" + std::to_string(int64_t{sample.min}) + ", " +
           std::to_string(int64_t{sample.max}) + "] " + std::to_string(int64_t{sample.value});
  }
};

template <int FractionBits, typename T>
struct FixedOp {
  int64_t min_units = 0;
  int64_t max_units = 0;
  T raw = 0;

  template <typename Rng>
  static FixedOp random(Rng& rng, int) {
    // Whole units must keep units << FractionBits inside T (and inside int64 for the bounds).
    constexpr int kUnitBits = std::min(kWidth<T> - FractionBits, 64);
    const RangeSample<int64_t> units = random_range<int64_t>(rng);
    const auto shrink = [](int64_t value) { return value >> (64 - kUnitBits); };
    FixedOp op;
    op.min_units = shrink(units.min);
    op.max_units = shrink(units.max);
    const auto low =
        static_cast<uint128_t>(static_cast<int128_t>(op.min_units) * (int128_t{1} << FractionBits));
    const auto high =
        static_cast<uint128_t>(static_cast<int128_t>(op.max_units) * (int128_t{1} << FractionBits));
    const uint128_t span = high - low;
    uint128_t offset = random128(rng);
    offset = span == ~static_cast<uint128_t>(0) ? offset : offset % (span + 1);
    op.raw = static_cast<T>(static_cast<int128_t>(low + offset));
    return op;
  }
  template <typename Stream>
  bool serialize(Stream& stream) {
    return serialize_fixed<FractionBits>(stream, raw, min_units, max_units);
  }
  void reference(ReferenceBits& ref) const {
    const auto shift = [](int64_t units) {
      return static_cast<T>(static_cast<int128_t>(units) * (int128_t{1} << FractionBits));
    };
    reference_ranged(ref, biased(raw), biased(shift(min_units)), biased(shift(max_units)));
  }
  bool same(const FixedOp& read) const { return read.raw == raw; }
  void scramble(Random& rng) { raw = static_cast<T>(random128(rng)); }
  std::string describe() const {
    return "fixed Q" + std::to_string(FractionBits) + " in " + std::to_string(kWidth<T>) + " bits [" +
           std::to_string(min_units) + ", " + std::to_string(max_units) + "] raw biased " +
           hex128(biased(raw));
  }
};

struct Uint128Op {
  uint128_t value = 0;

  template <typename Rng>
  static Uint128Op random(Rng& rng, int) {
    return {random128(rng)};
  }
  template <typename Stream>
  bool serialize(Stream& stream) {
    return serialize_uint128(stream, value);
  }
  void reference(ReferenceBits& ref) const { ref.put(value, 128); }
  bool same(const Uint128Op& read) const { return read.value == value; }
  void scramble(Random& rng) { value = random128(rng); }
  std::string describe() const { return "uint128 " + hex128(value); }
};

struct CheckOp {
  bool default_magic = true;
  uint32_t magic = kCheckMagic;

  template <typename Rng>
  static CheckOp random(Rng& rng, int) {
    CheckOp op;
    op.default_magic = rng.below(2) == 0;
    if (!op.default_magic) op.magic = static_cast<uint32_t>(rng.next());
    return op;
  }
  template <typename Stream>
  bool serialize(Stream& stream) {
    return default_magic ? serialize_check(stream) : serialize_check(stream, magic);
  }
  void reference(ReferenceBits& ref) const {
    ref.align();
    ref.put(magic, 32);
  }
  bool same(const CheckOp&) const { return true; }
  void scramble(Random&) {}
  std::string describe() const { return "check " + std::to_string(magic); }
};

// A nested object: a script of its own serialized through serialize_object.
struct NestedOp {
  struct Body {
    std::vector<Op> ops;
    template <typename Stream>
    bool serialize(Stream& stream);
  };
  Body body;

  template <typename Rng>
  static NestedOp random(Rng& rng, int depth);
  template <typename Stream>
  bool serialize(Stream& stream) {
    return serialize_object(stream, body);
  }
  void reference(ReferenceBits& ref) const;
  bool same(const NestedOp& read) const;
  void scramble(Random& rng);
  std::string describe() const;
  // Filled by same() with the first difference inside.
  mutable std::string inner_why;
};

using OpVariant =
    std::variant<BitsOp<uint8_t>, BitsOp<uint16_t>, BitsOp<uint32_t>, BitsOp<uint64_t>, BoolOp,
                 RangedOp<int8_t, RangedForm::kInt>, RangedOp<int16_t, RangedForm::kInt>,
                 RangedOp<int32_t, RangedForm::kInt>, RangedOp<uint32_t, RangedForm::kInt>,
                 RangedOp<int64_t, RangedForm::kInt>, RangedOp<int64_t, RangedForm::kInt64>,
                 RangedOp<uint64_t, RangedForm::kInt64>, RangedOp<int128_t, RangedForm::kInt128>,
                 RangedOp<uint128_t, RangedForm::kInt128>, FloatOp, DoubleOp, CompressedFloatOp, AlignOp,
                 BytesOp, StringOp, RelativeOp, EnumOp<SmallEnum>, EnumOp<SignedEnum>, EnumOp<WideEnum>,
                 FixedOp<0, int16_t>, FixedOp<8, int32_t>, FixedOp<16, int64_t>, FixedOp<62, int64_t>,
                 FixedOp<64, int128_t>, Uint128Op, CheckOp, NestedOp>;

struct Op {
  OpVariant item;
  size_t end_bit = 0;  // the stream's bits_processed() after this operation (written or read)
};

template <typename Stream>
bool serialize_op(Stream& stream, Op& op) {
  const bool ok = std::visit([&](auto& item) { return item.serialize(stream); }, op.item);
  if constexpr (!Stream::kIsMeasuring) op.end_bit = stream.bits_processed();
  return ok;
}

inline void reference_op(const Op& op, ReferenceBits& ref) {
  std::visit([&](const auto& item) { item.reference(ref); }, op.item);
}

inline bool same_op(const Op& written, const Op& read, std::string& why) {
  return std::visit(
      [&](const auto& item) {
        using Item = std::decay_t<decltype(item)>;
        const Item& other = std::get<Item>(read.item);
        if (!item.same(other)) {
          why = "value differs: wrote " + item.describe() + ", read " + other.describe();
          if constexpr (std::is_same_v<Item, NestedOp>) why += " / inside: " + item.inner_why;
          return false;
        }
        if (written.end_bit != read.end_bit) {
          why = item.describe() + ": writer ended at bit " + std::to_string(written.end_bit) +
                ", reader at " + std::to_string(read.end_bit);
          return false;
        }
        return true;
      },
      written.item);
}

inline int align_ops(const Op& op) {
  if (const auto* nested = std::get_if<NestedOp>(&op.item)) {
    int count = 0;
    for (const Op& inner : nested->body.ops) count += align_ops(inner);
    return count;
  }
  return std::holds_alternative<AlignOp>(op.item) || std::holds_alternative<BytesOp>(op.item) ||
                 std::holds_alternative<StringOp>(op.item) || std::holds_alternative<CheckOp>(op.item)
             ? 1
             : 0;
}

template <typename Rng, size_t... I>
Op random_op_of(size_t index, Rng& rng, int depth, std::index_sequence<I...>) {
  Op op;
  ((index == I ? (op.item = std::variant_alternative_t<I, OpVariant>::random(rng, depth), 0) : 0), ...);
  return op;
}

template <typename Rng>
Op random_op(Rng& rng, int depth) {
  constexpr size_t kKinds = std::variant_size_v<OpVariant>;
  return random_op_of(rng.below(kKinds), rng, depth, std::make_index_sequence<kKinds>{});
}

inline void scramble_op(Op& op, Random& rng) {
  std::visit([&](auto& item) { item.scramble(rng); }, op.item);
  op.end_bit = 0;
}

template <typename Stream>
bool NestedOp::Body::serialize(Stream& stream) {
  for (Op& op : ops) {
    if (!serialize_op(stream, op)) return false;
  }
  return true;
}

template <typename Rng>
NestedOp NestedOp::random(Rng& rng, int depth) {
  NestedOp op;
  const uint64_t count = depth >= 2 ? 0 : rng.below(7);
  for (uint64_t i = 0; i < count; ++i) op.body.ops.push_back(random_op(rng, depth + 1));
  return op;
}

inline void NestedOp::reference(ReferenceBits& ref) const {
  for (const Op& op : body.ops) reference_op(op, ref);
}

inline bool NestedOp::same(const NestedOp& read) const {
  for (size_t i = 0; i < body.ops.size(); ++i) {
    if (!same_op(body.ops[i], read.body.ops[i], inner_why)) {
      inner_why = "operation " + std::to_string(i) + ": " + inner_why;
      return false;
    }
  }
  return true;
}

inline std::string NestedOp::describe() const {
  return "object of " + std::to_string(body.ops.size()) + " operations";
}

inline void NestedOp::scramble(Random& rng) {
  for (Op& op : body.ops) scramble_op(op, rng);
}

using Script = std::vector<Op>;

template <typename Rng>
Script random_script(Rng& rng) {
  Script script(1 + rng.below(24));
  for (Op& op : script) op = random_op(rng, 0);
  return script;
}

inline std::string describe_script(const Script& script) {
  std::string text;
  for (size_t i = 0; i < script.size(); ++i) {
    text += "\n  #" + std::to_string(i) + " ";
    text += std::visit([](const auto& item) { return item.describe(); }, script[i].item);
  }
  return text;
}

}  // namespace bitwire::test
