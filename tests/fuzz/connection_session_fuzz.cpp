// A stateful session: two Connections over a Link whose conditions, traffic and injected datagrams the
// input decides.
//
// Input: byte 0 picks the layout (bit 0: a second, unreliable channel; bit 1: tiny windows). Then one
// operation per byte (low 3 bits), with its argument in the next byte where it takes one:
//   0 A sends a reliable message    1 B sends a reliable message    2 A sends an unreliable message
//   3 one tick (both sides update, the link delivers, each side sends a packet)
//   4 set loss / duplicate / reorder percent and latency from the argument
//   5 B sends an unreliable message    6 ten ticks
//   7 A (argument bit 7 clear) or B sends a reliable block message of 1 + (argument & 127) * 97 bytes,
//     which travels as fragments (256-byte fragments; several packets per tick when the budget allows)
// Hostile bytes are connection_fuzz's job: here the link loses, duplicates, reorders and delays but never
// forges (a forged datagram with a right CRC32 could ack what never arrived; the envelope is not
// authentication), so the channels' promises must hold exactly.
//
// Checked on every input (a violation traps): reliable messages arrive in order, exactly once, equal to
// what was sent (blocks byte for byte), both ways; neither connection ever enters its error state; after the run and a reset, no
// message is left in either pool.
#include <cstdio>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "bitwire/message/connection.hpp"
#include "bitwire/serialize/serialize.hpp"
#include "bitwire/sim/link.hpp"
#include "support/fuzz_conditions.hpp"

namespace {

struct Serial {
  static constexpr uint32_t kTypeId = 0;
  uint32_t serial = 0;
  template <typename Stream>
  bool serialize(Stream& stream) {
    return bitwire::serialize_bits(stream, serial, 32);
  }
};

struct Note {
  static constexpr uint32_t kTypeId = 1;
  uint8_t value = 0;
  template <typename Stream>
  bool serialize(Stream& stream) {
    return bitwire::serialize_int(stream, value, uint8_t{0}, uint8_t{200});
  }
};

// A reliable block message; its block is a pure function of its serial.
struct Level {
  static constexpr uint32_t kTypeId = 2;
  static constexpr bool kHasBlock = true;
  uint32_t serial = 0;
  template <typename Stream>
  bool serialize(Stream& stream) {
    return bitwire::serialize_bits(stream, serial, 32);
  }
};

std::byte block_byte(uint32_t serial, size_t i) {
  return static_cast<std::byte>((serial * 167u + static_cast<uint32_t>(i) * 13u + (static_cast<uint32_t>(i) >> 8)) & 0xFF);
}

constexpr bitwire::MessageTypeInfo kTypes[] = {bitwire::describe_message<Serial>("Serial"),
                                               bitwire::describe_message<Note>("Note"),
                                               bitwire::describe_message<Level>("Level")};

struct Session {
  Session(const bitwire::ConnectionConfig& config)
      : link(bitwire::LinkConfig::symmetric(bitwire::NetworkConditions{}, 7, 512, 1500)),
        a(bitwire::MessageFactory(kTypes), config),
        b(bitwire::MessageFactory(kTypes), config) {
    a.endpoint().set_callbacks(link.callbacks(bitwire::LinkSide::kA, a.endpoint_callbacks()));
    b.endpoint().set_callbacks(link.callbacks(bitwire::LinkSide::kB, b.endpoint_callbacks()));
    link.connect(a.endpoint(), b.endpoint());
  }

  void tick() {
    now += 0.02;
    a.update(now);
    b.update(now);
    link.update(now);
    a.send_packets();
    b.send_packets();
    drain(b, received_by_b);
    drain(a, received_by_a);
    if (a.error() != bitwire::ConnectionError::kNone || b.error() != bitwire::ConnectionError::kNone) {
      std::fprintf(stderr, "connection error: a: %s / b: %s\n", a.error_reason(), b.error_reason());
      __builtin_trap();
    }
  }

  static void drain(bitwire::Connection& c, uint32_t& next) {
    while (bitwire::MessageHandle m = c.receive(0)) {
      if (const Level* level = m.as<Level>()) {
        if (level->serial != next) __builtin_trap();
        const std::span<const std::byte> block = m.block();
        if (block.empty()) __builtin_trap();
        for (size_t i = 0; i < block.size(); ++i) {
          if (block[i] != block_byte(next, i)) __builtin_trap();
        }
      } else {
        const Serial* s = m.as<Serial>();
        if (s == nullptr || s->serial != next) __builtin_trap();
      }
      ++next;
    }
    for (int channel = 1; channel < c.channel_count(); ++channel) {
      while (c.receive(channel)) {
      }
    }
  }

