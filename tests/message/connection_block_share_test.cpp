// Block buffers shared by sending and receiving: on a BlockArena a Connection's MessagePool holds up to
// block_pool_size buffers, which the application's outgoing blocks and the channels' received blocks both
// take (with buffers of its own a reliable channel lends its reassembly buffer instead: BlockLend tests; the
// tests below give each side an arena of its own). An application that
// queues a new block whenever a buffer is free must not starve its own receive side (a completed block
// waiting for a buffer makes the receiver refuse the peer's next fragments, and when both ends do it no
// block moves again). The pool keeps block_receive_reserve buffers for received blocks (docs/blocks.md).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "support/block_messages.hpp"
#include "support/connection_pair.hpp"
#include "support/test_messages.hpp"

namespace bitwire {
namespace {

using test::ConnectionPair;
using test::pattern;
using test::WithBlock;

constexpr double kTick = 1.0 / 60.0;

// Both applications send greedily -- every tick, right after the update and before they drain what they
// received, they create and send block messages as long as a block buffer is free. Blocks must flow both
// ways, in order and byte exact. A channel has one block in flight and the next starts when the last
// fragment's ack is back: one 4000-byte block per 100 ms round trip (~6.4 ticks at 60 Hz), so 600 ticks
// move at most ~94 each way; the floor asks for 80. (Without a receive reserve both
// sides delivered 0 blocks: each side's buffers all held outgoing blocks when the peer's first block
// completed, and the peers refused each other's fragments from then on.)
TEST(BlockShare, GreedySendersOnBothEndsStillReceiveBlocks) {
  ConnectionConfig config;
  config.block_pool_size = 4;
  config.channels[0].max_block_size = 4 * 1024;
  NetworkConditions net;
  net.latency_ms = 50.0;
  BlockArena arenas[2] = {BlockArena(4, 4 * 1024), BlockArena(4, 4 * 1024)};
  ConnectionPair pair(MessageFactory(test::kAllTypes), config, net, 11, &arenas[0], &arenas[1]);
  Connection* sides[2] = {&pair.a, &pair.b};
  uint32_t sent[2] = {0, 0};
  uint32_t received[2] = {0, 0};  // blocks side s sent that the other side received
  uint64_t reserved_refusals[2] = {0, 0};
  constexpr size_t kBlockSize = 4000;
  for (int tick = 0; tick < 600; ++tick) {
    pair.tick(tick * kTick);
    for (int s = 0; s < 2; ++s) {
      for (;;) {
        MessageHandle m = sides[s]->create<WithBlock>();
        ASSERT_TRUE(m) << "message slots are plenty";
        m.as<WithBlock>()->tag = static_cast<uint8_t>(sent[s]);
        const std::vector<std::byte> bytes = pattern(kBlockSize, 1000 * static_cast<uint32_t>(s) + sent[s]);
        const BlockRefusal refusal = m.try_attach_block(bytes);
        if (refusal == BlockRefusal::kReservedForReceiving) ++reserved_refusals[s];
        if (refusal != BlockRefusal::kNone) {
          ASSERT_TRUE(refusal == BlockRefusal::kNoBuffer || refusal == BlockRefusal::kReservedForReceiving)
              << to_string(refusal);
          break;
        }
        const SendStatus status = sides[s]->send(0, std::move(m));
        ASSERT_EQ(status.result, SendResult::kQueued) << to_string(status.result);
        ++sent[s];
      }
    }
    for (int s = 0; s < 2; ++s) {
      while (MessageHandle m = sides[1 - s]->receive(0)) {
        ASSERT_NE(m.as<WithBlock>(), nullptr);
        ASSERT_EQ(m.as<WithBlock>()->tag, static_cast<uint8_t>(received[s])) << "in order, once";
        const std::vector<std::byte> expected = pattern(kBlockSize, 1000 * static_cast<uint32_t>(s) + received[s]);
        ASSERT_EQ(m.block().size(), expected.size());
        ASSERT_EQ(std::memcmp(m.block().data(), expected.data(), expected.size()), 0);
        ++received[s];
      }
    }
    ASSERT_EQ(pair.a.error(), ConnectionError::kNone) << pair.a.error_reason();
    ASSERT_EQ(pair.b.error(), ConnectionError::kNone) << pair.b.error_reason();
  }
  std::printf("blocks delivered in 600 ticks: A->B %u, B->A %u (sent %u, %u; refused as reserved %llu, %llu)\n",
              received[0], received[1], sent[0], sent[1], static_cast<unsigned long long>(reserved_refusals[0]),
              static_cast<unsigned long long>(reserved_refusals[1]));
  EXPECT_GE(received[0], 80u);
  EXPECT_GE(received[1], 80u);
  EXPECT_GT(reserved_refusals[0] + reserved_refusals[1], 0u) << "the reserve is what the senders ran into";
}

// The reserve rule on a bare pool: of 3 buffers with 1 reserved, the application gets 2; the third request
// is refused with kReservedForReceiving (a buffer is free, but owed to received blocks) and counted; once the
// application frees one it may take one again. Without a reserve the third is granted and the fourth finds
// no buffer (kNoBuffer). The other refusals name their own reason.
TEST(BlockShare, PoolKeepsTheReserveFromApplicationRequestsAndSaysWhy) {
  const MessageFactory factory(test::kAllTypes);
  MessagePoolConfig config;
  config.capacity = 16;
  config.block_count = 3;
  config.max_block_size = 64;
  config.block_receive_reserve = 1;
  MessagePool pool(factory, config);
  const std::vector<std::byte> bytes = pattern(64, 5);
  MessageHandle m[4] = {pool.create<WithBlock>(), pool.create<WithBlock>(), pool.create<WithBlock>(),
                        pool.create<WithBlock>()};
  EXPECT_EQ(m[0].try_attach_block(bytes), BlockRefusal::kNone);
  EXPECT_TRUE(m[1].try_allocate_block(10));
  EXPECT_FALSE(pool.can_allocate_block());
  EXPECT_EQ(pool.blocks_free(), 1);
  EXPECT_EQ(pool.blocks_reserved(), 1);
  const BlockAllocation refused = m[2].try_allocate_block(10);
  EXPECT_EQ(refused.refusal, BlockRefusal::kReservedForReceiving);
  EXPECT_TRUE(refused.bytes.empty());
  EXPECT_NE(std::string(to_string(refused.refusal)).find("reserved for received blocks"), std::string::npos);
  EXPECT_FALSE(m[2].attach_block(bytes));
  EXPECT_EQ(pool.blocks_reserved_refusals(), 2u);
  EXPECT_EQ(pool.blocks_live(), 2);
  // A message that already has a buffer keeps it: a new size or a new block takes no buffer.
  EXPECT_EQ(m[1].try_attach_block(bytes), BlockRefusal::kNone);
  m[0].reset();
  EXPECT_TRUE(pool.can_allocate_block());
  EXPECT_EQ(m[2].try_attach_block(bytes), BlockRefusal::kNone);
  EXPECT_EQ(m[3].try_attach_block(bytes), BlockRefusal::kReservedForReceiving);

  MessageHandle small = pool.create<test::Small>();
  EXPECT_EQ(small.try_attach_block(bytes), BlockRefusal::kNotBlockType);
  EXPECT_EQ(m[3].try_allocate_block(0).refusal, BlockRefusal::kSizeOutOfRange);
  EXPECT_EQ(m[3].try_allocate_block(65).refusal, BlockRefusal::kSizeOutOfRange);
  EXPECT_EQ(MessageHandle{}.try_allocate_block(1).refusal, BlockRefusal::kEmptyHandle);

  config.block_receive_reserve = 0;
  MessagePool open_pool(factory, config);
  MessageHandle n[4] = {open_pool.create<WithBlock>(), open_pool.create<WithBlock>(),
                        open_pool.create<WithBlock>(), open_pool.create<WithBlock>()};
  for (int i = 0; i < 3; ++i) EXPECT_EQ(n[i].try_attach_block(bytes), BlockRefusal::kNone) << i;
  EXPECT_EQ(n[3].try_attach_block(bytes), BlockRefusal::kNoBuffer);
  EXPECT_EQ(open_pool.blocks_reserved_refusals(), 0u);
  EXPECT_EQ(open_pool.blocks_exhausted(), 1u);
}

// The hand-off: once received blocks fill the reserve, a completed block that finds no free buffer waits,
// and the next buffer anyone frees is kept for it -- the application's request is refused
// (kReservedForReceiving) until receive() has handed the block over. B (3 buffers, 1 reserved) holds a
// received block (the reserve is used) and two outgoing ones of its own; A's second block completes at B
// and waits; B frees an outgoing buffer and asks for it back at once: refused; receive() then delivers.
TEST(BlockShare, AWaitingReceivedBlockGetsTheNextFreedBuffer) {
  ConnectionConfig config;
  config.block_pool_size = 3;
  config.channels[0].max_block_size = 4 * 1024;
  BlockArena arenas[2] = {BlockArena(3, 4 * 1024), BlockArena(3, 4 * 1024)};
  ConnectionPair pair(MessageFactory(test::kAllTypes), config, NetworkConditions{}, 3, &arenas[0],
                      &arenas[1]);
  ASSERT_EQ(pair.b.pool().block_receive_reserve(), 1) << "the default: one per block-carrying channel";
  const auto send_block = [&](uint8_t tag, const std::vector<std::byte>& bytes) {
    MessageHandle m = pair.a.create<WithBlock>();
    ASSERT_TRUE(m);
    m.as<WithBlock>()->tag = tag;
    ASSERT_EQ(m.try_attach_block(bytes), BlockRefusal::kNone);
    ASSERT_TRUE(pair.a.send(0, std::move(m)));
  };
  const std::vector<std::byte> first = pattern(3000, 1);
  const std::vector<std::byte> second = pattern(3500, 2);
  send_block(1, first);
  int tick = 0;
  MessageHandle held_received;
  for (; tick < 60 && !held_received; ++tick) {
    pair.tick(tick * kTick);
    held_received = pair.b.receive(0);
  }
  ASSERT_TRUE(held_received);
  EXPECT_EQ(pair.b.pool().blocks_received_live(), 1);
  MessageHandle own[2] = {pair.b.create<WithBlock>(), pair.b.create<WithBlock>()};
  ASSERT_EQ(own[0].try_allocate_block(100).refusal, BlockRefusal::kNone);
  ASSERT_EQ(own[1].try_allocate_block(100).refusal, BlockRefusal::kNone);
  EXPECT_EQ(pair.b.pool().blocks_free(), 0);
  send_block(2, second);
  for (; tick < 120 && pair.b.channel_counters(0).blocks_waiting_buffer == 0; ++tick) pair.tick(tick * kTick);
  ASSERT_EQ(pair.b.channel_counters(0).blocks_waiting_buffer, 1u);
  EXPECT_EQ(pair.b.pool().receive_waiters(), 1);
  own[0].reset();
  EXPECT_EQ(pair.b.pool().blocks_free(), 1);
  MessageHandle greedy = pair.b.create<WithBlock>();
  EXPECT_EQ(greedy.try_allocate_block(100).refusal, BlockRefusal::kReservedForReceiving)
      << "the freed buffer belongs to the waiting block";
  const MessageHandle got = pair.b.receive(0);
  ASSERT_TRUE(got);
  ASSERT_NE(got.as<WithBlock>(), nullptr);
  EXPECT_EQ(got.as<WithBlock>()->tag, 2);
  ASSERT_EQ(got.block().size(), second.size());
  EXPECT_EQ(std::memcmp(got.block().data(), second.data(), second.size()), 0);
  EXPECT_EQ(pair.b.pool().receive_waiters(), 0);
  EXPECT_EQ(pair.b.pool().blocks_received_live(), 2);
  EXPECT_EQ(greedy.try_allocate_block(100).refusal, BlockRefusal::kNoBuffer);
  EXPECT_EQ(pair.b.error(), ConnectionError::kNone);
}

}  // namespace
}  // namespace bitwire
