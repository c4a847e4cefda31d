// AckTracker: the acks an endpoint receives from its peer. It filters each report (ack, ack_bits) down
// to the bits no earlier report carried, and lists the sequences newly acked for Endpoint::acks().
//
//   bitwire::AckTracker tracker(256);                           // ack_buffer_size
//   uint32_t bits = tracker.unseen(ack, ack_bits, packets_sent); // look only at these
//   tracker.push(sequence);                                      // false: the list is full
//   tracker.list(); tracker.clear_list();
//
// Contracts:
// - unseen(): the processed set is kept relative to the newest ack seen. A report at or after it returns
//   its bits less those an earlier report already carried (every one of those was acked then, or had
//   already left the sent window for good) and moves the set; an older report (reordering) returns all
//   its bits and changes nothing. After 32768 sends the set is forgotten: its sequences may name new
//   packets.
// - newer_than_processed(ack, last_sent): true before any report, else when `ack` is newer than every ack
//   processed and not ahead of `last_sent` -- evidence that a datagram is the peer's current stream.
// - The list holds at most `capacity` sequences, in push order, until clear_list().
// - Memory: the list, allocated by the constructor; nothing allocates after.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace bitwire {

class AckTracker {
 public:
  explicit AckTracker(size_t capacity);  // capacity >= 1

  AckTracker(const AckTracker&) = delete;
  AckTracker& operator=(const AckTracker&) = delete;

  // Back to no report seen and an empty list. Does not allocate.
  void reset();

  // The bits of (peer_ack, peer_ack_bits) not processed under an earlier report; `packets_sent`: this
  // side's sends so far (the set's age is measured in sends).
  uint32_t unseen(uint16_t peer_ack, uint32_t peer_ack_bits, uint64_t packets_sent);
  bool newer_than_processed(uint16_t peer_ack, uint16_t last_sent) const;

  bool push(uint16_t sequence);
  std::span<const uint16_t> list() const { return {list_.get(), count_}; }
  void clear_list() { count_ = 0; }

  static size_t memory_required(size_t capacity) { return capacity * sizeof(uint16_t); }

 private:
  std::unique_ptr<uint16_t[]> list_;
  uint32_t capacity_;
  uint32_t count_ = 0;
  uint64_t processed_at_send_ = 0;  // packets_sent when the processed set last moved
  uint32_t processed_bits_ = 0;     // relative to processed_ack_
  uint16_t processed_ack_ = 0;
  bool has_processed_ = false;
};

}  // namespace bitwire
