// Arrival times through netcode when the transport does not report one. Transport::receive's contract
// says every receive reports an arrival time, but a user's transport may leave it unwritten: netcode must
// then read the datagram as received at the update's now, never as the time an earlier datagram (an
// earlier batch's entry of the server's receive arrays) was received.
#include <gtest/gtest.h>

#include <array>
#include <limits>
#include <memory>
#include <vector>

#include "bitwire/netcode/client.hpp"
#include "bitwire/netcode/server.hpp"
#include "bitwire/transport/transport.hpp"
#include "support/bytes.hpp"
#include "support/netcode_harness.hpp"

namespace bitwire::netcode::testing {
namespace {

// Forwards to a LoopbackTransport. While `stamp` is set, reports `stamp_time` as every datagram's arrival;
// otherwise leaves the caller's arrival_time untouched, as a transport without a clock may.
class UnstampedTransport final : public Transport {
 public:
  explicit UnstampedTransport(LoopbackTransport& inner) : inner_(inner) {}
  void send(const Address& to, std::span<const std::byte> datagram) override { inner_.send(to, datagram); }
  bool receive(std::span<std::byte> buffer, Address& from, size_t& size, double& arrival_time) override {
    double ignored = 0.0;
    if (!inner_.receive(buffer, from, size, ignored)) return false;
    if (stamp) arrival_time = stamp_time;
    return true;
  }
  Address local_address() const override { return inner_.local_address(); }

  bool stamp = true;
  double stamp_time = 0.0;

 private:
  LoopbackTransport& inner_;
};

// One payload up from the client, through a step; returns the arrival time the server queued it with.
double server_arrival_of_one_payload(Harness& h, Client& client) {
  const std::array<std::byte, 8> payload{};
  EXPECT_TRUE(client.send_payload(payload));
  h.step();
  std::array<std::byte, kMaxPayloadBytes> out{};
  size_t size = 0;
  uint64_t sequence = 0;
  double arrival = -1.0;
  double last = -1.0;
  int count = 0;
  while (h.server->receive_payload(0, out, size, sequence, arrival)) {
    last = arrival;
    ++count;
  }
  EXPECT_EQ(count, 1);
  return last;
}

TEST(NetcodeArrival, ServerBatchEntriesTheTransportLeavesUnsetReadAsNow) {
  std::unique_ptr<UnstampedTransport> server_transport;
  Harness h(4);
  server_transport = std::make_unique<UnstampedTransport>(h.server_transport);
  h.server = std::make_unique<Server>(h.config, *server_transport, h.server_address);
  ASSERT_TRUE(h.server->ok()) << h.server->error_reason();
  Client& client = h.add_client();
  h.connect(0);
  ASSERT_TRUE(h.run_until([&] { return h.all_connected() && h.server->is_confirmed(0); }));
  std::array<std::byte, kMaxPayloadBytes> out{};
  size_t size = 0;
  uint64_t sequence = 0;
  while (h.server->receive_payload(0, out, size, sequence)) {
  }

  // A transport that dates its datagrams: the server keeps the time it reported.
  server_transport->stamp_time = h.now + 0.02 - 0.005;  // the next step's now, less 5 ms
  double arrival = server_arrival_of_one_payload(h, client);
  EXPECT_DOUBLE_EQ(arrival, h.now - 0.005);

  // The same transport, now leaving the time unwritten: the datagram is read as received at the update's
  // now, not at the time the previous batch's datagram in the same entry was received.
  server_transport->stamp = false;
  for (int round = 0; round < 2; ++round) {
    arrival = server_arrival_of_one_payload(h, client);
    EXPECT_DOUBLE_EQ(arrival, h.now) << round;
  }
}

TEST(NetcodeArrival, ClientDatagramsTheTransportLeavesUndatedReadAsNow) {
  std::unique_ptr<UnstampedTransport> client_transport;
  Harness h(4);
  h.transports.push_back(std::make_unique<LoopbackTransport>(h.network, Address::ipv4(10, 0, 1, 1, 50000)));
  client_transport = std::make_unique<UnstampedTransport>(*h.transports.back());
  h.clients.push_back(std::make_unique<Client>(ClientConfig{}, *client_transport));
  Client& client = *h.clients.back();
  h.connect(0);
  ASSERT_TRUE(h.run_until([&] { return h.all_connected() && h.server->is_confirmed(0); }));
  std::array<std::byte, kMaxPayloadBytes> out{};
  size_t size = 0;
  uint64_t sequence = 0;
  double arrival = -1.0;
  while (client.receive_payload(out, size, sequence, arrival)) {
  }

  const std::array<std::byte, 8> payload{};
  // Dated by the transport: kept.
  ASSERT_TRUE(h.server->send_payload(0, payload));
  client_transport->stamp_time = h.now + 0.02 - 0.005;
  h.step();
  ASSERT_TRUE(client.receive_payload(out, size, sequence, arrival));
  EXPECT_DOUBLE_EQ(arrival, h.now - 0.005);
  // Left undated: the update's now.
  client_transport->stamp = false;
  for (int round = 0; round < 2; ++round) {
    ASSERT_TRUE(h.server->send_payload(0, payload));
    h.step();
    ASSERT_TRUE(client.receive_payload(out, size, sequence, arrival));
    EXPECT_DOUBLE_EQ(arrival, h.now);
  }
}

// A NaN or infinite `now` right after traffic on both sides is refused (counted, the previous time kept):
// afterwards each side still times the other out once it goes silent, which a NaN taken as the time of the
// last packet prevented for ever.
TEST(NetcodeTime, NonFiniteNowIsRefusedAndCounted) {
  Harness h(1);
  Client& client = h.add_client();
  h.connect(0);
  ASSERT_TRUE(h.run_until([&] { return client.is_connected() && h.server->is_connected(0); }));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (int i = 0; i < 10; ++i) {  // both sides send at 10 Hz: each bad update has packets to receive
    h.now += 0.02;
    client.update(h.now);
    h.server->update(nan, h.unix_now());
    client.update(nan);
    h.server->update(inf, h.unix_now());
    client.update(-inf);
  }
  EXPECT_EQ(h.server->time_invalid(), 20u);
  EXPECT_EQ(client.time_invalid(), 20u);
  ASSERT_TRUE(client.is_connected());
  ASSERT_TRUE(h.server->is_connected(0));
  const double silent = h.now;
  while (h.now < silent + 6.0) {  // the token's timeout is 5 s
    h.now += 0.02;
    h.server->update(h.now, h.unix_now());
  }
  EXPECT_FALSE(h.server->is_connected(0)) << "the server never timed out the silent client";
  while (h.now < silent + 12.0) {
    h.now += 0.02;
    client.update(h.now);
  }
  EXPECT_FALSE(client.is_connected())
      << "the client never timed out the silent server: " << to_string(client.state());
}

}  // namespace
}  // namespace bitwire::netcode::testing
