// Endpoint, loss and acks: judging sent packets lost or received, the peer's acks, RTT samples (the ack
// delay extension's reports included) and the in-flight accounting.
#include "endpoint_internal.hpp"

#include <algorithm>
#include <bit>

#include "bitwire/core/log.hpp"

namespace bitwire {

using namespace endpoint_detail;

double Endpoint::State::judging_age() const {
  if (!ack_wait.has_sample()) {
    return std::max(config.packet_loss_min_age, config.packet_loss_unknown_rtt_age);
  }
  return std::max(config.packet_loss_min_age,
                  (ack_wait.smoothed_ms() + 4.0 * ack_wait.jitter_ms()) * 1.25 / 1000.0);
}

void Endpoint::State::judge_old_packets() {
  sent.judge_old(time, judging_age(), loss);
}

// RTT samples. Without the ack delay extension every newly acked packet gives (arrival - sent), which
// includes the time the ack waited at the peer for its next send. With it, each received report gives
// one exact sample, (arrival - sent) - the delay the peer reports, for the packet it names (acked now
// or earlier), and acks give none.
void Endpoint::State::sample_reported_delay(const AckInfo& info) {
  const uint16_t timed = static_cast<uint16_t>(info.ack - info.ack_delay_offset);
  const SendWindow::Record* packet = sent.find(timed);
  if (packet == nullptr) {
    unusable_delay("the packet it names is not in the sent window", timed);
    return;
  }
  const double delay = ack_delay_ms(info.ack_delay);
  double sample = (receive_time - packet->time) * 1000.0 - delay;
  if (sample < 0.0) {
    // Within the code's rounding (half a step) the sample is just short: read it as 0.
    if (sample < -0.5 * ack_delay_step_ms(info.ack_delay)) {
      unusable_delay("the delay exceeds the time since the packet was sent", timed);
      return;
    }
    sample = 0.0;
  }
  rtt.add_sample(sample);
}

void Endpoint::State::unusable_delay(const char* why, uint16_t timed) {
  ++counters.ack_delays_unusable;
  BITWIRE_LOG(LogLevel::kDebug, "[%s] no RTT sample from the ack delay of packet %u: %s", config.name,
              static_cast<unsigned>(timed), why);
}

// Offers an accepted packet to the next report.
void Endpoint::State::offer_report(uint16_t packet_sequence) {
  report.offer(packet_sequence, receive_time);
}

void Endpoint::State::on_acked(uint16_t sequence_acked, SendWindow::Record& packet) {
  SendWindow::mark_acked(packet, loss);
  ++counters.packets_acked;
  if (!acks.push(sequence_acked)) ++counters.acks_overflowed;
  acked_meter.add(packet.wire_bytes);
  ack_wait.add_sample((time - packet.time) * 1000.0);
  if (plain_rtt_samples()) rtt.add_sample((receive_time - packet.time) * 1000.0);
  if (callbacks.on_ack != nullptr) callbacks.on_ack(callbacks.context, sequence_acked);
}

void Endpoint::State::process_acks(const AckInfo& info) {
  const uint16_t peer_ack = info.ack;
  const uint32_t peer_ack_bits = info.ack_bits;
  if (sent.is_ahead(peer_ack)) {
    // Acks for packets never sent (or sent more than 32768 packets ago): none can be trusted.
    ++counters.acks_ahead;
    BITWIRE_LOG(LogLevel::kDebug, "[%s] ignoring acks: ack %u is ahead of the last sent sequence %u",
                config.name, static_cast<unsigned>(peer_ack), static_cast<unsigned>(sent.last_sent()));
    return;
  }
  // The peer reports nothing more than 31 before its newest ack again.
  sent.peer_reported(peer_ack);
  // Bits already processed under an earlier ack need no second look.
  uint32_t bits = acks.unseen(peer_ack, peer_ack_bits, sent.packets_sent());
  if (info.has_ack_delay) peer_sent_ack_delay = true;
  const uint64_t acked_before = counters.packets_acked;
  // Oldest first: highest bit first.
  while (bits != 0) {
    const int n = 31 - std::countl_zero(bits);
    bits &= ~(1u << n);
    const uint16_t acked = static_cast<uint16_t>(peer_ack - n);
    SendWindow::Record* packet = sent.find(acked);
    if (packet != nullptr && !packet->acked) on_acked(acked, *packet);
  }
  sent.advance_flight_floor();
  if (info.has_ack_delay) sample_reported_delay(info);
  if (ack_delay_on && !peer_sent_ack_delay && counters.packets_acked != acked_before)
    note_ack_without_delay();
}

// A peer packet that acked packets of ours without the extension, and none has ever come. A genuine peer
// sends its report with the first packet after receiving ours, so this is a lost packet of its own -- or a
// peer that runs without the extension and reads ours as payload (reliable.c ignores prefix bit 6): every
// packet of ours it acks was then misread, and nothing else on either side says so.
void Endpoint::State::note_ack_without_delay() {
  ++counters.acks_without_ack_delay;
  if (counters.acks_without_ack_delay != static_cast<uint64_t>(kAckDelayMismatchPackets)) return;
  BITWIRE_LOG(LogLevel::kError,
              "[%s] the peer acked our packets in %d of its packets without ever sending the ack delay "
              "extension, which ours carry: it runs without it (raw reliable 1.0, yojimbo, ack_delay = kOff) "
              "and may read it as payload. Set ack_delay = kOff on both ends for such a peer "
              "(docs/interop.md); RTT now comes from plain acks",
              config.name, kAckDelayMismatchPackets);
}

}  // namespace bitwire
