// Endpoint: send path (header, fragmentation, transmit), receive path (envelope, header / fragment
// validation, reassembly, duplicate and stale detection, acks) and the statistics.
#include "bitwire/endpoint.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "bitwire/bandwidth_meter.hpp"
#include "bitwire/log.hpp"
#include "bitwire/reassembler.hpp"
#include "bitwire/loss_window.hpp"
#include "bitwire/random.hpp"
#include "bitwire/rtt_estimator.hpp"
#include "endpoint_internal.hpp"

namespace bitwire {

using namespace endpoint_detail;

// ---- State --------------------------------------------------------------------------------------------

namespace {

// Seed of the generator that picks which received packet an ack delay report times. Any value works; a
// fixed one keeps runs reproducible.
constexpr uint64_t kReportSeed = 0x41636b44656c6179ull;

struct SentPacket {
  double time = 0.0;         // when send_packet ran
  uint32_t wire_bytes = 0;   // every datagram of the packet, plus packet_header_size each
  uint64_t judge_index = 0;  // position in the loss ring when judged
  bool acked = false;
  bool judged = false;  // counted in the loss window (as lost or received)
  bool judged_lost = false;
};

// The acknowledgment part of a received packet's header.
struct AckInfo {
  uint16_t ack = 0;
  uint32_t ack_bits = 0;
  bool has_delay = false;    // the ack delay extension was present
  uint8_t delay_offset = 0;  // it times packet ack - delay_offset
  uint8_t delay = 0;         // its code (ack_delay_ms)
};

struct ReceivedPacket {
  uint8_t unused = 0;  // the tag alone records the sequence
};

}  // namespace

ReassemblerConfig endpoint_reassembler_config(const EndpointConfig& c) {
  return ReassemblerConfig{c.fragment_reassembly_buffer_size, c.reassembly_slots, c.max_fragments,
                           c.fragment_size};
}

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
  double receive_time = 0.0;  // arrival time of the datagram being received (<= time)

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

  State(const EndpointConfig& c, const EndpointCallbacks& cb, double now)
      : config(c),
        callbacks(cb),
        envelope(c.protocol_id),
        time(now),
        sent(static_cast<size_t>(c.sent_packets_buffer_size)),
        received(static_cast<size_t>(c.received_packets_buffer_size)),
        reassembly(endpoint_reassembler_config(c)),
        rtt(static_cast<size_t>(c.rtt_history_size), c.rtt_smoothing_factor, c.jitter_smoothing_factor),
        ack_wait(0, c.rtt_smoothing_factor, c.jitter_smoothing_factor),
        loss(static_cast<size_t>(c.packet_loss_window)),
        sent_meter(c.bandwidth_sample_interval, c.bandwidth_smoothing_factor, now),
        received_meter(c.bandwidth_sample_interval, c.bandwidth_smoothing_factor, now),
        acked_meter(c.bandwidth_sample_interval, c.bandwidth_smoothing_factor, now) {
    // Truncated at a byte boundary; a cut UTF-8 sequence in a log label is harmless.
    std::strncpy(name, c.name != nullptr ? c.name : "endpoint", kEndpointNameBytes - 1);
    config.name = name;
    envelope_bytes = c.envelope ? Envelope::kBytes : 0;
    // Half the reassembly window may lie ahead of the newest received packet, so a fragment can never
    // push the window past packets the peer is still completing; never more than max_sequence_jump.
    const unsigned window = std::bit_ceil(static_cast<unsigned>(c.fragment_reassembly_buffer_size));
    fragment_margin = std::clamp(static_cast<int>(window / 2), 1, c.max_sequence_jump);
    ack_delay_on = ack_delay_enabled(c);
    max_header = header_capacity(c);
    const size_t regular = max_header + static_cast<size_t>(c.fragment_above);
    const size_t fragment = kFragmentHeaderBytes + max_header + static_cast<size_t>(c.fragment_size);
    transmit_capacity = envelope_bytes + std::max(regular, fragment);
    transmit.reset(new std::byte[transmit_capacity]);
    max_datagram = envelope_bytes + std::max(max_header + static_cast<size_t>(c.max_packet_size), fragment);
    acks.reset(new uint16_t[static_cast<size_t>(c.ack_buffer_size)]);
    reset();
  }

