// Reassembler: puts fragmented packets back together in a fixed set of slots, each holding one whole
// packet, with a window of packet sequences that may be in reassembly at once.
//
// Contracts:
// - Memory: every buffer is sized at construction; add() and reset() never allocate. The config has a table
//   (kReassemblerConfigLimits, at most kMaxReassemblerMemoryBytes); a refused one is flagged and sanitized.
// - Constant time: add() looks a packet up by sequence (a SequenceBuffer index), takes a free slot from a
//   stack, and when none is free evicts the reassembly started longest ago (a list in start order). The
//   work per fragment does not grow with the number of slots (operations() counts it); moving the window
//   forward empties the skipped index entries, at most `window` of them.
// - Fragments are validated by the caller (id < count <= max_fragments, non-final fragments exactly
//   fragment_size bytes, the final one 1..fragment_size); one outside the config in use (count, id or
//   size) is refused as kInvalid all the same, in every build. The reassembler checks that every fragment of
//   one sequence agrees with the first stored: a fragment whose count differs, or that repeats an index
//   with different bytes (or, for fragment 0, a different embedded ack header, ack delay extension included), is a conflict. A conflict
//   drops that one reassembly and the fragment; no other packet is touched, and the conflicting bytes are
//   never delivered. Fragments that agree are indistinguishable from the genuine ones: without
//   authentication a forged fragment that arrives first and agrees on the count is delivered as part of
//   the packet (as a forged whole packet would be).
// - A completed packet's bytes stay valid until the next add() or reset().
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "bitwire/core/config_table.hpp"
#include "bitwire/core/datagram.hpp"
#include "bitwire/packet/sequence.hpp"

namespace bitwire {

// The most memory a Reassembler may take (memory_required()); the slot count is bounded by it. 64 MiB, the
// endpoint's own cap (kMaxEndpointMemoryBytes), so every config an Endpoint derives fits.
inline constexpr size_t kMaxReassemblerMemoryBytes = size_t{64} << 20;

struct ReassemblerConfig {
  int window = 64;           // packet sequences that may be in reassembly at once (rounded up to 2^k)
  int slots = 32;            // packets reassembled at once; each holds max_fragments * fragment_size bytes
  int max_fragments = 16;    // fragments per packet, 1..256
  int fragment_size = 1024;  // payload bytes per fragment

  // Passes when every field is within kReassemblerConfigLimits, else the reason (held in the ConfigCheck; see
  // config_table.hpp).
  ConfigCheck check() const;
  // This config with every field clamped into range (slots lowered to the memory cap).
  ReassemblerConfig sanitized() const;
};

namespace detail {
// The most slots that keep a reassembler of `config` (its other fields) within kMaxReassemblerMemoryBytes.
int reassembler_max_slots(const ReassemblerConfig& config);
}  // namespace detail

// The limits of ReassemblerConfig, in check order: slots last (its memory bound reads the other fields).
inline constexpr auto kReassemblerConfigLimits = config_table(
    Field<ReassemblerConfig, int>{.name = "window",
                                  .member = &ReassemblerConfig::window,
                                  .min = 1,
                                  .max = 32768,
                                  .power_of_two = true},
    Field<ReassemblerConfig, int>{
        .name = "max_fragments", .member = &ReassemblerConfig::max_fragments, .min = 1, .max = 256},
    Field<ReassemblerConfig, int>{.name = "fragment_size",
                                  .member = &ReassemblerConfig::fragment_size,
                                  .min = 1,
                                  .max = static_cast<int>(kMaxUdpPayloadBytes),
                                  .unit = "bytes"},
    Field<ReassemblerConfig, int>{.name = "slots",
                                  .member = &ReassemblerConfig::slots,
                                  .min = 1,
                                  .max = 65536,
                                  .upper = &detail::reassembler_max_slots,
                                  .upper_text = "what keeps memory_required() within 64 MiB"});

// What add() did with one fragment of a packet (the endpoint's fragments; a block's fragments have
// BlockFragmentResult, block.hpp).
enum class PacketFragmentResult : uint8_t {
  kStored,     // stored; its packet is not complete yet
  kComplete,   // stored and its packet is complete: completed() describes it
  kDuplicate,  // this fragment (same bytes) was already stored
  kStale,      // older than the reassembly window
  kConflict,   // disagrees with the fragments already stored: that reassembly was dropped
  kInvalid,    // outside the config in use (count, id or size; the caller's validation missed it): refused
};

// The acknowledgment part of the header embedded in fragment 0 (PacketHeader without the sequence):
// carried into the completed packet, and compared when fragment 0 repeats.
struct EmbeddedAck {
  uint16_t ack = 0;
  uint32_t ack_bits = 0;
  bool has_ack_delay = false;    // the ack delay extension was present
  uint8_t ack_delay_offset = 0;  // it times packet ack - ack_delay_offset
  uint8_t ack_delay = 0;         // its code (ack_delay_ms)
  friend bool operator==(const EmbeddedAck&, const EmbeddedAck&) = default;
};

// A completed packet: its payload and the ack header fragment 0 carried.
struct ReassembledPacket {
  std::span<const std::byte> data;  // inside the reassembler's slot
  uint16_t sequence = 0;
  EmbeddedAck header;       // fragment 0's embedded acknowledgment fields
  uint32_t wire_bytes = 0;  // the sum of the wire_bytes passed with its fragments
};

class Reassembler {
 public:
  // A config that fails check() is flagged (ok() false, error_reason() says why) and its sanitized() copy is
  // used.
  explicit Reassembler(const ReassemblerConfig& config);

