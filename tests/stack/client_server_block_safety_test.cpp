// The server's shared block arena against peers that would hold its buffers (docs/client-server.md
// section 2): a peer that never acks a block the server sends it is disconnected after the block's deadline
// and the slot's buffers return; one that acks slowly within it keeps its connection; a received block
// waiting for an empty arena gets the next freed buffer; the arena is whole again after a client leaves
// mid-transfer, whichever way; and correct transfers over a lossy link still complete on a shared arena.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "support/block_messages.hpp"
#include "support/stack_harness.hpp"
#include "support/test_messages.hpp"

namespace bitwire::test {
namespace {

inline constexpr MessageTypeInfo kBlockStackTypes[] = {
    describe_message<Small>("Small"), describe_message<Tiny>("Tiny"), describe_message<Numbered>("Numbered"),
    describe_message<WithBlock>("WithBlock")};
inline constexpr MessageFactory kBlockStackFactory{kBlockStackTypes};

// The harness's two channels with blocks on the reliable one.
StackConfig block_config(int max_clients, int max_block_size) {
  StackConfig config = stack_test_config(max_clients);
  config.connection.channels[kReliable].disable_blocks = false;
  config.connection.channels[kReliable].max_block_size = max_block_size;
  return config;
}

// Seconds the channel's block budget takes to pay for a block of `size` bytes: its bytes plus the overhead
// charged per fragment, at the block bandwidth (derived here, not read from the runtime).
double transfer_seconds(const BlockConfig& block, size_t size) {
  const double fragments = std::ceil(static_cast<double>(size) / block.fragment_size);
  return (static_cast<double>(size) + fragments * block.fragment_overhead_bytes) /
         block.bandwidth_bytes_per_second;
}

bool same_block(const MessageHandle& m, const std::vector<std::byte>& bytes) {
  return m.block().size() == bytes.size() && std::equal(bytes.begin(), bytes.end(), m.block().begin());
}

// A block the server sends to a client whose every datagram large enough to carry a fragment is lost: the
// client stays connected (keep-alives and the server's small packets reach it, its own packets reach the
// server) but never acks a fragment. Before the deadline it held its slot's arena buffer for as long as it
// stayed connected; now the server drops it with the reason once the block's deadline has passed (twice
// its transfer time at the channel's block bandwidth + block_ack_grace) and its buffer is back. A second
// client receiving the same kind of block over a clean link is not disturbed.
TEST(ClientServerBlockSafety, APeerThatNeverAcksAServerBlockIsDisconnectedAfterItsDeadline) {
  StackConfig config = block_config(2, 16 * 1024);
  config.block_buffers = 8;
  StackHarness h(config, 16384, kBlockStackFactory);
  h.add_client();
  Client& clean = h.add_client();
  h.connect(0);
  h.connect(1);
  ASSERT_TRUE(h.run_until([&] { return h.all_connected(); }, 300));
  drain_events(*h.server);
  const Address mute = h.transports[0]->local_address();
  h.network.on_send = [&](LoopbackNetwork::Datagram& d) { return !(d.to == mute && d.size > 600); };
  const std::vector<std::byte> bytes = pattern(12000, 5);
  for (int i = 0; i < 2; ++i) {
    MessageHandle down = h.server->create<WithBlock>(i);
    ASSERT_EQ(down.try_attach_block(bytes), BlockRefusal::kNone);
    ASSERT_TRUE(h.server->send(i, kReliable, std::move(down)));
  }
  const BlockArena& arena = *h.server->block_arena();
  EXPECT_EQ(arena.buffers_free(), arena.buffer_count() - 2);
  const ChannelConfig& channel = h.server->config().connection.channels[kReliable];
  const double deadline =
      2.0 * transfer_seconds(channel.block_config(), bytes.size()) + channel.block_ack_grace;
  const double start = h.now;
  double dropped_at = -1.0;
  std::string reason;
  bool clean_done = false;
  for (int step = 0; step < static_cast<int>((deadline + 10.0) * 60.0) && dropped_at < 0.0; ++step) {
    h.step();
    for (const ServerEvent& e : drain_events(*h.server)) {
      if (e.kind == ServerEvent::Kind::kDisconnected && e.client_index == 0) {
        dropped_at = h.now;
        reason = e.protocol_error != nullptr ? e.protocol_error : "";
      }
    }
    while (MessageHandle m = clean.receive(kReliable)) clean_done = same_block(m, bytes);
  }
  ASSERT_GE(dropped_at, 0.0) << "still connected " << deadline + 10.0 << " s after the block was sent";
  EXPECT_GE(dropped_at - start, deadline) << "never before the deadline";
  EXPECT_LE(dropped_at - start, deadline + 0.1) << "within a few ticks after it";
  EXPECT_NE(reason.find("did not ack a block"), std::string::npos) << reason;
  EXPECT_TRUE(clean_done);
  EXPECT_TRUE(h.server->is_connected(1));
  EXPECT_EQ(arena.buffers_free(), arena.buffer_count())
      << "the dropped slot's buffer and the acked one are back";
}

// The same block to a client whose fragments are all lost for 15 s and then arrive: it acks late, within
// the deadline (2 x transfer + the 20 s grace), so it keeps its connection and gets the block.
TEST(ClientServerBlockSafety, APeerThatAcksSlowlyWithinTheDeadlineKeepsItsConnection) {
  StackHarness h(block_config(1, 16 * 1024), 16384, kBlockStackFactory);
  Client& slow = h.add_client();
  h.connect(0);
  ASSERT_TRUE(h.run_until([&] { return h.all_connected(); }, 300));
  drain_events(*h.server);
  const Address address = h.transports[0]->local_address();
  const double open_at = h.now + 15.0;
  h.network.on_send = [&](LoopbackNetwork::Datagram& d) {
    return !(d.to == address && d.size > 600 && h.now < open_at);
  };
  const std::vector<std::byte> bytes = pattern(12000, 6);
  MessageHandle down = h.server->create<WithBlock>(0);
  ASSERT_EQ(down.try_attach_block(bytes), BlockRefusal::kNone);
  ASSERT_TRUE(h.server->send(0, kReliable, std::move(down)));
  bool done = false;
  for (int step = 0; step < 60 * 18 && !done; ++step) {
    h.step();
    while (MessageHandle m = slow.receive(kReliable)) done = same_block(m, bytes);
  }
  EXPECT_TRUE(done);
  EXPECT_GE(h.now, open_at);
  for (int step = 0; step < 30; ++step) h.step();  // the last acks
  EXPECT_TRUE(drain_events(*h.server).empty()) << "no disconnect";
  EXPECT_TRUE(h.server->is_connected(0));
  EXPECT_EQ(h.server->connection(0).channel_counters(kReliable).blocks_acked, 1u);
}

// A block a client sends completes while every arena buffer is held by the application (blocks of another
// slot not sent yet): it waits in its channel (counted in blocks_waiting_buffer), and when the application
// frees a buffer and at once asks for it again, the waiting received block is served first. Before, the
// hand-off to waiting received blocks held only within one pool, so the other slot's request took the
// buffer and the received block waited on.
TEST(ClientServerBlockSafety, AReceivedBlockWaitingForAnEmptyArenaGetsTheNextFreedBuffer) {
  StackConfig config = block_config(2, 4 * 1024);
  config.connection.block_pool_size = 2;
  config.connection.block_receive_reserve = 0;  // the application may take every buffer
  config.block_buffers = 2;
  StackHarness h(config, 16384, kBlockStackFactory);
  Client& sender = h.add_client();
  h.add_client();
  h.connect(0);
  h.connect(1);
  ASSERT_TRUE(h.run_until([&] { return h.all_connected(); }, 300));
  const std::vector<std::byte> bytes = pattern(3000, 7);
  MessageHandle held[2];
  for (MessageHandle& m : held) {
    m = h.server->create<WithBlock>(1);
    ASSERT_EQ(m.try_attach_block(bytes), BlockRefusal::kNone);
  }
  ASSERT_EQ(h.server->block_arena()->buffers_free(), 0);
  MessageHandle up = sender.create<WithBlock>();
  ASSERT_EQ(up.try_attach_block(bytes), BlockRefusal::kNone);
  ASSERT_TRUE(sender.send(kReliable, std::move(up)));
  const Connection& slot = h.server->connection(0);
  ASSERT_TRUE(h.run_until([&] { return slot.channel_counters(kReliable).blocks_waiting_buffer == 1; }, 300));
  EXPECT_FALSE(h.server->receive(0, kReliable)) << "no buffer: the block waits, nothing is delivered";
  held[0].reset();
  MessageHandle greedy = h.server->create<WithBlock>(1);
  EXPECT_EQ(greedy.try_attach_block(bytes), BlockRefusal::kReservedForReceiving)
      << "the freed buffer is owed to the waiting received block";
  h.step();
  MessageHandle got = h.server->receive(0, kReliable);
  ASSERT_TRUE(got);
  EXPECT_TRUE(same_block(got, bytes));
  EXPECT_EQ(slot.channel_counters(kReliable).blocks_waiting_buffer, 1u);
}

// Blocks both ways, then the client leaves while a server block is in flight (an arena buffer held by the
// outgoing block), one client block was received but not yet taken by the application (a buffer held in
// the receive queue) and a second client block is half transferred: after the slot is freed every arena
// buffer is free again, whether the client disconnects, the server disconnects it, or it goes silent and
// times out.
TEST(ClientServerBlockSafety, TheArenaIsWholeAgainAfterAClientLeavesMidTransfer) {
  enum class Leave { kClientDisconnects, kServerDisconnects, kClientTimesOut };
  for (const Leave leave : {Leave::kClientDisconnects, Leave::kServerDisconnects, Leave::kClientTimesOut}) {
    SCOPED_TRACE(leave == Leave::kClientDisconnects   ? "the client disconnects"
                 : leave == Leave::kServerDisconnects ? "the server disconnects the client"
                                                      : "the client times out");
    StackConfig config = block_config(1, 64 * 1024);
    config.block_buffers = 4;
    config.connection.block_pool_size =
        4;  // the client queues two blocks at once (its default is one buffer)
    StackHarness h(config, 16384, kBlockStackFactory);
    Client& client = h.add_client();
    h.connect(0);
    ASSERT_TRUE(h.run_until([&] { return h.all_connected(); }, 300));
    const BlockArena& arena = *h.server->block_arena();
    const std::vector<std::byte> small = pattern(4000, 1);
    const std::vector<std::byte> large = pattern(64 * 1024, 2);
    MessageHandle down = h.server->create<WithBlock>(0);
    ASSERT_EQ(down.try_attach_block(large), BlockRefusal::kNone);
    ASSERT_TRUE(h.server->send(0, kReliable, std::move(down)));
    for (const std::vector<std::byte>* bytes : {&small, &large}) {
      MessageHandle up = client.create<WithBlock>();
      ASSERT_EQ(up.try_attach_block(*bytes), BlockRefusal::kNone);
      ASSERT_TRUE(client.send(kReliable, std::move(up)));
    }
    const Connection& slot = h.server->connection(0);
    const ChannelCounters& counters = slot.channel_counters(kReliable);
    ASSERT_TRUE(h.run_until(
        [&] { return counters.blocks_received == 1 && counters.block_fragments_acked > 0; }, 120));
    ASSERT_EQ(counters.blocks_acked, 0u) << "the server's block is still in flight";
    ASSERT_EQ(counters.blocks_received, 1u) << "the second client block is still in flight";
    EXPECT_EQ(arena.buffers_free(), arena.buffer_count() - 2) << "the block in flight and the one received";
    switch (leave) {
      case Leave::kClientDisconnects:
        client.disconnect(h.now);
        break;
      case Leave::kServerDisconnects:
        h.server->disconnect(0);
        break;
      case Leave::kClientTimesOut:
        h.paused.assign(1, true);
        break;
    }
    ASSERT_TRUE(h.run_until([&] { return h.server->connected_count() == 0; }, 60 * 10));
    EXPECT_EQ(arena.buffers_free(), arena.buffer_count());
    EXPECT_EQ(h.server->connection(0).pool().live(), 0);
  }
}

// A 256 KiB block each way through a shared arena (block_buffers = 0) over a link that loses 10% and 25% of
// every datagram both ways: both arrive byte-exact within 1.5 x the time the block budget implies at that
// loss plus the resend tail (tests/message/connection_block_test.cpp derives the same cap), nobody is
// disconnected, and the arena is whole once the messages are released.
TEST(ClientServerBlockSafety, ABlockAtTenAndTwentyFivePercentLossCompletesOnASharedArena) {
  for (const double loss : {10.0, 25.0}) {
    SCOPED_TRACE(std::to_string(loss) + "% loss");
    StackConfig config = block_config(2, 256 * 1024);
    config.block_buffers = 0;
    StackHarness h(config, 16384, kBlockStackFactory);
    Client& client = h.add_client();
    h.connect(0);
    ASSERT_TRUE(h.run_until([&] { return h.all_connected(); }, 300));
    ASSERT_NE(h.server->block_arena(), nullptr) << "block_buffers = 0 shares an arena";
    drain_events(*h.server);
    uint32_t x = 0x1055u + static_cast<uint32_t>(loss);
    h.network.on_send = [&](LoopbackNetwork::Datagram&) {
      x = x * 1664525u + 1013904223u;
      return (x >> 8) % 10000 >= static_cast<uint32_t>(loss * 100.0);
    };
    const std::vector<std::byte> down_bytes = pattern(256 * 1024, 3);
    const std::vector<std::byte> up_bytes = pattern(256 * 1024, 4);
    MessageHandle down = h.server->create<WithBlock>(0);
    ASSERT_EQ(down.try_attach_block(down_bytes), BlockRefusal::kNone);
    ASSERT_TRUE(h.server->send(0, kReliable, std::move(down)));
    MessageHandle up = client.create<WithBlock>();
    ASSERT_EQ(up.try_attach_block(up_bytes), BlockRefusal::kNone);
    ASSERT_TRUE(client.send(kReliable, std::move(up)));
    const BlockConfig block = config.connection.channels[kReliable].block_config();
    const double budget = transfer_seconds(block, 256 * 1024) / (1.0 - loss / 100.0);
    const double tail = block.min_resend_delay * std::log(256.0) / std::log(100.0 / loss);
    const int cap = static_cast<int>(std::ceil((1.5 * budget + tail) * 60.0));
    int down_at = -1, up_at = -1;
    for (int step = 0; step < 4 * cap && (down_at < 0 || up_at < 0); ++step) {
      h.step();
      if (MessageHandle m = client.receive(kReliable)) {
        EXPECT_TRUE(same_block(m, down_bytes));
        down_at = step;
      }
      if (MessageHandle m = h.server->receive(0, kReliable)) {
        EXPECT_TRUE(same_block(m, up_bytes));
        up_at = step;
      }
    }
    EXPECT_GE(down_at, 0);
    EXPECT_GE(up_at, 0);
    EXPECT_LE(down_at, cap);
    EXPECT_LE(up_at, cap);
    for (int step = 0; step < 60; ++step) h.step();  // the last acks
    EXPECT_TRUE(drain_events(*h.server).empty()) << "no disconnect";
    EXPECT_EQ(client.connection().error(), ConnectionError::kNone) << "the client's own deadline held too";
    EXPECT_TRUE(client.is_connected());
    EXPECT_EQ(h.server->block_arena()->buffers_free(), h.server->block_arena()->buffer_count());
    std::printf("%.0f%% loss: server -> client after %d ticks, client -> server after %d (cap %d)\n", loss,
                down_at, up_at, cap);
  }
}

}  // namespace
}  // namespace bitwire::test
