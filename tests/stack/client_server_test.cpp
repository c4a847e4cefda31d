// The full stack -- bitwire::Server and bitwire::Client (netcode -> Endpoint -> Connection) -- on the
// in-process loopback network: connect, every channel both ways, disconnect, clean slot on reconnect, server
// full, timeouts, restart, an exactly-once reliable stream through a lossy, duplicating, reordering link,
// hostile datagrams at the server while clients are served, no allocation after construction, the config.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "support/endpoint_harness.hpp"  // the counting global allocator
#include "support/simulated_transport.hpp"
#include "support/stack_harness.hpp"
#include "support/bytes.hpp"

namespace bitwire::test {
namespace {

// Per client and direction: the reliable serials sent and the next one expected.
struct Stream {
  uint32_t next_send = 0;
  uint32_t next_expected = 0;
  int unreliable_received = 0;
  bool out_of_order = false;
};

MessageHandle make_numbered(MessageHandle message, uint32_t serial) {
  if (auto* numbered = message.as<Numbered>()) {
    numbered->serial = serial;
    numbered->level = static_cast<int32_t>(serial % 101);
    const size_t length = serial % 40;
    numbered->payload.resize(length);
    for (size_t i = 0; i < length; ++i) numbered->payload[i] = static_cast<uint8_t>(serial + i);
  }
  return message;
}

bool check_numbered(const Numbered& numbered, Stream& stream) {
  if (numbered.serial != stream.next_expected) stream.out_of_order = true;
  stream.next_expected = numbered.serial + 1;
  if (numbered.level != static_cast<int32_t>(numbered.serial % 101)) return false;
  if (numbered.payload.size() != numbered.serial % 40) return false;
  for (size_t i = 0; i < numbered.payload.size(); ++i) {
    if (numbered.payload[i] != static_cast<uint8_t>(numbered.serial + i)) return false;
  }
  return true;
}

// Drives, each tick: every connected client sends one reliable and one unreliable message (while it has
// reliable ones left) and the server answers in kind; both sides read every channel.
class Traffic {
 public:
  Traffic(StackHarness& h, uint32_t reliable_per_client) : h_(h), count_(reliable_per_client) {
    up_.resize(h.clients.size());
    down_.resize(static_cast<size_t>(h.server->max_clients()));
    slot_of_.assign(h.clients.size(), -1);
  }

  void tick() {
    for (size_t c = 0; c < h_.clients.size(); ++c) {
      Client& client = *h_.clients[c];
      if (!client.is_connected()) continue;
      slot_of_[c] = client.client_index();
      Stream& up = up_[c];
      if (up.next_send < count_ && client.connection().send_queue_depth(kReliable) < 200) {
        ASSERT_TRUE(client.send(kReliable, make_numbered(client.create<Numbered>(), up.next_send)));
        ++up.next_send;
        auto small = client.create<Small>();
        small.as<Small>()->value = static_cast<uint8_t>(c);
        ASSERT_TRUE(client.send(kUnreliable, std::move(small)));
      }
      Stream& down = down_[static_cast<size_t>(client.client_index())];
      while (auto message = client.receive(kReliable)) {
        ASSERT_NE(message.as<Numbered>(), nullptr);
        EXPECT_TRUE(check_numbered(*message.as<Numbered>(), down));
      }
      while (auto message = client.receive(kUnreliable)) {
        ASSERT_NE(message.as<Small>(), nullptr);
        EXPECT_EQ(message.as<Small>()->value, static_cast<uint8_t>(200 + client.client_index()));
        ++down.unreliable_received;
      }
    }
  }

  void server_tick() {
    Server& server = *h_.server;
    for (int i = 0; i < server.max_clients(); ++i) {
      if (!server.is_connected(i)) continue;
      Stream& down = down_[static_cast<size_t>(i)];
      if (down.next_send < count_ && server.connection(i).send_queue_depth(kReliable) < 200) {
        ASSERT_TRUE(server.send(i, kReliable, make_numbered(server.create<Numbered>(i), down.next_send)));
        ++down.next_send;
        auto small = server.create<Small>(i);
        small.as<Small>()->value = static_cast<uint8_t>(200 + i);
        ASSERT_TRUE(server.send(i, kUnreliable, std::move(small)));
      }
      // The server's view of a slot's upward stream lives with the client that holds the slot.
      Stream* up = nullptr;
      for (size_t c = 0; c < slot_of_.size(); ++c) {
        if (slot_of_[c] == i) up = &up_[c];
      }
      while (auto message = server.receive(i, kReliable)) {
        ASSERT_NE(up, nullptr);
        ASSERT_NE(message.as<Numbered>(), nullptr);
        EXPECT_TRUE(check_numbered(*message.as<Numbered>(), *up));
      }
      while (auto message = server.receive(i, kUnreliable)) {
        ASSERT_NE(up, nullptr);
        ++up->unreliable_received;
      }
    }
  }

