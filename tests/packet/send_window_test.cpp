// SendWindow on its own: sequence numbering, one judgment per record (by age or before an overwrite),
// late acks taken back, the in-flight count, and no allocation after construction.
#include <gtest/gtest.h>

#include "bitwire/packet/detail/send_window.hpp"
#include "support/endpoint_harness.hpp"

namespace bitwire {
namespace {

// Sends `count` packets at times start, start + step, ...
void send(SendWindow& window, LossWindow& loss, int count, double start = 0.0, double step = 0.0) {
  for (int i = 0; i < count; ++i) {
    window.begin(start + step * i, loss);
    window.commit();
  }
}

TEST(SendWindow, SequencesStartAtZeroAndWrap) {
  SendWindow window(4);
  LossWindow loss(16);
  EXPECT_EQ(window.next_sequence(), 0);
  EXPECT_EQ(window.last_sent(), 65535);
  SendWindow::Record& first = window.begin(1.5, loss);
  EXPECT_EQ(first.time, 1.5);
  EXPECT_FALSE(first.acked);
  EXPECT_EQ(window.last_sent(), 0);
  EXPECT_EQ(window.packets_sent(), 0u) << "a send counts at commit";
  window.commit();
  EXPECT_EQ(window.packets_sent(), 1u);
  send(window, loss, 65535);
  EXPECT_EQ(window.next_sequence(), 0) << "65536 sends wrap the sequence";
  EXPECT_EQ(window.packets_sent(), 65536u);
}

TEST(SendWindow, CapacityRoundsUpAndHoldsThatManyRecords) {
  SendWindow window(5);
  LossWindow loss(16);
  EXPECT_EQ(window.capacity(), 8u);
  send(window, loss, 9);
  EXPECT_EQ(window.find(0), nullptr) << "the ninth send overwrote sequence 0";
  EXPECT_NE(window.find(1), nullptr);
  EXPECT_NE(window.find(8), nullptr);
}

TEST(SendWindow, JudgesOnlyRecordsOldEnough) {
  SendWindow window(8);
  LossWindow loss(16);
  send(window, loss, 3, 0.0, 1.0);  // sent at 0, 1, 2
  window.judge_old(2.5, 1.0, loss);
  EXPECT_EQ(loss.judged(), 2u) << "sequences 0 and 1 are at least 1 s old, 2 is not";
  EXPECT_EQ(loss.lost_in_window(), 2u);
  EXPECT_TRUE(window.find(1)->judged_lost);
  EXPECT_FALSE(window.find(2)->judged);
  window.judge_old(2.5, 1.0, loss);
  EXPECT_EQ(loss.judged(), 2u) << "a record is judged once";
}

TEST(SendWindow, AckedRecordIsJudgedReceived) {
  SendWindow window(8);
  LossWindow loss(16);
  send(window, loss, 2);
  SendWindow::mark_acked(*window.find(0), loss);
  window.judge_old(10.0, 1.0, loss);
  EXPECT_EQ(loss.judged(), 2u);
  EXPECT_EQ(loss.lost_in_window(), 1u);
  EXPECT_FALSE(window.find(0)->judged_lost);
  EXPECT_TRUE(window.find(1)->judged_lost);
}

TEST(SendWindow, LateAckIsTakenBack) {
  SendWindow window(8);
  LossWindow loss(16);
  send(window, loss, 1);
  window.judge_old(10.0, 1.0, loss);
  ASSERT_EQ(loss.lost_in_window(), 1u);
  SendWindow::mark_acked(*window.find(0), loss);
  EXPECT_EQ(loss.lost_in_window(), 0u);
  EXPECT_EQ(loss.judged(), 1u);
  EXPECT_TRUE(window.find(0)->acked);
  EXPECT_FALSE(window.find(0)->judged_lost);
}

TEST(SendWindow, RecordAboutToBeOverwrittenIsJudgedFirst) {
  SendWindow window(4);
  LossWindow loss(16);
  send(window, loss, 4);
  EXPECT_EQ(loss.judged(), 0u);
  send(window, loss, 1);  // overwrites sequence 0
  EXPECT_EQ(loss.judged(), 1u);
  EXPECT_EQ(loss.lost_in_window(), 1u);
  send(window, loss, 10);
  EXPECT_EQ(loss.judged(), 11u) << "every overwritten record was judged, none twice";
}

TEST(SendWindow, PeerAckAheadOfLastSent) {
  SendWindow window(8);
  LossWindow loss(16);
  send(window, loss, 3);
  EXPECT_FALSE(window.is_ahead(2));
  EXPECT_FALSE(window.is_ahead(0));
  EXPECT_TRUE(window.is_ahead(3));
  EXPECT_TRUE(window.is_ahead(100));
}

TEST(SendWindow, InFlightFollowsAcksAndThePeersReach) {
  SendWindow window(64);
  LossWindow loss(64);
  send(window, loss, 40);
  EXPECT_EQ(window.in_flight(), 40);
  // The peer's newest ack is 39: no later report of it reaches before 39 - 31 = 8.
  window.peer_reported(39);
  window.advance_flight_floor();
  EXPECT_EQ(window.in_flight(), 32);
  for (uint16_t s = 8; s < 20; ++s) SendWindow::mark_acked(*window.find(s), loss);
  window.advance_flight_floor();
  EXPECT_EQ(window.in_flight(), 20) << "acked sends at the floor leave flight";
  SendWindow::mark_acked(*window.find(30), loss);
  window.advance_flight_floor();
  EXPECT_EQ(window.in_flight(), 20) << "an ack above the oldest unacked send does not move the floor";
}

TEST(SendWindow, InFlightNeverCountsOverwrittenRecords) {
  SendWindow window(16);
  LossWindow loss(64);
  send(window, loss, 40);
  EXPECT_EQ(window.in_flight(), 16);
}

TEST(SendWindow, ResetStartsOver) {
  SendWindow window(8);
  LossWindow loss(16);
  send(window, loss, 5);
  window.reset();
  EXPECT_EQ(window.next_sequence(), 0);
  EXPECT_EQ(window.packets_sent(), 0u);
  EXPECT_EQ(window.in_flight(), 0);
  EXPECT_EQ(window.find(0), nullptr);
}

TEST(SendWindow, MemoryIsFixedAtConstruction) {
  EXPECT_EQ(SendWindow::memory_required(200), 256 * (sizeof(uint32_t) + sizeof(SendWindow::Record)));
  const auto before = test::counting_allocations;
  SendWindow window(200);
  LossWindow loss(64);
  const auto constructed = test::counting_allocations;
  EXPECT_EQ(constructed.bytes - before.bytes, SendWindow::memory_required(200) + loss.memory_bytes());
  for (int i = 0; i < 100000; ++i) {
    window.begin(i * 0.01, loss);
    window.commit();
    if (i % 3 == 0) SendWindow::mark_acked(*window.find(window.last_sent()), loss);
    window.peer_reported(window.last_sent());
    window.advance_flight_floor();
    window.judge_old(i * 0.01, 0.5, loss);
  }
  window.reset();
  EXPECT_EQ(test::counting_allocations.count, constructed.count) << "nothing allocates after construction";
}

}  // namespace
}  // namespace bitwire
