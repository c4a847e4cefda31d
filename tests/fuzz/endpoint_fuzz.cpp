// Raw datagrams into a receiving Endpoint.
//
// Input: byte 0 selects the setup (bit 0: envelope on; bit 1: seal each datagram with the right crc so the
// parser behind the envelope is reached; bits 2..3: one of four configs). The rest is a list of records,
// each [u16 little-endian length][that many bytes] (the last one takes whatever remains). Before each
// record the endpoint sends a one-byte packet (so there is something to ack) and time moves 10 ms.
//
// Checked on every input (a violation traps): each datagram gets exactly one outcome; only sequences the
// endpoint sent and has not yet seen acked are ever acked; every delivered payload fits max_packet_size.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "bitwire/packet/endpoint.hpp"
#include "bitwire/packet/envelope.hpp"
#include "support/bytes.hpp"

namespace {

constexpr uint64_t kFuzzProtocolId = 0xF022'0000'0000'0001ull;

bitwire::EndpointConfig fuzz_config(int variant, bool envelope) {
  bitwire::EndpointConfig config;
  config.envelope = envelope;
  config.protocol_id = kFuzzProtocolId;
  switch (variant) {
    case 1:  // many tiny fragments
      config.fragment_size = 16;
      config.fragment_above = 16;
      config.max_fragments = 256;
      config.max_packet_size = 16 * 256;
      break;
    case 2:  // tiny buffers: every window edge is close
      config.sent_packets_buffer_size = 16;
      config.received_packets_buffer_size = 32;
      config.fragment_reassembly_buffer_size = 4;
      config.reassembly_slots = 2;
      config.ack_buffer_size = 4;
      config.fragment_size = 32;
      config.fragment_above = 32;
      config.max_fragments = 4;
      config.max_packet_size = 100;
      break;
    case 3:
      config.fragment_size = 64;
      config.fragment_above = 64;
      config.max_fragments = 8;
      config.max_packet_size = 512;
      break;
    default:
      break;
  }
  return config;
}

struct Harness {
  int max_packet_size = 0;
  std::vector<uint8_t> outstanding = std::vector<uint8_t>(65536, 0);  // 1 = sent, not yet acked
  uint64_t delivered = 0;

  static void transmit(void*, uint16_t, std::span<const std::byte>) {}
  static bool process(void* context, uint16_t, std::span<const std::byte> payload) {
    const size_t size = payload.size();
    auto* self = static_cast<Harness*>(context);
    if (size > static_cast<size_t>(self->max_packet_size)) __builtin_trap();
    ++self->delivered;
    return size % 7 != 3;  // refuse some, so the refuse path runs too
  }
  static void on_ack(void* context, uint16_t sequence) {
    auto* self = static_cast<Harness*>(context);
    if (self->outstanding[sequence] != 1) __builtin_trap();  // acked twice, or never sent
    self->outstanding[sequence] = 0;
  }
};

uint64_t outcome_total(const bitwire::EndpointCounters& c) {
  return c.packets_received + c.packets_refused + c.envelope_failures + c.packets_too_large_to_receive +
         c.packets_invalid + c.packets_stale + c.packets_duplicate + c.fragments_invalid +
         c.fragments_duplicate + c.fragments_stale + c.packets_too_far_ahead + c.fragments_too_far_ahead +
         c.fragments_conflicting;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t flags = data[0];
  const bool envelope = flags & 1;
  const bool reseal = flags & 2;
  const bitwire::EndpointConfig config = fuzz_config((flags >> 2) & 3, envelope);
  Harness harness;
  harness.max_packet_size = config.max_packet_size;
  bitwire::Endpoint endpoint(config, {&harness, &Harness::transmit, &Harness::process, &Harness::on_ack});
  const bitwire::Envelope sealer(kFuzzProtocolId);
  std::vector<uint8_t> datagram;

  size_t at = 1;
  double now = 0.0;
  uint64_t datagrams = 0, fragments_stored = 0, completed = 0;
  uint8_t index = 0;
  while (at < size) {
    now += 0.01;
    endpoint.update(now);
    const uint16_t sequence = endpoint.next_sequence();
    const uint8_t payload = index++;
    endpoint.send_packet(bitwire::test::view(&payload, 1));
    harness.outstanding[sequence] = 1;  // a fresh send of this sequence (an older one was forgotten)

    size_t length = size - at;
    if (length >= 2) {
      const size_t declared = static_cast<size_t>(data[at]) | (static_cast<size_t>(data[at + 1]) << 8);
      at += 2;
      length = declared < size - at ? declared : size - at;
    } else {
      at += length;
      length = 0;
    }
    const uint8_t* bytes = data + at;
    at += length;
    if (envelope && reseal) {
      datagram.assign(bitwire::Envelope::kBytes, 0);
      datagram.insert(datagram.end(), bytes, bytes + length);
      sealer.seal(bitwire::test::writable(datagram), length);
      bytes = datagram.data();
      length = datagram.size();
    }
    const bitwire::EndpointCounters before = endpoint.counters();
    const bitwire::ReceiveResult result = endpoint.receive_packet(bitwire::test::view(bytes, length));
    ++datagrams;
    if (result == bitwire::ReceiveResult::kFragmentStored) ++fragments_stored;
    if (endpoint.counters().reassemblies_completed != before.reassemblies_completed) ++completed;
    endpoint.clear_acks();
    (void)endpoint.rtt_max_ms();
    (void)endpoint.packet_loss_percent();
  }
  // Every datagram ends in exactly one outcome: a counted drop, a delivery/refusal, or a stored fragment.
  // A completed reassembly ends in one outcome for the whole packet (or a too-large drop).
  const bitwire::EndpointCounters& c = endpoint.counters();
  if (outcome_total(c) + fragments_stored != datagrams) __builtin_trap();
  if (c.fragments_received != fragments_stored + completed) __builtin_trap();
  if (harness.delivered != c.packets_received + c.packets_refused) __builtin_trap();
  return 0;
}
