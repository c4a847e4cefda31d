// bitwire::SimulatedTransport: a NetworkSimulator each way around any Transport, on either end of a
// Client/Server session (runtime/include/bitwire/sim/simulated_transport.hpp, docs/simulator.md).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "bitwire/sim/simulated_transport.hpp"
#include "support/stack_harness.hpp"

namespace bitwire::test {
namespace {

NetworkConditions latency(double ms) {
  NetworkConditions c;
  c.latency_ms = ms;
  return c;
}

struct Received {
  bool got = false;
  Address from;
  size_t size = 0;
  double arrival = 0.0;
  std::array<std::byte, 64> bytes{};
};

Received receive(Transport& transport) {
  Received r;
  r.got = transport.receive(r.bytes, r.from, r.size, r.arrival);
  return r;
}

TEST(SimulatedTransport, DelaysEachDirectionOfItsEndByTheLatency) {
  LoopbackNetwork network;
  const Address a_address = Address::ipv4(10, 0, 0, 1, 1000), b_address = Address::ipv4(10, 0, 0, 2, 2000);
  LoopbackTransport a_inner(network, a_address), b(network, b_address);
  double now = 5.0;
  SimulatedTransport a(a_inner, latency(100.0), 7);
  a.set_clock([&] { return now; });
  b.set_clock([&] { return now; });
  EXPECT_EQ(a.local_address(), a_address);

  const std::array<std::byte, 3> ping{std::byte{1}, std::byte{2}, std::byte{3}};
  a.send(b_address, ping);
  now = 5.099;
  a.pump();
  EXPECT_FALSE(receive(b).got) << "not before the outgoing latency";
  now = 5.1;
  a.pump();
  Received at_b = receive(b);
  ASSERT_TRUE(at_b.got);
  EXPECT_EQ(at_b.from, a_address);
  ASSERT_EQ(at_b.size, ping.size());
  EXPECT_EQ(std::memcmp(at_b.bytes.data(), ping.data(), ping.size()), 0);

  b.send(a_address, ping);  // reaches a's host at 5.1, handed to a's stack at 5.2
  EXPECT_FALSE(receive(a).got);
  now = 5.25;  // read late: the arrival is still the simulated one
  Received at_a = receive(a);
  ASSERT_TRUE(at_a.got);
  EXPECT_EQ(at_a.from, b_address);
  EXPECT_NEAR(at_a.arrival, 5.2, 1e-9);
  EXPECT_FALSE(receive(a).got);
}

// The moved demo check, against the public type: a datagram read a tick after it reached the host is
// delayed from when it reached the host.
TEST(SimulatedTransport, LinkStartsWhenTheDatagramReachedTheHost) {
  LoopbackNetwork network;
  const Address client_address = Address::ipv4(10, 0, 0, 1, 1000), server = Address::ipv4(10, 0, 0, 2, 2000);
  LoopbackTransport inner(network, client_address);
  double now = 1.0;
  inner.set_clock([&] { return now; });  // the decorator uses the inner clock when it has none of its own
  SimulatedTransport client(inner, latency(100.0), 3);
  const std::array<std::byte, 8> payload{};
  ASSERT_TRUE(network.inject(server, client_address, payload, 1.0));  // reached the host at 1.0
  now = 1.05;
  EXPECT_FALSE(receive(client).got);
  now = 1.1;
  const Received r = receive(client);
  ASSERT_TRUE(r.got);
  EXPECT_EQ(r.size, payload.size());
  EXPECT_NEAR(r.arrival, 1.1, 1e-9) << "100 ms after it reached the host, not after the read at 1.05";
}

TEST(SimulatedTransport, CarriesEachDatagramToItsOwnPeer) {
  LoopbackNetwork network;
  const Address server_address = Address::ipv4(10, 0, 0, 1, 1000);
  const Address peers[2] = {Address::ipv4(10, 0, 0, 2, 2000),
                            Address::ipv6({0xfd00, 0, 0, 0, 0, 0, 0, 5}, 3000)};
  LoopbackTransport server_inner(network, server_address), p0(network, peers[0]), p1(network, peers[1]);
  double now = 0.0;
  NetworkConditions jittery = latency(20.0);
  jittery.jitter_ms = 15.0;
  SimulatedTransport server(server_inner, jittery, 11);
  server.set_clock([&] { return now; });
  for (int i = 0; i < 40; ++i) {
    const std::array<std::byte, 1> tag{static_cast<std::byte>(i % 2)};
    server.send(peers[i % 2], tag);
  }
  now = 1.0;
  server.pump();
  int got[2] = {0, 0};
  LoopbackTransport* ends[2] = {&p0, &p1};
  for (int p = 0; p < 2; ++p) {
    for (Received r = receive(*ends[p]); r.got; r = receive(*ends[p])) {
      EXPECT_EQ(r.from, server_address);
      ASSERT_EQ(r.size, 1u);
      EXPECT_EQ(std::to_integer<int>(r.bytes[0]), p) << "a datagram for the other peer";
      ++got[p];
    }
  }
  EXPECT_EQ(got[0], 20);
  EXPECT_EQ(got[1], 20);
}

TEST(SimulatedTransport, ACorruptedAddressDropsTheDatagramNeverMisroutesIt) {
  LoopbackNetwork network;
  const Address a_address = Address::ipv4(10, 0, 0, 1, 1000), b_address = Address::ipv4(10, 0, 0, 2, 2000);
  LoopbackTransport a_inner(network, a_address), b(network, b_address);
  double now = 0.0;
  NetworkConditions corrupt;
  corrupt.corrupt_percent = 100.0;
  corrupt.corrupt_max_bits = 64;
  SimulatedTransport a(a_inner, corrupt, 5);
  a.set_clock([&] { return now; });
  const std::array<std::byte, 4> payload{};
  const int kSent = 2000;
  for (int i = 0; i < kSent; ++i) a.send(b_address, payload);
  int delivered = 0;
  for (LoopbackNetwork::Datagram& d : network.queue()) {
    EXPECT_EQ(d.to, b_address);
    ++delivered;
  }
  EXPECT_GT(a.stats().misaddressed, 0u);
  EXPECT_EQ(static_cast<uint64_t>(delivered) + a.stats().misaddressed, static_cast<uint64_t>(kSent));
}

// More datagrams due at once than the receive ring holds (10 into a ring of 4): the simulator keeps what
// does not fit until receive() has room, so every one arrives, in order, and none is counted dropped.
TEST(SimulatedTransport, MoreDueThanTheRingHoldsWaitInTheSimulator) {
  LoopbackNetwork network;
  const Address a_address = Address::ipv4(10, 0, 0, 1, 1000), b_address = Address::ipv4(10, 0, 0, 2, 2000);
  LoopbackTransport a_inner(network, a_address), b(network, b_address);
  double now = 5.0;
  SimulatedTransportConfig config = SimulatedTransportConfig::symmetric(latency(10.0), 3);
  config.ring_size = 4;
  SimulatedTransport a(a_inner, config);
  ASSERT_TRUE(a.ok());
  a.set_clock([&] { return now; });
  for (uint8_t i = 0; i < 10; ++i) {
    const std::array<std::byte, 1> datagram{std::byte{i}};
    b.send(a_address, datagram);
  }
  EXPECT_FALSE(receive(a).got) << "not before the latency";
  now = 5.02;
  std::vector<int> got;
  for (Received r = receive(a); r.got; r = receive(a)) {
    ASSERT_EQ(r.size, 1u);
    got.push_back(static_cast<int>(r.bytes[0]));
  }
  EXPECT_EQ(got, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(a.stats().ring_dropped, 0u);
}

TEST(SimulatedTransport, RefusedConfigNamesTheField) {
  LoopbackNetwork network;
  LoopbackTransport inner(network, Address::ipv4(10, 0, 0, 1, 1));
  SimulatedTransportConfig config = SimulatedTransportConfig::symmetric(latency(1.0), 1);
  config.ring_size = 0;
  ASSERT_NE(config.check().reason(), nullptr);
  EXPECT_NE(std::string(config.check().reason()).find("SimulatedTransportConfig.ring_size = 0"), std::string::npos)
      << config.check().reason();
  SimulatedTransport refused(inner, config);
  EXPECT_FALSE(refused.ok());
  ASSERT_NE(refused.error_reason(), nullptr);
  EXPECT_NE(std::string(refused.error_reason()).find("ring_size"), std::string::npos);
  const std::array<std::byte, 4> payload{};
  refused.send(Address::ipv4(10, 0, 0, 2, 2), payload);
  LoopbackTransport peer(network, Address::ipv4(10, 0, 0, 2, 2));
  peer.send(inner.local_address(), payload);
  EXPECT_FALSE(receive(refused).got) << "a refused link carries nothing";
  EXPECT_EQ(network.sent(), 1u) << "only the peer's datagram reached the network";
  EXPECT_EQ(refused.stats().refused, 2u);
  config = SimulatedTransportConfig::symmetric(latency(1.0), 1);
  config.incoming.conditions.loss_percent = 101.0;
  ASSERT_NE(config.check().reason(), nullptr);
  EXPECT_NE(std::string(config.check().reason()).find("SimulatedTransportConfig.incoming: "), std::string::npos)
      << config.check().reason();
  config = SimulatedTransportConfig::symmetric(latency(1.0), 1);
  config.max_datagram = 65000;
  config.ring_size = 65536;  // 4 GiB of ring: refused (the transport would allocate the bounded 1 GiB)
  ASSERT_NE(config.check().reason(), nullptr);
  EXPECT_NE(std::string(config.check().reason()).find("(max: 2^30 / max_datagram)"), std::string::npos)
      << config.check().reason();
  EXPECT_EQ(SimulatedTransportConfig::symmetric(latency(1.0), 1).check().reason(), nullptr);
}

TEST(SimulatedTransport, WithoutAClockArrivalsAreUndatedAndDelayIsReal) {
  LoopbackNetwork network;
  const Address a_address = Address::ipv4(10, 0, 0, 1, 1000), b_address = Address::ipv4(10, 0, 0, 2, 2000);
  LoopbackTransport a_inner(network, a_address), b(network, b_address);
  SimulatedTransport a(a_inner, NetworkConditions{}, 1);
  const std::array<std::byte, 2> payload{};
  b.send(a_address, payload);
  const Received r = receive(a);
  ASSERT_TRUE(r.got) << "zero latency: delivered at the first receive";
  EXPECT_TRUE(std::isnan(r.arrival)) << "no clock anywhere: the caller's update() time is used";
}

// One line on each end of a real session: the client and the server each wrap their transport, 25 ms each
// way on each end (a 100 ms round trip); the session connects and both ends measure the round trip. The
// ends tick every millisecond: an outgoing datagram leaves when its owner next calls the transport after
// it is due, so coarse ticks round each outgoing delay up to the tick (docs/simulator.md).
TEST(SimulatedTransport, ClientAndServerEachWrapTheirTransport) {
  LoopbackNetwork network(16384);
  const Address server_address = Address::ipv4(10, 0, 0, 1, 40000);
  const Address client_address = Address::ipv4(10, 0, 1, 1, 5000);
  LoopbackTransport server_udp(network, server_address), client_udp(network, client_address);
  double now = 10.0;
  SimulatedTransport server_transport(server_udp, latency(25.0), 1);
  SimulatedTransport client_transport(client_udp, latency(25.0), 2);
  server_transport.set_clock([&] { return now; });
  client_transport.set_clock([&] { return now; });
  const StackConfig config = stack_test_config(1);
  const netcode::Key key = netcode::random_key();
  Server server(config, kStackFactory, key, server_transport, server_address, now);
  Client client(config, kStackFactory, client_transport, now);
  ASSERT_TRUE(server.ok() && client.ok());
  netcode::ConnectTokenParams params;
  params.protocol_id = server.protocol_id();
  params.client_id = 7;
  params.create_timestamp = kStackUnixBase;
  params.timeout_seconds = 5;
  params.server_addresses.count = 1;
  params.server_addresses.items[0] = server_address;
  netcode::ConnectToken token;
  StackToken bytes{};
  ASSERT_TRUE(netcode::generate_connect_token(params, key, token));
  ASSERT_TRUE(netcode::write_connect_token(token, bytes));
  ASSERT_TRUE(client.connect(bytes, now));
  double connected_at = -1.0;
  for (int tick = 0; tick < 3000; ++tick) {
    now += 0.001;
    client.update(now);
    client.send_packets();
    server.update(now, kStackUnixBase + 1);
    server.send_packets();
    if (connected_at < 0 && client.is_connected()) connected_at = now;
  }
  ASSERT_TRUE(client.is_connected());
  // netcode's handshake is two round trips (request/challenge, response/keep-alive): at least 200 ms here.
  EXPECT_GE(connected_at - 10.0, 0.2);
  EXPECT_NEAR(client.stats().rtt_ms, 100.0, 3.0);
  EXPECT_NEAR(server.stats(client.client_index()).rtt_ms, 100.0, 3.0);
  EXPECT_GT(server_transport.outgoing().stats().delivered, 0u);
  EXPECT_GT(client_transport.incoming().stats().delivered, 0u);
}

}  // namespace
}  // namespace bitwire::test
