// The full server's receive path behind authentication: a genuine netcode client connects to a
// bitwire::Server, then sends the input's records as its payloads -- encrypted and accepted by netcode, so
// arbitrary bytes reach the slot's Endpoint and Connection, which is what a malicious client with a valid
// token can do. Input: records of [flags (1 byte)][length (1 byte)][payload]; flag bit 0 also lets the server
// send a packet back, bit 1 advances the clock by 50 ms. Properties: no crash, no out-of-bounds access
// (ASan), a slot whose connection breaks is disconnected with a protocol-error event, and a disconnected
// slot's pool holds no message.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "bitwire/netcode/client.hpp"
#include "bitwire/netcode/token.hpp"
#include "bitwire/serialize/serialize.hpp"
#include "bitwire/stack/server.hpp"
#include "bitwire/transport/transport.hpp"
#include "support/bytes.hpp"

namespace {

struct Tag {
  static constexpr uint32_t kTypeId = 0;
  static constexpr size_t MaxBits = 16;
  uint16_t value = 0;
  template <typename Stream>
  bool serialize(Stream& stream) {
    return bitwire::serialize_bits(stream, value, 16);
  }
};

constexpr bitwire::MessageTypeInfo kTypes[] = {bitwire::describe_message<Tag>("Tag")};
constexpr bitwire::MessageFactory kFactory{kTypes};
constexpr uint64_t kUnix = 1'700'000'000ull;

bitwire::netcode::Key fuzz_key() {
  bitwire::netcode::Key key;
  for (size_t i = 0; i < key.size(); ++i) key[i] = static_cast<std::byte>(3 * i + 1);
  return key;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace bitwire;
  LoopbackNetwork network(256);
  const Address server_address = Address::ipv4(10, 0, 0, 1, 40000);
  const Address client_address = Address::ipv4(10, 0, 0, 2, 50000);
  LoopbackTransport server_transport(network, server_address);
  LoopbackTransport client_transport(network, client_address);

  StackConfig config;
  config.protocol_id = 0x66757a7a73746b21ull;
  config.max_clients = 1;
  config.connection.channel_count = 2;
  config.connection.channels[1].type = ChannelType::kUnreliableUnordered;
  for (int i = 0; i < 2; ++i) {
    config.connection.channels[i].disable_blocks = true;
    config.connection.channels[i].send_queue_size = 64;
    config.connection.channels[i].receive_queue_size = 64;
    config.connection.channels[i].sent_packets_buffer_size = 64;
    config.connection.channels[i].sent_message_ids = 256;
  }
  config.connection.endpoint.sent_packets_buffer_size = 64;
  config.connection.endpoint.received_packets_buffer_size = 64;
  config.connection.endpoint.fragment_reassembly_buffer_size = 64;
  config.connection.endpoint.reassembly_slots = 4;
  config.connection.endpoint.max_fragments = 4;
  config.connection.endpoint.max_packet_size = 4096;
  config.connection.endpoint.ack_buffer_size = 64;
  config.connection.endpoint.rtt_history_size = 16;
  config.connection.endpoint.packet_loss_window = 64;
  double now = 1.0;
  Server server(config, kFactory, fuzz_key(), server_transport, server_address, now);
  if (!server.ok()) std::abort();

  netcode::ConnectTokenParams params;
  params.protocol_id = server.protocol_id();
  params.client_id = 7;
  params.create_timestamp = kUnix;
  params.timeout_seconds = 5;
  params.server_addresses.count = 1;
  params.server_addresses.items[0] = server_address;
  netcode::ConnectToken token;
  std::array<std::byte, netcode::kConnectTokenBytes> token_bytes{};
  if (!netcode::generate_connect_token(params, fuzz_key(), token, nullptr)) std::abort();
  if (!netcode::write_connect_token(token, token_bytes, nullptr)) std::abort();
  netcode::Client client(netcode::ClientConfig{}, client_transport);
  client.connect(token_bytes, now);
  for (int i = 0; i < 50 && !client.is_connected(); ++i) {
    now += 0.02;
    client.update(now);
    server.update(now, kUnix + 1);
  }
  if (!client.is_connected() || !server.is_connected(0)) std::abort();
  ServerEvent event;
  while (server.next_event(event)) {
  }

  std::array<uint8_t, netcode::kMaxPayloadBytes> buffer{};
  size_t payload_size = 0;
  uint64_t sequence = 0;
  size_t offset = 0;
  while (size - offset >= 2 && server.is_connected(0)) {
    const uint8_t flags = data[offset];
    const size_t length = std::min<size_t>(data[offset + 1], size - offset - 2);
    if (length > 0) client.send_payload(bitwire::test::view(data + offset + 2, length));
    offset += 2 + length;
    if (flags & 2) now += 0.05;
    server.update(now, kUnix + 1);
    while (auto message = server.receive(0, 0)) {
    }
    while (auto message = server.receive(0, 1)) {
    }
    if (flags & 1) {
      auto tag = server.create<Tag>(0);
      if (tag) server.send(0, flags & 4 ? 1 : 0, std::move(tag));
      server.send_packets();
    }
    client.update(now);
    while (client.receive_payload(bitwire::test::writable(buffer), payload_size, sequence)) {
    }
  }
  while (server.next_event(event)) {
    if (event.kind == ServerEvent::Kind::kDisconnected) {
      if (event.reason == netcode::DisconnectReason::kServerDisconnected && event.protocol_error == nullptr)
        std::abort();
      if (server.connection(0).pool().live() != 0) std::abort();
    }
  }
  if (!server.is_connected(0) && server.connection(0).pool().live() != 0)
    std::abort();
  return 0;
}
