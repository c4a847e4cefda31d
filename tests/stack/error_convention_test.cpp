// The one convention for a component that can refuse its config (docs/layers.md, "Conventions"): ok() is
// true and error_reason() is nullptr when all is well; otherwise ok() is false and error_reason() names the
// cause, in storage the object owns, so a later check of another config cannot change it. Every component
// of every layer is pinned here, both ways.
#include <gtest/gtest.h>

#include <cstdint>
#include <span>

#include "bitwire/message/connection.hpp"
#include "bitwire/message/message.hpp"
#include "bitwire/netcode/client.hpp"
#include "bitwire/netcode/server.hpp"
#include "bitwire/packet/congestion.hpp"
#include "bitwire/packet/endpoint.hpp"
#include "bitwire/packet/reassembler.hpp"
#include "bitwire/sim/link.hpp"
#include "bitwire/sim/simulator.hpp"
#include "bitwire/stack/client.hpp"
#include "bitwire/stack/server.hpp"
#include "bitwire/transport/transport.hpp"
#include "support/stack_harness.hpp"

namespace bitwire::test {
namespace {

template <typename Component>
void expect_ok(const Component& component) {
  EXPECT_TRUE(component.ok());
  EXPECT_EQ(component.error_reason(), nullptr);
}

// Refused with `reason`, which stays the object's after another config's check fails.
template <typename Component>
void expect_refused(const Component& component, const char* reason) {
  EXPECT_FALSE(component.ok());
  EXPECT_STREQ(component.error_reason(), reason);
  EndpointConfig other;
  other.rtt_history_size = 0;
  ASSERT_FALSE(other.check().ok());
  EXPECT_STREQ(component.error_reason(), reason) << "a later check does not change the object's reason";
}

void drop(void*, uint16_t, std::span<const std::byte>) {}
bool accept(void*, uint16_t, std::span<const std::byte>) {
  return true;
}

TEST(ErrorConvention, Endpoint) {
  const EndpointCallbacks callbacks{nullptr, &drop, &accept, nullptr};
  expect_ok(Endpoint(EndpointConfig{}, callbacks, 0.0));
  EndpointConfig bad;
  bad.sent_packets_buffer_size = 1;
  expect_refused(Endpoint(bad, callbacks, 0.0),
                 "EndpointConfig.sent_packets_buffer_size = 1 is outside [2, 32768]");
}

TEST(ErrorConvention, Reassembler) {
  expect_ok(Reassembler(ReassemblerConfig{}));
  ReassemblerConfig bad;
  bad.window = 65536;
  expect_refused(Reassembler(bad), "ReassemblerConfig.window = 65536 is outside [1, 32768]");
}

TEST(ErrorConvention, BinaryCongestionController) {
  expect_ok(BinaryCongestionController(BinaryCongestionConfig{}));
  BinaryCongestionConfig bad;
  bad.halving_period = 0.0;
  expect_refused(BinaryCongestionController(bad),
                 "BinaryCongestionConfig.halving_period = 0 is outside [0.001, 3600]");
}

TEST(ErrorConvention, MessagePool) {
  const MessageFactory factory(kStackTypes);
  expect_ok(MessagePool(factory, MessagePoolConfig{}));
  MessagePoolConfig bad;
  bad.capacity = 0;
  expect_refused(MessagePool(factory, bad), "MessagePoolConfig.capacity = 0 is outside [1, 16777216]");
}

// Connection::error_reason() used to be "" when all was well, where every other component said nullptr.
TEST(ErrorConvention, ConnectionWithoutAnErrorHasANullReason) {
  const MessageFactory factory(kStackTypes);
  Connection fine(factory, ConnectionConfig{});
  expect_ok(fine);
  EXPECT_EQ(fine.error(), ConnectionError::kNone);
  fine.reset();
  expect_ok(fine);
  ConnectionConfig bad;
  bad.channel_count = 0;
  Connection refused(factory, bad);
  expect_refused(refused, "ConnectionConfig.channel_count = 0 is outside [1, 64]");
  EXPECT_EQ(refused.error(), ConnectionError::kConfigInvalid) << "the enum of causes beside the reason";
}

TEST(ErrorConvention, NetworkSimulatorAndLink) {
  expect_ok(NetworkSimulator(NetworkSimulatorConfig{}));
  NetworkSimulatorConfig bad;
  bad.conditions.loss_percent = -1.0;
  expect_refused(NetworkSimulator(bad), "NetworkConditions.loss_percent = -1 is outside [0, 100]");
  expect_ok(Link(LinkConfig{}));
  LinkConfig bad_link;
  bad_link.a_to_b = bad;
  expect_refused(Link(bad_link),
                 "LinkConfig.a_to_b: NetworkConditions.loss_percent = -1 is outside [0, 100]");
}

TEST(ErrorConvention, NetcodeServerAndClient) {
  LoopbackNetwork network;
  LoopbackTransport transport(network, Address::ipv4(1, 2, 3, 4, 5));
  expect_ok(netcode::Server(netcode::ServerConfig{}, transport, Address::ipv4(1, 2, 3, 4, 5)));
  netcode::ServerConfig bad_server;
  bad_server.max_clients = 0;
  expect_refused(netcode::Server(bad_server, transport, Address::ipv4(1, 2, 3, 4, 5)),
                 "ServerConfig.max_clients = 0 is outside [1, 4096]");
  expect_ok(netcode::Client(netcode::ClientConfig{}, transport));
  netcode::ClientConfig bad_client;
  bad_client.payload_queue_size = 0;
  expect_refused(netcode::Client(bad_client, transport),
                 "ClientConfig.payload_queue_size = 0 is outside [1, 4096]");
}

TEST(ErrorConvention, StackServerAndClient) {
  LoopbackNetwork network;
  LoopbackTransport transport(network, Address::ipv4(10, 0, 0, 1, 1));
  const netcode::Key key = netcode::random_key();
  expect_ok(Server(stack_test_config(), kStackFactory, key, transport, transport.local_address()));
  expect_ok(Client(stack_test_config(), kStackFactory, transport));
  StackConfig bad = stack_test_config();
  bad.max_clients = 0;
  expect_refused(Server(bad, kStackFactory, key, transport, transport.local_address()),
                 "StackConfig.max_clients = 0 is outside [1, 4096]");
  expect_refused(Client(bad, kStackFactory, transport), "StackConfig.max_clients = 0 is outside [1, 4096]");
}

// A factory that fails check() (here: no message type) is a refusal with its reason in every component
// that takes one, not an assert: the pool holds no slot, the connection reads and sends nothing.
TEST(ErrorConvention, BadFactoryIsRefusedWithItsReason) {
  const MessageFactory empty;
  ASSERT_FALSE(empty.check().ok());
  const char* reason = "a message factory needs at least one message type";
  const MessagePool pool(empty, MessagePoolConfig{});
  expect_refused(pool, reason);
  EXPECT_EQ(pool.capacity(), 0);
  Connection connection(empty, ConnectionConfig{});
  expect_refused(connection, reason);
  EXPECT_EQ(connection.error(), ConnectionError::kFactoryInvalid);
  connection.reset();
  EXPECT_EQ(connection.error(), ConnectionError::kFactoryInvalid) << "reset() keeps a construction refusal";
  EXPECT_EQ(connection.pool().capacity(), 0);

  LoopbackNetwork network;
  LoopbackTransport transport(network, Address::ipv4(10, 0, 0, 1, 1));
  expect_refused(Client(stack_test_config(), empty, transport), reason);
  expect_refused(
      Server(stack_test_config(), empty, netcode::random_key(), transport, transport.local_address()),
      reason);
}

}  // namespace
}  // namespace bitwire::test
