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

void Endpoint::State::judge(SentPacket& packet) {
  packet.judge_index = loss.judge(!packet.acked);
  packet.judged = true;
  packet.judged_lost = !packet.acked;
}

// Judges the packets the next insert would evict (a packet whose ack can no longer be reported is lost).
void Endpoint::State::judge_before_send() {
  const uint32_t capacity = static_cast<uint32_t>(sent.capacity());
  while (static_cast<uint16_t>(sequence - judge_cursor) >= capacity) {
    if (SentPacket* packet = sent.find(judge_cursor); packet != nullptr && !packet->judged) judge(*packet);
    ++judge_cursor;
  }
}

void Endpoint::State::judge_old_packets() {
  const double age = judging_age();
  while (judge_cursor != sequence) {
    SentPacket* packet = sent.find(judge_cursor);
    if (packet != nullptr) {
      if (time - packet->time < age) break;
      if (!packet->judged) judge(*packet);
    }
    ++judge_cursor;
  }
}

// RTT samples. Without the ack delay extension every newly acked packet gives (arrival - sent), which
// includes the time the ack waited at the peer for its next send. With it, each received report gives
// one exact sample, (arrival - sent) - the delay the peer reports, for the packet it names (acked now
// or earlier), and acks give none.
void Endpoint::State::sample_reported_delay(const AckInfo& info) {
  const uint16_t timed = static_cast<uint16_t>(info.ack - info.ack_delay_offset);
  const SentPacket* packet = sent.find(timed);
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

// Offers an accepted packet to the next report (reservoir sampling over the packets since the last send).
void Endpoint::State::offer_report(uint16_t packet_sequence) {
  ++report_candidates;
  if (report_candidates == 1 || report_random.next() % report_candidates == 0) {
    has_report = true;
    report_sequence = packet_sequence;
    report_arrival = receive_time;
  }
}

void Endpoint::State::on_acked(uint16_t sequence_acked, SentPacket& packet) {
  packet.acked = true;
  ++counters.packets_acked;
  if (num_acks < static_cast<size_t>(config.ack_buffer_size)) {
    acks[num_acks++] = sequence_acked;
  } else {
    ++counters.acks_overflowed;
  }
  acked_meter.add(packet.wire_bytes);
  if (packet.judged_lost) {
    // A late ack: take the packet back out of the lost count while it is still in the window.
    packet.judged_lost = false;
    loss.take_back(packet.judge_index);
  }
  ack_wait.add_sample((time - packet.time) * 1000.0);
  if (plain_rtt_samples()) rtt.add_sample((receive_time - packet.time) * 1000.0);
  if (callbacks.on_ack != nullptr) callbacks.on_ack(callbacks.context, sequence_acked);
}

void Endpoint::State::process_acks(const AckInfo& info) {
  const uint16_t peer_ack = info.ack;
  const uint32_t peer_ack_bits = info.ack_bits;
  const uint16_t last_sent = static_cast<uint16_t>(sequence - 1);
  if (sequence_greater_than(peer_ack, last_sent)) {
    // Acks for packets never sent (or sent more than 32768 packets ago): none can be trusted.
    ++counters.acks_ahead;
    BITWIRE_LOG(LogLevel::kDebug, "[%s] ignoring acks: ack %u is ahead of the last sent sequence %u",
                config.name, static_cast<unsigned>(peer_ack), static_cast<unsigned>(last_sent));
    return;
  }
  // The peer reports nothing more than 31 before its newest ack again.
  const auto behind = static_cast<uint16_t>(last_sent - peer_ack);
  if (behind < counters.packets_sent) {
    const uint64_t ack_index = counters.packets_sent - 1 - behind;
    if (ack_index >= 31) flight_floor = std::max(flight_floor, ack_index - 31);
  }
  // Bits already processed under an earlier ack need no second look: such a sequence was either acked
  // then, or had already left the sent window for good. Track the processed set relative to the newest
  // ack seen; an older ack (reordering) is processed in full.
  uint32_t bits = peer_ack_bits;
  // After 32768 sends the sequence numbers in that window may name new packets: forget it.
  if (has_processed_ack && counters.packets_sent - processed_at_send >= 32768) has_processed_ack = false;
  if (has_processed_ack) {
    const int advance = sequence_difference(peer_ack, processed_ack);
    if (advance >= 0) {
      const uint32_t known = advance >= 32 ? 0u : processed_ack_bits << advance;
      bits &= ~known;
      processed_ack = peer_ack;
      processed_ack_bits = known | peer_ack_bits;
      processed_at_send = counters.packets_sent;
    }
  } else {
    has_processed_ack = true;
    processed_ack = peer_ack;
    processed_ack_bits = peer_ack_bits;
    processed_at_send = counters.packets_sent;
  }
  if (info.has_ack_delay) peer_sent_ack_delay = true;
  const uint64_t acked_before = counters.packets_acked;
  // Oldest first: highest bit first.
  while (bits != 0) {
    const int n = 31 - std::countl_zero(bits);
    bits &= ~(1u << n);
    const uint16_t acked = static_cast<uint16_t>(peer_ack - n);
    SentPacket* packet = sent.find(acked);
    if (packet != nullptr && !packet->acked) on_acked(acked, *packet);
  }
  advance_flight_floor();
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
  BITWIRE_LOG(LogLevel::kWarning,
              "[%s] the peer acked our packets in %d of its packets without ever sending the ack delay "
              "extension, which ours carry: it runs without it (raw reliable 1.0, yojimbo, ack_delay = kOff) "
              "and may read it as payload. Set ack_delay = kOff on both ends for such a peer "
              "(docs/interop.md); RTT now comes from plain acks",
              config.name, kAckDelayMismatchPackets);
}

// Past acked packets and records already overwritten: amortized O(1) per packet sent.
void Endpoint::State::advance_flight_floor() {
  flight_floor = std::max(flight_floor, oldest_recorded());
  while (flight_floor < counters.packets_sent) {
    const auto packet_sequence = static_cast<uint16_t>(sequence - (counters.packets_sent - flight_floor));
    const SentPacket* packet = sent.find(packet_sequence);
    if (packet != nullptr && !packet->acked) break;
    ++flight_floor;
  }
}

}  // namespace bitwire