  void install() {
    h_.on_server = [this] { server_tick(); };
  }

  bool done() const {
    for (size_t c = 0; c < up_.size(); ++c) {
      if (up_[c].next_expected != count_) return false;
      const int slot = slot_of_[c];
      if (slot < 0 || down_[static_cast<size_t>(slot)].next_expected != count_) return false;
    }
    return true;
  }

  std::vector<Stream> up_;
  std::vector<Stream> down_;
  std::vector<int> slot_of_;

 private:
  StackHarness& h_;
  uint32_t count_;
};

TEST(ClientServer, ConnectEveryChannelBothWaysAndDisconnect) {
  StackHarness h(8);
  for (int i = 0; i < 8; ++i) h.add_client();
  for (size_t i = 0; i < 8; ++i) h.connect(i);
  ASSERT_TRUE(h.run_until([&] { return h.all_connected(); }, 300));
  const auto connects = drain_events(*h.server);
  ASSERT_EQ(connects.size(), 8u);
  for (const ServerEvent& e : connects) EXPECT_EQ(e.kind, ServerEvent::Kind::kConnected);
  for (auto& client : h.clients) {
    const auto events = drain_events(*client);
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].kind, ClientEvent::Kind::kConnected);
  }

  Traffic traffic(h, 200);
  traffic.install();
  ASSERT_TRUE(h.run_until(
      [&] {
        traffic.tick();
        return traffic.done();
      },
      1500));
  for (size_t c = 0; c < 8; ++c) {
    EXPECT_FALSE(traffic.up_[c].out_of_order);
    EXPECT_EQ(traffic.up_[c].unreliable_received, 200)
        << "a loss-free link delivers every unreliable message";
    const int slot = traffic.slot_of_[c];
    EXPECT_FALSE(traffic.down_[static_cast<size_t>(slot)].out_of_order);
    EXPECT_EQ(traffic.down_[static_cast<size_t>(slot)].unreliable_received, 200);
    const StackStats stats = h.server->stats(slot);
    EXPECT_GT(stats.packets_received, 200u);
    EXPECT_GT(stats.sent_kbps, 0.0);
    EXPECT_GT(stats.received_kbps, 0.0);
    EXPECT_EQ(stats.packet_loss_percent, 0.0);
    EXPECT_GT(h.clients[c]->stats().packets_received, 200u);
  }
  EXPECT_EQ(h.server->netcode().largest_reply_ratio_violations(), 0u);

  for (auto& client : h.clients) client->disconnect(h.now);
  h.step();
  EXPECT_EQ(h.server->connected_count(), 0);
  const auto leaves = drain_events(*h.server);
  ASSERT_EQ(leaves.size(), 8u);
  for (const ServerEvent& e : leaves) {
    EXPECT_EQ(e.kind, ServerEvent::Kind::kDisconnected);
    EXPECT_EQ(e.reason, netcode::DisconnectReason::kClientDisconnected);
    EXPECT_EQ(e.protocol_error, nullptr);
  }
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(h.server->connection(i).pool().live(), 0) << "slot " << i;
  }
}