  void send_reliable(bitwire::Connection& c, uint32_t& serial) {
    bitwire::MessageHandle m = c.create<Serial>();
    if (!m) return;
    m.as<Serial>()->serial = serial;
    if (c.send(0, std::move(m))) ++serial;
  }

  void send_block(bitwire::Connection& c, uint32_t& serial, size_t size) {
    bitwire::MessageHandle m = c.create<Level>();
    if (!m) return;
    m.as<Level>()->serial = serial;
    const std::span<std::byte> block = m.allocate_block(size);
    if (block.empty()) return;  // no free block buffer: the message is released
    for (size_t i = 0; i < size; ++i) block[i] = block_byte(serial, i);
    if (c.send(0, std::move(m))) ++serial;
  }

  bitwire::Link link;
  bitwire::Connection a;
  bitwire::Connection b;
  double now = 0.0;
  uint32_t sent_by_a = 0;
  uint32_t sent_by_b = 0;
  uint32_t received_by_b = 0;  // from A
  uint32_t received_by_a = 0;  // from B
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  bitwire::ConnectionConfig config;
  config.max_packet_size = 300;
  config.channels[0].max_messages_per_packet = 16;
  config.channels[0].send_queue_size = 256;
  config.channels[0].receive_queue_size = 64;
  config.message_pool_size = 512;          // small fixed storage keeps each run cheap
  config.block_pool_size = 6;
  config.channels[0].max_block_size = 16 * 1024;
  config.channels[0].block_fragment_size = 256;
  config.endpoint.reassembly_slots = 1;
  if (data[0] & 1) {
    config.channel_count = 2;
    config.channels[1].type = bitwire::ChannelType::kUnreliableUnordered;
    config.channels[1].max_messages_per_packet = 4;
    config.channels[1].send_queue_size = 16;
    config.channels[1].receive_queue_size = 16;
  }
  if (data[0] & 2) {
    config.channels[0].send_queue_size = 8;
    config.channels[0].receive_queue_size = 4;
    config.channels[0].max_messages_per_packet = 2;
  }
  auto session = std::make_unique<Session>(config);
  size_t i = 1;
  const auto argument = [&]() -> uint8_t { return i < size ? data[i++] : 0; };
  while (i < size) {
    const uint8_t op = data[i++] & 7;
    switch (op) {
      case 0: session->send_reliable(session->a, session->sent_by_a); break;
      case 1: session->send_reliable(session->b, session->sent_by_b); break;
      case 2:
        if (session->a.channel_count() > 1) {
          bitwire::MessageHandle m = session->a.create<Note>();
          if (m) {
            m.as<Note>()->value = static_cast<uint8_t>(argument() % 201);
            session->a.send(1, std::move(m));
          }
        }
        break;
      case 3: session->tick(); break;
      case 4:
        session->link.set_conditions(bitwire::test::fuzz_conditions(argument()));
        break;
      case 5:
        if (session->b.channel_count() > 1) {
          bitwire::MessageHandle m = session->b.create<Note>();
          if (m) session->b.send(1, std::move(m));
        }
        break;
      case 6:
        for (int k = 0; k < 10; ++k) session->tick();
        break;
      case 7: {
        const uint8_t arg = argument();
        const size_t block_size = 1 + static_cast<size_t>(arg & 127) * 97;
        if (arg & 128) {
          session->send_block(session->b, session->sent_by_b, block_size);
        } else {
          session->send_block(session->a, session->sent_by_a, block_size);
        }
        break;
      }
      default: break;
    }
  }
  // Let everything in flight settle with a clean link (30 s: queued blocks go one after another), then
  // every reliable message must have arrived.
  session->link.set_conditions(bitwire::NetworkConditions{});
  for (int k = 0; k < 1500 && (session->received_by_b < session->sent_by_a || session->received_by_a < session->sent_by_b);
       ++k) {
    session->tick();
  }
  if (session->received_by_b != session->sent_by_a || session->received_by_a != session->sent_by_b) __builtin_trap();
  session->a.reset();
  session->b.reset();
  if (session->a.pool().live() != 0 || session->b.pool().live() != 0) __builtin_trap();
  return 0;
}
