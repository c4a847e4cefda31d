// Hand-written message types for the message, channel and connection tests: the shape idlc generates
// (kTypeId, MaxBits, one templated serialize), so they plug into describe_message<T> as generated ones do.
#pragma once

#include <cstdint>

#include "bitwire/message/connection.hpp"
#include "bitwire/serialize/fixed_string.hpp"
#include "bitwire/serialize/fixed_vector.hpp"
#include "bitwire/message/message.hpp"
#include "bitwire/serialize/serialize.hpp"

namespace bitwire::test {

// 8 bits.
struct Small {
  static constexpr uint32_t kTypeId = 0;
  static constexpr size_t MaxBits = 8;
  uint8_t value = 0;
  template <typename Stream>
  bool serialize(Stream& stream) {
    return serialize_bits(stream, value, 8);
  }
};

// 1 bit.
struct Tiny {
  static constexpr uint32_t kTypeId = 1;
  static constexpr size_t MaxBits = 1;
  bool flag = false;
  template <typename Stream>
  bool serialize(Stream& stream) {
    return serialize_bool(stream, flag);
  }
};

// A sequence number and a payload of variable length: what the delivery tests check byte for byte.
struct Numbered {
  static constexpr uint32_t kTypeId = 2;
  uint32_t serial = 0;
  int32_t level = 0;  // [0, 100]
  FixedVector<uint8_t, 64> payload;
  FixedString<16> label;
  template <typename Stream>
  bool serialize(Stream& stream) {
    BITWIRE_TRY(serialize_bits(stream, serial, 32));
    BITWIRE_TRY(serialize_int(stream, level, 0, 100));
    auto count = static_cast<uint32_t>(payload.size());
    BITWIRE_TRY(serialize_count(stream, count, 0u, 64u));
    if constexpr (Stream::kIsReading) payload.resize(count);
    BITWIRE_TRY(serialize_bytes(stream, payload.data(), count));
    BITWIRE_TRY(serialize_string(stream, label));
    return true;
  }
  friend bool operator==(const Numbered& a, const Numbered& b) {
    return a.serial == b.serial && a.level == b.level && a.payload == b.payload && a.label == b.label;
  }
};

// A message that carries a block.
struct WithBlock {
  static constexpr uint32_t kTypeId = 3;
  static constexpr bool kHasBlock = true;
  uint8_t tag = 0;
  template <typename Stream>
  bool serialize(Stream& stream) {
    return serialize_bits(stream, tag, 8);
  }
};

// A block message as type 1 of a two-type package (the block fragment goldens).
struct Blocky {
  static constexpr uint32_t kTypeId = 1;
  static constexpr bool kHasBlock = true;
  uint8_t tag = 0;
  template <typename Stream>
  bool serialize(Stream& stream) {
    return serialize_bits(stream, tag, 8);
  }
};

inline constexpr MessageTypeInfo kTwoTypes[] = {describe_message<Small>("Small"), describe_message<Tiny>("Tiny")};
inline constexpr MessageTypeInfo kOneType[] = {describe_message<Small>("Small")};
inline constexpr MessageTypeInfo kAllTypes[] = {describe_message<Small>("Small"), describe_message<Tiny>("Tiny"),
                                                describe_message<Numbered>("Numbered"),
                                                describe_message<WithBlock>("WithBlock")};
inline constexpr MessageTypeInfo kBlockTypes[] = {describe_message<Small>("Small"),
                                                  describe_message<Blocky>("Blocky")};

}  // namespace bitwire::test
