// Server::send_packets(client_index): a game that sends each client's packets at the end of its turn in one
// walk (instead of send_packets() after the walk) gets the same packets to every client: the same counts,
// bytes and messages delivered, with the datagrams of the walk held in one transport batch.
#include <gtest/gtest.h>

#include <vector>

#include "support/stack_harness.hpp"

namespace bitwire::test {
namespace {

struct Delivered {
  std::vector<uint32_t> reliable;    // serials, in the order received
  std::vector<uint32_t> unreliable;  // serials, in the order received
};

// Four clients; every tick the server reads every client's messages and sends each a reliable message every
// fifth tick and an unreliable one every tick, then sends either per client (`per_client`) or after the
// walk. Returns what each client received; `stats` gets the server's per-slot statistics.
std::vector<Delivered> run(bool per_client, std::vector<StackStats>& stats) {
  StackHarness h(4);
  for (int i = 0; i < 4; ++i) h.add_client();
  for (size_t i = 0; i < 4; ++i) h.connect(i);
  EXPECT_TRUE(h.run_until([&] { return h.all_connected(); }, 300));
  drain_events(*h.server);
  h.per_client_sends = per_client;
  uint32_t tick = 0;
  h.on_server = [&] {
    Server& server = *h.server;
    const TransportBatch batch(h.server_transport);
    for (int i = 0; i < server.max_clients(); ++i) {
      if (!server.is_connected(i)) continue;
      while (auto m = server.receive(i, kReliable)) {
      }
      while (auto m = server.receive(i, kUnreliable)) {
      }
      if (tick % 5 == 0) {
        auto message = server.create<Numbered>(i);
        message.as<Numbered>()->serial = tick * 10 + static_cast<uint32_t>(i);
        EXPECT_EQ(server.send(i, kReliable, std::move(message)).result, SendResult::kQueued);
      }
      auto message = server.create<Numbered>(i);
      message.as<Numbered>()->serial = tick * 10 + static_cast<uint32_t>(i);
      message.as<Numbered>()->payload.resize(tick % 30);
      EXPECT_EQ(server.send(i, kUnreliable, std::move(message)).result, SendResult::kQueued);
      if (per_client) server.send_packets(i);
    }
    ++tick;
  };
  std::vector<Delivered> delivered(4);
  for (int step = 0; step < 200; ++step) {
    h.step();
    for (size_t c = 0; c < 4; ++c) {
      while (auto m = h.clients[c]->receive(kReliable))
        delivered[c].reliable.push_back(m.as<Numbered>()->serial);
      while (auto m = h.clients[c]->receive(kUnreliable))
        delivered[c].unreliable.push_back(m.as<Numbered>()->serial);
    }
  }
  stats.clear();
  for (int i = 0; i < 4; ++i) stats.push_back(h.server->stats(i));
  return delivered;
}

TEST(ClientServerSendOne, EachClientGetsWhatSendPacketsSends) {
  std::vector<StackStats> walk_stats, one_stats;
  const std::vector<Delivered> walk = run(false, walk_stats);
  const std::vector<Delivered> one = run(true, one_stats);
  for (size_t c = 0; c < 4; ++c) {
    EXPECT_EQ(one[c].reliable, walk[c].reliable) << "client " << c;
    EXPECT_EQ(one[c].unreliable, walk[c].unreliable) << "client " << c;
    EXPECT_EQ(walk[c].reliable.size(), 40u) << "every fifth of 200 ticks";
    EXPECT_GE(walk[c].unreliable.size(), 199u);
  }
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(one_stats[i].packets_sent, walk_stats[i].packets_sent) << "slot " << i;
    EXPECT_EQ(one_stats[i].payload_bytes_sent, walk_stats[i].payload_bytes_sent) << "slot " << i;
    EXPECT_EQ(one_stats[i].packets_received, walk_stats[i].packets_received) << "slot " << i;
    EXPECT_EQ(one_stats[i].payloads_refused, 0u);
  }
}

TEST(ClientServerSendOne, AFreeOrUnknownSlotSendsNothing) {
  StackHarness h(4);
  h.add_client();
  h.connect(0);
  ASSERT_TRUE(h.run_until([&] { return h.all_connected(); }, 300));
  int connected = -1;
  for (int i = 0; i < 4; ++i) {
    if (h.server->is_connected(i)) connected = i;
  }
  ASSERT_GE(connected, 0);
  const uint64_t before = h.server->stats(connected).packets_sent;
  const uint64_t queued = h.network.sent();
  for (int i : {-1, 4, 1000}) h.server->send_packets(i);
  for (int i = 0; i < 4; ++i) {
    if (i != connected) h.server->send_packets(i);
  }
  EXPECT_EQ(h.network.sent(), queued);
  h.server->send_packets(connected);
  EXPECT_EQ(h.server->stats(connected).packets_sent, before + 1);
  EXPECT_EQ(h.network.sent(), queued + 1);
}

}  // namespace
}  // namespace bitwire::test
