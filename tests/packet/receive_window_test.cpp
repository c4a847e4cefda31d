// ReceiveWindow on its own: the ack state built from delivered sequences, the range a sequence falls in,
// resync runs forward and backward (with the floor that follows a backward one), and no allocation after
// construction.
#include <gtest/gtest.h>

#include "bitwire/packet/detail/receive_window.hpp"
#include "support/endpoint_harness.hpp"

namespace bitwire {
namespace {

using Range = ReceiveWindow::Range;

void record_range(ReceiveWindow& window, int first, int last) {
  for (int s = first; s <= last; ++s) window.record(static_cast<uint16_t>(s));
}

TEST(ReceiveWindow, FreshWindowExpectsSequenceZero) {
  ReceiveWindow window(16, 64, 4);
  EXPECT_EQ(window.ack(), 0xFFFF);
  EXPECT_EQ(window.ack_bits(), 0u);
  EXPECT_EQ(window.horizon(), 0xFFFF);
  EXPECT_EQ(window.classify(0, 64), Range::kInRange);
  EXPECT_EQ(window.classify(63, 64), Range::kInRange) << "64 steps after 65535";
  EXPECT_EQ(window.classify(64, 64), Range::kAhead);
  EXPECT_EQ(window.classify(0xFFFF, 64), Range::kInRange) << "the horizon itself, nothing received yet";
  EXPECT_EQ(window.classify(40000, 64), Range::kAhead);
}

TEST(ReceiveWindow, AckBitsFollowDeliveries) {
  ReceiveWindow window(64, 64, 4);
  window.record(0);
  EXPECT_EQ(window.ack(), 0);
  EXPECT_EQ(window.ack_bits(), 1u);
  window.record(1);
  window.record(3);
  EXPECT_EQ(window.ack(), 3);
  EXPECT_EQ(window.ack_bits(), 0b1101u) << "3 (bit 0), 1 (bit 2) and 0 (bit 3) received";
  window.record(2);
  EXPECT_EQ(window.ack(), 3) << "an older sequence sets its bit only";
  EXPECT_EQ(window.ack_bits(), 0b1111u);
  window.record(40);
  EXPECT_EQ(window.ack(), 40);
  EXPECT_EQ(window.ack_bits(), 1u) << "a jump of 32 or more clears the earlier bits";
  EXPECT_TRUE(window.exists(3));
  EXPECT_FALSE(window.exists(4));
}

TEST(ReceiveWindow, LimitIsMeasuredFromTheHorizon) {
  ReceiveWindow window(64, 64, 4);
  record_range(window, 37, 100);
  EXPECT_EQ(window.horizon(), 100);
  EXPECT_EQ(window.classify(164, 64), Range::kInRange);
  EXPECT_EQ(window.classify(165, 64), Range::kAhead);
  EXPECT_EQ(window.classify(102, 1), Range::kAhead) << "a tighter limit (the fragment margin)";
}

TEST(ReceiveWindow, OlderThanTheBufferIsBehind) {
  ReceiveWindow window(16, 64, 4);
  record_range(window, 0, 39);
  EXPECT_EQ(window.classify(30, 64), Range::kInRange);
  EXPECT_EQ(window.classify(24, 64), Range::kInRange);
  EXPECT_EQ(window.classify(23, 64), Range::kBehind);
  EXPECT_FALSE(window.can_insert(23));
}

TEST(ReceiveWindow, ForwardResyncAfterARun) {
  ReceiveWindow window(16, 64, 3);
  record_range(window, 0, 9);
  EXPECT_FALSE(window.observe_out_of_range(1000));
  EXPECT_FALSE(window.observe_out_of_range(1000)) << "a repeat neither counts nor breaks the run";
  EXPECT_FALSE(window.observe_out_of_range(999)) << "an older sequence close to the run neither";
  EXPECT_FALSE(window.observe_out_of_range(1001));
  EXPECT_TRUE(window.observe_out_of_range(1002));
  window.resync(1002, Range::kAhead);
  EXPECT_EQ(window.horizon(), 1002);
  EXPECT_EQ(window.ack(), 9) << "forward: what was received stays known";
  EXPECT_TRUE(window.exists(9));
  EXPECT_EQ(window.classify(1003, 64), Range::kInRange);
}

TEST(ReceiveWindow, DeliveryBreaksARun) {
  ReceiveWindow window(16, 64, 3);
  record_range(window, 0, 9);
  EXPECT_FALSE(window.observe_out_of_range(1000));
  EXPECT_FALSE(window.observe_out_of_range(1001));
  window.record(10);
  EXPECT_FALSE(window.observe_out_of_range(1002)) << "the run restarts at 1002";
  EXPECT_FALSE(window.observe_out_of_range(1003));
  window.accept_unrecorded(11);
  EXPECT_FALSE(window.observe_out_of_range(1004));
  EXPECT_FALSE(window.observe_out_of_range(1005));
  window.in_range_seen();
  EXPECT_FALSE(window.observe_out_of_range(1006));
  EXPECT_FALSE(window.observe_out_of_range(1007));
  EXPECT_TRUE(window.observe_out_of_range(1008));
}

TEST(ReceiveWindow, RunStepsBeyondTheJumpRestart) {
  ReceiveWindow window(16, 10, 2);
  EXPECT_FALSE(window.observe_out_of_range(1000));
  EXPECT_FALSE(window.observe_out_of_range(1011)) << "11 steps: a new run";
  EXPECT_TRUE(window.observe_out_of_range(1021));
}

TEST(ReceiveWindow, AcceptUnrecordedMovesTheHorizonOnly) {
  ReceiveWindow window(16, 64, 3);
  record_range(window, 0, 4);
  window.accept_unrecorded(6);
  EXPECT_EQ(window.horizon(), 6);
  EXPECT_FALSE(window.exists(6));
  EXPECT_EQ(window.ack(), 4);
  window.accept_unrecorded(2);
  EXPECT_EQ(window.horizon(), 6) << "an older sequence does not move it back";
}

// Packets the connection defers (applied in order only, or refused for room) move the horizon and are not
// recorded. A sequence a whole window behind the horizon is stale even where the buffer, whose newest is
// older, would still take it: the connection's in-order-only marks are as wide as this window, so a
// duplicate of a deferred packet that the marks have forgotten must never reach the connection again.
TEST(ReceiveWindow, ASequenceAWholeWindowBehindTheDeferredHorizonIsStale) {
  ReceiveWindow window(16, 64, 3);
  record_range(window, 0, 4);
  for (int s = 5; s <= 20; ++s) window.accept_unrecorded(static_cast<uint16_t>(s));
  ASSERT_EQ(window.horizon(), 20);
  ASSERT_FALSE(window.exists(5));
  EXPECT_EQ(window.classify(5, 64), Range::kInRange) << "15 behind the horizon: within the window";
  window.accept_unrecorded(21);
  EXPECT_EQ(window.classify(5, 64), Range::kBehind) << "16 behind the horizon: a whole window";
  EXPECT_EQ(window.classify(6, 64), Range::kInRange);
  // The same across the sequence wrap.
  ReceiveWindow wrapped(16, 64, 3);
  record_range(wrapped, 65525, 65526);
  for (int s = 65527; s <= 65536 + 10; ++s) wrapped.accept_unrecorded(static_cast<uint16_t>(s));
  ASSERT_EQ(wrapped.horizon(), 10);
  EXPECT_EQ(wrapped.classify(65530, 64), Range::kBehind) << "16 behind 10";
  EXPECT_EQ(wrapped.classify(65531, 64), Range::kInRange) << "15 behind 10";
}

// With nothing recorded yet, a deferred packet still makes its sequence the horizon: an older sequence
// that arrives after it (reordered) is judged as with something recorded -- in range within the window,
// behind (stale) a whole window back -- never ahead of a horizon it precedes. Only the fresh window's
// horizon (the 65535 before the peer's first packet) takes no sequence before it.
TEST(ReceiveWindow, AnOlderSequenceThanADeferredOneWithNothingRecordedIsNotAhead) {
  ReceiveWindow window(16, 64, 3);
  window.accept_unrecorded(10);
  ASSERT_EQ(window.horizon(), 10);
  EXPECT_EQ(window.classify(9, 64), Range::kInRange) << "reordered just behind the deferred packet";
  EXPECT_EQ(window.classify(10, 64), Range::kInRange) << "the deferred packet itself, sent again";
  window.accept_unrecorded(30);
  EXPECT_EQ(window.classify(15, 64), Range::kInRange) << "15 behind the horizon";
  EXPECT_EQ(window.classify(14, 64), Range::kBehind) << "16 behind: a whole window";
  EXPECT_EQ(window.classify(40000, 64), Range::kBehind);
  EXPECT_EQ(window.classify(94, 64), Range::kInRange);
  EXPECT_EQ(window.classify(95, 64), Range::kAhead);

  // The same after a forward resync of a fresh window: the resync sequence is the horizon.
  ReceiveWindow resynced(16, 64, 1);
  ASSERT_EQ(resynced.classify(1000, 64), Range::kAhead);
  ASSERT_TRUE(resynced.observe_out_of_range(1000));
  resynced.resync(1000, Range::kAhead);
  EXPECT_EQ(resynced.classify(999, 64), Range::kInRange);
  EXPECT_EQ(resynced.classify(900, 64), Range::kBehind);

  // A fresh window: unchanged.
  ReceiveWindow fresh(16, 64, 3);
  EXPECT_EQ(fresh.classify(40000, 64), Range::kAhead);
  EXPECT_EQ(fresh.classify(65534, 64), Range::kAhead);
}

TEST(ReceiveWindow, BackwardResyncRestartsBehindAFloor) {
  ReceiveWindow window(16, 64, 3);
  record_range(window, 0, 39);
  EXPECT_EQ(window.classify(5, 64), Range::kBehind);
  EXPECT_FALSE(window.observe_out_of_range(5));
  EXPECT_FALSE(window.observe_out_of_range(6));
  EXPECT_TRUE(window.observe_out_of_range(7));
  window.resync(7, Range::kBehind);
  EXPECT_EQ(window.ack(), 0xFFFF);
  EXPECT_EQ(window.ack_bits(), 0u);
  EXPECT_EQ(window.horizon(), 6);
  EXPECT_FALSE(window.exists(39)) << "the received buffer restarts";
  EXPECT_EQ(window.classify(7, 64), Range::kInRange);
  EXPECT_EQ(window.classify(6, 64), Range::kBehind) << "not newer than the floor";
  EXPECT_EQ(window.classify(0, 64), Range::kBehind);
  window.record(7);
  EXPECT_EQ(window.ack(), 7);
  EXPECT_EQ(window.ack_bits(), 1u);
  EXPECT_EQ(window.classify(6, 64), Range::kBehind) << "the floor holds while the buffer could take 6";
  record_range(window, 8, 21);
  EXPECT_EQ(window.classify(6, 64), Range::kBehind) << "15 behind the newest: only the floor refuses it";
  window.record(22);
  EXPECT_EQ(window.classify(6, 64), Range::kBehind) << "the buffer itself refuses it now";
  EXPECT_EQ(window.classify(7, 64), Range::kInRange);
}

TEST(ReceiveWindow, ResetForgetsEverything) {
  ReceiveWindow window(16, 64, 3);
  record_range(window, 0, 39);
  window.reset();
  EXPECT_EQ(window.ack(), 0xFFFF);
  EXPECT_EQ(window.horizon(), 0xFFFF);
  EXPECT_FALSE(window.exists(39));
  EXPECT_EQ(window.classify(0, 64), Range::kInRange);
}

// restarts() changes with each backward resync and each reset, never with a forward resync or a delivery,
// and a reset does not zero it (an owner holding the old value must see the change).
TEST(ReceiveWindow, RestartsCountBackwardResyncsAndResetsOnly) {
  ReceiveWindow window(16, 64, 1);
  EXPECT_EQ(window.restarts(), 0);
  record_range(window, 0, 39);
  window.resync(1000, Range::kAhead);
  EXPECT_EQ(window.restarts(), 0) << "a forward resync keeps the stream";
  window.record(1001);
  window.accept_unrecorded(1002);
  EXPECT_EQ(window.restarts(), 0);
  window.resync(500, Range::kBehind);
  EXPECT_EQ(window.restarts(), 1);
  window.reset();
  EXPECT_EQ(window.restarts(), 2) << "a reset is a restart, not a return to zero";
  window.reset();
  EXPECT_EQ(window.restarts(), 3);
}

TEST(ReceiveWindow, MemoryIsFixedAtConstruction) {
  EXPECT_EQ(ReceiveWindow::memory_required(200), 256 * (sizeof(uint32_t) + 1));
  const auto before = test::counting_allocations;
  ReceiveWindow window(200, 64, 4);
  const auto constructed = test::counting_allocations;
  EXPECT_EQ(constructed.bytes - before.bytes, ReceiveWindow::memory_required(200));
  for (int i = 0; i < 100000; ++i) {
    const auto s = static_cast<uint16_t>(i * 3);
    const Range range = window.classify(s, 64);
    if (range == Range::kInRange) {
      if (window.can_insert(s) && !window.exists(s)) window.record(s);
    } else if (window.observe_out_of_range(s)) {
      window.resync(s, range);
    }
  }
  window.reset();
  EXPECT_EQ(test::counting_allocations.count, constructed.count) << "nothing allocates after construction";
}

}  // namespace
}  // namespace bitwire
