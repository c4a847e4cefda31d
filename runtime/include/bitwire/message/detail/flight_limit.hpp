// FlightLimit: when a Connection may send a packet, so that no packet overwrites a sent-packet record an
// ack still needs (docs/channels.md, the in-flight limit).
//
//   bitwire::FlightLimit limit(ack_records);             // the smallest sent-packet record buffer
//   switch (limit.first_packet(in_flight, now, rtt_ms)) { // the first packet of a send_packets() call
//     case FlightLimit::kSend: case FlightLimit::kProbe: send, then limit.sent(now); break;
//     case FlightLimit::kHold: wait;
//   }
//   if (limit.extra_allowed(in_flight)) ...               // each further packet of the call
//
// Contracts:
// - max_packets_in_flight() is 3/4 of ack_records() (at least 1): the quarter left over absorbs the peer's
//   delayed packets, whose acks reach below its newest ack window, and the first packets of the updates a
//   round trip spans. A further packet of a call is allowed below it.
// - The first packet of a call is sent while fewer than ack_records() packets are in flight; with every
//   record in flight it is held, except one probe per probe_interval() since the last packet sent (and at
//   once when nothing was sent since construction or reset): when both ends have every record in flight
//   (after an outage), only a packet that reaches the peer makes the acks, and both windows, move again.
// - probe_interval(rtt_ms) is half the smoothed RTT, within [0.1, 1] seconds.
// - No memory beyond the object; nothing allocates.
#pragma once

#include <algorithm>
#include <cstdint>

namespace bitwire {

class FlightLimit {
 public:
  enum Decision : uint8_t { kSend, kProbe, kHold };

  explicit FlightLimit(int ack_records = 1)
      : ack_records_(ack_records), max_packets_in_flight_(std::max(1, ack_records - ack_records / 4)) {}

  Decision first_packet(int in_flight, double now, double rtt_ms) const {
    if (in_flight < ack_records_) return kSend;
    return has_sent_ && now - last_sent_ < probe_interval(rtt_ms) ? kHold : kProbe;
  }
  bool extra_allowed(int in_flight) const { return in_flight < max_packets_in_flight_; }

  // A packet left at `now`.
  void sent(double now) {
    last_sent_ = now;
    has_sent_ = true;
  }
  // Back to nothing sent.
  void reset() { has_sent_ = false; }

  int ack_records() const { return ack_records_; }
  int max_packets_in_flight() const { return max_packets_in_flight_; }
  static double probe_interval(double rtt_ms) { return std::clamp(rtt_ms / 2000.0, 0.1, 1.0); }

 private:
  int ack_records_;
  int max_packets_in_flight_;
  double last_sent_ = 0.0;  // when a packet last left
  bool has_sent_ = false;
};

}  // namespace bitwire
