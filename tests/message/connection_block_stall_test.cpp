// A block reassembled in a borrowed pool buffer (the channel's own buffer lent to a block the application
// holds: connection_block_hold_test.cpp) must progress. A peer that sends every fragment of the next block
// but the last would otherwise park it in the pool's one buffer for the session and keep this side's own
// block sends refused: with no new fragment within ChannelConfig::block_ack_grace the connection fails
// with kBlockStalled. A slow peer that keeps progressing is never failed. Only a fragment of the block at
// the head may borrow the buffer: one of a later block is refused (kBlockAhead) and takes none.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "bitwire/message/connection_packet.hpp"
#include "support/block_messages.hpp"
#include "support/block_receive.hpp"
#include "support/connection_pair.hpp"
#include "support/test_messages.hpp"

namespace bitwire {
namespace {

using test::block_message;
using test::ConnectionPair;
using test::pattern;
using test::reliable;
using test::same;
using test::WithBlock;

constexpr double kTick = 1.0 / 60.0;

// A and B joined directly: what a side sends in a tick reaches the other at the next tick, A's datagrams
// only those `pass_a_to_b` lets through (all when it is empty).
class GatedPair {
  struct Port {
    EndpointCallbacks user;
    std::vector<std::vector<std::byte>>* out = nullptr;
  };
  // Declared before the connections, so they outlive the endpoints that call into them.
  std::vector<std::vector<std::byte>> a_to_b_;
  std::vector<std::vector<std::byte>> b_to_a_;
  Port ports_[2];

 public:
  explicit GatedPair(const ConnectionConfig& config)
      : a(MessageFactory(test::kAllTypes), config), b(MessageFactory(test::kAllTypes), config) {
    ports_[0] = Port{a.endpoint_callbacks(), &a_to_b_};
    ports_[1] = Port{b.endpoint_callbacks(), &b_to_a_};
    a.endpoint().set_callbacks(callbacks(ports_[0]));
    b.endpoint().set_callbacks(callbacks(ports_[1]));
  }

  void tick(double now) {
    a.update(now);
    b.update(now);
    for (const std::vector<std::byte>& d : a_to_b_) {
      if (!pass_a_to_b || pass_a_to_b(d)) b.receive_packet(d);
    }
    for (const std::vector<std::byte>& d : b_to_a_) a.receive_packet(d);
    a_to_b_.clear();
    b_to_a_.clear();
    a.send_packets();
    b.send_packets();
  }

  std::function<bool(std::span<const std::byte>)> pass_a_to_b;
  Connection a;
  Connection b;

