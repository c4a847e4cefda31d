// The static-layout ideal of the corpus messages that have one (every field at a fixed bit offset): the
// speed limit idlc's generated code is compared against in corpus_bench. Written by hand: every offset and
// width below is a compile-time constant, the message is assembled in local 64-bit words (which the
// compiler keeps in registers) and stored as whole words, the last word with a store of exactly the bytes
// that remain; a read loads whole words the same way and extracts each field with constant shifts.
//
// The same bytes as idlc's code (the fields are in the same order, LSB first, as bench/generated/corpus/
// *.net declares them) and the same validation on read: every ranged value within its range, alignment
// padding zero, ProbeHeader's constant and reserved bits, and no byte read outside the span (a span shorter
// than the message is refused before anything is loaded). tests/generated/corpus_ideal_test.cpp checks
// both against the generated code on random and on corrupted messages.
//
// Block and Chat have a variable length but a fixed head: their ideal reads the length and its padding as
// one 16-bit word, refuses a length above the maximum, non-zero padding or a span shorter than the bytes,
// and copies the bytes in one block (Chat's through the runtime's own UTF-8 and NUL check, which idlc's
// code runs too).
//
// What the ideal does not do, and idlc's code must: report which field failed and at which bit, continue a
// stream after the message (it starts at bit 0 of its own buffer), or handle RealPacket's gates (no ideal
// here). Not part of the library.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "bitwire/serialize/utf8.hpp"
#include "corpus.hpp"
#include "examples.hpp"

namespace corpus_ideal {

// A message of Bits bits in Words local 64-bit words.
template <int Bits>
struct Layout {
  static constexpr int kBits = Bits;
  static constexpr int kBytes = (Bits + 7) / 8;
  static constexpr int kWords = (Bits + 63) / 64;
  static constexpr int kTailBytes = kBytes - 8 * (kWords - 1);  // bytes of the last word on the wire
};

// Puts the low `Width` bits of `value` at bit `Offset`. The words start at zero.
template <int Offset, int Width, size_t N>
inline void put(uint64_t (&words)[N], uint64_t value) {
  static_assert(Width >= 1 && Width <= 64 && Offset / 64 < static_cast<int>(N));
  constexpr int word = Offset / 64;
  constexpr int shift = Offset % 64;
  if constexpr (Width < 64) value &= (uint64_t{1} << Width) - 1;
  words[word] |= value << shift;
  if constexpr (shift + Width > 64) words[word + 1] |= value >> (64 - shift);
}

// The `Width` bits at bit `Offset`.
template <int Offset, int Width, size_t N>
inline uint64_t get(const uint64_t (&words)[N]) {
  static_assert(Width >= 1 && Width <= 64 && Offset / 64 < static_cast<int>(N));
  constexpr int word = Offset / 64;
  constexpr int shift = Offset % 64;
  uint64_t value = words[word] >> shift;
  if constexpr (shift + Width > 64) value |= words[word + 1] << (64 - shift);
  if constexpr (Width < 64) value &= (uint64_t{1} << Width) - 1;
  return value;
}

// Whole little-endian words out (the last one only as far as the message goes) and in.
template <typename L, size_t N>
inline size_t store(const uint64_t (&words)[N], std::span<std::byte> out) {
  static_assert(N == L::kWords);
  std::byte* p = out.data();
  for (int i = 0; i + 1 < L::kWords; ++i) std::memcpy(p + 8 * i, &words[i], 8);
  std::memcpy(p + 8 * (L::kWords - 1), &words[L::kWords - 1], L::kTailBytes);
  return L::kBytes;
}

template <typename L, size_t N>
inline void load(std::span<const std::byte> in, uint64_t (&words)[N]) {
  static_assert(N == L::kWords);
  const std::byte* p = in.data();
  for (int i = 0; i + 1 < L::kWords; ++i) std::memcpy(&words[i], p + 8 * i, 8);
  words[L::kWords - 1] = 0;
  std::memcpy(&words[L::kWords - 1], p + 8 * (L::kWords - 1), L::kTailBytes);
}

// A ranged value: `value - min` in the bits of its range; a read refuses an offset above `max - min`.
template <typename T>
inline uint64_t offset(T value, int64_t min) {
  return static_cast<uint64_t>(static_cast<int64_t>(value) - min);
}

template <typename T>
inline bool ranged(uint64_t raw, int64_t min, int64_t max, T& out) {
  if (raw > static_cast<uint64_t>(max - min)) return false;
  out = static_cast<T>(static_cast<int64_t>(raw) + min);
  return true;
}

// ---- corpus.net ----

// BenchPacket: 8 + 16 + 21 + 7 + 13 + 23 + 1 + 3 x 32 + 64 = 249 bits, align to 256, 17 bytes: 392 bits.
struct BenchPacket {
  using Message = corpus::BenchPacket;
  using L = Layout<392>;
  static constexpr int kFields = 12;

