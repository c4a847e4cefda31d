// AckTracker on its own: each report's bits filtered down to what no earlier report carried, reordered
// reports looked at in full, the processed set forgotten after 32768 sends, the evidence test for a
// resync, the bounded acks list, and no allocation after construction.
#include <gtest/gtest.h>

#include "bitwire/packet/detail/ack_tracker.hpp"
#include "support/endpoint_harness.hpp"

namespace bitwire {
namespace {

TEST(AckTracker, FirstReportIsNewInFull) {
  AckTracker tracker(8);
  EXPECT_EQ(tracker.unseen(10, 0b101u, 0), 0b101u);
}

TEST(AckTracker, LaterReportGivesOnlyNewBits) {
  AckTracker tracker(8);
  ASSERT_EQ(tracker.unseen(10, 0b101u, 1), 0b101u);  // 10 and 8
  EXPECT_EQ(tracker.unseen(11, 0b1011u, 2), 0b0001u) << "11 is new; 10 and 8 were seen";
  EXPECT_EQ(tracker.unseen(11, 0b1111u, 3), 0b0100u) << "9 is new";
  EXPECT_EQ(tracker.unseen(11, 0b1111u, 4), 0u) << "a repeated report gives nothing";
}

TEST(AckTracker, OlderReportIsLookedAtInFullAndChangesNothing) {
  AckTracker tracker(8);
  ASSERT_EQ(tracker.unseen(11, 0b1011u, 1), 0b1011u);
  EXPECT_EQ(tracker.unseen(9, 0b11u, 2), 0b11u) << "reordered: every bit looked at again";
  EXPECT_EQ(tracker.unseen(11, 0b1011u, 3), 0u) << "the set still sits at 11";
}

TEST(AckTracker, AJumpOf32OrMoreStartsAFreshSet) {
  AckTracker tracker(8);
  ASSERT_EQ(tracker.unseen(10, 0xFFFFFFFFu, 1), 0xFFFFFFFFu);
  EXPECT_EQ(tracker.unseen(42, 0xFFFFFFFFu, 2), 0xFFFFFFFFu);
  EXPECT_EQ(tracker.unseen(43, 0xFFFFFFFFu, 3), 1u);
}

TEST(AckTracker, SetIsForgottenAfter32768Sends) {
  AckTracker tracker(8);
  ASSERT_EQ(tracker.unseen(10, 1u, 0), 1u);
  EXPECT_EQ(tracker.unseen(10, 1u, 32767), 0u);
  EXPECT_EQ(tracker.unseen(10, 1u, 32767 + 32768), 1u) << "the same sequence may name a new packet";
}

TEST(AckTracker, NewerThanProcessed) {
  AckTracker tracker(8);
  EXPECT_TRUE(tracker.newer_than_processed(5, 0)) << "nothing processed yet: no evidence needed";
  tracker.unseen(10, 1u, 1);
  EXPECT_TRUE(tracker.newer_than_processed(11, 20));
  EXPECT_FALSE(tracker.newer_than_processed(10, 20)) << "not newer";
  EXPECT_FALSE(tracker.newer_than_processed(9, 20));
  EXPECT_FALSE(tracker.newer_than_processed(21, 20)) << "ahead of what was sent";
  EXPECT_TRUE(tracker.newer_than_processed(20, 20));
}

TEST(AckTracker, ListHoldsAtMostItsCapacity) {
  AckTracker tracker(2);
  EXPECT_TRUE(tracker.push(7));
  EXPECT_TRUE(tracker.push(3));
  EXPECT_FALSE(tracker.push(9));
  ASSERT_EQ(tracker.list().size(), 2u);
  EXPECT_EQ(tracker.list()[0], 7);
  EXPECT_EQ(tracker.list()[1], 3);
  tracker.clear_list();
  EXPECT_TRUE(tracker.list().empty());
  EXPECT_TRUE(tracker.push(9));
}

TEST(AckTracker, ResetForgetsReportsAndList) {
  AckTracker tracker(4);
  tracker.unseen(10, 1u, 1);
  tracker.push(10);
  tracker.reset();
  EXPECT_TRUE(tracker.list().empty());
  EXPECT_EQ(tracker.unseen(10, 1u, 2), 1u);
}

TEST(AckTracker, MemoryIsFixedAtConstruction) {
  EXPECT_EQ(AckTracker::memory_required(256), 512u);
  const auto before = test::counting_allocations;
  AckTracker tracker(256);
  const auto constructed = test::counting_allocations;
  EXPECT_EQ(constructed.bytes - before.bytes, AckTracker::memory_required(256));
  for (int i = 0; i < 100000; ++i) {
    const uint32_t bits = tracker.unseen(static_cast<uint16_t>(i), 0xF0F0F0F1u, static_cast<uint64_t>(i));
    if (bits & 1u) tracker.push(static_cast<uint16_t>(i));
    if (i % 100 == 0) tracker.clear_list();
  }
  tracker.reset();
  EXPECT_EQ(test::counting_allocations.count, constructed.count) << "nothing allocates after construction";
}

}  // namespace
}  // namespace bitwire
