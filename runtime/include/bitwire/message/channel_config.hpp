// ChannelConfig: one channel's settings. The first five fields (type, max_messages_per_packet,
// max_block_size, block_fragment_size, disable_blocks) change the bits on the wire, so both ends must
// agree on them; the connection folds them into its protocol id (connection.hpp). The rest are local.
#pragma once

#include <cstdint>

#include "bitwire/message/block.hpp"
#include "bitwire/core/config_table.hpp"

namespace bitwire {

enum class ChannelType : uint8_t {
  kReliableOrdered = 0,      // every message arrives, once, in the order sent (ids, acks, resends)
  kUnreliableUnordered = 1,  // messages that fit the next packet go once; the rest are dropped and counted
};

const char* to_string(ChannelType type);

struct ChannelConfig {
  ChannelType type = ChannelType::kReliableOrdered;  // wire: the channel's framing
  int max_messages_per_packet = 256;   // wire: int(n, 1, this) per entry; also caps messages per packet
  int max_block_size = 256 * 1024;     // wire: largest block (bytes) a block message carries
  int block_fragment_size = 1024;      // wire: bytes per block fragment (reliable); divides max_block_size
  bool disable_blocks = false;         // wire: block messages refused on this channel (send and receive)
  int send_queue_size = 1024;          // messages queued for sending (reliable: until acked); power of two
                                       // up to 65536 (a reliable channel holds at most 65535)
  int receive_queue_size = 1024;       // messages buffered on receive (reliable: the id window); power of two
  int sent_packets_buffer_size = 1024; // reliable: sent packets whose message ids are remembered for acks
  int sent_message_ids = 16384;        // reliable: message ids remembered across those packets; older packets'
                                       // acks are forgotten (their messages are simply resent)
  double message_resend_time = 0.1;    // reliable: seconds before an unacked message is sent again; with
                                       // message_resend_rtt_factor > 0, the least time (the floor)
  // Reliable: resend delays from the measured round trip: max(message_resend_time, message_resend_rtt_factor
  // x Connection::ack_round_trip() + message_resend_jitter_factor x the endpoint's RTT jitter) once the
  // endpoint has an RTT sample. Above 0 also turns on fast resend of block fragments (a fragment sent
  // before one whose ack arrived goes again without waiting for block_resend_time). 0 keeps the fixed
  // times alone (yojimbo's behaviour; StackConfig::yojimbo_compatible sets 0).
  double message_resend_rtt_factor = 1.0;
  double message_resend_jitter_factor = 4.0;
  int packet_budget_bytes = 0;         // most bytes this channel may use in one packet; 0 = the packet's budget
  int priority = 0;                    // higher fills each packet first; ties go by channel index
  // Reliable block transfer (local; BlockConfig's table checks them, see block.hpp):
  double block_bandwidth_bytes_per_second = 256 * 1024;  // fragment budget accrual (data + overhead), bytes/s
  int block_max_budget_bytes = 16 * 1024;  // the fragment budget never holds more (bounds the burst after idle)
  int block_initial_burst_bytes = 0;       // a new block may send this many bytes at once, outside the budget
  double block_resend_time = 0.1;          // seconds before an unacked fragment may be sent again
  int block_fragment_overhead_bytes = 40;  // bytes charged per fragment besides its data (headers, IP/UDP)
  // Reliable, with blocks (local): the deadline on the peer's acks while a block is queued or in flight.
  // A block must be wholly acked within 2 x its transfer time at block_bandwidth_bytes_per_second
  // (BlockConfig::transfer_seconds; the 2 covers resends up to 50% loss) + this many seconds from the
  // update it became the channel's oldest unacked message, or within this many seconds of the last update
  // that saw more of its fragments acked, whichever is later; a message ahead of a queued block within
  // this many seconds of becoming the oldest. At the second update past either the connection fails
  // (ConnectionError::kBlockAckOverdue), so a peer cannot keep a block buffer by not acking. On the
  // receive side, a block reassembled in a borrowed pool buffer must get a new fragment within this many
  // seconds of the last update that saw one (ConnectionError::kBlockStalled).
  double block_ack_grace = 20.0;

  // Passes when every field is in range (kChannelConfigLimits, then the block fields through
  // kBlockConfigLimits when the channel fragments blocks), else the reason for the first that is not: the
  // field, its value and its legal range (held in the ConfigCheck; see config_table.hpp).
  ConfigCheck check() const;
  // This config with every field clamped into range (what a connection actually uses); check() accepts it.
  ChannelConfig sanitized() const;

