// netcode Client and Server over the in-process loopback transport: connect, payloads both ways, disconnects
// from either side, every client error state, multiple server addresses, timeouts, restart, full server.
#include <gtest/gtest.h>

#include <limits>

#include <cstring>

#include "support/endpoint_harness.hpp"  // the counting global allocator
#include "support/netcode_harness.hpp"
#include "support/bytes.hpp"

namespace bitwire::netcode {
namespace {

using testing::Harness;
using testing::TokenOptions;

std::vector<ServerEvent> drain_events(Server& server) {
  std::vector<ServerEvent> events;
  ServerEvent e;
  while (server.next_event(e)) events.push_back(e);
  return events;
}

// The readers take spans, so a buffer shorter than its format is refused (false, a reason) instead of being
// read past its end; a full-size buffer still reads.
TEST(NetcodeBytes, ReadersRefuseBuffersShorterThanTheirFormat) {
  ConnectTokenParams params;
  params.protocol_id = 7;
  params.client_id = 9;
  params.create_timestamp = 1000;
  params.server_addresses.count = 1;
  params.server_addresses.items[0] = Address::ipv4(127, 0, 0, 1, 40000);
  ConnectToken token;
  ASSERT_TRUE(generate_connect_token(params, random_key(), token));
  std::array<std::byte, kConnectTokenBytes> bytes{};
  ASSERT_TRUE(write_connect_token(token, bytes));
  ConnectToken back;
  const char* reason = nullptr;
  EXPECT_FALSE(read_connect_token(std::span(bytes).first(kConnectTokenBytes - 1), back, &reason));
  EXPECT_STREQ(reason, "truncated connect token");
  ASSERT_TRUE(read_connect_token(bytes, back));
  EXPECT_EQ(back, token);

  ConnectTokenPrivate plain;
  plain.client_id = 9;
  plain.server_addresses = params.server_addresses;
  std::array<std::byte, kConnectTokenPrivateBytes> private_bytes{};
  ASSERT_TRUE(write_connect_token_private(plain, private_bytes));
  ConnectTokenPrivate private_back;
  reason = nullptr;
  EXPECT_FALSE(read_connect_token_private(std::span(private_bytes).first(100), private_back, &reason));
  EXPECT_STREQ(reason, "truncated private connect token");
  EXPECT_FALSE(encrypt_connect_token_private(std::span(private_bytes).first(kConnectTokenPrivateBytes - 1), 7,
                                             2000, TokenNonce{}, Key{}));

  const Key key = random_key();
  ChallengeToken challenge;
  challenge.client_id = 9;
  std::array<std::byte, kChallengeTokenBytes> sealed{};
  seal_challenge_token(challenge, 3, key, sealed);
  ChallengeToken opened;
  EXPECT_FALSE(open_challenge_token(std::span(sealed).first(kChallengeTokenBytes - 1), 3, key, opened));
  ASSERT_TRUE(open_challenge_token(sealed, 3, key, opened));
  EXPECT_EQ(opened, challenge);
}

TEST(Netcode, ConnectExchangePayloadsAndDisconnect) {
  Harness h;
  Client& client = h.add_client();
  h.connect(0, TokenOptions().id(77).tag(0x5A));
  EXPECT_EQ(client.state(), ClientState::kSendingConnectionRequest);
  ASSERT_TRUE(h.run_until([&] { return client.is_connected(); }, 100));
  EXPECT_EQ(client.client_index(), 0);
  EXPECT_EQ(client.max_clients(), 8);
  const auto events = drain_events(*h.server);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, ServerEvent::Kind::kConnected);
  EXPECT_EQ(events[0].client_id, 77u);
  EXPECT_EQ(h.server->client_id(0), 77u);
  EXPECT_EQ(h.server->client_address(0), h.client_address(0));
  ASSERT_NE(h.server->client_user_data(0), nullptr);
  EXPECT_EQ((*h.server->client_user_data(0))[0], std::byte{0x5A})
      << "user data travels in the challenge token";

