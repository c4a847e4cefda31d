// The generated code of schemas/constructs.net (every construct of the schema language): random round
// trips, dirty reads, truncations and MaxBits for every struct and message, plus the constructs whose
// behaviour needs a closer look: raw float bit patterns, raw signed widths, zero-width fields,
// alignment, every path through the conditions, and the worst case of sparse arrays.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "codec_checks.hpp"
#include "support/seed.hpp"
#include "values.hpp"

namespace {

using namespace bitwire::test::gen;
namespace dc = demo::constructs;

template <typename T>
class ConstructsCodec : public ::testing::Test {};

using ConstructTypes =
    ::testing::Types<dc::Scalars, dc::Ping, dc::Shapes, dc::Conditions, dc::Directives, dc::Everything>;
TYPED_TEST_SUITE(ConstructsCodec, ConstructTypes, ProfileNames);

TYPED_TEST(ConstructsCodec, RandomValuesRoundTripExactly) {
  BITWIRE_SEEDED_TEST_SEED(0xc0de'0001);
  check_random_objects<TypeParam>(seed, scaled(Profile<TypeParam>::kObjects));
}

TYPED_TEST(ConstructsCodec, WorstCaseReachesMaxBitsAndFitsItAtEveryOffset) {
  BITWIRE_SEEDED_TEST_SEED(0xc0de'0002);
  Draws draws(seed);
  for (int i = 0; i < scaled(20); ++i) {
    const TypeParam worst = draw<TypeParam>(draws, Fill::kWorst);
    check_worst_case(worst, Profile<TypeParam>::kSlack, Profile<TypeParam>::kAligns);
    check_truncations(worst, draw<TypeParam>(draws, Fill::kScribble), static_cast<size_t>(i) * 7 % 64);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// What a compressed float reads back as after a write: the nearest quantum.
float written_quantum(float value, float min, float max, float resolution) {
  const bitwire::CompressedFloatParams params = bitwire::compressed_float_params(min, max, resolution);
  return bitwire::dequantize_compressed_float(bitwire::quantize_compressed_float(value, params), params);
}

// ---- raw bits ----

TEST(ConstructsScalars, FloatBitPatternsSurviveIncludingNanPayloadsAndNegativeZero) {
  const uint32_t floats[] = {0x7fc00001u, 0xffbfffffu, 0x7f800001u, 0x80000000u, 0x00000001u, 0x7f800000u};
  const uint64_t doubles[] = {0x7ff8000000000001ull, 0xfff0000000000001ull, 0x8000000000000000ull, 1ull};
  for (size_t i = 0; i < std::size(floats); ++i) {
    dc::Scalars scalars;
    scalars.raw_float = std::bit_cast<float>(floats[i]);
    scalars.raw_double = std::bit_cast<double>(doubles[i % std::size(doubles)]);
    const Encoded encoded = encode(scalars, i);
    dc::Scalars read;
    ASSERT_TRUE(decode(encoded.bytes, encoded.offset, read).ok);
    EXPECT_EQ(std::bit_cast<uint32_t>(read.raw_float), floats[i]);
    EXPECT_EQ(std::bit_cast<uint64_t>(read.raw_double), doubles[i % std::size(doubles)]);
    EXPECT_EQ(encode(read, i).bytes, encoded.bytes);
  }
}

TEST(ConstructsScalars, RawWidthsKeepTheirExtremesAndSignExtend) {
  dc::Scalars low;
  low.i8 = std::numeric_limits<int8_t>::min();
  low.i16 = std::numeric_limits<int16_t>::min();
  low.i32 = std::numeric_limits<int32_t>::min();
  low.i64 = std::numeric_limits<int64_t>::min();
  low.twelve_signed_bits = -2048;
  low.five_bits = 0;
  low.twenty_bits_in_uint32 = 0;
  low.wide_signed = static_cast<bitwire::int128_t>(static_cast<bitwire::uint128_t>(1) << 127);
  low.wide_unsigned = 0;
  dc::Scalars high;
  high.i8 = std::numeric_limits<int8_t>::max();
  high.i16 = std::numeric_limits<int16_t>::max();
  high.i32 = std::numeric_limits<int32_t>::max();
  high.i64 = std::numeric_limits<int64_t>::max();
  high.u64 = std::numeric_limits<uint64_t>::max();
  high.twelve_signed_bits = 2047;
  high.five_bits = 31;
  high.twenty_bits_in_uint32 = (1u << 20) - 1;
  high.wide_signed = static_cast<bitwire::int128_t>(~bitwire::uint128_t{0} >> 1);
  high.wide_unsigned = ~bitwire::uint128_t{0};
  for (dc::Scalars value : {low, high}) {
    value.compressed =
        written_quantum(value.compressed, -1000.0f, 1000.0f, 0.01f);  // the default 12.5 is not one
    const Encoded encoded = encode(value, 13);
    dc::Scalars read;
    ASSERT_TRUE(decode(encoded.bytes, encoded.offset, read).ok);
    EXPECT_TRUE(read == value) << describe(value) << "\n" << describe(read);
  }
}

TEST(ConstructsScalars, ZeroWidthFieldsCostNothingAndReadTheirOnlyValue) {
  dc::Scalars scalars;
  EXPECT_EQ(scalars.constant_value, 7);
  EXPECT_EQ(scalars.only, dc::Only::One);
  const Encoded encoded = encode(scalars, 0);
  // Values the fields cannot hold: a read puts back the only one, from no bits at all.
  dc::Scalars dirty;
  dirty.constant_value = 99;
  dirty.only = static_cast<dc::Only>(5);
  const Decoded decoded = decode(encoded.bytes, 0, dirty);
  ASSERT_TRUE(decoded.ok);
  EXPECT_EQ(decoded.bits, encoded.bits);
  EXPECT_EQ(dirty.constant_value, 7);
  EXPECT_EQ(dirty.only, dc::Only::One);
}

TEST(ConstructsScalars, FixedPointHoldsTheScaledValue) {
  dc::Scalars scalars;
  EXPECT_EQ(scalars.q8, 384) << "default 1.5 in Q8";
  scalars.q8 = bitwire::to_fixed<8, int16_t>(-3.25);
  const Encoded encoded = encode(scalars, 0);
  dc::Scalars read;
  ASSERT_TRUE(decode(encoded.bytes, 0, read).ok);
  EXPECT_EQ((bitwire::from_fixed<8>(read.q8)), -3.25);
}

// ---- alignment ----

TEST(ConstructsDirectives, AlignedByteStartsOnAByteBoundaryOfTheStream) {
  BITWIRE_SEEDED_TEST_SEED(0xc0de'0003);
  Draws draws(seed);
  for (size_t offset = 0; offset < 64; ++offset) {
    dc::Directives directives = draw<dc::Directives>(draws);
    const Encoded encoded = encode(directives, offset, ~uint64_t{0});
    const size_t end_of_before = offset + 1;
    const size_t byte = (end_of_before + 7) / 8;
    ASSERT_LT(byte, encoded.bytes.size());
    EXPECT_EQ(static_cast<uint8_t>(encoded.bytes[byte]), directives.aligned_byte) << "offset " << offset;
    // The padding between `before` and the byte (the top bits of the byte before) is zero.
    const size_t padding = 8 * byte - end_of_before;
    if (padding > 0) {
      EXPECT_EQ(static_cast<unsigned>(encoded.bytes[byte - 1]) >> (8 - padding), 0u) << "offset " << offset;
    }
  }
}

// ---- conditions: every path ----

TEST(ConstructsConditions, EveryPathRoundTripsWithTheBitsOfItsSide) {
  BITWIRE_SEEDED_TEST_SEED(0xc0de'0004);
  Draws draws(seed);
  const dc::Mode modes[] = {dc::Mode::Idle, dc::Mode::Walk, dc::Mode::Run, dc::Mode::Sprint};
  for (bool moving : {false, true}) {
    for (bool boosted : {false, true}) {
      for (dc::Mode mode : modes) {
        dc::Conditions value;
        value.moving = moving;
        value.mode = mode;
        if (moving) {
          fill(draws, value.velocity);
          value.boosted = boosted;
          if (boosted) value.boost = 200;
        } else {
          value.rest_ticks = 65535;
          value.parked = boosted;  // reuse the loop for both parked values
        }
        if (mode == dc::Mode::Run) value.speed = 20.0f;
        if (mode == dc::Mode::Sprint) value.sprint_speed = 40.0f;
        if (mode == dc::Mode::Walk) value.walk_step = 1;
        size_t bits = 1 + 4;
        bits += moving ? 36 + 1 + (boosted ? 8 : 0) : 16 + 1;
        bits += mode == dc::Mode::Idle ? 0 : mode == dc::Mode::Sprint ? 9 : 8;
        EXPECT_EQ(measure(value), bits) << describe(value);
        const Encoded encoded = encode(value, 0);
        EXPECT_EQ(encoded.bits, bits);
        dc::Conditions read = draw<dc::Conditions>(draws, Fill::kScribble);
        ASSERT_TRUE(decode(encoded.bytes, 0, read).ok);
        EXPECT_TRUE(read == value) << describe(value) << "\n" << describe(read);
      }
    }
  }
}

// ---- sparse arrays: the worst case is derived independently ----

TEST(ConstructsSparse, MaxBitsCountsTheCostliestSubsetOfEverySparseArray) {
  // The costliest subsets by dynamic programming over the int_relative ladder.
  const std::vector<bool> health = costliest_sparse_pattern(64, 7);
  const std::vector<bool> tiny = costliest_sparse_pattern(3, 1);
  dc::Shapes worst;
  worst.path.resize(1);
  for (size_t i = 0; i < 64; ++i) worst.health_changed[i] = health[i];
  for (size_t i = 0; i < 3; ++i) worst.tiny_changed[i] = tiny[i];
  dc::Shapes empty;
  empty.path.resize(1);
  EXPECT_EQ(measure(worst) - measure(empty), (519u - 7u) + (10u - 2u))
      << "health: all 64; tiny: a 2-step and a 1-step";
  // The worst-case object of values.hpp uses patterns just as costly.
  Draws draws(1, Fill::kWorst);
  const dc::Shapes drawn = draw<dc::Shapes>(draws);
  dc::Shapes drawn_empty = drawn;
  drawn_empty.health_changed = {};
  drawn_empty.tiny_changed = {};
  EXPECT_EQ(measure(drawn) - measure(drawn_empty), measure(worst) - measure(empty));
}

TEST(ConstructsSparse, ScoreUpdateWorstCaseIsEveryScore) {
  const std::vector<bool> pattern = costliest_sparse_pattern(64, 17);
  game::ScoreUpdate update;
  for (size_t i = 0; i < 64; ++i) update.scores_changed[i] = pattern[i];
  EXPECT_EQ(measure(update), game::ScoreUpdate::MaxBits);
  EXPECT_EQ(std::count(pattern.begin(), pattern.end(), true), 64);
}

TEST(ConstructsSparse, EveryTinySubsetRoundTrips) {
  for (unsigned mask = 0; mask < 8; ++mask) {
    dc::Shapes shapes;
    shapes.path.resize(1);
    for (size_t i = 0; i < 3; ++i) {
      shapes.tiny_changed[i] = (mask >> i) & 1;
      shapes.tiny[i] = shapes.tiny_changed[i] && i != 1;
    }
    dc::Shapes read;
    read.tiny = {true, true, true};
    read.tiny_changed = {true, true, true};
    const Encoded encoded = encode(shapes, mask);
    ASSERT_TRUE(decode(encoded.bytes, mask, read).ok);
    for (size_t i = 0; i < 3; ++i) {
      EXPECT_EQ(read.tiny_changed[i], shapes.tiny_changed[i]) << mask;
      EXPECT_EQ(read.tiny[i], shapes.tiny_changed[i] ? shapes.tiny[i] : true) << mask;
    }
  }
}

}  // namespace