  static size_t write(const Message& m, std::span<std::byte> out) {
    uint64_t w[L::kWords] = {};
    put<0, 8>(w, offset(m.a, -100));
    put<8, 16>(w, offset(m.b, 0));
    put<24, 21>(w, offset(m.c, -1000000));
    put<45, 7>(w, m.bits7);
    put<52, 13>(w, m.bits13);
    put<65, 23>(w, m.bits23);
    put<88, 1>(w, m.flag ? 1 : 0);
    put<89, 32>(w, std::bit_cast<uint32_t>(m.x));
    put<121, 32>(w, std::bit_cast<uint32_t>(m.y));
    put<153, 32>(w, std::bit_cast<uint32_t>(m.z));
    put<185, 64>(w, m.big);
    // bits 249..255: zero padding. The blob: bytes 32..48, whole words at bits 256 and 320, one byte at 384.
    uint64_t blob[3] = {};
    std::memcpy(blob, m.blob.data(), 17);
    w[4] = blob[0];
    w[5] = blob[1];
    w[6] = blob[2];
    return store<L>(w, out);
  }

  static bool read(std::span<const std::byte> in, Message& m) {
    if (in.size() < L::kBytes) return false;
    uint64_t w[L::kWords];
    load<L>(in, w);
    if (!ranged(get<0, 8>(w), -100, 100, m.a)) return false;
    m.b = static_cast<int32_t>(get<8, 16>(w));  // 16 bits: every value is in [0, 65535]
    if (!ranged(get<24, 21>(w), -1000000, 1000000, m.c)) return false;
    m.bits7 = static_cast<uint32_t>(get<45, 7>(w));
    m.bits13 = static_cast<uint32_t>(get<52, 13>(w));
    m.bits23 = static_cast<uint32_t>(get<65, 23>(w));
    m.flag = get<88, 1>(w) != 0;
    m.x = std::bit_cast<float>(static_cast<uint32_t>(get<89, 32>(w)));
    m.y = std::bit_cast<float>(static_cast<uint32_t>(get<121, 32>(w)));
    m.z = std::bit_cast<float>(static_cast<uint32_t>(get<153, 32>(w)));
    m.big = get<185, 64>(w);
    if (get<249, 7>(w) != 0) return false;  // align: the padding is zero
    const uint64_t blob[3] = {w[4], w[5], w[6]};
    std::memcpy(m.blob.data(), blob, 17);
    return true;
  }
};

// BenchInts: ten ranged integers, 110 bits.
struct BenchInts {
  using Message = corpus::BenchInts;
  using L = Layout<110>;
  static constexpr int kFields = 10;

  static size_t write(const Message& m, std::span<std::byte> out) {
    uint64_t w[L::kWords] = {};
    put<0, 8>(w, offset(m.f0, -100));
    put<8, 16>(w, offset(m.f1, 0));
    put<24, 21>(w, offset(m.f2, -1000000));
    put<45, 2>(w, offset(m.f3, 0));
    put<47, 5>(w, offset(m.f4, -15));
    put<52, 10>(w, offset(m.f5, 0));
    put<62, 12>(w, offset(m.f6, -2048));
    put<74, 8>(w, offset(m.f7, 0));
    put<82, 21>(w, offset(m.f8, -600000));
    put<103, 7>(w, offset(m.f9, 0));
    return store<L>(w, out);
  }

