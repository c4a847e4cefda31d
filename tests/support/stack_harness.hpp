// The full stack (bitwire::Server and Clients) on an in-process LoopbackNetwork, stepped with a fake clock
// at 60 Hz. Every run is bounded by a step count, so a test that fails to connect fails instead of hanging.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <memory>
#include <vector>

#include "bitwire/stack/client.hpp"
#include "bitwire/netcode/token.hpp"
#include "bitwire/stack/server.hpp"
#include "bitwire/transport/transport.hpp"
#include "support/test_messages.hpp"

namespace bitwire::test {

// Small (0), Tiny (1), Numbered (2): no block types, so no block buffers per slot.
inline constexpr MessageTypeInfo kStackTypes[] = {
    describe_message<Small>("Small"), describe_message<Tiny>("Tiny"), describe_message<Numbered>("Numbered")};
inline constexpr MessageFactory kStackFactory{kStackTypes};

inline constexpr uint64_t kStackProtocolId = 0x737461636b746573ull;
inline constexpr uint64_t kStackUnixBase = 1'700'000'000ull;
inline constexpr int kReliable = 0;
inline constexpr int kUnreliable = 1;

// Channel 0 reliable-ordered, channel 1 unreliable-unordered; queues sized for tests.
inline StackConfig stack_test_config(int max_clients = 8) {
  StackConfig config;
  config.protocol_id = kStackProtocolId;
  config.max_clients = max_clients;
  config.connection.channel_count = 2;
  config.connection.channels[0].type = ChannelType::kReliableOrdered;
  config.connection.channels[1].type = ChannelType::kUnreliableUnordered;
  for (int i = 0; i < 2; ++i) {
    config.connection.channels[i].disable_blocks = true;
    config.connection.channels[i].send_queue_size = 256;
    config.connection.channels[i].receive_queue_size = 256;
    config.connection.channels[i].sent_packets_buffer_size = 256;
    config.connection.channels[i].sent_message_ids = 4096;
  }
  return config;
}

using StackToken = std::array<std::byte, netcode::kConnectTokenBytes>;

class StackHarness {
 public:
  explicit StackHarness(int max_clients = 8, size_t network_capacity = 16384)
      : StackHarness(stack_test_config(max_clients), network_capacity) {}
  StackHarness(const StackConfig& stack_config, size_t network_capacity,
               const MessageFactory& message_factory = kStackFactory)
      : network(network_capacity),
        server_transport(network, server_address),
        config(stack_config),
        factory(message_factory) {
    start_server();
  }

  void start_server() {
    server.reset();
    server =
        std::make_unique<Server>(config, factory, private_key, server_transport, server_address, now);
    EXPECT_TRUE(server->ok()) << server->error_reason();
  }

  uint64_t unix_now() const { return kStackUnixBase + static_cast<uint64_t>(now); }

  StackToken token(uint64_t client_id, int32_t timeout_seconds = 5, uint64_t protocol_id = 0) const {
    netcode::ConnectTokenParams params;
    params.protocol_id = protocol_id != 0 ? protocol_id : stack_protocol_id(factory, config);
    params.client_id = client_id;
    params.create_timestamp = unix_now();
    params.timeout_seconds = timeout_seconds;
    params.server_addresses.count = 1;
    params.server_addresses.items[0] = server_address;
    netcode::ConnectToken token;
    const char* reason = nullptr;
    EXPECT_TRUE(netcode::generate_connect_token(params, private_key, token, &reason)) << reason;
    StackToken bytes{};
    EXPECT_TRUE(netcode::write_connect_token(token, bytes, &reason)) << reason;
    return bytes;
  }

  // A client at 10.0.<1 + n / 250>.<1 + n % 250>:50000.
  Client& add_client(const StackConfig* client_config = nullptr) {
    const int n = static_cast<int>(clients.size());
    const Address address =
        Address::ipv4(10, 0, static_cast<uint8_t>(1 + n / 250), static_cast<uint8_t>(1 + n % 250), 50000);
    transports.push_back(std::make_unique<LoopbackTransport>(network, address));
    clients.push_back(std::make_unique<Client>(client_config ? *client_config : config, factory,
                                               *transports.back(), now));
    EXPECT_TRUE(clients.back()->ok()) << clients.back()->error_reason();
    return *clients.back();
  }

  void connect(size_t index, int32_t timeout_seconds = 5) {
    const char* reason = nullptr;
    EXPECT_TRUE(clients[index]->connect(token(1000 + index, timeout_seconds), now, &reason)) << reason;
  }

  // One 60 Hz tick: clients receive and send, then the server; `between` runs first (to tamper with the
  // network) and `on_server` after the server's update (to read and send messages).
  void step(double dt = 1.0 / 60.0) {
    now += dt;
    if (between) between();
    for (size_t i = 0; i < clients.size(); ++i) {
      if (!client_paused(i)) {
        clients[i]->update(now);
        clients[i]->send_packets();
      }
    }
    if (server && server_running) {
      server->update(now, unix_now());
      if (on_server) on_server();
      if (!per_client_sends) server->send_packets();
    }
  }

  bool run_until(const std::function<bool()>& done, int max_steps = 2000) {
    for (int i = 0; i < max_steps; ++i) {
      if (done()) return true;
      step();
    }
    return done();
  }

  bool all_connected() const {
    for (const auto& c : clients) {
      if (!c->is_connected()) return false;
    }
    return server->connected_count() == static_cast<int>(clients.size());
  }

  bool client_paused(size_t index) const { return index < paused.size() && paused[index]; }

  LoopbackNetwork network;
  Address server_address = Address::ipv4(10, 0, 0, 1, 40000);
  LoopbackTransport server_transport;
  netcode::Key private_key = netcode::random_key();
  StackConfig config;
  MessageFactory factory;  // both ends' message types
  std::unique_ptr<Server> server;
  bool server_running = true;
  bool per_client_sends = false;  // step() leaves the server's sends to on_server (send_packets(i))
  std::vector<std::unique_ptr<LoopbackTransport>> transports;
  std::vector<std::unique_ptr<Client>> clients;
  std::vector<bool> paused;
  std::function<void()> between;
  std::function<void()> on_server;
  double now = 100.0;
};

inline std::vector<ServerEvent> drain_events(Server& server) {
  std::vector<ServerEvent> events;
  ServerEvent event;
  while (server.next_event(event)) events.push_back(event);
  return events;
}

inline std::vector<ClientEvent> drain_events(Client& client) {
  std::vector<ClientEvent> events;
  ClientEvent event;
  while (client.next_event(event)) events.push_back(event);
  return events;
}

}  // namespace bitwire::test