  static bool ack_delay_enabled(const EndpointConfig& c) {
    return c.ack_delay == AckDelayMode::kOn || (c.ack_delay == AckDelayMode::kWithEnvelope && c.envelope);
  }
  static size_t header_capacity(const EndpointConfig& c) {
    return kMaxPacketHeaderBytes + (ack_delay_enabled(c) ? kAckDelayBytes : 0);
  }

  static size_t memory_required(const EndpointConfig& c) {
    // Keep in step with the constructor: every allocation it makes is counted here.
    const size_t envelope = c.envelope ? Envelope::kBytes : 0;
    const size_t header = header_capacity(c);
    const size_t regular = header + static_cast<size_t>(c.fragment_above);
    const size_t fragment = kFragmentHeaderBytes + header + static_cast<size_t>(c.fragment_size);
    return sizeof(State) + buffer_bytes<SentPacket>(c.sent_packets_buffer_size) +
           buffer_bytes<ReceivedPacket>(c.received_packets_buffer_size) +
           Reassembler::memory_required(endpoint_reassembler_config(c)) + envelope + std::max(regular, fragment) +
           static_cast<size_t>(c.ack_buffer_size) * sizeof(uint16_t) +
           RttEstimator::memory_required(static_cast<size_t>(c.rtt_history_size)) +
           LossWindow::memory_required(static_cast<size_t>(c.packet_loss_window));
  }

  template <typename T>
  static size_t buffer_bytes(int capacity) {
    size_t rounded = 1;
    while (rounded < static_cast<size_t>(capacity)) rounded <<= 1;
    return rounded * (sizeof(uint32_t) + sizeof(T));
  }

  void reset() {
    sequence = 0;
    sent.reset();
    received.reset();
    ack = 0xFFFF;
    ack_bits = 0;
    has_report = false;
    report_sequence = 0;
    report_arrival = 0.0;
    report_candidates = 0;
    report_random.reseed(kReportSeed);
    reassembly.reset();
    horizon = 0xFFFF;
    resync_count = 0;
    has_resync_floor = false;
    num_acks = 0;
    has_processed_ack = false;
    processed_ack = 0;
    processed_ack_bits = 0;
    processed_at_send = 0;
    rtt.reset();
    ack_wait.reset();
    judge_cursor = 0;
    flight_floor = 0;
    loss.reset();
    sent_meter.reset(time);
    received_meter.reset(time);
    acked_meter.reset(time);
    counters = EndpointCounters{};
  }

  // ---- Loss ----

  double judging_age() const {
    if (!ack_wait.has_sample()) {
      return std::max(config.packet_loss_min_age, config.packet_loss_unknown_rtt_age);
    }
    return std::max(config.packet_loss_min_age,
                    (ack_wait.smoothed_ms() + 4.0 * ack_wait.jitter_ms()) * 1.25 / 1000.0);
  }

  void judge(SentPacket& packet) {
    packet.judge_index = loss.judge(!packet.acked);
    packet.judged = true;
    packet.judged_lost = !packet.acked;
  }

  // Judges the packets the next insert would evict (a packet whose ack can no longer be reported is lost).
  void judge_before_send() {
    const uint32_t capacity = static_cast<uint32_t>(sent.capacity());
    while (static_cast<uint16_t>(sequence - judge_cursor) >= capacity) {
      if (SentPacket* packet = sent.find(judge_cursor); packet != nullptr && !packet->judged) judge(*packet);
      ++judge_cursor;
    }
  }

