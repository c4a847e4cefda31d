// Reads of untrusted bytes refuse what the schema does not allow: a value above its range, an enum value
// outside its set (holes included), a count or length out of bounds, a sparse position past the array,
// a relative position that does not increase, non-zero alignment padding, invalid UTF-8 and NUL inside
// strings. Each case takes a valid encoding, overwrites one field's bits (or writes the stream by hand),
// and checks the error and the bit where the refused value starts. The bit positions come from the wire
// rules (docs/wire-format.md) and the schemas; the bound just inside the range must still read.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <initializer_list>
#include <vector>

#include "codec_checks.hpp"
#include "support/seed.hpp"
#include "values.hpp"

namespace {

using namespace bitwire::test::gen;
using bitwire::ReadError;
namespace dc = demo::constructs;

// Sets stream bits [at, at + width) to the low bits of `value` (bit k is bit k % 8 of byte k / 8).
void patch_bits(std::vector<std::byte>& bytes, size_t at, int width, uint64_t value) {
  for (int i = 0; i < width; ++i) {
    const size_t bit = at + static_cast<size_t>(i);
    ASSERT_LT(bit / 8, bytes.size());
    const auto mask = static_cast<std::byte>(1u << (bit % 8));
    if ((value >> i) & 1) {
      bytes[bit / 8] |= mask;
    } else {
      bytes[bit / 8] &= ~mask;
    }
  }
}

// Start offsets each case runs at. Byte multiples keep the layout after an alignment unchanged; fields
// before any alignment also run at odd offsets.
const std::initializer_list<size_t> kAlignedOffsets = {0, 8, 56};
const std::initializer_list<size_t> kAnyOffsets = {0, 3, 8, 13, 61};

template <typename T>
Decoded read_patched(const T& value, size_t offset, size_t at, int width, uint64_t bits) {
  Encoded encoded = encode(value, offset, 0xA5A5A5A5A5A5A5A5ull);
  patch_bits(encoded.bytes, offset + at, width, bits);
  Draws draws(offset, Fill::kScribble);
  T destination = draw<T>(draws);
  return decode(encoded.bytes, offset, destination);
}

// The field of `width` bits at `at` (from the object's start) accepts `accepted` and refuses each of
// `refused` with `error`, reported at `error_at` (the start of the refused value; `at` when ~0).
template <typename T>
void expect_field_refusals(const T& value, size_t at, int width, std::initializer_list<uint64_t> accepted,
                           std::initializer_list<uint64_t> refused, ReadError error, bool after_align = false,
                           size_t error_at = ~size_t{0}) {
  if (error_at == ~size_t{0}) error_at = at;
  for (size_t offset : after_align ? kAlignedOffsets : kAnyOffsets) {
    SCOPED_TRACE("offset " + std::to_string(offset) + ", field at bit " + std::to_string(at));
    for (uint64_t bits : accepted) {
      const Decoded decoded = read_patched(value, offset, at, width, bits);
      EXPECT_TRUE(decoded.ok) << "value " << bits << " refused: " << to_string(decoded.error) << " at "
                              << decoded.error_bit;
    }
    for (uint64_t bits : refused) {
      const Decoded decoded = read_patched(value, offset, at, width, bits);
      EXPECT_FALSE(decoded.ok) << "value " << bits << " accepted";
      EXPECT_EQ(decoded.error, error) << "value " << bits << ": " << to_string(decoded.error);
      EXPECT_EQ(decoded.error_bit, offset + error_at) << "value " << bits;
    }
  }
}

// A stream written by hand (`write` gets a WriteStream), followed by zero bytes so that the refusal,
// not the end of the buffer, stops the read.
template <typename T>
void expect_crafted_refusal(const std::function<void(bitwire::WriteStream&)>& write, ReadError error,
                            size_t error_bit) {
  std::vector<std::byte> bytes(2 * T::MaxBytes + 64);
  bitwire::WriteStream stream(bytes);
  write(stream);
  stream.flush();
  Draws draws(7, Fill::kScribble);
  T destination = draw<T>(draws);
  const Decoded decoded = decode(bytes, 0, destination);
  EXPECT_FALSE(decoded.ok);
  EXPECT_EQ(decoded.error, error) << to_string(decoded.error);
  EXPECT_EQ(decoded.error_bit, error_bit);
}

template <typename T>
void put_int(bitwire::WriteStream& stream, T value, T min, T max) {
  bitwire::serialize_int(stream, value, min, max);
}

// ---- common and game ----

TEST(GameRefusal, PlayerInputRangesAndEnum) {
  game::PlayerInput input;
  input.has_switch_to = true;
  // tick 0..31, buttons 32..41, yaw 42..57 (36001 steps), pitch 58..72 (18001 steps), presence 73,
  // weapon 74..76.
  expect_field_refusals(input, 42, 16, {0, 36000}, {36001, 65535}, ReadError::kValueOutOfRange);
  expect_field_refusals(input, 58, 15, {0, 18000}, {18001, 32767}, ReadError::kValueOutOfRange);
  expect_field_refusals(input, 74, 3, {0, 4}, {5, 6, 7}, ReadError::kInvalidEnum);
  // All ten flag bits are legal.
  expect_field_refusals(input, 32, 10, {0, 1023}, {}, ReadError::kNone);
}

TEST(GameRefusal, EntityStateRangesEnumsAndCompressedFloats) {
  game::EntityState entity;  // a player in motion: every field is on the wire
  // id 0..5, kind 6..7, position 8..52 (15 bits per axis, 16385 steps), orientation 53..84 (largest 2
  // bits, then three 10-bit [-511, 511]), at_rest 85, velocity 86..121 (12 bits per axis, 2049 steps),
  // health 122..128 [0, 100], weapon 129..131, clips 132..134.
  for (size_t axis = 0; axis < 3; ++axis) {
    expect_field_refusals(entity, 8 + 15 * axis, 15, {0, 16384}, {16385, 32767}, ReadError::kValueOutOfRange);
    expect_field_refusals(entity, 55 + 10 * axis, 10, {0, 1022}, {1023}, ReadError::kValueOutOfRange);
    expect_field_refusals(entity, 86 + 12 * axis, 12, {0, 2048}, {2049, 4095}, ReadError::kValueOutOfRange);
  }
  expect_field_refusals(entity, 122, 7, {0, 100}, {101, 127}, ReadError::kValueOutOfRange);
  expect_field_refusals(entity, 129, 3, {0, 4}, {5, 7}, ReadError::kInvalidEnum);
  game::EntityState vehicle;
  vehicle.kind = game::EntityKind::Vehicle;
  vehicle.at_rest = true;  // fuel follows at_rest directly: 86..92
  expect_field_refusals(vehicle, 86, 7, {0, 100}, {101, 127}, ReadError::kValueOutOfRange);
}

TEST(GameRefusal, SnapshotAndEventsCountsAndNestedFields) {
  game::Snapshot snapshot;  // tick 0..31, last_input_tick 32..63, count 64..70 [0, 64]
  expect_field_refusals(snapshot, 64, 7, {0}, {65, 127}, ReadError::kInvalidCount);
  snapshot.entities.resize(1);  // entity 0 starts at 71: its health at 71 + 122
  expect_field_refusals(snapshot, 71 + 122, 7, {100}, {101}, ReadError::kValueOutOfRange);

  game::Events events;  // tick 0..31, count 32..35 [1, 16]: every 4-bit count is legal
  events.events.resize(1);
  events.events[0].kind = game::EventKind::Hit;
  events.events[0].damage = 1;
  // Event 0 at 36: kind 36..37, subject 38..43, attacker 44..49, damage 50..57 [1, 250].
  expect_field_refusals(events, 50, 8, {0, 249}, {250, 255}, ReadError::kValueOutOfRange);
  events.events[0].kind = game::EventKind::Death;  // killer 44..49, weapon 50..52
  expect_field_refusals(events, 50, 3, {4}, {5, 7}, ReadError::kInvalidEnum);
}

TEST(GameRefusal, ScoreUpdateCountsPositionsAndScores) {
  game::ScoreUpdate update;  // count 0..6 [0, 64]
  expect_field_refusals(update, 0, 7, {0}, {65, 127}, ReadError::kInvalidCount);
  update.scores_changed[0] = true;  // count, position step "1" at 7, score 8..24 (101001 steps)
  expect_field_refusals(update, 8, 17, {0, 101000}, {101001, 131071}, ReadError::kValueOutOfRange);

  // Count 1, position 65 (one past the array) as a relative step from 0: refused where the step starts.
  expect_crafted_refusal<game::ScoreUpdate>(
      [](bitwire::WriteStream& s) {
        put_int<uint32_t>(s, 1, 0, 64);
        uint32_t position = 65;
        bitwire::serialize_int_relative(s, 0, position);
      },
      ReadError::kInvalidCount, 7);
  // Count 2: position 64, then 65.
  expect_crafted_refusal<game::ScoreUpdate>(
      [](bitwire::WriteStream& s) {
        put_int<uint32_t>(s, 2, 0, 64);
        uint32_t position = 64;
        bitwire::serialize_int_relative(s, 0, position);  // "0001" + 9 bits: 13 bits, 7..19
        put_int<int32_t>(s, 5, -1000, 100000);            // 20..36
        position = 65;
        bitwire::serialize_int_relative(s, 64, position);
      },
      ReadError::kInvalidCount, 37);
  // Count 2: position 5, then an absolute position 3 (the ladder's last tier), which does not increase.
  expect_crafted_refusal<game::ScoreUpdate>(
      [](bitwire::WriteStream& s) {
        put_int<uint32_t>(s, 2, 0, 64);
        uint32_t position = 5;
        bitwire::serialize_int_relative(s, 0, position);  // "01" + 3 bits: 7..11
        put_int<int32_t>(s, 5, -1000, 100000);            // 12..28
        s.write_bits(0, 6);                               // six zero flags: 29..34
        s.write_bits(3, 32);                              // 35..66
      },
      ReadError::kNotIncreasing, 35);
}

TEST(GameRefusal, ChatEnumLengthPaddingAndText) {
  game::Chat chat;
  chat.channel = game::ChatChannel::Whisper;
  chat.text = "abc";
  // sender 0..5, channel 6..7 [0, 2], recipient 8..13, length 14..21 [0, 200], padding 22..23, text 24..
  expect_field_refusals(chat, 6, 2, {2}, {3}, ReadError::kInvalidEnum);
  expect_field_refusals(chat, 14, 8, {3}, {201, 255}, ReadError::kInvalidCount);
  expect_field_refusals(chat, 22, 2, {0}, {1, 2, 3}, ReadError::kNonZeroPadding, true);
  // Text: a lone continuation byte, a truncated sequence, an overlong form, a surrogate and NUL, each
  // refused at the start of the characters (bit 24).
  expect_field_refusals(chat, 24, 8, {'x'}, {0x80, 0xC3, 0xC0}, ReadError::kInvalidUtf8, true);
  expect_field_refusals(chat, 32, 8, {'x'}, {0}, ReadError::kInteriorNul, true, 24);
  chat.text = "\xED\x9F\xBF";  // U+D7FF; one step up is the surrogate U+D800 (ED A0 80)
  expect_field_refusals(chat, 32, 8, {0x9F}, {0xA0}, ReadError::kInvalidUtf8, true, 24);
}

TEST(GameRefusal, LevelLoadLengthsCountsAndPadding) {
  game::LevelLoad level;  // "arena": length 0..6 [0, 64], padding 7, bytes 8..47, checksum 48..79,
                          // max_players 80..85 (all 64 values legal), names count 86..89 [0, 8]
  expect_field_refusals(level, 0, 7, {5}, {65, 127}, ReadError::kInvalidCount);
  expect_field_refusals(level, 7, 1, {0}, {1}, ReadError::kNonZeroPadding, true);
  expect_field_refusals(level, 86, 4, {0}, {9, 15}, ReadError::kInvalidCount, true);
  level.has_settings = true;  // presence 90, length 91..100 [0, 512], padding 101..103
  expect_field_refusals(level, 91, 10, {0}, {513, 1023}, ReadError::kInvalidCount, true);
  expect_field_refusals(level, 101, 3, {0}, {1, 4}, ReadError::kNonZeroPadding, true);
  level.has_settings = false;
  level.player_names.resize(1);  // count 1, name length 90..94 [0, 24]
  expect_field_refusals(level, 90, 5, {0}, {25, 31}, ReadError::kInvalidCount, true);
}

// ---- demo.constructs ----

TEST(ConstructsRefusal, EnumHolesAreRefusedWhereTheValueStarts) {
  dc::Conditions conditions;         // moving 0, mode 1..4: [0, 11] with 2..9 unused
  conditions.mode = dc::Mode::Walk;  // a walk step follows, so Idle (no step) and Walk both read
  expect_field_refusals(conditions, 1, 4, {0, 1}, {2, 5, 9, 12, 15}, ReadError::kInvalidEnum);

  dc::Scalars scalars;  // mode 776..779, offset 780..782 ([-2, 2]: -1 and 1 unused), code 783..790
  ASSERT_EQ(encode(scalars, 0).bits, 794u) << "the positions below assume the default Scalars";
  expect_field_refusals(scalars, 776, 4, {10, 11}, {2, 9, 12, 15}, ReadError::kInvalidEnum, true);
  expect_field_refusals(scalars, 780, 3, {0, 2, 4}, {1, 3, 5, 7}, ReadError::kInvalidEnum, true);
  expect_field_refusals(scalars, 783, 8, {0, 204}, {1, 100, 203, 205, 255}, ReadError::kInvalidEnum, true);
}

TEST(ConstructsRefusal, ScalarsRanges) {
  dc::Scalars scalars;
  // ranged 241..248 [-100, 100], small_range 249..252 [0, 12], ranged_in_storage 253..262 [0, 1000],
  // compressed 396..413 (200001 steps), compressed_from_constants 414..423 (513 steps), q8 424..439
  // (65281 steps).
  expect_field_refusals(scalars, 241, 8, {0, 200}, {201, 255}, ReadError::kValueOutOfRange);
  expect_field_refusals(scalars, 249, 4, {12}, {13, 15}, ReadError::kValueOutOfRange);
  expect_field_refusals(scalars, 253, 10, {1000}, {1001, 1023}, ReadError::kValueOutOfRange);
  expect_field_refusals(scalars, 396, 18, {200000}, {200001, 262143}, ReadError::kValueOutOfRange);
  expect_field_refusals(scalars, 414, 10, {512}, {513, 1023}, ReadError::kValueOutOfRange);
  expect_field_refusals(scalars, 424, 16, {65280}, {65281, 65535}, ReadError::kValueOutOfRange);
  // name: length 696..701 [0, 32], padding 702..703; blob: length 752..756 [0, 16], padding 757..759.
  expect_field_refusals(scalars, 696, 6, {6}, {33, 63}, ReadError::kInvalidCount);
  expect_field_refusals(scalars, 702, 2, {0}, {2}, ReadError::kNonZeroPadding, true);
  expect_field_refusals(scalars, 752, 5, {2}, {17, 31}, ReadError::kInvalidCount, true);
  expect_field_refusals(scalars, 757, 3, {0}, {4}, ReadError::kNonZeroPadding, true);
}

TEST(ConstructsRefusal, ShapesCountsAndSparsePositions) {
  dc::Shapes shapes;
  shapes.path.resize(1);
  // fixed_array 0..31, variable_array count 32..35 [0, 12], path count 36..38 [1, 8] (all legal),
  // path[0] 39..83, health count 84..90 [0, 64], tiny count 91..92 [0, 3] (all legal).
  expect_field_refusals(shapes, 32, 4, {0}, {13, 15}, ReadError::kInvalidCount);
  expect_field_refusals(shapes, 84, 7, {0}, {65, 127}, ReadError::kInvalidCount);
  // tiny: count 1 then a step of 4 from 0 (position 4 of 3), refused at the step (bit 93).
  expect_crafted_refusal<dc::Shapes>(
      [](bitwire::WriteStream& s) {
        s.write_bits(0, 32);
        put_int<uint32_t>(s, 0, 0, 12);
        put_int<uint32_t>(s, 1, 1, 8);
        s.write_bits(0, 45);
        put_int<uint32_t>(s, 0, 0, 64);
        put_int<uint32_t>(s, 1, 0, 3);
        uint32_t position = 4;
        bitwire::serialize_int_relative(s, 0, position);
      },
      ReadError::kInvalidCount, 93);
}

TEST(ConstructsRefusal, DirectivesPadding) {
  dc::Directives directives;  // before 0, padding 1..7
  for (uint64_t bad : {1u, 0x40u, 0x7Fu}) {
    expect_field_refusals(directives, 1, 7, {0}, {bad}, ReadError::kNonZeroPadding, true);
  }
}

// ---- random bytes never crash a read, and a failure says where ----

template <typename T>
void read_noise(uint64_t seed, int count) {
  bitwire::Random rng(seed);
  for (int i = 0; i < count; ++i) {
    std::vector<std::byte> bytes(rng.below(T::MaxBytes + 8));
    for (std::byte& b : bytes) b = static_cast<std::byte>(rng.next());
    T destination{};
    const Decoded decoded = decode(bytes, 0, destination);
    ASSERT_LE(decoded.position, bytes.size() * 8);
    if (decoded.ok) {
      // Whatever was accepted is a legal value: it writes, reads back, and writes the same bytes again
      // (bytes, not operator==: raw floats may hold NaN).
      const Encoded encoded = encode(destination, 0);
      EXPECT_LE(encoded.bits, decoded.bits) << "a re-encoding is never longer than what was read";
      T again{};
      ASSERT_TRUE(decode(encoded.bytes, 0, again).ok);
      EXPECT_EQ(encode(again, 0).bytes, encoded.bytes) << describe(destination);
    } else {
      EXPECT_NE(decoded.error, ReadError::kNone);
      EXPECT_LE(decoded.error_bit, bytes.size() * 8);
    }
  }
}

TEST(Refusal, RandomBytesReadCleanlyOrFailWithAReason) {
  BITWIRE_SEEDED_TEST_SEED(0x4e01'5e);
  const int count = scaled(3000);
  read_noise<game::PlayerInput>(seed, count);
  read_noise<game::Snapshot>(seed + 1, count);
  read_noise<game::Events>(seed + 2, count);
  read_noise<game::ScoreUpdate>(seed + 3, count);
  read_noise<game::Chat>(seed + 4, count);
  read_noise<game::LevelLoad>(seed + 5, count);
  read_noise<dc::Conditions>(seed + 6, count);
  read_noise<dc::Directives>(seed + 7, count);
  read_noise<dc::Everything>(seed + 8, count);
}

}  // namespace
