// Endpoint, receive path: the envelope, regular packet headers, the sequence range (too far ahead,
// behind the window, resync) and delivery of whole packets (regular or reassembled).
#include "endpoint_internal.hpp"

#include <cmath>

#include "bitwire/core/log.hpp"

namespace bitwire {

using namespace endpoint_detail;

// Evidence that a run behind the received window is the peer's current stream, not datagrams the link
// delayed or duplicated: its completing packet acks one of this side's packets newer than every ack
// accepted so far. A stale datagram was sent before the newest packet accepted from the peer, so its ack
// is never newer (the peer's ack only moves forward); the genuine peer acks each packet this side sends.
// Nothing accepted yet: no evidence is needed. An ack ahead of what this side sent is no evidence.
bool Endpoint::State::acks_something_new(uint16_t peer_ack) const {
  return acks.newer_than_processed(peer_ack, sent.last_sent());
}

// The receive side follows the peer to `packet_sequence`. Forward (the peer ran ahead), the windows
// simply move on as they do for any newer packet, so everything already received stays known and
// nothing is delivered twice. Backward (behind the received window: the peer's sequence went round,
// or the window had been moved by forgeries), the received window, ack state and reassembly restart.
void Endpoint::State::resync(uint16_t packet_sequence, Range range) {
  ++counters.sequence_resyncs;
  BITWIRE_LOG(LogLevel::kInfo, "[%s] peer sequence moved from %u to %u: receive window resynchronized",
              config.name, static_cast<unsigned>(received.horizon()), static_cast<unsigned>(packet_sequence));
  if (range == Range::kBehind) reassembly.reset();
  received.resync(packet_sequence, range);
}

ReceiveResult Endpoint::State::drop(ReceiveResult result, uint64_t& counter, const char* detail) {
  ++counter;
  BITWIRE_LOG(LogLevel::kDebug, "[%s] dropped datagram: %s (%s)", config.name, to_string(result), detail);
  return result;
}

// A whole packet (regular, or reassembled) whose header is valid and whose sequence is in range.
ReceiveResult Endpoint::State::process_packet(uint16_t packet_sequence, const AckInfo& info,
                                              std::span<const std::byte> payload, uint32_t wire_bytes) {
  if (!received.can_insert(packet_sequence)) {
    return drop(ReceiveResult::kStale, counters.packets_stale, "older than the received-packets window");
  }
  if (received.exists(packet_sequence)) {
    return drop(ReceiveResult::kDuplicate, counters.packets_duplicate, "sequence already received");
  }
  deferred = false;
  if (callbacks.process == nullptr || !callbacks.process(callbacks.context, packet_sequence, payload)) {
    if (deferred) return defer(packet_sequence, info);
    return drop(ReceiveResult::kRefused, counters.packets_refused, "the process callback returned false");
  }
  received.record(packet_sequence);
  ++counters.packets_received;
  received_meter.add(wire_bytes);
  if (ack_delay_on) offer_report(packet_sequence);
  process_acks(info);
  return ReceiveResult::kDelivered;
}

// A genuine packet the receiver cannot take now (defer_packet): not recorded as received, so never acked
// and the peer sends its content again; but its acks are processed, so that this side's own packets
// (and whatever the receiver waits for them to free) are released even while the peer's are refused.
ReceiveResult Endpoint::State::defer(uint16_t packet_sequence, const AckInfo& info) {
  deferred = false;
  ++counters.packets_deferred;
  BITWIRE_LOG(LogLevel::kDebug, "[%s] packet %u deferred: the receiver is busy; its acks are processed",
              config.name, static_cast<unsigned>(packet_sequence));
  received.accept_unrecorded(packet_sequence);
  process_acks(info);
  return ReceiveResult::kDeferred;
}

ReceiveResult Endpoint::State::receive(std::span<const std::byte> datagram, double arrival) {
  // Unknown (NaN, infinite) or later than now: now. Stale (before the previous update less the slack):
  // the earliest time believed, counted.
  const double earliest = previous_time - kArrivalSlackSeconds;
  if (!std::isfinite(arrival) || arrival > time) {
    receive_time = time;
  } else if (arrival < earliest) {
    receive_time = earliest;
    ++counters.arrival_times_stale;
    BITWIRE_LOG(LogLevel::kDebug, "[%s] stale arrival time %g read as %g (previous update %g)", config.name,
                arrival, earliest, previous_time);
  } else {
    receive_time = arrival;
  }
  if (datagram.size() > max_datagram) {
    return drop(ReceiveResult::kTooLarge, counters.packets_too_large_to_receive,
                "datagram above the largest legal one");
  }
  const uint32_t wire_bytes =
      static_cast<uint32_t>(datagram.size() + static_cast<size_t>(config.packet_header_size));
  std::span<const std::byte> packet = datagram;
  if (envelope_bytes != 0) {
    if (!envelope.open(datagram)) {
      return drop(ReceiveResult::kEnvelopeMismatch, counters.envelope_failures, "crc32 does not match");
    }
    packet = datagram.subspan(Envelope::kBytes);
  }
  if (packet.empty()) return drop(ReceiveResult::kHeaderInvalid, counters.packets_invalid, "empty packet");
  if (load_u8(packet.data()) & kPrefixFragment) return receive_fragment(packet, wire_bytes);
  PacketHeader header;
  const char* reason = nullptr;
  const size_t header_bytes = read_packet_header(packet, header, &reason, ack_delay_on);
  if (header_bytes == 0) return drop(ReceiveResult::kHeaderInvalid, counters.packets_invalid, reason);
  if (packet.size() - header_bytes > static_cast<size_t>(config.max_packet_size)) {
    return drop(ReceiveResult::kTooLarge, counters.packets_too_large_to_receive,
                "payload above max_packet_size");
  }
  const Range range = received.classify(header.sequence, config.max_sequence_jump);
  if (range != Range::kInRange) {
    if (!received.observe_out_of_range(header.sequence) ||
        (range == Range::kBehind && !acks_something_new(header.ack))) {
      if (range == Range::kAhead) {
        return drop(ReceiveResult::kTooFarAhead, counters.packets_too_far_ahead,
                    "more than max_sequence_jump ahead of the newest received packet");
      }
      return drop(ReceiveResult::kStale, counters.packets_stale, "older than the received-packets window");
    }
    resync(header.sequence, range);
  }
  return process_packet(header.sequence, ack_info_of(header), packet.subspan(header_bytes), wire_bytes);
}

}  // namespace bitwire
