// Delta snapshots over an unreliable packet stream (docs/delta.md): the sender keeps a ring of the last N
// snapshots it sent and the packet sequence that carried each; the receiver keeps a ring of the last N it
// decoded. Each snapshot goes as a delta against the newest snapshot the peer has acked, or whole when no
// acked snapshot is still in the ring. T is a struct or message idlc generated with the delta form
// (`delta message T`): it has serialize, serialize_delta, MaxBits and MaxDeltaBits.
//
//   bitwire::DeltaSender<game::Snapshot, 32> sender;              // server, one per client
//   size_t n = sender.encode(snapshot, buffer);                  // id, baseline, body
//   uint16_t sequence = endpoint.next_sequence(); endpoint.send_packet({buffer, n});
//   sender.on_packet_sent(sequence);
//   for (uint16_t acked : endpoint.acks()) sender.on_packet_acked(acked); endpoint.clear_acks();
//
//   bitwire::DeltaReceiver<game::Snapshot, 32> receiver;          // client
//   if (receiver.decode(payload, snapshot) <= DeltaResult::kDelta) { /* a whole snapshot */ }
//
// Wire (before the body): bits(id, 16); bool(delta); delta: bits(baseline id, 16), then
// T::serialize_delta against that baseline; whole: T::serialize.
//
// Contracts:
// - Memory: both rings (and the receiver's scratch object) are allocated at construction; encode, decode and
// the ack
//   calls never allocate.
// - Equality: the sender keeps each snapshot as the receiver decodes it (it reads back the bytes it just
//   wrote), so a delta is always taken against exactly the object the receiver holds under that id.
// - Untrusted input: decode refuses, counts and never applies a delta whose baseline the receiver does not
//   hold (kNoBaseline) or that fails to read (kInvalid, read_error() says why); `out` and the ring are
//   then untouched.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "bitwire/packet/sequence.hpp"
#include "bitwire/serialize/serialize.hpp"

namespace bitwire {

enum class DeltaResult : uint8_t {
  kWhole,       // decoded from a whole snapshot
  kDelta,       // decoded from a delta against a held baseline
  kNoBaseline,  // refused: the baseline it names is not in the ring
  kInvalid,     // refused: the bytes do not read (DeltaReceiver::read_error())
};

struct DeltaCounters {
  uint64_t sent_whole = 0;
  uint64_t sent_delta = 0;
  uint64_t acks_matched = 0;  // acked packets that carried a snapshot still in the ring
  uint64_t decoded_whole = 0;
  uint64_t decoded_delta = 0;
  uint64_t refused_no_baseline = 0;
  uint64_t refused_invalid = 0;
  uint64_t stale_not_kept = 0;  // decoded, but a newer snapshot already holds its ring slot
};

namespace delta_detail {
inline constexpr size_t kHeaderBits = 16 + 1 + 16;
}

template <typename T, int N>
class DeltaSender {
  static_assert(N >= 2 && N <= 32768, "the ring holds 2 .. 32768 snapshots (ids are 16 bits)");
  static constexpr size_t kSize = static_cast<size_t>(N);
  static constexpr size_t kNone = kSize;  // no baseline

 public:
  // The most bytes encode writes.
  static constexpr size_t kMaxBytes =
      (delta_detail::kHeaderBits + (T::MaxBits > T::MaxDeltaBits ? T::MaxBits : T::MaxDeltaBits) + 7) / 8;

  DeltaSender() : values_(new T[N]), slots_(new Slot[N]) {}

  // Writes `snapshot` into `out` with the next id: a delta against the newest acked snapshot still in the
  // ring when `allow_delta`, else whole. Returns the bytes written; 0 when `out` is shorter than kMaxBytes
  // (nothing is recorded). The snapshot must be writable (values in range).
  size_t encode(const T& snapshot, std::span<std::byte> out, bool allow_delta = true) {
    if (out.size() < kMaxBytes) return 0;
    const uint16_t id = next_id_;
    const size_t baseline = allow_delta ? acked_baseline(id) : kNone;
    WriteStream stream(out);
    uint16_t id_bits = id;
    serialize_bits(stream, id_bits, 16);
    bool delta = baseline != kNone;
    serialize_bool(stream, delta);
    if (delta) {
      uint16_t baseline_id = slots_[baseline].id;
      serialize_bits(stream, baseline_id, 16);
      snapshot.serialize_delta(stream, values_[baseline]);
      ++counters_.sent_delta;
    } else {
      snapshot.serialize(stream);
      ++counters_.sent_whole;
    }
    stream.flush();
    keep(id, baseline, std::span<const std::byte>(out.data(), stream.bytes_processed()));
    last_id_ = id;
    has_last_ = true;
    next_id_ = static_cast<uint16_t>(id + 1);
    return stream.bytes_processed();
  }

  // The packet `sequence` carries the snapshot encode wrote last.
  void on_packet_sent(uint16_t sequence) {
    if (!has_last_) return;
    Slot& slot = slots_[last_id_ % kSize];
    slot.sent = true;
    slot.packet = sequence;
  }

