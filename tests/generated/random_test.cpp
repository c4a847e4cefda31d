// The random instances idlc generates (idlc --random: <schema>_random.hpp, bitwire::random_fill) for
// schemas/*.net and the bench schemas: every instance is one the validating stream accepts, that writes
// what it measures (exactly without alignment, within the 7-bits-per-alignment bound with it), that reads
// back equal from exactly its bytes, and that writes the same bytes again. The generators also cover what
// they must (both sides of ifs, optional presence, count and length bounds, non-ASCII text), and one seed
// gives one sequence.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "bitwire/core/random.hpp"
#include "bitwire/serialize/serialize.hpp"
#include "common_random.hpp"
#include "constructs_random.hpp"
#include "corpus_random.hpp"
#include "examples_random.hpp"
#include "game_random.hpp"
#include "objects_random.hpp"
#include "realworld_random.hpp"
#include "ship_random.hpp"
#include "types_random.hpp"
#include "support/seed.hpp"

namespace {

#if BITWIRE_SANITIZED
constexpr int kInstances = 40;
#else
constexpr int kInstances = 300;
#endif

// False for types whose wire holds an alignment (align, string, bytes): measure counts 7 bits for each,
// a bound; elsewhere it is the exact number of bits written.
template <typename T>
constexpr bool kExactMeasure = true;
template <>
constexpr bool kExactMeasure<game::Chat> = false;  // a string
template <>
constexpr bool kExactMeasure<game::LevelLoad> = false;  // a string and bytes
template <>
constexpr bool kExactMeasure<demo::constructs::Scalars> = false;
template <>
constexpr bool kExactMeasure<demo::constructs::Shapes> = false;
template <>
constexpr bool kExactMeasure<demo::constructs::Directives> = false;
template <>
constexpr bool kExactMeasure<demo::constructs::Everything> = false;
template <>
constexpr bool kExactMeasure<corpus::BenchPacket> = false;  // align
template <>
constexpr bool kExactMeasure<demo::types::Blocks> = false;  // bytes[N] blocks are aligned
template <>
constexpr bool kExactMeasure<demo::types::Loadout> = false;  // bytes[N] blocks are aligned
template <>
constexpr bool kExactMeasure<examples::Block> = false;  // bytes
template <>
constexpr bool kExactMeasure<examples::Chat> = false;  // a string
template <>
constexpr bool kExactMeasure<examples::ProbeHeader> = false;  // align
template <>
constexpr bool kExactMeasure<examples::ProbeReport> = false;  // ProbeHeader's align
template <>
constexpr bool kExactMeasure<examples::TestData> = false;  // align, a bytes[N] block and a string

// Checks one instance; returns false (with a failure recorded) at the first property that does not hold.
template <typename T>
bool check_instance(const T& value, int index) {
  SCOPED_TRACE("instance " + std::to_string(index));
  bitwire::ValidateStream validate;
  const bool accepted = value.serialize(validate);
  EXPECT_TRUE(accepted && !validate.failed()) << "refused by the validating stream at bit " << validate.error_bit();
  if (!accepted || validate.failed()) return false;

  bitwire::MeasureStream measure;
  value.serialize(measure);
  std::vector<std::byte> bytes(measure.bytes_processed());
  bitwire::WriteStream write(bytes);
  value.serialize(write);
  write.flush();
  EXPECT_EQ(validate.bits_processed(), measure.bits_processed());
  EXPECT_LE(measure.bits_processed(), T::MaxBits);
  if constexpr (kExactMeasure<T>) {
    EXPECT_EQ(write.bits_processed(), measure.bits_processed());
  } else {
    EXPECT_LE(write.bits_processed(), measure.bits_processed());
  }
  bytes.resize(write.bytes_processed());

  auto back = std::make_unique<T>();
  bitwire::ReadStream read{std::span<const std::byte>(bytes)};
  EXPECT_TRUE(back->serialize(read)) << "read failed at bit " << read.error_bit();
  EXPECT_EQ(read.bits_processed(), write.bits_processed());
  EXPECT_TRUE(*back == value) << "read back different";

  std::vector<std::byte> again(bytes.size() + 8);
  bitwire::WriteStream rewrite(again);
  back->serialize(rewrite);
  rewrite.flush();
  again.resize(rewrite.bytes_processed());
  EXPECT_EQ(again, bytes) << "the read-back object writes other bytes";
  return !::testing::Test::HasFailure();
}

template <typename T>
class RandomInstances : public ::testing::Test {};

using Types = ::testing::Types<
    common::Position, common::Velocity, common::Orientation, game::EntityState, game::GameEvent,
    game::PlayerInput, game::Snapshot, game::Events, game::ScoreUpdate, game::Chat, game::LevelLoad,
    demo::constructs::Scalars, demo::constructs::Shapes, demo::constructs::Conditions,
    demo::constructs::Directives, demo::constructs::Ping, demo::constructs::Everything, corpus::BenchPacket,
    corpus::BenchInts, corpus::BenchBits, corpus::BenchMixed, ship::ShipState, ship::Weapons,
    ship::FleetPacket, demo::types::Wide, demo::types::Blocks, demo::types::Loadout, realworld::RealPacket,
    examples::Test, examples::Block, examples::Chat, examples::Synchronize, examples::Timescale,
    examples::ProbeHeader, examples::ProbeBits, examples::RigidBody, examples::InputPacket,
    examples::ShipCreate, examples::ProbeArray, examples::ProbeReport, examples::TestData,
    examples::CompressedProbe, examples::Handle, examples::ExpressionProbe, examples::ExtremeProbe,
    examples::ExtremeRow, examples::RenderBlock, examples::FixedProbe, examples::DegenerateProbe,
    examples::UnsignedProbe, examples::WideProbe, examples::LudicrousState,
    objects::ShipDeep, objects::ShipShallow, objects::MissileDeep, objects::MissileShallow,
    objects::DynamicPropDeep, objects::DynamicPropShallow, objects::TurretDeep, objects::TurretShallow,
    objects::BodyDeep, objects::BodyShallow, objects::NarrowBodyDeep, objects::NarrowBodyShallow>;
TYPED_TEST_SUITE(RandomInstances, Types);

TYPED_TEST(RandomInstances, ValidateWriteMeasureReadBackEqual) {
  BITWIRE_SEEDED_TEST_SEED(0x7a4d'0001);
  bitwire::Random rng(seed);
  auto value = std::make_unique<TypeParam>();
  for (int i = 0; i < kInstances; ++i) {
    bitwire::random_fill(rng, *value);
    if (!check_instance(*value, i)) return;
  }
}

TYPED_TEST(RandomInstances, OneSeedGivesOneSequence) {
  bitwire::Random a(42);
  bitwire::Random b(42);
  auto x = std::make_unique<TypeParam>();
  auto y = std::make_unique<TypeParam>();
  for (int i = 0; i < 8; ++i) {
    bitwire::random_fill(a, *x);
    bitwire::random_fill(b, *y);
    ASSERT_TRUE(*x == *y) << "instance " << i;
  }
}

// A used object is reset: what the instance leaves out (the untaken side of an if, an absent optional, an
// unchanged sparse element) is the value a new object holds, not what the object held before.
TEST(RandomInstances, FillResetsAUsedObject) {
  bitwire::Random rng(7);
  demo::constructs::Conditions used;
  used.moving = true;
  used.boost = 9;
  used.rest_ticks = 500;
  used.walk_step = 3;
  for (int i = 0; i < 64; ++i) {
    bitwire::random_fill(rng, used);
    if (used.moving) {
      ASSERT_EQ(used.rest_ticks, 0u);
    } else {
      ASSERT_EQ(used.boost, 0u);
    }
    if (used.mode == demo::constructs::Mode::Idle) {
      ASSERT_EQ(used.walk_step, 0u);
    }
  }
}

// The generators reach what the schema allows, not only the middle of it.
TEST(RandomInstances, CoverIfSidesOptionalsCountsAndText) {
  bitwire::Random rng(11);
  bool moving[2] = {};
  bool modes[4] = {};
  for (int i = 0; i < 200; ++i) {
    demo::constructs::Conditions c;
    bitwire::random_fill(rng, c);
    moving[c.moving ? 1 : 0] = true;
    switch (c.mode) {
      case demo::constructs::Mode::Idle: modes[0] = true; break;
      case demo::constructs::Mode::Walk: modes[1] = true; break;
      case demo::constructs::Mode::Run: modes[2] = true; break;
      case demo::constructs::Mode::Sprint: modes[3] = true; break;
    }
  }
  EXPECT_TRUE(moving[0] && moving[1]);
  EXPECT_TRUE(modes[0] && modes[1] && modes[2] && modes[3]);

  bool present[2] = {};
  for (int i = 0; i < 100; ++i) {
    game::PlayerInput input;
    bitwire::random_fill(rng, input);
    present[input.has_switch_to ? 1 : 0] = true;
  }
  EXPECT_TRUE(present[0] && present[1]);

  auto snapshot = std::make_unique<game::Snapshot>();
  bool empty = false;
  bool full = false;
  for (int i = 0; i < 100; ++i) {
    bitwire::random_fill(rng, *snapshot);
    empty = empty || snapshot->entities.size() == 0;
    full = full || snapshot->entities.size() == decltype(snapshot->entities)::capacity();
  }
  EXPECT_TRUE(empty && full) << "entity counts at both bounds";

  bool non_ascii = false;
  bool longest = false;
  for (int i = 0; i < 100; ++i) {
    game::Chat chat;
    bitwire::random_fill(rng, chat);
    for (char c : chat.text.view()) non_ascii = non_ascii || static_cast<unsigned char>(c) >= 0x80;
    longest = longest || chat.text.view().size() == decltype(chat.text)::kBufferSize - 1;
  }
  EXPECT_TRUE(non_ascii);
  EXPECT_TRUE(longest) << "a text at the maximum length";

  bool changed = false;
  bool unchanged = false;
  for (int i = 0; i < 4; ++i) {
    game::ScoreUpdate update;
    bitwire::random_fill(rng, update);
    for (bool is_changed : update.scores_changed) (is_changed ? changed : unchanged) = true;
  }
  EXPECT_TRUE(changed && unchanged);
}

}  // namespace
