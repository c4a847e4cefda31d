// New objects hold their defaults (declared, or zero/empty, or the first valid value where zero is not
// one), and a new object is a valid value: it writes, and reads back as itself. Variable arrays with a
// minimum count are the exception: they start empty and the caller fills them (here, to the minimum).
#include <gtest/gtest.h>

#include "codec_checks.hpp"
#include "values.hpp"

namespace {

using namespace bitwire::test::gen;
namespace dc = demo::constructs;

// A new object round-trips: write at several offsets, read into a scribbled object, compare the bytes
// of a second write (and the objects, when every compressed-float default is a quantum).
template <typename T>
void check_new_object_round_trips(const T& value, bool defaults_are_quanta = true) {
  for (size_t offset : {0, 5, 8, 63}) {
    const Encoded encoded = encode(value, offset);
    EXPECT_LE(encoded.bits, measure(value));
    EXPECT_LE(measure(value), T::MaxBits);
    Draws draws(offset, Fill::kScribble);
    T read = draw<T>(draws);
    const Decoded decoded = decode(encoded.bytes, offset, read);
    ASSERT_TRUE(decoded.ok) << to_string(decoded.error) << " at " << decoded.error_bit << ": "
                            << describe(value);
    T expected = value;
    keep_unsent(expected, read);
    if (defaults_are_quanta) {
      EXPECT_TRUE(read == expected) << describe(value) << "\n" << describe(read);
    }
    EXPECT_EQ(encode(read, offset).bytes, encoded.bytes);
  }
}

TEST(Defaults, DeclaredDefaultsAreTheInitialValues) {
  const game::EntityState entity;
  EXPECT_EQ(entity.health, 100);
  EXPECT_EQ(entity.weapon, game::Weapon::Pistol);
  EXPECT_EQ(entity.fuel, 100);
  const game::LevelLoad level;
  EXPECT_EQ(level.level, "arena");
  EXPECT_EQ(level.max_players, 16);
  EXPECT_FALSE(level.has_settings);
  const dc::Scalars scalars;
  EXPECT_TRUE(scalars.flag);
  EXPECT_EQ(scalars.i8, -8);
  EXPECT_EQ(scalars.u8, 8);
  EXPECT_EQ(scalars.ranged, -5);
  EXPECT_EQ(scalars.five_bits, 31);
  EXPECT_EQ(scalars.twelve_signed_bits, -2048);
  EXPECT_EQ(scalars.raw_float, 1.5f);
  EXPECT_EQ(scalars.raw_double, -0.25);
  EXPECT_EQ(scalars.compressed, 12.5f);
  EXPECT_EQ(scalars.q8, 384);  // 1.5 in Q8
  EXPECT_TRUE(scalars.wide_unsigned == 7);
  EXPECT_EQ(scalars.name, "player");
  EXPECT_EQ(scalars.blob.size(), 2u);
  EXPECT_EQ(scalars.blob[0], 1);
  EXPECT_EQ(scalars.blob[1], 2);
  EXPECT_EQ(scalars.mode, dc::Mode::Run);
  EXPECT_EQ(scalars.offset, dc::Offset::Ahead);
}

// Without a declared default a field holds zero when zero is a valid value, else the first valid one:
// an enum's first enumerator, the bound of a range nearest zero.
TEST(Defaults, UndeclaredDefaultsAreValidValues) {
  const dc::Scalars scalars;
  EXPECT_EQ(scalars.code, dc::Code::Ok) << "enum Code { Ok = 200, NotFound = 404 }: its first value, not 0";
  EXPECT_EQ(scalars.constant_value, 7) << "int<7 .. 7>: 0 is not a value of the field";
  EXPECT_EQ(scalars.only, dc::Only::One);
  EXPECT_EQ(scalars.small_range, 0);
  const game::GameEvent event;
  EXPECT_EQ(event.kind, game::EventKind::Hit);
  EXPECT_EQ(event.damage, 1) << "int<1 .. 250>: the bound nearest zero";
  const dc::Conditions conditions;
  EXPECT_EQ(conditions.mode, dc::Mode::Idle);
}

TEST(Defaults, NewObjectsAreValidValues) {
  check_new_object_round_trips(common::Position{});
  check_new_object_round_trips(common::Velocity{});
  check_new_object_round_trips(common::Orientation{});
  check_new_object_round_trips(game::EntityState{});
  check_new_object_round_trips(game::GameEvent{});
  check_new_object_round_trips(game::PlayerInput{});
  check_new_object_round_trips(game::Snapshot{});
  check_new_object_round_trips(game::ScoreUpdate{});
  check_new_object_round_trips(game::Chat{});
  check_new_object_round_trips(game::LevelLoad{});
  // `compressed = 12.5` is not one of its field's quanta (it reads back as the nearest one).
  check_new_object_round_trips(dc::Scalars{}, false);
  check_new_object_round_trips(dc::Ping{});
  check_new_object_round_trips(dc::Conditions{});
  check_new_object_round_trips(dc::Directives{});
}

TEST(Defaults, ArraysWithAMinimumCountFilledWithNewElementsAreValid) {
  game::Events events;  // events[1 .. 16]
  events.events.resize(1);
  check_new_object_round_trips(events);
  dc::Shapes shapes;  // path[1 .. 8]
  shapes.path.resize(1);
  check_new_object_round_trips(shapes, false);
  dc::Everything everything;
  everything.shapes.path.resize(1);
  check_new_object_round_trips(everything, false);
}

// The untaken side of an `if` and an absent optional read back as these same defaults.
TEST(Defaults, ResetsUseTheSameDefaults) {
  Draws draws(3, Fill::kScribble);
  game::GameEvent event = draw<game::GameEvent>(draws);
  game::GameEvent sound;
  sound.kind = game::EventKind::Sound;
  const Encoded encoded = encode(sound, 0);
  ASSERT_TRUE(decode(encoded.bytes, 0, event).ok);
  EXPECT_EQ(event.damage, 1);
  EXPECT_EQ(event.weapon, game::Weapon::Fists);
  EXPECT_TRUE(event == sound);
}

}  // namespace
