// The full stack over real UdpSockets on 127.0.0.1 (ephemeral ports): clients connect, exchange messages on
// every channel both ways while a third socket throws garbage at the server port, disconnect, and a server
// restart on the same port. Time is a fake clock advanced per iteration; every loop is bounded by an
// iteration count, so a lost datagram fails the test instead of hanging it.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <vector>

#include "bitwire/transport/udp_socket.hpp"
#include "support/stack_harness.hpp"

namespace bitwire::test {
namespace {

constexpr uint64_t kUnix = 1'700'000'000ull;

struct UdpServer {
  explicit UdpServer(const StackConfig& config, const netcode::Key& key, const Address& bind) {
    ok = socket.open(bind) == SocketStatus::kOk;
    if (!ok) return;
    transport = std::make_unique<UdpTransport>(socket);
    server = std::make_unique<Server>(config, kStackFactory, key, *transport, socket.local_address(), 0.0);
    ok = server->ok();
  }
  bool ok = false;
  UdpSocket socket;
  std::unique_ptr<UdpTransport> transport;
  std::unique_ptr<Server> server;
};

struct UdpClient {
  explicit UdpClient(const StackConfig& config) {
    ok = socket.open(Address::ipv4(127, 0, 0, 1, 0)) == SocketStatus::kOk;
    transport = std::make_unique<UdpTransport>(socket);
    client = std::make_unique<Client>(config, kStackFactory, *transport, 0.0);
  }
  bool ok = false;
  UdpSocket socket;
  std::unique_ptr<UdpTransport> transport;
  std::unique_ptr<Client> client;
};

StackToken make_token(const StackConfig& config, const netcode::Key& key, const Address& server,
                      uint64_t client_id) {
  netcode::ConnectTokenParams params;
  params.protocol_id = stack_protocol_id(kStackFactory, config);
  params.client_id = client_id;
  params.create_timestamp = kUnix;
  params.timeout_seconds = 3;
  params.server_addresses.count = 1;
  params.server_addresses.items[0] = server;
  netcode::ConnectToken token;
  EXPECT_TRUE(netcode::generate_connect_token(params, key, token));
  StackToken bytes{};
  EXPECT_TRUE(netcode::write_connect_token(token, std::as_writable_bytes(std::span(bytes))));
  return bytes;
}

uint64_t total_packets_sent(const Server& server) {
  uint64_t sent = 0;
  for (int i = 0; i < server.max_clients(); ++i) sent += server.netcode().stats(i).packets_sent;
  return sent;
}

TEST(ClientServerUdp, ClientsExchangeOnEveryChannelWhileGarbageHitsTheServerPort) {
  const StackConfig config = stack_test_config(8);
  const netcode::Key key = netcode::random_key();
  UdpServer server(config, key, Address::ipv4(127, 0, 0, 1, 0));
  ASSERT_TRUE(server.ok);
  const Address server_address = server.socket.local_address();
  constexpr int kClients = 4;
  std::vector<std::unique_ptr<UdpClient>> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.push_back(std::make_unique<UdpClient>(config));
    ASSERT_TRUE(clients.back()->ok);
  }
  UdpSocket attacker;
  ASSERT_EQ(attacker.open(Address::ipv4(127, 0, 0, 1, 0)), SocketStatus::kOk);
  std::mt19937 random(99);

  double now = 1.0;
  for (int i = 0; i < kClients; ++i) {
    ASSERT_TRUE(clients[static_cast<size_t>(i)]->client->connect(
        make_token(config, key, server_address, 10 + i), now));
  }
  constexpr uint32_t kMessages = 100;
  std::vector<uint32_t> up_next(kClients, 0), up_expected(kClients, 0), down_next(kClients, 0),
      down_expected(kClients, 0);
  std::vector<int> up_unreliable(kClients, 0), down_unreliable(kClients, 0);
  uint64_t garbage = 0;
  int batched_ticks = 0;  // ticks whose send_packets sent a packet to every client
  auto tick = [&] {
    now += 1.0 / 60.0;
    std::array<std::byte, 600> junk{};
    for (int k = 0; k < 4; ++k) {
      const size_t size = 1 + random() % junk.size();
      for (size_t b = 0; b < size; ++b) junk[b] = static_cast<std::byte>(random());
      if (attacker.send(server_address, std::span<const std::byte>(junk.data(), size)) == SocketStatus::kOk)
        ++garbage;
    }
    for (int c = 0; c < kClients; ++c) {
      Client& client = *clients[static_cast<size_t>(c)]->client;
      client.update(now);
      if (client.is_connected()) {
        if (up_next[c] < kMessages && client.connection().send_queue_depth(kReliable) < 100) {
          auto m = client.create<Numbered>();
          m.as<Numbered>()->serial = up_next[c]++;
          EXPECT_TRUE(client.send(kReliable, std::move(m)));
          auto s = client.create<Small>();
          s.as<Small>()->value = static_cast<uint8_t>(c);
          EXPECT_TRUE(client.send(kUnreliable, std::move(s)));
        }
        while (auto m = client.receive(kReliable)) EXPECT_EQ(m.as<Numbered>()->serial, down_expected[c]++);
        while (auto m = client.receive(kUnreliable)) ++down_unreliable[c];
      }
      client.send_packets();
    }
    Server& s = *server.server;
    s.update(now, kUnix + 1);
    for (int c = 0; c < kClients; ++c) {
      const int slot = clients[static_cast<size_t>(c)]->client->client_index();
      if (slot < 0 || !s.is_connected(slot)) continue;
      if (down_next[c] < kMessages && s.connection(slot).send_queue_depth(kReliable) < 100) {
        auto m = s.create<Numbered>(slot);
        m.as<Numbered>()->serial = down_next[c]++;
        EXPECT_TRUE(s.send(slot, kReliable, std::move(m)));
        EXPECT_TRUE(s.send(slot, kUnreliable, s.create<Small>(slot)));
      }
      while (auto m = s.receive(slot, kReliable)) EXPECT_EQ(m.as<Numbered>()->serial, up_expected[c]++);
      while (auto m = s.receive(slot, kUnreliable)) {
        EXPECT_EQ(m.as<Small>()->value, c);
        ++up_unreliable[c];
      }
    }
    // Every slot's packets of the tick leave in one sendmmsg (one sendto per datagram before).
    const uint64_t calls = server.transport->send_calls();
    const uint64_t packets = total_packets_sent(s);
    s.send_packets();
    EXPECT_LE(server.transport->send_calls() - calls, 1u);
    if (total_packets_sent(s) - packets >= static_cast<uint64_t>(kClients)) ++batched_ticks;
  };
  auto done = [&] {
    for (int c = 0; c < kClients; ++c) {
      if (up_expected[c] != kMessages || down_expected[c] != kMessages) return false;
    }
    return true;
  };
  for (int i = 0; i < 3000 && !done(); ++i) tick();
  ASSERT_TRUE(done());
  for (int c = 0; c < kClients; ++c) {
    EXPECT_GT(up_unreliable[c], kMessages / 2) << "loopback UDP loses little";
    EXPECT_GT(down_unreliable[c], static_cast<int>(kMessages / 2));
  }
  EXPECT_GT(batched_ticks, 10);
  EXPECT_GT(garbage, 100u);
  EXPECT_GT(server.server->netcode().drops(netcode::PacketError::kNoKey) +
                server.server->netcode().drops(netcode::PacketError::kRequestWrongSize),
            garbage / 2);
  EXPECT_EQ(server.server->connected_count(), kClients);