  for (int i = 0; i < 20; ++i) {
    const uint8_t up[3] = {1, 2, static_cast<uint8_t>(i)};
    ASSERT_TRUE(client.send_payload(bitwire::test::view(up)));
    const uint8_t down[2] = {9, static_cast<uint8_t>(i)};
    ASSERT_TRUE(h.server->send_payload(0, bitwire::test::view(down)));
    h.step();
  }
  h.step();
  std::array<uint8_t, kMaxPayloadBytes> buffer{};
  size_t size = 0;
  uint64_t sequence = 0;
  int received = 0;
  while (h.server->receive_payload(0, bitwire::test::writable(buffer), size, sequence)) {
    ASSERT_EQ(size, 3u);
    EXPECT_EQ(buffer[2], received);
    ++received;
  }
  EXPECT_EQ(received, 16) << "payload_queue_per_slot (16) bounds what waits between receives";
  EXPECT_EQ(h.server->stats(0).payloads_dropped_queue_full, 4u);
  int down_received = 0;
  while (client.receive_payload(bitwire::test::writable(buffer), size, sequence)) {
    ASSERT_EQ(size, 2u);
    EXPECT_EQ(buffer[1], down_received);
    ++down_received;
  }
  EXPECT_EQ(down_received, 20);
  EXPECT_TRUE(h.server->is_confirmed(0));
  EXPECT_GE(h.server->stats(0).payloads_received, 20u);

  client.disconnect(h.now);
  EXPECT_EQ(client.state(), ClientState::kDisconnected);
  h.step();
  EXPECT_FALSE(h.server->is_connected(0));
  const auto after = drain_events(*h.server);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0].kind, ServerEvent::Kind::kDisconnected);
  EXPECT_EQ(after[0].reason, DisconnectReason::kClientDisconnected);
  EXPECT_EQ(h.server->largest_reply_ratio_violations(), 0u);
}

TEST(Netcode, KeepAlivesHoldAnIdleConnectionPastTheTimeout) {
  Harness h;
  Client& client = h.add_client();
  h.connect(0, TokenOptions().timeout(2));
  ASSERT_TRUE(h.run_until([&] { return client.is_connected(); }, 100));
  for (int i = 0; i < 300; ++i) h.step();  // 6 seconds, no payloads
  EXPECT_TRUE(client.is_connected());
  EXPECT_TRUE(h.server->is_connected(0));
  EXPECT_GT(h.server->stats(0).keep_alives_received, 30u);
}

TEST(Netcode, ServerDisconnectSendsRedundantPacketsAndTheClientLeaves) {
  Harness h;
  Client& client = h.add_client();
  h.connect(0);
  ASSERT_TRUE(h.run_until([&] { return client.is_connected(); }, 100));
  drain_events(*h.server);
  // All but the last disconnect packet are lost: redundancy still gets the message through.
  int disconnects_seen = 0;
  h.network.on_send = [&](LoopbackNetwork::Datagram& d) {
    if (d.from == h.server_address && (std::to_integer<int>(d.bytes[0]) & 0xF) == 6) return ++disconnects_seen == 10;
    return true;
  };
  h.server->disconnect(0);
  EXPECT_EQ(disconnects_seen, 10);
  h.step();
  EXPECT_EQ(client.state(), ClientState::kDisconnected);
  const auto events = drain_events(*h.server);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].reason, DisconnectReason::kServerDisconnected);
}

TEST(Netcode, ServerFullDeniesTheNextClient) {
  Harness h(2);
  for (int i = 0; i < 3; ++i) h.add_client();
  h.connect(0);
  h.connect(1);
  ASSERT_TRUE(h.run_until([&] { return h.clients[0]->is_connected() && h.clients[1]->is_connected(); }, 100));
  h.connect(2);
  ASSERT_TRUE(h.run_until([&] { return h.clients[2]->state() != ClientState::kSendingConnectionRequest; }, 100));
  EXPECT_EQ(h.clients[2]->state(), ClientState::kConnectionDenied);
  EXPECT_GE(h.server->denied_sent(), 1u);
  EXPECT_EQ(h.server->connected_count(), 2);
}

TEST(Netcode, TwoHundredFiftySixSlotsFillAndTheNextIsDenied) {
  Harness h(256, 65536);
  for (int i = 0; i < 257; ++i) h.add_client();
  for (int i = 0; i < 256; ++i) h.connect(static_cast<size_t>(i));
  ASSERT_TRUE(h.run_until([&] { return h.server->connected_count() == 256; }, 200));
  h.connect(256);
  ASSERT_TRUE(h.run_until([&] { return h.clients[256]->state() == ClientState::kConnectionDenied; }, 100));
  for (int i = 0; i < 256; ++i) EXPECT_TRUE(h.clients[static_cast<size_t>(i)]->is_connected()) << i;
  const size_t per_slot = Server::memory_per_slot(h.config);
  EXPECT_GT(per_slot, 16u * kMaxPayloadBytes);
  EXPECT_GE(h.server->memory_bytes(), 256 * 16 * kMaxPayloadBytes);
  EXPECT_LE(h.server->memory_bytes(), 256 * per_slot + 64 * 1024) << "memory is the per-slot cost plus a constant";
}