// A client that leaves with reliable messages in flight both ways, and comes back into the same slot, sees
// nothing of its previous session, and neither does the server.
TEST(ClientServer, ReconnectGetsACleanSlot) {
  StackHarness h(1);
  Client& client = h.add_client();
  h.connect(0);
  ASSERT_TRUE(h.run_until([&] { return h.all_connected(); }, 300));
  drain_events(*h.server);
  // From now on nothing reaches anybody: what is sent stays unacked, queued on both sides.
  h.network.on_send = [](LoopbackNetwork::Datagram&) { return false; };
  for (uint32_t i = 0; i < 20; ++i) {
    ASSERT_TRUE(client.send(kReliable, make_numbered(client.create<Numbered>(), 500 + i)));
    ASSERT_TRUE(h.server->send(0, kReliable, make_numbered(h.server->create<Numbered>(0), 700 + i)));
  }
  for (int i = 0; i < 5; ++i) h.step();
  EXPECT_EQ(client.connection().send_queue_depth(kReliable), 20);
  EXPECT_EQ(h.server->connection(0).send_queue_depth(kReliable), 20);
  EXPECT_GT(h.server->connection(0).pool().live(), 0);

  client.disconnect(h.now);
  EXPECT_EQ(client.connection().send_queue_depth(kReliable), 0) << "the client's session is released at once";
  EXPECT_EQ(client.connection().pool().live(), 0);
  h.server->disconnect(0);  // the client's disconnect packets were lost; the server lets it go too
  EXPECT_EQ(h.server->connection(0).send_queue_depth(kReliable), 0);
  EXPECT_EQ(h.server->connection(0).pool().live(), 0)
      << "messages in flight released";

  h.network.on_send = nullptr;
  h.connect(0);
  ASSERT_TRUE(h.run_until([&] { return h.all_connected(); }, 300));
  EXPECT_EQ(client.client_index(), 0);
  ASSERT_TRUE(client.send(kReliable, make_numbered(client.create<Numbered>(), 0)));
  ASSERT_TRUE(h.server->send(0, kReliable, make_numbered(h.server->create<Numbered>(0), 0)));
  std::vector<uint32_t> at_server, at_client;
  for (int i = 0; i < 60; ++i) {
    h.step();
    while (auto m = h.server->receive(0, kReliable)) at_server.push_back(m.as<Numbered>()->serial);
    while (auto m = client.receive(kReliable)) at_client.push_back(m.as<Numbered>()->serial);
  }
  EXPECT_EQ(at_server, std::vector<uint32_t>{0}) << "nothing from the previous session";
  EXPECT_EQ(at_client, std::vector<uint32_t>{0}) << "nothing from the previous session";
}

// Connection packets larger than one netcode payload travel as Endpoint fragments, one per netcode packet.
TEST(ClientServer, LargePacketsTravelAsFragmentsThroughNetcode) {
  StackConfig config = stack_test_config(2);
  config.connection.max_packet_size = 4000;
  StackHarness h(config, 16384);
  Client& client = h.add_client();
  h.connect(0);
  ASSERT_TRUE(h.run_until([&] { return h.all_connected(); }, 300));
  for (uint32_t i = 0; i < 200; ++i) {
    ASSERT_TRUE(client.send(kReliable, make_numbered(client.create<Numbered>(), i)));
    ASSERT_TRUE(h.server->send(0, kReliable, make_numbered(h.server->create<Numbered>(0), i)));
  }
  Stream up, down;
  for (int i = 0; i < 120 && (up.next_expected < 200 || down.next_expected < 200); ++i) {
    h.step();
    while (auto m = h.server->receive(0, kReliable)) EXPECT_TRUE(check_numbered(*m.as<Numbered>(), up));
    while (auto m = client.receive(kReliable)) EXPECT_TRUE(check_numbered(*m.as<Numbered>(), down));
  }
  EXPECT_EQ(up.next_expected, 200u);
  EXPECT_EQ(down.next_expected, 200u);
  EXPECT_FALSE(up.out_of_order);
  EXPECT_FALSE(down.out_of_order);
  EXPECT_GT(client.connection().counters().packets_generated, 0u);
  EXPECT_GT(h.server->connection(0).endpoint().counters().fragments_sent, 3u);
  EXPECT_GT(h.server->connection(0).endpoint().counters().reassemblies_completed,
            0u);
}

// A client with a valid token whose (authenticated) packets break the channel protocol is disconnected, and
// the event says why; the other clients stay.
TEST(ClientServer, AClientBreakingTheChannelProtocolIsDisconnectedWithTheReason) {
  StackHarness h(2);
  Client& good = h.add_client();
  h.connect(0);
  LoopbackTransport rogue_transport(h.network, Address::ipv4(10, 0, 7, 7, 50000));
  netcode::Client rogue(netcode::ClientConfig{}, rogue_transport);
  rogue.connect(h.token(66), h.now);
  ASSERT_TRUE(h.run_until(
      [&] {
        rogue.update(h.now);
        return good.is_connected() && rogue.is_connected();
      },
      300));
  drain_events(*h.server);
  // A well-formed reliable 1.0 header followed by bytes that are no connection packet.
  std::array<uint8_t, 64> payload{};
  const size_t header = write_packet_header(PacketHeader{0, 0xFFFF, 0}, test::writable(payload));
  for (size_t i = header; i < payload.size(); ++i) payload[i] = 0xFF;
  ASSERT_TRUE(rogue.send_payload(test::view(payload)));
  h.step();
  const auto events = drain_events(*h.server);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, ServerEvent::Kind::kDisconnected);
  EXPECT_EQ(events[0].client_id, 66u);
  EXPECT_EQ(events[0].reason, netcode::DisconnectReason::kServerDisconnected);
  ASSERT_NE(events[0].protocol_error, nullptr);
  EXPECT_FALSE(h.server->is_connected(events[0].client_index));
  EXPECT_EQ(h.server->connection(events[0].client_index).error(), ConnectionError::kNone)
      << "the slot is reset";
  EXPECT_TRUE(good.is_connected());
  EXPECT_EQ(h.server->connected_count(), 1);
}