  static bool read(std::span<const std::byte> in, Message& m) {
    if (in.size() < L::kBytes) return false;
    uint64_t w[L::kWords];
    load<L>(in, w);
    if (!ranged(get<0, 8>(w), -100, 100, m.f0)) return false;
    m.f1 = static_cast<int32_t>(get<8, 16>(w));
    if (!ranged(get<24, 21>(w), -1000000, 1000000, m.f2)) return false;
    m.f3 = static_cast<int8_t>(get<45, 2>(w));
    if (!ranged(get<47, 5>(w), -15, 15, m.f4)) return false;
    if (!ranged(get<52, 10>(w), 0, 1000, m.f5)) return false;
    m.f6 = static_cast<int16_t>(static_cast<int64_t>(get<62, 12>(w)) - 2048);
    m.f7 = static_cast<int16_t>(get<74, 8>(w));
    if (!ranged(get<82, 21>(w), -600000, 600000, m.f8)) return false;
    if (!ranged(get<103, 7>(w), 0, 100, m.f9)) return false;
    return true;
  }
};

// BenchBits: eight raw fields, 156 bits.
struct BenchBits {
  using Message = corpus::BenchBits;
  using L = Layout<156>;
  static constexpr int kFields = 8;

  static size_t write(const Message& m, std::span<std::byte> out) {
    uint64_t w[L::kWords] = {};
    put<0, 7>(w, m.b7);
    put<7, 13>(w, m.b13);
    put<20, 23>(w, m.b23);
    put<43, 3>(w, m.b3);
    put<46, 32>(w, m.b32);
    put<78, 11>(w, m.b11);
    put<89, 19>(w, m.b19);
    put<108, 48>(w, m.b48);
    return store<L>(w, out);
  }

  static bool read(std::span<const std::byte> in, Message& m) {
    if (in.size() < L::kBytes) return false;
    uint64_t w[L::kWords];
    load<L>(in, w);
    m.b7 = static_cast<uint32_t>(get<0, 7>(w));
    m.b13 = static_cast<uint32_t>(get<7, 13>(w));
    m.b23 = static_cast<uint32_t>(get<20, 23>(w));
    m.b3 = static_cast<uint32_t>(get<43, 3>(w));
    m.b32 = static_cast<uint32_t>(get<46, 32>(w));
    m.b11 = static_cast<uint32_t>(get<78, 11>(w));
    m.b19 = static_cast<uint32_t>(get<89, 19>(w));
    m.b48 = get<108, 48>(w);
    return true;
  }
};

// BenchMixed: 168 bits.
struct BenchMixed {
  using Message = corpus::BenchMixed;
  using L = Layout<168>;
  static constexpr int kFields = 11;

  static size_t write(const Message& m, std::span<std::byte> out) {
    uint64_t w[L::kWords] = {};
    put<0, 16>(w, offset(m.sequence, 0));
    put<16, 32>(w, m.ack_bits);
    put<48, 12>(w, m.entity_id);
    put<60, 15>(w, offset(m.pos_x, -16384));
    put<75, 15>(w, offset(m.pos_y, -16384));
    put<90, 15>(w, offset(m.pos_z, -16384));
    put<105, 9>(w, m.yaw);
    put<114, 1>(w, m.moving ? 1 : 0);
    put<115, 1>(w, m.firing ? 1 : 0);
    put<116, 48>(w, m.timestamp);
    put<164, 4>(w, offset(m.weapon, 0));
    return store<L>(w, out);
  }

  static bool read(std::span<const std::byte> in, Message& m) {
    if (in.size() < L::kBytes) return false;
    uint64_t w[L::kWords];
    load<L>(in, w);
    m.sequence = static_cast<int32_t>(get<0, 16>(w));
    m.ack_bits = static_cast<uint32_t>(get<16, 32>(w));
    m.entity_id = static_cast<uint32_t>(get<48, 12>(w));
    m.pos_x = static_cast<int16_t>(static_cast<int64_t>(get<60, 15>(w)) - 16384);
    m.pos_y = static_cast<int16_t>(static_cast<int64_t>(get<75, 15>(w)) - 16384);
    m.pos_z = static_cast<int16_t>(static_cast<int64_t>(get<90, 15>(w)) - 16384);
    m.yaw = static_cast<uint32_t>(get<105, 9>(w));
    m.moving = get<114, 1>(w) != 0;
    m.firing = get<115, 1>(w) != 0;
    m.timestamp = get<116, 48>(w);
    m.weapon = static_cast<int8_t>(get<164, 4>(w));
    return true;
  }
};

// ---- examples.net (the fixed-layout ones) ----

// Test: 16 + 3 x 10 = 46 bits.
struct Test {
  using Message = examples::Test;
  using L = Layout<46>;
  static constexpr int kFields = 4;