TEST(Netcode, WrongProtocolIdIsIgnoredAndTheClientTimesOut) {
  Harness h;
  Client& client = h.add_client();
  h.connect(0, TokenOptions().timeout(1).protocol(0xBAD));
  ASSERT_TRUE(h.run_until([&] { return client.state() <= ClientState::kDisconnected; }, 200));
  EXPECT_EQ(client.state(), ClientState::kConnectionRequestTimedOut);
  EXPECT_GT(h.server->drops(PacketError::kRequestProtocolId), 0u);
  EXPECT_EQ(h.server->challenges_sent(), 0u);
}

TEST(Netcode, ServerIgnoresARequestWhoseTokenHasExpired) {
  Harness h;
  Client& client = h.add_client();
  // Created 100 s ago with a 101 s lifetime: by the server's unix clock it expires 1 s from now.
  h.connect(0, TokenOptions().expire(101).timeout(3).created(-100));
  h.server_running = false;  // the server sees the requests only after the token expired
  h.run_until([&] { return h.now > 101.5; }, 200);
  h.server_running = true;
  ASSERT_TRUE(h.run_until([&] { return client.state() <= ClientState::kDisconnected; }, 1000));
  EXPECT_GT(h.server->drops(PacketError::kRequestTokenExpired), 0u);
  EXPECT_EQ(h.server->challenges_sent(), 0u);
  EXPECT_EQ(client.state(), ClientState::kConnectionRequestTimedOut);
}

TEST(Netcode, ClientGivesUpWhenTheTokenLifetimeRunsOutBeforeConnecting) {
  Harness h;
  Client& client = h.add_client();
  h.server_running = false;
  h.connect(0, TokenOptions().expire(1).timeout(10));
  ASSERT_TRUE(h.run_until([&] { return client.state() <= ClientState::kDisconnected; }, 1000));
  EXPECT_EQ(client.state(), ClientState::kConnectTokenExpired) << to_string(client.state());
  EXPECT_LT(h.now, 102.0);
}

TEST(Netcode, InvalidTokenBytesMoveTheClientToInvalidConnectToken) {
  Harness h;
  Client& client = h.add_client();
  std::array<uint8_t, kConnectTokenBytes> garbage{};
  garbage.fill(0x33);
  client.connect(std::as_bytes(std::span(garbage)), h.now);
  EXPECT_EQ(client.state(), ClientState::kInvalidConnectToken);
  EXPECT_STREQ(client.token_error(), "version info is not \"NETCODE 1.02\"");
  const uint8_t short_token[10] = {};
  client.connect(std::as_bytes(std::span(short_token)), h.now);
  EXPECT_EQ(client.state(), ClientState::kInvalidConnectToken);
}

TEST(Netcode, ConnectionResponseTimesOutWhenKeepAlivesNeverArrive) {
  Harness h;
  Client& client = h.add_client();
  h.network.on_send = [&](LoopbackNetwork::Datagram& d) {
    return !(d.from == h.server_address && (std::to_integer<int>(d.bytes[0]) & 0xF) == 4);  // no keep-alives reach the client
  };
  h.connect(0, TokenOptions().timeout(1));
  ASSERT_TRUE(h.run_until([&] { return client.state() <= ClientState::kDisconnected; }, 500));
  EXPECT_EQ(client.state(), ClientState::kConnectionResponseTimedOut);
}

TEST(Netcode, TriesServerAddressesInOrder) {
  Harness h;
  Client& client = h.add_client();
  const Address nobody = Address::ipv4(10, 9, 9, 9, 40000);
  h.connect(0, TokenOptions().to({nobody, nobody.with_port(1), h.server_address}).timeout(1));
  ASSERT_TRUE(h.run_until([&] { return client.is_connected(); }, 500));
  EXPECT_EQ(client.server_index(), 2);
  EXPECT_EQ(client.server_address(), h.server_address);
  EXPECT_EQ(client.stats().server_addresses_tried, 3u);
}