TEST(ClientServer, ServerFullDeniesTheNextClient) {
  StackHarness h(2);
  for (int i = 0; i < 3; ++i) h.add_client();
  h.connect(0);
  h.connect(1);
  ASSERT_TRUE(h.run_until([&] { return h.clients[0]->is_connected() && h.clients[1]->is_connected(); }, 300));
  h.connect(2);
  ASSERT_TRUE(h.run_until(
      [&] { return h.clients[2]->state() != netcode::ClientState::kSendingConnectionRequest; }, 600));
  EXPECT_EQ(h.clients[2]->state(), netcode::ClientState::kConnectionDenied);
  EXPECT_TRUE(drain_events(*h.clients[2]).empty()) << "never connected, so no session events";
  EXPECT_EQ(h.server->connected_count(), 2);
  EXPECT_FALSE(h.clients[2]->send(kReliable, h.clients[2]->create<Numbered>()));
}

TEST(ClientServer, ClientTimesOutWhenTheServerFallsSilent) {
  StackHarness h(2);
  Client& client = h.add_client();
  h.connect(0, 2);
  ASSERT_TRUE(h.run_until([&] { return client.is_connected(); }, 300));
  drain_events(client);
  h.server_running = false;
  ASSERT_TRUE(h.run_until([&] { return !client.is_connected(); }, 60 * 4));
  EXPECT_EQ(client.state(), netcode::ClientState::kConnectionTimedOut);
  const auto events = drain_events(client);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, ClientEvent::Kind::kDisconnected);
  EXPECT_EQ(events[0].state, netcode::ClientState::kConnectionTimedOut);
}

TEST(ClientServer, ServerTimesOutASilentClient) {
  StackHarness h(2);
  h.add_client();
  h.add_client();
  h.connect(0, 2);
  h.connect(1, 2);
  ASSERT_TRUE(h.run_until([&] { return h.all_connected(); }, 300));
  drain_events(*h.server);
  const int silent_slot = h.clients[1]->client_index();
  h.paused = {false, true};
  ASSERT_TRUE(h.run_until([&] { return h.server->connected_count() == 1; }, 60 * 4));
  const auto events = drain_events(*h.server);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].client_index, silent_slot);
  EXPECT_EQ(events[0].reason, netcode::DisconnectReason::kTimedOut);
  EXPECT_TRUE(h.clients[0]->is_connected()) << "the client that keeps talking stays";
}

TEST(ClientServer, ServerRestartClientsReconnectAndTalkAgain) {
  StackHarness h(4);
  for (int i = 0; i < 3; ++i) h.add_client();
  for (size_t i = 0; i < 3; ++i) h.connect(i);
  ASSERT_TRUE(h.run_until([&] { return h.all_connected(); }, 300));
  h.start_server();  // the old server sends its disconnect packets as it goes
  h.step();
  for (auto& client : h.clients) {
    EXPECT_FALSE(client->is_connected());
    const auto events = drain_events(*client);
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[1].kind, ClientEvent::Kind::kDisconnected);
    EXPECT_EQ(events[1].state, netcode::ClientState::kDisconnected);
  }
  for (size_t i = 0; i < 3; ++i) h.connect(i);
  ASSERT_TRUE(h.run_until([&] { return h.all_connected(); }, 300));
  Traffic traffic(h, 50);
  traffic.install();
  ASSERT_TRUE(h.run_until(
      [&] {
        traffic.tick();
        return traffic.done();
      },
      600));
}

