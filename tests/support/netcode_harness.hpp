// A netcode server and clients on an in-process LoopbackNetwork, stepped with a fake clock. Every run is
// bounded by a step count, so a test that fails to connect fails instead of hanging.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "bitwire/netcode/client.hpp"
#include "bitwire/netcode/server.hpp"
#include "bitwire/transport/transport.hpp"

namespace bitwire::netcode::testing {

inline constexpr uint64_t kTestProtocolId = 0x6269747769726531ull;
inline constexpr uint64_t kUnixBase = 1'700'000'000ull;

using TokenBytes = std::array<std::byte, kConnectTokenBytes>;

struct TokenOptions {
  uint64_t client_id = 1;
  std::vector<Address> servers;
  int expire_seconds = 30;
  int32_t timeout_seconds = 5;
  uint64_t protocol_id = kTestProtocolId;
  int64_t create_offset = 0;  // seconds added to "now" for the create timestamp
  uint8_t user_tag = 0;       // written into user data byte 0

  TokenOptions& id(uint64_t v) { client_id = v; return *this; }
  TokenOptions& to(std::vector<Address> v) { servers = std::move(v); return *this; }
  TokenOptions& expire(int v) { expire_seconds = v; return *this; }
  TokenOptions& timeout(int32_t v) { timeout_seconds = v; return *this; }
  TokenOptions& protocol(uint64_t v) { protocol_id = v; return *this; }
  TokenOptions& created(int64_t v) { create_offset = v; return *this; }
  TokenOptions& tag(uint8_t v) { user_tag = v; return *this; }
};

class Harness {
 public:
  explicit Harness(int max_clients = 8, size_t network_capacity = 8192)
      : network(network_capacity), server_transport(network, server_address) {
    config.protocol_id = kTestProtocolId;
    config.private_key = private_key;
    config.max_clients = max_clients;
    start_server();
  }

  void start_server() {
    server = std::make_unique<Server>(config, server_transport, server_address);
    EXPECT_TRUE(server->ok()) << server->error_reason();
  }

  uint64_t unix_now() const { return kUnixBase + static_cast<uint64_t>(now); }

  TokenBytes token(TokenOptions options) const {
    if (options.servers.empty()) options.servers.push_back(server_address);
    ConnectTokenParams params;
    params.protocol_id = options.protocol_id;
    params.client_id = options.client_id;
    params.create_timestamp = static_cast<uint64_t>(static_cast<int64_t>(unix_now()) + options.create_offset);
    params.expire_seconds = options.expire_seconds;
    params.timeout_seconds = options.timeout_seconds;
    params.server_addresses.count = static_cast<int>(options.servers.size());
    for (size_t i = 0; i < options.servers.size(); ++i) params.server_addresses.items[i] = options.servers[i];
    params.user_data[0] = std::byte{options.user_tag};
    ConnectToken token;
    const char* reason = nullptr;
    EXPECT_TRUE(generate_connect_token(params, private_key, token, &reason)) << reason;
    TokenBytes bytes{};
    EXPECT_TRUE(write_connect_token(token, bytes, &reason)) << reason;
    return bytes;
  }

  // A client at 10.0.1.<n>:50000.
  Client& add_client(ClientConfig client_config = {}) {
    const int n = static_cast<int>(clients.size());
    const Address address = Address::ipv4(10, 0, static_cast<uint8_t>(1 + n / 250), static_cast<uint8_t>(1 + n % 250),
                                          50000);
    transports.push_back(std::make_unique<LoopbackTransport>(network, address));
    clients.push_back(std::make_unique<Client>(client_config, *transports.back()));
    return *clients.back();
  }
  Address client_address(size_t index) const { return transports[index]->local_address(); }

  void connect(size_t index, TokenOptions options = {}) {
    if (options.client_id == 1) options.client_id = 1000 + index;
    const TokenBytes bytes = token(options);
    clients[index]->connect(bytes, now);
  }

  // Advances time by dt: every client updates, then the server.
  void step(double dt = 0.02) {
    now += dt;
    for (auto& client : clients) client->update(now);
    if (server && server_running) server->update(now, unix_now());
  }

  bool run_until(const std::function<bool()>& done, int max_steps = 2000, double dt = 0.02) {
    for (int i = 0; i < max_steps; ++i) {
      if (done()) return true;
      step(dt);
    }
    return done();
  }

  bool all_connected() const {
    for (const auto& c : clients) {
      if (!c->is_connected()) return false;
    }
    return true;
  }

  LoopbackNetwork network;
  Address server_address = Address::ipv4(10, 0, 0, 1, 40000);
  LoopbackTransport server_transport;
  Key private_key = random_key();
  ServerConfig config;
  std::unique_ptr<Server> server;
  bool server_running = true;
  std::vector<std::unique_ptr<LoopbackTransport>> transports;
  std::vector<std::unique_ptr<Client>> clients;
  double now = 100.0;
};

}  // namespace bitwire::netcode::testing
