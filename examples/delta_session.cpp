// delta_session: a server sends its client a 64-cube world::Snapshot every tick, as a delta against the
// newest snapshot the client acknowledged, through a simulated network (50 ms and 5% loss each way); the
// client receives whole snapshots. docs/delta.md section 3 quotes this program;
// tests/docs/blocks_doc_test.cpp keeps the quotes equal to it and ctest runs it (exit 0 when every
// snapshot received equals the one sent and the delta form took less than half the bytes; 1 otherwise).
//
// Only the public API and the code idlc generates from examples/delta/world.net (`delta message
// Snapshot`). In-process network and a stepped clock: it runs in a fraction of a second, the same way
// every time. It runs the session twice, with the delta form off and on, and prints both rates.
#include <array>
#include <cstdint>
#include <cstdio>
#include <map>

#include "bitwire/bitwire.hpp"
#include "world.hpp"

namespace {

constexpr double kTick = 1.0 / 60.0;
constexpr uint64_t kUnixStart = 1'800'000'000;  // the backend's clock for the tokens (any fixed time here)
constexpr int kSeconds = 10;

// [config]
// Channel 0: the game's reliable messages; channel 1: snapshots, unreliable.
constexpr int kReliable = 0;
constexpr int kSnapshots = 1;

bitwire::StackConfig make_config(bool delta) {
  bitwire::StackConfig config;
  config.max_clients = 2;
  bitwire::ConnectionConfig& c = config.connection;
  c.channel_count = 2;
  c.channels[kReliable].type = bitwire::ChannelType::kReliableOrdered;
  c.channels[kSnapshots].type = bitwire::ChannelType::kUnreliableUnordered;
  // The one call: every `delta message` sent on an unreliable channel goes as a delta against the newest
  // snapshot of its type the peer acked; 32 baselines kept per type on each side (fixed memory).
  c.delta_baselines = delta ? 32 : 0;
  return config;
}
// [config]

// The world moves: each tick eight cubes slide by a few steps and one is knocked far away.
void step(uint32_t tick, world::Snapshot& snapshot) {
  snapshot.tick = tick;
  for (uint32_t k = 0; k < 8; ++k) {
    world::Cube& cube = snapshot.cubes[(tick * 8 + k) % snapshot.cubes.size()];
    cube.x = static_cast<int16_t>((cube.x + 8192 + 3) % 16384 - 8192);
    cube.at_rest = false;
  }
  world::Cube& knocked = snapshot.cubes[(tick * 37) % snapshot.cubes.size()];
  knocked.y = static_cast<int16_t>((knocked.y + 8192 + 4000) % 16384 - 8192);
  knocked.orientation.a = static_cast<uint16_t>((knocked.orientation.a + 100) % 512);
}

struct Result {
  int sent = 0;
  int received = 0;
  int mismatched = 0;
  double down_kbps = 0.0;
};

bool run(bool delta, Result& result) {
  const bitwire::StackConfig config = make_config(delta);
  const bitwire::MessageFactory& factory = world::message_factory();
  const bitwire::netcode::Key key = bitwire::netcode::random_key();
  double now = 100.0;
  bitwire::LoopbackNetwork network;
  const bitwire::Address server_address = bitwire::Address::ipv4(127, 0, 0, 1, 40000);
  bitwire::LoopbackTransport server_transport(network, server_address);
  bitwire::LoopbackTransport client_wire(network, bitwire::Address::ipv4(127, 0, 0, 1, 50000));
  bitwire::NetworkConditions conditions;
  conditions.latency_ms = 50;
  conditions.loss_percent = 5;
  bitwire::SimulatedTransport client_transport(client_wire, conditions, /*seed=*/1);
  client_transport.set_clock([&] { return now; });
  server_transport.set_clock([&] { return now; });

  bitwire::Server server(config, factory, key, server_transport, server_address, now);
  bitwire::Client client(config, factory, client_transport, now);
  if (!server.ok() || !client.ok()) {
    std::fprintf(stderr, "delta_session: %s\n", !server.ok() ? server.error_reason() : client.error_reason());
    return false;
  }
  bitwire::netcode::ConnectTokenParams params;
  params.protocol_id = server.protocol_id();
  params.client_id = 42;
  params.create_timestamp = kUnixStart;
  params.server_addresses.count = 1;
  params.server_addresses.items[0] = server_address;
  bitwire::netcode::ConnectToken token;
  std::array<std::byte, bitwire::netcode::kConnectTokenBytes> token_bytes{};
  const char* reason = nullptr;
  if (!bitwire::netcode::generate_connect_token(params, key, token, &reason) ||
      !bitwire::netcode::write_connect_token(token, token_bytes, &reason) ||
      !client.connect(token_bytes, now, &reason)) {
    std::fprintf(stderr, "delta_session: %s\n", reason);
    return false;
  }

  world::Snapshot snapshot;
  std::map<uint32_t, world::Snapshot> history;  // what was sent, to check what arrives
  const double start = now;
  double measure_start = 0.0;
  uint64_t bytes_at_start = 0;
  uint32_t tick = 0;
  for (int t = 0; t < 60 * (kSeconds + 2); ++t) {
    now += kTick;
    client.update(now);
    server.update(now, kUnixStart + static_cast<uint64_t>(now - start));
    if (server.is_connected(0)) {
      if (measure_start == 0.0) {
        measure_start = now;
        bytes_at_start = server.stats(0).payload_bytes_sent;
      }
      step(++tick, snapshot);
      history[tick] = snapshot;
      // [send]
      // The server sends a snapshot the way it sends any message; the connection picks whole or delta.
      auto message = server.create<world::Snapshot>(0);
      if (auto* body = message.as<world::Snapshot>()) *body = snapshot;
      const bitwire::SendStatus status = server.send(0, kSnapshots, std::move(message));
      // [send]
      if (!status) {
        std::fprintf(stderr, "delta_session: snapshot refused: %s\n", bitwire::to_string(status.result));
        return false;
      }
      ++result.sent;
    }
    // [receive]
    // The client receives whole snapshots, whichever form they travelled in.
    while (auto message = client.receive(kSnapshots)) {
      const auto* received = message.as<world::Snapshot>();
      const auto sent = received != nullptr ? history.find(received->tick) : history.end();
      ++result.received;
      if (sent == history.end() || !(sent->second == *received)) ++result.mismatched;
    }
    // [receive]
    client.send_packets();
    server.send_packets();
  }
  const uint64_t bytes = server.stats(0).payload_bytes_sent - bytes_at_start;
  result.down_kbps = static_cast<double>(bytes) * 8.0 / 1000.0 / (now - measure_start);
  return true;
}

}  // namespace

int main() {
  Result whole;
  Result delta;
  if (!run(false, whole) || !run(true, delta)) return 1;
  for (const auto& [name, r] : {std::pair{"whole", whole}, std::pair{"delta", delta}}) {
    std::printf("delta_session: %s: %d snapshots sent, %d received, %d not as sent; %.1f kbit/s down\n", name,
                r.sent, r.received, r.mismatched, r.down_kbps);
  }
  const bool ok = whole.mismatched == 0 && delta.mismatched == 0 && delta.received > delta.sent * 8 / 10 &&
                  delta.down_kbps * 2 < whole.down_kbps;
  std::printf("delta_session: the delta form takes %.1fx fewer bytes at 5%% loss%s\n",
              whole.down_kbps / delta.down_kbps, ok ? "" : " -- FAILED");
  return ok ? 0 : 1;
}