  Reassembler(const Reassembler&) = delete;
  Reassembler& operator=(const Reassembler&) = delete;
  Reassembler(Reassembler&&) noexcept = default;
  Reassembler& operator=(Reassembler&&) noexcept = default;

  // Stores fragment `id` of `count` of packet `sequence`. `header` is fragment 0's embedded acknowledgment
  // fields (ignored for other ids). `wire_bytes` is added up for the packet's bandwidth accounting.
  PacketFragmentResult add(uint16_t sequence, uint32_t id, uint32_t count, std::span<const std::byte> body,
                           const EmbeddedAck& header, uint32_t wire_bytes);
  // The same, for a header without the ack delay extension.
  PacketFragmentResult add(uint16_t sequence, uint32_t id, uint32_t count, std::span<const std::byte> body,
                           uint16_t ack, uint32_t ack_bits, uint32_t wire_bytes) {
    return add(sequence, id, count, body, EmbeddedAck{ack, ack_bits}, wire_bytes);
  }

  // The packet the last add() completed (valid after kComplete, until the next add() or reset()).
  const ReassembledPacket& completed() const { return completed_; }

  // True when a fragment of `sequence` would not be refused as older than the window.
  bool in_window(uint16_t sequence) const { return index_.can_insert(sequence); }
  // True when some fragment of `sequence` is stored.
  bool holds(uint16_t sequence) const;

  // Drops every reassembly and forgets the window.
  void reset();

  // Reassemblies dropped to make room (the one started longest ago), and dropped for a conflict.
  uint64_t evicted() const { return evicted_; }
  uint64_t conflicts() const { return conflicts_; }
  // Slot and index operations done so far: a work count that stays proportional to the fragments added,
  // whatever the number of slots (tests assert it).
  uint64_t operations() const { return operations_; }
  int busy_slots() const { return slots_ - free_count_; }

  size_t memory_bytes() const { return memory_required(config_); }
  // What a reassembler of `config` allocates (its fields taken as given, at least 1; window rounded up).
  static size_t memory_required(const ReassemblerConfig& config);
  // The config in use (sanitized), and nullptr or why the one given to the constructor was refused.
  const ReassemblerConfig& config() const { return config_; }
  bool ok() const { return error_reason_[0] == '\0'; }
  const char* error_reason() const { return ok() ? nullptr : error_reason_; }

 private:
  struct Slot {
    uint64_t have[4] = {};   // bit i: fragment i stored
    uint32_t last_size = 0;  // payload bytes of the final fragment, once stored
    uint32_t wire_bytes = 0;
    EmbeddedAck header;  // fragment 0's, once stored
    uint16_t sequence = 0;
    uint16_t fragment_count = 0;
    uint16_t fragments_stored = 0;
    int32_t older = -1;  // start-order list: the slot started just before this one
    int32_t newer = -1;
    bool busy = false;
  };

  int acquire(uint16_t sequence);  // a free slot, else evicts the oldest-started reassembly
  void release(int slot);          // unlinks a busy slot and returns it to the free stack
  std::byte* slot_bytes(int slot) { return data_.get() + static_cast<size_t>(slot) * stride_; }

  ReassemblerConfig config_;
  char error_reason_[kConfigReasonBytes] = {};  // empty, or why the given config was refused
  int slots_ = 0;
  size_t stride_ = 0;
  SequenceBuffer<uint16_t> index_;  // sequence -> slot
  std::unique_ptr<Slot[]> slot_;
  std::unique_ptr<uint16_t[]> free_;  // stack of free slot numbers
  int free_count_ = 0;
  int32_t oldest_ = -1;  // start-order list ends
  int32_t newest_ = -1;
  std::unique_ptr<std::byte[]> data_;
  ReassembledPacket completed_;
  uint64_t evicted_ = 0;
  uint64_t conflicts_ = 0;
  uint64_t operations_ = 0;
};

}  // namespace bitwire
