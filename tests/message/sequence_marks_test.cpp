// detail::SequenceMarks against a model that clears one bit per sequence the window's front passes: the
// word-at-a-time clearing keeps exactly the same marks, over random marks, queries and front moves of
// every size (within a word, across words, across the wrap of the bits and of the sequence space).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "bitwire/message/detail/sequence_marks.hpp"
#include "bitwire/packet/sequence.hpp"

namespace bitwire {
namespace {

// The marks' contract, one bit at a time.
class ModelMarks {
 public:
  explicit ModelMarks(int window) : bits_(detail::SequenceMarks::bits_for(window)), marked_(bits_, false) {}

  bool marked(uint16_t sequence) {
    if (!live_) return false;
    advance(sequence);
    if (!live_) return false;
    return static_cast<uint16_t>(newest_ - sequence) < bits_ && marked_[sequence & (bits_ - 1)];
  }
  void observe(uint16_t sequence) {
    if (live_) advance(sequence);
  }
  void mark(uint16_t sequence) {
    if (live_) advance(sequence);
    if (!live_ || static_cast<uint16_t>(newest_ - sequence) >= bits_) {
      marked_.assign(bits_, false);
      newest_ = sequence;
      last_mark_ = sequence;
      live_ = true;
    } else if (sequence_greater_than(sequence, last_mark_)) {
      last_mark_ = sequence;
    }
    marked_[sequence & (bits_ - 1)] = true;
  }

 private:
  void advance(uint16_t sequence) {
    if (!sequence_greater_than(sequence, newest_)) return;
    if (static_cast<uint16_t>(sequence - newest_) >= bits_) {
      marked_.assign(bits_, false);
      live_ = false;
      return;
    }
    for (uint16_t s = static_cast<uint16_t>(newest_ + 1);; ++s) {
      marked_[s & (bits_ - 1)] = false;
      if (s == sequence) break;
    }
    newest_ = sequence;
    if (static_cast<uint16_t>(newest_ - last_mark_) >= bits_) live_ = false;
  }

  uint32_t bits_;
  std::vector<bool> marked_;
  uint16_t newest_ = 0;
  uint16_t last_mark_ = 0;
  bool live_ = false;
};

TEST(SequenceMarks, ClearingAWordAtATimeKeepsTheMarksOfClearingABitAtATime) {
  for (const int window : {64, 256, 1024}) {
    std::mt19937 rng(static_cast<uint32_t>(window));
    detail::SequenceMarks marks(window);
    ModelMarks model(window);
    uint16_t front = static_cast<uint16_t>(rng());
    int agreed_marked = 0;
    uint16_t last_marked = front;
    for (int step = 0; step < 200'000; ++step) {
      // Mostly small moves, some a word or more, a few past the window or backwards.
      const uint32_t kind = rng() % 64;
      const uint32_t move = kind < 40 ? rng() % 4 : kind < 63 ? rng() % 200 : rng() % 70'000;
      front = static_cast<uint16_t>(front + move);
      auto sequence = static_cast<uint16_t>(front - rng() % static_cast<uint32_t>(window + 8));
      if (rng() % 2 == 0) sequence = static_cast<uint16_t>(last_marked - rng() % 3);  // near a mark
      switch (rng() % 3) {
        case 0:
          marks.mark(sequence);
          model.mark(sequence);
          last_marked = sequence;
          break;
        case 1:
          marks.observe(sequence);
          model.observe(sequence);
          break;
        default: {
          const bool expected = model.marked(sequence);
          ASSERT_EQ(marks.marked(sequence), expected) << "window " << window << ", step " << step;
          agreed_marked += expected ? 1 : 0;
        }
      }
    }
    EXPECT_GT(agreed_marked, 1000) << "the queries found marks, not only empty windows";
  }
}

// A new stream (the owner clears the marks on a restart of the endpoint's window) reads no old mark, behind
// the old front or ahead of it. A front moved ahead (a forward resync) keeps the marks still in the window.
TEST(SequenceMarks, ClearedMarksReadNothingAndAFrontMovedAheadKeepsThoseInTheWindow) {
  detail::SequenceMarks back(256);
  back.mark(1000);
  back.mark(1010);
  back.observe(1020);
  back.clear();
  back.observe(700);
  EXPECT_FALSE(back.marked(1000));
  EXPECT_FALSE(back.marked(1010));
  back.clear();
  back.observe(1200);
  EXPECT_FALSE(back.marked(1010));

  detail::SequenceMarks ahead(256);
  ahead.mark(1000);
  ahead.mark(1010);
  ahead.observe(1200);
  EXPECT_TRUE(ahead.marked(1010));
  EXPECT_FALSE(ahead.marked(1005));
  ahead.observe(1260);  // 1000 is now more than the window (256) behind, 1010 less
  EXPECT_FALSE(ahead.marked(1000));
  EXPECT_TRUE(ahead.marked(1010));
}

}  // namespace
}  // namespace bitwire
