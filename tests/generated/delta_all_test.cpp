// The delta form of every construct of the language: tests/generated/delta/all/ holds schemas/*.net with
// every struct and message declared `delta` (sparse arrays made plain). For random instances against
// random decoded baselines (and against themselves), every type's delta is accepted by the validating
// stream, measures at least what it writes and at most MaxDeltaBits, and reads back, consuming exactly
// the bits written, to what a whole read of the same instance gives.
#include <gtest/gtest.h>

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "all_common_random.hpp"
#include "all_constructs_random.hpp"
#include "all_game_random.hpp"
#include "all_types_random.hpp"
#include "bitwire/core/random.hpp"
#include "bitwire/serialize/serialize.hpp"
#include "support/seed.hpp"

namespace {

#if BITWIRE_SANITIZED
constexpr int kInstances = 40;
#else
constexpr int kInstances = 300;
#endif

template <typename T>
void canonical(const T& value, T& out) {
  std::vector<std::byte> bytes(T::MaxBytes + 16);
  bitwire::WriteStream write(bytes);
  ASSERT_TRUE(value.serialize(write));
  write.flush();
  bitwire::ReadStream read{std::span<const std::byte>(bytes.data(), write.bytes_processed())};
  ASSERT_TRUE(out.serialize(read)) << bitwire::to_string(read.error());
}

template <typename T>
class DeltaAll : public ::testing::Test {};

using Types =
    ::testing::Types<all_constructs::Scalars, all_constructs::Ping, all_constructs::Shapes,
                     all_constructs::Conditions, all_constructs::Directives, all_constructs::Everything,
                     all_types::Wide, all_types::Blocks, all_types::Loadout, all_game::EntityState,
                     all_game::GameEvent, all_game::PlayerInput, all_game::Snapshot, all_game::Events,
                     all_game::ScoreUpdate, all_game::Chat, all_game::LevelLoad, all_common::Position,
                     all_common::Velocity, all_common::Orientation>;
TYPED_TEST_SUITE(DeltaAll, Types);

TYPED_TEST(DeltaAll, RandomInstancesAgainstDecodedBaselinesReadBackAsAWholeRead) {
  BITWIRE_SEEDED_TEST_SEED(0xde17'a11);
  bitwire::Random rng(seed);
  auto value = std::make_unique<TypeParam>();
  auto raw = std::make_unique<TypeParam>();
  auto baseline = std::make_unique<TypeParam>();
  auto expected = std::make_unique<TypeParam>();
  auto back = std::make_unique<TypeParam>();
  std::vector<std::byte> bytes(TypeParam::MaxDeltaBytes + 16);
  for (int i = 0; i < kInstances; ++i) {
    SCOPED_TRACE("instance " + std::to_string(i));
    bitwire::random_fill(rng, *value);
    bitwire::random_fill(rng, *raw);
    canonical(*raw, *baseline);
    if (i % 3 == 0) *value = *baseline;
    canonical(*value, *expected);

    bitwire::ValidateStream validate;
    ASSERT_TRUE(value->serialize_delta(validate, *baseline) && !validate.failed())
        << bitwire::to_string(validate.error()) << " at bit " << validate.error_bit();
    bitwire::MeasureStream measure;
    ASSERT_TRUE(value->serialize_delta(measure, *baseline));
    bitwire::WriteStream write(bytes);
    ASSERT_TRUE(value->serialize_delta(write, *baseline));
    write.flush();
    EXPECT_LE(write.bits_processed(), measure.bits_processed());
    EXPECT_LE(measure.bits_processed(), TypeParam::MaxDeltaBits);
    if (i % 3 == 0) {
      EXPECT_EQ(write.bits_processed(), 1u) << "an unchanged object is one bit";
    }

    bitwire::ReadStream read{std::span<const std::byte>(bytes.data(), write.bytes_processed())};
    ASSERT_TRUE(back->serialize_delta(read, *baseline))
        << bitwire::to_string(read.error()) << " at bit " << read.error_bit();
    EXPECT_EQ(read.bits_processed(), write.bits_processed());
    ASSERT_TRUE(*back == *expected) << "the delta read differs from a whole read";
  }
}

}  // namespace
