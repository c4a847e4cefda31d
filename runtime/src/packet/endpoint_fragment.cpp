// Endpoint, fragment receive path: fragment header validation, the fragment margin, reassembly and the
// hand-over of a completed packet to the receive path.
#include "endpoint_internal.hpp"

#include "bitwire/core/log.hpp"

namespace bitwire {

using namespace endpoint_detail;

ReceiveResult Endpoint::State::receive_fragment(std::span<const std::byte> fragment, uint32_t wire_bytes) {
  const std::byte* data = fragment.data();
  if (fragment.size() < kFragmentHeaderBytes) {
    return drop(ReceiveResult::kFragmentInvalid, counters.fragments_invalid, "truncated fragment header");
  }
  if (load_u8(data) != kPrefixFragment) {
    return drop(ReceiveResult::kFragmentInvalid, counters.fragments_invalid,
                "fragment prefix byte is not exactly 1");
  }
  const uint16_t packet_sequence = load_le16(data + 1);
  const uint32_t fragment_id = load_u8(data + 3);
  const uint32_t fragment_count = static_cast<uint32_t>(load_u8(data + 4)) + 1;
  if (fragment_count > static_cast<uint32_t>(config.max_fragments)) {
    return drop(ReceiveResult::kFragmentInvalid, counters.fragments_invalid,
                "fragment count above max_fragments");
  }
  if (fragment_id >= fragment_count) {
    return drop(ReceiveResult::kFragmentInvalid, counters.fragments_invalid, "fragment id >= fragment count");
  }
  std::span<const std::byte> body = fragment.subspan(kFragmentHeaderBytes);
  PacketHeader header;
  if (fragment_id == 0) {
    const char* reason = nullptr;
    const size_t header_bytes = read_packet_header(body, header, &reason, ack_delay_on);
    if (header_bytes == 0) return drop(ReceiveResult::kFragmentInvalid, counters.fragments_invalid, reason);
    if (header.sequence != packet_sequence) {
      return drop(ReceiveResult::kFragmentInvalid, counters.fragments_invalid,
                  "embedded header sequence differs from the fragment's");
    }
    body = body.subspan(header_bytes);
  }
  const size_t fragment_size = static_cast<size_t>(config.fragment_size);
  if (body.size() > fragment_size) {
    return drop(ReceiveResult::kFragmentInvalid, counters.fragments_invalid,
                "fragment data above fragment_size");
  }
  const bool last = fragment_id == fragment_count - 1;
  if (!last && body.size() != fragment_size) {
    return drop(ReceiveResult::kFragmentInvalid, counters.fragments_invalid,
                "non-final fragment shorter than fragment_size");
  }
  if (last && body.empty()) {
    return drop(ReceiveResult::kFragmentInvalid, counters.fragments_invalid,
                "final fragment carries no data");
  }
  const Range range = received.classify(packet_sequence, fragment_margin);
  if (range != Range::kInRange) {
    // Only fragment 0 carries an ack: another fragment never completes a backward run.
    if (!received.observe_out_of_range(packet_sequence) ||
        (range == Range::kBehind && (fragment_id != 0 || !acks_something_new(header.ack)))) {
      if (range == Range::kAhead) {
        return drop(ReceiveResult::kFragmentTooFarAhead, counters.fragments_too_far_ahead,
                    "further ahead of the newest received packet than the reassembly margin");
      }
      return drop(ReceiveResult::kFragmentStale, counters.fragments_stale,
                  "older than the received-packets window");
    }
    resync(packet_sequence, range);
  }
  if (received.exists(packet_sequence)) {
    return drop(ReceiveResult::kFragmentDuplicate, counters.fragments_duplicate,
                "its packet was already received");
  }

  const uint64_t evicted_before = reassembly.evicted();
  // Fragment 0's embedded acknowledgment fields, the ack delay extension included, travel with the
  // reassembly (other fragments carry none: `header` is then unused).
  const PacketFragmentResult result =
      reassembly.add(packet_sequence, fragment_id, fragment_count, body, ack_info_of(header), wire_bytes);
  counters.reassemblies_evicted += reassembly.evicted() - evicted_before;
  switch (result) {
    case PacketFragmentResult::kStale:
      return drop(ReceiveResult::kFragmentStale, counters.fragments_stale,
                  "older than the reassembly window");
    case PacketFragmentResult::kDuplicate:
      return drop(ReceiveResult::kFragmentDuplicate, counters.fragments_duplicate, "fragment already stored");
    case PacketFragmentResult::kConflict:
      return drop(ReceiveResult::kFragmentConflict, counters.fragments_conflicting,
                  "fragment disagrees with the stored fragments of its packet: reassembly dropped");
    case PacketFragmentResult::kInvalid:  // the endpoint validated it against the same config: not reached
      return drop(ReceiveResult::kFragmentInvalid, counters.fragments_invalid,
                  "fragment outside the reassembler's config");
    case PacketFragmentResult::kStored:
      ++counters.fragments_received;
      received.in_range_seen();
      return ReceiveResult::kFragmentStored;
    case PacketFragmentResult::kComplete:
      break;
  }
  ++counters.fragments_received;
  ++counters.reassemblies_completed;
  received.in_range_seen();
  const ReassembledPacket& packet = reassembly.completed();
  if (packet.data.size() > static_cast<size_t>(config.max_packet_size)) {
    return drop(ReceiveResult::kReassembledTooLarge, counters.packets_too_large_to_receive,
                "reassembled packet above max_packet_size");
  }
  return process_packet(packet_sequence, packet.header, packet.data, packet.wire_bytes);
}

}  // namespace bitwire