TEST(Netcode, ClientTimesOutWhenTheServerGoesSilent) {
  Harness h;
  Client& client = h.add_client();
  h.connect(0, TokenOptions().timeout(2));
  ASSERT_TRUE(h.run_until([&] { return client.is_connected(); }, 100));
  h.server_running = false;
  ASSERT_TRUE(h.run_until([&] { return !client.is_connected(); }, 500));
  EXPECT_EQ(client.state(), ClientState::kConnectionTimedOut);
  EXPECT_GT(h.now, 102.0);
}

TEST(Netcode, ServerTimesOutASilentClient) {
  Harness h;
  Client& client = h.add_client();
  h.connect(0, TokenOptions().timeout(2));
  ASSERT_TRUE(h.run_until([&] { return client.is_connected(); }, 100));
  drain_events(*h.server);
  h.network.on_send = [&](LoopbackNetwork::Datagram& d) { return d.from == h.server_address; };
  ASSERT_TRUE(h.run_until([&] { return h.server->connected_count() == 0; }, 500));
  const auto events = drain_events(*h.server);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].reason, DisconnectReason::kTimedOut);
}

TEST(Netcode, ServerRestartClientTimesOutThenReconnectsWithANewToken) {
  Harness h;
  Client& client = h.add_client();
  h.connect(0, TokenOptions().timeout(1));
  ASSERT_TRUE(h.run_until([&] { return client.is_connected(); }, 100));
  h.start_server();  // a new process at the same address: new challenge key, no slots
  ASSERT_TRUE(h.run_until([&] { return !client.is_connected(); }, 500));
  EXPECT_EQ(client.state(), ClientState::kConnectionTimedOut);
  EXPECT_GT(h.server->drops(PacketError::kNoKey), 0u) << "the old session's packets have no key on the new server";
  h.connect(0, TokenOptions().id(5000).timeout(1));
  ASSERT_TRUE(h.run_until([&] { return client.is_connected(); }, 100));
}

TEST(Netcode, NoAllocationOnThePacketPathsOnceConstructed) {
  Harness h(4);
  for (int i = 0; i < 3; ++i) {
    h.add_client();
    h.connect(static_cast<size_t>(i));
  }
  ASSERT_TRUE(h.run_until([&] { return h.all_connected(); }, 200));
  std::array<uint8_t, kMaxPayloadBytes> buffer{};
  std::array<uint8_t, 64> garbage{};
  garbage.fill(0x17);
  const uint64_t before = bitwire::test::counting_allocations.count;
  for (int tick = 0; tick < 200; ++tick) {
    for (size_t c = 0; c < 3; ++c) {
      ASSERT_TRUE(h.clients[c]->send_payload(bitwire::test::view(buffer).first(300)));
      ASSERT_TRUE(h.server->send_payload(static_cast<int>(c), bitwire::test::view(buffer).first(900)));
    }
    h.network.inject(Address::ipv4(9, 9, 9, 9, 9), h.server_address, std::as_bytes(std::span(garbage)));
    h.step();
    size_t size = 0;
    uint64_t sequence = 0;
    for (size_t c = 0; c < 3; ++c) {
      while (h.server->receive_payload(static_cast<int>(c), bitwire::test::writable(buffer), size, sequence)) {
      }
      while (h.clients[c]->receive_payload(bitwire::test::writable(buffer), size, sequence)) {
      }
    }
  }
  h.clients[0]->disconnect(h.now);
  h.server->disconnect(1);
  h.step();
  EXPECT_EQ(bitwire::test::counting_allocations.count, before);
  EXPECT_EQ(h.server->connected_count(), 1);
}

