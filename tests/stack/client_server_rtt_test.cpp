// RTT and jitter through the whole stack: a bitwire::Server and Client over the in-process network, each
// direction through a NetworkSimulator (50 ms one way: a 100 ms round trip), both ends ticking at a game's
// rate. The datagrams' arrival times flow from the transport through netcode's queues to the Endpoint, and
// the ack delay extension (on in the stack) removes the time an ack waits for the peer's next packet, so the
// statistics a game reads match the link, not the tick: RTT within 10% and jitter within 5 ms of the truth.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>

#include "support/simulated_transport.hpp"
#include "support/stack_harness.hpp"

namespace bitwire::test {
namespace {

struct RttCase {
  double hz;            // both ends' tick (update + send_packets)
  double loss_percent;  // each direction
  double jitter_ms;     // each direction, +- uniform
};

struct RttReading {
  double rtt[2] = {0, 0};     // client, server
  double jitter[2] = {0, 0};  // client, server
  uint64_t stale_arrivals = 0;  // client's endpoint: arrival times older than its bound (none expected)
  bool connected = false;
};

constexpr double kOneWayMs = 50.0;

RttReading run_stack(const RttCase& c, uint64_t seed) {
  LoopbackNetwork network(16384);
  const Address server_address = Address::ipv4(10, 0, 0, 1, 40000);
  const Address client_address = Address::ipv4(10, 0, 1, 1, 5000);
  NetworkSimulatorConfig link;
  link.capacity = 4096;
  link.conditions.latency_ms = kOneWayMs;
  link.conditions.jitter_ms = c.jitter_ms;
  link.conditions.loss_percent = c.loss_percent;
  LoopbackTransport server_inner(network, server_address);
  LoopbackTransport client_inner(network, client_address);
  link.seed = seed;
  SimulatedTransport server_transport(server_inner, link);
  link.seed = seed + 1;
  SimulatedTransport client_transport(client_inner, link);
  const StackConfig config = stack_test_config(1);
  const netcode::Key key = netcode::random_key();
  double now = 10.0;
  Server server(config, kStackFactory, key, server_transport, server_address, now);
  Client client(config, kStackFactory, client_transport, now);
  EXPECT_TRUE(server.ok() && client.ok());
  netcode::ConnectTokenParams params;
  params.protocol_id = server.protocol_id();
  params.client_id = 7;
  params.create_timestamp = kStackUnixBase;
  params.timeout_seconds = 5;
  params.server_addresses.count = 1;
  params.server_addresses.items[0] = server_address;
  netcode::ConnectToken token;
  StackToken bytes{};
  EXPECT_TRUE(netcode::generate_connect_token(params, key, token));
  EXPECT_TRUE(netcode::write_connect_token(token, bytes));
  EXPECT_TRUE(client.connect(bytes, now));

  // Each end ticks at c.hz; the client's ticks are offset by 0.37 of a tick so the two are not in phase.
  const double start = now;
  const double settle = 10.0, measure = 20.0;
  const double phase[2] = {0.37 / c.hz, 0.0};  // client, server
  long next_tick[2] = {0, 0};
  long readings = 0;
  RttReading r;
  for (;;) {
    const double t0 = start + phase[0] + static_cast<double>(next_tick[0]) / c.hz;
    const double t1 = start + phase[1] + static_cast<double>(next_tick[1]) / c.hz;
    const int side = t0 <= t1 ? 0 : 1;
    now = side == 0 ? t0 : t1;
    if (now > start + settle + measure) break;
    ++next_tick[side];
    server_transport.pump(now);
    client_transport.pump(now);
    if (side == 0) {
      client.update(now);
      client.send_packets();
    } else {
      server.update(now, kStackUnixBase + 1);
      server.send_packets();
    }
    if (side == 1 && now >= start + settle) {
      if (!client.is_connected() || client.client_index() < 0) continue;
      const StackStats cs = client.stats();
      const StackStats ss = server.stats(client.client_index());
      r.rtt[0] += cs.rtt_ms;
      r.jitter[0] += cs.jitter_ms;
      r.rtt[1] += ss.rtt_ms;
      r.jitter[1] += ss.jitter_ms;
      ++readings;
    }
  }
  r.connected = client.is_connected() && readings > 0;
  r.stale_arrivals = client.connection().endpoint().counters().arrival_times_stale;
  for (int i = 0; i < 2; ++i) {
    r.rtt[i] /= static_cast<double>(std::max(readings, 1L));
    r.jitter[i] /= static_cast<double>(std::max(readings, 1L));
  }
  return r;
}

// The figure at 10 Hz on the old stack (no arrival times, ack delay off): RTT about 200 ms on this
// 100 ms link, since each sample held up to a tick at each end waiting for the tick and for the peer's next
// packet.
TEST(ClientServer, RttAndJitterAreHonestAt10HzThroughTheStack) {
  const RttCase cases[] = {
      {10, 0, 0}, {10, 25, 0}, {10, 0, 20}, {10, 25, 20}, {30, 0, 0}, {30, 25, 0},
      {30, 0, 20}, {30, 25, 20}, {60, 0, 0}, {60, 25, 0}, {60, 0, 20}, {60, 25, 20},
  };
  const double rtt_truth = 2.0 * kOneWayMs;
  std::printf("%4s %5s %6s | %8s %8s %8s | %8s %7s %7s\n", "Hz", "loss", "jitter", "rtt true", "client",
              "server", "jit true", "client", "server");
  uint64_t seed = 11;
  for (const RttCase& c : cases) {
    const RttReading r = run_stack(c, seed);
    seed += 2;
    // Each direction adds a uniform +-jitter: |sample - mean| of their sum averages 2/3 of it.
    const double jitter_truth = 2.0 * c.jitter_ms / 3.0;
    std::printf("%4.0f %5.0f %6.0f | %8.1f %8.1f %8.1f | %8.1f %7.1f %7.1f\n", c.hz, c.loss_percent, c.jitter_ms,
                rtt_truth, r.rtt[0], r.rtt[1], jitter_truth, r.jitter[0], r.jitter[1]);
    ASSERT_TRUE(r.connected) << c.hz << " Hz";
    // The transports' arrival times are all within the Endpoint's bound (kArrivalSlackSeconds).
    EXPECT_EQ(r.stale_arrivals, 0u) << c.hz << " Hz";
    for (int i = 0; i < 2; ++i) {
      const char* end = i == 0 ? "client" : "server";
      EXPECT_NEAR(r.rtt[i], rtt_truth, 0.1 * rtt_truth)
          << end << " at " << c.hz << " Hz, loss " << c.loss_percent << "%, jitter " << c.jitter_ms << " ms";
      EXPECT_NEAR(r.jitter[i], jitter_truth, 5.0)
          << end << " at " << c.hz << " Hz, loss " << c.loss_percent << "%, jitter " << c.jitter_ms << " ms";
    }
  }
}

// The stack turns the endpoint's default (kWithEnvelope, which is off without the envelope) into on; a game
// that asks for kOff keeps it off and gets another protocol id (both ends must agree); the payload fit counts
// the extension's 2 bytes.
TEST(ClientServer, AckDelayIsOnInTheStackUnlessTurnedOff) {
  StackConfig config = stack_test_config();
  ASSERT_EQ(config.connection.endpoint.ack_delay, AckDelayMode::kWithEnvelope);
  EXPECT_EQ(config.sanitized().connection.endpoint.ack_delay, AckDelayMode::kOn);
  EXPECT_FALSE(config.sanitized().connection.endpoint.envelope);
  StackConfig off = config;
  off.connection.endpoint.ack_delay = AckDelayMode::kOff;
  EXPECT_EQ(off.sanitized().connection.endpoint.ack_delay, AckDelayMode::kOff);
  EXPECT_NE(stack_protocol_id(kStackFactory, off), stack_protocol_id(kStackFactory, config));
  StackConfig on = config;
  on.connection.endpoint.ack_delay = AckDelayMode::kOn;
  EXPECT_EQ(stack_protocol_id(kStackFactory, on), stack_protocol_id(kStackFactory, config));

  // A fragment: 5 + 9 + 2 header bytes + fragment_size <= 1200; a whole packet: 9 + 2 + fragment_above.
  StackConfig fit = config;
  fit.connection.endpoint.fragment_size = 1185;
  fit.connection.endpoint.max_fragments = (fit.connection.endpoint.max_packet_size + 1184) / 1185;
  EXPECT_FALSE(fit.check().ok()) << "1185 + 16 > 1200";
  EXPECT_LE(fit.sanitized().connection.endpoint.fragment_size, 1184);
  EXPECT_TRUE(fit.sanitized().check().ok());
  fit.connection.endpoint.ack_delay = AckDelayMode::kOff;
  EXPECT_TRUE(fit.check().ok()) << "without the extension 1185 + 14 fits";
  StackConfig whole = config;
  whole.connection.endpoint.fragment_above = 1190;
  EXPECT_FALSE(whole.check().ok()) << "1190 + 11 > 1200";
  EXPECT_LE(whole.sanitized().connection.endpoint.fragment_above, 1189);

  // A client that turned it off cannot use the server's tokens: refused at connect, not by misread headers.
  StackHarness h(2);
  Client& client = h.add_client(&off);
  const StackToken token = h.token(1);
  const char* reason = nullptr;
  EXPECT_FALSE(client.connect(token, h.now, &reason));
  ASSERT_NE(reason, nullptr);
  EXPECT_NE(std::strstr(reason, "protocol id"), nullptr) << reason;
}

}  // namespace
}  // namespace bitwire::test
