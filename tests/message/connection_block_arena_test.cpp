// A connection whose pool takes its block buffers from a shared BlockArena (a server slot) against a peer
// that tries to keep buffers: a received block takes a buffer only when every message before it has
// arrived, so a peer cannot park completed blocks behind a gap it never fills; and a peer that never acks
// a queued block (or the message ahead of it) fails the connection at the deadline
// (ChannelConfig::block_ack_grace), which releases the block.
//
// The peer here is a Connection driven through the connection-packet layer alone (generate_packet /
// process_packet / on_packet_acked): the test decides which packets arrive and which acks the sender sees,
// so it can "lose" a packet and still tell the sender it was acked -- what a hostile peer does when it
// skips a message id on purpose.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "bitwire/message/connection.hpp"
#include "support/block_messages.hpp"
#include "support/test_messages.hpp"

namespace bitwire {
namespace {

using test::block_message;
using test::pattern;
using test::small_message;

constexpr int kBlockSize = 4096;

ConnectionConfig arena_config() {
  ConnectionConfig config;
  config.channels[0].max_block_size = kBlockSize;
  config.block_pool_size = 4;
  return config;
}

// The peer skips message id 0 (its packet is "lost" but acked at the sender, so the sender never resends
// it) and then sends three complete blocks at ids 1, 2 and 3. Before the receive side took a buffer only
// for the block at its head, each completed block was copied into an arena buffer and parked in the
// receive queue behind the gap: 3 of the arena's 8 buffers held for as long as the peer stayed connected.
TEST(ConnectionBlockArena, APeerCompletingBlocksAheadOfAGapHoldsNoArenaBuffer) {
  const MessageFactory factory(test::kAllTypes);
  BlockArena arena(8, kBlockSize);
  Connection peer(factory, arena_config());
  Connection slot(factory, arena_config(), {}, 0.0, &arena);
  ASSERT_TRUE(peer.ok());
  ASSERT_TRUE(slot.ok());
  ASSERT_TRUE(peer.send(0, small_message(peer, 7)));
  const std::vector<std::byte> bytes = pattern(3000, 11);
  for (uint8_t tag = 1; tag <= 3; ++tag) ASSERT_TRUE(peer.send(0, block_message(peer, tag, bytes)));

  std::array<std::byte, 1200> buffer{};
  int refused = 0;
  for (int i = 0; i < 300; ++i) {
    const double now = i * 0.01;
    peer.update(now);
    slot.update(now);
    const auto sequence = static_cast<uint16_t>(i);
    const size_t size = peer.generate_packet(sequence, buffer);
    if (i == 0) {
      peer.on_packet_acked(sequence);  // lost on the way, yet acked: message 0 never arrives
      continue;
    }
    if (slot.process_packet(sequence, std::span<const std::byte>(buffer.data(), size))) {
      peer.on_packet_acked(sequence);
    } else {
      ++refused;
    }
  }
  ASSERT_GE(peer.channel_counters(0).messages_acked, 1u) << "the skipped message counts as acked";
  ASSERT_GT(peer.channel_counters(0).block_fragments_sent, 0u) << "the peer did send block fragments";
  EXPECT_EQ(arena.buffers_free(), 8) << "no block ahead of the gap holds an arena buffer";
  EXPECT_EQ(slot.pool().blocks_live(), 0);
  EXPECT_EQ(slot.channel_counters(0).blocks_received, 0u);
  EXPECT_FALSE(slot.receive(0)) << "nothing is deliverable: id 0 never came";
  EXPECT_GT(refused, 0) << "the fragments were refused (not acked), so the peer has to resend them";
  EXPECT_EQ(peer.channel_counters(0).blocks_acked, 0u) << "no fragment ahead of the gap was acked";
  EXPECT_TRUE(slot.ok()) << "not an error: a correct peer never sends one, but it is not proof of malice";
}

// A received block that waits because its own slot's pool is full cannot take an arena buffer, so it must
// not hold one back from the other slots. Two slots (pools of 2) each hold an application block and a
// received one, and a second received block waits on each; a third slot on the same arena, 12 of its 16
// buffers free, asks for a block. Failed before the arena counted only waiters whose pool is below its cap:
// the two waiters were owed arena buffers they could not take, and the third slot's request was refused
// with kReservedForReceiving.
TEST(ConnectionBlockArena, ABlockWaitingOnItsOwnFullPoolHoldsNoArenaBufferBackFromOtherSlots) {
  const MessageFactory factory(test::kAllTypes);
  ConnectionConfig config = arena_config();
  config.block_pool_size = 2;
  BlockArena arena(16, kBlockSize);
  const std::vector<std::byte> bytes = pattern(3000, 21);
  std::vector<std::unique_ptr<Connection>> peers;
  std::vector<std::unique_ptr<Connection>> slots;
  std::vector<MessageHandle> held;
  std::array<std::byte, 1200> buffer{};
  for (int s = 0; s < 2; ++s) {
    peers.push_back(std::make_unique<Connection>(factory, arena_config()));  // room for 2 blocks to send
    slots.push_back(std::make_unique<Connection>(factory, config, ConnectionCallbacks{}, 0.0, &arena));
    held.push_back(block_message(*slots.back(), 1, bytes));  // the application's own block, not sent
    ASSERT_TRUE(held.back());
  }
  for (int s = 0; s < 2; ++s) {
    Connection& peer = *peers[static_cast<size_t>(s)];
    Connection& slot = *slots[static_cast<size_t>(s)];
    ASSERT_TRUE(peer.send(0, block_message(peer, 2, bytes)));
    ASSERT_TRUE(peer.send(0, block_message(peer, 3, bytes)));
    for (int i = 0; i < 400 && slot.pool().receive_waiters() == 0; ++i) {
      const double now = i * 0.01;
      peer.update(now);
      slot.update(now);
      const auto sequence = static_cast<uint16_t>(i);
      const size_t size = peer.generate_packet(sequence, buffer);
      if (slot.process_packet(sequence, std::span<const std::byte>(buffer.data(), size)))
        peer.on_packet_acked(sequence);
      if (MessageHandle m = slot.receive(0)) held.push_back(std::move(m));  // the first block, kept
    }
    ASSERT_EQ(slot.pool().blocks_live(), 2) << "slot " << s << ": its pool is at its cap";
    ASSERT_EQ(slot.pool().receive_waiters(), 1) << "slot " << s << ": its second block waits";
  }
  EXPECT_EQ(arena.buffers_free(), 12);
  Connection other(factory, config, {}, 0.0, &arena);
  EXPECT_TRUE(other.pool().can_allocate_block()) << "4 of 16 buffers in use, no waiter can take one";
  MessageHandle mine = block_message(other, 4, bytes);
  EXPECT_TRUE(mine) << "refused: the full pools' waiters held arena buffers back";

  // Once the first slot's application lets its received block go, its waiter takes that buffer.
  held[2].reset();
  slots[0]->update(5.0);
  EXPECT_EQ(slots[0]->pool().receive_waiters(), 0);
  EXPECT_EQ(slots[0]->pool().blocks_live(), 2);
  EXPECT_EQ(arena.receive_waiters(), 0) << "the other waiter's pool is still full";
  EXPECT_EQ(arena.buffers_free(), 11);
}

// A peer that receives everything and acks nothing. The sender's block waits behind a message the peer
// never acks: once that message has been the oldest unacked for block_ack_grace seconds (from the first
// update that saw it so) the connection fails with the reason, and reset() -- what the server does with
// the slot -- gives the block's buffer back. Before the deadline the block kept its buffer for as long as
// the peer stayed connected.
TEST(ConnectionBlockArena, AMessageAheadOfAQueuedBlockUnackedPastTheGraceFailsTheConnection) {
  const MessageFactory factory(test::kAllTypes);
  BlockArena arena(4, kBlockSize);
  Connection slot(factory, arena_config(), {}, 0.0, &arena);
  const double grace = slot.config().channels[0].block_ack_grace;
  ASSERT_EQ(grace, 20.0) << "the default";
  ASSERT_TRUE(slot.send(0, small_message(slot, 1)));
  ASSERT_TRUE(slot.send(0, block_message(slot, 2, pattern(3000, 3))));
  EXPECT_EQ(arena.buffers_free(), 3);
  std::array<std::byte, 1200> buffer{};
  double failed_at = -1.0;
  for (int i = 0; i <= 100 * 60 && failed_at < 0.0; ++i) {
    const double now = i * 0.01;
    slot.update(now);
    if (!slot.ok()) failed_at = now;
    slot.generate_packet(static_cast<uint16_t>(i), buffer);  // sent, never acked
  }
  ASSERT_GE(failed_at, 0.0) << "no deadline: the block kept its buffer for 60 s";
  EXPECT_GT(failed_at, grace);
  EXPECT_LE(failed_at, grace + 0.021) << "the second update past the deadline";
  EXPECT_EQ(slot.error(), ConnectionError::kBlockAckOverdue);
  EXPECT_STREQ(
      slot.error_reason(),
      "the peer did not ack the message ahead of a queued block within ChannelConfig.block_ack_grace");
  slot.reset();
  EXPECT_EQ(arena.buffers_free(), 4);
}

// The block itself at the head: it must be wholly acked within 2 x its transfer time at the block budget
// + the grace, or within the grace of the last update that saw more of its fragments acked, whichever is
// later. 64 KiB in 64 fragments at the defaults (256 KiB/s, 40 bytes charged per fragment):
// (65,536 + 64 x 40) / 262,144 = 0.2598 s, so with a 1 s grace the first deadline is 1.52 s after the first
// update that saw the block oldest. The peer acks every packet but those carrying fragment 0.
TEST(ConnectionBlockArena, ABlockNotWhollyAckedWithinTwiceItsTransferTimeAndTheGraceFailsTheConnection) {
  const MessageFactory factory(test::kAllTypes);
  ConnectionConfig config;
  config.channels[0].block_ack_grace = 1.0;
  Connection slot(factory, config);
  ASSERT_TRUE(slot.ok());
  ASSERT_TRUE(slot.send(0, block_message(slot, 2, pattern(64 * 1024, 4))));
  std::array<std::byte, 1200> buffer{};
  double failed_at = -1.0;
  double last_progress = 0.0;  // the last update that saw more fragments acked
  uint64_t acked_seen = 0;
  for (int i = 0; i < 3000 && failed_at < 0.0; ++i) {
    const double now = 0.5 + i * 0.001;
    if (slot.channel_counters(0).block_fragments_acked > acked_seen) {
      acked_seen = slot.channel_counters(0).block_fragments_acked;
      last_progress = now;
    }
    slot.update(now);
    if (!slot.ok()) failed_at = now;
    const uint64_t before = slot.channel_counters(0).block_fragments_sent;
    const uint64_t resent_before = slot.channel_counters(0).block_fragments_resent;
    slot.generate_packet(static_cast<uint16_t>(i), buffer);
    const bool fragment = slot.channel_counters(0).block_fragments_sent > before;
    // Fragment 0 goes first and every 64th send after while unacked (round robin over what is unacked).
    const bool first_fragment =
        fragment && (before == 0 || slot.channel_counters(0).block_fragments_resent > resent_before);
    if (!first_fragment) slot.on_packet_acked(static_cast<uint16_t>(i));
  }
  ASSERT_GE(failed_at, 0.0);
  EXPECT_EQ(slot.channel_counters(0).block_fragments_acked, 63u) << "all but fragment 0";
  const double deadline =
      std::max(0.5 + 2.0 * (64 * 1024 + 64 * 40) / (256.0 * 1024) + 1.0, last_progress + 1.0);
  EXPECT_GT(failed_at, deadline);
  EXPECT_LE(failed_at, deadline + 0.0021) << "the second update past the deadline";
  EXPECT_EQ(slot.error(), ConnectionError::kBlockAckOverdue);
  EXPECT_NE(std::string(slot.error_reason()).find("did not ack a block within its deadline"),
            std::string::npos);
}

// A correct peer on a link slower than the block budget (a low update rate, the in-flight limit, other
// channels in the same packets): the block takes 64 x 0.5 s = 32 s, far past 2 x its transfer time + the
// 1 s grace (1.52 s), but every half second one more fragment is acked, so the connection lives and the
// block completes. Failed before each update that saw more fragments acked gave the grace again: the
// connection failed at 1.52 s with 3 of 64 fragments acked.
TEST(ConnectionBlockArena, ABlockThatKeepsGettingFragmentsAckedOnASlowLinkKeepsItsConnection) {
  const MessageFactory factory(test::kAllTypes);
  ConnectionConfig config;
  config.channels[0].block_ack_grace = 1.0;
  Connection slot(factory, config);
  ASSERT_TRUE(slot.ok());
  ASSERT_TRUE(slot.send(0, block_message(slot, 2, pattern(64 * 1024, 5))));
  std::array<std::byte, 1200> buffer{};
  double last_ack = -1.0;
  double now = 0.0;
  for (int i = 0; i < 5000 && slot.channel_counters(0).block_fragments_acked < 64; ++i) {
    now = i * 0.01;
    slot.update(now);
    ASSERT_TRUE(slot.ok()) << "at " << now << " s, " << slot.channel_counters(0).block_fragments_acked
                           << " fragments acked: " << slot.error_reason();
    const uint64_t before = slot.channel_counters(0).block_fragments_sent;
    slot.generate_packet(static_cast<uint16_t>(i), buffer);
    const bool fragment = slot.channel_counters(0).block_fragments_sent > before;
    if (fragment && now - last_ack >= 0.5) {  // one packet with a fragment acked every half second
      slot.on_packet_acked(static_cast<uint16_t>(i));
      last_ack = now;
    }
  }
  EXPECT_EQ(slot.channel_counters(0).block_fragments_acked, 64u);
  EXPECT_GT(now, 30.0) << "the link was slower than the deadline without progress";
  EXPECT_TRUE(slot.ok()) << slot.error_reason();
}

// update() runs before the packets of its tick are read, so an ack waiting in the queue when the deadline
// passes must still count: the connection fails only at the second update past the deadline. Failed
// before: the first update past it failed the connection although the ack was already there.
TEST(ConnectionBlockArena, AnAckReadInTheUpdateThatPassesTheDeadlineStillCounts) {
  const MessageFactory factory(test::kAllTypes);
  ConnectionConfig config;
  config.channels[0].block_ack_grace = 1.0;
  Connection slot(factory, config);
  ASSERT_TRUE(slot.send(0, small_message(slot, 1)));
  ASSERT_TRUE(slot.send(0, block_message(slot, 2, pattern(3000, 6))));
  std::array<std::byte, 1200> buffer{};
  slot.update(0.0);  // the small message is oldest from here: its deadline is 1.0 s
  slot.generate_packet(0, buffer);
  slot.update(1.05);  // past the deadline; this tick's packets (the ack) are read after update()
  EXPECT_TRUE(slot.ok()) << slot.error_reason();
  slot.on_packet_acked(0);  // the ack that was waiting
  slot.update(1.1);
  EXPECT_TRUE(slot.ok()) << slot.error_reason();
  EXPECT_EQ(slot.send_queue_depth(0), 1) << "the small message acked; the block is the head now";
}

// Without a block queued the deadline does not apply: plain reliable messages may stay unacked (a peer
// whose application does not drain them holds the window) for as long as the link lives.
TEST(ConnectionBlockArena, WithoutAQueuedBlockUnackedMessagesHaveNoDeadline) {
  const MessageFactory factory(test::kAllTypes);
  Connection slot(factory, ConnectionConfig{});
  ASSERT_TRUE(slot.send(0, small_message(slot, 1)));
  std::array<std::byte, 1200> buffer{};
  for (int i = 0; i <= 120 * 10; ++i) {
    slot.update(i * 0.1);
    slot.generate_packet(static_cast<uint16_t>(i), buffer);
  }
  EXPECT_TRUE(slot.ok()) << slot.error_reason();
  EXPECT_EQ(slot.send_queue_depth(0), 1);
}

// block_ack_grace is checked with the channel's other fields: a grace of 0 would leave no time at all.
TEST(ConnectionBlockArena, TheGraceIsCheckedAndClamped) {
  ChannelConfig channel;
  channel.block_ack_grace = 0.0;
  EXPECT_STREQ(channel.check().reason(), "ChannelConfig.block_ack_grace = 0 is outside [0.1, 86400]");
  EXPECT_EQ(channel.sanitized().block_ack_grace, 0.1);
  ConnectionConfig config;
  config.channels[0].block_ack_grace = 1e9;
  EXPECT_FALSE(config.check().ok());
  EXPECT_EQ(config.sanitized().channels[0].block_ack_grace, 86400.0);
}

}  // namespace
}  // namespace bitwire