TEST(Netcode, InsecureLanConnectIsRefusedUnlessEnabledAndOnlyForLanAddresses) {
  Harness h;
  ConnectTokenParams params;
  params.protocol_id = testing::kTestProtocolId;
  params.client_id = 9;
  params.create_timestamp = h.unix_now();
  params.server_addresses.count = 1;
  params.server_addresses.items[0] = h.server_address;  // 10.0.0.1: private
  Client& locked = h.add_client();
  const char* reason = nullptr;
  EXPECT_FALSE(locked.connect_insecure_lan(params, h.private_key, h.now, &reason));
  EXPECT_STREQ(reason, "insecure LAN connect is disabled: set ClientConfig::allow_insecure_lan_connect");
  EXPECT_EQ(locked.state(), ClientState::kDisconnected);

  ClientConfig config;
  config.allow_insecure_lan_connect = true;
  Client& lan = h.add_client(config);
  ConnectTokenParams public_server = params;
  public_server.server_addresses.items[1] = Address::ipv4(8, 8, 8, 8, 40000);
  public_server.server_addresses.count = 2;
  EXPECT_FALSE(lan.connect_insecure_lan(public_server, h.private_key, h.now, &reason));
  EXPECT_STREQ(reason, "insecure LAN connect refuses a server address that is not loopback, private or link-local");
  ASSERT_TRUE(lan.connect_insecure_lan(params, h.private_key, h.now, &reason)) << reason;
  ASSERT_TRUE(h.run_until([&] { return lan.is_connected(); }, 100));
  EXPECT_EQ(h.server->client_id(0), 9u);
}

TEST(Netcode, ConfigsAreCheckedWithReasons) {
  ServerConfig bad;
  bad.max_clients = 0;
  EXPECT_STREQ(bad.check().reason(), "ServerConfig.max_clients = 0 is outside [1, 4096]");
  EXPECT_TRUE(bad.sanitized().check().ok());
  bad = {};
  bad.keep_alive_interval = -1;
  EXPECT_STREQ(bad.check().reason(), "ServerConfig.keep_alive_interval = -1 is outside [0.001, 10]");
  EXPECT_TRUE(bad.sanitized().check().ok());
  LoopbackNetwork network;
  LoopbackTransport transport(network, Address::ipv4(1, 2, 3, 4, 5));
  ServerConfig zero;
  zero.max_clients = 0;
  Server refused(zero, transport, Address::ipv4(1, 2, 3, 4, 5));
  EXPECT_FALSE(refused.ok());
  Server no_port(ServerConfig{}, transport, Address::ipv4(1, 2, 3, 4, 0));
  EXPECT_FALSE(no_port.ok());
  ClientConfig client_config;
  client_config.payload_queue_size = 0;
  EXPECT_STREQ(client_config.check().reason(), "ClientConfig.payload_queue_size = 0 is outside [1, 4096]");
  EXPECT_TRUE(client_config.sanitized().check().ok());
  Client client(client_config, transport);
  EXPECT_FALSE(client.ok());
}

// A refused server or client keeps its own reason (error_reason() is owned by the object): a later check of
// another config does not change it.
TEST(Netcode, RefusedConfigReasonsAreCopied) {
  LoopbackNetwork network;
  LoopbackTransport transport(network, Address::ipv4(1, 2, 3, 4, 5));
  ServerConfig server_config;
  server_config.keep_alive_interval = std::numeric_limits<double>::infinity();
  Server server(server_config, transport, Address::ipv4(1, 2, 3, 4, 5));
  ClientConfig client_config;
  client_config.send_interval = std::numeric_limits<double>::quiet_NaN();
  Client client(client_config, transport);
  ServerConfig other;
  other.disconnect_packets = 65;
  EXPECT_FALSE(other.check().ok());  // another reason, elsewhere
  EXPECT_STREQ(server.error_reason(), "ServerConfig.keep_alive_interval = inf is outside [0.001, 10]");
  EXPECT_STREQ(client.error_reason(), "ClientConfig.send_interval = nan is outside [0.001, 10]");
  client.update(1.0);
  EXPECT_EQ(client.state(), ClientState::kDisconnected) << "a refused client does nothing";
}

// sanitized() keeps the "0: ..." defaults; the server resolves them and config() shows what it runs with.
TEST(Netcode, ServerResolvesItsZeroDefaultsAtConstruction) {
  ServerConfig config;
  config.max_clients = 10;
  EXPECT_EQ(config.sanitized().event_queue_size, 0);
  EXPECT_EQ(config.sanitized().max_receive_per_update, 0);
  LoopbackNetwork network;
  LoopbackTransport transport(network, Address::ipv4(1, 2, 3, 4, 5));
  Server server(config, transport, Address::ipv4(1, 2, 3, 4, 5));
  ASSERT_TRUE(server.ok()) << server.error_reason();
  EXPECT_EQ(server.config().event_queue_size, 2 * 10 + 16);
  EXPECT_EQ(server.config().max_receive_per_update, 64 * 10);
}

}  // namespace
}  // namespace bitwire::netcode
