// ChannelConfig and ConnectionConfig checks and clamping, both from their tables (kChannelConfigLimits,
// kConnectionConfigLimits) and the nested configs' own (the endpoint's, the message pool's).
#include "bitwire/message/channel_config.hpp"
#include "bitwire/message/connection.hpp"

#include <algorithm>
#include <cstdio>
#include <span>

#include "bitwire/message/channel.hpp"

namespace bitwire {

ConfigCheck ChannelConfig::check() const {
  if (ConfigCheck own = check_config("ChannelConfig", *this, kChannelConfigLimits); !own) return own;
  // Blocks sent as fragments: BlockConfig's own table (block size and fragment count limits, budget, resend).
  if (fragments_blocks()) return block_config().check();
  return {};
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

MessagePoolConfig ConnectionConfig::message_pool_config(bool block_types, bool shared_blocks) const {
  MessagePoolConfig pool;
  // The derived count: what can be alive at once. Every queue full; the messages of one received packet
  // (read before the channels take them, duplicates of queued ones included); on an unreliable channel
  // also one sent packet's, which leave its send queue when planned and are released at the next plan (a
  // reliable channel's sent messages stay in its send queue until acked); and 64 the application holds.
  int messages = 64;
  int per_packet = 0;  // the most messages one received packet carries
  bool blocks_possible = false;
  int max_block = 1;
  int block_channels = 0;         // reliable channels sending blocks as fragments
  int inline_block_channels = 0;  // unreliable channels carrying blocks inline
  for (int i = 0; i < channel_count; ++i) {
    const ChannelConfig& channel = channels[static_cast<size_t>(i)];
    const bool reliable = channel.type == ChannelType::kReliableOrdered;
    // A correct sender never has more than receive_queue_size reliable ids in flight (it walks at most that
    // many from its oldest unacked one, check_window), so one packet brings no more of them; both numbers
    // are in the protocol id. An unreliable channel's packet is bounded by max_messages_per_packet alone.
    const int received = reliable ? std::min(channel.max_messages_per_packet, channel.receive_queue_size)
                                  : channel.max_messages_per_packet;
    messages += channel.send_queue_size + channel.receive_queue_size + received +
                (reliable ? 0 : channel.max_messages_per_packet);
    per_packet += received;
    if (!channel.disable_blocks) {
      blocks_possible = true;
      max_block = std::max(max_block, channel.max_block_size);
      (reliable ? block_channels : inline_block_channels) += 1;
    }
  }
  const bool blocks = blocks_possible && block_types;
  pool.capacity = message_pool_size > 0 ? message_pool_size : messages;
  pool.bytes = message_pool_bytes;
  pool.large_messages = kDerivedLargeMessages;
  pool.least_bytes = kDerivedPoolBytes;
  // One received packet of every channel's most messages (`received` above) at the largest type stays free
  // for the receive path (the gap rule's reserve, docs/channels.md section 2), and a block message slot per
  // reliable channel reassembling blocks, plus one for its fragment 0 resent while the slot holds the block's
  // message.
  pool.receive_reserve = per_packet;
  // With buffers of its own, a reliable channel lends its reassembly buffer to the block it delivers
  // (channel.hpp), so the pool needs one buffer per channel for what the application sends and one per
  // unreliable channel for what it receives inline. On a shared arena every received block is copied into
  // a buffer: 4, room for sending and for the receive reserve.
  const int derived = shared_blocks ? 4 : std::min(4, block_channels + 2 * inline_block_channels);
  pool.block_count = block_pool_size > 0 ? block_pool_size : (blocks ? derived : 0);
  pool.block_messages = blocks ? 2 * block_channels : 0;
  pool.max_block_size = max_block;
  // One reserved buffer per channel that receives blocks into a pool buffer, so each can finish a block
  // while the application's outgoing blocks hold the rest; at least one buffer stays free for sending.
  const int receiving = shared_blocks ? block_channels : inline_block_channels;
  const int reserve = block_receive_reserve >= 0 ? block_receive_reserve : receiving;
  pool.block_receive_reserve = blocks ? std::clamp(reserve, 0, std::max(0, pool.block_count - 1)) : 0;
  return pool;
}

ConfigCheck ConnectionConfig::check() const {
  if (ConfigCheck own = check_config("ConnectionConfig", *this, kConnectionConfigLimits); !own) return own;
  for (int i = 0; i < channel_count; ++i) {
    if (const ConfigCheck problem = channels[static_cast<size_t>(i)].check(); !problem) {
      char part[40];
      std::snprintf(part, sizeof part, "ConnectionConfig.channels[%d]", i);
      return config_part_check(part, problem);
    }
  }
  if (const ConfigCheck problem = endpoint.check(); !problem) {
    return config_part_check("ConnectionConfig.endpoint", problem);
  }
  // The endpoint the connection builds: raised to hold a max_packet_size packet (Connection::endpoint_config),
  // it must still pass its own table (max_fragments, memory).
  if (const ConfigCheck problem = Connection::endpoint_config(*this).check(); !problem) {
    return config_part_check("ConnectionConfig.endpoint raised to hold max_packet_size", problem);
  }
  // Counted as if a type carries blocks: the config does not know the factory.
  if (const ConfigCheck problem = message_pool_config(true, true).check(); !problem) {
    return config_part_check("ConnectionConfig.messages", problem);
  }
  if (const size_t bytes = channels_memory(); bytes > kMaxConnectionChannelBytes) {
    char out[kConfigReasonBytes];
    std::snprintf(out, kConfigReasonBytes,
                  "ConnectionConfig.channels: %d channels need %zu bytes (queues, sent packets, message ids, "
                  "block state), past the %zu MiB cap (kMaxConnectionChannelBytes)",
                  channel_count, bytes, kMaxConnectionChannelBytes >> 20);
    return ConfigCheck::failure(out);
  }
  return {};
}

namespace {

size_t channel_memory(const ChannelConfig& c) {
  return c.type == ChannelType::kReliableOrdered ? ReliableOrderedChannel::memory_required(c, true)
                                                 : UnreliableUnorderedChannel::memory_required(c);
}

}  // namespace

size_t ConnectionConfig::channels_memory() const {
  size_t total = 0;
  for (int i = 0; i < std::clamp(channel_count, 1, kMaxChannels); ++i) {
    total += channel_memory(channels[static_cast<size_t>(i)].sanitized());
  }
  return total;
}

namespace {

// `channel` with one of its memory-sized fields halved (toward its minimum), or false when that field is
// already there. Fields 0-2 are local (sent_message_ids, sent_packets_buffer_size, send_queue_size); 3 and 4
// change the wire and the protocol id (receive_queue_size, max_block_size, kept whole fragments).
bool halve_field(ChannelConfig& ch, int field) {
  const auto halve = [](int& value, int minimum) {
    if (value <= minimum) return false;
    value = std::max(value / 2, minimum);
    return true;
  };
  switch (field) {
    case 0: return halve(ch.sent_message_ids, ch.max_messages_per_packet);
    case 1: return halve(ch.sent_packets_buffer_size, 2);
    case 2: return halve(ch.send_queue_size, 1);
    case 3: return halve(ch.receive_queue_size, 1);
    default: {
      if (!ch.fragments_blocks() || ch.max_block_size <= ch.block_fragment_size) return false;
      const int half = ch.max_block_size / 2;
      ch.max_block_size = std::max(half - half % ch.block_fragment_size, ch.block_fragment_size);
      return true;
    }
  }
}

// One step toward kMaxConnectionChannelBytes: the one halving, over every used channel and field, that
// frees the most memory (the largest contributor gives way first, so a config over the cap by its blocks
// keeps its queues); on a tie the local field and the lower channel. False when nothing is left to lower.
bool lower_channels(ConnectionConfig& c) {
  size_t best_saving = 0;
  int best_channel = -1;
  int best_field = 0;
  for (int i = 0; i < c.channel_count; ++i) {
    const ChannelConfig& ch = c.channels[static_cast<size_t>(i)];
    const size_t before = channel_memory(ch);
    for (int field = 0; field < 5; ++field) {
      ChannelConfig lowered = ch;
      if (!halve_field(lowered, field)) continue;
      const size_t after = channel_memory(lowered.sanitized());
      if (after < before && before - after > best_saving) {
        best_saving = before - after;
        best_channel = i;
        best_field = field;
      }
    }
  }
  if (best_channel < 0) return false;
  ChannelConfig& ch = c.channels[static_cast<size_t>(best_channel)];
  halve_field(ch, best_field);
  ch = ch.sanitized();
  return true;
}

}  // namespace

ConnectionConfig ConnectionConfig::sanitized() const {
  ConnectionConfig c = sanitize_config(*this, kConnectionConfigLimits);
  for (ChannelConfig& channel : c.channels) channel = channel.sanitized();
  // Each step halves one field of one channel; at most 26 halvings take a field from its table maximum to
  // its minimum, so 64 channels x 5 fields x 26 steps bound the loop (it stops far sooner: at the cap).
  for (int step = 0; step < kMaxChannels * 5 * 26 && c.channels_memory() > kMaxConnectionChannelBytes; ++step) {
    if (!lower_channels(c)) break;
  }
  c.endpoint = c.endpoint.sanitized();
  // A packet larger than the endpoint's max_packet_size raises it; a packet the raised endpoint cannot hold
  // (more fragments than its table allows, or its memory cap) is lowered until it can. At the endpoint's own
  // size nothing is raised, so the loop ends there at the latest.
  while (c.max_packet_size > c.endpoint.max_packet_size && !Connection::endpoint_config(c).check()) {
    c.max_packet_size = std::max(c.max_packet_size / 2, c.endpoint.max_packet_size);
  }
  // Fewer buffers, never smaller blocks: the pool's table lowers block_count (to 1 at least) and keeps
  // max_block_size; the other pool fields come from fields already clamped.
  const MessagePoolConfig pool = c.message_pool_config(true, true);  // the most buffers either way derives
  const MessagePoolConfig fitted = pool.sanitized();
  if (fitted.block_count != pool.block_count) {
    c.block_pool_size = fitted.block_count;
    // The table clamped the reserve against the old count; it follows the new one (-1, derived, stays).
    c.block_receive_reserve = std::min(c.block_receive_reserve, std::max(c.block_pool_size, 1) - 1);
  }
  return c;
}

}  // namespace bitwire
