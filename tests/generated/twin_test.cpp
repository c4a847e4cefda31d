// Hand-written twins of game messages, written directly with bitwire::serialize_* calls from the schema
// text (enums as plain ranged integers, flags as raw bits, the sparse array as an explicit loop). For
// random values at random bit offsets the generated code and the twin write identical bytes, measure
// the same, and read each other's output back to the same values.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <string>

#include "codec_checks.hpp"
#include "support/seed.hpp"
#include "values.hpp"

namespace {

using namespace bitwire::test::gen;
using bitwire::serialize_bits;
using bitwire::serialize_bool;
using bitwire::serialize_compressed_float;
using bitwire::serialize_int;

// ---- the twins ----

struct TwinVec3 {
  float x = 0, y = 0, z = 0;

  template <typename Stream>
  bool serialize(Stream& s, float extent, float resolution) {
    BITWIRE_TRY(serialize_compressed_float(s, x, -extent, extent, resolution));
    BITWIRE_TRY(serialize_compressed_float(s, y, -extent, extent, resolution));
    BITWIRE_TRY(serialize_compressed_float(s, z, -extent, extent, resolution));
    return true;
  }
};

struct TwinPlayerInput {
  static constexpr size_t MaxBytes = game::PlayerInput::MaxBytes;  // buffer room only
  uint32_t tick = 0;
  uint16_t buttons = 0;
  float yaw = 0, pitch = 0;
  bool has_switch_to = false;
  uint8_t switch_to = 0;

  template <typename Stream>
  bool serialize(Stream& s) {
    BITWIRE_TRY(serialize_bits(s, tick, 32));
    BITWIRE_TRY(serialize_bits(s, buttons, 10));
    BITWIRE_TRY(serialize_compressed_float(s, yaw, -180.0f, 180.0f, 0.01f));
    BITWIRE_TRY(serialize_compressed_float(s, pitch, -90.0f, 90.0f, 0.01f));
    BITWIRE_TRY(serialize_bool(s, has_switch_to));
    if (has_switch_to) BITWIRE_TRY(serialize_int(s, switch_to, 0, 4));
    return true;
  }
};

struct TwinEntity {
  static constexpr size_t MaxBytes = game::EntityState::MaxBytes;  // buffer room only
  uint8_t id = 0, kind = 0;
  TwinVec3 position;
  uint8_t largest = 0;
  int16_t a = 0, b = 0, c = 0;
  bool at_rest = false;
  TwinVec3 velocity;
  uint8_t health = 100, weapon = 1, clips = 0, fuel = 100, occupants = 0;

  template <typename Stream>
  bool serialize(Stream& s) {
    BITWIRE_TRY(serialize_int(s, id, 0, 63));
    BITWIRE_TRY(serialize_int(s, kind, 0, 3));
    BITWIRE_TRY(position.serialize(s, 1024.0f, 0.125f));
    BITWIRE_TRY(serialize_bits(s, largest, 2));
    BITWIRE_TRY(serialize_int(s, a, -511, 511));
    BITWIRE_TRY(serialize_int(s, b, -511, 511));
    BITWIRE_TRY(serialize_int(s, c, -511, 511));
    BITWIRE_TRY(serialize_bool(s, at_rest));
    if (!at_rest) BITWIRE_TRY(velocity.serialize(s, 32.0f, 0.03125f));
    if (kind == 0) {  // Player
      BITWIRE_TRY(serialize_int(s, health, 0, 100));
      BITWIRE_TRY(serialize_int(s, weapon, 0, 4));
      BITWIRE_TRY(serialize_int(s, clips, 0, 7));
    } else if (kind == 3) {  // Vehicle
      BITWIRE_TRY(serialize_int(s, fuel, 0, 100));
      BITWIRE_TRY(serialize_int(s, occupants, 0, 3));
    }
    return true;
  }
};

struct TwinSnapshot {
  static constexpr size_t MaxBytes = game::Snapshot::MaxBytes;  // buffer room only
  uint32_t tick = 0, last_input_tick = 0;
  uint32_t count = 0;
  std::array<TwinEntity, 64> entities{};

  template <typename Stream>
  bool serialize(Stream& s) {
    BITWIRE_TRY(serialize_bits(s, tick, 32));
    BITWIRE_TRY(serialize_bits(s, last_input_tick, 32));
    BITWIRE_TRY(serialize_int(s, count, 0, 64));
    for (uint32_t i = 0; i < count; ++i) BITWIRE_TRY(entities[i].serialize(s));
    return true;
  }
};

// The sparse array as the schema language documents it: the count of changed elements, then for each
// its position (index + 1) relative to the previous one, then the element.
struct TwinScoreUpdate {
  static constexpr size_t MaxBytes = game::ScoreUpdate::MaxBytes;  // buffer room only
  std::array<int32_t, 64> scores{};
  std::array<bool, 64> changed{};

