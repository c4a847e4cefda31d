// Reassembler: slot index by sequence, free-slot stack, start-order list for eviction.
#include "bitwire/packet/reassembler.hpp"

#include <algorithm>
#include <cstring>

#include "bitwire/core/config.hpp"

namespace bitwire {

namespace {

size_t round_pow2(int value) {
  size_t rounded = 1;
  while (rounded < static_cast<size_t>(std::max(value, 1))) rounded <<= 1;
  return rounded;
}

}  // namespace

ConfigCheck ReassemblerConfig::check() const {
  return check_config("ReassemblerConfig", *this, kReassemblerConfigLimits);
}

ReassemblerConfig ReassemblerConfig::sanitized() const { return sanitize_config(*this, kReassemblerConfigLimits); }

int detail::reassembler_max_slots(const ReassemblerConfig& config) {
  // Memory is linear in the slot count: the per-slot figure is the difference between two and one slots.
  ReassemblerConfig probe = config;
  probe.slots = 1;
  const size_t one = Reassembler::memory_required(probe);
  probe.slots = 2;
  const size_t per_slot = Reassembler::memory_required(probe) - one;
  const size_t base = one - per_slot;
  if (base >= kMaxReassemblerMemoryBytes) return 0;
  return static_cast<int>(std::min<size_t>((kMaxReassemblerMemoryBytes - base) / per_slot, 1 << 30));
}

// Every size below comes from the sanitized config: a refused one never reaches an allocation or the
// 256-bit fragment mask.
Reassembler::Reassembler(const ReassemblerConfig& config)
    : config_(config.sanitized()),
      slots_(config_.slots),
      stride_(static_cast<size_t>(config_.max_fragments) * static_cast<size_t>(config_.fragment_size)),
      index_(round_pow2(config_.window)),
      slot_(new Slot[static_cast<size_t>(slots_)]),
      free_(new uint16_t[static_cast<size_t>(slots_)]),
      data_(new std::byte[static_cast<size_t>(slots_) * stride_]) {
  keep_config_reason(error_reason_, config.check());
  reset();
}

size_t Reassembler::memory_required(const ReassemblerConfig& config) {
  const size_t slots = static_cast<size_t>(std::max(config.slots, 1));
  const size_t stride = static_cast<size_t>(std::max(config.max_fragments, 1)) *
                        static_cast<size_t>(std::max(config.fragment_size, 1));
  return round_pow2(config.window) * (sizeof(uint32_t) + sizeof(uint16_t)) +
         slots * (sizeof(Slot) + sizeof(uint16_t) + stride);
}

void Reassembler::reset() {
  index_.reset();
  for (int s = 0; s < slots_; ++s) {
    slot_[s] = Slot{};
    // Pop order 0, 1, 2, ...: the stack holds the highest number at the bottom.
    free_[s] = static_cast<uint16_t>(slots_ - 1 - s);
  }
  free_count_ = slots_;
  oldest_ = newest_ = -1;
  completed_ = ReassembledPacket{};
}

bool Reassembler::holds(uint16_t sequence) const {
  const uint16_t* mapped = index_.find(sequence);
  return mapped != nullptr && slot_[*mapped].busy && slot_[*mapped].sequence == sequence;
}

void Reassembler::release(int s) {
  Slot& slot = slot_[s];
  BITWIRE_ASSERT(slot.busy);
  if (const uint16_t* mapped = index_.find(slot.sequence); mapped != nullptr && *mapped == s) {
    index_.remove(slot.sequence);
  }
  if (slot.older >= 0)
    slot_[slot.older].newer = slot.newer;
  else
    oldest_ = slot.newer;
  if (slot.newer >= 0)
    slot_[slot.newer].older = slot.older;
  else
    newest_ = slot.older;
  slot.busy = false;
  slot.older = slot.newer = -1;
  free_[free_count_++] = static_cast<uint16_t>(s);
  ++operations_;
}

int Reassembler::acquire(uint16_t sequence) {
  if (free_count_ == 0) {
    // Every slot is busy: the reassembly started longest ago gives way. Its packet either lost a
    // fragment or is being outpaced by `slots` newer packets; either way it is the least likely to finish.
    BITWIRE_ASSERT(oldest_ >= 0);
    release(oldest_);
    ++evicted_;
  }
  const int s = free_[--free_count_];
  Slot& slot = slot_[s];
  slot = Slot{};
  slot.busy = true;
  slot.sequence = sequence;
  slot.older = newest_;
  if (newest_ >= 0)
    slot_[newest_].newer = s;
  else
    oldest_ = s;
  newest_ = s;
  ++operations_;
  return s;
}

PacketFragmentResult Reassembler::add(uint16_t sequence, uint32_t id, uint32_t count,
                                      std::span<const std::byte> body, const EmbeddedAck& header,
                                      uint32_t wire_bytes) {
  const size_t body_size = body.size();
  ++operations_;
  // The caller validates; this is the reassembler's own bound (the mask holds 256 fragments, a slot
  // max_fragments * fragment_size bytes), kept in release builds too.
  if (count < 1 || count > static_cast<uint32_t>(config_.max_fragments) || id >= count ||
      body_size > static_cast<size_t>(config_.fragment_size)) {
    return PacketFragmentResult::kInvalid;
  }
  const size_t fragment_size = static_cast<size_t>(config_.fragment_size);
  const bool last = id == count - 1;
  const uint64_t bit = uint64_t{1} << (id & 63);

  int s = -1;
  if (const uint16_t* mapped = index_.find(sequence);
      mapped != nullptr && slot_[*mapped].busy && slot_[*mapped].sequence == sequence) {
    s = *mapped;
  }
  if (s < 0) {
    if (!index_.can_insert(sequence)) return PacketFragmentResult::kStale;
    if (index_.has_newest()) {
      // Moving the window forward empties the index entries it skips (at most the whole index).
      const uint16_t ahead = static_cast<uint16_t>(sequence - index_.newest());
      if (ahead != 0 && ahead < 32768) operations_ += std::min<size_t>(ahead, index_.capacity());
    }
    s = acquire(sequence);
    uint16_t* entry = index_.insert(sequence);
    BITWIRE_ASSERT(entry != nullptr);
    *entry = static_cast<uint16_t>(s);
    slot_[s].fragment_count = static_cast<uint16_t>(count);
  } else {
    Slot& slot = slot_[s];
    bool agrees = slot.fragment_count == count;
    if (agrees && (slot.have[id >> 6] & bit) != 0) {
      // A repeat: the same bytes are a harmless duplicate, different bytes a conflict.
      agrees = std::memcmp(slot_bytes(s) + id * fragment_size, body.data(), body_size) == 0 &&
               (!last || slot.last_size == body_size) &&
               (id != 0 || slot.header == header);
      if (agrees) return PacketFragmentResult::kDuplicate;
    }
    if (!agrees) {
      release(s);
      ++conflicts_;
      return PacketFragmentResult::kConflict;
    }
  }

  Slot& slot = slot_[s];
  if (body_size > 0) std::memcpy(slot_bytes(s) + id * fragment_size, body.data(), body_size);
  if (id == 0) slot.header = header;
  if (last) slot.last_size = static_cast<uint32_t>(body_size);
  slot.have[id >> 6] |= bit;
  slot.wire_bytes += wire_bytes;
  ++slot.fragments_stored;
  if (slot.fragments_stored < slot.fragment_count) return PacketFragmentResult::kStored;

  completed_.data = std::span<const std::byte>(
      slot_bytes(s), (static_cast<size_t>(slot.fragment_count) - 1) * fragment_size + slot.last_size);
  completed_.sequence = sequence;
  completed_.header = slot.header;
  completed_.wire_bytes = slot.wire_bytes;
  release(s);  // the bytes stay in place until the slot is handed out again
  return PacketFragmentResult::kComplete;
}

}  // namespace bitwire