  void judge_old_packets() {
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

  // ---- Acks ----

  // RTT samples. Without the ack delay extension every newly acked packet gives (arrival - sent), which
  // includes the time the ack waited at the peer for its next send. With it, each received report gives
  // one exact sample, (arrival - sent) - the delay the peer reports, for the packet it names (acked now
  // or earlier), and acks give none.
  void sample_reported_delay(const AckInfo& info) {
    const uint16_t timed = static_cast<uint16_t>(info.ack - info.delay_offset);
    const SentPacket* packet = sent.find(timed);
    if (packet == nullptr) {
      unusable_delay("the packet it names is not in the sent window", timed);
      return;
    }
    const double delay = ack_delay_ms(info.delay);
    double sample = (receive_time - packet->time) * 1000.0 - delay;
    if (sample < 0.0) {
      // Within the code's rounding (half a step) the sample is just short: read it as 0.
      if (sample < -0.5 * ack_delay_step_ms(info.delay)) {
        unusable_delay("the delay exceeds the time since the packet was sent", timed);
        return;
      }
      sample = 0.0;
    }
    rtt.add_sample(sample);
  }

  void unusable_delay(const char* why, uint16_t timed) {
    ++counters.ack_delays_unusable;
    BITWIRE_LOG(LogLevel::kDebug, "[%s] no RTT sample from the ack delay of packet %u: %s", config.name,
                static_cast<unsigned>(timed), why);
  }

  // Offers an accepted packet to the next report (reservoir sampling over the packets since the last send).
  void offer_report(uint16_t packet_sequence) {
    ++report_candidates;
    if (report_candidates == 1 || report_random.next() % report_candidates == 0) {
      has_report = true;
      report_sequence = packet_sequence;
      report_arrival = receive_time;
    }
  }

  void on_acked(uint16_t sequence_acked, SentPacket& packet) {
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
    if (!ack_delay_on) rtt.add_sample((receive_time - packet.time) * 1000.0);
    if (callbacks.on_ack != nullptr) callbacks.on_ack(callbacks.context, sequence_acked);
  }

  void process_acks(const AckInfo& info) {
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
    // Oldest first: highest bit first.
    while (bits != 0) {
      const int n = 31 - std::countl_zero(bits);
      bits &= ~(1u << n);
      const uint16_t acked = static_cast<uint16_t>(peer_ack - n);
      SentPacket* packet = sent.find(acked);
      if (packet != nullptr && !packet->acked) on_acked(acked, *packet);
    }
    advance_flight_floor();
    if (info.has_delay) sample_reported_delay(info);
  }

  // Past acked packets and records already overwritten: amortized O(1) per packet sent.
  void advance_flight_floor() {
    flight_floor = std::max(flight_floor, oldest_recorded());
    while (flight_floor < counters.packets_sent) {
      const auto packet_sequence = static_cast<uint16_t>(sequence - (counters.packets_sent - flight_floor));
      const SentPacket* packet = sent.find(packet_sequence);
      if (packet != nullptr && !packet->acked) break;
      ++flight_floor;
    }
  }

  // The send index of the oldest packet whose record the sent buffer still holds.
  uint64_t oldest_recorded() const {
    const uint64_t capacity = sent.capacity();
    return counters.packets_sent > capacity ? counters.packets_sent - capacity : 0;
  }

  // ---- Sequence range and resync ----

  // Where a received sequence falls: in range (it may move the window), too far ahead of the newest
  // received, or behind the received window.
  enum class Range : uint8_t { kInRange, kAhead, kBehind };

  // `limit`: how far after the horizon a sequence may be (max_sequence_jump for packets, the fragment
  // margin for fragments).
  Range classify(uint16_t packet_sequence, int limit) const {
    const uint16_t steps = static_cast<uint16_t>(packet_sequence - horizon);
    if (steps != 0 && steps < 32768)
      return steps <= static_cast<uint32_t>(limit) ? Range::kInRange : Range::kAhead;
    if (has_resync_floor && !sequence_greater_than(packet_sequence, resync_floor)) return Range::kBehind;
    if (!received.has_newest()) return steps == 0 ? Range::kInRange : Range::kAhead;
    return received.can_insert(packet_sequence) ? Range::kInRange : Range::kBehind;
  }

  // Records an out-of-range sequence. Returns true when it completes a run of sequence_resync_packets
  // out-of-range sequences, each newer than the one before and at most max_sequence_jump after it, with
  // nothing accepted in range in between: the peer's sequence really moved, and the receive side follows.
  // Older sequences close to the run (reordering) and repeats (fragments of one packet) neither count nor
  // break it.
  bool resync_observe(uint16_t packet_sequence) {
    const uint32_t jump = static_cast<uint32_t>(config.max_sequence_jump);
    if (resync_count > 0) {
      const uint16_t steps = static_cast<uint16_t>(packet_sequence - resync_newest);
      if (steps == 0) return false;
      if (steps < 32768 && steps <= jump) {
        resync_newest = packet_sequence;
        return ++resync_count >= config.sequence_resync_packets;
      }
      if (steps >= 32768 && 65536u - steps <= jump) return false;
    }
    resync_newest = packet_sequence;
    resync_count = 1;
    return resync_count >= config.sequence_resync_packets;
  }

  // Evidence that a run behind the received window is the peer's current stream, not datagrams the link
  // delayed or duplicated: its completing packet acks one of this side's packets newer than every ack
  // accepted so far. A stale datagram was sent before the newest packet accepted from the peer, so its ack
  // is never newer (the peer's ack only moves forward); the genuine peer acks each packet this side sends.
  // Nothing accepted yet: no evidence is needed. An ack ahead of what this side sent is no evidence.
  bool acks_something_new(uint16_t peer_ack) const {
    if (!has_processed_ack) return true;
    return sequence_greater_than(peer_ack, processed_ack) &&
           !sequence_greater_than(peer_ack, static_cast<uint16_t>(sequence - 1));
  }

  // The receive side follows the peer to `packet_sequence`. Forward (the peer ran ahead), the windows
  // simply move on as they do for any newer packet, so everything already received stays known and
  // nothing is delivered twice. Backward (behind the received window: the peer's sequence went round,
  // or the window had been moved by forgeries), the received window, ack state and reassembly restart.
  void resync(uint16_t packet_sequence, Range range) {
    ++counters.sequence_resyncs;
    BITWIRE_LOG(LogLevel::kInfo, "[%s] peer sequence moved from %u to %u: receive window resynchronized",
                config.name, static_cast<unsigned>(horizon), static_cast<unsigned>(packet_sequence));
    if (range == Range::kBehind) {
      received.reset();
      ack = 0xFFFF;
      ack_bits = 0;
      reassembly.reset();
      horizon = static_cast<uint16_t>(packet_sequence - 1);
      has_resync_floor = true;
      resync_floor = horizon;
    } else {
      horizon = packet_sequence;
    }
    resync_count = 0;
  }

  // ---- Receive ----

  ReceiveResult drop(ReceiveResult result, uint64_t& counter, const char* detail) {
    ++counter;
    BITWIRE_LOG(LogLevel::kDebug, "[%s] dropped datagram: %s (%s)", config.name, to_string(result), detail);
    return result;
  }

  // A whole packet (regular, or reassembled) whose header is valid and whose sequence is in range.
  ReceiveResult process_packet(uint16_t packet_sequence, const AckInfo& info, std::span<const std::byte> payload,
                               uint32_t wire_bytes) {
    if (!received.can_insert(packet_sequence)) {
      return drop(ReceiveResult::kStale, counters.packets_stale, "older than the received-packets window");
    }
    if (received.exists(packet_sequence)) {
      return drop(ReceiveResult::kDuplicate, counters.packets_duplicate, "sequence already received");
    }
    deferred = false;
    if (callbacks.process == nullptr ||
        !callbacks.process(callbacks.context, packet_sequence, payload)) {
      if (deferred) return defer(packet_sequence, info);
      return drop(ReceiveResult::kRefused, counters.packets_refused, "the process callback returned false");
    }
    const bool first = !received.has_newest();
    const uint16_t previous = ack;
    received.insert(packet_sequence);
    resync_count = 0;
    if (has_resync_floor && static_cast<uint16_t>(received.newest() - resync_floor) >=
                                static_cast<uint32_t>(config.received_packets_buffer_size)) {
      has_resync_floor = false;  // the window itself now refuses everything up to the floor
    }
    if (const uint16_t steps = static_cast<uint16_t>(packet_sequence - horizon);
        steps != 0 && steps < 32768) {
      horizon = packet_sequence;
    }
    if (first) {
      ack = packet_sequence;
      ack_bits = 1;
    } else if (sequence_greater_than(packet_sequence, previous)) {
      const uint32_t shift = static_cast<uint16_t>(packet_sequence - previous);
      ack_bits = (shift >= 32 ? 0u : (ack_bits << shift)) | 1u;
      ack = packet_sequence;
    } else {
      const uint32_t back = static_cast<uint16_t>(previous - packet_sequence);
      if (back < 32) ack_bits |= 1u << back;
    }
    ++counters.packets_received;
    received_meter.add(wire_bytes);
    if (ack_delay_on) offer_report(packet_sequence);
    process_acks(info);
    return ReceiveResult::kDelivered;
  }

  // A genuine packet the receiver cannot take now (defer_packet): not recorded as received, so never acked
  // and the peer sends its content again; but its acks are processed, so that this side's own packets
  // (and whatever the receiver waits for them to free) are released even while the peer's are refused.
  ReceiveResult defer(uint16_t packet_sequence, const AckInfo& info) {
    deferred = false;
    ++counters.packets_deferred;
    BITWIRE_LOG(LogLevel::kDebug, "[%s] packet %u deferred: the receiver is busy; its acks are processed",
                config.name, static_cast<unsigned>(packet_sequence));
    resync_count = 0;
    if (const uint16_t steps = static_cast<uint16_t>(packet_sequence - horizon);
        steps != 0 && steps < 32768) {
      horizon = packet_sequence;
    }
    process_acks(info);
    return ReceiveResult::kDeferred;
  }

  ReceiveResult receive_fragment(std::span<const std::byte> fragment, uint32_t wire_bytes) {
    const std::byte* data = fragment.data();
    if (fragment.size() < kFragmentHeaderBytes) {
      return drop(ReceiveResult::kFragmentInvalid, counters.fragments_invalid, "truncated fragment header");
    }
    if (load_u8(data) != kPrefixFragment) {
      return drop(ReceiveResult::kFragmentInvalid, counters.fragments_invalid,
                  "fragment prefix byte is not exactly 1");
    }
    const uint16_t packet_sequence = load_le16(data + 1);
    const uint32_t fragment_id = load_u8(data + 3);
    const uint32_t fragment_count = static_cast<uint32_t>(load_u8(data + 4)) + 1;
    if (fragment_count > static_cast<uint32_t>(config.max_fragments)) {
      return drop(ReceiveResult::kFragmentInvalid, counters.fragments_invalid,
                  "fragment count above max_fragments");
    }
    if (fragment_id >= fragment_count) {
      return drop(ReceiveResult::kFragmentInvalid, counters.fragments_invalid,
                  "fragment id >= fragment count");
    }
    std::span<const std::byte> body = fragment.subspan(kFragmentHeaderBytes);
    PacketHeader header;
    if (fragment_id == 0) {
      const char* reason = nullptr;
      const size_t header_bytes = read_packet_header(body, header, &reason, ack_delay_on);
      if (header_bytes == 0) return drop(ReceiveResult::kFragmentInvalid, counters.fragments_invalid, reason);
      if (header.sequence != packet_sequence) {
        return drop(ReceiveResult::kFragmentInvalid, counters.fragments_invalid,
                    "embedded header sequence differs from the fragment's");
      }
      body = body.subspan(header_bytes);
    }
    const size_t fragment_size = static_cast<size_t>(config.fragment_size);
    if (body.size() > fragment_size) {
      return drop(ReceiveResult::kFragmentInvalid, counters.fragments_invalid,
                  "fragment data above fragment_size");
    }
    const bool last = fragment_id == fragment_count - 1;
    if (!last && body.size() != fragment_size) {
      return drop(ReceiveResult::kFragmentInvalid, counters.fragments_invalid,
                  "non-final fragment shorter than fragment_size");
    }
    if (last && body.empty()) {
      return drop(ReceiveResult::kFragmentInvalid, counters.fragments_invalid,
                  "final fragment carries no data");
    }
    const Range range = classify(packet_sequence, fragment_margin);
    if (range != Range::kInRange) {
      // Only fragment 0 carries an ack: another fragment never completes a backward run.
      if (!resync_observe(packet_sequence) ||
          (range == Range::kBehind && (fragment_id != 0 || !acks_something_new(header.ack)))) {
        if (range == Range::kAhead) {
          return drop(ReceiveResult::kFragmentTooFarAhead, counters.fragments_too_far_ahead,
                      "further ahead of the newest received packet than the reassembly margin");
        }
        return drop(ReceiveResult::kFragmentStale, counters.fragments_stale,
                    "older than the received-packets window");
      }
      resync(packet_sequence, range);
    }
    if (received.exists(packet_sequence)) {
      return drop(ReceiveResult::kFragmentDuplicate, counters.fragments_duplicate,
                  "its packet was already received");
    }

    const uint64_t evicted_before = reassembly.evicted();
    // Fragment 0's embedded acknowledgment fields, the ack delay extension included, travel with the
    // reassembly (other fragments carry none: `header` is then unused).
    const EmbeddedAck embedded{header.ack, header.ack_bits, header.has_ack_delay, header.ack_delay_offset,
                               header.ack_delay};
    const FragmentResult result =
        reassembly.add(packet_sequence, fragment_id, fragment_count, body, embedded, wire_bytes);
    counters.reassemblies_evicted += reassembly.evicted() - evicted_before;
    switch (result) {
      case FragmentResult::kStale:
        return drop(ReceiveResult::kFragmentStale, counters.fragments_stale,
                    "older than the reassembly window");
      case FragmentResult::kDuplicate:
        return drop(ReceiveResult::kFragmentDuplicate, counters.fragments_duplicate,
                    "fragment already stored");
      case FragmentResult::kConflict:
        return drop(ReceiveResult::kFragmentConflict, counters.fragments_conflicting,
                    "fragment disagrees with the stored fragments of its packet: reassembly dropped");
      case FragmentResult::kInvalid:  // the endpoint validated it against the same config: not reached
        return drop(ReceiveResult::kFragmentInvalid, counters.fragments_invalid,
                    "fragment outside the reassembler's config");
      case FragmentResult::kStored:
        ++counters.fragments_received;
        resync_count = 0;
        return ReceiveResult::kFragmentStored;
      case FragmentResult::kComplete:
        break;
    }
    ++counters.fragments_received;
    ++counters.reassemblies_completed;
    resync_count = 0;
    const ReassembledPacket& packet = reassembly.completed();
    if (packet.data.size() > static_cast<size_t>(config.max_packet_size)) {
      return drop(ReceiveResult::kReassembledTooLarge, counters.packets_too_large_to_receive,
                  "reassembled packet above max_packet_size");
    }
    const AckInfo info{packet.header.ack, packet.header.ack_bits, packet.header.has_ack_delay,
                       packet.header.ack_delay_offset, packet.header.ack_delay};
    return process_packet(packet_sequence, info, packet.data, packet.wire_bytes);
  }

  ReceiveResult receive(std::span<const std::byte> datagram, double arrival) {
    // An arrival time in the future, NaN or infinite is read as now.
    receive_time = arrival <= time ? arrival : time;
    if (datagram.size() > max_datagram) {
      return drop(ReceiveResult::kTooLarge, counters.packets_too_large_to_receive,
                  "datagram above the largest legal one");
    }
    const uint32_t wire_bytes =
        static_cast<uint32_t>(datagram.size() + static_cast<size_t>(config.packet_header_size));
    std::span<const std::byte> packet = datagram;
    if (envelope_bytes != 0) {
      if (!envelope.open(datagram)) {
        return drop(ReceiveResult::kEnvelopeMismatch, counters.envelope_failures, "crc32 does not match");
      }
      packet = datagram.subspan(Envelope::kBytes);
    }
    if (packet.empty()) return drop(ReceiveResult::kHeaderInvalid, counters.packets_invalid, "empty packet");
    if (load_u8(packet.data()) & kPrefixFragment) return receive_fragment(packet, wire_bytes);
    PacketHeader header;
    const char* reason = nullptr;
    const size_t header_bytes = read_packet_header(packet, header, &reason, ack_delay_on);
    if (header_bytes == 0) return drop(ReceiveResult::kHeaderInvalid, counters.packets_invalid, reason);
    if (packet.size() - header_bytes > static_cast<size_t>(config.max_packet_size)) {
      return drop(ReceiveResult::kTooLarge, counters.packets_too_large_to_receive,
                  "payload above max_packet_size");
    }
    const Range range = classify(header.sequence, config.max_sequence_jump);
    if (range != Range::kInRange) {
      if (!resync_observe(header.sequence) || (range == Range::kBehind && !acks_something_new(header.ack))) {
        if (range == Range::kAhead) {
          return drop(ReceiveResult::kTooFarAhead, counters.packets_too_far_ahead,
                      "more than max_sequence_jump ahead of the newest received packet");
        }
        return drop(ReceiveResult::kStale, counters.packets_stale, "older than the received-packets window");
      }
      resync(header.sequence, range);
    }
    const AckInfo info{header.ack, header.ack_bits, header.has_ack_delay, header.ack_delay_offset,
                       header.ack_delay};
    return process_packet(header.sequence, info, packet.subspan(header_bytes), wire_bytes);
  }

  // ---- Send ----

  void transmit_datagram(uint16_t packet_sequence, size_t packet_size, uint32_t& wire_bytes) {
    size_t datagram_size = packet_size;
    if (envelope_bytes != 0) datagram_size = envelope.seal({transmit.get(), transmit_capacity}, packet_size);
    wire_bytes += static_cast<uint32_t>(datagram_size + static_cast<size_t>(config.packet_header_size));
    if (callbacks.transmit != nullptr)
      callbacks.transmit(callbacks.context, packet_sequence, {transmit.get(), datagram_size});
  }

  bool send(std::span<const std::byte> payload) {
    const size_t size = payload.size();
    if (size > static_cast<size_t>(config.max_packet_size)) {
      ++counters.packets_too_large_to_send;
      BITWIRE_LOG(LogLevel::kError, "[%s] packet of %zu bytes not sent: max_packet_size is %d", config.name,
                  size, config.max_packet_size);
      return false;
    }
    const uint16_t packet_sequence = sequence;
    judge_before_send();
    sequence = static_cast<uint16_t>(sequence + 1);
    SentPacket* record = sent.insert(packet_sequence);
    record->time = time;

    PacketHeader header{packet_sequence, ack, ack_bits};
    if (ack_delay_on && has_report) {
      // How long the chosen packet waited for this one; left out when it does not fit the code, or is
      // more than 255 behind `ack`. Each packet is reported once at most.
      const uint16_t offset = static_cast<uint16_t>(ack - report_sequence);
      const int code = ack_delay_code((time - report_arrival) * 1000.0);
      if (offset <= 255 && code >= 0) {
        header.has_ack_delay = true;
        header.ack_delay_offset = static_cast<uint8_t>(offset);
        header.ack_delay = static_cast<uint8_t>(code);
      }
      has_report = false;
      report_candidates = 0;
    }
    const std::span<std::byte> packet(transmit.get() + envelope_bytes, transmit_capacity - envelope_bytes);
    uint32_t wire_bytes = 0;
    if (size <= static_cast<size_t>(config.fragment_above)) {
      const size_t header_bytes = write_packet_header(header, packet);
      if (size > 0) std::memcpy(packet.data() + header_bytes, payload.data(), size);
      transmit_datagram(packet_sequence, header_bytes + size, wire_bytes);
    } else {
      const size_t fragment_size = static_cast<size_t>(config.fragment_size);
      const size_t count = (size + fragment_size - 1) / fragment_size;
      BITWIRE_ASSERT(count >= 1 && count <= static_cast<size_t>(config.max_fragments));
      std::byte embedded[kMaxPacketHeaderBytes + kAckDelayBytes];
      const size_t embedded_bytes = write_packet_header(header, embedded);
      for (size_t id = 0; id < count; ++id) {
        write_fragment_header(
            FragmentHeader{packet_sequence, static_cast<uint8_t>(id), static_cast<int>(count)}, packet);
        size_t at = kFragmentHeaderBytes;
        if (id == 0) {
          std::memcpy(packet.data() + at, embedded, embedded_bytes);
          at += embedded_bytes;
        }
        const size_t offset = id * fragment_size;
        const size_t chunk = std::min(fragment_size, size - offset);
        std::memcpy(packet.data() + at, payload.data() + offset, chunk);
        transmit_datagram(packet_sequence, at + chunk, wire_bytes);
        ++counters.fragments_sent;
      }
    }
    record->wire_bytes = wire_bytes;
    sent_meter.add(wire_bytes);
    ++counters.packets_sent;
    return true;
  }

  // ---- Statistics ----

  void update_statistics() {
    judge_old_packets();
    sent_meter.update(time);
    received_meter.update(time);
    acked_meter.update(time);
  }
};

// ---- Endpoint -----------------------------------------------------------------------------------------

namespace {

// What a failed endpoint allocates: the smallest legal config.
EndpointConfig placeholder_config(const EndpointConfig& refused) {
  EndpointConfig c;
  c.name = refused.name;
  c.max_packet_size = 1;
  c.fragment_above = 0;
  c.fragment_size = 1;
  c.max_fragments = 1;
  c.sent_packets_buffer_size = 2;
  c.received_packets_buffer_size = 1;
  c.fragment_reassembly_buffer_size = 1;
  c.reassembly_slots = 1;
  c.ack_buffer_size = 1;
  c.rtt_history_size = 1;
  c.packet_loss_window = 1;
  c.envelope = false;
  return c;
}

const char* callbacks_problem(const EndpointCallbacks& callbacks) {
  if (callbacks.transmit == nullptr) return "EndpointCallbacks.transmit is null: packets could not be sent";
  if (callbacks.process == nullptr)
    return "EndpointCallbacks.process is null: packets could not be delivered";
  return nullptr;
}

}  // namespace

size_t detail::endpoint_memory_bytes(const EndpointConfig& config) {
  return Endpoint::State::memory_required(config);
}

Endpoint::Endpoint(const EndpointConfig& config, const EndpointCallbacks& callbacks, double now) {
  const char* reason = config.check();
  if (reason == nullptr) reason = callbacks_problem(callbacks);
  const MonotonicTime start(now);
  if (reason == nullptr) {
    state_.reset(new State(config, callbacks, start.now()));
  } else {
    state_.reset(new State(placeholder_config(config), callbacks, start.now()));
    State& s = *state_;
    s.failed = true;
    std::snprintf(s.error_reason, sizeof s.error_reason, "%s", reason);
    BITWIRE_LOG(LogLevel::kError, "[%s] endpoint not created: %s", s.name, s.error_reason);
  }
  if (!valid_time(now)) ++state_->counters.time_invalid;
}

Endpoint::~Endpoint() = default;
Endpoint::Endpoint(Endpoint&&) noexcept = default;
Endpoint& Endpoint::operator=(Endpoint&&) noexcept = default;

bool Endpoint::set_callbacks(const EndpointCallbacks& callbacks) {
  if (const char* reason = callbacks_problem(callbacks); reason != nullptr) {
    BITWIRE_LOG(LogLevel::kError, "[%s] set_callbacks refused: %s", state_->name, reason);
    return false;
  }
  state_->callbacks = callbacks;
  return true;
}

bool Endpoint::failed() const {
  return state_->failed;
}
const char* Endpoint::error_reason() const {
  return state_->failed ? state_->error_reason : nullptr;
}

void Endpoint::update(double now) {
  State& s = *state_;
  if (s.failed) {
    ++s.counters.calls_refused;
    return;
  }
  if (!valid_time(now)) {
    ++s.counters.time_invalid;
    BITWIRE_LOG(LogLevel::kDebug, "[%s] update(%g) ignored: not a valid time", s.name, now);
    return;
  }
  if (now < s.time) {
    ++s.counters.time_backwards;
    now = s.time;
  }
  s.time = now;
  s.update_statistics();
}

bool Endpoint::send_packet(std::span<const std::byte> payload) {
  if (state_->failed) {
    ++state_->counters.calls_refused;
    return false;
  }
  return state_->send(payload);
}

ReceiveResult Endpoint::receive_packet(std::span<const std::byte> datagram) {
  return receive_packet(datagram, state_->time);
}

ReceiveResult Endpoint::receive_packet(std::span<const std::byte> datagram, double arrival_time) {
  if (state_->failed) {
    ++state_->counters.calls_refused;
    return ReceiveResult::kEndpointFailed;
  }
  return state_->receive(datagram, arrival_time);
}

void Endpoint::defer_packet() {
  if (!state_->failed) state_->deferred = true;
}

std::span<const uint16_t> Endpoint::acks() const {
  return {state_->acks.get(), state_->num_acks};
}
void Endpoint::clear_acks() {
  state_->num_acks = 0;
}

void Endpoint::reset() {
  state_->reset();
}

int Endpoint::packets_in_flight() const {
  const State& s = *state_;
  return static_cast<int>(s.counters.packets_sent - std::max(s.flight_floor, s.oldest_recorded()));
}

uint16_t Endpoint::next_sequence() const {
  return state_->sequence;
}
PacketHeader Endpoint::current_ack_state() const {
  return PacketHeader{state_->sequence, state_->ack, state_->ack_bits};
}

double Endpoint::time() const {
  return state_->time;
}
double Endpoint::rtt_ms() const {
  return state_->rtt.smoothed_ms();
}
double Endpoint::rtt_min_ms() const {
  return state_->rtt.min_ms();
}
double Endpoint::rtt_max_ms() const {
  return state_->rtt.max_ms();
}
double Endpoint::rtt_avg_ms() const {
  return state_->rtt.avg_ms();
}
double Endpoint::jitter_ms() const {
  return state_->rtt.jitter_ms();
}
double Endpoint::packet_loss_percent() const {
  return state_->loss.loss_percent();
}
double Endpoint::sent_kbps() const {
  return state_->sent_meter.kbps();
}
double Endpoint::received_kbps() const {
  return state_->received_meter.kbps();
}
double Endpoint::acked_kbps() const {
  return state_->acked_meter.kbps();
}
const EndpointCounters& Endpoint::counters() const {
  return state_->counters;
}
const EndpointConfig& Endpoint::config() const {
  return state_->config;
}

size_t Endpoint::memory_bytes() const {
  return State::memory_required(state_->config);
}
size_t Endpoint::memory_required(const EndpointConfig& config) {
  return State::memory_required(config.sanitized());
}

}  // namespace bitwire
