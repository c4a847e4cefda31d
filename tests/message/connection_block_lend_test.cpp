// Received blocks lent by their channel: on a pool with buffers of its own (no BlockArena), a reliable
// channel reassembles a block in its BlockReceiver's buffer and delivers it there, lent to the message until
// the application releases it -- no pool buffer, no copy. The pool's buffers hold what the application sends,
// so the default (one buffer a block channel) sends and receives at once. While the lent buffer is held the
// channel's next block is reassembled in a free pool buffer (connection_block_hold_test.cpp); with none free
// its fragments are refused unacked until the lent buffer is back (channel.hpp, MessagePool's BlockLender).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "support/block_messages.hpp"
#include "support/block_receive.hpp"
#include "support/connection_pair.hpp"
#include "support/test_messages.hpp"

namespace bitwire {
namespace {

using test::block_message;
using test::ConnectionPair;
using test::pattern;
using test::receive_within;
using test::reliable;
using test::same;
using test::WithBlock;

constexpr double kTick = 1.0 / 60.0;

TEST(BlockLend, TheDefaultPoolHasOneBufferAndAReceivedBlockTakesNone) {
  const ConnectionConfig config;
  ConnectionPair pair(MessageFactory(test::kAllTypes), config, NetworkConditions{}, 1);
  EXPECT_EQ(pair.b.pool().block_count(), 1) << "one buffer for the one block channel's outgoing blocks";
  EXPECT_EQ(pair.b.pool().block_receive_reserve(), 0) << "received blocks take no pool buffer";
  const std::vector<std::byte> block = pattern(50 * 1000, 7);
  ASSERT_TRUE(pair.a.send(0, block_message(pair.a, 3, block)));
  int tick = 0;
  const MessageHandle got = receive_within(pair, pair.b, tick, 600);
  ASSERT_TRUE(got);
  ASSERT_NE(got.as<WithBlock>(), nullptr);
  EXPECT_EQ(got.as<WithBlock>()->tag, 3);
  EXPECT_TRUE(same(got.block(), block));
  EXPECT_TRUE(got.block_lent());
  EXPECT_EQ(got.block().data(), reliable(pair.b).block_receiver()->storage())
      << "delivered where reassembled";
  EXPECT_EQ(pair.b.pool().blocks_live(), 0);
  EXPECT_EQ(pair.b.channel_counters(0).blocks_waiting_buffer, 0u);
  // B's own buffer is free for B's own block while it holds the received one.
  MessageHandle own = pair.b.create<WithBlock>();
  EXPECT_EQ(own.try_allocate_block(100).refusal, BlockRefusal::kNone);
  EXPECT_EQ(own.try_allocate_block(100).refusal, BlockRefusal::kNone) << "its own buffer, reused";
  MessageHandle second = pair.b.create<WithBlock>();
  EXPECT_EQ(second.try_allocate_block(100).refusal, BlockRefusal::kNoBuffer) << "one buffer: busy";
  EXPECT_EQ(pair.a.error(), ConnectionError::kNone);
  EXPECT_EQ(pair.b.error(), ConnectionError::kNone);
}

// The application holds the first block and every pool buffer: the second completes only after the release,
// byte exact, and the held bytes never change meanwhile (its fragments are refused unacked, counted, and
// resent).
TEST(BlockLend, WithNoPoolBufferFreeTheNextBlockWaitsUntilTheApplicationReleasesThePreviousOne) {
  ConnectionConfig config;
  config.block_pool_size = 2;  // A queues both blocks at once
  config.channels[0].max_block_size = 16 * 1024;
  ConnectionPair pair(MessageFactory(test::kAllTypes), config, NetworkConditions{}, 2);
  const std::vector<std::byte> first = pattern(12000, 1);
  const std::vector<std::byte> second = pattern(9000, 2);
  ASSERT_TRUE(pair.a.send(0, block_message(pair.a, 1, first)));
  ASSERT_TRUE(pair.a.send(0, block_message(pair.a, 2, second)));
  int tick = 0;
  MessageHandle held = receive_within(pair, pair.b, tick, 300);
  ASSERT_TRUE(held);
  ASSERT_TRUE(same(held.block(), first));
  MessageHandle busy[2] = {block_message(pair.b, 0, pattern(10, 1)),
                           block_message(pair.b, 0, pattern(10, 2))};
  ASSERT_TRUE(busy[0] && busy[1]) << "B's application holds both pool buffers";
  for (const int end = tick + 120; tick < end; ++tick) {
    pair.tick(tick * kTick);
    ASSERT_FALSE(pair.b.receive(0)) << "the second block waits for the first's release";
  }
  EXPECT_TRUE(same(held.block(), first)) << "the held bytes are untouched";
  EXPECT_GT(pair.b.counters().packets_pool_exhausted, 0u) << "the second block's fragments refused unacked";
  EXPECT_EQ(pair.a.channel_counters(0).blocks_acked, 1u);
  EXPECT_EQ(pair.b.error(), ConnectionError::kNone);
  held.reset();
  const MessageHandle next = receive_within(pair, pair.b, tick, 300);
  ASSERT_TRUE(next);
  EXPECT_EQ(next.as<WithBlock>()->tag, 2);
  EXPECT_TRUE(same(next.block(), second));
  for (const int end = tick + 60; tick < end && pair.a.channel_counters(0).blocks_acked < 2; ++tick) {
    pair.tick(tick * kTick);
  }
  EXPECT_EQ(pair.a.channel_counters(0).blocks_acked, 2u);
  EXPECT_EQ(pair.a.error(), ConnectionError::kNone);
  EXPECT_EQ(pair.b.error(), ConnectionError::kNone);
}

// Both applications send blocks greedily with the default config (one buffer each): every tick each queues
// a block whenever its buffer is free, and receives (and releases) what arrived. Blocks flow both ways,
// in order and byte exact: sending and receiving never compete for a buffer, so nothing deadlocks.
TEST(BlockLend, BlocksBothWaysAtOnceWithTheDefaultBuffers) {
  ConnectionConfig config;
  config.channels[0].max_block_size = 8 * 1024;
  NetworkConditions net;
  net.latency_ms = 50.0;
  net.loss_percent = 5.0;
  ConnectionPair pair(MessageFactory(test::kAllTypes), config, net, 11);
  Connection* sides[2] = {&pair.a, &pair.b};
  uint32_t sent[2] = {0, 0};
  uint32_t received[2] = {0, 0};  // blocks side s sent that the other side received
  uint64_t busy[2] = {0, 0};
  constexpr size_t kBlockSize = 6000;
  for (int tick = 0; tick < 900; ++tick) {
    pair.tick(tick * kTick);
    for (int s = 0; s < 2; ++s) {
      MessageHandle m = sides[s]->create<WithBlock>();
      ASSERT_TRUE(m);
      m.as<WithBlock>()->tag = static_cast<uint8_t>(sent[s]);
      const BlockRefusal refusal =
          m.try_attach_block(pattern(kBlockSize, 1000 * static_cast<uint32_t>(s) + sent[s]));
      if (refusal != BlockRefusal::kNone) {
        ASSERT_EQ(refusal, BlockRefusal::kNoBuffer) << to_string(refusal);
        ++busy[s];
        continue;
      }
      ASSERT_EQ(sides[s]->send(0, std::move(m)).result, SendResult::kQueued);
      ++sent[s];
    }
    for (int s = 0; s < 2; ++s) {
      while (MessageHandle m = sides[1 - s]->receive(0)) {
        ASSERT_EQ(m.as<WithBlock>()->tag, static_cast<uint8_t>(received[s])) << "in order, once";
        ASSERT_TRUE(same(m.block(), pattern(kBlockSize, 1000 * static_cast<uint32_t>(s) + received[s])));
        ++received[s];
      }
    }
    ASSERT_EQ(pair.a.error(), ConnectionError::kNone) << pair.a.error_reason();
    ASSERT_EQ(pair.b.error(), ConnectionError::kNone) << pair.b.error_reason();
  }
  std::printf(
      "[ info ] 900 ticks, 5%% loss: A->B %u, B->A %u blocks (sent %u, %u; refused busy %llu, %llu)\n",
      received[0], received[1], sent[0], sent[1], static_cast<unsigned long long>(busy[0]),
      static_cast<unsigned long long>(busy[1]));
  EXPECT_GE(received[0], 60u);
  EXPECT_GE(received[1], 60u);
  EXPECT_GT(busy[0] + busy[1], 0u) << "the one buffer was busy at times: what the senders ran into";
  EXPECT_LE(pair.a.pool().blocks_live(), 1) << "only the block in flight holds a buffer";
  EXPECT_LE(pair.b.pool().blocks_live(), 1);
}

// A peer that sends part of a block and stops: the fragments sit in the channel's own buffer; the pool's
// buffers are untouched and the application can still send. reset() mid-block frees everything.
TEST(BlockLend, APartialBlockHoldsOnlyTheChannelsOwnBufferAndResetFreesIt) {
  ConnectionConfig config;
  config.channels[0].max_block_size = 64 * 1024;
  ConnectionPair pair(MessageFactory(test::kAllTypes), config, NetworkConditions{}, 4);
  ASSERT_TRUE(pair.a.send(0, block_message(pair.a, 1, pattern(60 * 1024, 1))));
  int tick = 0;
  while (tick < 300 && reliable(pair.b).block_receiver()->fragments_received() < 5) pair.tick(tick++ * kTick);
  ASSERT_TRUE(reliable(pair.b).block_receiver()->receiving());
  NetworkConditions cut;
  cut.loss_percent = 100.0;
  ASSERT_TRUE(pair.link.set_conditions(cut));  // the rest never arrives
  for (const int end = tick + 60; tick < end; ++tick) pair.tick(tick * kTick);
  EXPECT_TRUE(reliable(pair.b).block_receiver()->receiving());
  EXPECT_EQ(pair.b.pool().blocks_live(), 0) << "a partial block takes no pool buffer";
  MessageHandle own = pair.b.create<WithBlock>();
  EXPECT_EQ(own.try_allocate_block(1000).refusal, BlockRefusal::kNone) << "the send buffer stays free";
  own.reset();
  pair.b.reset();
  EXPECT_FALSE(reliable(pair.b).block_receiver()->receiving());
  EXPECT_EQ(pair.b.pool().live(), 0);
  EXPECT_EQ(pair.b.pool().blocks_live(), 0);
  EXPECT_EQ(pair.b.error(), ConnectionError::kNone);
}

// A session reset while the application holds a lent block (a server slot's client leaves, the next one
// arrives) and its one pool buffer: the held bytes stay intact, the new session's first block waits until
// the old one is released, then arrives byte exact; once released nothing is held.
TEST(BlockLend, AResetNeverOverwritesABlockTheApplicationHolds) {
  ConnectionConfig config;
  config.channels[0].max_block_size = 16 * 1024;
  ConnectionPair pair(MessageFactory(test::kAllTypes), config, NetworkConditions{}, 5);
  const std::vector<std::byte> old_block = pattern(10000, 1);
  const std::vector<std::byte> new_block = pattern(11000, 2);
  ASSERT_TRUE(pair.a.send(0, block_message(pair.a, 1, old_block)));
  int tick = 0;
  MessageHandle held = receive_within(pair, pair.b, tick, 300);
  ASSERT_TRUE(held);
  pair.a.reset();
  pair.b.reset();
  const MessageHandle busy = block_message(pair.b, 0, pattern(10, 1));
  ASSERT_TRUE(busy) << "B's application holds its one pool buffer";
  ASSERT_TRUE(pair.a.send(0, block_message(pair.a, 2, new_block)));
  for (const int end = tick + 120; tick < end; ++tick) {
    pair.tick(tick * kTick);
    ASSERT_FALSE(pair.b.receive(0)) << "the new session's block waits for the held one";
  }
  EXPECT_TRUE(same(held.block(), old_block));
  EXPECT_FALSE(reliable(pair.b).block_receiver()->receiving()) << "nothing stored into the lent buffer";
  held.reset();
  const MessageHandle next = receive_within(pair, pair.b, tick, 300);
  ASSERT_TRUE(next);
  EXPECT_TRUE(same(next.block(), new_block));
  EXPECT_EQ(pair.a.error(), ConnectionError::kNone);
  EXPECT_EQ(pair.b.error(), ConnectionError::kNone);
}

// Sending a received block back moves it into a buffer of the pool's own (a queued block waits on the peer's
// acks; the lent buffer must not), so the channel takes the next block at once. With that buffer busy the
// send is refused with the reason and the message keeps its lent block.
TEST(BlockLend, SendingAReceivedBlockOnMovesItIntoAPoolBuffer) {
  ConnectionConfig config;
  config.block_pool_size = 2;
  config.channels[0].max_block_size = 16 * 1024;
  ConnectionPair pair(MessageFactory(test::kAllTypes), config, NetworkConditions{}, 6);
  const std::vector<std::byte> first = pattern(7000, 1);
  const std::vector<std::byte> second = pattern(8000, 2);
  ASSERT_TRUE(pair.a.send(0, block_message(pair.a, 1, first)));
  int tick = 0;
  MessageHandle echo = receive_within(pair, pair.b, tick, 300);
  ASSERT_TRUE(echo);
  ASSERT_TRUE(echo.block_lent());
  // B's two buffers busy: the echo is refused, and keeps its block.
  MessageHandle busy[2] = {block_message(pair.b, 0, pattern(10, 1)),
                           block_message(pair.b, 0, pattern(10, 2))};
  ASSERT_TRUE(busy[0] && busy[1]);
  const SendStatus refused = pair.b.send(0, std::move(echo));
  EXPECT_EQ(refused.result, SendResult::kNoBlockBuffer);
  EXPECT_EQ(refused.block_refusal, BlockRefusal::kNoBuffer);
  ASSERT_TRUE(echo) << "a refused send leaves the message with the caller";
  EXPECT_TRUE(echo.block_lent());
  EXPECT_TRUE(same(echo.block(), first));
  busy[0].reset();
  const SendStatus sent = pair.b.send(0, std::move(echo));
  ASSERT_EQ(sent.result, SendResult::kQueued) << to_string(sent.result);
  EXPECT_EQ(pair.b.pool().blocks_live(), 2) << "the echo holds a pool buffer now";
  ASSERT_TRUE(pair.a.send(0, block_message(pair.a, 2, second)));
  const MessageHandle next = receive_within(pair, pair.b, tick, 300);
  ASSERT_TRUE(next) << "the receiver was free again once the echo left the lent buffer";
  EXPECT_TRUE(same(next.block(), second));
  const MessageHandle back = receive_within(pair, pair.a, tick, 300);
  ASSERT_TRUE(back);
  EXPECT_TRUE(same(back.block(), first));
  EXPECT_EQ(pair.a.error(), ConnectionError::kNone);
  EXPECT_EQ(pair.b.error(), ConnectionError::kNone);
}

// Giving a message that holds a lent block a new block: a pool buffer under the usual rules, the lent one
// given back; refused (kNoBuffer), the lent block stays attached.
TEST(BlockLend, AttachingToAMessageWithALentBlockTakesAPoolBuffer) {
  ConnectionConfig config;
  config.channels[0].max_block_size = 16 * 1024;
  ConnectionPair pair(MessageFactory(test::kAllTypes), config, NetworkConditions{}, 8);
  const std::vector<std::byte> block = pattern(5000, 1);
  ASSERT_TRUE(pair.a.send(0, block_message(pair.a, 1, block)));
  int tick = 0;
  MessageHandle got = receive_within(pair, pair.b, tick, 300);
  ASSERT_TRUE(got);
  MessageHandle other = block_message(pair.b, 0, pattern(10, 3));  // B's one buffer
  ASSERT_TRUE(other);
  EXPECT_EQ(got.try_allocate_block(100).refusal, BlockRefusal::kNoBuffer);
  EXPECT_TRUE(got.block_lent());
  EXPECT_TRUE(same(got.block(), block));
  other.reset();
  const std::vector<std::byte> replacement = pattern(300, 4);
  EXPECT_EQ(got.try_attach_block(replacement), BlockRefusal::kNone);
  EXPECT_FALSE(got.block_lent());
  EXPECT_TRUE(same(got.block(), replacement));
  EXPECT_FALSE(reliable(pair.b).block_receiver()->complete()) << "the lent buffer is back";
  EXPECT_EQ(pair.b.pool().blocks_live(), 1);
}

}  // namespace
}  // namespace bitwire