  for (auto& c : clients) c->client->disconnect(now);
  for (int i = 0; i < 500 && server.server->connected_count() != 0; ++i) tick();
  EXPECT_EQ(server.server->connected_count(), 0);
}

TEST(ClientServerUdp, ServerRestartOnTheSamePortClientsReconnect) {
  const StackConfig config = stack_test_config(4);
  const netcode::Key key = netcode::random_key();
  auto server = std::make_unique<UdpServer>(config, key, Address::ipv4(127, 0, 0, 1, 0));
  ASSERT_TRUE(server->ok);
  const Address bound = server->socket.local_address();
  UdpClient client(config);
  ASSERT_TRUE(client.ok);
  double now = 1.0;
  auto tick = [&] {
    now += 1.0 / 60.0;
    client.client->update(now);
    client.client->send_packets();
    if (server) {
      server->server->update(now, kUnix + 1);
      server->server->send_packets();
    }
  };
  ASSERT_TRUE(client.client->connect(make_token(config, key, bound, 1), now));
  for (int i = 0; i < 1000 && !client.client->is_connected(); ++i) tick();
  ASSERT_TRUE(client.client->is_connected());

  server.reset();  // the stopping server sends its disconnect packets
  for (int i = 0; i < 100 && client.client->is_connected(); ++i) tick();
  EXPECT_EQ(client.client->state(), netcode::ClientState::kDisconnected);
  server = std::make_unique<UdpServer>(config, key, bound);
  ASSERT_TRUE(server->ok) << "rebinding the same port";
  ASSERT_TRUE(client.client->connect(make_token(config, key, bound, 1), now));
  for (int i = 0; i < 1000 && !client.client->is_connected(); ++i) tick();
  ASSERT_TRUE(client.client->is_connected());
  auto m = client.client->create<Numbered>();
  m.as<Numbered>()->serial = 77;
  ASSERT_TRUE(client.client->send(kReliable, std::move(m)));
  bool received = false;
  for (int i = 0; i < 1000 && !received; ++i) {
    tick();
    if (auto r = server->server->receive(client.client->client_index(), kReliable))
      received = r.as<Numbered>()->serial == 77;
  }
  EXPECT_TRUE(received);
}

// The client reads its socket as the server does: one recvmmsg per batch of datagrams, not one recvmsg
// each. 40 datagrams wait on the client's socket (junk from a stranger: each is read and dropped); one
// update reads them all in ceil(40 / 16) + 0 = 3 calls (the last returns fewer than it asked for, which ends
// the loop), where one recvmsg per datagram made 41.
TEST(ClientServerUdp, TheClientReadsABurstInBatches) {
  StackConfig config = stack_test_config(4);
  UdpClient client(config);
  ASSERT_TRUE(client.ok);
  UdpSocket stranger;
  ASSERT_EQ(stranger.open(Address::ipv4(127, 0, 0, 1, 0)), SocketStatus::kOk);
  std::vector<std::byte> junk(100, std::byte{0x42});
  constexpr int kDatagrams = 40;
  for (int i = 0; i < kDatagrams; ++i) {
    ASSERT_EQ(stranger.send(client.socket.local_address(), junk), SocketStatus::kOk);
  }
  client.client->update(0.0);
  EXPECT_EQ(client.transport->receive_calls(), 3u);
  // Every datagram was read: the socket is empty.
  std::vector<std::byte> buffer(1500);
  Address from;
  size_t size = 0;
  EXPECT_EQ(client.socket.receive(buffer, from, size), SocketStatus::kNothingToRead);
  EXPECT_EQ(client.client->netcode().stats().packets_received, 0u) << "junk is dropped, never accepted";
}

}  // namespace
}  // namespace bitwire::test
