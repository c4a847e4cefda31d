// The netcode server's receive path under arbitrary datagrams. Input: records of
// [source selector (1 byte)][length (2 bytes LE)][datagram]; each record is handed to
// Server::process_datagram from one of eight source addresses, then the server's clock advances. The private
// key, protocol id and clock are fixed, so seeds can hold connection requests that decrypt (the seed
// generator is described in docs/transport.md, "Tests"). Properties: no crash, no read or write out of bounds
// (ASan), no reply larger than the datagram that caused it, never more connected clients than slots.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "bitwire/netcode/server.hpp"
#include "bitwire/transport/transport.hpp"

namespace {

constexpr uint64_t kFuzzProtocolId = 0x66757a7a6e657463ull;
constexpr uint64_t kFuzzUnixTime = 1'700'000'000ull;

bitwire::netcode::Key fuzz_key() {
  bitwire::netcode::Key key;
  for (size_t i = 0; i < key.size(); ++i) key[i] = static_cast<std::byte>(i);
  return key;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace bitwire;
  static LoopbackNetwork network(64);
  const Address server_address = Address::ipv4(10, 0, 0, 1, 40000);
  LoopbackTransport transport(network, server_address);
  netcode::ServerConfig config;
  config.protocol_id = kFuzzProtocolId;
  config.private_key = fuzz_key();
  config.max_clients = 2;
  config.payload_queue_per_slot = 2;
  netcode::Server server(config, transport, server_address);
  if (!server.ok()) std::abort();
  network.queue().clear();
  double now = 1.0;
  std::array<uint8_t, netcode::kReceiveBufferBytes> datagram{};
  size_t offset = 0;
  while (size - offset >= 3) {
    const uint8_t selector = data[offset];
    const size_t length = std::min<size_t>(data[offset + 1] | (static_cast<size_t>(data[offset + 2]) << 8),
                                           std::min(size - offset - 3, datagram.size()));
    std::memcpy(datagram.data(), data + offset + 3, length);
    offset += 3 + length;
    const Address from = Address::ipv4(192, 168, 0, static_cast<uint8_t>(1 + (selector & 7)), 50000);
    server.process_datagram(from, std::as_writable_bytes(std::span(datagram)).first(length));
    for (const auto& sent : network.queue()) {
      if (sent.size > length) std::abort();  // anti-amplification: no reply larger than its request
    }
    network.queue().clear();
    if (selector & 0x80) {
      now += 0.25;
      server.update(now, kFuzzUnixTime + static_cast<uint64_t>(now));
      network.queue().clear();
    }
    if (server.connected_count() > server.max_clients()) std::abort();
    if (server.largest_reply_ratio_violations() != 0) std::abort();
  }
  return 0;
}
