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

const char* ConnectionConfig::check() const {
  if (const char* reason = check_config("ConnectionConfig", *this, kConnectionConfigLimits)) return reason;
  for (int i = 0; i < channel_count; ++i) {
    if (const char* problem = channels[static_cast<size_t>(i)].check()) {
      char part[40];
      std::snprintf(part, sizeof part, "ConnectionConfig.channels[%d]", i);
      return config_part_reason(part, problem);
    }
  }
  return config_part_reason("ConnectionConfig.endpoint", endpoint.check());
}

ConnectionConfig ConnectionConfig::sanitized() const {
  ConnectionConfig c = sanitize_config(*this, kConnectionConfigLimits);
  for (ChannelConfig& channel : c.channels) channel = channel.sanitized();
  c.endpoint = c.endpoint.sanitized();
  return c;
}

}  // namespace bitwire
