// One message that uses every serialize primitive, with its bytes worked out by hand from the wire rules
// (docs/wire-format.md, "Bits"). serialize_golden_test checks it both ways; serialize_refusal_test cuts it
// at every byte and checks where the read refuses.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "bitwire/serialize/serialize.hpp"

namespace bitwire::test {

enum class Color : uint8_t { kRed, kGreen, kBlue, kAlpha, kBeta };

// A nested object: three bits and a flag, inline in its parent with nothing around it.
struct Inner {
  uint8_t a = 0;
  bool b = false;

  template <typename Stream>
  bool serialize(Stream& stream) {
    BITWIRE_TRY(serialize_bits(stream, a, 3));
    BITWIRE_TRY(serialize_bool(stream, b));
    return true;
  }
  bool operator==(const Inner&) const = default;
};

struct MixedMessage {
  bool flag = false;
  uint8_t three_bits = 0;
  int32_t degenerate = 0;
  int32_t small = 0;
  uint32_t nibble = 0;
  int64_t big = 0;
  uint64_t wide = 0;
  uint8_t u8 = 0;
  uint16_t u16 = 0;
  uint32_t u32 = 0;
  uint64_t u64 = 0;
  Color color = Color::kRed;
  int16_t q8_8 = 0;
  float f32 = 0;
  double f64 = 0;
  float compressed = 0;
  uint32_t sequence = 0;  // int_relative to 100
  uint32_t far = 0;       // int_relative to `sequence`
  Inner inner;
  std::array<std::byte, 3> block{};
  bool flag2 = false;
  char text[16] = {};
  uint128_t u128 = 0;
  int128_t q112_16 = 0;

  template <typename Stream>
  bool serialize(Stream& stream) {
    BITWIRE_TRY(serialize_bool(stream, flag));
    BITWIRE_TRY(serialize_bits(stream, three_bits, 3));
    BITWIRE_TRY(serialize_int(stream, degenerate, 7, 7));
    BITWIRE_TRY(serialize_int(stream, small, -4, 3));
    BITWIRE_TRY(serialize_int(stream, nibble, 0u, 15u));
    BITWIRE_TRY(serialize_int64(stream, big, int64_t{0}, (int64_t{1} << 40) - 1));
    BITWIRE_TRY(serialize_bits(stream, wide, 64));
    BITWIRE_TRY(serialize_uint8(stream, u8));
    BITWIRE_TRY(serialize_uint16(stream, u16));
    BITWIRE_TRY(serialize_uint32(stream, u32));
    BITWIRE_TRY(serialize_uint64(stream, u64));
    BITWIRE_TRY(serialize_enum(stream, color, Color::kRed, Color::kBeta));
    BITWIRE_TRY(serialize_fixed<8>(stream, q8_8, -100, 100));
    BITWIRE_TRY(serialize_float(stream, f32));
    BITWIRE_TRY(serialize_double(stream, f64));
    BITWIRE_TRY(serialize_compressed_float(stream, compressed, 0.0f, 10.0f, 0.01f));
    BITWIRE_TRY(serialize_int_relative(stream, 100, sequence));
    BITWIRE_TRY(serialize_int_relative(stream, sequence, far));
    BITWIRE_TRY(serialize_object(stream, inner));
    BITWIRE_TRY(serialize_align(stream));
    BITWIRE_TRY(serialize_bytes(stream, block.data(), block.size()));
    BITWIRE_TRY(serialize_bool(stream, flag2));
    BITWIRE_TRY(serialize_string(stream, text));
    BITWIRE_TRY(serialize_uint128(stream, u128));
    BITWIRE_TRY(serialize_fixed<16>(stream, q112_16, -(int64_t{1} << 57), int64_t{1} << 57));
    BITWIRE_TRY(serialize_check(stream));
    return true;
  }

