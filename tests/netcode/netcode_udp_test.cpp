// netcode Client and Server over real UdpSockets on 127.0.0.1 and [::1], ephemeral ports. Time is a fake
// clock advanced per iteration; each loop is bounded by an iteration count, so a lost datagram or a broken
// build fails the test instead of hanging it.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <memory>

#include "bitwire/netcode/client.hpp"
#include "bitwire/netcode/server.hpp"
#include "bitwire/transport/transport.hpp"
#include "bitwire/transport/udp_socket.hpp"
#include "support/bytes.hpp"

namespace bitwire::netcode {
namespace {

constexpr uint64_t kProtocolId = 0x7564707465737421ull;
constexpr uint64_t kUnix = 1'700'000'000ull;

struct UdpSetup {
  explicit UdpSetup(const Address& loopback, int max_clients = 4) {
    ok = server_socket.open(loopback) == SocketStatus::kOk;
    if (!ok) return;
    server_transport = std::make_unique<UdpTransport>(server_socket);
    config.protocol_id = kProtocolId;
    config.private_key = key;
    config.max_clients = max_clients;
    server = std::make_unique<Server>(config, *server_transport, server_socket.local_address());
  }

  std::array<uint8_t, kConnectTokenBytes> token(uint64_t client_id, int32_t timeout = 2) {
    ConnectTokenParams params;
    params.protocol_id = kProtocolId;
    params.client_id = client_id;
    params.create_timestamp = kUnix;
    params.timeout_seconds = timeout;
    params.server_addresses.count = 1;
    params.server_addresses.items[0] = server_socket.local_address();
    ConnectToken t;
    EXPECT_TRUE(generate_connect_token(params, key, t));
    std::array<uint8_t, kConnectTokenBytes> bytes{};
    EXPECT_TRUE(write_connect_token(t, std::as_writable_bytes(std::span(bytes))));
    return bytes;
  }

