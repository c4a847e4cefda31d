// Connection packets from a hostile peer, fed to Connection::process_packet.
//
// Input: byte 0 selects the layout (bits 0..1: one of four configs). The rest is a list of records, each
// [u16 little-endian length][that many bytes] (the last one takes whatever remains). For each record the
// connection under test processes it as packet `i`, sends a message on each channel (a block message with
// a block of up to 600 bytes when the record's first byte is 3 mod 4: on the reliable channel it goes as
// fragments), builds a packet (which a peer with the same layout must accept whole), and sees one of its
// earlier packets acked.
//
// Checked on every input (a violation traps): a refused packet changes no receive queue; once in the
// error state every later packet is refused; every packet the connection builds reads back without error
// on a peer; the pool never holds more than its capacity; after reset() nothing is left in either pool.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <algorithm>
#include <memory>

#include "bitwire/message/connection.hpp"
#include "bitwire/serialize/fixed_string.hpp"
#include "bitwire/serialize/serialize.hpp"

namespace {

struct Small {
  static constexpr uint32_t kTypeId = 0;
  uint8_t value = 0;
  template <typename Stream>
  bool serialize(Stream& stream) {
    return bitwire::serialize_bits(stream, value, 8);
  }
};

struct Text {
  static constexpr uint32_t kTypeId = 1;
  int32_t level = 0;
  bitwire::FixedString<12> text;
  template <typename Stream>
  bool serialize(Stream& stream) {
    BITWIRE_TRY(bitwire::serialize_int(stream, level, -5, 100));
    return bitwire::serialize_string(stream, text);
  }
};

struct Blob {
  static constexpr uint32_t kTypeId = 2;
  static constexpr bool kHasBlock = true;
  uint8_t tag = 0;
  template <typename Stream>
  bool serialize(Stream& stream) {
    return bitwire::serialize_bits(stream, tag, 3);
  }
};

constexpr bitwire::MessageTypeInfo kTypes[] = {bitwire::describe_message<Small>("Small"),
                                               bitwire::describe_message<Text>("Text"),
                                               bitwire::describe_message<Blob>("Blob")};
constexpr bitwire::MessageTypeInfo kOneType[] = {bitwire::describe_message<Small>("Small")};

bitwire::ConnectionConfig fuzz_config(int variant, bitwire::MessageFactory& factory) {
  bitwire::ConnectionConfig config;
  factory = bitwire::MessageFactory(kTypes);
  config.max_packet_size = 256;
  config.message_pool_size = 512;
  config.block_pool_size = 4;
  for (auto& c : config.channels) {
    c.send_queue_size = 64;
    c.receive_queue_size = 64;
    c.sent_packets_buffer_size = 64;
    c.max_block_size = 4096;
    c.block_fragment_size = 128;  // a whole fragment entry fits a 256-byte packet: reliable blocks travel
  }
  switch (variant) {
    case 1:  // three channels, mixed, blocks on the unreliable one
      config.channel_count = 3;
      config.channels[1].type = bitwire::ChannelType::kUnreliableUnordered;
      config.channels[1].max_messages_per_packet = 5;
      config.channels[2].max_messages_per_packet = 3;
      config.channels[2].disable_blocks = true;
      break;
    case 2:  // one type: no type fields
      factory = bitwire::MessageFactory(kOneType);
      config.channels[0].max_messages_per_packet = 7;
      break;
    case 3:  // tiny windows: every edge is close
      config.channel_count = 2;
      config.channels[0].send_queue_size = 4;
      config.channels[0].receive_queue_size = 4;
      config.channels[0].max_messages_per_packet = 2;
      config.channels[1].type = bitwire::ChannelType::kUnreliableUnordered;
      config.channels[1].receive_queue_size = 2;
      config.message_pool_size = 24;
      break;
    default:
      break;
  }
  return config;
}

int total_receive_depth(const bitwire::Connection& c) {
  int total = 0;
  for (int i = 0; i < c.channel_count(); ++i) total += c.receive_queue_depth(i);
  return total;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  bitwire::MessageFactory factory;
  const bitwire::ConnectionConfig config = fuzz_config(data[0] & 3, factory);
  auto connection = std::make_unique<bitwire::Connection>(factory, config);
  auto peer = std::make_unique<bitwire::Connection>(factory, config);
  std::byte packet[256];
  size_t offset = 1;
  uint16_t sequence = 0;
  bool errored = false;
  while (offset < size) {
    size_t length = size - offset;
    if (length >= 2) {
      const size_t announced = static_cast<size_t>(data[offset]) | (static_cast<size_t>(data[offset + 1]) << 8);
      offset += 2;
      length = std::min(announced, size - offset);
    } else {
      offset += length;
      length = 0;
    }
    const auto bytes = std::span<const std::byte>(reinterpret_cast<const std::byte*>(data + offset), length);
    offset += length;

    const int depth_before = total_receive_depth(*connection);
    const bool accepted = connection->process_packet(sequence, bytes);
    if (!accepted && total_receive_depth(*connection) != depth_before) __builtin_trap();
    if (errored && accepted) __builtin_trap();
    errored = errored || connection->error() != bitwire::ConnectionError::kNone;
    if (connection->pool().live() > connection->pool().capacity()) __builtin_trap();

    // Drain a little, send a little, build a packet the peer must accept.
    for (int c = 0; c < connection->channel_count(); ++c) connection->receive(c).reset();
    for (int c = 0; c < connection->channel_count() && length > 0; ++c) {
      const auto selector = static_cast<uint32_t>(bytes[0]);
      bitwire::MessageHandle m = connection->create((selector % 4 == 3 ? 2 : selector % 2) % factory.type_count());
      if (Small* small = m.as<Small>()) small->value = static_cast<uint8_t>(length);
      if (m && m.info().has_block) {
        const std::span<std::byte> block = m.allocate_block(1 + (length * 37) % 600);
        for (size_t i = 0; i < block.size(); ++i) block[i] = static_cast<std::byte>(i + length);
      }
      connection->send(c, std::move(m));
    }
    connection->update(sequence * 0.05);
    const size_t written = connection->generate_packet(sequence, packet);
    if (!peer->process_packet(sequence, std::span<const std::byte>(packet, written)) &&
        peer->counters().packets_pool_exhausted == 0 && peer->counters().packets_window_busy == 0) {
      __builtin_trap();
    }
    for (int c = 0; c < peer->channel_count(); ++c) {
      while (peer->receive(c)) {
      }
    }
    if (sequence >= 3 && length > 0 && (static_cast<uint8_t>(bytes[length - 1]) & 1)) {
      connection->on_packet_acked(static_cast<uint16_t>(sequence - 3));
    }
    ++sequence;
  }
  connection->reset();
  peer->reset();
  if (connection->pool().live() != 0 || peer->pool().live() != 0) __builtin_trap();
  return 0;
}
