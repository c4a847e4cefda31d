// BlockConfig checks and clamping (both from kBlockConfigLimits) and the names of block results.
#include "bitwire/message/block.hpp"

namespace bitwire {

ConfigCheck BlockConfig::check() const {
  return check_config("BlockConfig", *this, kBlockConfigLimits);
}

BlockConfig BlockConfig::sanitized() const {
  return sanitize_config(*this, kBlockConfigLimits);
}

double BlockConfig::transfer_seconds(uint32_t size) const {
  const BlockConfig c = sanitized();  // a fragment size and a bandwidth of at least 1
  const auto fragment = static_cast<uint64_t>(c.fragment_size);
  const uint64_t fragments = (uint64_t{size} + fragment - 1) / fragment;
  const double bytes = static_cast<double>(size) + static_cast<double>(fragments) * c.fragment_overhead_bytes;
  return bytes / c.bandwidth_bytes_per_second;
}

const char* to_string(BlockAckResult result) {
  switch (result) {
    case BlockAckResult::kNewlyAcked:
      return "newly acked";
    case BlockAckResult::kCompleted:
      return "block completed";
    case BlockAckResult::kDuplicate:
      return "duplicate ack";
    case BlockAckResult::kInvalid:
      return "no such fragment in flight";
  }
  return "?";
}

const char* to_string(BlockFragmentResult result) {
  switch (result) {
    case BlockFragmentResult::kAccepted:
      return "accepted";
    case BlockFragmentResult::kCompleted:
      return "block completed";
    case BlockFragmentResult::kDuplicate:
      return "duplicate fragment";
    case BlockFragmentResult::kAlreadyComplete:
      return "fragment of the completed block";
    case BlockFragmentResult::kBusy:
      return "a completed block awaits release";
    case BlockFragmentResult::kCountOutOfRange:
      return "fragment count out of range";
    case BlockFragmentResult::kIdOutOfRange:
      return "fragment id out of range";
    case BlockFragmentResult::kSizeMismatch:
      return "fragment size mismatch";
    case BlockFragmentResult::kTooLarge:
      return "block larger than max_block_size";
    case BlockFragmentResult::kBlockIdMismatch:
      return "block id differs from the block in progress";
    case BlockFragmentResult::kCountMismatch:
      return "fragment count differs from the block in progress";
    case BlockFragmentResult::kLastSizeMismatch:
      return "last fragment size differs from the one stored";
  }
  return "?";
}

bool is_rejection(BlockFragmentResult result) {
  return static_cast<int>(result) >= static_cast<int>(BlockFragmentResult::kCountOutOfRange);
}

}  // namespace bitwire
