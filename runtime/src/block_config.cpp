// BlockConfig checks and clamping (both from kBlockConfigLimits) and the names of block results.
#include "bitwire/block.hpp"

namespace bitwire {

const char* BlockConfig::check() const {
  return check_config("BlockConfig", *this, kBlockConfigLimits);
}

BlockConfig BlockConfig::sanitized() const {
  return sanitize_config(*this, kBlockConfigLimits);
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

const char* to_string(FragmentResult result) {
  switch (result) {
    case FragmentResult::kAccepted:
      return "accepted";
    case FragmentResult::kCompleted:
      return "block completed";
    case FragmentResult::kDuplicate:
      return "duplicate fragment";
    case FragmentResult::kAlreadyComplete:
      return "fragment of the completed block";
    case FragmentResult::kBusy:
      return "a completed block awaits release";
    case FragmentResult::kCountOutOfRange:
      return "fragment count out of range";
    case FragmentResult::kIdOutOfRange:
      return "fragment id out of range";
    case FragmentResult::kSizeMismatch:
      return "fragment size mismatch";
    case FragmentResult::kTooLarge:
      return "block larger than max_block_size";
    case FragmentResult::kBlockIdMismatch:
      return "block id differs from the block in progress";
    case FragmentResult::kCountMismatch:
      return "fragment count differs from the block in progress";
    case FragmentResult::kLastSizeMismatch:
      return "last fragment size differs from the one stored";
  }
  return "?";
}

bool is_rejection(FragmentResult result) {
  return static_cast<int>(result) >= static_cast<int>(FragmentResult::kCountOutOfRange);
}

}  // namespace bitwire
