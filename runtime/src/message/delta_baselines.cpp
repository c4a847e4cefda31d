// DeltaBaselines: the per-type sender and receiver rings of a Connection's delta form.
#include "bitwire/message/delta_baselines.hpp"

#include <algorithm>

#include "bitwire/packet/sequence.hpp"
#include "bitwire/serialize/serialize.hpp"

namespace bitwire {

namespace {

bool has_delta(const MessageTypeInfo& info) {
  return info.write_delta != nullptr && info.read_delta != nullptr && info.copy != nullptr;
}

size_t round_up(size_t value, size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// The sizes the constructor allocates; memory_required() and the constructor share them.
struct Plan {
  size_t align = 1;
  size_t values = 0;   // bytes of every ring's objects (both sides)
  size_t slots = 0;    // sender slots
  size_t ids = 0;      // receiver ids
  size_t valid = 0;    // receiver flags
  size_t scratch = 0;  // the largest body, at a bit offset below 32
  int rings = 0;
};

template <typename Slot>
Plan plan(const MessageFactory& factory, int ring) {
  Plan p;
  if (ring <= 0) return p;
  for (const MessageTypeInfo& info : factory.types()) {
    if (has_delta(info)) p.align = std::max(p.align, static_cast<size_t>(info.align));
  }
  const auto n = static_cast<size_t>(ring);
  for (const MessageTypeInfo& info : factory.types()) {
    if (!has_delta(info)) continue;
    ++p.rings;
    p.values += 2 * n * round_up(info.size, p.align);
    p.slots += n * sizeof(Slot);
    p.ids += n * sizeof(uint16_t);
    p.valid += n;
    const size_t body = std::max(info.max_bits, info.max_delta_bits);
    p.scratch = std::max(p.scratch, (32 + DeltaBaselines::kHeaderBits + body + 7) / 8 + 8);
  }
  return p;
}

}  // namespace

size_t DeltaBaselines::memory_required(const MessageFactory& factory, int ring) {
  const Plan p = plan<SenderSlot>(factory, std::clamp(ring, 0, kMaxRing));
  if (p.rings == 0) return 0;
  return static_cast<size_t>(factory.type_count()) * sizeof(int) +
         static_cast<size_t>(p.rings) * (sizeof(Rings) + sizeof(size_t)) + p.values + p.align + p.slots +
         p.ids + p.valid + p.scratch;
}

DeltaBaselines::DeltaBaselines(const MessageFactory& factory, int ring) {
  const Plan p = plan<SenderSlot>(factory, std::clamp(ring, 0, kMaxRing));
  if (p.rings == 0) return;
  ring_ = std::clamp(ring, 0, kMaxRing);
  type_count_ = static_cast<uint32_t>(factory.type_count());
  ring_count_ = p.rings;
  type_index_.reset(new int[type_count_]);
  rings_.reset(new Rings[static_cast<size_t>(p.rings)]);
  stride_.reset(new size_t[static_cast<size_t>(p.rings)]);
  storage_.reset(new std::byte[p.values + p.align + p.slots + p.ids + p.valid]);
  scratch_.reset(new std::byte[p.scratch]);
  scratch_bytes_ = p.scratch;
  memory_bytes_ = memory_required(factory, ring_);

  const auto n = static_cast<size_t>(ring_);
  std::byte* base = storage_.get();
  const auto misalign = reinterpret_cast<uintptr_t>(base) % p.align;
  std::byte* values = base + (misalign == 0 ? 0 : p.align - misalign);
  auto* slots = reinterpret_cast<SenderSlot*>(base + p.values + p.align);
  auto* ids = reinterpret_cast<uint16_t*>(base + p.values + p.align + p.slots);
  auto* valid = reinterpret_cast<bool*>(base + p.values + p.align + p.slots + p.ids);
  int r = 0;
  for (const MessageTypeInfo& info : factory.types()) {
    type_index_[info.type_id] = has_delta(info) ? r : -1;
    if (!has_delta(info)) continue;
    Rings& rings = rings_[static_cast<size_t>(r)];
    const size_t stride = round_up(info.size, p.align);
    stride_[static_cast<size_t>(r)] = stride;
    rings.info = &info;
    rings.sent_values = values;
    rings.received_values = values + n * stride;
    values += 2 * n * stride;
    for (size_t i = 0; i < 2 * n; ++i) info.construct(rings.sent_values + i * stride);
    // One object at a time: array placement-new may ask for more room than n elements.
    for (size_t i = 0; i < n; ++i) {
      ::new (slots + i) SenderSlot();
      ::new (ids + i) uint16_t(0);
      ::new (valid + i) bool(false);
    }
    rings.slots = slots;
    rings.received_ids = ids;
    rings.received_valid = valid;
    slots += n;
    ids += n;
    valid += n;
    ++r;
  }
}

DeltaBaselines::~DeltaBaselines() {
  for (int r = 0; r < ring_count_; ++r) {
    Rings& rings = rings_[static_cast<size_t>(r)];
    for (size_t i = 0; i < 2 * static_cast<size_t>(ring_); ++i) {
      rings.info->destroy(rings.sent_values + i * stride_[static_cast<size_t>(r)]);
    }
  }
}

bool DeltaBaselines::write_body(WriteStream& stream, const MessageTypeInfo& info, const void* message,
                                uint16_t id, const void* baseline, uint16_t baseline_id) {
  serialize_bits(stream, id, 16);
  bool delta = baseline != nullptr;
  serialize_bool(stream, delta);
  if (!delta) return info.write(const_cast<void*>(message), stream);
  serialize_bits(stream, baseline_id, 16);
  return info.write_delta(message, baseline, stream);
}

size_t DeltaBaselines::acked_baseline(const Rings& r, uint16_t id) const {
  const auto n = static_cast<size_t>(ring_);
  if (!r.has_acked) return n;
  const auto distance = static_cast<uint16_t>(id - r.newest_acked);
  if (distance == 0 || distance >= n) return n;
  const size_t index = r.newest_acked % n;
  const SenderSlot& slot = r.slots[index];
  return slot.valid && slot.acked && slot.id == r.newest_acked ? index : n;
}

void DeltaBaselines::write(WriteStream& stream, MessageHandle& message) {
  Rings& r = rings_[static_cast<size_t>(type_index_[message.type()])];
  const MessageTypeInfo& info = *r.info;
  const auto n = static_cast<size_t>(ring_);
  const uint16_t id = r.next_id;
  const size_t index = id % n;
  size_t base = acked_baseline(r, id);
  const uint16_t base_id = base < n ? r.slots[base].id : 0;

  // Written into the scratch buffer at the packet's bit offset modulo 32 (so `align` pads the same), to
  // measure the delta and to read back what the receiver will hold.
  const int offset = static_cast<int>(stream.bits_processed() % 32);
  const auto scratch = std::span<std::byte>(scratch_.get(), scratch_bytes_);
  const auto write_scratch = [&](const void* baseline) {
    WriteStream s(scratch);
    if (offset > 0) s.write_bits(0, offset);
    const bool ok = write_body(s, info, message.data(), id, baseline, base_id);
    s.flush();
    BITWIRE_ASSERT(ok && !s.failed());
    (void)ok;
    return s.bits_processed() - static_cast<size_t>(offset);
  };
  if (base < n) {
    const size_t delta_bits = write_scratch(sent(r, base));
    MeasureStream whole;
    info.measure(message.data(), whole);
    if (delta_bits > 17 + whole.bits_processed()) base = n;  // the whole form is smaller: send that
  }
  if (base == n) write_scratch(nullptr);

  // Keep it as read back (the baseline's slot is 1 .. n - 1 ids older, never this one).
  ReadStream read(std::span<const std::byte>(scratch_.get(), scratch_bytes_));
  uint64_t skipped = 0;
  bool ok = read.read_bits(skipped, offset + (base < n ? 33 : 17));
  ok = ok &&
       (base < n ? info.read_delta(sent(r, index), sent(r, base), read) : info.read(sent(r, index), read));
  BITWIRE_ASSERT(ok);
  (void)ok;
  r.slots[index] = SenderSlot{id, packet_, true, true, false};
  r.next_id = static_cast<uint16_t>(id + 1);

  write_body(stream, info, message.data(), id, base < n ? sent(r, base) : nullptr, base_id);
  ++(base < n ? counters_.sent_delta : counters_.sent_whole);
}

ConnectionPacketError DeltaBaselines::read(ReadStream& stream, MessageHandle& message, uint16_t& id) {
  Rings& r = rings_[static_cast<size_t>(type_index_[message.type()])];
  const auto n = static_cast<size_t>(ring_);
  bool delta = false;
  uint16_t baseline_id = 0;
  if (!serialize_bits(stream, id, 16) || !serialize_bool(stream, delta) ||
      (delta && !serialize_bits(stream, baseline_id, 16))) {
    return ConnectionPacketError::kReadFailed;
  }
  bool ok = false;
  if (delta) {
    const size_t base = baseline_id % n;
    if (!r.received_valid[base] || r.received_ids[base] != baseline_id || base == id % n) {
      ++counters_.refused_no_baseline;
      return ConnectionPacketError::kDeltaNoBaseline;
    }
    ok = r.info->read_delta(message.data(), received(r, base), stream);
  } else {
    ok = r.info->read(message.data(), stream);
  }
  if (ok) {
    ++(delta ? counters_.received_delta : counters_.received_whole);
    return ConnectionPacketError::kNone;
  }
  if (!stream.failed()) stream.fail(ReadError::kInvalidData);
  return ConnectionPacketError::kMessageBodyInvalid;
}

void DeltaBaselines::commit(const MessageHandle& message, uint16_t id) {
  Rings& r = rings_[static_cast<size_t>(type_index_[message.type()])];
  const size_t index = id % static_cast<size_t>(ring_);
  if (r.received_valid[index] && r.received_ids[index] != id &&
      !sequence_greater_than(id, r.received_ids[index])) {
    ++counters_.stale_not_kept;
    return;
  }
  r.info->copy(received(r, index), message.data());
  r.received_ids[index] = id;
  r.received_valid[index] = true;
}

void DeltaBaselines::on_packet_acked(uint16_t sequence) {
  for (int k = 0; k < ring_count_; ++k) {
    Rings& r = rings_[static_cast<size_t>(k)];
    for (size_t i = 0; i < static_cast<size_t>(ring_); ++i) {
      SenderSlot& slot = r.slots[i];
      if (!slot.valid || !slot.sent || slot.acked || slot.packet != sequence) continue;
      slot.acked = true;
      if (!r.has_acked || sequence_greater_than(slot.id, r.newest_acked)) r.newest_acked = slot.id;
      r.has_acked = true;
    }
  }
}

void DeltaBaselines::reset() {
  for (int k = 0; k < ring_count_; ++k) {
    Rings& r = rings_[static_cast<size_t>(k)];
    for (size_t i = 0; i < static_cast<size_t>(ring_); ++i) {
      r.slots[i] = SenderSlot{};
      r.received_valid[i] = false;
      r.received_ids[i] = 0;
    }
    r.next_id = 0;
    r.newest_acked = 0;
    r.has_acked = false;
  }
}

}  // namespace bitwire
