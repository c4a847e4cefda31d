// Pending encryption mappings (between a connection request and its response) under a flood of valid,
// re-sent tokens: a token holds an entry only for its pending lifetime counted from its first request, and
// the table of a small server is not a handful of entries, so genuine clients still get in.
#include <gtest/gtest.h>

#include <vector>

#include "support/forged_client.hpp"
#include "support/netcode_harness.hpp"

namespace bitwire::netcode {
namespace {

using bitwire::test::bytes_of;
using bitwire::test::ForgedClient;
using bitwire::test::ForgedDatagram;
using testing::Harness;
using Datagram = LoopbackNetwork::Datagram;

// `count` forged identities at 10.8.<k / 250>.<1 + k % 250>:60000 with tokens for h's server; the server's
// replies to them are taken off the network (the first challenge to each completes its response).
std::vector<ForgedClient> forge(Harness& h, int count, int32_t timeout_seconds, uint64_t first_id = 9000) {
  std::vector<ForgedClient> forged;
  for (int k = 0; k < count; ++k) {
    ConnectTokenParams params;
    params.protocol_id = testing::kTestProtocolId;
    params.client_id = first_id + static_cast<uint64_t>(k);
    params.create_timestamp = h.unix_now();
    params.expire_seconds = 600;
    params.timeout_seconds = timeout_seconds;
    params.server_addresses.count = 1;
    params.server_addresses.items[0] = h.server_address;
    forged.emplace_back(
        Address::ipv4(10, 8, static_cast<uint8_t>(k / 250), static_cast<uint8_t>(1 + k % 250), 60000), params,
        h.private_key);
  }
  return forged;
}

void drop_replies_to(Harness& h, std::vector<ForgedClient>& forged) {
  h.network.on_send = [&h, &forged](Datagram& d) {
    for (ForgedClient& f : forged) {
      if (d.to != f.address) continue;
      if (f.response.empty()) f.take_challenge(std::span(d.bytes.data(), d.size));
      return false;
    }
    return true;
  };
}

void inject_requests(Harness& h, const std::vector<ForgedClient>& forged) {
  for (const ForgedClient& f : forged)
    ASSERT_TRUE(h.network.inject(f.address, h.server_address, bytes_of(f.request)));
}

// The numbers: 8 slots x 4 pending = 32 tokens, each re-sent once a second, used to keep every new
// client out (a refreshed entry never expired and the table had 32 entries).
TEST(NetcodePending, ThirtyTwoResentTokensDoNotKeepAClientOut) {
  Harness h(8);
  std::vector<ForgedClient> forged = forge(h, 32, 5);
  drop_replies_to(h, forged);
  for (int second = 0; second < 3; ++second) {
    inject_requests(h, forged);
    for (int i = 0; i < 50; ++i) h.step();
  }
  Client& client = h.add_client();
  h.connect(0);
  const double start = h.now;
  for (int i = 0; i < 500 && !client.is_connected(); ++i) {
    if (i % 50 == 0) inject_requests(h, forged);
    h.step();
  }
  EXPECT_TRUE(client.is_connected()) << to_string(client.state());
  EXPECT_LT(h.now - start, 1.0);
  EXPECT_EQ(h.server->drops(PacketError::kRequestNoMapping), 0u);
}

// More re-sent tokens than the table holds (300 > 256): the table fills, but each token's entry lasts only
// its timeout (3 s) from its first request and is not granted again, so a genuine client gets in
// though the tokens are re-sent every 0.1 s.
TEST(NetcodePending, ResentTokensHoldAnEntryOnlyTheirLifetimeFromTheFirstRequest) {
  Harness h(8);
  std::vector<ForgedClient> forged = forge(h, 300, 3);
  drop_replies_to(h, forged);
  inject_requests(h, forged);
  h.step();
  Client& client = h.add_client();
  h.connect(0, testing::TokenOptions().timeout(10));
  const double start = h.now;
  for (int i = 0; i < 500 && !client.is_connected(); ++i) {
    if (i % 5 == 4) inject_requests(h, forged);  // every 0.1 s
    h.step();
  }
  EXPECT_TRUE(client.is_connected()) << to_string(client.state());
  EXPECT_GT(h.server->drops(PacketError::kRequestNoMapping), 0u) << "the table was full at first";
  EXPECT_LT(h.now - start, 4.5) << "in once the flood's entries reached their lifetime";
  EXPECT_GT(h.server->drops(PacketError::kRequestPendingExpired), 0u)
      << h.now - start << " s, no mapping " << h.server->drops(PacketError::kRequestNoMapping) << ", reused "
      << h.server->drops(PacketError::kRequestTokenReused) << ", challenges " << h.server->challenges_sent();
}

// A token that disables timeouts (-1) still holds its mapping only 10 s: its response connects before and
// finds no mapping after.
TEST(NetcodePending, MappingOfATokenWithoutTimeoutExpiresAfterTenSeconds) {
  Harness h(8);
  std::vector<ForgedClient> forged = forge(h, 2, -1);
  drop_replies_to(h, forged);
  inject_requests(h, forged);
  h.step();
  ASSERT_FALSE(forged[0].response.empty());
  ASSERT_FALSE(forged[1].response.empty());
  const double first_request = h.now;
  while (h.now < first_request + 9.8) h.step();
  ASSERT_TRUE(h.network.inject(forged[0].address, h.server_address, bytes_of(forged[0].response)));
  h.step();
  EXPECT_EQ(h.server->connected_count(), 1) << "alive at 9.8 s";
  while (h.now < first_request + 10.2) h.step();
  ASSERT_TRUE(h.network.inject(forged[1].address, h.server_address, bytes_of(forged[1].response)));
  h.step();
  EXPECT_EQ(h.server->connected_count(), 1) << "gone at 10.2 s";
  EXPECT_EQ(h.server->drops(PacketError::kNoKey), 1u);
}

// Two tokens from one address: token1's first request at t = 0 is denied (server full) and re-sent once a
// slot is free, token2 (a fresh token of the same client) first arrives at 4.9 s. The address's mapping now
// holds token2's keys and must last token2's lifetime: its response after 5 s connects.
TEST(NetcodePending, FreshTokenFromTheSameAddressGetsItsOwnDeadline) {
  Harness h(1);
  Client& genuine = h.add_client();
  h.connect(0);
  for (int i = 0; i < 200 && !genuine.is_connected(); ++i) h.step();
  ASSERT_TRUE(genuine.is_connected());
  std::vector<ForgedClient> tokens = forge(h, 2, 5);
  tokens[1].address = tokens[0].address;  // token2's datagrams come from token1's address
  h.network.on_send = [&tokens](Datagram& d) {
    if (d.to != tokens[0].address) return true;
    for (ForgedClient& f : tokens) {
      if (f.response.empty() && f.take_challenge(std::span(d.bytes.data(), d.size))) break;
    }
    return false;
  };
  const auto inject = [&h](const ForgedClient& f, const ForgedDatagram& d) {
    ASSERT_TRUE(h.network.inject(f.address, h.server_address, bytes_of(d)));
  };
  const double start = h.now;
  inject(tokens[0], tokens[0].request);
  h.step();
  ASSERT_EQ(h.server->denied_sent(), 1u) << "token1's first request is denied: the server is full";
  genuine.disconnect(h.now);
  for (int i = 0; i < 50; ++i) h.step();
  ASSERT_EQ(h.server->connected_count(), 0);
  inject(tokens[0], tokens[0].request);  // token1 again: a mapping until start + 5 s
  h.step();
  ASSERT_FALSE(tokens[0].response.empty());
  while (h.now < start + 4.9) h.step();
  inject(tokens[1], tokens[1].request);
  h.step();
  ASSERT_FALSE(tokens[1].response.empty()) << "token2 got a challenge";
  while (h.now < start + 5.3) h.step();
  const uint64_t no_key = h.server->drops(PacketError::kNoKey);
  inject(tokens[1], tokens[1].response);
  h.step();
  EXPECT_EQ(h.server->connected_count(), 1) << "token2's mapping ended at token1's deadline";
  EXPECT_EQ(h.server->drops(PacketError::kNoKey), no_key);
}

}  // namespace
}  // namespace bitwire::netcode