  // The BlockConfig of this channel's block sender and receiver (reliable channels with blocks enabled).
  BlockConfig block_config() const;
  // True when this channel sends blocks as fragments: reliable-ordered with blocks enabled.
  bool fragments_blocks() const { return type == ChannelType::kReliableOrdered && !disable_blocks; }

  // maxFragmentsPerBlock of the wire format: max_block_size / block_fragment_size.
  int max_fragments_per_block() const { return max_block_size / block_fragment_size; }
};

// The limits of every ChannelConfig field but the block transfer ones (block_resend_time and the
// block_* budget fields, checked as a BlockConfig by kBlockConfigLimits; block_ack_grace is checked here),
// in the order they are checked (a bound computed from other fields reads only fields above it). check()
// and sanitized() derive from them.
inline constexpr auto kChannelConfigLimits = config_table(
    Field<ChannelConfig, ChannelType>{.name = "type",
                                      .member = &ChannelConfig::type,
                                      .min = ChannelType::kReliableOrdered,
                                      .max = ChannelType::kUnreliableUnordered},
    Field<ChannelConfig, int>{.name = "max_messages_per_packet",
                              .member = &ChannelConfig::max_messages_per_packet,
                              .min = 1,
                              .max = 4096},
    Field<ChannelConfig, int>{.name = "block_fragment_size",
                              .member = &ChannelConfig::block_fragment_size,
                              .min = 1,
                              .max = 65536,
                              .unit = "bytes"},
    // Whole fragments: max_fragments_per_block() is exact.
    Field<ChannelConfig, int>{.name = "max_block_size",
                              .member = &ChannelConfig::max_block_size,
                              .min = 1,
                              .max = 1 << 30,
                              .lower = [](const ChannelConfig& c) { return c.block_fragment_size; },
                              .lower_text = "block_fragment_size",
                              .multiple_of = [](const ChannelConfig& c) { return c.block_fragment_size; },
                              .multiple_text = "block_fragment_size",
                              .unit = "bytes"},
    // Rings indexed by a mask.
    Field<ChannelConfig, int>{.name = "send_queue_size",
                              .member = &ChannelConfig::send_queue_size,
                              .min = 1,
                              .max = 65536,
                              .exact_power_of_two = true},
    Field<ChannelConfig, int>{.name = "receive_queue_size",
                              .member = &ChannelConfig::receive_queue_size,
                              .min = 1,
                              .max = 32768,
                              .exact_power_of_two = true},
    // At least 2: with one record, both ends' next packet (a probe: the in-flight limit holds the rest)
    // overwrites the record of the packet the peer's probe acks, so no message is ever acked.
    Field<ChannelConfig, int>{.name = "sent_packets_buffer_size",
                              .member = &ChannelConfig::sent_packets_buffer_size,
                              .min = 2,
                              .max = 32768},
    // One packet's ids must fit the ring.
    Field<ChannelConfig, int>{.name = "sent_message_ids",
                              .member = &ChannelConfig::sent_message_ids,
                              .min = 1,
                              .max = 1 << 24,
                              .lower = [](const ChannelConfig& c) { return c.max_messages_per_packet; },
                              .lower_text = "max_messages_per_packet"},
    Field<ChannelConfig, double>{.name = "message_resend_time",
                                 .member = &ChannelConfig::message_resend_time,
                                 .min = 0.0,
                                 .max = 3600.0,
                                 .unit = "s"},
    Field<ChannelConfig, double>{.name = "message_resend_rtt_factor",
                                 .member = &ChannelConfig::message_resend_rtt_factor,
                                 .min = 0.0,
                                 .max = 100.0},
    Field<ChannelConfig, double>{.name = "message_resend_jitter_factor",
                                 .member = &ChannelConfig::message_resend_jitter_factor,
                                 .min = 0.0,
                                 .max = 100.0},
    Field<ChannelConfig, int>{.name = "packet_budget_bytes",
                              .member = &ChannelConfig::packet_budget_bytes,
                              .min = 0,
                              .max = 1 << 20,
                              .unit = "bytes"},
    Field<ChannelConfig, int>{
        .name = "priority", .member = &ChannelConfig::priority, .min = -1000, .max = 1000},
    Field<ChannelConfig, double>{.name = "block_ack_grace",
                                 .member = &ChannelConfig::block_ack_grace,
                                 .min = 0.1,
                                 .max = 86400.0,
                                 .unit = "s"});

}  // namespace bitwire
