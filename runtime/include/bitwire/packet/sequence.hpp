// 16-bit wrapping sequence numbers and SequenceBuffer<T>, the ring the endpoint keeps its sent, received and
// reassembly records in.
//
// Sequence numbers wrap at 65536. One rule decides order, and both functions below derive from it:
//   sequence_difference(a, b) is the signed step count from b to a of smallest magnitude, in
//   [-32767, 32767]; at exactly half the range (32768 apart) both directions are equally short, and the
//   numerically larger sequence counts as the newer one: +32768 when a > b, -32768 when a < b.
//   sequence_greater_than(a, b) == (sequence_difference(a, b) > 0).
// This is reliable 1.0's comparison (wire-format.md section 2) exactly, including its half-range case, so
// interop is unchanged; the difference agrees with it everywhere and is antisymmetric:
// sequence_difference(a, b) == -sequence_difference(b, a), and b + sequence_difference(a, b) == a mod 65536.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "bitwire/core/config.hpp"

namespace bitwire {

// Signed distance from s2 to s1 by the rule above, in [-32768, 32768]: positive when s1 is newer.
constexpr int sequence_difference(uint16_t s1, uint16_t s2) {
  const int forward = static_cast<uint16_t>(s1 - s2);  // 0..65535 steps forward from s2 to s1
  if (forward < 32768) return forward;
  if (forward > 32768) return forward - 65536;
  return s1 > s2 ? 32768 : -32768;
}

// True when s1 is newer than s2 (modulo 65536).
constexpr bool sequence_greater_than(uint16_t s1, uint16_t s2) {
  return sequence_difference(s1, s2) > 0;
}

// True when s1 is older than s2 (modulo 65536).
constexpr bool sequence_less_than(uint16_t s1, uint16_t s2) {
  return sequence_greater_than(s2, s1);
}

// A ring of `capacity` entries indexed by 16-bit sequence number: O(1) insert, find and remove.
//
// Contracts:
// - Storage is allocated once, in the constructor; nothing afterwards allocates. The capacity is rounded up
//   to a power of two (at most 65536) so that `sequence & mask` maps any `capacity` consecutive sequences to
//   distinct slots across the 65535 -> 0 wrap.
// - Each slot carries a 32-bit tag, kEmpty (0xFFFFFFFF) when free; no 16-bit sequence can equal it, so a
//   lookup is one compare.
// - The buffer tracks the newest sequence inserted. Inserting a newer one first removes every entry the
//   newer sequence skipped over (the slots between the old newest and the new one), so a record left from
//   an earlier lap of the ring can never be found under a sequence it does not belong to.
// - A sequence 1..32767 steps after the newest is newer. Inserting a sequence older than
//   `newest - capacity + 1` (or 32768 or more steps back) fails (returns nullptr): there is no slot left
//   that could hold it without evicting something newer. Every capacity up to 65536 holds its whole window.
// - A fresh or reset buffer accepts any first sequence and takes it as the newest.
// - T must be default constructible and assignable; an inserted entry starts as T{}.
template <typename T>
class SequenceBuffer {
 public:
  static constexpr uint32_t kEmpty = 0xFFFFFFFFu;

  explicit SequenceBuffer(size_t capacity)
      : capacity_(round_capacity(capacity)),
        mask_(static_cast<uint32_t>(capacity_ - 1)),
        tags_(new uint32_t[capacity_]),
        entries_(new T[capacity_]) {
    reset();
  }

  SequenceBuffer(const SequenceBuffer&) = delete;
  SequenceBuffer& operator=(const SequenceBuffer&) = delete;
  SequenceBuffer(SequenceBuffer&&) noexcept = default;
  SequenceBuffer& operator=(SequenceBuffer&&) noexcept = default;

  // Empties every slot and forgets the newest sequence.
  void reset() {
    for (size_t i = 0; i < capacity_; ++i) tags_[i] = kEmpty;
    next_ = 0;
    started_ = false;
  }

  size_t capacity() const { return capacity_; }

  // Bytes of storage this buffer allocated.
  size_t memory_bytes() const { return capacity_ * (sizeof(uint32_t) + sizeof(T)); }
  // What a buffer of `capacity` (rounded as the constructor rounds it) allocates.
  static size_t memory_required(size_t capacity) { return round_capacity(capacity) * (sizeof(uint32_t) + sizeof(T)); }

