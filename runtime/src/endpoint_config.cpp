// EndpointConfig range checks and clamping, and the names of receive results.
#include <algorithm>

#include "bitwire/endpoint.hpp"

namespace bitwire {

namespace {

// False for NaN too.
bool factor_ok(float f) {
  return f > 0.0f && f <= 1.0f;
}

}  // namespace

const char* EndpointConfig::check() const {
  if (max_fragments < 1 || max_fragments > kMaxFragmentsLimit) return "max_fragments must be in [1, 256]";
  if (fragment_size < 1 || fragment_size > 65536) return "fragment_size must be in [1, 65536]";
  if (max_packet_size < 1) return "max_packet_size must be >= 1";
  if (static_cast<int64_t>(max_packet_size) > static_cast<int64_t>(max_fragments) * fragment_size) {
    return "max_packet_size must be <= max_fragments * fragment_size";
  }
  if (fragment_above < 0) return "fragment_above must be >= 0";
  if (sent_packets_buffer_size < 1 || sent_packets_buffer_size > 32768) {
    return "sent_packets_buffer_size must be in [1, 32768]";
  }
  if (received_packets_buffer_size < 1 || received_packets_buffer_size > 32768) {
    return "received_packets_buffer_size must be in [1, 32768]";
  }
  if (fragment_reassembly_buffer_size < 1 || fragment_reassembly_buffer_size > 32768) {
    return "fragment_reassembly_buffer_size must be in [1, 32768]";
  }
  if (reassembly_slots < 1 || reassembly_slots > 1024) return "reassembly_slots must be in [1, 1024]";
  if (ack_buffer_size < 1 || ack_buffer_size > 65536) return "ack_buffer_size must be in [1, 65536]";
  if (rtt_history_size < 1 || rtt_history_size > 65536) return "rtt_history_size must be in [1, 65536]";
  if (!factor_ok(rtt_smoothing_factor)) return "rtt_smoothing_factor must be in (0, 1]";
  if (!factor_ok(jitter_smoothing_factor)) return "jitter_smoothing_factor must be in (0, 1]";
  if (!factor_ok(bandwidth_smoothing_factor)) return "bandwidth_smoothing_factor must be in (0, 1]";
  if (packet_loss_window < 1 || packet_loss_window > 65536) return "packet_loss_window must be in [1, 65536]";
  if (!(packet_loss_min_age >= 0.0)) return "packet_loss_min_age must be >= 0";
  if (!(packet_loss_unknown_rtt_age >= 0.0)) return "packet_loss_unknown_rtt_age must be >= 0";
  if (!(bandwidth_sample_interval > 0.0)) return "bandwidth_sample_interval must be > 0";
  if (packet_header_size < 0) return "packet_header_size must be >= 0";
  if (static_cast<uint8_t>(ack_delay) > static_cast<uint8_t>(AckDelayMode::kOff)) {
    return "ack_delay must be kWithEnvelope, kOn or kOff";
  }
  return nullptr;
}

EndpointConfig EndpointConfig::sanitized() const {
  EndpointConfig c = *this;
  const EndpointConfig defaults;
  if (c.name == nullptr) c.name = defaults.name;
  c.max_fragments = std::clamp(c.max_fragments, 1, kMaxFragmentsLimit);
  c.fragment_size = std::clamp(c.fragment_size, 1, 65536);
  c.max_packet_size = std::clamp(c.max_packet_size, 1, c.max_fragments * c.fragment_size);
  c.fragment_above = std::clamp(c.fragment_above, 0, c.max_packet_size);
  c.sent_packets_buffer_size = std::clamp(c.sent_packets_buffer_size, 1, 32768);
  c.received_packets_buffer_size = std::clamp(c.received_packets_buffer_size, 1, 32768);
  c.fragment_reassembly_buffer_size = std::clamp(c.fragment_reassembly_buffer_size, 1, 32768);
  c.reassembly_slots = std::clamp(c.reassembly_slots, 1, 1024);
  c.ack_buffer_size = std::clamp(c.ack_buffer_size, 1, 65536);
  c.rtt_history_size = std::clamp(c.rtt_history_size, 1, 65536);
  if (!factor_ok(c.rtt_smoothing_factor)) c.rtt_smoothing_factor = defaults.rtt_smoothing_factor;
  if (!factor_ok(c.jitter_smoothing_factor)) c.jitter_smoothing_factor = defaults.jitter_smoothing_factor;
  if (!factor_ok(c.bandwidth_smoothing_factor))
    c.bandwidth_smoothing_factor = defaults.bandwidth_smoothing_factor;
  c.packet_loss_window = std::clamp(c.packet_loss_window, 1, 65536);
  if (!(c.packet_loss_min_age >= 0.0)) c.packet_loss_min_age = defaults.packet_loss_min_age;
  if (!(c.packet_loss_unknown_rtt_age >= 0.0))
    c.packet_loss_unknown_rtt_age = defaults.packet_loss_unknown_rtt_age;
  if (!(c.bandwidth_sample_interval > 0.0)) c.bandwidth_sample_interval = defaults.bandwidth_sample_interval;
  c.packet_header_size = std::max(c.packet_header_size, 0);
  if (static_cast<uint8_t>(c.ack_delay) > static_cast<uint8_t>(AckDelayMode::kOff)) c.ack_delay = defaults.ack_delay;
  return c;
}

const char* to_string(ReceiveResult result) {
  switch (result) {
    case ReceiveResult::kDelivered:
      return "delivered";
    case ReceiveResult::kFragmentStored:
      return "fragment stored";
    case ReceiveResult::kRefused:
      return "refused by the process callback";
    case ReceiveResult::kEnvelopeMismatch:
      return "envelope crc32 mismatch";
    case ReceiveResult::kTooLarge:
      return "too large";
    case ReceiveResult::kHeaderInvalid:
      return "invalid header";
    case ReceiveResult::kStale:
      return "stale";
    case ReceiveResult::kDuplicate:
      return "duplicate";
    case ReceiveResult::kFragmentInvalid:
      return "invalid fragment";
    case ReceiveResult::kFragmentDuplicate:
      return "duplicate fragment";
    case ReceiveResult::kFragmentStale:
      return "stale fragment";
    case ReceiveResult::kReassembledTooLarge:
      return "reassembled packet too large";
  }
  return "?";
}

}  // namespace bitwire
