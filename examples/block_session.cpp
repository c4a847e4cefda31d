// block_session: a server sends each client a 200 KiB level file as a block (a large message that arrives
// whole and exactly once) on a reliable channel, through a simulated network with 5% loss, while the stack
// keeps running. docs/blocks.md section 9 quotes this program; tests/docs/blocks_doc_test.cpp keeps the
// quotes equal to it and ctest runs it (exit 0 when the block arrived byte for byte; 1 otherwise).
//
// Only the public API and the code idlc generates from schemas/game.net (`message LevelLoad block`).
// In-process network and a stepped clock, so it runs in a fraction of a second and the same way every time.
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "bitwire/bitwire.hpp"
#include "game.hpp"

namespace {

constexpr double kTick = 1.0 / 60.0;
constexpr uint64_t kUnixStart = 1'800'000'000;  // the backend's clock for the tokens (any fixed time here)

// [config]
// Channel 0: the game's reliable messages; channel 1: the level, a reliable channel with blocks on.
constexpr int kReliable = 0;
constexpr int kLevel = 1;
constexpr int kLevelBytes = 200 * 1024;

bitwire::StackConfig make_config() {
  bitwire::StackConfig config;
  config.protocol_id = game::ProtocolId;
  config.max_clients = 2;
  bitwire::ConnectionConfig& c = config.connection;
  c.channel_count = 2;
  c.channels[kReliable].type = bitwire::ChannelType::kReliableOrdered;
  c.channels[kReliable].disable_blocks = true;  // no block buffers for this channel
  c.channels[kLevel].type = bitwire::ChannelType::kReliableOrdered;
  c.channels[kLevel].max_block_size = 256 * 1024;                    // the largest block this channel carries
  c.channels[kLevel].block_bandwidth_bytes_per_second = 512 * 1024;  // fragments' share of the link
  c.block_pool_size = 2;  // block buffers per connection (fixed memory)
  return config;
}
// [config]

}  // namespace

int main() {
  const bitwire::StackConfig config = make_config();
  const bitwire::MessageFactory& factory = game::message_factory();
  const bitwire::netcode::Key key = bitwire::netcode::random_key();
  double now = 100.0;

  // One in-process network; the client's end loses 5% of its datagrams each way and adds 50 ms each way.
  bitwire::LoopbackNetwork network;
  const bitwire::Address server_address = bitwire::Address::ipv4(127, 0, 0, 1, 40000);
  bitwire::LoopbackTransport server_transport(network, server_address);
  bitwire::LoopbackTransport client_wire(network, bitwire::Address::ipv4(127, 0, 0, 1, 50000));
  // [simulate]
  // The client's transport, wrapped: 50 ms and 5% loss each way. Pass the wrapper where the transport went.
  bitwire::NetworkConditions conditions;
  conditions.latency_ms = 50;
  conditions.loss_percent = 5;
  bitwire::SimulatedTransport client_transport(client_wire, conditions, /*seed=*/1);
  client_transport.set_clock([&] { return now; });  // the clock update() is given
  // [simulate]
  server_transport.set_clock([&] { return now; });

  bitwire::Server server(config, factory, key, server_transport, server_address, now);
  bitwire::Client client(config, factory, client_transport, now);  // over the simulated network
  if (!server.ok() || !client.ok()) {
    std::fprintf(stderr, "block_session: %s\n", !server.ok() ? server.error_reason() : client.error_reason());
    return 1;
  }
  bitwire::netcode::ConnectTokenParams params;
  params.protocol_id = server.protocol_id();  // the stack's id, not the schema's
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
    std::fprintf(stderr, "block_session: %s\n", reason);
    return 1;
  }

  std::vector<std::byte> level_file(kLevelBytes);
  for (size_t i = 0; i < level_file.size(); ++i) level_file[i] = static_cast<std::byte>((i * 131) >> 3);
  bool received = false, exact = false;
  const double start = now;
  for (int tick = 0; tick < 60 * 30 && !received; ++tick) {
    now += kTick;
    client.update(now);
    server.update(now, kUnixStart + static_cast<uint64_t>(now - start));
    bitwire::ServerEvent event;
    while (server.next_event(event)) {
      if (event.kind != bitwire::ServerEvent::Kind::kConnected) continue;
      // [send]
      // The server sends the level when the client connects: a LevelLoad whose block is the file.
      auto message = server.create<game::LevelLoad>(event.client_index);
      auto* level = message.as<game::LevelLoad>();
      const std::span<std::byte> block =
          message ? message.allocate_block(level_file.size()) : std::span<std::byte>();
      if (level == nullptr || block.size() != level_file.size()) {
        std::fprintf(stderr, "block_session: no message or block buffer (block_pool_size)\n");
        return 1;
      }
      std::memcpy(block.data(), level_file.data(), level_file.size());
      level->level = "harbor_night";
      level->checksum = bitwire::crc32(block.data(), block.size());
      const bitwire::SendStatus status = server.send(event.client_index, kLevel, std::move(message));
      if (!status) {
        std::fprintf(stderr, "block_session: level refused: %s%s%s\n", bitwire::to_string(status.result),
                     status.limit != nullptr ? ", limited by " : "",
                     status.limit != nullptr ? status.limit : "");
        return 1;
      }
      // [send]
    }
    // [receive]
    // The client receives it whole, once, in order with the channel's other messages.
    while (auto message = client.receive(kLevel)) {
      const auto* level = message.as<game::LevelLoad>();
      const std::span<const std::byte> block = message.block();
      received = true;
      exact = level != nullptr && block.size() == level_file.size() &&
              std::memcmp(block.data(), level_file.data(), block.size()) == 0 &&
              bitwire::crc32(block.data(), block.size()) == level->checksum;
    }
    // [receive]
    client.send_packets();
    server.send_packets();
  }
  if (!received || !exact) {
    std::fprintf(stderr, "block_session: the level %s\n",
                 received ? "arrived damaged" : "did not arrive in 30 s");
    return 1;
  }
  const bitwire::ChannelCounters counters = server.connection(0).channel_counters(kLevel);
  std::printf(
      "block_session: %d bytes arrived whole in %.2f s (simulated) over 50 ms + 5%% loss each way; "
      "%llu fragment sends, %llu of them resends\n",
      kLevelBytes, now - start, static_cast<unsigned long long>(counters.block_fragments_sent),
      static_cast<unsigned long long>(counters.block_fragments_resent));
  return 0;
}
