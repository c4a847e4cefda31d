// ReceiveWindow: the receiving half of an endpoint's packet window. It records which of the peer's
// sequences were delivered, keeps the ack state sent back (ack, ack_bits), bounds how far one datagram
// may move the window, and follows a peer whose sequence really moved (resync).
//
//   bitwire::ReceiveWindow window(256, 64, 4);   // capacity, max_sequence_jump, sequence_resync_packets
//   switch (window.classify(sequence, 64)) {      // 64: how far ahead this kind of datagram may be
//     case ReceiveWindow::Range::kInRange: ... window.record(sequence) once delivered
//     default: if (window.observe_out_of_range(sequence)) window.resync(sequence, range); else drop
//   }
//
// Contracts (docs/packets.md section 2.1):
// - The horizon is the newest sequence accepted, recorded or not (accept_unrecorded: a packet the
//   connection deferred): 65535 on a fresh window (the peer's first packet is expected at 0). A sequence
//   1..limit after it is in range, further after it ahead; one not after it is in range while the received
//   buffer can still hold it and it is less than a whole capacity behind the horizon, behind otherwise --
//   also when nothing is recorded yet but a packet set the horizon. Only on a fresh window is a sequence
//   before the horizon ahead (nothing the peer sent precedes its first packet).
// - record(s) delivers s: marks it received, moves the horizon and the ack state forward when s is newer
//   (ack_bits bit n: sequence ack - n was received) and sets the bit of an older s within 31 of ack.
// - A resync run: sequence_resync_packets out-of-range sequences, each newer than the one before and at
//   most max_sequence_jump after it, with nothing accepted in range between (record, accept_unrecorded,
//   in_range_seen end a run). Repeats and older sequences close to the run neither count nor break it.
// - resync forward moves the horizon only. Backward restarts the received buffer and the ack state; the
//   sequences not newer than the new horizon are then behind (refused) until record() has moved the
//   window a whole capacity past them.
// - restarts() counts the restarts of the received window: each backward resync and each reset() (a
//   forward resync is none). It changes with every restart and with nothing else, wrapping at 65536;
//   whatever keeps state per sequence of the peer's stream compares it for inequality to learn that a
//   new stream began, whichever packet it sees next.
// - Memory: the received buffer, allocated by the constructor; nothing allocates after.
#pragma once

#include <cstddef>
#include <cstdint>

#include "bitwire/packet/sequence.hpp"

namespace bitwire {

class ReceiveWindow {
 public:
  // Where a received sequence falls: in range (it may move the window), too far ahead of the horizon, or
  // behind the received buffer.
  enum class Range : uint8_t { kInRange, kAhead, kBehind };

  // capacity >= 1 (the received-packets buffer), max_sequence_jump >= 1, resync_packets >= 1.
  ReceiveWindow(int capacity, int max_sequence_jump, int resync_packets);

  // Back to the fresh window. Does not allocate.
  void reset();

  // `limit`: how far after the horizon a sequence may be.
  Range classify(uint16_t sequence, int limit) const;
  // Records an out-of-range sequence; true when it completes a resync run.
  bool observe_out_of_range(uint16_t sequence);
  // Follows the peer to `sequence` (classified `range`, not in range); ends the run.
  void resync(uint16_t sequence, Range range);

  bool can_insert(uint16_t sequence) const { return received_.can_insert(sequence); }
  bool exists(uint16_t sequence) const { return received_.exists(sequence); }

  // A delivered packet, which can_insert() and is not received yet.
  void record(uint16_t sequence);
  // A genuine packet not recorded (deferred): it ends a run and may move the horizon, nothing else.
  void accept_unrecorded(uint16_t sequence);
  // Something in range was accepted (a fragment stored): it ends a run.
  void in_range_seen() { resync_count_ = 0; }

  uint16_t ack() const { return ack_; }
  uint32_t ack_bits() const { return ack_bits_; }
  uint16_t horizon() const { return horizon_; }
  uint16_t restarts() const { return restarts_; }

  static size_t memory_required(int capacity) {
    return SequenceBuffer<Received>::memory_required(static_cast<size_t>(capacity));
  }

 private:
  struct Received {
    uint8_t unused = 0;  // the tag alone records the sequence
  };

  void move_horizon(uint16_t sequence);

  SequenceBuffer<Received> received_;
  uint32_t capacity_;  // as configured (the buffer rounds it up): how far the floor stays in force
  int max_jump_;
  int resync_packets_;
  int resync_count_ = 0;  // out-of-range sequences in the current run
  uint32_t ack_bits_ = 0;
  uint16_t ack_ = 0xFFFF;  // newest received (65535 before anything, as reliable 1.0 does)
  uint16_t horizon_ = 0xFFFF;
  uint16_t resync_newest_ = 0;
  uint16_t resync_floor_ = 0;
  uint16_t restarts_ = 0;  // backward resyncs and resets, wrapping (held in what was padding)
  bool has_resync_floor_ = false;
  bool fresh_ = true;  // nothing accepted since construction or reset: the horizon is the initial 65535
};

}  // namespace bitwire
