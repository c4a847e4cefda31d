// BlockConfig limits (one table for check() and sanitized()) and the names of block results.
#include <algorithm>
#include <cstdint>

#include "bitwire/block.hpp"
#include "config_limits.hpp"

namespace bitwire {

namespace {

using detail::CrossRule;
using detail::DoubleLimit;
using detail::IntLimit;

constexpr IntLimit<BlockConfig> kBlockInts[] = {
    {&BlockConfig::max_block_size, 1, kMaxBlockSizeLimit, "max_block_size must be in [1, 64 MiB]"},
    {&BlockConfig::fragment_size, 1, 65536, "fragment_size must be in [1, 65536]"},
    {&BlockConfig::max_budget_bytes, 1, 1 << 30, "max_budget_bytes must be in [1, 2^30]"},
    {&BlockConfig::initial_burst_bytes, 0, 1 << 30, "initial_burst_bytes must be in [0, 2^30]"},
    {&BlockConfig::fragment_overhead_bytes, 0, 65536, "fragment_overhead_bytes must be in [0, 65536]"},
};

constexpr DoubleLimit<BlockConfig> kBlockDoubles[] = {
    {&BlockConfig::min_resend_delay, 0.0, 3600.0, "min_resend_delay must be in [0, 3600] seconds"},
    {&BlockConfig::bandwidth_bytes_per_second, 1.0, 1e12, "bandwidth_bytes_per_second must be in [1, 1e12]"},
};

constexpr CrossRule<BlockConfig> kBlockRules[] = {
    {[](const BlockConfig& c) {
       return static_cast<int64_t>(c.max_block_size) <=
              static_cast<int64_t>(c.fragment_size) * kMaxBlockFragments;
     },
     // Fails only when fragment_size < 1024, so the product stays below kMaxBlockSizeLimit.
     [](BlockConfig& c) { c.max_block_size = c.fragment_size * kMaxBlockFragments; },
     "max_block_size / fragment_size must not exceed 65536 fragments"},
    {[](const BlockConfig& c) { return c.max_budget_bytes >= c.fragment_size + c.fragment_overhead_bytes; },
     [](BlockConfig& c) { c.max_budget_bytes = c.fragment_size + c.fragment_overhead_bytes; },
     "max_budget_bytes must hold one fragment: >= fragment_size + fragment_overhead_bytes"},
};

constexpr detail::ConfigLimits<BlockConfig> kBlockLimits{kBlockInts, kBlockDoubles, kBlockRules};

}  // namespace

const char* BlockConfig::check() const {
  return kBlockLimits.check(*this);
}

BlockConfig BlockConfig::sanitized() const {
  return kBlockLimits.sanitized(*this);
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