// 20% loss each way, 5% duplicates, adjacent datagrams swapped: every reliable message still arrives once and
// in order through netcode, the endpoint and the channel, both ways, for several clients.
TEST(ClientServer, ReliableStreamExactlyOnceInOrderOverALossyReorderingLink) {
  StackHarness h(4);
  for (int i = 0; i < 4; ++i) h.add_client();
  for (size_t i = 0; i < 4; ++i) h.connect(i);
  ASSERT_TRUE(h.run_until([&] { return h.all_connected(); }, 300));
  std::mt19937 random(12345);
  uint64_t dropped = 0, duplicated = 0, swapped = 0;
  h.network.on_send = [&](LoopbackNetwork::Datagram&) {
    if (random() % 100 < 20) {
      ++dropped;
      return false;
    }
    return true;
  };
  h.between = [&] {
    auto& queue = h.network.queue();
    const size_t n = queue.size();
    for (size_t i = 0; i < n; ++i) {
      if (random() % 100 < 5 && queue.size() < h.network.capacity()) {
        const auto copy = queue[i];
        queue.push_back(copy);
        ++duplicated;
      }
    }
    for (size_t i = 1; i < queue.size(); ++i) {
      if (random() % 100 < 20) {
        std::swap(queue[i - 1], queue[i]);
        ++swapped;
      }
    }
  };
  Traffic traffic(h, 1000);
  traffic.install();
  ASSERT_TRUE(h.run_until(
      [&] {
        traffic.tick();
        return traffic.done();
      },
      60 * 60));
  for (size_t c = 0; c < 4; ++c) {
    EXPECT_FALSE(traffic.up_[c].out_of_order);
    EXPECT_FALSE(traffic.down_[static_cast<size_t>(traffic.slot_of_[c])].out_of_order);
    EXPECT_LT(traffic.up_[c].unreliable_received, 1000) << "unreliable messages are lost with their packets";
  }
  uint64_t replayed = h.server->netcode().drops(netcode::PacketError::kReplayed);
  for (auto& client : h.clients) replayed += client->netcode().drops(netcode::PacketError::kReplayed);
  std::printf("dropped %llu duplicated %llu swapped %llu replayed %llu\n", (unsigned long long)dropped,
              (unsigned long long)duplicated, (unsigned long long)swapped, (unsigned long long)replayed);
  EXPECT_GT(dropped, 1000u);
  EXPECT_GT(duplicated, 100u);
  EXPECT_GT(swapped, 300u);
  EXPECT_GT(replayed, 0u) << "duplicates are stopped by netcode's replay window";
  EXPECT_TRUE(h.all_connected());
  const StackStats stats = h.server->stats(0);
  EXPECT_GT(stats.packet_loss_percent, 5.0) << "the link's loss shows in the slot's statistics";
}

