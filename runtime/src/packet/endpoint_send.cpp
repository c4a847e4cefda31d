// Endpoint, send path: the packet header (with the ack delay report), fragmentation, the envelope and
// transmit.
#include "endpoint_internal.hpp"

#include <algorithm>
#include <cstring>

#include "bitwire/core/log.hpp"

namespace bitwire {

using namespace endpoint_detail;

void Endpoint::State::transmit_datagram(uint16_t packet_sequence, size_t packet_size, uint32_t& wire_bytes) {
  size_t datagram_size = packet_size;
  if (envelope_bytes != 0) datagram_size = envelope.seal({transmit.get(), transmit_capacity}, packet_size);
  wire_bytes += static_cast<uint32_t>(datagram_size + static_cast<size_t>(config.packet_header_size));
  if (callbacks.transmit != nullptr)
    callbacks.transmit(callbacks.context, packet_sequence, {transmit.get(), datagram_size});
}

bool Endpoint::State::send(std::span<const std::byte> payload) {
  const size_t size = payload.size();
  if (size > static_cast<size_t>(config.max_packet_size)) {
    ++counters.packets_too_large_to_send;
    BITWIRE_LOG(LogLevel::kError, "[%s] packet of %zu bytes not sent: max_packet_size is %d", config.name,
                size, config.max_packet_size);
    return false;
  }
  SendWindow::Record& record = sent.begin(time, loss);
  const uint16_t packet_sequence = sent.last_sent();

  PacketHeader header{packet_sequence, received.ack(), received.ack_bits()};
  // How long the chosen packet waited for this one; left out when it does not fit the code, or is more
  // than 255 behind `ack`. Each packet is reported once at most.
  if (ack_delay_on) report.take(header, time);
  const std::span<std::byte> packet(transmit.get() + envelope_bytes, transmit_capacity - envelope_bytes);
  uint32_t wire_bytes = 0;
  if (size <= static_cast<size_t>(config.fragment_above)) {
    const size_t header_bytes = write_packet_header(header, packet);
    if (size > 0) std::memcpy(packet.data() + header_bytes, payload.data(), size);
    transmit_datagram(packet_sequence, header_bytes + size, wire_bytes);
  } else {
    const size_t fragment_size = static_cast<size_t>(config.fragment_size);
    const size_t count = (size + fragment_size - 1) / fragment_size;
    BITWIRE_ASSERT(count >= 1 && count <= static_cast<size_t>(config.max_fragments));
    std::byte embedded[kMaxPacketHeaderBytes + kAckDelayBytes];
    const size_t embedded_bytes = write_packet_header(header, embedded);
    for (size_t id = 0; id < count; ++id) {
      write_fragment_header(
          FragmentHeader{packet_sequence, static_cast<uint8_t>(id), static_cast<int>(count)}, packet);
      size_t at = kFragmentHeaderBytes;
      if (id == 0) {
        std::memcpy(packet.data() + at, embedded, embedded_bytes);
        at += embedded_bytes;
      }
      const size_t offset = id * fragment_size;
      const size_t chunk = std::min(fragment_size, size - offset);
      std::memcpy(packet.data() + at, payload.data() + offset, chunk);
      transmit_datagram(packet_sequence, at + chunk, wire_bytes);
      ++counters.fragments_sent;
    }
  }
  record.wire_bytes = wire_bytes;
  sent_meter.add(wire_bytes);
  sent.commit();
  ++counters.packets_sent;
  return true;
}

}  // namespace bitwire
