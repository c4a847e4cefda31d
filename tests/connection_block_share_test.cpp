// Block buffers shared by sending and receiving: a Connection's MessagePool holds block_pool_size buffers,
// which the application's outgoing blocks and the channels' received blocks both take. An application that
// queues a new block whenever a buffer is free must not starve its own receive side (a completed block
// waiting for a buffer makes the receiver refuse the peer's next fragments, and when both ends do it no
// block moves again). The pool keeps block_receive_reserve buffers for received blocks (docs/blocks.md).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "support/connection_pair.hpp"
#include "support/test_messages.hpp"

namespace bitwire {
namespace {

using test::ConnectionPair;
using test::WithBlock;

constexpr double kTick = 1.0 / 60.0;

std::vector<std::byte> pattern(size_t size, uint32_t seed) {
  std::vector<std::byte> bytes(size);
  uint32_t x = seed * 2654435761u + 1;
  for (size_t i = 0; i < size; ++i) {
    x = x * 1664525u + 1013904223u;
    bytes[i] = static_cast<std::byte>(x >> 24);
  }
  return bytes;
}

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
  ConnectionPair pair(MessageFactory(test::kAllTypes), config, net, 11);
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

}  // namespace
}  // namespace bitwire
