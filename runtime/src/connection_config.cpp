// ChannelConfig and ConnectionConfig checks and clamping, both from their tables (kChannelConfigLimits,
// kConnectionConfigLimits) and the nested configs' own.
#include "bitwire/channel_config.hpp"
#include "bitwire/connection.hpp"

#include <cstdio>

namespace bitwire {

const char* ChannelConfig::check() const {
  if (const char* reason = check_config("ChannelConfig", *this, kChannelConfigLimits)) return reason;
  // Blocks sent as fragments: BlockConfig's own table (block size and fragment count limits, budget, resend).
  if (fragments_blocks()) return block_config().check();
  return nullptr;
}

BlockConfig ChannelConfig::block_config() const {
  BlockConfig c;
  c.max_block_size = max_block_size;
  c.fragment_size = block_fragment_size;
  c.min_resend_delay = block_resend_time;
  c.bandwidth_bytes_per_second = block_bandwidth_bytes_per_second;
  c.max_budget_bytes = block_max_budget_bytes;
  c.initial_burst_bytes = block_initial_burst_bytes;
  c.fragment_overhead_bytes = block_fragment_overhead_bytes;
  return c;
}

ChannelConfig ChannelConfig::sanitized() const {
  ChannelConfig c = sanitize_config(*this, kChannelConfigLimits);
  if (c.fragments_blocks()) {
    const BlockConfig block = c.block_config().sanitized();
    c.max_block_size = block.max_block_size;
    c.block_fragment_size = block.fragment_size;
    c.block_resend_time = block.min_resend_delay;
    c.block_bandwidth_bytes_per_second = block.bandwidth_bytes_per_second;
    c.block_max_budget_bytes = block.max_budget_bytes;
    c.block_initial_burst_bytes = block.initial_burst_bytes;
    c.block_fragment_overhead_bytes = block.fragment_overhead_bytes;
    // BlockConfig's repairs keep the fragment size and only ever set max_block_size to a multiple of it.
    c.max_block_size -= c.max_block_size % c.block_fragment_size;
  }
  return c;
}

namespace {

// The largest block a channel of `c` may carry (0 when every channel disables blocks), and the block buffers
// the connection's pool allocates for it: block_pool_size, or the 4 that 0 stands for (counted whether or
// not a message type carries blocks: the config does not know the factory).
int largest_block(const ConnectionConfig& c) {
  int largest = 0;
  for (int i = 0; i < c.channel_count; ++i) {
    const ChannelConfig& channel = c.channels[static_cast<size_t>(i)];
    if (!channel.disable_blocks && channel.max_block_size > largest) largest = channel.max_block_size;
  }
  return largest;
}

size_t block_pool_bytes(const ConnectionConfig& c) {
  const size_t buffers = static_cast<size_t>(c.block_pool_size > 0 ? c.block_pool_size : 4);
  return buffers * static_cast<size_t>(largest_block(c));
}

}  // namespace

const char* ConnectionConfig::check() const {
  if (const char* reason = check_config("ConnectionConfig", *this, kConnectionConfigLimits)) return reason;
  for (int i = 0; i < channel_count; ++i) {
    if (const char* problem = channels[static_cast<size_t>(i)].check()) {
      char part[40];
      std::snprintf(part, sizeof part, "ConnectionConfig.channels[%d]", i);
      return config_part_reason(part, problem);
    }
  }
  if (const char* problem = endpoint.check()) return config_part_reason("ConnectionConfig.endpoint", problem);
  if (block_pool_bytes(*this) > kMaxBlockPoolBytes) {
    char* out = detail::config_reason_buffer();
    std::snprintf(out, kConfigReasonBytes,
                  "ConnectionConfig.block_pool_size = %d: block buffers of %d bytes (the largest channel "
                  "max_block_size) pass the %zu MiB cap (kMaxBlockPoolBytes)",
                  block_pool_size, largest_block(*this), kMaxBlockPoolBytes >> 20);
    return out;
  }
  return nullptr;
}

ConnectionConfig ConnectionConfig::sanitized() const {
  ConnectionConfig c = sanitize_config(*this, kConnectionConfigLimits);
  for (ChannelConfig& channel : c.channels) channel = channel.sanitized();
  c.endpoint = c.endpoint.sanitized();
  // Fewer buffers, never smaller blocks. 0 stands for 4, which always fits (blocks are at most 64 MiB).
  if (block_pool_bytes(c) > kMaxBlockPoolBytes) {
    c.block_pool_size = static_cast<int>(kMaxBlockPoolBytes / static_cast<size_t>(largest_block(c)));
  }
  return c;
}

}  // namespace bitwire