  template <typename Stream>
  bool serialize(Stream& s) {
    uint32_t count = 0;
    for (bool c : changed) count += c ? 1 : 0;
    BITWIRE_TRY(serialize_int(s, count, 0, 64));
    uint32_t previous = 0;
    for (uint32_t index = 0; index < 64; ++index) {
      if (!changed[index]) continue;
      uint32_t position = index + 1;
      BITWIRE_TRY(bitwire::serialize_int_relative(s, previous, position));
      BITWIRE_TRY(serialize_int(s, scores[index], -1000, 100000));
      previous = position;
    }
    return true;
  }
};

struct TwinChat {
  static constexpr size_t MaxBytes = game::Chat::MaxBytes;  // buffer room only
  uint8_t sender = 0, channel = 0, recipient = 0;
  char text[201] = {};

  template <typename Stream>
  bool serialize(Stream& s) {
    BITWIRE_TRY(serialize_int(s, sender, 0, 63));
    BITWIRE_TRY(serialize_int(s, channel, 0, 2));
    if (channel == 2) BITWIRE_TRY(serialize_int(s, recipient, 0, 63));
    BITWIRE_TRY(bitwire::serialize_string(s, text));
    return true;
  }
};

// ---- conversions between generated objects and twins ----

template <typename Position>
TwinVec3 twin_of_vec(const Position& p) {
  return {p.x, p.y, p.z};
}

TwinPlayerInput twin_of(const game::PlayerInput& v) {
  return {v.tick,          static_cast<uint16_t>(v.buttons), v.yaw, v.pitch,
          v.has_switch_to, static_cast<uint8_t>(v.switch_to)};
}

TwinEntity twin_of(const game::EntityState& v) {
  TwinEntity t;
  t.id = v.id;
  t.kind = static_cast<uint8_t>(v.kind);
  t.position = twin_of_vec(v.position);
  t.largest = v.orientation.largest;
  t.a = v.orientation.a;
  t.b = v.orientation.b;
  t.c = v.orientation.c;
  t.at_rest = v.at_rest;
  t.velocity = twin_of_vec(v.velocity);
  t.health = static_cast<uint8_t>(v.health);
  t.weapon = static_cast<uint8_t>(v.weapon);
  t.clips = v.clips;
  t.fuel = static_cast<uint8_t>(v.fuel);
  t.occupants = v.occupants;
  return t;
}

TwinSnapshot twin_of(const game::Snapshot& v) {
  TwinSnapshot t;
  t.tick = v.tick;
  t.last_input_tick = v.last_input_tick;
  t.count = static_cast<uint32_t>(v.entities.size());
  for (size_t i = 0; i < v.entities.size(); ++i) t.entities[i] = twin_of(v.entities[i]);
  return t;
}

TwinScoreUpdate twin_of(const game::ScoreUpdate& v) {
  return {v.scores, v.scores_changed};
}

TwinChat twin_of(const game::Chat& v) {
  TwinChat t{v.sender, static_cast<uint8_t>(v.channel), v.recipient, {}};
  std::memcpy(t.text, v.text.c_str(), v.text.size() + 1);
  return t;
}

// Field-by-field equality of a twin read back with the twin it came from (twins have no operator==).
bool same(const TwinVec3& a, const TwinVec3& b) {
  return a.x == b.x && a.y == b.y && a.z == b.z;
}
bool same(const TwinPlayerInput& a, const TwinPlayerInput& b) {
  return a.tick == b.tick && a.buttons == b.buttons && a.yaw == b.yaw && a.pitch == b.pitch &&
         a.has_switch_to == b.has_switch_to && (!a.has_switch_to || a.switch_to == b.switch_to);
}
bool same(const TwinEntity& a, const TwinEntity& b) {
  bool equal = a.id == b.id && a.kind == b.kind && same(a.position, b.position) && a.largest == b.largest &&
               a.a == b.a && a.b == b.b && a.c == b.c && a.at_rest == b.at_rest;
  if (!a.at_rest) equal = equal && same(a.velocity, b.velocity);
  if (a.kind == 0) equal = equal && a.health == b.health && a.weapon == b.weapon && a.clips == b.clips;
  if (a.kind == 3) equal = equal && a.fuel == b.fuel && a.occupants == b.occupants;
  return equal;
}
bool same(const TwinSnapshot& a, const TwinSnapshot& b) {
  if (a.tick != b.tick || a.last_input_tick != b.last_input_tick || a.count != b.count) return false;
  for (uint32_t i = 0; i < a.count; ++i) {
    if (!same(a.entities[i], b.entities[i])) return false;
  }
  return true;
}
bool same(const TwinScoreUpdate& a, const TwinScoreUpdate& b) {
  for (size_t i = 0; i < 64; ++i) {
    if (a.changed[i] != b.changed[i] || (a.changed[i] && a.scores[i] != b.scores[i])) return false;
  }
  return true;
}
bool same(const TwinChat& a, const TwinChat& b) {
  return a.sender == b.sender && a.channel == b.channel && (a.channel != 2 || a.recipient == b.recipient) &&
         std::string(a.text) == std::string(b.text);
}

// Reads a sparse twin: it has no reader of its own (the generated one is the reader under test), so
// this one decodes the documented form with the runtime primitives.
bool read_twin(bitwire::ReadStream& s, TwinScoreUpdate& t) {
  uint32_t count = 0;
  BITWIRE_TRY(serialize_int(s, count, 0, 64));
  t.changed = {};
  uint32_t previous = 0;
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t position = 0;
    BITWIRE_TRY(bitwire::serialize_int_relative(s, previous, position));
    if (position > 64) return false;
    t.changed[position - 1] = true;
    BITWIRE_TRY(serialize_int(s, t.scores[position - 1], -1000, 100000));
    previous = position;
  }
  return true;
}
template <typename Twin>
bool read_twin(bitwire::ReadStream& s, Twin& t) {
  return t.serialize(s);
}

