// SendWindow: the sending half of an endpoint's packet window. It numbers the packets sent, keeps one
// record per packet for acks and RTT, judges each record lost or received for the loss estimate, and
// knows which packets are still in flight.
//
//   bitwire::SendWindow window(256);                     // sent_packets_buffer_size
//   SendWindow::Record& record = window.begin(now, loss); // sequence window.last_sent(), time = now
//   ... transmit, then record.wire_bytes = bytes; window.commit();
//   if (SendWindow::Record* r = window.find(acked); r != nullptr && !r->acked) window.mark_acked(*r, loss);
//   window.judge_old(now, age, loss);                     // each tick
//
// Contracts:
// - Sequences start at 0 and wrap at 65536; begin() takes the next one. The record of a sequence is
//   found until capacity() later sends overwrite it (capacity is the buffer size rounded up to a power
//   of two, as SequenceBuffer rounds it).
// - Every record is judged exactly once, in sequence order: lost unless acked, either when it is `age`
//   seconds old (judge_old) or when the next begin() is about to overwrite it. A record acked after it
//   was judged lost is taken back out of the loss count (mark_acked), while the loss window still holds it.
// - In flight: from the oldest send that is neither acked nor more than 31 before the newest ack the peer
//   reported (peer_reported) to the last committed send, and never older than the oldest record held.
// - Memory: the record buffer, allocated by the constructor; nothing allocates after.
#pragma once

#include <cstddef>
#include <cstdint>

#include "bitwire/packet/detail/loss_window.hpp"
#include "bitwire/packet/sequence.hpp"

namespace bitwire {

class SendWindow {
 public:
  struct Record {
    double time = 0.0;         // when the packet was sent
    uint32_t wire_bytes = 0;   // every datagram of the packet, plus the per-datagram header overhead
    uint64_t judge_index = 0;  // position in the loss window when judged
    bool acked = false;
    bool judged = false;  // counted in the loss window (as lost or received)
    bool judged_lost = false;
  };

  explicit SendWindow(size_t capacity);  // capacity >= 2

  // Back to nothing sent: sequence 0, no records. Does not allocate.
  void reset();

  // Starts the next packet: judges the records the insert would overwrite, takes the next sequence and
  // returns its fresh record (time set). The send counts in packets_sent() at commit().
  Record& begin(double time, LossWindow& loss);
  void commit() { ++sends_; }

  // Judges, oldest first, every record at least `age` seconds old at `now`, up to the first younger one.
  void judge_old(double now, double age, LossWindow& loss);

  Record* find(uint16_t sequence) { return records_.find(sequence); }
  // Marks a record acked; one judged lost is taken back out of the loss count.
  static void mark_acked(Record& record, LossWindow& loss);

  // An ack newer than the last sequence sent: for a packet never sent (or 32768 or more sends ago).
  bool is_ahead(uint16_t peer_ack) const { return sequence_greater_than(peer_ack, last_sent()); }
  // The peer's newest ack: no later packet of the peer reports a send more than 31 before it. Call with
  // an ack that is not ahead.
  void peer_reported(uint16_t peer_ack);
  // Moves the in-flight floor past acked sends and overwritten records: amortized O(1) per send.
  void advance_flight_floor();
  int in_flight() const;

  uint16_t next_sequence() const { return sequence_; }
  uint16_t last_sent() const { return static_cast<uint16_t>(sequence_ - 1); }
  uint64_t packets_sent() const { return sends_; }  // commits since construction or reset
  size_t capacity() const { return records_.capacity(); }

  static size_t memory_required(size_t capacity) { return SequenceBuffer<Record>::memory_required(capacity); }

 private:
  static void judge(Record& record, LossWindow& loss);
  // The send index of the oldest send whose record the buffer still holds.
  uint64_t oldest_recorded() const {
    const uint64_t held = records_.capacity();
    return sends_ > held ? sends_ - held : 0;
  }

  SequenceBuffer<Record> records_;
  uint64_t sends_ = 0;         // committed sends: the send index of the next one
  uint64_t flight_floor_ = 0;  // send index of the oldest send possibly in flight
  uint16_t sequence_ = 0;      // the next sequence
  uint16_t judge_cursor_ = 0;  // the oldest sequence not yet judged
};

}  // namespace bitwire
