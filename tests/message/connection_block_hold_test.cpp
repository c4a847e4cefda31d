// An application holding a received block (lent by its channel: connection_block_lend_test.cpp) while the
// peer keeps sending. The channel reassembles the next block in a free pool buffer, so the peer's packets
// (the next block's fragments, other channels' messages) are taken as usual; only with no pool buffer free
// are they refused unacked. The cycle that remains (both sides hold a received block while their one pool
// buffer holds their own outgoing block) is pinned: it ends in kBlockAckOverdue unless one side releases.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "support/block_messages.hpp"
#include "support/block_receive.hpp"
#include "support/connection_pair.hpp"
#include "support/test_messages.hpp"

namespace bitwire {
namespace {

using test::block_message;
using test::ConnectionPair;
using test::Numbered;
using test::pattern;
using test::receive_within;
using test::reliable;
using test::same;
using test::small_message;
using test::WithBlock;

constexpr double kTick = 1.0 / 60.0;

// The default ConnectionConfig with two more channels: 1 reliable without blocks, 2 unreliable. Channel 0
// alone carries blocks, so each pool has one block buffer (the default: one per block channel).
ConnectionConfig three_channels() {
  ConnectionConfig config;
  config.channel_count = 3;
  config.channels[1].disable_blocks = true;
  config.channels[2].type = ChannelType::kUnreliableUnordered;
  config.channels[2].disable_blocks = true;
  config.channels[0].max_block_size = 32 * 1024;
  return config;
}

// A client holds a level block while the server streams the next block and, on other channels, reliable
// events and unreliable snapshots: everything arrives while the block is held, and its bytes never change.
TEST(BlockHold, TheNextBlockAndOtherChannelsArriveWhileABlockIsHeld) {
  ConnectionPair pair(MessageFactory(test::kAllTypes), three_channels(), NetworkConditions{}, 21);
  ASSERT_EQ(pair.b.pool().block_count(), 1);
  const std::vector<std::byte> first = pattern(30000, 1);
  const std::vector<std::byte> second = pattern(25000, 2);
  const std::vector<std::byte> third = pattern(20000, 3);
  ASSERT_TRUE(pair.a.send(0, block_message(pair.a, 1, first)));
  int tick = 0;
  MessageHandle held = receive_within(pair, pair.b, tick, 300);
  ASSERT_TRUE(held);
  ASSERT_TRUE(held.block_lent());
  ASSERT_TRUE(same(held.block(), first));
  const std::byte* held_bytes = held.block().data();

  bool second_queued = false;
  MessageHandle next;
  uint32_t reliable_sent = 0, reliable_got = 0, unreliable_sent = 0, unreliable_got = 0;
  for (const int end = tick + 600; tick < end; ++tick) {
    // A's one buffer is free once the first block is acked: it queues the second at once.
    if (!second_queued) {
      if (MessageHandle m = block_message(pair.a, 2, second)) {
        ASSERT_TRUE(pair.a.send(0, std::move(m)));
        second_queued = true;
      }
    }
    if (tick % 2 == 0 && reliable_sent < 100) {
      MessageHandle event = pair.a.create<Numbered>();
      ASSERT_TRUE(event);
      event.as<Numbered>()->serial = reliable_sent++;
      ASSERT_TRUE(pair.a.send(1, std::move(event)));
    }
    if (unreliable_sent < 200) {
      ASSERT_TRUE(pair.a.send(2, small_message(pair.a, static_cast<uint8_t>(unreliable_sent++))));
    }
    pair.tick(tick * kTick);
    while (MessageHandle m = pair.b.receive(1)) {
      ASSERT_EQ(m.as<Numbered>()->serial, reliable_got) << "in order, once";
      ++reliable_got;
    }
    while (pair.b.receive(2)) ++unreliable_got;
    if (!next) next = pair.b.receive(0);
    if (next && reliable_got == 100 && unreliable_got == 200) break;
  }
  ASSERT_TRUE(next) << "the next block arrived while the first is held";
  EXPECT_EQ(next.as<WithBlock>()->tag, 2);
  EXPECT_TRUE(same(next.block(), second));
  EXPECT_FALSE(next.block_lent()) << "reassembled in the free pool buffer";
  EXPECT_EQ(pair.b.pool().blocks_live(), 1);
  EXPECT_EQ(reliable_got, 100u) << "reliable messages on another channel were not held back";
  EXPECT_EQ(unreliable_got, unreliable_sent) << "no unreliable message lost on a lossless link";
  EXPECT_EQ(pair.b.counters().packets_pool_exhausted, 0u) << "no packet refused while a buffer was free";
  EXPECT_EQ(pair.b.channel_counters(0).blocks_reassembled_in_pool, 1u);
  EXPECT_TRUE(held.block_lent());
  EXPECT_EQ(held.block().data(), held_bytes);
  EXPECT_TRUE(same(held.block(), first)) << "the held bytes are untouched";

  // Both released: the channel's own buffer serves the third block, the pool buffer is free again.
  held.reset();
  next.reset();
  EXPECT_EQ(pair.b.pool().blocks_live(), 0);
  MessageHandle m3;
  while (!(m3 = block_message(pair.a, 3, third)) && tick < 2000) pair.tick(tick++ * kTick);
  ASSERT_TRUE(m3);
  ASSERT_TRUE(pair.a.send(0, std::move(m3)));
  const MessageHandle last = receive_within(pair, pair.b, tick, 300);
  ASSERT_TRUE(last);
  EXPECT_TRUE(same(last.block(), third));
  EXPECT_TRUE(last.block_lent());
  EXPECT_EQ(last.block().data(), reliable(pair.b).block_receiver()->storage());
  EXPECT_EQ(pair.a.error(), ConnectionError::kNone);
  EXPECT_EQ(pair.b.error(), ConnectionError::kNone);
}

// The application releases its held block while the next one is halfway into the pool buffer: the next one
// completes there, and the one after it goes to the channel's own buffer again.
TEST(BlockHold, ReleasingTheHeldBlockMidwayKeepsTheNextInThePoolBuffer) {
  ConnectionConfig config;
  config.channels[0].max_block_size = 64 * 1024;
  ConnectionPair pair(MessageFactory(test::kAllTypes), config, NetworkConditions{}, 22);
  const std::vector<std::byte> first = pattern(5000, 1);
  const std::vector<std::byte> second = pattern(60 * 1024, 2);
  ASSERT_TRUE(pair.a.send(0, block_message(pair.a, 1, first)));
  int tick = 0;
  MessageHandle held = receive_within(pair, pair.b, tick, 300);
  ASSERT_TRUE(held);
  MessageHandle m2;
  while (!(m2 = block_message(pair.a, 2, second)) && tick < 600) pair.tick(tick++ * kTick);
  ASSERT_TRUE(pair.a.send(0, std::move(m2)));
  while (tick < 900 && !(reliable(pair.b).block_receiver()->receiving() &&
                         reliable(pair.b).block_receiver()->fragments_received() >= 3)) {
    pair.tick(tick++ * kTick);
  }
  ASSERT_TRUE(reliable(pair.b).block_receiver()->receiving());
  EXPECT_EQ(pair.b.pool().blocks_live(), 1) << "the pool buffer holds the partial block";
  EXPECT_TRUE(same(held.block(), first));
  held.reset();
  const MessageHandle next = receive_within(pair, pair.b, tick, 600);
  ASSERT_TRUE(next);
  EXPECT_TRUE(same(next.block(), second));
  EXPECT_FALSE(next.block_lent());
  EXPECT_EQ(pair.a.error(), ConnectionError::kNone);
  EXPECT_EQ(pair.b.error(), ConnectionError::kNone);
}

// The cycle, scripted with the default config: each side holds the block it received and has queued its
// own next block in its one pool buffer, and retries echoing the held block (refused: kNoBlockBuffer). Each
// side's next block finds the other's channel buffer lent and its pool buffer busy, so its fragments are
// refused unacked; neither buffer is ever freed. `release_after` < 0: nobody releases, and both sides fail
// with kBlockAckOverdue once the deadline (block_ack_grace + twice the transfer time) passes; else side A
// copies its held block out and releases it at that tick, and everything arrives.
struct Cycle {
  ConnectionError error_a = ConnectionError::kNone;
  ConnectionError error_b = ConnectionError::kNone;
  const char* reason_a = nullptr;
  double failed_at = -1.0;  // seconds from the cycle's start to the first error
  uint64_t refused_a = 0, refused_b = 0;
  bool a_got_next = false, b_got_next = false;
  bool b_echo_refused = false;
};

Cycle run_cycle(int release_after) {
  ConnectionConfig config;
  config.channels[0].max_block_size = 16 * 1024;
  ConnectionPair pair(MessageFactory(test::kAllTypes), config, NetworkConditions{}, 23);
  Cycle out;
  const std::vector<std::byte> a1 = pattern(10000, 1), b1 = pattern(10000, 2);
  const std::vector<std::byte> a2 = pattern(9000, 3), b2 = pattern(9000, 4);
  EXPECT_TRUE(pair.a.send(0, block_message(pair.a, 1, a1)));
  EXPECT_TRUE(pair.b.send(0, block_message(pair.b, 1, b1)));
  MessageHandle held_a, held_b;  // A holds B's block, B holds A's
  int tick = 0;
  for (; tick < 600 && !(held_a && held_b); ++tick) {
    pair.tick(tick * kTick);
    if (!held_a) held_a = pair.a.receive(0);
    if (!held_b) held_b = pair.b.receive(0);
  }
  EXPECT_TRUE(held_a && held_b);
  // Both first blocks acked: each queues its next block in its one buffer.
  MessageHandle next_a, next_b;
  for (; tick < 1200 && !(next_a && next_b); ++tick) {
    pair.tick(tick * kTick);
    if (!next_a) next_a = block_message(pair.a, 2, a2);
    if (!next_b) next_b = block_message(pair.b, 2, b2);
  }
  EXPECT_TRUE(pair.a.send(0, std::move(next_a)));
  EXPECT_TRUE(pair.b.send(0, std::move(next_b)));
  const int start = tick;
  std::vector<std::byte> copied;
  for (; tick < start + 60 * 60; ++tick) {
    if (held_b) {
      // B retries echoing A's block: its one buffer holds B's own next block.
      const SendStatus echo = pair.b.send(0, std::move(held_b));
      if (echo.result == SendResult::kNoBlockBuffer) out.b_echo_refused = true;
    }
    if (release_after >= 0 && held_a && tick - start == release_after) {
      copied.assign(held_a.block().begin(), held_a.block().end());  // the documented remedy
      held_a.reset();
    }
    pair.tick(tick * kTick);
    if (!held_a && release_after >= 0) {
      if (MessageHandle m = pair.a.receive(0)) out.a_got_next = out.a_got_next || same(m.block(), b2);
    }
    if (!held_b) {
      while (MessageHandle m = pair.b.receive(0)) out.b_got_next = out.b_got_next || same(m.block(), a2);
    }
    if (out.failed_at < 0 &&
        (pair.a.error() != ConnectionError::kNone || pair.b.error() != ConnectionError::kNone)) {
      out.failed_at = (tick - start) * kTick;
    }
    if (pair.a.error() != ConnectionError::kNone && pair.b.error() != ConnectionError::kNone) break;
    if (out.a_got_next && out.b_got_next) break;
  }
  if (release_after >= 0) {
    EXPECT_TRUE(same(copied, b1));
  }
  out.error_a = pair.a.error();
  out.error_b = pair.b.error();
  out.reason_a = pair.a.error_reason();
  out.refused_a = pair.a.counters().packets_pool_exhausted;
  out.refused_b = pair.b.counters().packets_pool_exhausted;
  return out;
}

TEST(BlockHold, HoldingReceivedBlocksWhileBothSendBuffersAreBusyFailsBothWithBlockAckOverdue) {
  const Cycle cycle = run_cycle(-1);
  EXPECT_TRUE(cycle.b_echo_refused) << "B's echo waits for its own busy buffer";
  EXPECT_GT(cycle.refused_a, 0u);
  EXPECT_GT(cycle.refused_b, 0u);
  EXPECT_FALSE(cycle.a_got_next);
  EXPECT_FALSE(cycle.b_got_next);
  EXPECT_EQ(cycle.error_a, ConnectionError::kBlockAckOverdue);
  EXPECT_EQ(cycle.error_b, ConnectionError::kBlockAckOverdue);
  ASSERT_NE(cycle.reason_a, nullptr);
  EXPECT_NE(std::strstr(cycle.reason_a, "did not ack a block"), nullptr) << cycle.reason_a;
  EXPECT_GE(cycle.failed_at, ChannelConfig{}.block_ack_grace) << "not before the grace";
  EXPECT_LT(cycle.failed_at, ChannelConfig{}.block_ack_grace + 5.0);
}

TEST(BlockHold, CopyingOutAndReleasingOneHeldBlockBreaksTheCycle) {
  const Cycle cycle = run_cycle(5 * 60);  // five seconds into the cycle, well within the grace
  EXPECT_TRUE(cycle.b_echo_refused);
  EXPECT_TRUE(cycle.a_got_next) << "A's channel buffer is back: B's next block arrives";
  EXPECT_TRUE(cycle.b_got_next) << "B's buffer freed by that ack: B's echo leaves and A's next block arrives";
  EXPECT_EQ(cycle.error_a, ConnectionError::kNone);
  EXPECT_EQ(cycle.error_b, ConnectionError::kNone);
}

// A lent block still in the receive queue (never received by the application) when reset() runs: the queue
// releases it, the buffer goes back to the channel, and the next session's block is delivered there.
TEST(BlockHold, AResetWithALentBlockStillQueuedGivesTheBufferBack) {
  ConnectionConfig config;
  config.channels[0].max_block_size = 16 * 1024;
  ConnectionPair pair(MessageFactory(test::kAllTypes), config, NetworkConditions{}, 24);
  ASSERT_TRUE(pair.a.send(0, block_message(pair.a, 1, pattern(9000, 1))));
  int tick = 0;
  while (tick < 300 && pair.b.channel_counters(0).blocks_received == 0) pair.tick(tick++ * kTick);
  ASSERT_EQ(pair.b.channel_counters(0).blocks_received, 1u);
  ASSERT_TRUE(reliable(pair.b).block_receiver()->complete()) << "queued, lent, not received";
  EXPECT_EQ(pair.b.pool().live(), 1);
  pair.a.reset();
  pair.b.reset();
  EXPECT_EQ(pair.b.pool().live(), 0);
  EXPECT_FALSE(reliable(pair.b).block_receiver()->complete()) << "the buffer is the channel's again";
  const std::vector<std::byte> fresh = pattern(8000, 2);
  ASSERT_TRUE(pair.a.send(0, block_message(pair.a, 2, fresh)));
  const MessageHandle got = receive_within(pair, pair.b, tick, 300);
  ASSERT_TRUE(got);
  EXPECT_TRUE(same(got.block(), fresh));
  EXPECT_EQ(got.block().data(), reliable(pair.b).block_receiver()->storage());
  EXPECT_EQ(pair.b.counters().packets_pool_exhausted, 0u);
  EXPECT_EQ(pair.b.error(), ConnectionError::kNone);
}

// A reset while the next block is being reassembled in a pool buffer (the held one lent): the pool buffer
// goes back to the pool at once; the held bytes stay.
TEST(BlockHold, AResetDuringReassemblyInAPoolBufferFreesThatBuffer) {
  ConnectionConfig config;
  config.channels[0].max_block_size = 64 * 1024;
  ConnectionPair pair(MessageFactory(test::kAllTypes), config, NetworkConditions{}, 25);
  const std::vector<std::byte> first = pattern(5000, 1);
  ASSERT_TRUE(pair.a.send(0, block_message(pair.a, 1, first)));
  int tick = 0;
  MessageHandle held = receive_within(pair, pair.b, tick, 300);
  ASSERT_TRUE(held);
  MessageHandle m2;
  while (!(m2 = block_message(pair.a, 2, pattern(60 * 1024, 2))) && tick < 600) pair.tick(tick++ * kTick);
  ASSERT_TRUE(pair.a.send(0, std::move(m2)));
  while (tick < 900 && !(reliable(pair.b).block_receiver()->receiving() &&
                         reliable(pair.b).block_receiver()->fragments_received() >= 3)) {
    pair.tick(tick++ * kTick);
  }
  ASSERT_EQ(pair.b.pool().blocks_live(), 1);
  pair.a.reset();
  pair.b.reset();
  EXPECT_EQ(pair.b.pool().blocks_live(), 0);
  EXPECT_TRUE(same(held.block(), first));
  MessageHandle own = pair.b.create<WithBlock>();
  EXPECT_EQ(own.try_allocate_block(100).refusal, BlockRefusal::kNone) << "B's one buffer is free again";
}

// Destroying a connection whose channel still has a lent block queued (never received) and the next block
// reassembling in a pool buffer, after the application released everything it held: the channels go
// first, their queues release into the pool, and no lent buffer calls back into a destroyed channel.
TEST(BlockHold, DestroyingTheConnectionWithALentBlockQueuedAndAPoolBufferInUse) {
  ConnectionConfig config;
  config.channels[0].max_block_size = 64 * 1024;
  auto pair =
      std::make_unique<ConnectionPair>(MessageFactory(test::kAllTypes), config, NetworkConditions{}, 26);
  ASSERT_TRUE(pair->a.send(0, block_message(pair->a, 1, pattern(5000, 1))));
  int tick = 0;
  MessageHandle held = receive_within(*pair, pair->b, tick, 300);
  ASSERT_TRUE(held);
  MessageHandle m2;
  while (!(m2 = block_message(pair->a, 2, pattern(8000, 2))) && tick < 600) pair->tick(tick++ * kTick);
  ASSERT_TRUE(pair->a.send(0, std::move(m2)));
  MessageHandle m3;
  while (!(m3 = block_message(pair->a, 3, pattern(60 * 1024, 3))) && tick < 900) pair->tick(tick++ * kTick);
  ASSERT_TRUE(pair->a.send(0, std::move(m3)));
  // Block 2 queued in the pool buffer; release the held block: block 3 starts in the channel's own buffer.
  while (tick < 1200 && pair->b.channel_counters(0).blocks_received < 2) pair->tick(tick++ * kTick);
  ASSERT_EQ(pair->b.channel_counters(0).blocks_received, 2u);
  held.reset();
  while (tick < 1500 && pair->b.channel_counters(0).blocks_received < 3) pair->tick(tick++ * kTick);
  ASSERT_EQ(pair->b.channel_counters(0).blocks_received, 3u);
  EXPECT_EQ(pair->b.pool().live(), 2) << "blocks 2 (pool buffer) and 3 (lent) queued, never received";
  EXPECT_EQ(pair->b.pool().blocks_live(), 1);
  pair.reset();  // must neither crash nor touch freed memory (the sanitize preset checks the latter)
  SUCCEED();
}

}  // namespace
}  // namespace bitwire
