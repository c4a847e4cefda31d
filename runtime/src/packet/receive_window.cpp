#include "bitwire/packet/detail/receive_window.hpp"

namespace bitwire {

ReceiveWindow::ReceiveWindow(int capacity, int max_sequence_jump, int resync_packets)
    : received_(static_cast<size_t>(capacity)),
      capacity_(static_cast<uint32_t>(capacity)),
      max_jump_(max_sequence_jump),
      resync_packets_(resync_packets) {}

void ReceiveWindow::reset() {
  received_.reset();
  ack_ = 0xFFFF;
  ack_bits_ = 0;
  horizon_ = 0xFFFF;
  resync_count_ = 0;
  has_resync_floor_ = false;
  fresh_ = true;
  ++restarts_;  // not zeroed: an owner that kept the old value must see a change
}

ReceiveWindow::Range ReceiveWindow::classify(uint16_t sequence, int limit) const {
  const uint16_t steps = static_cast<uint16_t>(sequence - horizon_);
  if (steps != 0 && steps < 32768)
    return steps <= static_cast<uint32_t>(limit) ? Range::kInRange : Range::kAhead;
  if (has_resync_floor_ && !sequence_greater_than(sequence, resync_floor_)) return Range::kBehind;
  // Only the fresh horizon (the 65535 before the peer's first packet) has no sequence before it. One
  // that a packet set -- deferred, or a resync -- with nothing recorded yet is judged as below.
  if (fresh_) return steps == 0 ? Range::kInRange : Range::kAhead;
  // Deferred packets (accept_unrecorded) move the horizon past the newest recorded one. A sequence a whole
  // window behind the horizon is stale even where the buffer would still take it, so whatever remembers
  // the deferred packets of one window (the connection's in-order-only marks) never has to look further
  // back. Such a packet is a duplicate or a whole window late: its reliable content is resent under new
  // sequences; a late original's unreliable messages are lost, as any packet's that late.
  if (static_cast<uint16_t>(horizon_ - sequence) >= capacity_) return Range::kBehind;
  return received_.can_insert(sequence) ? Range::kInRange : Range::kBehind;
}

bool ReceiveWindow::observe_out_of_range(uint16_t sequence) {
  const uint32_t jump = static_cast<uint32_t>(max_jump_);
  if (resync_count_ > 0) {
    const uint16_t steps = static_cast<uint16_t>(sequence - resync_newest_);
    if (steps == 0) return false;
    if (steps < 32768 && steps <= jump) {
      resync_newest_ = sequence;
      return ++resync_count_ >= resync_packets_;
    }
    if (steps >= 32768 && 65536u - steps <= jump) return false;
  }
  resync_newest_ = sequence;
  resync_count_ = 1;
  return resync_count_ >= resync_packets_;
}

void ReceiveWindow::resync(uint16_t sequence, Range range) {
  fresh_ = false;
  if (range == Range::kBehind) {
    ++restarts_;
    received_.reset();
    ack_ = 0xFFFF;
    ack_bits_ = 0;
    horizon_ = static_cast<uint16_t>(sequence - 1);
    has_resync_floor_ = true;
    resync_floor_ = horizon_;
  } else {
    horizon_ = sequence;
  }
  resync_count_ = 0;
}

void ReceiveWindow::move_horizon(uint16_t sequence) {
  fresh_ = false;
  if (const uint16_t steps = static_cast<uint16_t>(sequence - horizon_); steps != 0 && steps < 32768) {
    horizon_ = sequence;
  }
}

void ReceiveWindow::record(uint16_t sequence) {
  const bool first = !received_.has_newest();
  const uint16_t previous = ack_;
  received_.insert(sequence);
  resync_count_ = 0;
  if (has_resync_floor_ && static_cast<uint16_t>(received_.newest() - resync_floor_) >= capacity_) {
    has_resync_floor_ = false;  // the buffer itself now refuses everything up to the floor
  }
  move_horizon(sequence);
  if (first) {
    ack_ = sequence;
    ack_bits_ = 1;
  } else if (sequence_greater_than(sequence, previous)) {
    const uint32_t shift = static_cast<uint16_t>(sequence - previous);
    ack_bits_ = (shift >= 32 ? 0u : (ack_bits_ << shift)) | 1u;
    ack_ = sequence;
  } else {
    const uint32_t back = static_cast<uint16_t>(previous - sequence);
    if (back < 32) ack_bits_ |= 1u << back;
  }
}

void ReceiveWindow::accept_unrecorded(uint16_t sequence) {
  resync_count_ = 0;
  move_horizon(sequence);
}

}  // namespace bitwire
