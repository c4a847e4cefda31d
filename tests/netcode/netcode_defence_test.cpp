// Checks of netcode whose removal no other test noticed: each test here fails when its check is broken
// (tests/mutation/mutants.txt lists the mutants).
#include <gtest/gtest.h>

#include <vector>

#include "support/forged_client.hpp"
#include "support/netcode_harness.hpp"

namespace bitwire::netcode {
namespace {

using bitwire::test::bytes_of;
using bitwire::test::ForgedClient;
using testing::Harness;
using Datagram = LoopbackNetwork::Datagram;

// Sequences S and S + 256 share an entry of the window; with both lost, only the "older than the window"
// check stands between a replayed S and its acceptance.
TEST(NetcodeDefence, SequenceOlderThanTheWindowIsRefusedWhenItsEntryIsEmpty) {
  ReplayProtection replay;
  constexpr uint64_t kS = 10;
  for (uint64_t sequence = 0; sequence < 300; ++sequence) {
    if (sequence != kS && sequence != kS + ReplayProtection::kWindow) replay.advance(sequence);
  }
  EXPECT_TRUE(replay.already_received(kS)) << "S is 289 behind the most recent: too old";
  EXPECT_FALSE(replay.already_received(kS + ReplayProtection::kWindow)) << "S + 256 is inside the window";
  EXPECT_TRUE(replay.already_received(299));
}

// Two tokens with one client id from two addresses, both challenged before either connects: the second
// response meets the client-id check.
TEST(NetcodeDefence, ResponseOfAClientIdAlreadyConnectedIsDropped) {
  Harness h(8);
  std::vector<ForgedClient> forged;
  for (uint8_t k = 0; k < 2; ++k) {
    ConnectTokenParams params;
    params.protocol_id = testing::kTestProtocolId;
    params.client_id = 4242;
    params.create_timestamp = h.unix_now();
    params.server_addresses.count = 1;
    params.server_addresses.items[0] = h.server_address;
    forged.emplace_back(Address::ipv4(10, 7, 0, static_cast<uint8_t>(1 + k), 60000), params, h.private_key);
  }
  h.network.on_send = [&](Datagram& d) {
    for (ForgedClient& f : forged) {
      if (d.to != f.address) continue;
      if (f.response.empty()) f.take_challenge(std::span(d.bytes.data(), d.size));
      return false;
    }
    return true;
  };
  for (const ForgedClient& f : forged)
    ASSERT_TRUE(h.network.inject(f.address, h.server_address, bytes_of(f.request)));
  h.step();
  ASSERT_EQ(h.server->challenges_sent(), 2u);
  for (const ForgedClient& f : forged)
    ASSERT_TRUE(h.network.inject(f.address, h.server_address, bytes_of(f.response)));
  h.step();
  EXPECT_EQ(h.server->connected_count(), 1);
  EXPECT_EQ(h.server->drops(PacketError::kResponseClientIdConnected), 1u);
  EXPECT_EQ(h.server->client_address(0), forged[0].address);
}

// A forged identity for h's server at 10.7.0.<n>:60000, its replies taken off the network (the challenge
// completes its response).
ForgedClient forged_identity(Harness& h, uint8_t n, std::vector<ForgedClient*>& all) {
  ConnectTokenParams params;
  params.protocol_id = testing::kTestProtocolId;
  params.client_id = 3000 + n;
  params.create_timestamp = h.unix_now();
  params.server_addresses.count = 1;
  params.server_addresses.items[0] = h.server_address;
  ForgedClient f(Address::ipv4(10, 7, 0, n, 60000), params, h.private_key);
  h.network.on_send = [&all](Datagram& d) {
    for (ForgedClient* c : all) {
      if (d.to != c->address) continue;
      if (c->response.empty()) c->take_challenge(std::span(d.bytes.data(), d.size));
      return false;
    }
    return true;
  };
  return f;
}

// A request is exactly 1078 bytes: one byte more is refused before anything is decrypted or answered.
TEST(NetcodeDefence, RequestOneByteLongIsRefused) {
  Harness h(8);
  std::vector<ForgedClient*> all;
  ForgedClient f = forged_identity(h, 1, all);
  all.push_back(&f);
  std::vector<std::byte> longer = f.request;
  longer.push_back(std::byte{0});
  ASSERT_TRUE(h.network.inject(f.address, h.server_address, bytes_of(longer)));
  h.step();
  EXPECT_EQ(h.server->drops(PacketError::kRequestWrongSize), 1u);
  EXPECT_EQ(h.server->challenges_sent(), 0u);
}

// An authenticated keep-alive whose body is not 8 bytes is refused after decryption.
TEST(NetcodeDefence, KeepAliveWithAShortBodyIsRefused) {
  Harness h(8);
  std::vector<ForgedClient*> all;
  ForgedClient f = forged_identity(h, 2, all);
  all.push_back(&f);
  ASSERT_TRUE(h.network.inject(f.address, h.server_address, bytes_of(f.request)));
  h.step();
  ASSERT_FALSE(f.response.empty());
  ASSERT_TRUE(h.network.inject(f.address, h.server_address, bytes_of(f.response)));
  h.step();
  ASSERT_EQ(h.server->connected_count(), 1);
  const std::array<std::byte, 4> body{};
  ASSERT_TRUE(
      h.network.inject(f.address, h.server_address, bytes_of(f.encrypted(PacketType::kKeepAlive, 5, body))));
  h.step();
  EXPECT_EQ(h.server->drops(PacketError::kWrongBodySize), 1u);
  EXPECT_EQ(h.server->stats(0).keep_alives_received, 0u);
}

// Connects forged identity `f` (request, then its response).
void connect_forged(Harness& h, ForgedClient& f) {
  ASSERT_TRUE(h.network.inject(f.address, h.server_address, bytes_of(f.request)));
  h.step();
  ASSERT_FALSE(f.response.empty());
  ASSERT_TRUE(h.network.inject(f.address, h.server_address, bytes_of(f.response)));
  h.step();
  ASSERT_EQ(h.server->client_address(0), f.address);
}

// The server takes only response, keep-alive, payload and disconnect packets: an authenticated challenge
// from a connected client is refused by type.
TEST(NetcodeDefence, ChallengeSentToTheServerIsRefusedByType) {
  Harness h(8);
  std::vector<ForgedClient*> all;
  ForgedClient f = forged_identity(h, 3, all);
  all.push_back(&f);
  connect_forged(h, f);
  const std::array<std::byte, kChallengeBodyBytes> body{};
  ASSERT_TRUE(h.network.inject(f.address, h.server_address,
                               bytes_of(f.encrypted(PacketType::kConnectionChallenge, 7, body))));
  h.step();
  EXPECT_EQ(h.server->drops(PacketError::kTypeNotAllowed), 1u);
  EXPECT_EQ(h.server->stats(0).packets_received, 0u);
}

// A request with another valid token from an address that is connected is refused before any challenge.
TEST(NetcodeDefence, RequestFromAConnectedAddressIsRefused) {
  Harness h(8);
  std::vector<ForgedClient*> all;
  ForgedClient f = forged_identity(h, 4, all);
  all.push_back(&f);
  connect_forged(h, f);
  ConnectTokenParams params;
  params.protocol_id = testing::kTestProtocolId;
  params.client_id = 3999;  // not connected
  params.create_timestamp = h.unix_now();
  params.server_addresses.count = 1;
  params.server_addresses.items[0] = h.server_address;
  const ForgedClient second(f.address, params, h.private_key);
  const uint64_t challenges = h.server->challenges_sent();
  ASSERT_TRUE(h.network.inject(f.address, h.server_address, bytes_of(second.request)));
  h.step();
  EXPECT_EQ(h.server->drops(PacketError::kRequestAddressConnected), 1u);
  EXPECT_EQ(h.server->challenges_sent(), challenges);
}

// The first keep-alive tells the client its slot; one naming a slot outside [0, max_clients) is refused,
// one inside is accepted (so the forged packets are otherwise valid).
TEST(NetcodeDefence, KeepAliveWithAnIndexOutsideMaxClientsIsRefused) {
  Harness h(8);
  Client& client = h.add_client();
  const testing::TokenBytes bytes = h.token(testing::TokenOptions().id(77));
  ConnectToken token;
  ASSERT_TRUE(read_connect_token(bytes, token));
  h.network.on_send = [&](Datagram& d) {
    return !(d.from == h.server_address &&
             (std::to_integer<int>(d.bytes[0]) & 0xF) == static_cast<int>(PacketType::kKeepAlive));
  };
  client.connect(bytes, h.now);
  ASSERT_TRUE(h.run_until([&] { return client.state() == ClientState::kSendingConnectionResponse; }, 100));
  const auto keep_alive = [&](uint64_t sequence, uint32_t index, uint32_t max) {
    std::array<std::byte, kKeepAliveBodyBytes> body{};
    write_keep_alive_body(index, max, body);
    std::vector<std::byte> out(kReceiveBufferBytes);
    out.resize(write_encrypted_packet(PacketType::kKeepAlive, sequence, body, testing::kTestProtocolId,
                                      token.server_to_client_key, out));
    ASSERT_TRUE(h.network.inject(h.server_address, h.client_address(0), out));
    h.step();
  };
  keep_alive(1000, 8, 8);
  EXPECT_FALSE(client.is_connected());
  EXPECT_EQ(client.drops(PacketError::kWrongBodySize), 1u);
  keep_alive(1001, 7, 8);
  EXPECT_TRUE(client.is_connected());
  EXPECT_EQ(client.client_index(), 7);
}

}  // namespace
}  // namespace bitwire::netcode