  bool ok = false;
  Key key = random_key();
  UdpSocket server_socket;
  std::unique_ptr<UdpTransport> server_transport;
  ServerConfig config;
  std::unique_ptr<Server> server;
};

struct UdpClient {
  UdpClient(const Address& loopback) {
    ok = socket.open(loopback) == SocketStatus::kOk;
    transport = std::make_unique<UdpTransport>(socket);
    client = std::make_unique<Client>(ClientConfig{}, *transport);
  }
  bool ok = false;
  UdpSocket socket;
  std::unique_ptr<UdpTransport> transport;
  std::unique_ptr<Client> client;
};

bool ipv6_loopback() {
  UdpSocket probe;
  return probe.open(Address::ipv6({0, 0, 0, 0, 0, 0, 0, 1}, 0)) == SocketStatus::kOk;
}

void connect_exchange_disconnect(const Address& loopback) {
  UdpSetup setup(loopback);
  ASSERT_TRUE(setup.ok);
  ASSERT_TRUE(setup.server->ok());
  UdpClient a(loopback), b(loopback);
  ASSERT_TRUE(a.ok && b.ok);
  double now = 10.0;
  a.client->connect(std::as_bytes(std::span<const uint8_t>(setup.token(1))), now);
  b.client->connect(std::as_bytes(std::span<const uint8_t>(setup.token(2))), now);
  auto tick = [&] {
    now += 0.01;
    a.client->update(now);
    b.client->update(now);
    setup.server->update(now, kUnix + 1);
  };
  for (int i = 0; i < 500 && !(a.client->is_connected() && b.client->is_connected()); ++i) tick();
  ASSERT_TRUE(a.client->is_connected()) << to_string(a.client->state());
  ASSERT_TRUE(b.client->is_connected()) << to_string(b.client->state());
  EXPECT_EQ(setup.server->connected_count(), 2);

  std::array<uint8_t, kMaxPayloadBytes> big{};
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<uint8_t>(i * 7);
  ASSERT_TRUE(a.client->send_payload(bitwire::test::view(big)));
  const int slot_a = setup.server->client_address(0) == a.socket.local_address() ? 0 : 1;
  ASSERT_TRUE(setup.server->send_payload(1 - slot_a, bitwire::test::view(big).first(100)));
  std::array<uint8_t, kMaxPayloadBytes> buffer{};
  size_t size = 0;
  uint64_t sequence = 0;
  bool up = false, down = false;
  for (int i = 0; i < 500 && !(up && down); ++i) {
    tick();
    if (setup.server->receive_payload(slot_a, bitwire::test::writable(buffer), size, sequence)) {
      up = true;
      EXPECT_EQ(size, kMaxPayloadBytes);
      EXPECT_EQ(buffer, big);
    }
    if (b.client->receive_payload(bitwire::test::writable(buffer), size, sequence)) {
      down = true;
      EXPECT_EQ(size, 100u);
      EXPECT_EQ(0, std::memcmp(buffer.data(), big.data(), 100));
    }
  }
  EXPECT_TRUE(up);
  EXPECT_TRUE(down);

  a.client->disconnect(now);
  for (int i = 0; i < 500 && setup.server->connected_count() != 1; ++i) tick();
  EXPECT_EQ(setup.server->connected_count(), 1);
  setup.server->disconnect_all();
  for (int i = 0; i < 500 && b.client->is_connected(); ++i) tick();
  EXPECT_EQ(b.client->state(), ClientState::kDisconnected);
  EXPECT_EQ(setup.server->largest_reply_ratio_violations(), 0u);
}

TEST(NetcodeUdp, ConnectExchangeDisconnectOverIPv4) {
  connect_exchange_disconnect(Address::ipv4(127, 0, 0, 1, 0));
}

TEST(NetcodeUdp, ConnectExchangeDisconnectOverIPv6) {
  if (!ipv6_loopback()) GTEST_SKIP() << "no IPv6 loopback on this machine";
  connect_exchange_disconnect(Address::ipv6({0, 0, 0, 0, 0, 0, 0, 1}, 0));
}

TEST(NetcodeUdp, ServerRestartOnTheSamePort) {
  const Address loopback = Address::ipv4(127, 0, 0, 1, 0);
  auto setup = std::make_unique<UdpSetup>(loopback);
  ASSERT_TRUE(setup->ok);
  const Address bound = setup->server_socket.local_address();
  const Key key = setup->key;
  UdpClient c(loopback);
  double now = 10.0;
  c.client->connect(std::as_bytes(std::span<const uint8_t>(setup->token(1, 1))), now);
  for (int i = 0; i < 500 && !c.client->is_connected(); ++i) {
    now += 0.01;
    c.client->update(now);
    setup->server->update(now, kUnix + 1);
  }
  ASSERT_TRUE(c.client->is_connected());
  setup.reset();  // the server process dies without a word

  UdpSocket socket;
  ASSERT_EQ(socket.open(bound), SocketStatus::kOk) << "UDP ports are free again at once";
  UdpTransport transport(socket);
  ServerConfig config;
  config.protocol_id = kProtocolId;
  config.private_key = key;
  Server restarted(config, transport, bound);
  for (int i = 0; i < 500 && c.client->is_connected(); ++i) {
    now += 0.01;
    c.client->update(now);
    restarted.update(now, kUnix + 2);
  }
  EXPECT_EQ(c.client->state(), ClientState::kConnectionTimedOut);
  EXPECT_GT(restarted.drops(PacketError::kNoKey), 0u);

  ConnectTokenParams params;
  params.protocol_id = kProtocolId;
  params.client_id = 1;
  params.create_timestamp = kUnix;
  params.timeout_seconds = 1;
  params.server_addresses.count = 1;
  params.server_addresses.items[0] = bound;
  ConnectToken token;
  ASSERT_TRUE(generate_connect_token(params, key, token));
  std::array<uint8_t, kConnectTokenBytes> bytes{};
  ASSERT_TRUE(write_connect_token(token, std::as_writable_bytes(std::span(bytes))));
  c.client->connect(std::as_bytes(std::span(bytes)), now);
  for (int i = 0; i < 500 && !c.client->is_connected(); ++i) {
    now += 0.01;
    c.client->update(now);
    restarted.update(now, kUnix + 2);
  }
  EXPECT_TRUE(c.client->is_connected());
}


TEST(NetcodeUdp, ServerFullDeniesOverUdp) {
  const Address loopback = Address::ipv4(127, 0, 0, 1, 0);
  UdpSetup setup(loopback, 1);
  ASSERT_TRUE(setup.ok);
  UdpClient first(loopback), second(loopback);
  double now = 10.0;
  first.client->connect(std::as_bytes(std::span<const uint8_t>(setup.token(1))), now);
  second.client->connect(std::as_bytes(std::span<const uint8_t>(setup.token(2))), now + 0.5);
  for (int i = 0; i < 500 && second.client->state() > ClientState::kDisconnected; ++i) {
    now += 0.01;
    first.client->update(now);
    if (now >= 10.5) second.client->update(now);
    setup.server->update(now, kUnix + 1);
  }
  EXPECT_TRUE(first.client->is_connected());
  EXPECT_EQ(second.client->state(), ClientState::kConnectionDenied);
  EXPECT_GE(setup.server->denied_sent(), 1u);
}

TEST(NetcodeUdp, WrongProtocolIdAndExpiredTokenGetNoAnswerOverUdp) {
  const Address loopback = Address::ipv4(127, 0, 0, 1, 0);
  UdpSetup setup(loopback);
  ASSERT_TRUE(setup.ok);
  ConnectTokenParams params;
  params.protocol_id = kProtocolId + 1;
  params.client_id = 1;
  params.create_timestamp = kUnix;
  params.timeout_seconds = 1;
  params.server_addresses.count = 1;
  params.server_addresses.items[0] = setup.server_socket.local_address();
  ConnectToken wrong_protocol, expired;
  ASSERT_TRUE(generate_connect_token(params, setup.key, wrong_protocol));
  params.protocol_id = kProtocolId;
  params.create_timestamp = kUnix - 100;
  params.expire_seconds = 50;  // expired 50 s before the server's clock
  ASSERT_TRUE(generate_connect_token(params, setup.key, expired));
  UdpClient a(loopback), b(loopback);
  std::array<uint8_t, kConnectTokenBytes> bytes{};
  double now = 10.0;
  ASSERT_TRUE(write_connect_token(wrong_protocol, std::as_writable_bytes(std::span(bytes))));
  a.client->connect(std::as_bytes(std::span(bytes)), now);
  ASSERT_TRUE(write_connect_token(expired, std::as_writable_bytes(std::span(bytes))));
  b.client->connect(std::as_bytes(std::span(bytes)), now);
  for (int i = 0; i < 500 && (a.client->state() > ClientState::kDisconnected ||
                              b.client->state() > ClientState::kDisconnected); ++i) {
    now += 0.01;
    a.client->update(now);
    b.client->update(now);
    setup.server->update(now, kUnix);
  }
  EXPECT_EQ(a.client->state(), ClientState::kConnectionRequestTimedOut);
  EXPECT_EQ(b.client->state(), ClientState::kConnectionRequestTimedOut);
  EXPECT_GT(setup.server->drops(PacketError::kRequestProtocolId), 0u);
  EXPECT_GT(setup.server->drops(PacketError::kRequestTokenExpired), 0u);
  EXPECT_EQ(setup.server->challenges_sent(), 0u);
}

TEST(NetcodeUdp, GarbageAndRequestFloodFromAnotherSocketWhileAClientIsServed) {
  const Address loopback = Address::ipv4(127, 0, 0, 1, 0);
  UdpSetup setup(loopback);
  ASSERT_TRUE(setup.ok);
  UdpClient c(loopback);
  UdpSocket attacker;
  ASSERT_EQ(attacker.open(loopback), SocketStatus::kOk);
  double now = 10.0;
  c.client->connect(std::as_bytes(std::span<const uint8_t>(setup.token(1))), now);
  const auto stolen = setup.token(2);  // a valid token, replayed by the attacker as a request with bits flipped
  ConnectToken token;
  ASSERT_TRUE(read_connect_token(std::as_bytes(std::span(stolen)), token));
  std::array<uint8_t, kRequestPacketBytes> request{};
  write_request_packet(token, std::as_writable_bytes(std::span(request)));
  int payloads = 0;
  for (int i = 0; i < 300; ++i) {
    for (int j = 0; j < 20; ++j) {
      std::array<std::byte, 64> garbage{};
      garbage.fill(std::byte(i + j));
      attacker.send(setup.server_socket.local_address(), std::span(garbage).first(static_cast<size_t>(1 + j * 3)));
      auto forged = request;
      forged[100 + static_cast<size_t>((i * 20 + j) % 900)] ^= 0x5A;
      attacker.send(setup.server_socket.local_address(), std::as_bytes(std::span(forged)));
    }
    now += 0.01;
    if (c.client->is_connected()) {
      const uint8_t data[1] = {static_cast<uint8_t>(i)};
      c.client->send_payload(bitwire::test::view(data));
    }
    c.client->update(now);
    setup.server->update(now, kUnix + 1);
    std::array<uint8_t, kMaxPayloadBytes> buffer{};
    size_t size = 0;
    uint64_t sequence = 0;
    while (setup.server->receive_payload(0, bitwire::test::writable(buffer), size, sequence)) ++payloads;
  }
  EXPECT_TRUE(c.client->is_connected());
  EXPECT_GT(payloads, 250) << "the genuine client is served through the flood";
  EXPECT_GT(setup.server->drops(PacketError::kRequestTokenDecryptFailed), 1000u);
  EXPECT_EQ(setup.server->challenges_sent(), 1u);
  std::array<std::byte, 1500> buffer{};
  Address from;
  size_t size = 0;
  EXPECT_EQ(attacker.receive(buffer, from, size), SocketStatus::kNothingToRead) << "the attacker gets no reply";
}

}  // namespace
}  // namespace bitwire::netcode
