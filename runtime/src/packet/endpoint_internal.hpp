// Private to the endpoint sources (endpoint*.cpp): the reliable 1.0 prefix bits, byte access, and the
// endpoint's state, whose methods are defined by concept across endpoint.cpp (construction, reset, the
// public API), endpoint_send.cpp, endpoint_receive.cpp, endpoint_fragment.cpp and endpoint_acks.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "bitwire/packet/detail/bandwidth_meter.hpp"
#include "bitwire/packet/endpoint.hpp"
#include "bitwire/packet/envelope.hpp"
#include "bitwire/packet/detail/loss_window.hpp"
#include "bitwire/core/random.hpp"
#include "bitwire/packet/reassembler.hpp"
#include "bitwire/packet/detail/rtt_estimator.hpp"
#include "bitwire/packet/sequence.hpp"

namespace bitwire::endpoint_detail {

inline constexpr uint8_t kPrefixFragment = 0x01;
inline constexpr uint8_t kPrefixAckBitsMask = 0x1E;  // bits 1..4: ack_bits byte k present
inline constexpr uint8_t kPrefixShortAck = 0x20;     // bit 5: ack sent as a one-byte difference
inline constexpr uint8_t kPrefixAckDelay = 0x40;     // bit 6: ack delay extension byte (bitwire's)
inline constexpr uint8_t kPrefixReserved = 0x80;     // bit 7: zero

inline uint8_t load_u8(const std::byte* p) {
  return std::to_integer<uint8_t>(*p);
}
inline uint16_t load_le16(const std::byte* p) {
  return static_cast<uint16_t>(load_u8(p) | (load_u8(p + 1) << 8));
}
inline void store_le16(std::byte* p, uint16_t value) {
  p[0] = static_cast<std::byte>(value & 0xFFu);
  p[1] = static_cast<std::byte>(value >> 8);
}

struct SentPacket {
  double time = 0.0;         // when send_packet ran
  uint32_t wire_bytes = 0;   // every datagram of the packet, plus packet_header_size each
  uint64_t judge_index = 0;  // position in the loss ring when judged
  bool acked = false;
  bool judged = false;  // counted in the loss window (as lost or received)
  bool judged_lost = false;
};

// The acknowledgment part of a received packet's header: the fields fragment 0 embeds for a fragmented
// packet, so one type serves both paths.
using AckInfo = EmbeddedAck;

// A header's acknowledgment part (PacketHeader without the sequence).
inline AckInfo ack_info_of(const PacketHeader& header) {
  return AckInfo{header.ack, header.ack_bits, header.has_ack_delay, header.ack_delay_offset, header.ack_delay};
}

struct ReceivedPacket {
  uint8_t unused = 0;  // the tag alone records the sequence
};

}  // namespace bitwire::endpoint_detail

namespace bitwire {

using endpoint_detail::ack_info_of;
using endpoint_detail::AckInfo;
using endpoint_detail::ReceivedPacket;
using endpoint_detail::SentPacket;

struct Endpoint::State {
  EndpointConfig config;
  char name[kEndpointNameBytes] = {};          // config.name points here
  char error_reason[kConfigReasonBytes] = {};  // empty unless failed
  bool failed = false;
  EndpointCallbacks callbacks;
  Envelope envelope;
  size_t envelope_bytes = 0;
  bool ack_delay_on = false;  // packets carry (and must carry) the ack delay extension
  size_t max_header = 0;      // kMaxPacketHeaderBytes, + kAckDelayBytes when ack_delay_on
  size_t max_datagram = 0;
  double time = 0.0;
  double previous_time = 0.0;  // the time before the last update() that moved it (at first, the start)
  double receive_time = 0.0;   // arrival time of the datagram being received (<= time)

  // Sending.
  uint16_t sequence = 0;
  SequenceBuffer<SentPacket> sent;
  std::unique_ptr<std::byte[]> transmit;
  size_t transmit_capacity = 0;

  // Receiving.
  SequenceBuffer<ReceivedPacket> received;
  uint16_t ack = 0xFFFF;  // newest received (65535 before anything, as reliable 1.0 does)
  uint32_t ack_bits = 0;

  // The received packet the next ack delay report times: one chosen uniformly among the packets accepted
  // since the last send (reservoir sampling), so that which packet is timed does not depend on its
  // latency (the newest or the first arrival would favour fast packets and read the RTT low).
  bool has_report = false;
  uint16_t report_sequence = 0;
  double report_arrival = 0.0;
  uint32_t report_candidates = 0;
  Random report_random;
  Reassembler reassembly;
  // The newest sequence accepted: new sequences are measured from here. 65535 on a fresh session (the
  // peer's first packet is expected at 0, as reliable 1.0's ack starts); moved by every newer packet
  // delivered and by a resync.
  uint16_t horizon = 0xFFFF;
  // Resync: datagrams out of range (too far ahead, or behind the received window) that follow one
  // another in increasing sequence order, with no datagram accepted in range in between.
  int resync_count = 0;
  uint16_t resync_newest = 0;
  // After a backward resync the received window restarts empty: sequences not newer than resync_floor
  // may have been delivered before it and are refused until the window has moved a whole capacity past.
  bool has_resync_floor = false;
  uint16_t resync_floor = 0;
  int fragment_margin = 1;  // how far after the newest received a fragment may be (see the constructor)
  bool deferred = false;    // the process callback running now called defer_packet()

