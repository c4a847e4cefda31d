// The delta form idlc generates for `delta message` (tests/generated/delta/delta.net; docs/delta.md):
// against any baseline a peer decoded, a delta reads back to exactly what a whole read of the same
// object gives; it measures what it writes, never more than MaxDeltaBits; an unchanged object is one
// bit; a small change of a number costs half its width; and a read refuses, with a reason, a delta
// that names an element out of range, a count out of range, or a change that leaves the field's range.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "bitwire/core/random.hpp"
#include "bitwire/serialize/serialize.hpp"
#include "delta.hpp"
#include "delta_random.hpp"
#include "support/seed.hpp"

namespace {

using deltatest::Probe;
using deltatest::Scene;
using deltatest::Wide;

#if BITWIRE_SANITIZED
constexpr int kInstances = 60;
#else
constexpr int kInstances = 600;
#endif

template <typename T>
std::vector<std::byte> write_whole(const T& value) {
  std::vector<std::byte> bytes(T::MaxBytes + 8);
  bitwire::WriteStream write(bytes);
  EXPECT_TRUE(value.serialize(write));
  write.flush();
  bytes.resize(write.bytes_processed());
  return bytes;
}

// What a peer holds after a whole read of `value`: the baseline form.
template <typename T>
std::unique_ptr<T> canonical(const T& value) {
  const std::vector<std::byte> bytes = write_whole(value);
  auto back = std::make_unique<T>();
  bitwire::ReadStream read{std::span<const std::byte>(bytes)};
  EXPECT_TRUE(back->serialize(read)) << bitwire::to_string(read.error());
  return back;
}

struct Written {
  std::vector<std::byte> bytes;
  std::size_t bits = 0;
};

template <typename T>
Written write_delta(const T& value, const T& baseline) {
  Written out;
  out.bytes.resize(T::MaxDeltaBytes + 8);
  bitwire::WriteStream write(out.bytes);
  EXPECT_TRUE(value.serialize_delta(write, baseline));
  write.flush();
  out.bits = write.bits_processed();
  out.bytes.resize(write.bytes_processed());
  return out;
}

// Alignments in a type's delta form: Scene has `align`, a string and bytes.
template <typename T>
constexpr std::size_t kAlignments = 0;
template <>
constexpr std::size_t kAlignments<Scene> = 3;

// The delta properties for one instance against one baseline (a decoded object).
template <typename T>
void check_delta(const T& value, const T& baseline, int index) {
  SCOPED_TRACE("instance " + std::to_string(index));
  bitwire::ValidateStream validate;
  EXPECT_TRUE(value.serialize_delta(validate, baseline) && !validate.failed())
      << bitwire::to_string(validate.error()) << " at bit " << validate.error_bit();
  bitwire::MeasureStream measure;
  EXPECT_TRUE(value.serialize_delta(measure, baseline));
  const Written delta = write_delta(value, baseline);
  EXPECT_EQ(measure.bits_processed(), validate.bits_processed());
  if constexpr (kAlignments<T> == 0) {
    EXPECT_EQ(delta.bits, measure.bits_processed());
  } else {
    // Measure counts 7 bits for each alignment (a bound), a write its real padding.
    EXPECT_LE(delta.bits, measure.bits_processed());
    EXPECT_GE(delta.bits + 7 * kAlignments<T>, measure.bits_processed());
  }
  EXPECT_LE(measure.bits_processed(), T::MaxDeltaBits);

  auto back = std::make_unique<T>();
  bitwire::ReadStream read{std::span<const std::byte>(delta.bytes)};
  ASSERT_TRUE(back->serialize_delta(read, baseline))
      << bitwire::to_string(read.error()) << " at bit " << read.error_bit();
  EXPECT_EQ(read.bits_processed(), delta.bits);
  const std::unique_ptr<T> expected = canonical(value);
  EXPECT_TRUE(*back == *expected) << "the delta read differs from a whole read of the same object";
}

// A Scene near `base`: each field kept, taken from `other`, or (numbers) nudged by a small step.
void mix(bitwire::Random& rng, Scene& out, const Scene& base, const Scene& other) {
  out = base;
  auto pick = [&] { return rng.below(3) == 0; };
  if (pick()) out.tick = base.tick + static_cast<std::uint32_t>(rng.below(20));
  if (pick()) out.raw_signed = other.raw_signed;
  if (pick()) out.tiny = other.tiny;
  if (pick()) out.q8 = other.q8;
  if (pick()) out.kind = other.kind;
  if (pick()) out.marks = other.marks;
  if (pick()) out.flag = other.flag;
  if (pick()) out.when_flag = other.when_flag;
  if (pick()) out.otherwise = other.otherwise;
  if (pick()) out.radius = other.radius;
  for (std::size_t i = 0; i < out.cubes.size(); ++i) {
    const std::uint64_t roll = rng.below(10);
    if (roll == 0) out.cubes[i] = other.cubes[i];
    if (roll == 1) {
      out.cubes[i].x = static_cast<std::int16_t>(
          std::clamp<int>(out.cubes[i].x + static_cast<int>(rng.range(-70, 70)), -8192, 8191));
      out.cubes[i].at_rest = !out.cubes[i].at_rest;
    }
    if (roll == 2) out.cubes[i].orientation.b = other.cubes[i].orientation.b;
  }
  if (pick()) out.player = other.player;
  if (pick())
    out.player.x = std::clamp(out.player.x + static_cast<float>(rng.uniform(-0.5, 0.5)), -100.0f, 100.0f);
  if (pick()) out.toggles[rng.below(5)] ^= true;
  if (pick()) out.scores = other.scores;
  if (pick() && !out.scores.empty())
    out.scores[rng.below(out.scores.size())] = static_cast<std::uint16_t>(rng.below(1001));
  if (pick()) out.waypoints = other.waypoints;
  if (pick()) out.health = other.health, out.has_health = other.has_health;
  if (pick()) out.target = other.target, out.has_target = other.has_target;
  if (pick()) out.maybe_list = other.maybe_list, out.has_maybe_list = other.has_maybe_list;
  if (pick()) out.name = other.name;
  if (pick()) out.exact = other.exact;
  if (pick()) out.plain = other.plain;
  if (pick()) out.wide = other.wide;
  if (pick()) out.blob = other.blob;
}

TEST(DeltaForm, RandomInstanceAgainstRandomBaselineReadsBackAsAWholeRead) {
  BITWIRE_SEEDED_TEST_SEED(0xde17'0001);
  bitwire::Random rng(seed);
  auto value = std::make_unique<Scene>();
  auto baseline = std::make_unique<Scene>();
  for (int i = 0; i < kInstances; ++i) {
    bitwire::random_fill(rng, *value);
    bitwire::random_fill(rng, *baseline);
    check_delta(*value, *baseline, i);
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(DeltaForm, NearbyInstanceAgainstItsBaselineReadsBackAsAWholeRead) {
  BITWIRE_SEEDED_TEST_SEED(0xde17'0002);
  bitwire::Random rng(seed);
  auto base = std::make_unique<Scene>();
  auto other = std::make_unique<Scene>();
  auto value = std::make_unique<Scene>();
  for (int i = 0; i < kInstances; ++i) {
    bitwire::random_fill(rng, *base);
    bitwire::random_fill(rng, *other);
    mix(rng, *value, *base, *other);
    check_delta(*value, *base, i);
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(DeltaForm, ProbeRoundTripsAgainstRandomBaselines) {
  BITWIRE_SEEDED_TEST_SEED(0xde17'0003);
  bitwire::Random rng(seed);
  Probe value;
  Probe baseline;
  for (int i = 0; i < kInstances; ++i) {
    bitwire::random_fill(rng, value);
    bitwire::random_fill(rng, baseline);
    if (rng.below(2) == 0) value.level = baseline.level;
    check_delta(value, baseline, i);
    if (::testing::Test::HasFailure()) return;
  }
}

// 128-bit ranges (bounds and defaults past 64 bits) and unsigned fixed point past int64, each field kept
// from the baseline half of the time: unchanged, changed whole, and the relative windows of a 64-bit
// unsigned raw value.
TEST(DeltaForm, WideRoundTripsAgainstRandomBaselines) {
  BITWIRE_SEEDED_TEST_SEED(0xde17'0004);
  bitwire::Random rng(seed);
  Wide value;
  Wide baseline;
  for (int i = 0; i < kInstances; ++i) {
    bitwire::random_fill(rng, value);
    bitwire::random_fill(rng, baseline);
    if (rng.below(2) == 0) value.flux = baseline.flux;
    if (rng.below(2) == 0) value.band = baseline.band;
    if (rng.below(2) == 0) {
      const std::uint64_t step = rng.below(1000);  // a small change below: the range's top is 2^64 - 2^16
      value.span = baseline.span >= step ? baseline.span - step : baseline.span;
    }
    if (rng.below(2) == 0) value.high = baseline.high;
    if (rng.below(2) == 0) value.q112 = baseline.q112;
    check_delta(value, baseline, i);
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_TRUE(Wide{}.flux == -250);
  EXPECT_TRUE(Wide{}.band == static_cast<bitwire::uint128_t>(1) << 65);
  EXPECT_EQ(Wide{}.high, 9223372036854775808u);
}

TEST(DeltaForm, AnUnchangedObjectIsOneBit) {
  bitwire::Random rng(7);
  auto value = std::make_unique<Scene>();
  bitwire::random_fill(rng, *value);
  const Written delta = write_delta(*value, *value);
  EXPECT_EQ(delta.bits, 1u);
  auto back = std::make_unique<Scene>();
  bitwire::ReadStream read{std::span<const std::byte>(delta.bytes)};
  ASSERT_TRUE(back->serialize_delta(read, *value));
  EXPECT_TRUE(*back == *value);
}

TEST(DeltaForm, AChangeTakesTheSmallestOfThreeWindows) {
  bitwire::Random rng(8);
  auto base = std::make_unique<Scene>();
  bitwire::random_fill(rng, *base);
  base->cubes[3].x = 100;
  // x is int<-8192 .. 8191>: 14 bits whole. After the changed bit, a 2-bit selector and the difference
  // in ceil(14 / 4) = 4 bits (|d| <= 8), ceil(28 / 4) = 7 bits (|d| <= 64), ceil(42 / 4) = 11 bits
  // (|d| <= 1024), or the whole 14 bits. Measured: a write's alignment padding would move with the width.
  const auto measure = [&](int x) {
    auto value = std::make_unique<Scene>(*base);
    value->cubes[3].x = static_cast<std::int16_t>(x);
    bitwire::MeasureStream stream;
    EXPECT_TRUE(value->serialize_delta(stream, *base));
    check_delta(*value, *base, x);
    return static_cast<int>(stream.bits_processed());
  };
  const int tiny = measure(108);
  EXPECT_EQ(measure(92), tiny) << "-8 fits the first window";
  EXPECT_EQ(measure(109) - tiny, 7 - 4);
  EXPECT_EQ(measure(164) - tiny, 7 - 4);
  EXPECT_EQ(measure(36) - tiny, 7 - 4);
  EXPECT_EQ(measure(165) - tiny, 11 - 4);
  EXPECT_EQ(measure(1124) - tiny, 11 - 4);
  EXPECT_EQ(measure(-924) - tiny, 11 - 4);
  EXPECT_EQ(measure(1125) - tiny, 14 - 4);
  EXPECT_EQ(measure(-8192) - tiny, 14 - 4);
}

TEST(DeltaForm, MaxDeltaBitsBoundsTheWorstCase) {
  // The Probe's worst case by hand: changed bit; level: changed, selector, 7 bits; slots: int(4, 0, 4) in
  // 3 bits, four positions of gap 1 (1 bit each) and four whole changes of 2 + 4 bits; items: a new count
  // (1 + 3 bits), no shared element (0 bits of changed count), four whole elements of 4 bits.
  EXPECT_GE(Probe::MaxDeltaBits, 1u + (1 + 2 + 7) + 3 + 4 * (1 + 2 + 4) + (1 + 3) + 4 * 4);
  Probe base;
  base.level = 0;
  base.slots = {0, 0, 0, 0};
  base.items.resize(0);
  Probe value;
  value.level = 100;
  value.slots = {9, 9, 9, 9};
  value.items.resize(4);
  for (auto& item : value.items) item = 9;
  bitwire::MeasureStream measure;
  EXPECT_TRUE(value.serialize_delta(measure, base));
  EXPECT_EQ(measure.bits_processed(), 1u + (1 + 2 + 7) + 3 + 4 * (1 + 2 + 4) + (1 + 3) + 4 * 4);
  EXPECT_LE(measure.bits_processed(), Probe::MaxDeltaBits);
}

// ---- refusals: deltas written by hand ----

struct Hand {
  std::vector<std::byte> bytes = std::vector<std::byte>(64);
  bitwire::WriteStream write{bytes};
  void bit(bool b) { write.write_bits(b ? 1 : 0, 1); }
  void bits(std::uint64_t v, int n) { write.write_bits(v, n); }
  void relative(std::uint32_t previous, std::uint32_t current) {
    EXPECT_TRUE(bitwire::serialize_int_relative(write, previous, current));
  }
  std::span<const std::byte> done() {
    write.flush();
    return {bytes.data(), write.bytes_processed()};
  }
};

void expect_refused(std::span<const std::byte> bytes, const Probe& baseline, bitwire::ReadError reason,
                    std::size_t bit) {
  Probe out;
  bitwire::ReadStream read{bytes};
  EXPECT_FALSE(out.serialize_delta(read, baseline));
  EXPECT_EQ(read.error(), reason) << bitwire::to_string(read.error());
  EXPECT_EQ(read.error_bit(), bit);
}

Probe probe_baseline() {
  Probe base;
  base.level = 100;
  base.slots = {1, 2, 3, 4};
  base.items.resize(2);
  base.items[0] = 5;
  base.items[1] = 6;
  return base;
}

TEST(DeltaRefusal, ASmallChangeThatLeavesTheRangeIsRefused) {
  Hand hand;
  hand.bit(true);   // changed
  hand.bit(true);   // level changed
  hand.bits(0, 2);  // the first window: ceil(7 / 4) = 2 bits
  hand.bits(2, 2);  // code 2: +1, so 101 > 100
  expect_refused(hand.done(), probe_baseline(), bitwire::ReadError::kValueOutOfRange, 4);
}

TEST(DeltaRefusal, AChangeInTheWidestWindowThatLeavesTheRangeIsRefused) {
  Hand hand;
  hand.bit(true);
  hand.bit(true);
  hand.bits(2, 2);   // the third window: ceil(21 / 4) = 6 bits, |d| <= 32
  hand.bits(63, 6);  // code 63: +32, so 132 > 100
  expect_refused(hand.done(), probe_baseline(), bitwire::ReadError::kValueOutOfRange, 4);
}

TEST(DeltaRefusal, AWholeValueOutOfRangeIsRefused) {
  Hand hand;
  hand.bit(true);
  hand.bit(true);
  hand.bits(3, 2);    // whole
  hand.bits(101, 7);  // int<0 .. 100> in 7 bits
  expect_refused(hand.done(), probe_baseline(), bitwire::ReadError::kValueOutOfRange, 4);
}

// ---- refusals: every change has one encoding (the writer's smallest window) ----
// Probe's level is int<0 .. 100>: 7 bits whole; windows of 2 bits (|d| <= 2), 4 bits (|d| <= 8) and 6 bits
// (|d| <= 32). Against level 50 every difference below reaches both signs inside the range.

Probe probe_baseline_at_50() {
  Probe base = probe_baseline();
  base.level = 50;
  return base;
}

// A delta of Probe whose only change is `level`, its selector and code (or whole value) written by hand.
std::vector<std::byte> level_change(std::uint32_t selector, std::uint64_t code, int code_bits) {
  Hand hand;
  hand.bit(true);  // changed
  hand.bit(true);  // level changed
  hand.bits(selector, 2);
  hand.bits(code, code_bits);
  hand.bits(0, 3);  // no slot changed
  hand.bit(true);   // items: the baseline's count
  hand.bits(0, 2);  // none of them changed
  const std::span<const std::byte> bytes = hand.done();
  return {bytes.begin(), bytes.end()};
}

// The code of difference d in a window of w bits (docs/schema-language.md, "Relative numbers").
std::uint64_t window_code(int d, int w) {
  return static_cast<std::uint64_t>((d > 0 ? d - 1 : d) + (1 << (w - 1)));
}

// What the writer sends for a level `d` away from the baseline's: its selector, and the level read back.
void expect_written_in_window(int d, std::uint32_t selector) {
  SCOPED_TRACE("difference " + std::to_string(d));
  const Probe base = probe_baseline_at_50();
  Probe value = base;
  value.level = 50 + d;
  const Written delta = write_delta(value, base);
  bitwire::ReadStream bits{std::span<const std::byte>(delta.bytes)};
  std::uint32_t prefix = 0;
  ASSERT_TRUE(bitwire::serialize_bits(bits, prefix, 4));
  EXPECT_EQ(prefix >> 2, selector) << "the smallest difference of the window is written in it";
  Probe back;
  bitwire::ReadStream read{std::span<const std::byte>(delta.bytes)};
  ASSERT_TRUE(back.serialize_delta(read, base)) << bitwire::to_string(read.error());
  EXPECT_EQ(back.level, value.level);
}

TEST(DeltaRefusal, ADifferenceSentInAWiderWindowThanNeededIsRefused) {
  // The largest difference of each window, sent in the next one: refused where the code starts.
  for (const int d : {2, -2, 1, -1}) {
    SCOPED_TRACE(d);
    expect_refused(level_change(1, window_code(d, 4), 4), probe_baseline_at_50(),
                   bitwire::ReadError::kNonCanonical, 4);
  }
  for (const int d : {8, -8, 3, -3}) {
    SCOPED_TRACE(d);
    expect_refused(level_change(2, window_code(d, 6), 6), probe_baseline_at_50(),
                   bitwire::ReadError::kNonCanonical, 4);
  }
  // The smallest difference of each window is the writer's, and reads back.
  for (const int d : {3, -3}) expect_written_in_window(d, 1);
  for (const int d : {9, -9}) expect_written_in_window(d, 2);
  for (const int d : {1, -1, 2, -2}) expect_written_in_window(d, 0);
  // The hand encoding is the writer's: the same bytes read back as the same level.
  const std::vector<std::byte> bytes = level_change(2, window_code(-9, 6), 6);
  Probe back;
  bitwire::ReadStream read{std::span<const std::byte>(bytes)};
  ASSERT_TRUE(back.serialize_delta(read, probe_baseline_at_50())) << bitwire::to_string(read.error());
  EXPECT_EQ(back.level, 41);
}

TEST(DeltaRefusal, AWholeValueThatAWindowHoldsIsRefused) {
  // Whole (selector 3, 7 bits): a level 32 away fits the widest window, so whole is not its encoding.
  for (const int d : {32, -32, 1, -1}) {
    SCOPED_TRACE(d);
    expect_refused(level_change(3, static_cast<std::uint64_t>(50 + d), 7), probe_baseline_at_50(),
                   bitwire::ReadError::kNonCanonical, 4);
  }
  for (const int d : {33, -33}) expect_written_in_window(d, 3);
}

TEST(DeltaRefusal, AChangedValueEqualToItsBaselineIsRefused) {
  // "Unchanged" is the changed bit at 0; a change to the baseline's own value has no encoding.
  expect_refused(level_change(3, 50, 7), probe_baseline_at_50(), bitwire::ReadError::kNonCanonical, 4);
  EXPECT_STREQ(bitwire::to_string(bitwire::ReadError::kNonCanonical),
               "delta change not in its smallest form");
}

// A raw field's difference is taken modulo 2^bits, as the value nearest zero: from 250 to 2 is +8 in 8 bits
// (windows of 2, 4 and 6 bits), so it belongs in the second window, not the third, and not whole.
TEST(DeltaRefusal, ARawDifferenceModuloItsWidthTakesItsSmallestWindow) {
  const auto read = [](std::uint32_t selector, std::uint64_t code, int code_bits, std::uint8_t& out) {
    Hand hand;
    hand.bits(selector, 2);
    hand.bits(code, code_bits);
    bitwire::ReadStream stream{hand.done()};
    const bool ok = bitwire::serialize_bits_delta(stream, out, std::uint8_t{250}, 8);
    return std::pair{ok, ok ? bitwire::ReadError::kNone : stream.error()};
  };
  std::uint8_t out = 0;
  EXPECT_EQ(read(1, window_code(8, 4), 4, out), std::pair(true, bitwire::ReadError::kNone));
  EXPECT_EQ(out, 2);
  EXPECT_EQ(read(2, window_code(8, 6), 6, out).second, bitwire::ReadError::kNonCanonical);
  EXPECT_EQ(read(3, 2, 8, out).second, bitwire::ReadError::kNonCanonical);
  EXPECT_EQ(read(3, 250, 8, out).second, bitwire::ReadError::kNonCanonical);
  // 33 away either way wraps past no window: whole is its encoding.
  EXPECT_EQ(read(3, static_cast<std::uint8_t>(250 + 33), 8, out), std::pair(true, bitwire::ReadError::kNone));
  EXPECT_EQ(read(3, 250 - 33, 8, out), std::pair(true, bitwire::ReadError::kNone));
  EXPECT_EQ(out, 250 - 33);
  // The writer agrees: +8 goes in the second window.
  std::vector<std::byte> bytes(8);
  bitwire::WriteStream write(bytes);
  std::uint8_t value = 2;
  ASSERT_TRUE(bitwire::serialize_bits_delta(write, value, std::uint8_t{250}, 8));
  EXPECT_EQ(write.bits_processed(), 2u + 4u);
}

TEST(DeltaRefusal, AChangedElementPastAFixedArrayIsRefused) {
  Hand hand;
  hand.bit(true);
  hand.bit(false);      // level unchanged
  hand.bits(1, 3);      // one changed slot
  hand.relative(0, 5);  // position 5: index 4 of a 4-element array
  expect_refused(hand.done(), probe_baseline(), bitwire::ReadError::kInvalidCount, 5);
}

TEST(DeltaRefusal, PositionsThatDoNotIncreaseAreRefused) {
  Hand hand;
  hand.bit(true);
  hand.bit(false);      // level unchanged
  hand.bits(2, 3);      // two changed slots
  hand.relative(0, 2);  // slot 1: 5 bits
  hand.bits(3, 2);      // its whole change: 6 bits
  hand.bits(7, 4);
  // The next position through int_relative's escape (no +1, no tier: six zero bits), then the absolute
  // position 32 bits wide: 2 again, not above the previous one.
  hand.bits(0, 6);
  hand.bits(2, 32);
  expect_refused(hand.done(), probe_baseline(), bitwire::ReadError::kNotIncreasing, 5 + 5 + 6 + 6);
}

TEST(DeltaRefusal, AChangedElementPastTheSharedElementsIsRefused) {
  Hand hand;
  hand.bit(true);
  hand.bit(false);      // level unchanged
  hand.bits(0, 3);      // no slot changed
  hand.bit(true);       // same count as the baseline: 2
  hand.bits(1, 2);      // one changed of the 2 shared
  hand.relative(0, 3);  // position 3: past the 2 elements both hold
  expect_refused(hand.done(), probe_baseline(), bitwire::ReadError::kInvalidCount, 8);
}

TEST(DeltaRefusal, MoreChangedElementsThanSharedAreRefused) {
  Hand hand;
  hand.bit(true);
  hand.bit(false);
  hand.bits(0, 3);
  hand.bit(true);   // count 2
  hand.bits(3, 2);  // 3 changed of 2
  expect_refused(hand.done(), probe_baseline(), bitwire::ReadError::kInvalidCount, 6);
}

TEST(DeltaRefusal, ACountOutOfRangeIsRefused) {
  Hand hand;
  hand.bit(true);
  hand.bit(false);
  hand.bits(0, 3);
  hand.bit(false);  // a new count
  hand.bits(5, 3);  // 5 > 4
  expect_refused(hand.done(), probe_baseline(), bitwire::ReadError::kInvalidCount, 6);
}

TEST(DeltaRefusal, EveryTruncationOfAValidDeltaIsRefused) {
  bitwire::Random rng(11);
  Probe base;
  Probe value;
  for (int i = 0; i < 50; ++i) {
    bitwire::random_fill(rng, base);
    bitwire::random_fill(rng, value);
    const Written delta = write_delta(value, base);
    for (std::size_t cut = 0; cut < delta.bits; ++cut) {
      // The first `cut` bits, the rest of the last byte zero: either refused, or (when the zeros read as
      // what was cut) the same object.
      std::vector<std::byte> part((cut + 7) / 8);
      for (std::size_t b = 0; b < cut; ++b) {
        const std::byte mask{static_cast<unsigned char>(1u << (b % 8))};
        part[b / 8] |= delta.bytes[b / 8] & mask;
      }
      Probe out;
      bitwire::ReadStream read{std::span<const std::byte>(part)};
      if (out.serialize_delta(read, base)) {
        EXPECT_LE(read.bits_processed(), part.size() * 8);
      } else {
        EXPECT_NE(read.error(), bitwire::ReadError::kNone);
        EXPECT_LE(read.error_bit(), part.size() * 8);
      }
    }
  }
}

template <typename T>
concept HasDeltaForm = requires {
  T::MaxDeltaBits;
};

TEST(DeltaForm, AMessageNotDeclaredDeltaHasNoDeltaForm) {
  EXPECT_TRUE(HasDeltaForm<Scene>);
  EXPECT_TRUE(HasDeltaForm<deltatest::Cube>);  // reached from Scene
  EXPECT_FALSE(HasDeltaForm<deltatest::Plain>);
}

}  // namespace