 private:
  static EndpointCallbacks callbacks(Port& port) {
    EndpointCallbacks c;
    c.context = &port;
    c.transmit = [](void* context, uint16_t, std::span<const std::byte> datagram) {
      static_cast<Port*>(context)->out->emplace_back(datagram.begin(), datagram.end());
    };
    c.process = [](void* context, uint16_t sequence, std::span<const std::byte> payload) {
      const Port& p = *static_cast<Port*>(context);
      return p.user.process(p.user.context, sequence, payload);
    };
    c.on_ack = [](void* context, uint16_t sequence) {
      const Port& p = *static_cast<Port*>(context);
      if (p.user.on_ack != nullptr) p.user.on_ack(p.user.context, sequence);
    };
    return c;
  }
};

constexpr double kGrace = 2.0;

ConnectionConfig stall_config() {
  ConnectionConfig config;  // one block channel: one pool block buffer a side
  config.channels[0].max_block_size = 16 * 1024;
  config.channels[0].block_ack_grace = kGrace;
  return config;
}

// B receives a first block from A and holds it (its channel buffer lent); A's one buffer is free again.
// Returns the held block; `tick` is past it.
MessageHandle hold_first_block(GatedPair& pair, int& tick, const std::vector<std::byte>& first) {
  EXPECT_TRUE(pair.a.send(0, block_message(pair.a, 1, first)));
  MessageHandle held;
  for (; tick < 600 && !held; ++tick) {
    pair.tick(tick * kTick);
    held = pair.b.receive(0);
  }
  return held;
}

// Queues A's second block once A's one pool buffer is free again (the first block acked).
bool queue_second_block(GatedPair& pair, int& tick, const std::vector<std::byte>& second) {
  MessageHandle m;
  while (!(m = block_message(pair.a, 2, second)) && tick < 1200) pair.tick(tick++ * kTick);
  return m && pair.a.send(0, std::move(m));
}

TEST(BlockStall, APeerLeavingTheBorrowedBlockIncompleteFailsTheConnectionAfterTheGrace) {
  GatedPair pair(stall_config());
  int tick = 0;
  const std::vector<std::byte> first = pattern(3000, 1);
  MessageHandle held = hold_first_block(pair, tick, first);
  ASSERT_TRUE(held);
  ASSERT_TRUE(held.block_lent());
  // Eight fragments, the last 10 bytes: only datagrams carrying a whole fragment pass, so the peer's last
  // fragment never arrives, as if it never sent it.
  const std::vector<std::byte> second = pattern(7 * 1024 + 10, 2);
  pair.pass_a_to_b = [](std::span<const std::byte> d) { return d.size() > 1024; };
  ASSERT_TRUE(queue_second_block(pair, tick, second));
  const BlockReceiver& receiver = *reliable(pair.b).block_receiver();
  uint32_t seen = 0;
  double last_progress = 0.0;
  double failed_at = -1.0;
  bool refused_during_stall = true;
  for (const int end = tick + 60 * 30; tick < end; ++tick) {
    const double now = tick * kTick;
    pair.tick(now);
    if (pair.b.error() != ConnectionError::kNone) {
      failed_at = now;
      break;
    }
    if (receiver.receiving() && receiver.fragments_received() > seen) {
      seen = receiver.fragments_received();
      last_progress = now;
    }
    if (seen == 7 && tick % 30 == 0) {
      MessageHandle own = pair.b.create<WithBlock>();
      refused_during_stall =
          refused_during_stall && own.try_allocate_block(100).refusal == BlockRefusal::kNoBuffer;
    }
  }
  EXPECT_EQ(seen, 7u) << "every fragment but the last reassembled in the borrowed pool buffer";
  EXPECT_EQ(pair.b.channel_counters(0).blocks_reassembled_in_pool, 1u);
  EXPECT_TRUE(refused_during_stall) << "the partial block holds B's one pool buffer while it stalls";
  ASSERT_EQ(pair.b.error(), ConnectionError::kBlockStalled);
  ASSERT_NE(pair.b.error_reason(), nullptr);
  EXPECT_NE(std::string(pair.b.error_reason()).find("block_ack_grace"), std::string::npos)
      << pair.b.error_reason();
  EXPECT_STREQ(to_string(ConnectionError::kBlockStalled), "peer left a block incomplete");
  // Not before the grace past the last fragment stored; at the second update past it (the update after
  // the progress starts the grace).
  EXPECT_GT(failed_at, last_progress + kGrace)
      << "failed at " << failed_at << ", last progress " << last_progress;
  EXPECT_LE(failed_at, last_progress + kGrace + 4 * kTick);
  EXPECT_TRUE(same(held.block(), first)) << "the held block is untouched";
  // The server drops a failed slot: its reset gives the pool buffer back.
  pair.b.reset();
  EXPECT_EQ(pair.b.pool().blocks_live(), 0);
  MessageHandle own = pair.b.create<WithBlock>();
  EXPECT_EQ(own.try_allocate_block(100).refusal, BlockRefusal::kNone);
}

// The peer's datagrams get through one each 1.5 s (below the 2 s grace): the block takes over four graces
// to arrive (10.6 s), each new fragment giving the grace again, and nobody fails.
TEST(BlockStall, ASlowButProgressingPeerIsNeverFailed) {
  GatedPair pair(stall_config());
  int tick = 0;
  const std::vector<std::byte> first = pattern(3000, 1);
  MessageHandle held = hold_first_block(pair, tick, first);
  ASSERT_TRUE(held);
  const std::vector<std::byte> second = pattern(8 * 1024, 3);
  bool open = false;
  pair.pass_a_to_b = [&open](std::span<const std::byte> d) {
    if (!open || d.size() <= 1024) return false;  // only a datagram carrying a fragment
    open = false;
    return true;
  };
  ASSERT_TRUE(queue_second_block(pair, tick, second));
  const int start = tick;
  MessageHandle next;
  for (const int end = tick + 60 * 40; tick < end && !next; ++tick) {
    if ((tick - start) % 90 == 0) open = true;
    pair.tick(tick * kTick);
    ASSERT_EQ(pair.b.error(), ConnectionError::kNone) << pair.b.error_reason();
    ASSERT_EQ(pair.a.error(), ConnectionError::kNone) << pair.a.error_reason();
    next = pair.b.receive(0);
  }
  ASSERT_TRUE(next);
  EXPECT_TRUE(same(next.block(), second));
  EXPECT_GT((tick - start) * kTick, 4 * kGrace) << "the transfer outlasted the grace many times";
  EXPECT_EQ(pair.b.channel_counters(0).blocks_reassembled_in_pool, 1u);
  EXPECT_TRUE(same(held.block(), first));
}

// B holds block 0 (the head moves to id 1); a fragment of block 2 arrives while id 1 is missing. It is
// refused as ahead of the head and takes no pool buffer: B's one buffer stays free for its own blocks.
TEST(BlockStall, AFragmentAheadOfTheHeadWhileABlockIsHeldTakesNoPoolBuffer) {
  ConnectionConfig config;
  config.channels[0].max_block_size = 16 * 1024;
  ConnectionPair pair(MessageFactory(test::kAllTypes), config, NetworkConditions{}, 31);
  const std::vector<std::byte> first = pattern(3000, 1);
  ASSERT_TRUE(pair.a.send(0, block_message(pair.a, 1, first)));
  int tick = 0;
  MessageHandle held;
  for (; tick < 300 && !held; ++tick) {
    pair.tick(tick * kTick);
    held = pair.b.receive(0);
  }
  ASSERT_TRUE(held);
  ASSERT_TRUE(held.block_lent());
  ASSERT_EQ(reliable(pair.b).receive_head_id(), 1);
  const int free_before = pair.b.pool().blocks_free();
  ASSERT_EQ(free_before, 1);

  const std::vector<std::byte> data = pattern(1024, 9);
  std::vector<OutgoingEntry> entries(1);
  entries[0].channel = 0;
  entries[0].block = true;
  entries[0].fragment = OutgoingFragment{2, 3, 1, data, nullptr};
  std::vector<std::byte> payload(2048);
  const size_t size = write_connection_packet(pair.a.layout(), entries, payload);
  ASSERT_GT(size, 0u);
  const uint64_t ahead_before = pair.b.counters().packets_block_ahead;
  ASSERT_TRUE(pair.a.endpoint().send_packet(std::span<const std::byte>(payload.data(), size)));
  pair.link.update(++tick * kTick);

  EXPECT_EQ(pair.b.counters().packets_block_ahead, ahead_before + 1) << "refused as ahead of the head";
  EXPECT_EQ(pair.b.pool().blocks_free(), free_before) << "no pool buffer taken";
  EXPECT_EQ(pair.b.channel_counters(0).blocks_reassembled_in_pool, 0u);
  EXPECT_EQ(pair.b.error(), ConnectionError::kNone);
  MessageHandle own = pair.b.create<WithBlock>();
  EXPECT_EQ(own.try_allocate_block(100).refusal, BlockRefusal::kNone);
  EXPECT_TRUE(same(held.block(), first));
}

}  // namespace
}  // namespace bitwire