  // One past the newest sequence inserted (0 for a fresh buffer).
  uint16_t next_sequence() const { return next_; }
  // The newest sequence inserted; meaningful once has_newest() is true.
  uint16_t newest() const { return static_cast<uint16_t>(next_ - 1); }
  bool has_newest() const { return started_; }

  // True when insert(sequence) would succeed.
  bool can_insert(uint16_t sequence) const { return !started_ || fits(steps_after_newest(sequence)); }

  // Inserts (or replaces) the entry for `sequence`, reset to T{}. Returns nullptr when the sequence is too
  // old to fit (see the class contract).
  T* insert(uint16_t sequence) {
    if (!started_) {
      started_ = true;
      next_ = static_cast<uint16_t>(sequence + 1);
      clear_all();
    } else {
      const uint16_t steps = steps_after_newest(sequence);
      if (!fits(steps)) return nullptr;
      if (steps != 0 && steps < 32768) {
        remove_range(next_, sequence);
        next_ = static_cast<uint16_t>(sequence + 1);
      }
    }
    const uint32_t index = sequence & mask_;
    tags_[index] = sequence;
    entries_[index] = T{};
    return &entries_[index];
  }

  T* find(uint16_t sequence) {
    const uint32_t index = sequence & mask_;
    return tags_[index] == sequence ? &entries_[index] : nullptr;
  }
  const T* find(uint16_t sequence) const {
    const uint32_t index = sequence & mask_;
    return tags_[index] == sequence ? &entries_[index] : nullptr;
  }
  bool exists(uint16_t sequence) const { return tags_[sequence & mask_] == sequence; }

  // Removes the entry for `sequence` if present. Does not change the newest sequence.
  void remove(uint16_t sequence) {
    const uint32_t index = sequence & mask_;
    if (tags_[index] == sequence) tags_[index] = kEmpty;
  }

  // Slot access for whole-buffer scans: the entry in slot `index` (< capacity()) or nullptr when empty.
  T* at_index(size_t index) { return tags_[index] != kEmpty ? &entries_[index] : nullptr; }
  const T* at_index(size_t index) const { return tags_[index] != kEmpty ? &entries_[index] : nullptr; }
  // The sequence stored in slot `index`, or kEmpty.
  uint32_t tag_at_index(size_t index) const { return tags_[index]; }

 private:
  static size_t round_capacity(size_t capacity) {
    BITWIRE_ASSERT(capacity >= 1 && capacity <= 65536);
    if (capacity < 1) capacity = 1;
    if (capacity > 65536) capacity = 65536;
    size_t rounded = 1;
    while (rounded < capacity) rounded <<= 1;
    return rounded;
  }

  // How far `sequence` is forward of the newest, modulo 65536: 1..32767 is newer; 0 is the newest itself;
  // 32768..65535 is 32768..1 steps older. Plain modular arithmetic, so the rule holds at every capacity,
  // 65536 included, whatever the sequence compare functions do at exactly half the range.
  uint16_t steps_after_newest(uint16_t sequence) const {
    return static_cast<uint16_t>(sequence - static_cast<uint16_t>(next_ - 1));
  }
  // True when a sequence `steps` after the newest can be held: any newer one, or an older one less than
  // capacity_window() steps back (at most 32767: 32768 back is as far ahead as behind, refused).
  bool fits(uint16_t steps) const {
    if (steps < 32768) return true;
    const uint32_t back = 65536u - steps;
    return back < capacity_window();
  }

  // The span of sequences that can be held: the whole ring, but at most 32768 (the newest and the 32767
  // before it), since newer-or-older is only defined within half the sequence space.
  uint32_t capacity_window() const { return capacity_ >= 32768 ? 32768u : static_cast<uint32_t>(capacity_); }

  void clear_all() {
    for (size_t i = 0; i < capacity_; ++i) tags_[i] = kEmpty;
  }

  // Empties the slots of sequences first..last inclusive (forward, wrapping).
  void remove_range(uint16_t first, uint16_t last) {
    const uint32_t span = static_cast<uint16_t>(last - first) + 1u;
    if (span >= capacity_) {
      clear_all();
      return;
    }
    for (uint32_t i = 0; i < span; ++i) tags_[(first + i) & mask_] = kEmpty;
  }

  size_t capacity_;
  uint32_t mask_;
  std::unique_ptr<uint32_t[]> tags_;
  std::unique_ptr<T[]> entries_;
  uint16_t next_ = 0;
  bool started_ = false;
};

}  // namespace bitwire
