#include "bitwire/packet/sequence.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>

#include "support/seed.hpp"

namespace bitwire {
namespace {

TEST(SequenceArithmetic, GreaterThanWithoutWrap) {
  EXPECT_TRUE(sequence_greater_than(1, 0));
  EXPECT_TRUE(sequence_greater_than(100, 50));
  EXPECT_FALSE(sequence_greater_than(50, 100));
  EXPECT_FALSE(sequence_greater_than(7, 7));
  EXPECT_FALSE(sequence_less_than(7, 7));
}

TEST(SequenceArithmetic, WrapAround) {
  EXPECT_TRUE(sequence_greater_than(0, 65535));
  EXPECT_TRUE(sequence_greater_than(2, 65534));
  EXPECT_TRUE(sequence_less_than(65535, 0));
  EXPECT_FALSE(sequence_greater_than(65535, 0));
  EXPECT_TRUE(sequence_greater_than(100, 65000));
}

TEST(SequenceArithmetic, HalfRangeBoundary) {
  // 32768 steps forward is still newer; 32769 steps forward is older (it is 32767 steps back).
  EXPECT_TRUE(sequence_greater_than(32768, 0));
  EXPECT_FALSE(sequence_greater_than(32769, 0));
  EXPECT_TRUE(sequence_less_than(32769, 0));
  EXPECT_TRUE(sequence_greater_than(0, 32769));
}

TEST(SequenceArithmetic, DifferenceIsSignedForwardDistance) {
  EXPECT_EQ(sequence_difference(5, 3), 2);
  EXPECT_EQ(sequence_difference(3, 5), -2);
  EXPECT_EQ(sequence_difference(1, 65535), 2);
  EXPECT_EQ(sequence_difference(65535, 1), -2);
  EXPECT_EQ(sequence_difference(32767, 0), 32767);
  EXPECT_EQ(sequence_difference(32768, 0), 32768);  // half the range: the larger is newer (sequence.hpp)
  EXPECT_EQ(sequence_difference(0, 32768), -32768);
}

TEST(SequenceArithmetic, GreaterThanAgreesWithDifferenceEverywhere) {
  BITWIRE_SEEDED_TEST_SEED(0x5e9);
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 200000; ++i) {
    const auto a = static_cast<uint16_t>(rng());
    const auto b = static_cast<uint16_t>(rng());
    const int d = sequence_difference(a, b);
    EXPECT_EQ(sequence_greater_than(a, b), d > 0) << a << " " << b;
    EXPECT_EQ(sequence_less_than(a, b), d < 0) << a << " " << b;
  }
}

TEST(SequenceBuffer, CapacityRoundsUpToPowerOfTwo) {
  EXPECT_EQ(SequenceBuffer<int>(1).capacity(), 1u);
  EXPECT_EQ(SequenceBuffer<int>(100).capacity(), 128u);
  EXPECT_EQ(SequenceBuffer<int>(256).capacity(), 256u);
  EXPECT_EQ(SequenceBuffer<int>(65536).capacity(), 65536u);
}

TEST(SequenceBuffer, InsertFindRemove) {
  SequenceBuffer<int> buffer(16);
  EXPECT_EQ(buffer.find(0), nullptr);
  int* entry = buffer.insert(3);
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(*entry, 0);  // starts as T{}
  *entry = 42;
  ASSERT_NE(buffer.find(3), nullptr);
  EXPECT_EQ(*buffer.find(3), 42);
  EXPECT_TRUE(buffer.exists(3));
  EXPECT_FALSE(buffer.exists(3 + 16));  // same slot, different sequence
  EXPECT_EQ(buffer.find(3 + 16), nullptr);
  buffer.remove(3);
  EXPECT_FALSE(buffer.exists(3));
  EXPECT_EQ(buffer.newest(), 3);  // remove does not move the newest
}

TEST(SequenceBuffer, ReinsertResetsEntry) {
  SequenceBuffer<int> buffer(8);
  *buffer.insert(5) = 9;
  EXPECT_EQ(*buffer.insert(5), 0);
}

TEST(SequenceBuffer, EmptyMarkerMatchesNoSequence) {
  SequenceBuffer<int> buffer(65536);
  for (uint32_t s = 0; s < 65536; ++s) ASSERT_FALSE(buffer.exists(static_cast<uint16_t>(s)));
  EXPECT_EQ(SequenceBuffer<int>::kEmpty, 0xFFFFFFFFu);
}

TEST(SequenceBuffer, FreshBufferAcceptsAnyFirstSequence) {
  SequenceBuffer<int> buffer(16);
  ASSERT_NE(buffer.insert(40000), nullptr);
  EXPECT_TRUE(buffer.has_newest());
  EXPECT_EQ(buffer.newest(), 40000);
  EXPECT_EQ(buffer.next_sequence(), 40001);
}

TEST(SequenceBuffer, TooOldInsertFails) {
  SequenceBuffer<int> buffer(16);
  ASSERT_NE(buffer.insert(100), nullptr);
  // The window is [newest - 15, newest]: 85 is the oldest that still fits.
  EXPECT_TRUE(buffer.can_insert(85));
  EXPECT_NE(buffer.insert(85), nullptr);
  EXPECT_FALSE(buffer.can_insert(84));
  EXPECT_EQ(buffer.insert(84), nullptr);
  EXPECT_EQ(buffer.insert(0), nullptr);
  EXPECT_TRUE(buffer.exists(85));
  EXPECT_TRUE(buffer.exists(100));
}

// Capacities 16,385..65,536 round to 32,768 or 65,536: the window is then half the sequence space, and
// the next sequence used to be refused as "older than newest - 32768" (a lossless link delivered 1 packet
// in 3,000). Every capacity takes the next sequence, holds 32,767 back, and refuses 32,768 back.
TEST(SequenceBuffer, LargestCapacitiesTakeEveryNextSequence) {
  for (const size_t capacity : {size_t{16385}, size_t{32768}, size_t{65536}}) {
    SequenceBuffer<int> buffer(capacity);
    for (uint32_t i = 0; i < 70000; ++i) {
      const uint16_t s = static_cast<uint16_t>(i);
      ASSERT_TRUE(buffer.can_insert(s)) << capacity << " " << i;
      int* entry = buffer.insert(s);
      ASSERT_NE(entry, nullptr) << capacity << " " << i;
      *entry = static_cast<int>(i);
    }
    const uint16_t newest = buffer.newest();
    EXPECT_TRUE(buffer.can_insert(static_cast<uint16_t>(newest - 32767))) << capacity;
    EXPECT_FALSE(buffer.can_insert(static_cast<uint16_t>(newest - 32768))) << capacity;
    ASSERT_NE(buffer.find(static_cast<uint16_t>(newest - 32767)), nullptr) << capacity;
    EXPECT_EQ(*buffer.find(static_cast<uint16_t>(newest - 32767)), 70000 - 1 - 32767) << capacity;
  }
}

TEST(SequenceBuffer, TooOldAcrossWrap) {
  SequenceBuffer<int> buffer(16);
  ASSERT_NE(buffer.insert(5), nullptr);
  EXPECT_NE(buffer.insert(65526), nullptr);  // 5 - 15
  EXPECT_EQ(buffer.insert(65525), nullptr);
}

TEST(SequenceBuffer, NewerInsertRemovesSkippedEntries) {
  SequenceBuffer<int> buffer(8);
  ASSERT_NE(buffer.insert(0), nullptr);
  ASSERT_NE(buffer.insert(1), nullptr);
  // Inserting 10 skips 2..9; their slots (2..7, 0, 1) are emptied, which also drops 0 and 1: they are now
  // outside the window [3, 10] and must not be found under their old sequences.
  ASSERT_NE(buffer.insert(10), nullptr);
  for (uint16_t s = 2; s < 10; ++s) EXPECT_FALSE(buffer.exists(s)) << s;
  EXPECT_FALSE(buffer.exists(0));
  EXPECT_FALSE(buffer.exists(1));
  EXPECT_TRUE(buffer.exists(10));
}

TEST(SequenceBuffer, SkippedEntriesRemovedUnderHighLoss) {
  // The articles' stale-entry problem: with most sequences never inserted, a slot can hold a record from a
  // previous lap. After any insert, every sequence the buffer reports must be within the window.
  BITWIRE_SEEDED_TEST_SEED(0x1055);
  std::mt19937_64 rng(seed);
  SequenceBuffer<uint16_t> buffer(32);
  uint16_t sequence = 0;
  for (int i = 0; i < 100000; ++i) {
    sequence = static_cast<uint16_t>(sequence + 1 + rng() % 90);  // heavy loss: big gaps
    uint16_t* entry = buffer.insert(sequence);
    ASSERT_NE(entry, nullptr);
    *entry = sequence;
    for (size_t slot = 0; slot < buffer.capacity(); ++slot) {
      const uint32_t tag = buffer.tag_at_index(slot);
      if (tag == SequenceBuffer<uint16_t>::kEmpty) continue;
      const int age = sequence_difference(sequence, static_cast<uint16_t>(tag));
      ASSERT_GE(age, 0);
      ASSERT_LT(age, 32) << "stale entry " << tag << " while newest is " << sequence;
      ASSERT_EQ(*buffer.at_index(slot), tag);
    }
  }
}

TEST(SequenceBuffer, JumpAcrossHalfRangeClearsEverything) {
  SequenceBuffer<int> buffer(64);
  for (uint16_t s = 0; s < 64; ++s) buffer.insert(s);
  ASSERT_NE(buffer.insert(63 + 30000), nullptr);
  int live = 0;
  for (size_t slot = 0; slot < buffer.capacity(); ++slot) live += buffer.at_index(slot) != nullptr;
  EXPECT_EQ(live, 1);
}

TEST(SequenceBuffer, ResetEmptiesAndForgetsNewest) {
  SequenceBuffer<int> buffer(16);
  buffer.insert(1000);
  buffer.reset();
  EXPECT_FALSE(buffer.exists(1000));
  EXPECT_FALSE(buffer.has_newest());
  EXPECT_NE(buffer.insert(3), nullptr);  // would have been too old before the reset
}

TEST(SequenceBuffer, MatchesReferenceModelOverRandomOperations) {
  BITWIRE_SEEDED_TEST_SEED(0xb0ff);
  std::mt19937_64 rng(seed);
  constexpr size_t kCapacity = 64;
  SequenceBuffer<uint32_t> buffer(kCapacity);
  std::set<uint16_t> model;  // sequences present
  bool started = false;
  uint16_t newest = 0;
  uint16_t base = 0;
  for (int i = 0; i < 200000; ++i) {
    const uint16_t s = static_cast<uint16_t>(base + static_cast<int>(rng() % 200) - 120);
    const int op = static_cast<int>(rng() % 10);
    if (op < 6) {
      const bool fits = !started || !sequence_less_than(s, static_cast<uint16_t>(newest - (kCapacity - 1)));
      uint32_t* entry = buffer.insert(s);
      ASSERT_EQ(entry != nullptr, fits);
      if (fits) {
        if (!started || sequence_greater_than(s, newest)) {
          // Model: drop everything that falls out of the window ending at s.
          for (auto it = model.begin(); it != model.end();) {
            const int age = sequence_difference(s, *it);
            it = (age < 0 || age >= static_cast<int>(kCapacity)) ? model.erase(it) : std::next(it);
          }
          newest = s;
          started = true;
        }
        model.insert(s);
        *entry = s;
      }
      base = static_cast<uint16_t>(base + rng() % 3);
    } else if (op < 8) {
      buffer.remove(s);
      model.erase(s);
    } else {
      const uint32_t* entry = buffer.find(s);
      ASSERT_EQ(entry != nullptr, model.count(s) == 1) << "sequence " << s;
      if (entry != nullptr) {
        ASSERT_EQ(*entry, s);
      }
    }
  }
}

}  // namespace
}  // namespace bitwire
