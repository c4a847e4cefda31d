// The packet sequences of a recent window that something was done for once: the connection marks each
// packet it applied in order only (the gap rule: not acked, so the network may still bring a duplicate of
// it), so that a duplicate does not apply its unreliable messages a second time. Memory fixed at
// construction: one bit per sequence of the window, a power of two of at least 64.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "bitwire/packet/sequence.hpp"

namespace bitwire::detail {

class SequenceMarks {
 public:
  SequenceMarks() = default;
  // Remembers marks for `window` sequences behind the newest one seen (rounded up to a power of two, at
  // least 64, at most 32768: half the sequence space, so that newer and older stay defined).
  explicit SequenceMarks(int window)
      : words_(new uint64_t[bits_for(window) / 64]), bits_(static_cast<uint16_t>(bits_for(window))) {
    clear();
  }

  static uint32_t bits_for(int window) {
    return std::bit_ceil(static_cast<uint32_t>(std::clamp(window, 64, 32768)));
  }
  static size_t memory_required(int window) { return bits_for(window) / 8; }
  size_t memory_bytes() const { return bits_ / 8; }

  void clear() {
    std::fill(words_.get(), words_.get() + bits_ / 64, uint64_t{0});
    live_ = false;
  }

  // True when `sequence` was marked and is still in the window. A sequence behind the window, or any after
  // the peer's sequence moved by half its space or more (a resync), is taken as not marked: the endpoint
  // refuses as stale every sequence a whole received window behind the newest it took, recorded or
  // deferred (ReceiveWindow::classify), and the front here never passes that newest, so with a window no
  // larger than this one every duplicate it still passes is within these marks. A restart of the
  // endpoint's received window (a backward resync, a reset) starts a new stream of the peer's sequences,
  // which the old marks say nothing about: the owner clear()s them before asking about any packet after
  // it, whichever direction that packet is from the front (Endpoint::receive_restarts). A forward resync
  // keeps them: the front moves on as for any newer packet, and an old packet's duplicate still within the
  // window is still known.
  bool marked(uint16_t sequence) {
    if (!live_) return false;  // nothing marked within the window: one branch per packet
    advance(sequence);
    if (!live_) return false;
    const auto behind = static_cast<uint16_t>(newest_ - sequence);
    return behind < bits_ && (words_[index(sequence) / 64] >> (index(sequence) % 64) & 1u) != 0;
  }

  // Moves the window's front to `sequence` when it is newer, as marked() does, for a packet that is never
  // asked about (refused before it is applied): the front follows every packet taken, so a mark is never
  // read back after the sequence space has wrapped under it.
  void observe(uint16_t sequence) {
    if (live_) advance(sequence);
  }

  void mark(uint16_t sequence) {
    if (live_) advance(sequence);
    if (!live_ || static_cast<uint16_t>(newest_ - sequence) >= bits_) {
      // Nothing marked (every bit is clear then), or behind the window (a resync): the window starts here.
      if (live_) clear();
      newest_ = sequence;
      last_mark_ = sequence;
      live_ = true;
    } else if (sequence_greater_than(sequence, last_mark_)) {
      last_mark_ = sequence;
    }
    words_[index(sequence) / 64] |= uint64_t{1} << (index(sequence) % 64);
  }

 private:
  uint32_t index(uint16_t sequence) const { return sequence & (bits_ - 1); }

  // Moves the window's front to `sequence` when it is newer, clearing the marks of the sequences it passes
  // (each bit is reused by the sequence bits_ later); past a whole window nothing is left marked.
  void advance(uint16_t sequence) {
    if (!sequence_greater_than(sequence, newest_)) return;
    const auto step = static_cast<uint16_t>(sequence - newest_);
    if (step >= bits_) {
      clear();
      return;
    }
    // The bits of newest_ + 1 .. sequence, a word at a time (the range may wrap past the last bit).
    uint32_t first = index(static_cast<uint16_t>(newest_ + 1));
    for (uint32_t left = step; left > 0;) {
      const uint32_t bit = first % 64;
      const uint32_t count = std::min<uint32_t>(left, 64 - bit);
      const uint64_t ones = count == 64 ? ~uint64_t{0} : (uint64_t{1} << count) - 1;
      words_[first / 64] &= ~(ones << bit);
      first = (first + count) & (bits_ - 1);
      left -= count;
    }
    newest_ = sequence;
    // The newest mark's bit is cleared once the front is a whole window past it: none is left.
    if (static_cast<uint16_t>(newest_ - last_mark_) >= bits_) live_ = false;
  }

  std::unique_ptr<uint64_t[]> words_;
  uint16_t bits_ = 0;       // 64 .. 32768
  uint16_t newest_ = 0;     // the newest sequence the window has seen since its first mark
  uint16_t last_mark_ = 0;  // the newest sequence marked
  bool live_ = false;       // a mark may be set (false: every bit is clear)
};

}  // namespace bitwire::detail
