// Hostile datagrams against netcode over the loopback transport, one attack per test: each checks that the
// attack is dropped, by which named check, and that the genuine clients are unaffected.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "support/netcode_harness.hpp"
#include "support/bytes.hpp"

namespace bitwire::netcode {
namespace {

using testing::Harness;
using testing::TokenOptions;

using Datagram = LoopbackNetwork::Datagram;

int type_of(const Datagram& d) {
  return std::to_integer<int>(d.bytes[0]) & 0xF;
}

// Captures datagrams the on_send hook sees (copies) that match `keep`.
struct Capture {
  std::vector<Datagram> items;
};

void connect_one(Harness& h, Client& client, TokenOptions options = {}) {
  h.connect(h.clients.size() - 1, options);
  ASSERT_TRUE(h.run_until([&] { return client.is_connected(); }, 200));
}

int drain_server(Harness& h, int slot) {
  std::array<uint8_t, kMaxPayloadBytes> buffer{};
  size_t size = 0;
  uint64_t sequence = 0;
  int n = 0;
  while (h.server->receive_payload(slot, bitwire::test::writable(buffer), size, sequence)) ++n;
  return n;
}

TEST(NetcodeAttack, TokenForAnotherServerAddressIsIgnored) {
  Harness h;
  Client& client = h.add_client();
  // The token names another server; the attacker (or a misrouted client) sends its request here anyway.
  h.connect(0, TokenOptions().to({Address::ipv4(10, 0, 0, 2, 40000)}).timeout(1));
  h.network.on_send = [&](Datagram& d) {
    d.to = h.server_address;
    return true;
  };
  ASSERT_TRUE(h.run_until([&] { return client.state() <= ClientState::kDisconnected; }, 500));
  EXPECT_GT(h.server->drops(PacketError::kRequestServerNotInToken), 0u);
  EXPECT_EQ(h.server->challenges_sent(), 0u);
  EXPECT_EQ(client.state(), ClientState::kConnectionRequestTimedOut);
}

TEST(NetcodeAttack, TokenReusedFromAnotherAddressIsIgnored) {
  Harness h;
  Client& client = h.add_client();
  Capture requests;
  h.network.on_send = [&](Datagram& d) {
    if (d.bytes[0] == std::byte{0}) requests.items.push_back(d);
    return true;
  };
  connect_one(h, client);
  ASSERT_FALSE(requests.items.empty());
  const Address thief = Address::ipv4(66, 66, 66, 66, 6666);
  const size_t challenges = h.server->challenges_sent();
  h.network.inject(thief, h.server_address,
                   std::as_bytes(std::span(requests.items[0].bytes.data(), requests.items[0].size)));
  h.step();
  EXPECT_EQ(h.server->drops(PacketError::kRequestAddressConnected) +
                h.server->drops(PacketError::kRequestClientIdConnected) +
                h.server->drops(PacketError::kRequestTokenReused),
            1u);
  EXPECT_EQ(h.server->challenges_sent(), challenges);
  // With the genuine client gone, the same token from another address still meets the token history.
  client.disconnect(h.now);
  h.step();
  h.network.inject(thief, h.server_address,
                   std::as_bytes(std::span(requests.items[0].bytes.data(), requests.items[0].size)));
  h.step();
  EXPECT_EQ(h.server->drops(PacketError::kRequestTokenReused), 1u);
  EXPECT_EQ(h.server->challenges_sent(), challenges);
  EXPECT_TRUE(h.network.queue().empty()) << "nothing is sent to the thief";
}

TEST(NetcodeAttack, ReplayedPayloadIsDeliveredOnce) {
  Harness h;
  Client& client = h.add_client();
  connect_one(h, client);
  Capture payloads;
  h.network.on_send = [&](Datagram& d) {
    if (d.from == h.client_address(0) && type_of(d) == 5) payloads.items.push_back(d);
    return true;
  };
  const uint8_t data[4] = {1, 2, 3, 4};
  ASSERT_TRUE(client.send_payload(bitwire::test::view(data)));
  h.step();
  EXPECT_EQ(drain_server(h, 0), 1);
  ASSERT_EQ(payloads.items.size(), 1u);
  for (int i = 0; i < 5; ++i) {
    h.network.inject(h.client_address(0), h.server_address,
                     std::as_bytes(std::span(payloads.items[0].bytes.data(), payloads.items[0].size)));
  }
  h.step();
  EXPECT_EQ(drain_server(h, 0), 0);
  EXPECT_EQ(h.server->drops(PacketError::kReplayed), 5u);
  EXPECT_EQ(h.server->stats(0).replayed, 5u);
}

TEST(NetcodeAttack, TruncatedPacketsAreDroppedAtEveryLength) {
  Harness h;
  Client& client = h.add_client();
  connect_one(h, client);
  Capture payloads;
  h.network.on_send = [&](Datagram& d) {
    if (d.from == h.client_address(0) && type_of(d) == 5) {
      payloads.items.push_back(d);
      return false;
    }
    return true;
  };
  std::array<uint8_t, 40> data{};
  ASSERT_TRUE(client.send_payload(bitwire::test::view(data)));
  ASSERT_EQ(payloads.items.size(), 1u);
  const Datagram original = payloads.items[0];
  for (size_t cut = 0; cut < original.size; ++cut) {
    h.network.inject(original.from, original.to, std::as_bytes(std::span(original.bytes.data(), cut)));
  }
  h.step();
  EXPECT_EQ(drain_server(h, 0), 0);
  EXPECT_EQ(h.server->drops(PacketError::kTooSmall) + h.server->drops(PacketError::kDecryptFailed),
            original.size - 1)
      << "lengths 1..17 are too small, 18..n-1 fail the MAC";
  h.network.inject(original.from, original.to, std::as_bytes(std::span(original.bytes.data(), original.size)));
  h.step();
  EXPECT_EQ(drain_server(h, 0), 1) << "the untouched packet is still accepted: nothing was burnt";
}

TEST(NetcodeAttack, EveryBitFlipIsDropped) {
  Harness h;
  Client& client = h.add_client();
  connect_one(h, client);
  Capture payloads;
  h.network.on_send = [&](Datagram& d) {
    if (d.from == h.client_address(0) && type_of(d) == 5) {
      payloads.items.push_back(d);
      return false;
    }
    return true;
  };
  std::array<uint8_t, 24> data{};
  ASSERT_TRUE(client.send_payload(bitwire::test::view(data)));
  ASSERT_EQ(payloads.items.size(), 1u);
  const Datagram original = payloads.items[0];
  for (size_t bit = 0; bit < original.size * 8; ++bit) {
    Datagram flipped = original;
    flipped.bytes[bit / 8] ^= static_cast<std::byte>(1u << (bit % 8));
    h.network.inject(flipped.from, flipped.to, std::as_bytes(std::span(flipped.bytes.data(), flipped.size)));
    h.step(0.0);
  }
  EXPECT_EQ(drain_server(h, 0), 0);
  EXPECT_GE(h.server->drops(PacketError::kDecryptFailed), original.size * 8 - 8);
  EXPECT_TRUE(h.server->is_connected(0));
}

TEST(NetcodeAttack, ReorderedPacketsWithinTheWindowAreAllDelivered) {
  Harness h;
  Client& client = h.add_client();
  connect_one(h, client);
  h.server_running = false;
  for (int i = 0; i < 50; ++i) {
    const uint8_t data[1] = {static_cast<uint8_t>(i)};
    ASSERT_TRUE(client.send_payload(bitwire::test::view(data)));
  }
  auto& queue = h.network.queue();
  std::reverse(queue.begin(), queue.end());
  h.server_running = true;
  h.config.payload_queue_per_slot = 64;
  h.step(0.0);
  std::array<uint8_t, kMaxPayloadBytes> buffer{};
  size_t size = 0;
  uint64_t sequence = 0, previous = UINT64_MAX;
  int n = 0;
  while (h.server->receive_payload(0, bitwire::test::writable(buffer), size, sequence)) {
    EXPECT_LT(sequence, previous) << "delivered in arrival order (reversed)";
    previous = sequence;
    ++n;
  }
  EXPECT_EQ(n, 16) << "the slot's queue holds payload_queue_per_slot; the rest are counted";
  EXPECT_EQ(h.server->stats(0).payloads_received, 50u);
  EXPECT_EQ(h.server->drops(PacketError::kReplayed), 0u);
}

TEST(NetcodeAttack, PacketsOlderThanTheReplayWindowAreDropped) {
  Harness h;
  Client& client = h.add_client();
  connect_one(h, client);
  Capture first;
  h.network.on_send = [&](Datagram& d) {
    if (d.from == h.client_address(0) && type_of(d) == 5 && first.items.empty()) {
      first.items.push_back(d);
      return false;
    }
    return true;
  };
  for (int i = 0; i < ReplayProtection::kWindow + 10; ++i) {
    const uint8_t data[1] = {1};
    ASSERT_TRUE(client.send_payload(bitwire::test::view(data)));
    h.step(0.0);
    drain_server(h, 0);
  }
  h.network.inject(first.items[0].from, first.items[0].to,
                   std::as_bytes(std::span(first.items[0].bytes.data(), first.items[0].size)));
  h.step(0.0);
  EXPECT_EQ(drain_server(h, 0), 0);
  EXPECT_EQ(h.server->drops(PacketError::kReplayed), 1u);
}

TEST(NetcodeAttack, SpoofedChallengeResponseIsRefused) {
  Harness h;
  Client& client = h.add_client();
  // The client's responses never reach the server, so its encryption mapping stays pending.
  Capture responses;
  h.network.on_send = [&](Datagram& d) {
    if (d.from == h.client_address(0) && type_of(d) == 3) {
      responses.items.push_back(d);
      return false;
    }
    return true;
  };
  const testing::TokenBytes bytes = h.token(TokenOptions().id(42));
  ConnectToken token;
  ASSERT_TRUE(read_connect_token(std::as_bytes(std::span(bytes)), token));
  client.connect(std::as_bytes(std::span(bytes)), h.now);
  ASSERT_TRUE(h.run_until([&] { return !responses.items.empty(); }, 100));
  h.network.queue().clear();

  // The attacker knows the client's keys (worst case) and forges a response around a made-up challenge token.
  uint8_t forged_body[kChallengeBodyBytes];
  uint8_t fake_token[kChallengeTokenBytes];
  ChallengeToken claim;
  claim.client_id = 42;
  seal_challenge_token(claim, 0, random_key(),
                       std::as_writable_bytes(std::span(fake_token)));  // not the server's key
  write_challenge_body(0, std::as_bytes(std::span(fake_token)),
                       std::as_writable_bytes(std::span(forged_body)));
  std::array<uint8_t, kMaxPacketBytes> packet{};
  size_t size = write_encrypted_packet(PacketType::kConnectionResponse, 1000,
                                       bitwire::test::view(forged_body), testing::kTestProtocolId,
                                       token.client_to_server_key, std::as_writable_bytes(std::span(packet)));
  h.network.inject(h.client_address(0), h.server_address, std::as_bytes(std::span(packet.data(), size)));
  // From an address with no encryption mapping, the same forgery has no key at all.
  h.network.inject(Address::ipv4(6, 6, 6, 6, 6), h.server_address, std::as_bytes(std::span(packet.data(), size)));
  h.server->update(h.now, h.unix_now());
  EXPECT_EQ(h.server->drops(PacketError::kChallengeTokenInvalid), 1u);
  EXPECT_EQ(h.server->drops(PacketError::kNoKey), 1u);
  EXPECT_EQ(h.server->connected_count(), 0);
}

TEST(NetcodeAttack, FloodOfGarbageAndRequestsLeavesClientsServed) {
  Harness h(8, 1 << 16);
  for (int i = 0; i < 4; ++i) {
    h.add_client();
    h.connect(static_cast<size_t>(i));
  }
  ASSERT_TRUE(h.run_until([&] { return h.all_connected(); }, 200));
  std::mt19937 rng(12345);
  std::array<uint8_t, kRequestPacketBytes> datagram{};
  const testing::TokenBytes valid_token_bytes = h.token(TokenOptions().id(999));
  ConnectToken valid_token;
  ASSERT_TRUE(read_connect_token(std::as_bytes(std::span(valid_token_bytes)), valid_token));
  uint64_t delivered_up = 0;
  size_t flooder_replies = 0;
  h.network.on_send = [&](Datagram& d) {
    if (d.from == h.server_address && d.to.bytes()[0] == 172) ++flooder_replies;
    return true;
  };
  for (int tick = 0; tick < 200; ++tick) {
    for (int i = 0; i < 100; ++i) {  // garbage of every size from spoofed addresses
      const size_t size = rng() % 1300;
      for (size_t j = 0; j < size; ++j) datagram[j % datagram.size()] = static_cast<uint8_t>(rng());
      h.network.inject(Address::ipv4(172, 16, static_cast<uint8_t>(rng()), static_cast<uint8_t>(rng()), 1000),
                       h.server_address, std::as_bytes(std::span(datagram.data(), std::min<size_t>(size, 1078))));
    }
    for (int i = 0; i < 50; ++i) {  // valid-looking requests: right size, version, protocol id, expiry
      write_request_packet(valid_token, std::as_writable_bytes(std::span(datagram)));
      for (size_t j = 0; j < 16; ++j) datagram[1 + 13 + 16 + 24 + rng() % 1024] = static_cast<uint8_t>(rng());
      h.network.inject(Address::ipv4(172, 17, static_cast<uint8_t>(rng()), static_cast<uint8_t>(rng()), 1000),
                       h.server_address, std::as_bytes(std::span(datagram.data(), kRequestPacketBytes)));
    }
    for (int c = 0; c < 4; ++c) {
      const uint8_t data[8] = {static_cast<uint8_t>(c)};
      ASSERT_TRUE(h.clients[static_cast<size_t>(c)]->send_payload(bitwire::test::view(data)));
    }
    h.step();
    for (int c = 0; c < 4; ++c) delivered_up += static_cast<uint64_t>(drain_server(h, c));
  }
  EXPECT_TRUE(h.all_connected());
  EXPECT_EQ(h.server->connected_count(), 4);
  EXPECT_EQ(delivered_up, 4u * 200u) << "every genuine payload got through the flood";
  EXPECT_GE(h.server->drops(PacketError::kRequestTokenDecryptFailed), 200u * 50u);
  EXPECT_EQ(flooder_replies, 0u) << "nothing is sent to a flooding address";
  EXPECT_EQ(h.server->challenges_sent(), 4u);
}

TEST(NetcodeAttack, RepliesAreNeverLargerThanTheRequestThatCausedThem) {
  Harness h(1);
  for (int i = 0; i < 3; ++i) h.add_client();
  size_t largest_from_server_during_handshake = 0;
  h.network.on_send = [&](Datagram& d) {
    const int type = type_of(d);
    if (d.from == h.server_address && (type == 1 || type == 2)) {
      largest_from_server_during_handshake = std::max(largest_from_server_during_handshake, d.size);
    }
    return true;
  };
  h.connect(0);
  h.connect(1);
  h.run_until([&] { return h.clients[1]->state() == ClientState::kConnectionDenied; }, 200);
  EXPECT_EQ(h.clients[1]->state(), ClientState::kConnectionDenied);
  EXPECT_GT(largest_from_server_during_handshake, 0u);
  EXPECT_LE(largest_from_server_during_handshake, 1 + 8 + kChallengeBodyBytes + kMacBytes);
  EXPECT_LT(largest_from_server_during_handshake, kRequestPacketBytes);
  EXPECT_EQ(h.server->largest_reply_ratio_violations(), 0u);
}

TEST(NetcodeAttack, ClientIgnoresPacketsFromOtherAddressesAndServerOnlyTypes) {
  Harness h;
  Client& client = h.add_client();
  connect_one(h, client);
  const testing::TokenBytes bytes = h.token(TokenOptions());
  ConnectToken token;
  ASSERT_TRUE(read_connect_token(std::as_bytes(std::span(bytes)), token));
  std::array<uint8_t, kMaxPacketBytes> packet{};
  const size_t size =
      write_encrypted_packet(PacketType::kDisconnect, 1000000, {}, testing::kTestProtocolId,
                             token.server_to_client_key, std::as_writable_bytes(std::span(packet)));
  h.network.inject(Address::ipv4(10, 0, 0, 99, 40000), h.client_address(0),
                   std::as_bytes(std::span(packet.data(), size)));
  h.step();
  EXPECT_TRUE(client.is_connected());
  EXPECT_EQ(client.drops(PacketError::kFromWrongAddress), 1u);
  h.network.inject(h.server_address, h.client_address(0), std::as_bytes(std::span(packet.data(), size)));
  h.step();
  EXPECT_TRUE(client.is_connected()) << "a disconnect under another token's key does not decrypt";
  EXPECT_EQ(client.drops(PacketError::kDecryptFailed), 1u);
}

}  // namespace
}  // namespace bitwire::netcode