  // Packet `sequence` arrived at the peer (the endpoint's acks).
  void on_packet_acked(uint16_t sequence) {
    for (size_t i = 0; i < kSize; ++i) {
      Slot& slot = slots_[i];
      if (!slot.valid || !slot.sent || slot.packet != sequence || slot.acked) continue;
      slot.acked = true;
      ++counters_.acks_matched;
      if (!has_acked_ || sequence_greater_than(slot.id, newest_acked_)) newest_acked_ = slot.id;
      has_acked_ = true;
    }
  }

  uint16_t last_id() const { return last_id_; }
  const DeltaCounters& counters() const { return counters_; }

 private:
  struct Slot {
    uint16_t id = 0;
    uint16_t packet = 0;
    bool valid = false;
    bool sent = false;
    bool acked = false;
  };

  // The ring index of the newest acked snapshot within N - 1 ids before `id`, or kNone.
  size_t acked_baseline(uint16_t id) const {
    if (!has_acked_) return kNone;
    const auto distance = static_cast<uint16_t>(id - newest_acked_);
    if (distance == 0 || distance >= kSize) return kNone;
    const size_t index = newest_acked_ % kSize;
    const Slot& slot = slots_[index];
    return slot.valid && slot.acked && slot.id == newest_acked_ ? index : kNone;
  }

  // Stores the snapshot as the receiver will hold it: the bytes just written, read back the way the
  // receiver reads them (against the same baseline for a delta). The baseline's slot is not this one
  // (it is 1 .. N - 1 ids older).
  void keep(uint16_t id, size_t baseline, std::span<const std::byte> written) {
    const size_t index = id % kSize;
    ReadStream read(written);
    uint64_t header = 0;
    bool ok = read.read_bits(header, baseline != kNone ? static_cast<int>(delta_detail::kHeaderBits) : 17);
    ok = ok && (baseline != kNone ? values_[index].serialize_delta(read, values_[baseline])
                                  : values_[index].serialize(read));
    BITWIRE_ASSERT(ok);
    (void)ok;
    slots_[index] = Slot{id, 0, true, false, false};
  }

  std::unique_ptr<T[]> values_;
  std::unique_ptr<Slot[]> slots_;
  DeltaCounters counters_;
  uint16_t next_id_ = 0;
  uint16_t last_id_ = 0;
  uint16_t newest_acked_ = 0;
  bool has_last_ = false;
  bool has_acked_ = false;
};

template <typename T, int N>
class DeltaReceiver {
  static_assert(N >= 2 && N <= 32768, "the ring holds 2 .. 32768 snapshots (ids are 16 bits)");
  static constexpr size_t kSize = static_cast<size_t>(N);

 public:
  DeltaReceiver() : values_(new T[N]), ids_(new uint16_t[N]()), valid_(new bool[N]()), scratch_(new T()) {}

  // Reads one snapshot from `in`. kWhole / kDelta: `out` holds it and the ring keeps it as a baseline
  // (unless a newer snapshot holds its slot); `id`, when given, receives its id. Refusals leave `out` and
  // the ring untouched and are counted.
  DeltaResult decode(std::span<const std::byte> in, T& out, uint16_t* id_out = nullptr) {
    ReadStream stream(in);
    uint16_t id = 0;
    bool delta = false;
    uint16_t baseline_id = 0;
    if (!serialize_bits(stream, id, 16) || !serialize_bool(stream, delta) ||
        (delta && !serialize_bits(stream, baseline_id, 16))) {
      return refuse_invalid(stream);
    }
    if (delta) {
      const size_t base = baseline_id % kSize;
      if (!valid_[base] || ids_[base] != baseline_id || base == id % kSize) {
        ++counters_.refused_no_baseline;
        return DeltaResult::kNoBaseline;
      }
      if (!scratch_->serialize_delta(stream, values_[base])) return refuse_invalid(stream);
      ++counters_.decoded_delta;
    } else {
      if (!scratch_->serialize(stream)) return refuse_invalid(stream);
      ++counters_.decoded_whole;
    }
    const size_t index = id % kSize;
    if (!valid_[index] || ids_[index] == id || sequence_greater_than(id, ids_[index])) {
      values_[index] = *scratch_;
      ids_[index] = id;
      valid_[index] = true;
    } else {
      ++counters_.stale_not_kept;
    }
    out = *scratch_;
    if (id_out != nullptr) *id_out = id;
    return delta ? DeltaResult::kDelta : DeltaResult::kWhole;
  }

  ReadError read_error() const { return read_error_; }
  const DeltaCounters& counters() const { return counters_; }

 private:
  DeltaResult refuse_invalid(const ReadStream& stream) {
    read_error_ = stream.error();
    ++counters_.refused_invalid;
    return DeltaResult::kInvalid;
  }

  std::unique_ptr<T[]> values_;
  std::unique_ptr<uint16_t[]> ids_;
  std::unique_ptr<bool[]> valid_;
  std::unique_ptr<T> scratch_;
  DeltaCounters counters_;
  ReadError read_error_ = ReadError::kNone;
};

}  // namespace bitwire
