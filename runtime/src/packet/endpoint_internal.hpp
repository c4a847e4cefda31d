// Private to the endpoint sources (endpoint*.cpp): the reliable 1.0 prefix bits, byte access, and the
// endpoint's state, whose methods are defined by concept across endpoint.cpp (construction, reset, the
// public API), endpoint_send.cpp, endpoint_receive.cpp, endpoint_fragment.cpp and endpoint_acks.cpp. The
// state is assembled from parts that each keep their own contract and tests (bitwire/packet/detail/):
// SendWindow (sequences, sent records, loss judging, in flight), ReceiveWindow (received sequences, ack
// state, range and resync), AckTracker (the peer's acks), AckDelayReport and the estimators; the state
// joins them and owns the config, the callbacks, the time, the envelope and the counters.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "bitwire/packet/detail/ack_delay_report.hpp"
#include "bitwire/packet/detail/ack_tracker.hpp"
#include "bitwire/packet/detail/bandwidth_meter.hpp"
#include "bitwire/packet/detail/loss_window.hpp"
#include "bitwire/packet/detail/receive_window.hpp"
#include "bitwire/packet/detail/rtt_estimator.hpp"
#include "bitwire/packet/detail/send_window.hpp"
#include "bitwire/packet/endpoint.hpp"
#include "bitwire/packet/envelope.hpp"
#include "bitwire/packet/reassembler.hpp"
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

// The acknowledgment part of a received packet's header: the fields fragment 0 embeds for a fragmented
// packet, so one type serves both paths.
using AckInfo = EmbeddedAck;

// A header's acknowledgment part (PacketHeader without the sequence).
inline AckInfo ack_info_of(const PacketHeader& header) {
  return AckInfo{header.ack, header.ack_bits, header.has_ack_delay, header.ack_delay_offset, header.ack_delay};
}

}  // namespace bitwire::endpoint_detail

namespace bitwire {

using endpoint_detail::ack_info_of;
using endpoint_detail::AckInfo;

struct Endpoint::State {
  // What a tick and a packet read come first, in declaration order (config, timing, the windows, the
  // estimators, the counters); the reassembler (used only by fragments) and the name and reason texts
  // follow, so the hot part spans fewer cache lines.
  EndpointConfig config;
  EndpointCallbacks callbacks;
  Envelope envelope;
  size_t envelope_bytes = 0;
  bool failed = false;
  bool ack_delay_on = false;  // packets carry (and must carry) the ack delay extension
  size_t max_header = 0;      // kMaxPacketHeaderBytes, + kAckDelayBytes when ack_delay_on
  size_t max_datagram = 0;
  double time = 0.0;
  double previous_time = 0.0;  // the time before the last update() that moved it (at first, the start)
  double receive_time = 0.0;   // arrival time of the datagram being received (<= time)

  // Sending.
  SendWindow sent;
  std::unique_ptr<std::byte[]> transmit;
  size_t transmit_capacity = 0;
  std::byte* shared_room = nullptr;  // share_send_room(): send_room()'s buffer instead of transmit

  // Receiving.
  ReceiveWindow received;
  AckDelayReport report;    // what the next ack delay extension times (when ack_delay_on)
  int fragment_margin = 1;  // how far after the newest received a fragment may be (see the constructor)
  bool deferred = false;    // the process callback running now called defer_packet()

  // The peer's acks.
  AckTracker acks;

  // A peer that never sends the ack delay extension while this end does (acks_without_ack_delay).
  bool peer_sent_ack_delay = false;  // an extension arrived since the last reset

  // Estimators.
  RttEstimator rtt;
  // How long acks take to come back: (time the first ack was seen - sent), the peer's hold and lost acks
  // included. Not the RTT; it sets the age at which an unacked packet is judged lost.
  RttEstimator ack_wait;
  LossWindow loss;
  BandwidthMeter sent_meter, received_meter, acked_meter;

  EndpointCounters counters;

  // Cold: fragments only, and texts.
  Reassembler reassembly;
  char name[kEndpointNameBytes] = {};          // config.name points here
  char error_reason[kConfigReasonBytes] = {};  // empty unless failed

  // ---- Construction and reset (endpoint.cpp) ----

  State(const EndpointConfig& c, const EndpointCallbacks& cb, double now);

  static bool ack_delay_enabled(const EndpointConfig& c) {
    return c.ack_delay == AckDelayMode::kOn || (c.ack_delay == AckDelayMode::kWithEnvelope && c.envelope);
  }
  static size_t header_capacity(const EndpointConfig& c) {
    return kMaxPacketHeaderBytes + (ack_delay_enabled(c) ? kAckDelayBytes : 0);
  }
  static size_t memory_required(const EndpointConfig& c);

  void reset();
  void update_statistics();

  // ---- Loss and acks (endpoint_acks.cpp) ----

  double judging_age() const;
  void judge_old_packets();
  void sample_reported_delay(const AckInfo& info);
  void unusable_delay(const char* why, uint16_t timed);
  void offer_report(uint16_t packet_sequence);
  void on_acked(uint16_t sequence_acked, SendWindow::Record& packet);
  void process_acks(const AckInfo& info);
  void note_ack_without_delay();
  // RTT samples from plain acks: with the extension off, or with a peer that has shown it never sends it.
  bool plain_rtt_samples() const {
    return !ack_delay_on || (!peer_sent_ack_delay && counters.acks_without_ack_delay >=
                                                         static_cast<uint64_t>(kAckDelayMismatchPackets));
  }

  // ---- Sequence range and resync (endpoint_receive.cpp) ----

  using Range = ReceiveWindow::Range;

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

  // Seals the packet at `packet` (inside `transmit`; at its start when the envelope is on) and transmits it.
  void transmit_datagram(uint16_t packet_sequence, std::byte* packet, size_t packet_size,
                         uint32_t& wire_bytes);
  bool send(std::span<const std::byte> payload);
  // Where send_written() finds its payload: after the largest header, when the envelope is off; empty
  // otherwise (the envelope's prefix must sit right before the header).
  std::span<std::byte> send_room();
  bool send_written(size_t size);
  // The checks and the sent record every send starts with; nullptr when the payload is too large.
  SendWindow::Record* begin_send(size_t size, PacketHeader& header);
  void end_send(SendWindow::Record& record, uint32_t wire_bytes);
};

}  // namespace bitwire