// Each direction through its own NetworkSimulator (40 ms +- 10 ms one way, 10% loss, duplicates, reordering,
// corrupted bits): every reliable message arrives once and in order, the RTT statistic sees the latency,
// and the corrupted datagrams die at netcode's MAC check.
TEST(ClientServer, ReliableStreamOverSimulatedLatencyLossAndCorruption) {
  LoopbackNetwork network(16384);
  const Address server_address = Address::ipv4(10, 0, 0, 1, 40000);
  NetworkSimulatorConfig link;
  link.capacity = 4096;
  link.conditions.latency_ms = 40.0;
  link.conditions.jitter_ms = 10.0;
  link.conditions.loss_percent = 10.0;
  link.conditions.duplicate_percent = 5.0;
  link.conditions.reorder_percent = 5.0;
  link.conditions.corrupt_percent = 2.0;
  LoopbackTransport server_inner(network, server_address);
  link.seed = 1;
  SimulatedTransport server_transport(server_inner, link);
  const StackConfig config = stack_test_config(2);
  const netcode::Key key = netcode::random_key();
  double now = 10.0;
  Server server(config, kStackFactory, key, server_transport, server_address, now);
  ASSERT_TRUE(server.ok());
  constexpr int kClients = 2;
  std::vector<std::unique_ptr<LoopbackTransport>> inner;
  std::vector<std::unique_ptr<SimulatedTransport>> transports;
  std::vector<std::unique_ptr<Client>> clients;
  for (int c = 0; c < kClients; ++c) {
    inner.push_back(std::make_unique<LoopbackTransport>(
        network, Address::ipv4(10, 0, 1, static_cast<uint8_t>(1 + c), 5000)));
    link.seed = 100 + static_cast<uint64_t>(c);
    transports.push_back(std::make_unique<SimulatedTransport>(*inner.back(), link));
    clients.push_back(std::make_unique<Client>(config, kStackFactory, *transports.back(), now));
    netcode::ConnectTokenParams params;
    params.protocol_id = server.protocol_id();
    params.client_id = 50 + static_cast<uint64_t>(c);
    params.create_timestamp = kStackUnixBase;
    params.timeout_seconds = 5;
    params.server_addresses.count = 1;
    params.server_addresses.items[0] = server_address;
    netcode::ConnectToken token;
    StackToken bytes{};
    ASSERT_TRUE(netcode::generate_connect_token(params, key, token));
    ASSERT_TRUE(netcode::write_connect_token(token, std::as_writable_bytes(std::span(bytes))));
    ASSERT_TRUE(clients.back()->connect(bytes, now));
  }
  constexpr uint32_t kMessages = 300;
  std::array<Stream, kClients> up{}, down{};
  auto tick = [&] {
    now += 1.0 / 60.0;
    server_transport.pump(now);
    for (auto& t : transports) t->pump(now);
    for (int c = 0; c < kClients; ++c) {
      Client& client = *clients[static_cast<size_t>(c)];
      client.update(now);
      if (client.is_connected()) {
        if (up[c].next_send < kMessages && client.connection().send_queue_depth(kReliable) < 200) {
          ASSERT_TRUE(client.send(kReliable, make_numbered(client.create<Numbered>(), up[c].next_send++)));
        }
        while (auto m = client.receive(kReliable)) EXPECT_TRUE(check_numbered(*m.as<Numbered>(), down[c]));
      }
      client.send_packets();
    }
    server.update(now, kStackUnixBase + 1);
    for (int c = 0; c < kClients; ++c) {
      const int slot = clients[static_cast<size_t>(c)]->client_index();
      if (slot < 0 || !server.is_connected(slot)) continue;
      if (down[c].next_send < kMessages && server.connection(slot).send_queue_depth(kReliable) < 200) {
        ASSERT_TRUE(
            server.send(slot, kReliable, make_numbered(server.create<Numbered>(slot), down[c].next_send++)));
      }
      while (auto m = server.receive(slot, kReliable)) EXPECT_TRUE(check_numbered(*m.as<Numbered>(), up[c]));
    }
    server.send_packets();
  };
  auto done = [&] {
    for (int c = 0; c < kClients; ++c) {
      if (up[c].next_expected != kMessages || down[c].next_expected != kMessages) return false;
    }
    return true;
  };
  for (int i = 0; i < 60 * 60 && !done(); ++i) tick();
  ASSERT_TRUE(done());
  for (int c = 0; c < kClients; ++c) {
    EXPECT_FALSE(up[c].out_of_order);
    EXPECT_FALSE(down[c].out_of_order);
    const StackStats stats = server.stats(clients[static_cast<size_t>(c)]->client_index());
    EXPECT_GT(stats.rtt_ms, 60.0) << "two 40 ms legs, plus up to a tick each way";
    EXPECT_LT(stats.rtt_ms, 160.0);
    EXPECT_GT(stats.packet_loss_percent, 2.0);
  }
  EXPECT_EQ(server.connected_count(), kClients);
  EXPECT_GT(server_transport.simulator().stats().corrupted, 0u);
  EXPECT_GT(server.netcode().drops(netcode::PacketError::kDecryptFailed), 0u) << "corruption dies at the MAC";
}