  // Floats compare as bit patterns (the message carries a signaling NaN and -0.0).
  friend bool operator==(const MixedMessage& x, const MixedMessage& y) {
    return x.flag == y.flag && x.three_bits == y.three_bits && x.degenerate == y.degenerate &&
           x.small == y.small && x.nibble == y.nibble && x.big == y.big && x.wide == y.wide && x.u8 == y.u8 &&
           x.u16 == y.u16 && x.u32 == y.u32 && x.u64 == y.u64 && x.color == y.color && x.q8_8 == y.q8_8 &&
           std::bit_cast<uint32_t>(x.f32) == std::bit_cast<uint32_t>(y.f32) &&
           std::bit_cast<uint64_t>(x.f64) == std::bit_cast<uint64_t>(y.f64) &&
           std::bit_cast<uint32_t>(x.compressed) == std::bit_cast<uint32_t>(y.compressed) &&
           x.sequence == y.sequence && x.far == y.far && x.inner == y.inner && x.block == y.block &&
           x.flag2 == y.flag2 && std::memcmp(x.text, y.text, sizeof x.text) == 0 && x.u128 == y.u128 &&
           x.q112_16 == y.q112_16;
  }
};

// The values written. `compressed` reads back as its quantum (kMixedCompressedReadBits), everything else
// exactly.
inline MixedMessage mixed_message_values() {
  MixedMessage m;
  m.flag = true;
  m.three_bits = 5;
  m.degenerate = 7;
  m.small = -3;
  m.nibble = 9;
  m.big = 0x12'3456'789A;
  m.wide = 0xFEDC'BA98'7654'3210;
  m.u8 = 0xA5;
  m.u16 = 0xBEEF;
  m.u32 = 0xDEAD'BEEF;
  m.u64 = 0x0102'0304'0506'0708;
  m.color = Color::kBlue;
  m.q8_8 = -832;                                                   // -3.25 in Q8.8
  m.f32 = std::bit_cast<float>(uint32_t{0x7F80'0001});             // signaling NaN
  m.f64 = std::bit_cast<double>(uint64_t{0x8000'0000'0000'0000});  // -0.0
  m.compressed = 0.105f;
  m.sequence = 105;
  m.far = 105 + 69915;  // a difference one above the last tier: absolute form
  m.inner = Inner{5, false};
  m.block = {std::byte{0xAA}, std::byte{0xBB}, std::byte{0xCC}};
  m.flag2 = true;
  std::memcpy(m.text, "h\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80", 11);  // h U+00E9 U+20AC U+1F600, 10 bytes
  m.u128 = (uint128_t{0x0011'2233'4455'6677} << 64) | 0x8899'AABB'CCDD'EEFF;
  m.q112_16 = -1;  // the smallest negative Q112.16 step
  return m;
}

// 11 / 1000 = 1476395 * 2^-27 in float32, times 10 = 14763950 * 2^-27 exactly, plus 0: 0x3DE147AE.
inline constexpr uint32_t kMixedCompressedReadBits = 0x3DE1'47AE;

// The layout, LSB first (bit k of the stream is bit k%8 of byte k/8):
//
//   bit  width  field                                     bits placed
//     0    1    flag                                      1
//     1    3    three_bits                                5 = 101
//     4    0    int [7,7]                                 nothing
//     4    3    int [-4,3] = -3                           offset 1
//     7    4    int [0,15] = 9                            1001
//    11   40    int64 [0,2^40-1] = 0x123456789A           0x123456789A
//    51   64    bits 64                                   0xFEDCBA9876543210
//   115    8    uint8                                     0xA5
//   123   16    uint16                                    0xBEEF
//   139   32    uint32                                    0xDEADBEEF
//   171   64    uint64                                    0x0102030405060708
//   235    3    enum kBlue in [kRed,kBeta]                2
//   238   16    Q8.8 over [-100,100] = -3.25              -832 + 25600 = 24768 = 0x60C0
//   254   32    float sNaN                                0x7F800001
//   286   64    double -0.0                               0x8000000000000000
//   350   10    compressed 0.105 over [0,10] at 0.01      11 (maxint 1000, 10 bits)
//   360    2    int_relative 100 -> 105: flags            0, 1
//   362    3      int(5, 2, 6)                            3
//   365    6    int_relative 105 -> 70020: flags          0 0 0 0 0 0
//   371   32      absolute                                70020 = 0x11184
//   403    3    inner.a                                   5
//   406    1    inner.b                                   0
//   407    1    align                                     0
//   408   24    bytes                                     AA BB CC
//   432    1    flag2                                     1
//   433    4    string length int(10, 0, 15)              1010
//   437    3    string align                              000
//   440   80    string payload                            68 C3 A9 E2 82 AC F0 9F 98 80
//   520   64    uint128 low half                          0x8899AABBCCDDEEFF
//   584   64    uint128 high half                         0x0011223344556677
//   648   75    Q112.16 over +-2^57 units = -1 raw        -1 + 2^73 = 2^73 - 1: 73 ones, two zeros
//   723    5    check align                               00000
//   728   32    check magic                               0x12345678
//   760         end: 95 bytes
//
// Byte 0 = flag | 101 << 1 | 001 << 4 | (1001 & 1) << 7 = 0x01 | 0x0A | 0x10 | 0x80 = 0x9B. Byte 1 = the
// rest of 1001 (100 at bits 8..10: 0x04) | the low 5 bits of 0x9A (11010) << 3 = 0xD4. Bytes 2..6 continue
// the int64 shifted by 3 (0x123456789A << 3 = 0x91A2B3C4D0 -> D0 C4 B3 A2 91, the 0xD0 being the top
// five bits of byte 1) and so on; every byte below follows from the table by the same rule.
inline constexpr std::array<uint8_t, 95> kMixedMessageBytes = {
    0x9B, 0xD4, 0xC4, 0xB3, 0xA2, 0x91, 0x80, 0x90,  //   0: flag .. int64, bits64 from bit 51
    0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6, 0x2F, 0x7D,  //   8: bits64 (<< 3), u8 from bit 115
    0xF7, 0x7D, 0xF7, 0x6D, 0xF5, 0x46, 0x38, 0x30,  //  16: u16, u32 from 139, u64 from 171
    0x28, 0x20, 0x18, 0x10, 0x08, 0x10, 0x30, 0x58,  //  24: u64, enum at 235, Q8.8 from 238
    0x00, 0x00, 0xE0, 0x1F, 0x00, 0x00, 0x00, 0x00,  //  32: float from 254, double from 286
    0x00, 0x00, 0x00, 0xE0, 0x02, 0x0E, 0x20, 0x8C,  //  40: double, compressed at 350, relatives
    0x08, 0x00, 0x28, 0xAA, 0xBB, 0xCC, 0x15, 0x68,  //  48: absolute, inner, bytes at 51, flag2+len
    0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98,  //  56: string payload from byte 55
    0x80, 0xFF, 0xEE, 0xDD, 0xCC, 0xBB, 0xAA, 0x99,  //  64: uint128 low half from byte 65
    0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,  //  72: uint128 high half from byte 73
    0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,  //  80: Q112.16 from byte 81
    0xFF, 0xFF, 0x01, 0x78, 0x56, 0x34, 0x12,        //  88: Q112.16 top bits, check magic
};
inline constexpr size_t kMixedMessageBits = 760;

// The wire groups a reader takes in one step, in order: where each starts and how wide it is. A cut
// stream fails at the first group that does not fit. 64-bit groups are read whole; a group above 64 bits
// (128-bit values) is read as its low 64 bits, then the rest. Alignment padding is left out: it never
// crosses a byte boundary, so it cannot be what runs past the end of a stream cut at a byte.
struct WireGroup {
  size_t start;
  size_t width;
};
inline constexpr WireGroup kMixedMessageGroups[] = {
    {0, 1},    {1, 3},   {4, 3},    {7, 4},    {11, 40},  {51, 64},  {115, 8},  {123, 16}, {139, 32},
    {171, 64}, {235, 3}, {238, 16}, {254, 32}, {286, 64}, {350, 10}, {360, 1},  {361, 1},  {362, 3},
    {365, 1},  {366, 1}, {367, 1},  {368, 1},  {369, 1},  {370, 1},  {371, 32}, {403, 3},  {406, 1},
    {408, 24}, {432, 1}, {433, 4},  {440, 80}, {520, 64}, {584, 64}, {648, 64}, {712, 11}, {728, 32},
};

}  // namespace bitwire::test
