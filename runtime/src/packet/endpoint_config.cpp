// EndpointConfig checks and clamping (both from kEndpointConfigLimits), and the names of receive results.
#include <algorithm>

#include "bitwire/packet/endpoint.hpp"

namespace bitwire {

ConfigCheck EndpointConfig::check() const {
  return check_config("EndpointConfig", *this, kEndpointConfigLimits);
}

EndpointConfig EndpointConfig::sanitized() const {
  return sanitize_config(*this, kEndpointConfigLimits);
}

int detail::endpoint_max_reassembly_slots(const EndpointConfig& config) {
  // Memory is linear in the slot count from one slot up (the Reassembler allocates at least one), so the
  // per-slot figure is the difference between two and one slots.
  EndpointConfig probe = config;
  probe.reassembly_slots = 1;
  const size_t one = endpoint_memory_bytes(probe);
  probe.reassembly_slots = 2;
  const size_t per_slot = endpoint_memory_bytes(probe) - one;
  const size_t base = one - per_slot;
  if (base >= kMaxEndpointMemoryBytes) return 0;
  return static_cast<int>(std::min<size_t>((kMaxEndpointMemoryBytes - base) / per_slot, 1 << 30));
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
    case ReceiveResult::kTooFarAhead:
      return "sequence too far ahead";
    case ReceiveResult::kFragmentTooFarAhead:
      return "fragment too far ahead";
    case ReceiveResult::kDeferred:
      return "deferred (busy)";
    case ReceiveResult::kFragmentConflict:
      return "conflicting fragment";
    case ReceiveResult::kEndpointFailed:
      return "the endpoint failed at construction";
  }
  return "?";
}

}  // namespace bitwire
