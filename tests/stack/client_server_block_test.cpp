// Blocks through the full stack: a block travels at its channel's budget, and the server's slots share one
// arena of block buffers (StackConfig::block_buffers; docs/client-server.md section 2).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "support/stack_harness.hpp"
#include "support/test_messages.hpp"

namespace bitwire::test {
namespace {

inline constexpr MessageTypeInfo kBlockStackTypes[] = {
    describe_message<Small>("Small"), describe_message<Tiny>("Tiny"), describe_message<Numbered>("Numbered"),
    describe_message<WithBlock>("WithBlock")};
inline constexpr MessageFactory kBlockStackFactory{kBlockStackTypes};

// Server::send_packets and Client::send_packets go through Connection::send_packets: a block is sent at its
// channel's block budget (several fragment packets per update), not one fragment per update.
TEST(ClientServer, ABlockTravelsAtItsBudgetNotOneFragmentPerUpdate) {
  StackConfig config = stack_test_config(2);
  config.connection.channels[kReliable].disable_blocks = false;
  config.connection.channels[kReliable].max_block_size = 64 * 1024;
  StackHarness h(config, 16384, kBlockStackFactory);
  Client& client = h.add_client();
  h.connect(0);
  ASSERT_TRUE(h.run_until([&] { return h.all_connected(); }, 300));
  // 64 fragments of 1 KiB each way; the default block budget (256 KiB/s) pays about four a tick at 60 Hz.
  constexpr size_t kBlockBytes = 64 * 1024;
  std::vector<std::byte> bytes(kBlockBytes);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::byte>(i * 7 + 3);
  auto down = h.server->create<WithBlock>(0);
  ASSERT_TRUE(down.attach_block(bytes));
  ASSERT_TRUE(h.server->send(0, kReliable, std::move(down)));
  auto up = client.create<WithBlock>();
  ASSERT_TRUE(up.attach_block(bytes));
  ASSERT_TRUE(client.send(kReliable, std::move(up)));
  bool down_done = false, up_done = false;
  int steps = 0;
  for (; steps < 200 && !(down_done && up_done); ++steps) {
    h.step();
    while (auto m = client.receive(kReliable)) {
      down_done =
          m.block().size() == kBlockBytes && std::equal(bytes.begin(), bytes.end(), m.block().begin());
    }
    while (auto m = h.server->receive(0, kReliable)) {
      up_done = m.block().size() == kBlockBytes && std::equal(bytes.begin(), bytes.end(), m.block().begin());
    }
  }
  EXPECT_TRUE(down_done);
  EXPECT_TRUE(up_done);
  // One fragment per update would need at least 64 updates.
  EXPECT_LT(steps, 40);
  EXPECT_GT(h.server->connection(0).counters().extra_packets, 0u);
  EXPECT_GT(client.connection().counters().extra_packets, 0u);
}

// The default StackConfig (no arena: each slot owns its buffers, one for outgoing blocks; a received block
// is lent the channel's reassembly buffer): the server and two clients send blocks to each other at once,
// each queuing its next block as soon as its one buffer is free (kNoBuffer until then) and releasing what it
// receives. Every block arrives in order and byte exact both ways; nothing deadlocks; no slot ever holds
// more than its one pool buffer.
TEST(ClientServer, DefaultSlotsSendAndReceiveBlocksBothWaysAtOnce) {
  StackConfig config;
  config.protocol_id = kStackProtocolId;
  config.max_clients = 2;
  StackHarness h(config, 65536, kBlockStackFactory);
  Client* clients[2] = {&h.add_client(), &h.add_client()};
  h.connect(0);
  h.connect(1);
  ASSERT_TRUE(h.run_until([&] { return h.all_connected(); }, 300));
  ASSERT_EQ(h.server->block_arena(), nullptr);
  ASSERT_EQ(h.server->connection(0).pool().block_count(), 1);
  EXPECT_LE(h.server->memory_per_slot(), 1'000'000u);
  constexpr int kBlocks = 3;
  constexpr size_t kBlockBytes = 100'000;
  const auto block_of = [](int from, int to, int n) {
    std::vector<std::byte> bytes(kBlockBytes);
    for (size_t i = 0; i < bytes.size(); ++i)
      bytes[i] = static_cast<std::byte>(i * 31 + 7 * from + 3 * to + n);
    return bytes;
  };
  int sent_down[2] = {0, 0}, sent_up[2] = {0, 0}, got_down[2] = {0, 0}, got_up[2] = {0, 0};
  const auto done = [&] {
    for (int c = 0; c < 2; ++c)
      if (got_down[c] < kBlocks || got_up[c] < kBlocks) return false;
    return true;
  };
  int steps = 0;
  for (; steps < 600 && !done(); ++steps) {
    for (int c = 0; c < 2; ++c) {
      if (sent_down[c] < kBlocks) {
        auto m = h.server->create<WithBlock>(c);
        ASSERT_TRUE(m);
        m.as<WithBlock>()->tag = static_cast<uint8_t>(sent_down[c]);
        const BlockRefusal refusal = m.try_attach_block(block_of(0, c + 1, sent_down[c]));
        if (refusal == BlockRefusal::kNone) {
          ASSERT_TRUE(h.server->send(c, kReliable, std::move(m)));
          ++sent_down[c];
        } else {
          ASSERT_EQ(refusal, BlockRefusal::kNoBuffer) << to_string(refusal);
        }
      }
      if (sent_up[c] < kBlocks) {
        auto m = clients[c]->create<WithBlock>();
        ASSERT_TRUE(m);
        m.as<WithBlock>()->tag = static_cast<uint8_t>(sent_up[c]);
        const BlockRefusal refusal = m.try_attach_block(block_of(c + 1, 0, sent_up[c]));
        if (refusal == BlockRefusal::kNone) {
          ASSERT_TRUE(clients[c]->send(kReliable, std::move(m)));
          ++sent_up[c];
        } else {
          ASSERT_EQ(refusal, BlockRefusal::kNoBuffer) << to_string(refusal);
        }
      }
    }
    h.step();
    for (int c = 0; c < 2; ++c) {
      while (auto m = clients[c]->receive(kReliable)) {
        ASSERT_NE(m.as<WithBlock>(), nullptr);
        ASSERT_EQ(m.as<WithBlock>()->tag, got_down[c]) << "in order, once";
        const std::vector<std::byte> want = block_of(0, c + 1, got_down[c]);
        ASSERT_TRUE(std::equal(want.begin(), want.end(), m.block().begin(), m.block().end()));
        ++got_down[c];
      }
      while (auto m = h.server->receive(c, kReliable)) {
        ASSERT_NE(m.as<WithBlock>(), nullptr);
        ASSERT_EQ(m.as<WithBlock>()->tag, got_up[c]) << "in order, once";
        const std::vector<std::byte> want = block_of(c + 1, 0, got_up[c]);
        ASSERT_TRUE(std::equal(want.begin(), want.end(), m.block().begin(), m.block().end()));
        ++got_up[c];
      }
      ASSERT_LE(h.server->connection(c).pool().blocks_live(), 1);
    }
  }
  EXPECT_TRUE(done()) << "after " << steps << " steps";
  EXPECT_EQ(h.server->connected_count(), 2);
}

// A client parses a level block over many frames (holds it) while the server streams the next level block,
// reliable events and unreliable snapshots: with the default slot (its one pool buffer free on the client,
// which sends no block) the next block is reassembled in that buffer, and everything arrives while the
// first is held, its bytes unchanged; no packet is refused and nobody times out.
TEST(ClientServer, AClientHoldingABlockStillGetsTheNextBlockEventsAndSnapshots) {
  StackConfig config;
  config.protocol_id = kStackProtocolId;
  config.max_clients = 1;
  config.connection.channel_count = 3;
  config.connection.channels[1].disable_blocks = true;  // events
  config.connection.channels[2].type = ChannelType::kUnreliableUnordered;
  config.connection.channels[2].disable_blocks = true;  // snapshots
  StackHarness h(config, 65536, kBlockStackFactory);
  Client& client = h.add_client();
  h.connect(0);
  ASSERT_TRUE(h.run_until([&] { return h.all_connected(); }, 300));
  ASSERT_EQ(client.connection().pool().block_count(), 1);
  const auto level = [](int n) {
    std::vector<std::byte> bytes(60'000);
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::byte>(i * 13 + 101 * n);
    return bytes;
  };
  const std::vector<std::byte> first = level(1), second = level(2);
  const auto send_level = [&](int n, const std::vector<std::byte>& bytes) {
    auto m = h.server->create<WithBlock>(0);
    if (!m) return false;
    m.as<WithBlock>()->tag = static_cast<uint8_t>(n);
    if (m.try_attach_block(bytes) != BlockRefusal::kNone) return false;
    EXPECT_TRUE(h.server->send(0, kReliable, std::move(m)));
    return true;
  };
  ASSERT_TRUE(send_level(1, first));
  MessageHandle held;
  ASSERT_TRUE(h.run_until([&] { return static_cast<bool>(held = client.receive(kReliable)); }, 600));
  ASSERT_TRUE(std::equal(first.begin(), first.end(), held.block().begin(), held.block().end()));
  bool second_sent = false;
  MessageHandle next;
  int events_sent = 0, events_got = 0, snapshots_sent = 0, snapshots_got = 0;
  for (int step = 0; step < 1200 && !(next && events_got == 60 && snapshots_got == 240); ++step) {
    if (!second_sent) second_sent = send_level(2, second);  // once the first is acked
    if (events_sent < 60 && step % 4 == 0) {
      auto m = h.server->create<Numbered>(0);
      ASSERT_TRUE(m);
      m.as<Numbered>()->serial = static_cast<uint32_t>(events_sent++);
      ASSERT_TRUE(h.server->send(0, 1, std::move(m)));
    }
    if (snapshots_sent < 240) {
      auto m = h.server->create<Small>(0);
      ASSERT_TRUE(m);
      m.as<Small>()->value = static_cast<uint8_t>(snapshots_sent++);
      ASSERT_TRUE(h.server->send(0, 2, std::move(m)));
    }
    h.step();
    while (auto m = client.receive(1)) {
      ASSERT_EQ(m.as<Numbered>()->serial, static_cast<uint32_t>(events_got)) << "in order, once";
      ++events_got;
    }
    while (client.receive(2)) ++snapshots_got;
    if (!next) next = client.receive(kReliable);
  }
  ASSERT_TRUE(next) << "the next level arrived while the first is held";
  EXPECT_EQ(next.as<WithBlock>()->tag, 2);
  EXPECT_TRUE(std::equal(second.begin(), second.end(), next.block().begin(), next.block().end()));
  EXPECT_EQ(events_got, 60);
  EXPECT_EQ(snapshots_got, 240) << "no snapshot lost on a lossless network";
  EXPECT_TRUE(std::equal(first.begin(), first.end(), held.block().begin(), held.block().end()))
      << "the held level is untouched";
  EXPECT_EQ(client.connection().counters().packets_pool_exhausted, 0u);
  EXPECT_TRUE(client.is_connected());
  EXPECT_EQ(h.server->connected_count(), 1);
}

// The server's slots take block buffers from one shared arena (StackConfig::block_buffers): blocks flow to
// two clients through it; when it is empty a block for another client is refused with its reason, and
// once a transfer is acked and its message released the buffer serves the next one.
TEST(ClientServer, SlotsShareTheServersBlockBuffers) {
  StackConfig config = stack_test_config(2);
  config.connection.channels[kReliable].disable_blocks = false;
  config.connection.channels[kReliable].max_block_size = 4 * 1024;
  config.connection.block_pool_size = 2;
  config.connection.block_receive_reserve = 0;  // so that the application can empty the arena
  config.block_buffers = 2;
  StackHarness h(config, 16384, kBlockStackFactory);
  Client& first = h.add_client();
  Client& second = h.add_client();
  h.connect(0);
  h.connect(1);
  ASSERT_TRUE(h.run_until([&] { return h.all_connected(); }, 300));
  ASSERT_NE(h.server->block_arena(), nullptr);
  EXPECT_EQ(h.server->block_arena()->buffer_count(), 2);
  std::vector<std::byte> bytes(3000);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::byte>(i * 13 + 1);
  for (int i = 0; i < 2; ++i) {  // both shared buffers, for the first client
    auto down = h.server->create<WithBlock>(0);
    ASSERT_EQ(down.try_attach_block(bytes), BlockRefusal::kNone) << i;
    ASSERT_TRUE(h.server->send(0, kReliable, std::move(down)));
  }
  EXPECT_EQ(h.server->block_arena()->buffers_free(), 0);
  auto later = h.server->create<WithBlock>(1);
  EXPECT_EQ(later.try_attach_block(bytes), BlockRefusal::kSharedBuffersInUse)
      << "the second slot may hold 2 but the server's arena is empty";
  int received_first = 0;
  int refused_ticks = 0;
  bool second_done = false;
  int steps = 0;
  for (; steps < 600 && !(received_first == 2 && second_done); ++steps) {
    h.step();
    while (auto m = first.receive(kReliable)) {
      received_first +=
          m.block().size() == bytes.size() && std::equal(bytes.begin(), bytes.end(), m.block().begin());
    }
    while (auto m = second.receive(kReliable)) {
      second_done =
          m.block().size() == bytes.size() && std::equal(bytes.begin(), bytes.end(), m.block().begin());
    }
    // Retried each tick: granted once an acked block of the first client gave its buffer back.
    if (later) {
      if (later.try_attach_block(bytes) == BlockRefusal::kNone) {
        ASSERT_TRUE(h.server->send(1, kReliable, std::move(later)));
      } else {
        ++refused_ticks;
      }
    }
  }
  EXPECT_EQ(received_first, 2);
  EXPECT_TRUE(second_done);
  EXPECT_GT(refused_ticks, 0) << "the arena stayed empty until the first client acked a block";
  EXPECT_EQ(h.server->block_arena()->buffers_free(), 2) << "every buffer is back once the blocks are acked";
  EXPECT_GT(h.server->block_arena()->exhausted(), 0u);
}

}  // namespace
}  // namespace bitwire::test