  static size_t write(const Message& m, std::span<std::byte> out) {
    uint64_t w[L::kWords] = {};
    put<0, 16>(w, m.test_a);
    put<16, 10>(w, offset(m.test_b, 0));
    put<26, 10>(w, offset(m.test_c, 0));
    put<36, 10>(w, offset(m.test_d, 0));
    return store<L>(w, out);
  }

  static bool read(std::span<const std::byte> in, Message& m) {
    if (in.size() < L::kBytes) return false;
    uint64_t w[L::kWords];
    load<L>(in, w);
    m.test_a = static_cast<uint16_t>(get<0, 16>(w));
    if (!ranged(get<16, 10>(w), 0, 1000, m.test_b)) return false;
    if (!ranged(get<26, 10>(w), 0, 1000, m.test_c)) return false;
    if (!ranged(get<36, 10>(w), 0, 1000, m.test_d)) return false;
    return true;
  }
};

// Synchronize: 64 + 16 = 80 bits.
struct Synchronize {
  using Message = examples::Synchronize;
  using L = Layout<80>;
  static constexpr int kFields = 2;

  static size_t write(const Message& m, std::span<std::byte> out) {
    uint64_t w[L::kWords] = {};
    put<0, 64>(w, m.sync_frame);
    put<64, 16>(w, m.sync_sequence);
    return store<L>(w, out);
  }

  static bool read(std::span<const std::byte> in, Message& m) {
    if (in.size() < L::kBytes) return false;
    uint64_t w[L::kWords];
    load<L>(in, w);
    m.sync_frame = get<0, 64>(w);
    m.sync_sequence = static_cast<uint16_t>(get<64, 16>(w));
    return true;
  }
};

// Timescale: 64 + 32 + 32 = 128 bits.
struct Timescale {
  using Message = examples::Timescale;
  using L = Layout<128>;
  static constexpr int kFields = 3;

  static size_t write(const Message& m, std::span<std::byte> out) {
    uint64_t w[L::kWords] = {};
    put<0, 64>(w, std::bit_cast<uint64_t>(m.scale));
    put<64, 32>(w, m.frame_a);
    put<96, 32>(w, m.frame_b);
    return store<L>(w, out);
  }

  static bool read(std::span<const std::byte> in, Message& m) {
    if (in.size() < L::kBytes) return false;
    uint64_t w[L::kWords];
    load<L>(in, w);
    m.scale = std::bit_cast<double>(get<0, 64>(w));
    m.frame_a = static_cast<uint32_t>(get<64, 32>(w));
    m.frame_b = static_cast<uint32_t>(get<96, 32>(w));
    return true;
  }
};

// ProbeHeader: const(0xAB, 8), 3 bits, reserved(5), align (already aligned at 16), 64 bits = 80 bits.
struct ProbeHeader {
  using Message = examples::ProbeHeader;
  using L = Layout<80>;
  static constexpr int kFields = 4;  // the constant and the reserved bits count: they are on the wire

  static size_t write(const Message& m, std::span<std::byte> out) {
    uint64_t w[L::kWords] = {};
    put<0, 8>(w, 0xAB);
    put<8, 3>(w, m.version);
    put<16, 64>(w, m.probe_id);
    return store<L>(w, out);
  }

