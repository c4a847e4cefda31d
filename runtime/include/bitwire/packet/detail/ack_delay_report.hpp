// AckDelayReport: which received packet the next ack delay extension times, and for how long it waited
// (docs/packets.md section 1.5).
//
//   bitwire::AckDelayReport report;
//   report.offer(sequence, arrival);     // each packet accepted
//   report.take(header, now);            // each packet sent: fills the extension fields, or leaves them out
//
// Contracts:
// - The packet timed is chosen uniformly among those offered since the last take() (reservoir sampling),
//   so which one is timed does not depend on its latency: the newest or the first arrival would favour
//   fast packets and read the RTT low. The choice is reproducible: the generator restarts from a fixed
//   seed at construction and reset().
// - take() writes has_ack_delay, ack_delay_offset = header.ack - the packet's sequence and ack_delay =
//   ack_delay_code(now - arrival, in ms), unless the offset is above 255 or the wait does not fit the
//   code; either way the choice is forgotten: each packet is reported once at most.
// - No memory beyond the object; nothing allocates.
#pragma once

#include <cstdint>

#include "bitwire/core/random.hpp"
#include "bitwire/packet/endpoint.hpp"

namespace bitwire {

class AckDelayReport {
 public:
  AckDelayReport() { reset(); }

  void reset();
  void offer(uint16_t sequence, double arrival);
  void take(PacketHeader& header, double now);

  bool has_report() const { return has_report_; }
  uint16_t sequence() const { return sequence_; }  // the packet chosen, when has_report()

 private:
  Random random_;
  double arrival_ = 0.0;
  uint32_t candidates_ = 0;  // offered since the last take()
  uint16_t sequence_ = 0;
  bool has_report_ = false;
};

}  // namespace bitwire
