// Endpoint, send path: the packet header (with the ack delay report), fragmentation, the envelope and
// transmit.
#include "endpoint_internal.hpp"

#include <algorithm>
#include <cstring>

#include "bitwire/core/log.hpp"

namespace bitwire {

using namespace endpoint_detail;

void Endpoint::State::transmit_datagram(uint16_t packet_sequence, std::byte* packet, size_t packet_size,
                                        uint32_t& wire_bytes) {
  size_t datagram_size = packet_size;
  std::byte* datagram = packet;
  if (envelope_bytes != 0) {
    datagram = transmit.get();  // the packet is right after the envelope's prefix
    datagram_size = envelope.seal({transmit.get(), transmit_capacity}, packet_size);
  }
  wire_bytes += static_cast<uint32_t>(datagram_size + static_cast<size_t>(config.packet_header_size));
  if (callbacks.transmit != nullptr)
    callbacks.transmit(callbacks.context, packet_sequence, {datagram, datagram_size});
}

SendWindow::Record* Endpoint::State::begin_send(size_t size, PacketHeader& header) {
  if (size > static_cast<size_t>(config.max_packet_size)) {
    ++counters.packets_too_large_to_send;
    BITWIRE_LOG(LogLevel::kError, "[%s] packet of %zu bytes not sent: max_packet_size is %d", config.name,
                size, config.max_packet_size);
    return nullptr;
  }
  SendWindow::Record& record = sent.begin(time, loss);
  header = PacketHeader{sent.last_sent(), received.ack(), received.ack_bits()};
  // How long the chosen packet waited for this one; left out when it does not fit the code, or is more
  // than 255 behind `ack`. Each packet is reported once at most.
  if (ack_delay_on) report.take(header, time);
  return &record;
}

void Endpoint::State::end_send(SendWindow::Record& record, uint32_t wire_bytes) {
  record.wire_bytes = wire_bytes;
  sent_meter.add(wire_bytes);
  sent.commit();
  ++counters.packets_sent;
}

bool Endpoint::State::send(std::span<const std::byte> payload) {
  const size_t size = payload.size();
  PacketHeader header;
  SendWindow::Record* record = begin_send(size, header);
  if (record == nullptr) return false;
  const uint16_t packet_sequence = header.sequence;
  const std::span<std::byte> packet(transmit.get() + envelope_bytes, transmit_capacity - envelope_bytes);
  uint32_t wire_bytes = 0;
  if (size <= static_cast<size_t>(config.fragment_above)) {
    const size_t header_bytes = write_packet_header(header, packet);
    if (size > 0) std::memcpy(packet.data() + header_bytes, payload.data(), size);
    transmit_datagram(packet_sequence, packet.data(), header_bytes + size, wire_bytes);
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
      transmit_datagram(packet_sequence, packet.data(), at + chunk, wire_bytes);
      ++counters.fragments_sent;
    }
  }
  end_send(*record, wire_bytes);
  return true;
}

std::span<std::byte> Endpoint::State::send_room() {
  if (envelope_bytes != 0) return {};
  std::byte* base = shared_room != nullptr ? shared_room : transmit.get();
  return {base + max_header, static_cast<size_t>(config.fragment_above)};
}

bool Endpoint::State::send_written(size_t size) {
  // The payload is already in place after max_header bytes: the header goes right before it, so the
  // datagram is the one send() would build from a copy, starting max_header - header_bytes in.
  // With the envelope on there is no room (send_room() is empty): nothing the caller wrote can be sent,
  // whatever its size. A call this endpoint cannot serve, not a payload too large.
  if (envelope_bytes != 0) {
    ++counters.calls_refused;
    return false;
  }
  if (size > static_cast<size_t>(config.fragment_above)) {
    ++counters.packets_too_large_to_send;
    return false;
  }
  PacketHeader header;
  SendWindow::Record* record = begin_send(size, header);
  if (record == nullptr) return false;
  std::byte encoded[kMaxPacketHeaderBytes + kAckDelayBytes];
  const size_t header_bytes = write_packet_header(header, encoded);
  BITWIRE_ASSERT(header_bytes <= max_header);
  std::byte* packet = (shared_room != nullptr ? shared_room : transmit.get()) + max_header - header_bytes;
  std::memcpy(packet, encoded, header_bytes);
  uint32_t wire_bytes = 0;
  transmit_datagram(header.sequence, packet, header_bytes + size, wire_bytes);
  end_send(*record, wire_bytes);
  return true;
}

}  // namespace bitwire