// Garbage, bit-flipped copies of real packets and forged connection requests at the server port while
// clients are served: the clients' streams complete, nobody is disconnected.
TEST(ClientServer, HostileDatagramsWhileClientsAreServed) {
  StackHarness h(4);
  for (int i = 0; i < 3; ++i) h.add_client();
  for (size_t i = 0; i < 3; ++i) h.connect(i);
  ASSERT_TRUE(h.run_until([&] { return h.all_connected(); }, 300));
  drain_events(*h.server);
  std::mt19937 random(777);
  uint64_t injected = 0;
  h.between = [&] {
    std::array<uint8_t, 1300> bytes{};
    for (int k = 0; k < 20; ++k) {
      const size_t size = 1 + random() % bytes.size();
      for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<uint8_t>(random());
      if (k % 4 == 0) bytes[0] = 0;  // a connection request prefix
      if (k % 4 == 1) bytes[0] = static_cast<uint8_t>((random() % 8) << 4 | 4);      // a payload prefix
      const Address from = k % 2 == 0 ? h.transports[random() % 3]->local_address()  // spoofed client source
                                      : Address::ipv4(10, 9, 9, static_cast<uint8_t>(random()), 1234);
      h.network.inject(from, h.server_address, std::as_bytes(std::span(bytes.data(), size)));
      ++injected;
    }
    // Bit-flipped copies of genuine datagrams on their way to the server.
    auto& queue = h.network.queue();
    const size_t n = queue.size();
    for (size_t i = 0; i < n && queue.size() < h.network.capacity(); ++i) {
      if (queue[i].to == h.server_address && random() % 4 == 0) {
        auto copy = queue[i];
        copy.bytes[random() % copy.size] ^= static_cast<std::byte>(1u << (random() % 8));
        queue.push_back(copy);
        ++injected;
      }
    }
  };
  Traffic traffic(h, 150);
  traffic.install();
  ASSERT_TRUE(h.run_until(
      [&] {
        traffic.tick();
        return traffic.done();
      },
      1200));
  std::printf("injected %llu\n", (unsigned long long)injected);
  EXPECT_GT(injected, 3000u);
  EXPECT_TRUE(h.all_connected());
  EXPECT_TRUE(drain_events(*h.server).empty()) << "no one was connected or disconnected by the forgeries";
  uint64_t refused = 0;
  for (int e = 0; e < netcode::kPacketErrorCount; ++e)
    refused += h.server->netcode().drops(static_cast<netcode::PacketError>(e));
  EXPECT_GT(refused, 3000u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(h.server->connection(i).error(), ConnectionError::kNone);
}

TEST(ClientServer, NothingAllocatesAfterConstruction) {
  StackHarness h(4);
  for (int i = 0; i < 4; ++i) h.add_client();
  std::vector<StackToken> tokens;
  for (int round = 0; round < 2; ++round) {
    for (uint64_t i = 0; i < 4; ++i) tokens.push_back(h.token(2000 + i + 10 * static_cast<uint64_t>(round)));
  }
  Traffic traffic(h, 100);
  std::vector<ServerEvent> server_events;
  server_events.reserve(64);
  std::function<void()> server_tick = [&] {
    traffic.server_tick();
    ServerEvent e;
    while (h.server->next_event(e)) server_events.push_back(e);
  };
  h.on_server = server_tick;
  std::function<bool()> traffic_done = [&] {
    traffic.tick();
    ClientEvent e;
    for (auto& c : h.clients) {
      while (c->next_event(e)) {
      }
    }
    return traffic.done();
  };
  std::function<bool()> connected = [&] { return h.all_connected(); };

  const uint64_t before = counting_allocations.count;
  for (size_t i = 0; i < 4; ++i) ASSERT_TRUE(h.clients[i]->connect(tokens[i], h.now));
  ASSERT_TRUE(h.run_until(connected, 300));
  ASSERT_TRUE(h.run_until(traffic_done, 1000));
  for (auto& c : h.clients) c->disconnect(h.now);
  for (int i = 0; i < 5; ++i) h.step();
  for (size_t i = 0; i < 4; ++i) ASSERT_TRUE(h.clients[i]->connect(tokens[4 + i], h.now));
  ASSERT_TRUE(h.run_until(connected, 300));
  for (int i = 0; i < 60; ++i) h.step();
  const uint64_t after = counting_allocations.count;
  EXPECT_EQ(after - before, 0u)
      << "connect, messages on every channel, disconnect and reconnect allocate nothing";
  EXPECT_EQ(server_events.size(), 12u);

  // Memory per slot is fixed and reported.
  EXPECT_GT(h.server->memory_per_slot(), h.server->connection(0).memory_bytes());
  EXPECT_GE(h.server->memory_bytes(), 4 * h.server->connection(0).memory_bytes());
  EXPECT_GT(h.clients[0]->memory_bytes(), h.clients[0]->connection().memory_bytes());
}

TEST(ClientServer, ConfigIsValidatedWithAReason) {
  StackConfig config = stack_test_config();
  EXPECT_TRUE(config.check().ok());
  config.connection.endpoint.fragment_size = 1190;  // 1190 + 5 + 9 > 1200
  // (max_fragments must be exactly what max_packet_size needs, or the endpoint's own rule fails first.)
  config.connection.endpoint.max_fragments = (config.connection.endpoint.max_packet_size + 1189) / 1190;
  ASSERT_FALSE(config.check().ok());
  EXPECT_NE(std::strstr(config.check().reason(), "1200"), nullptr) << config.check().reason();
  EXPECT_TRUE(config.sanitized().check().ok());
  EXPECT_LE(config.sanitized().connection.endpoint.fragment_size, 1184);  // + 5 + 9 + 2 (ack delay)

  StackConfig bad = stack_test_config();
  bad.max_clients = 0;
  EXPECT_FALSE(bad.check().ok());
  EXPECT_EQ(bad.sanitized().max_clients, 1);
  bad = stack_test_config();
  bad.connection.channel_count = 0;
  EXPECT_FALSE(bad.check().ok());
  bad = stack_test_config();
  bad.server.payload_queue_per_slot = 0;
  EXPECT_FALSE(bad.check().ok());
  EXPECT_TRUE(bad.sanitized().check().ok());

  LoopbackNetwork network;
  LoopbackTransport transport(network, Address::ipv4(10, 0, 0, 1, 1));
  Server server(bad, kStackFactory, netcode::random_key(), transport, transport.local_address());
  EXPECT_FALSE(server.ok());
  EXPECT_NE(server.error_reason(), nullptr);
  server.update(1.0, kStackUnixBase);  // a refused server does nothing
  EXPECT_FALSE(server.is_connected(0));

  // The sanitized config runs the endpoint without the envelope, under netcode's AEAD.
  EXPECT_FALSE(stack_test_config().sanitized().connection.endpoint.envelope);
}

// A refused Server or Client keeps its own reason: error_reason() is owned by the object, so a later check of
// another config does not change it.
TEST(ClientServer, RefusedConfigReasonOutlivesTheNextCheck) {
  StackConfig bad = stack_test_config();
  bad.max_clients = 0;
  LoopbackNetwork network;
  LoopbackTransport transport(network, Address::ipv4(10, 0, 0, 1, 1));
  Server server(bad, kStackFactory, netcode::random_key(), transport, transport.local_address());
  StackConfig bad_client = stack_test_config();
  bad_client.congestion.halving_period = -1.0;
  Client client(bad_client, kStackFactory, transport);
  StackConfig other = stack_test_config();
  other.event_queue_size = -1;
  ASSERT_FALSE(other.check().ok());  // another reason, elsewhere
  EXPECT_STREQ(server.error_reason(), "StackConfig.max_clients = 0 is outside [1, 4096]");
  EXPECT_STREQ(client.error_reason(),
               "StackConfig.congestion: BinaryCongestionConfig.halving_period = -1 is outside [0.001, 3600]");
}

// A client built with another channel layout refuses a token for this server's layout (and the reverse):
// the layout is folded into the protocol id netcode checks.
TEST(ClientServer, AnotherChannelLayoutIsRefusedAtConnect) {
  StackHarness h(2);
  StackConfig other = h.config;
  other.connection.channels[1].max_messages_per_packet = 17;
  EXPECT_NE(stack_protocol_id(kStackFactory, other), stack_protocol_id(kStackFactory, h.config));
  Client& client = h.add_client(&other);
  const char* reason = nullptr;
  EXPECT_FALSE(client.connect(h.token(5), h.now, &reason));
  ASSERT_NE(reason, nullptr);
  EXPECT_NE(std::strstr(reason, "protocol id"), nullptr) << reason;
  // A token minted for the other layout is refused by the server (netcode's protocol id check).
  ASSERT_TRUE(client.connect(h.token(5, 5, stack_protocol_id(kStackFactory, other)), h.now));
  for (int i = 0; i < 120; ++i) h.step();
  EXPECT_FALSE(client.is_connected());
  EXPECT_EQ(h.server->connected_count(), 0);
}

TEST(ClientServer, InsecureLanConnectOnlyWhenEnabled) {
  StackHarness h(2);
  netcode::ConnectTokenParams params;
  params.client_id = 42;
  params.create_timestamp = h.unix_now();
  params.timeout_seconds = 5;
  params.server_addresses.count = 1;
  params.server_addresses.items[0] = h.server_address;
  Client& locked = h.add_client();
  const char* reason = nullptr;
  EXPECT_FALSE(locked.connect_insecure_lan(params, h.private_key, h.now, &reason));
  ASSERT_NE(reason, nullptr);

  StackConfig lan = h.config;
  lan.client.allow_insecure_lan_connect = true;
  Client& client = h.add_client(&lan);
  ASSERT_TRUE(client.connect_insecure_lan(params, h.private_key, h.now, &reason)) << reason;
  ASSERT_TRUE(h.run_until([&] { return client.is_connected(); }, 300));
  ASSERT_TRUE(client.send(kReliable, make_numbered(client.create<Numbered>(), 9)));
  bool received = false;
  for (int i = 0; i < 30 && !received; ++i) {
    h.step();
    if (auto m = h.server->receive(client.client_index(), kReliable))
      received = m.as<Numbered>()->serial == 9;
  }
  EXPECT_TRUE(received);
}

}  // namespace
}  // namespace bitwire::test