template <typename Generated>
void check_twin(uint64_t seed, int count) {
  Draws draws(seed);
  bitwire::Random rng(seed + 1);
  for (int i = 0; i < count; ++i) {
    const Generated value = draw<Generated>(draws, i % 8 == 0 ? Fill::kWorst : Fill::kRandom);
    const auto twin = twin_of(value);
    const size_t offset = rng.below(64);
    const uint64_t prefix = rng.next();

    // Same bytes, same measure.
    const Encoded generated = encode(value, offset, prefix);
    const Encoded hand = encode(twin, offset, prefix);
    ASSERT_EQ(generated.bytes, hand.bytes) << "offset " << offset << ": " << describe(value);
    ASSERT_EQ(generated.bits, hand.bits);
    EXPECT_EQ(measure(value), measure(twin));

    // The generated reader reads the twin's bytes; the twin reads the generated bytes.
    Generated read{};
    ASSERT_TRUE(decode(hand.bytes, offset, read).ok);
    EXPECT_TRUE(read == value) << describe(value) << "\n" << describe(read);
    bitwire::ReadStream stream(generated.bytes);
    ASSERT_TRUE(skip_bits(stream, offset));
    decltype(twin_of(value)) twin_read{};
    ASSERT_TRUE(read_twin(stream, twin_read));
    EXPECT_EQ(stream.bits_processed(), offset + generated.bits);
    EXPECT_TRUE(same(twin_read, twin)) << describe(value);
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(HandWrittenTwin, PlayerInputBytesEqualTheGeneratedCode) {
  BITWIRE_SEEDED_TEST_SEED(0x7717'0001);
  check_twin<game::PlayerInput>(seed, scaled(5000));
}

TEST(HandWrittenTwin, EntityStateBytesEqualTheGeneratedCode) {
  BITWIRE_SEEDED_TEST_SEED(0x7717'0002);
  check_twin<game::EntityState>(seed, scaled(5000));
}

TEST(HandWrittenTwin, SnapshotBytesEqualTheGeneratedCode) {
  BITWIRE_SEEDED_TEST_SEED(0x7717'0003);
  check_twin<game::Snapshot>(seed, scaled(500));
}

TEST(HandWrittenTwin, SparseScoreUpdateBytesEqualTheGeneratedCode) {
  BITWIRE_SEEDED_TEST_SEED(0x7717'0004);
  check_twin<game::ScoreUpdate>(seed, scaled(2000));
}

TEST(HandWrittenTwin, ChatBytesEqualTheGeneratedCode) {
  BITWIRE_SEEDED_TEST_SEED(0x7717'0005);
  check_twin<game::Chat>(seed, scaled(2000));
}

}  // namespace
