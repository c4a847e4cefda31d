// ChannelConfig and ConnectionConfig: range checks and clamping, both driven by one table of limits.
#include <algorithm>
#include <cmath>

#include "bitwire/channel_config.hpp"
#include "bitwire/connection.hpp"

namespace bitwire {

namespace {

struct ChannelLimit {
  int ChannelConfig::*field;
  int min;
  int max;
  bool power_of_two;
  const char* message;
};

constexpr ChannelLimit kChannelLimits[] = {
    {&ChannelConfig::max_messages_per_packet, 1, 4096, false, "max_messages_per_packet must be in [1, 4096]"},
    {&ChannelConfig::max_block_size, 1, 1 << 30, false, "max_block_size must be in [1, 2^30]"},
    {&ChannelConfig::block_fragment_size, 1, 65536, false, "block_fragment_size must be in [1, 65536]"},
    {&ChannelConfig::send_queue_size, 1, 65536, true, "send_queue_size must be a power of two in [1, 65536]"},
    {&ChannelConfig::receive_queue_size, 1, 32768, true, "receive_queue_size must be a power of two in [1, 32768]"},
    {&ChannelConfig::sent_packets_buffer_size, 1, 32768, false, "sent_packets_buffer_size must be in [1, 32768]"},
    {&ChannelConfig::sent_message_ids, 1, 1 << 24, false, "sent_message_ids must be in [1, 2^24]"},
    {&ChannelConfig::packet_budget_bytes, 0, 1 << 20, false, "packet_budget_bytes must be in [0, 2^20]"},
    {&ChannelConfig::priority, -1000, 1000, false, "priority must be in [-1000, 1000]"},
};

bool is_power_of_two(int value) { return value > 0 && (value & (value - 1)) == 0; }

int round_up_power_of_two(int value) {
  int rounded = 1;
  while (rounded < value) rounded <<= 1;
  return rounded;
}

struct ConnectionLimit {
  int ConnectionConfig::*field;
  int min;
  int max;
  const char* message;
};

constexpr ConnectionLimit kConnectionLimits[] = {
    {&ConnectionConfig::max_packet_size, 8, 1 << 20, "max_packet_size must be in [8, 2^20]"},
    {&ConnectionConfig::channel_count, 1, kMaxChannels, "channel_count must be in [1, 64]"},
    {&ConnectionConfig::message_pool_size, 0, 1 << 24, "message_pool_size must be in [0, 2^24]"},
    {&ConnectionConfig::block_pool_size, 0, 1 << 16, "block_pool_size must be in [0, 65536]"},
    {&ConnectionConfig::max_packets_per_update, 1, 256, "max_packets_per_update must be in [1, 256]"},
};

}  // namespace

const char* ChannelConfig::check() const {
  if (type != ChannelType::kReliableOrdered && type != ChannelType::kUnreliableUnordered) return "unknown channel type";
  for (const ChannelLimit& limit : kChannelLimits) {
    const int value = this->*limit.field;
    if (value < limit.min || value > limit.max || (limit.power_of_two && !is_power_of_two(value))) {
      return limit.message;
    }
  }
  if (block_fragment_size > max_block_size || max_block_size % block_fragment_size != 0) {
    return "block_fragment_size must divide max_block_size";
  }
  if (sent_message_ids < max_messages_per_packet) return "sent_message_ids must be >= max_messages_per_packet";
  if (!(message_resend_time >= 0.0) || !std::isfinite(message_resend_time)) {
    return "message_resend_time must be finite and >= 0";
  }
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
  ChannelConfig c = *this;
  const ChannelConfig defaults;
  if (c.type != ChannelType::kReliableOrdered && c.type != ChannelType::kUnreliableUnordered) c.type = defaults.type;
  for (const ChannelLimit& limit : kChannelLimits) {
    int& value = c.*limit.field;
    value = std::clamp(value, limit.min, limit.max);
    if (limit.power_of_two) value = round_up_power_of_two(value);
  }
  c.block_fragment_size = std::min(c.block_fragment_size, c.max_block_size);
  c.max_block_size -= c.max_block_size % c.block_fragment_size;
  c.sent_message_ids = std::max(c.sent_message_ids, c.max_messages_per_packet);
  if (!(c.message_resend_time >= 0.0) || !std::isfinite(c.message_resend_time)) {
    c.message_resend_time = defaults.message_resend_time;
  }
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
  for (const ConnectionLimit& limit : kConnectionLimits) {
    const int value = this->*limit.field;
    if (value < limit.min || value > limit.max) return limit.message;
  }
  for (int i = 0; i < channel_count; ++i) {
    if (const char* problem = channels[static_cast<size_t>(i)].check()) return problem;
  }
  return endpoint.check();
}

ConnectionConfig ConnectionConfig::sanitized() const {
  ConnectionConfig c = *this;
  for (const ConnectionLimit& limit : kConnectionLimits) {
    int& value = c.*limit.field;
    value = std::clamp(value, limit.min, limit.max);
  }
  for (ChannelConfig& channel : c.channels) channel = channel.sanitized();
  c.endpoint = c.endpoint.sanitized();
  return c;
}

}  // namespace bitwire
