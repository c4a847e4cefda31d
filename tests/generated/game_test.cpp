// The generated code of schemas/game.net and schemas/common.net: every struct and message round-trips
// random values within their declared ranges, reads into dirty objects reset what they must, truncated
// buffers fail cleanly, and MaxBits bounds (and is reached by) every encoding.
#include <gtest/gtest.h>

#include <cmath>

#include "codec_checks.hpp"
#include "support/seed.hpp"
#include "values.hpp"

namespace {

using namespace bitwire::test::gen;

template <typename T>
class GameCodec : public ::testing::Test {};

using GameTypes = ::testing::Types<common::Position, common::Velocity, common::Orientation, game::EntityState,
                                   game::GameEvent, game::PlayerInput, game::Snapshot, game::Events,
                                   game::ScoreUpdate, game::Chat, game::LevelLoad>;
TYPED_TEST_SUITE(GameCodec, GameTypes, ProfileNames);

TYPED_TEST(GameCodec, RandomValuesRoundTripExactly) {
  BITWIRE_SEEDED_TEST_SEED(0x6a6d'0001);
  check_random_objects<TypeParam>(seed, scaled(Profile<TypeParam>::kObjects));
}

TYPED_TEST(GameCodec, WorstCaseReachesMaxBitsAndFitsItAtEveryOffset) {
  BITWIRE_SEEDED_TEST_SEED(0x6a6d'0002);
  Draws draws(seed);
  for (int i = 0; i < scaled(20); ++i) {
    const TypeParam worst = draw<TypeParam>(draws, Fill::kWorst);
    check_worst_case(worst, Profile<TypeParam>::kSlack, Profile<TypeParam>::kAligns);
    check_truncations(worst, draw<TypeParam>(draws, Fill::kScribble), static_cast<size_t>(i) % 64);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Compressed floats anywhere in (and beyond) their range: the first write quantizes (and clamps), after
// which the value is a fixed point: read, write and read again change nothing.
TYPED_TEST(GameCodec, ArbitraryFloatsQuantizeOnce) {
  BITWIRE_SEEDED_TEST_SEED(0x6a6d'0003);
  Draws draws(seed);
  draws.set_any_floats(true);
  for (int i = 0; i < scaled(500); ++i) {
    const TypeParam original = draw<TypeParam>(draws, Fill::kRandom);
    const Encoded first = encode(original, static_cast<size_t>(i) % 64);
    TypeParam once{};
    ASSERT_TRUE(decode(first.bytes, first.offset, once).ok) << describe(original);
    const Encoded second = encode(once, first.offset);
    EXPECT_EQ(second.bytes, first.bytes) << describe(original);
    TypeParam twice{};
    ASSERT_TRUE(decode(second.bytes, second.offset, twice).ok);
    EXPECT_TRUE(twice == once) << describe(once) << "\n" << describe(twice);
  }
}

// ---- what a read resets, spelled out for the game's messages ----

game::EntityState scribbled_entity(uint64_t seed) {
  Draws draws(seed, Fill::kScribble);
  return draw<game::EntityState>(draws);
}

template <typename T>
T round_trip_into(const T& written, T destination) {
  const Encoded encoded = encode(written, 5);
  EXPECT_TRUE(decode(encoded.bytes, encoded.offset, destination).ok);
  return destination;
}

TEST(GameReset, UntakenSidesReadAsTheirDefaults) {
  BITWIRE_SEEDED_TEST_SEED(0x6a6d'0004);
  game::EntityState projectile;
  projectile.kind = game::EntityKind::Projectile;
  projectile.at_rest = true;
  projectile.id = 9;
  game::EntityState dirty = scribbled_entity(seed);
  // Every member checked below starts away from its default.
  dirty.health = 5;
  dirty.weapon = game::Weapon::Shotgun;
  dirty.clips = 4;
  dirty.fuel = 6;
  dirty.occupants = 2;
  dirty.velocity.x = 1.0f;
  const game::EntityState read = round_trip_into(projectile, dirty);
  EXPECT_EQ(read.id, 9);
  EXPECT_EQ(read.health, 100) << "declared default";
  EXPECT_EQ(read.weapon, game::Weapon::Pistol) << "declared default";
  EXPECT_EQ(read.clips, 0);
  EXPECT_EQ(read.fuel, 100);
  EXPECT_EQ(read.occupants, 0);
  EXPECT_TRUE(read.velocity == common::Velocity{}) << "at rest: no velocity";
  EXPECT_TRUE(read == projectile);

  game::GameEvent hit;
  hit.kind = game::EventKind::Hit;
  hit.attacker = 3;
  hit.damage = 250;
  Draws draws(seed, Fill::kScribble);
  game::GameEvent dirty_event = draw<game::GameEvent>(draws);
  dirty_event.kind = game::EventKind::Sound;
  dirty_event.killer = 12;
  dirty_event.weapon = game::Weapon::Rifle;
  dirty_event.where.x = 2.0f;
  const game::GameEvent read_event = round_trip_into(hit, dirty_event);
  EXPECT_EQ(read_event.damage, 250);
  EXPECT_EQ(read_event.killer, 0);
  EXPECT_EQ(read_event.weapon, game::Weapon::Fists);
  EXPECT_TRUE(read_event.where == common::Position{});
}

TEST(GameReset, AbsentOptionalsAreReset) {
  BITWIRE_SEEDED_TEST_SEED(0x6a6d'0005);
  Draws draws(seed, Fill::kScribble);
  game::PlayerInput input_dirty = draw<game::PlayerInput>(draws);
  input_dirty.has_switch_to = true;
  input_dirty.switch_to = game::Weapon::RocketLauncher;
  game::PlayerInput input;
  input.tick = 77;
  const game::PlayerInput input_read = round_trip_into(input, input_dirty);
  EXPECT_FALSE(input_read.has_switch_to);
  EXPECT_EQ(input_read.switch_to, game::Weapon::Fists);

  game::LevelLoad level_dirty = draw<game::LevelLoad>(draws);
  level_dirty.has_settings = true;
  level_dirty.settings.resize(9);
  level_dirty.level = "somewhere";
  level_dirty.max_players = 3;
  level_dirty.player_names.resize(2);
  game::LevelLoad level;
  const game::LevelLoad level_read = round_trip_into(level, level_dirty);
  EXPECT_FALSE(level_read.has_settings);
  EXPECT_EQ(level_read.settings.size(), 0u);
  EXPECT_EQ(level_read.level, "arena");
  EXPECT_EQ(level_read.max_players, 16);
  EXPECT_EQ(level_read.player_names.size(), 0u);
}

TEST(GameReset, VariableArraysTakeTheCountRead) {
  BITWIRE_SEEDED_TEST_SEED(0x6a6d'0006);
  Draws draws(seed, Fill::kWorst);
  const game::Snapshot full = draw<game::Snapshot>(draws);
  ASSERT_EQ(full.entities.size(), 64u);
  game::Snapshot small;
  small.entities.resize(3);
  for (auto& entity : small.entities) fill(draws, entity);
  const game::Snapshot read = round_trip_into(small, full);
  EXPECT_EQ(read.entities.size(), 3u);
  EXPECT_TRUE(read == small);
  const game::Snapshot empty = round_trip_into(game::Snapshot{}, full);
  EXPECT_EQ(empty.entities.size(), 0u);
}

TEST(GameReset, SparseScoresAreADeltaAndClearTheChangedFlags) {
  game::ScoreUpdate dirty;
  dirty.scores.fill(7);
  dirty.scores_changed.fill(true);
  game::ScoreUpdate update;
  update.scores[3] = -1000;
  update.scores_changed[3] = true;
  update.scores[63] = 100000;
  update.scores_changed[63] = true;
  const game::ScoreUpdate read = round_trip_into(update, dirty);
  for (size_t i = 0; i < 64; ++i) {
    const bool sent = i == 3 || i == 63;
    EXPECT_EQ(read.scores_changed[i], sent) << i;
    if (!sent) {
      EXPECT_EQ(read.scores[i], 7) << "unsent element " << i << " keeps its value";
    }
  }
  EXPECT_EQ(read.scores[3], -1000);
  EXPECT_EQ(read.scores[63], 100000);
}

// Exact sizes of hand-picked messages, from the wire rules: a change in any width shows here.
TEST(GameSizes, KnownObjectsTakeTheBitsTheRulesGive) {
  game::PlayerInput input;  // 32 tick + 10 buttons + 16 yaw + 15 pitch + 1 presence
  EXPECT_EQ(measure(input), 74u);
  input.has_switch_to = true;  // + 3 weapon
  EXPECT_EQ(measure(input), 77u);
  game::EntityState entity;  // 6 + 2 + 45 + 32 + 1 + 36 velocity + 7 + 3 + 3 (player)
  EXPECT_EQ(measure(entity), 135u);
  entity.at_rest = true;
  entity.kind = game::EntityKind::Pickup;
  EXPECT_EQ(measure(entity), 86u);
  game::ScoreUpdate scores;  // 7-bit count, then per element its position step and 17 bits
  EXPECT_EQ(measure(scores), 7u);
  scores.scores_changed[0] = true;   // +1: flag "1"
  scores.scores_changed[2] = true;   // +5: "01" + 3 bits
  scores.scores_changed[63] = true;  // +13: "0001" + 9 bits for a step of 61
  EXPECT_EQ(measure(scores), 7u + 3 * 17 + 1 + 5 + 13);
  game::Chat chat;  // 6 + 2 + 8-bit length + align + 5 bytes
  chat.text = "hello";
  EXPECT_EQ(measure(chat), 6u + 2 + 8 + 7 + 40);
  EXPECT_EQ(encode(chat, 0).bits, 56u);  // 16 bits already aligned: no padding
  EXPECT_EQ(encode(chat, 3).bits, 61u);  // 19 bits: 5 bits of padding
}

}  // namespace

// common.net declares Position, Velocity and Orientation `delta struct`: game's EntityState (another
// package) sends them by their delta form, a moved coordinate relative to the baseline's, not the whole
// 45-bit position.
TEST(GameDelta, AnEntityMovedOneStepSendsItsPositionRelative) {
  game::Snapshot base;
  base.tick = 7;
  base.entities.resize(1);
  game::EntityState& e = base.entities[0];
  e.position = {100.0f, 12.5f, -40.0f};
  e.at_rest = true;
  game::Snapshot moved = base;
  moved.entities[0].position.x = 100.125f;  // one step of 1/8 m
  const auto bits = [&](const game::Snapshot& value) {
    bitwire::MeasureStream stream;
    EXPECT_TRUE(value.serialize_delta(stream, base));
    return stream.bits_processed();
  };
  // Snapshot: changed bit, tick and last_input_tick unchanged (1 + 1), entities: same count (1), one
  // changed (int(c, 0, 1): 1 bit), its position p = 1 (1 bit). EntityState: id, kind unchanged (1 + 1),
  // position (below), orientation, at_rest unchanged (1 + 1), the Player side's three fields unchanged.
  // Position: changed bit, then x: changed, selector 0 and ceil(15 / 4) = 4 bits; y, z unchanged (1 + 1).
  EXPECT_EQ(bits(moved), 1u + 2 + 1 + 1 + 1 + 2 + (1 + (1 + 2 + 4) + 1 + 1) + 2 + 3);
  EXPECT_EQ(bits(base), 1u);

  game::Snapshot back;
  std::array<std::byte, game::Snapshot::MaxDeltaBytes> buffer{};
  bitwire::WriteStream write{buffer};
  ASSERT_TRUE(moved.serialize_delta(write, base));
  write.flush();
  bitwire::ReadStream read{std::span<const std::byte>(buffer.data(), write.bytes_processed())};
  ASSERT_TRUE(back.serialize_delta(read, base)) << bitwire::to_string(read.error());
  EXPECT_TRUE(back == moved);
}