  // Acks.
  std::unique_ptr<uint16_t[]> acks;
  size_t num_acks = 0;
  bool has_processed_ack = false;  // the peer acks already looked at: ack_bits relative to processed_ack
  uint16_t processed_ack = 0;
  uint32_t processed_ack_bits = 0;
  uint64_t processed_at_send = 0;  // packets_sent when the processed window was last updated

  // A peer that never sends the ack delay extension while this end does (acks_without_ack_delay).
  bool peer_sent_ack_delay = false;  // an extension arrived since the last reset

  RttEstimator rtt;
  // How long acks take to come back: (time the first ack was seen - sent), the peer's hold and lost acks
  // included. Not the RTT; it sets the age at which an unacked packet is judged lost.
  RttEstimator ack_wait;

  // Loss: each sent packet is judged once, in sequence order, when old enough or about to be evicted.
  uint16_t judge_cursor = 0;  // oldest sent sequence not yet judged

  // In flight, by send index (packets_sent when sent): the oldest packet neither acked nor more than 31
  // before the newest ack the peer reported. No later packet of the peer can report those (its ack only
  // moves forward and its ack_bits reach 31 back); a delayed earlier one still may.
  uint64_t flight_floor = 0;
  LossWindow loss;

  BandwidthMeter sent_meter, received_meter, acked_meter;

  EndpointCounters counters;

  // ---- Construction and reset (endpoint.cpp) ----

  State(const EndpointConfig& c, const EndpointCallbacks& cb, double now);

  static bool ack_delay_enabled(const EndpointConfig& c) {
    return c.ack_delay == AckDelayMode::kOn || (c.ack_delay == AckDelayMode::kWithEnvelope && c.envelope);
  }
  static size_t header_capacity(const EndpointConfig& c) {
    return kMaxPacketHeaderBytes + (ack_delay_enabled(c) ? kAckDelayBytes : 0);
  }
  static size_t memory_required(const EndpointConfig& c);

  template <typename T>
  static size_t buffer_bytes(int capacity) {
    size_t rounded = 1;
    while (rounded < static_cast<size_t>(capacity)) rounded <<= 1;
    return rounded * (sizeof(uint32_t) + sizeof(T));
  }

  void reset();
  void update_statistics();

  // ---- Loss and acks (endpoint_acks.cpp) ----

  double judging_age() const;
  void judge(SentPacket& packet);
  void judge_before_send();
  void judge_old_packets();
  void sample_reported_delay(const AckInfo& info);
  void unusable_delay(const char* why, uint16_t timed);
  void offer_report(uint16_t packet_sequence);
  void on_acked(uint16_t sequence_acked, SentPacket& packet);
  void process_acks(const AckInfo& info);
  void note_ack_without_delay();
  // RTT samples from plain acks: with the extension off, or with a peer that has shown it never sends it.
  bool plain_rtt_samples() const {
    return !ack_delay_on || (!peer_sent_ack_delay && counters.acks_without_ack_delay >=
                                                         static_cast<uint64_t>(kAckDelayMismatchPackets));
  }
  void advance_flight_floor();

  // The send index of the oldest packet whose record the sent buffer still holds.
  uint64_t oldest_recorded() const {
    const uint64_t capacity = sent.capacity();
    return counters.packets_sent > capacity ? counters.packets_sent - capacity : 0;
  }

  // ---- Sequence range and resync (endpoint_receive.cpp) ----

  // Where a received sequence falls: in range (it may move the window), too far ahead of the newest
  // received, or behind the received window.
  enum class Range : uint8_t { kInRange, kAhead, kBehind };

  Range classify(uint16_t packet_sequence, int limit) const;
  bool resync_observe(uint16_t packet_sequence);
  bool acks_something_new(uint16_t peer_ack) const;
  void resync(uint16_t packet_sequence, Range range);

  // ---- Receive (endpoint_receive.cpp; fragments in endpoint_fragment.cpp) ----

  ReceiveResult drop(ReceiveResult result, uint64_t& counter, const char* detail);
  ReceiveResult process_packet(uint16_t packet_sequence, const AckInfo& info,
                               std::span<const std::byte> payload, uint32_t wire_bytes);
  ReceiveResult defer(uint16_t packet_sequence, const AckInfo& info);
  ReceiveResult receive(std::span<const std::byte> datagram, double arrival);
  ReceiveResult receive_fragment(std::span<const std::byte> fragment, uint32_t wire_bytes);

  // ---- Send (endpoint_send.cpp) ----

  void transmit_datagram(uint16_t packet_sequence, size_t packet_size, uint32_t& wire_bytes);
  bool send(std::span<const std::byte> payload);
};

}  // namespace bitwire
