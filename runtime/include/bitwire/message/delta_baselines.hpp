// The baselines a Connection keeps to send `delta message` types as deltas on its unreliable channels
// (docs/delta.md, "Over a Connection"): per delta type of the factory, a sender ring of the last N
// snapshots written into packets (each with the packet sequence that carried it) and a receiver ring of
// the last N read. The connection-packet codec calls write() and read() for a delta type's body on an
// unreliable channel; the Connection feeds packet acks in and commits what a packet delivered.
//
// Wire of such a body (instead of the type's serialize): bits(id, 16), bool(delta); a delta:
// bits(baseline id, 16) and the type's serialize_delta against that baseline; else its serialize. The
// same header as DeltaSender's, so one rule covers both.
//
// Contracts:
// - Which baseline: the newest snapshot of the type whose packet the peer acked, while it is fewer than N
//   ids old; else the body goes whole. A delta that measures more than the whole form goes whole too, so a
//   delta body never exceeds the whole body's measured bits: the send-time budget stays valid with
//   kHeaderBits added.
// - Equality: the sender keeps each snapshot as the receiver reads it (what it wrote, read back at the
//   same bit alignment), so a delta is always taken against exactly the object the receiver holds.
// - Untrusted input: read() refuses a delta whose baseline the receiver does not hold
//   (kDeltaNoBaseline, counted in refused_no_baseline) and never applies it; a body that does not read is
//   kMessageBodyInvalid. The receiver ring changes only in commit(), after the whole packet is accepted.
// - Memory: every ring, object and scratch buffer is allocated in the constructor (memory_bytes() ==
//   memory_required()); write, read, commit and on_packet_acked never allocate. reset() forgets every
//   baseline (a new session shares nothing with the last).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "bitwire/message/connection_packet.hpp"
#include "bitwire/message/message.hpp"
#include "bitwire/serialize/stream.hpp"

namespace bitwire {

struct DeltaBaselineCounters {
  uint64_t sent_whole = 0;           // delta-type bodies written whole (no acked baseline, or smaller so)
  uint64_t sent_delta = 0;           // written as a delta against an acked baseline
  uint64_t received_whole = 0;       // whole bodies read (kept as baselines once their packet is accepted)
  uint64_t received_delta = 0;       // deltas read against a held baseline
  uint64_t refused_no_baseline = 0;  // deltas refused: the baseline they name is not held (packet dropped)
  uint64_t stale_not_kept = 0;       // received, but a newer snapshot already holds its ring slot
  friend bool operator==(const DeltaBaselineCounters&, const DeltaBaselineCounters&) = default;
};

class DeltaBaselines {
 public:
  // Bits a body of a delta type costs beyond its whole form, at most (the header).
  static constexpr size_t kHeaderBits = 16 + 1 + 16;
  // Baselines per ring: 0 (no delta form) or 2..kMaxRing (ConnectionConfig::delta_baselines).
  static constexpr int kMaxRing = 4096;

  DeltaBaselines(const MessageFactory& factory, int ring);
  ~DeltaBaselines();
  DeltaBaselines(const DeltaBaselines&) = delete;
  DeltaBaselines& operator=(const DeltaBaselines&) = delete;

  // True when a message of this type goes in the delta form (on an unreliable channel).
  bool handles(const MessageTypeInfo& info) const {
    return ring_ > 0 && info.type_id < type_count_ && type_index_[info.type_id] >= 0;
  }
  // The sequence of the packet write() calls are for (set before each packet is written).
  void begin_packet(uint16_t sequence) { packet_ = sequence; }
  // Writes the body of `message` (handles() true): header, then delta or whole; keeps it as sent.
  void write(WriteStream& stream, MessageHandle& message);
  // Reads a body into `message` (handles() true); `id` receives the snapshot id for commit().
  ConnectionPacketError read(ReadStream& stream, MessageHandle& message, uint16_t& id);
  // The packet that carried `message` (read() under `id`) was accepted: keep it as a baseline.
  void commit(const MessageHandle& message, uint16_t id);
  // Packet `sequence`, sent by this side, arrived.
  void on_packet_acked(uint16_t sequence);
  // Forgets every baseline and restarts the ids (counters kept).
  void reset();

  int ring() const { return ring_; }
  const DeltaBaselineCounters& counters() const { return counters_; }
  size_t memory_bytes() const { return memory_bytes_; }
  static size_t memory_required(const MessageFactory& factory, int ring);

 private:
  struct SenderSlot {
    uint16_t id = 0;
    uint16_t packet = 0;
    bool valid = false;
    bool sent = false;
    bool acked = false;
  };
  struct Rings {
    const MessageTypeInfo* info = nullptr;
    std::byte* sent_values = nullptr;      // ring_ objects
    std::byte* received_values = nullptr;  // ring_ objects
    SenderSlot* slots = nullptr;
    uint16_t* received_ids = nullptr;
    bool* received_valid = nullptr;
    uint16_t next_id = 0;
    uint16_t newest_acked = 0;
    bool has_acked = false;
  };

  void* sent(Rings& r, size_t index) { return r.sent_values + index * stride_[&r - rings_.get()]; }
  void* received(Rings& r, size_t index) { return r.received_values + index * stride_[&r - rings_.get()]; }
  // The ring index of the newest acked snapshot fewer than ring_ ids before `id`, or ring_.
  size_t acked_baseline(const Rings& r, uint16_t id) const;
  // Writes the header and body of `message` into `stream`; false when a write failed.
  static bool write_body(WriteStream& stream, const MessageTypeInfo& info, const void* message, uint16_t id,
                         const void* baseline, uint16_t baseline_id);

  int ring_ = 0;
  uint32_t type_count_ = 0;
  std::unique_ptr<int[]> type_index_;  // type id -> index into rings_, or -1
  std::unique_ptr<Rings[]> rings_;
  std::unique_ptr<size_t[]> stride_;
  int ring_count_ = 0;
  std::unique_ptr<std::byte[]> storage_;  // every object, slot and id of every ring
  std::unique_ptr<std::byte[]> scratch_;  // one body written and read back
  size_t scratch_bytes_ = 0;
  uint16_t packet_ = 0;
  DeltaBaselineCounters counters_;
  size_t memory_bytes_ = 0;
};

}  // namespace bitwire