  static bool read(std::span<const std::byte> in, Message& m) {
    if (in.size() < L::kBytes) return false;
    uint64_t w[L::kWords];
    load<L>(in, w);
    if (get<0, 8>(w) != 0xAB) return false;  // the constant
    m.version = static_cast<uint32_t>(get<8, 3>(w));
    if (get<11, 5>(w) != 0) return false;  // reserved
    m.probe_id = get<16, 64>(w);
    return true;
  }
};

// ProbeBits: 9 + 33 + 64 + 32 + 64 = 202 bits.
struct ProbeBits {
  using Message = examples::ProbeBits;
  using L = Layout<202>;
  static constexpr int kFields = 5;

  static size_t write(const Message& m, std::span<std::byte> out) {
    uint64_t w[L::kWords] = {};
    put<0, 9>(w, m.small);
    put<9, 33>(w, m.boundary);
    put<42, 64>(w, m.wide);
    put<106, 32>(w, m.sensor);
    put<138, 64>(w, m.nonce);
    return store<L>(w, out);
  }

  static bool read(std::span<const std::byte> in, Message& m) {
    if (in.size() < L::kBytes) return false;
    uint64_t w[L::kWords];
    load<L>(in, w);
    m.small = static_cast<uint32_t>(get<0, 9>(w));
    m.boundary = get<9, 33>(w);
    m.wide = get<42, 64>(w);
    m.sensor = static_cast<uint32_t>(get<106, 32>(w));
    m.nonce = get<138, 64>(w);
    return true;
  }
};

// ---- examples.net (the variable-length ones: a length, padding to the byte, the bytes) ----

// The 16-bit head of Block and Chat: the length in its low `LengthBits` bits, then zero padding.
template <int LengthBits>
inline size_t store_head(size_t length, std::span<std::byte> out) {
  static_assert(LengthBits >= 1 && LengthBits <= 16, "one length and its padding in two bytes");
  out[0] = static_cast<std::byte>(length & 0xFF);
  out[1] = static_cast<std::byte>(length >> 8);
  return 2;
}

// The length from the head, or false when it is above `max`, the padding is not zero, or the span holds
// fewer than the head and `length` bytes.
template <int LengthBits>
inline bool load_head(std::span<const std::byte> in, size_t max, size_t& length) {
  if (in.size() < 2) return false;
  const unsigned head = std::to_integer<unsigned>(in[0]) | (std::to_integer<unsigned>(in[1]) << 8);
  length = head & ((1u << LengthBits) - 1);
  if (length > max || (head >> LengthBits) != 0) return false;
  return in.size() - 2 >= length;
}

// Block: bytes<2000>: an 11-bit length, 5 bits of padding, the bytes.
struct Block {
  using Message = examples::Block;
  static constexpr int kFields = 1;
  static constexpr size_t kMax = examples::MaxBlockSize;

  static size_t write(const Message& m, std::span<std::byte> out) {
    const size_t length = m.data.size();
    store_head<11>(length, out);
    if (length != 0) std::memcpy(out.data() + 2, m.data.data(), length);
    return 2 + length;
  }

  static bool read(std::span<const std::byte> in, Message& m) {
    size_t length = 0;
    if (!load_head<11>(in, kMax, length)) return false;
    m.data.resize(length);
    if (length != 0) std::memcpy(m.data.data(), in.data() + 2, length);
    return true;
  }
};

// Chat: string<256>: a 9-bit length, 7 bits of padding, the text (UTF-8 without NUL).
struct Chat {
  using Message = examples::Chat;
  static constexpr int kFields = 1;
  static constexpr size_t kMax = examples::MaxChatLength;

  static size_t write(const Message& m, std::span<std::byte> out) {
    const size_t length = m.text.size();
    store_head<9>(length, out);
    if (length != 0) std::memcpy(out.data() + 2, m.text.c_str(), length);
    return 2 + length;
  }

  static bool read(std::span<const std::byte> in, Message& m) {
    char* text = m.text.storage();
    m.text.set_length(0);
    size_t length = 0;
    if (!load_head<9>(in, kMax, length)) return false;
    if (length != 0) std::memcpy(text, in.data() + 2, length);
    if (bitwire::check_utf8(reinterpret_cast<const unsigned char*>(text), length) !=
        bitwire::Utf8Status::kValid) {
      text[0] = '\0';
      return false;
    }
    m.text.set_length(length);
    return true;
  }
};

}  // namespace corpus_ideal
