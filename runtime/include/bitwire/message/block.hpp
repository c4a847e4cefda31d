// Large blocks: the scheduling shared by the standalone chunk sender/receiver (chunk.hpp) and the reliable
// channel's block messages. A block of up to max_block_size bytes travels as fragments of fragment_size
// bytes (the last one shorter), each resent until acked. Both classes are wire-agnostic: BlockSender
// decides *which* fragment goes next and when; BlockReceiver puts fragments back together. The caller
// frames fragments on its own wire (chunk.hpp's slice packets, or the connection's block fragment entries).
//
// Sender, each update (one block in flight at a time):
//
//   bitwire::BlockSender sender(config);                  // allocates per-fragment state for the max block
//   sender.begin(block_size, now);                        // when idle; the caller keeps the block's bytes
//   while (auto fragment = sender.next_fragment(now, room)) {   // as many as the budget allows
//     write fragment->id, block bytes [fragment->offset, + fragment->size) into a packet
//   }
//   on the peer's ack of fragment id:  sender.on_fragment_acked(id);   // kCompleted on the last one
//
// Receiver:
//
//   bitwire::BlockReceiver receiver(config);              // allocates max_block_size bytes, once
//   switch (receiver.on_fragment(block_id, fragment_id, fragment_count, bytes)) { ... }   // from the wire
//   if (receiver.complete()) { use receiver.block(); receiver.release(); }
//
// Contracts:
// - Memory: both classes allocate everything in the constructor, sized from the config (memory_bytes());
//   nothing afterwards, whatever the peer sends.
// - Time is passed in, seconds, non-decreasing; the classes never read a clock.
// - Scheduling (BlockSender): a fragment is sent again only when it is unacked and either
//   min_resend_delay has passed since its last send or, with set_fast_resend(true), a fragment sent after
//   it (at a later time) has been acked: the ack shows the hole, so the fragment is presumed lost and goes
//   as soon as the budget allows. A cursor walks a cyclic list of the unacked
//   fragments in id order, so sends spread round-robin over the whole block. Every send costs its bytes
//   plus fragment_overhead_bytes from a budget that accrues bandwidth_bytes_per_second and is capped at
//   max_budget_bytes (idle time cannot bank a larger burst); initial_burst_bytes of a new block are paid
//   from a separate one-off allowance instead.
// - Complexity: next_fragment and on_fragment_acked are O(1) worst case: the cursor skips nothing (acked
//   fragments are unlinked from the cyclic list) and, because fragments are sent in cycle order, the
//   fragment under the cursor is always the least recently sent, so when it is not yet due none is.
//   on_ack_bitfield is O(count / 8 + newly acked).
// - Untrusted input (BlockReceiver): on_fragment accepts any values. The block's first accepted fragment
//   fixes its id and fragment count; a fragment that disagrees, is out of range, has the wrong size or
//   would make the block exceed max_block_size is rejected with a BlockFragmentResult naming the reason and
//   counted. Completion is reported once (kCompleted); the block stays readable until release().
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "bitwire/core/config_table.hpp"

namespace bitwire {

// Largest number of fragments a block may have (fragment ids and counts fit 16 bits on every wire).
inline constexpr int kMaxBlockFragments = 65536;
static_assert(kMaxBlockFragments <= 65536, "BlockSender links fragment ids in 16 bits");
// Largest max_block_size a config may ask for (receivers preallocate this much).
inline constexpr int kMaxBlockSizeLimit = 64 * 1024 * 1024;

struct BlockConfig {
  int max_block_size = 256 * 1024;  // largest block in bytes; each receiver preallocates exactly this
  int fragment_size = 1024;       // data bytes per fragment; every fragment but the last carries exactly this
  double min_resend_delay = 0.1;  // seconds before an unacked fragment may be sent again
  double bandwidth_bytes_per_second = 256 * 1024;  // budget accrual (fragment data + overhead), bytes/s
  int max_budget_bytes = 16 * 1024;  // the budget never holds more than this (bounds the burst after idle)
  int initial_burst_bytes = 0;  // a new block may send this many bytes at once, outside the budget (0: off)
  int fragment_overhead_bytes = 40;  // bytes charged per fragment on top of its data (IP/UDP + framing)

  // Fragments of the largest block: ceil(max_block_size / fragment_size).
  int max_fragments() const { return (max_block_size + fragment_size - 1) / fragment_size; }
  // Seconds the budget takes to pay for a block of `size` bytes: its bytes plus fragment_overhead_bytes per
  // fragment, at bandwidth_bytes_per_second (no loss, no initial burst).
  double transfer_seconds(uint32_t size) const;

  // Passes when every field is in range (kBlockConfigLimits), else the reason for the first that is
  // not: the field, its value and its legal range (held in the ConfigCheck; see config_table.hpp).
  ConfigCheck check() const;
  // This config with every field clamped into its range (what the classes use); check() accepts it.
  BlockConfig sanitized() const;
};

// The limits of every BlockConfig field, in the order they are checked (a bound computed from other
// fields reads only fields above it). check() and sanitized() are derived from this table alone.
inline constexpr auto kBlockConfigLimits = config_table(
    Field<BlockConfig, int>{.name = "fragment_size",
                            .member = &BlockConfig::fragment_size,
                            .min = 1,
                            .max = 65536,
                            .unit = "bytes"},
    // A block has at most kMaxBlockFragments fragments.
    Field<BlockConfig, int>{.name = "max_block_size",
                            .member = &BlockConfig::max_block_size,
                            .min = 1,
                            .max = kMaxBlockSizeLimit,
                            .upper = [](const BlockConfig& c) {
                              const int64_t most = static_cast<int64_t>(c.fragment_size) * kMaxBlockFragments;
                              return static_cast<int>(most < kMaxBlockSizeLimit ? most : kMaxBlockSizeLimit);
                            },
                            .upper_text = "fragment_size * 65536",
                            .unit = "bytes"},
    Field<BlockConfig, double>{.name = "min_resend_delay",
                               .member = &BlockConfig::min_resend_delay,
                               .min = 0.0,
                               .max = 3600.0,
                               .unit = "s"},
    Field<BlockConfig, double>{.name = "bandwidth_bytes_per_second",
                               .member = &BlockConfig::bandwidth_bytes_per_second,
                               .min = 1.0,
                               .max = 1e12,
                               .unit = "bytes/s"},
    Field<BlockConfig, int>{.name = "fragment_overhead_bytes",
                            .member = &BlockConfig::fragment_overhead_bytes,
                            .min = 0,
                            .max = 65536,
                            .unit = "bytes"},
    Field<BlockConfig, int>{.name = "initial_burst_bytes",
                            .member = &BlockConfig::initial_burst_bytes,
                            .min = 0,
                            .max = 1 << 30,
                            .unit = "bytes"},
    // The budget must hold one whole fragment, or nothing is ever sent.
    Field<BlockConfig, int>{.name = "max_budget_bytes",
                            .member = &BlockConfig::max_budget_bytes,
                            .min = 1,
                            .max = 1 << 30,
                            .lower = [](const BlockConfig& c) { return c.fragment_size + c.fragment_overhead_bytes; },
                            .lower_text = "fragment_size + fragment_overhead_bytes",
                            .unit = "bytes"});

// One fragment BlockSender chose to send: bytes [offset, offset + size) of the block.
struct BlockFragment {
  uint32_t id = 0;
  uint32_t offset = 0;
  uint32_t size = 0;
  bool resend = false;  // sent before
};

// What on_fragment_acked did with an ack.
enum class BlockAckResult : uint8_t {
  kNewlyAcked,  // first ack of this fragment; the block is not complete yet
  kCompleted,   // first ack of the block's last unacked fragment: the sender is idle again
  kDuplicate,   // this fragment was already acked
  kInvalid,     // no block in flight, or the id is not a fragment of it
};
const char* to_string(BlockAckResult result);

struct BlockSenderCounters {
  uint64_t blocks_started = 0;    // begin() calls that started a block
  uint64_t blocks_completed = 0;  // blocks whose every fragment was acked
  uint64_t blocks_refused = 0;    // begin() calls refused (busy, size 0 or above max_block_size)
  uint64_t fragments_sent = 0;    // fragments handed out by next_fragment, resends included
  uint64_t fragments_resent = 0;  // of which were resends
  uint64_t bytes_sent = 0;        // fragment data bytes handed out
  uint64_t budget_spent = 0;      // bytes charged to the bandwidth budget (data + overhead)
  uint64_t burst_spent = 0;       // bytes charged to the initial burst instead
  uint64_t acks_new = 0;          // fragments newly acked
  uint64_t acks_duplicate = 0;    // acks of fragments already acked
  uint64_t acks_invalid = 0;      // acks with no block in flight or an id out of range
  friend bool operator==(const BlockSenderCounters&, const BlockSenderCounters&) = default;
};

class BlockSender {
 public:
  // A bad config is asserted in debug builds and sanitized in release (config() is what is used).
  explicit BlockSender(const BlockConfig& config = {});

  // Starts a block of `size` bytes at time `now`. Refused (false, blocks_refused) when a block is already
  // in flight or size is 0 or above max_block_size. The caller keeps the bytes until completion.
  bool begin(uint32_t size, double now);

  // Adds the budget accrued since the last call (capped at max_budget_bytes). next_fragment calls it too.
  void update(double now);

  // The next fragment to send now, or nothing: no block in flight, every unacked fragment was sent less
  // than min_resend_delay ago, the budget (or burst) cannot pay for it, or its size exceeds `max_bytes`
  // (the data bytes the caller's packet has room for). Records the send. O(1).
  std::optional<BlockFragment> next_fragment(double now, size_t max_bytes);
  // True when next_fragment(now, max_bytes) would return a fragment (the budget accrues to `now`; nothing
  // else changes). O(1). A caller that can send several packets per update asks this before each extra one.
  bool fragment_ready(double now, size_t max_bytes);

  // The peer received fragment `id`. O(1).
  BlockAckResult on_fragment_acked(uint32_t id);
  // Applies an ack bitfield (bit i of byte i / 8 set: fragment i received) covering `count` fragments of
  // the block in flight; `count` must equal fragment_count() (else nothing is applied and false returned).
  // Returns true when the bitfield was applied. O(count / 8 + newly acked).
  bool on_ack_bitfield(std::span<const std::byte> bits, uint32_t count);

  // When on, an ack of a fragment makes every unacked fragment sent before it (at an earlier time) due at
  // once, without waiting for the resend delay. Off by default (resends follow the delay alone).
  void set_fast_resend(bool on) { fast_resend_ = on; }

  // Changes the budget's rate from `now` on (e.g. from a congestion controller); what accrued until `now`
  // accrued at the old rate. False, and nothing changed, when the config would then fail check().
  bool set_bandwidth(double bytes_per_second, double now);

  // Abandons the block in flight (if any); the budget is kept.
  void cancel();
  // cancel(), zeroed counters, empty budget, clock restarted at `now`.
  void reset(double now);

  bool sending() const { return sending_; }
  uint32_t block_size() const { return block_size_; }
  uint32_t fragment_count() const { return fragment_count_; }
  uint32_t fragments_acked() const { return fragment_count_ - unacked_; }
  bool acked(uint32_t id) const;
  uint32_t fragment_size(uint32_t id) const;  // data bytes of fragment `id` of the block in flight
  double budget_bytes() const { return budget_; }
  double burst_bytes() const { return burst_; }
  const BlockSenderCounters& counters() const { return counters_; }
  const BlockConfig& config() const { return config_; }
  // Bytes allocated at construction.
  size_t memory_bytes() const;
  // What a sender of `config` (sanitized) allocates: memory_bytes() of one built from it.
  static size_t memory_required(const BlockConfig& config);

 private:
  void accrue(double now);
  void unlink(uint32_t id);
  bool due(uint32_t id, double now) const;

  BlockConfig config_;
  std::vector<double> last_sent_;  // per fragment; meaningful once the fragment was sent
  std::vector<uint16_t> next_;     // cyclic list of unacked fragments, in id order (ids < kMaxBlockFragments)
  std::vector<uint16_t> prev_;
  std::vector<uint64_t> acked_;  // bitset
  std::vector<uint64_t> sent_;   // bitset: sent at least once
  bool sending_ = false;
  uint32_t block_size_ = 0;
  uint32_t fragment_count_ = 0;
  uint32_t unacked_ = 0;
  uint32_t cursor_ = 0;
  double budget_ = 0.0;
  double burst_ = 0.0;
  double last_accrual_ = 0.0;
  double acked_sent_at_ = -1.0;  // fast resend: the latest send time among the fragments acked so far
  bool fast_resend_ = false;
  BlockSenderCounters counters_;
};

// What on_fragment did with a fragment of a block (a packet's fragments have PacketFragmentResult,
// reassembler.hpp). Everything after kCompleted is a rejection, counted by reason.
enum class BlockFragmentResult : uint8_t {
  kAccepted,          // stored; the block is not complete yet
  kCompleted,         // stored, and it was the block's last missing fragment (reported once per block)
  kDuplicate,         // this fragment of the block in progress was already stored
  kAlreadyComplete,   // a fragment of the completed block that has not been released yet
  kBusy,              // a fragment of another block while a completed block awaits release()
  kCountOutOfRange,   // fragment_count is 0 or above max_fragments
  kIdOutOfRange,      // fragment_id >= fragment_count
  kSizeMismatch,      // a fragment other than the last is not fragment_size bytes; the last is 0 or above
  kTooLarge,          // the block this fragment implies exceeds max_block_size
  kBlockIdMismatch,   // block id differs from the block in progress
  kCountMismatch,     // fragment_count differs from the block in progress
  kLastSizeMismatch,  // the last fragment again, with a different size
};
inline constexpr int kBlockFragmentResultCount = 12;
const char* to_string(BlockFragmentResult result);
// True for results that stored nothing because the fragment was wrong (not duplicates or kBusy).
bool is_rejection(BlockFragmentResult result);

struct BlockReceiverCounters {
  uint64_t blocks_completed = 0;
  uint64_t blocks_released = 0;
  uint64_t bytes_received = 0;                  // fragment data bytes stored
  uint64_t results[kBlockFragmentResultCount] = {};  // on_fragment outcomes, indexed by BlockFragmentResult
  uint64_t count(BlockFragmentResult result) const { return results[static_cast<int>(result)]; }
  friend bool operator==(const BlockReceiverCounters&, const BlockReceiverCounters&) = default;
};

class BlockReceiver {
 public:
  // A bad config is asserted in debug builds and sanitized in release (config() is what is used).
  explicit BlockReceiver(const BlockConfig& config = {});

  // What on_fragment would answer for this fragment, without storing or counting anything: lets a caller
  // check a whole packet before applying any of it. kCompleted is reported as kAccepted.
  BlockFragmentResult classify(uint32_t block_id, uint32_t fragment_id, uint32_t fragment_count,
                               size_t size) const;
  // Takes one fragment from the wire. Any values are safe. `bytes` is copied when accepted.
  BlockFragmentResult on_fragment(uint32_t block_id, uint32_t fragment_id, uint32_t fragment_count,
                                  std::span<const std::byte> bytes);

  bool receiving() const { return receiving_; }  // a block is in progress (at least one fragment stored)
  bool complete() const { return complete_; }    // a block is complete and awaits release()
  // For a fragment classify() accepted: true when storing it completes its block (it is the only one
  // still missing, or the whole block is one fragment).
  bool completes(uint32_t fragment_count) const {
    return receiving_ ? received_count_ + 1 == fragment_count_ : fragment_count == 1;
  }
  uint32_t block_id() const { return block_id_; }
  uint32_t fragment_count() const { return fragment_count_; }
  uint32_t fragments_received() const { return received_count_; }
  bool received(uint32_t fragment_id) const;
  // The completed block (empty unless complete()). Valid until release() or reset().
  std::span<const std::byte> block() const;
  // The receiver's own reassembly buffer (max_block_size bytes, fixed at construction).
  const std::byte* storage() const { return data_.data(); }
  // Where the next block is reassembled: `buffer` (max_block_size bytes, the caller's, valid until it is
  // set again), or nullptr for storage(). Only while idle (neither receiving() nor complete()): returns
  // false and changes nothing otherwise. Lets the owner reassemble into another buffer while its own is
  // lent out; the receiver never reads or writes a buffer it is not set to.
  bool set_buffer(std::byte* buffer);
  // Writes ceil(fragment_count / 8) bytes, bit i of byte i / 8 set when fragment i is stored (all set once
  // complete); unused high bits of the last byte are zero. Returns the bytes written (0 when idle), at
  // most out.size(): a short `out` gets nothing written and 0 returned.
  size_t write_received_bits(std::span<std::byte> out) const;

  // Consumes the completed block: back to idle, ready for the next. Does nothing unless complete().
  void release();
  // Abandons any block in progress or completed; counters are kept.
  void reset();

  const BlockReceiverCounters& counters() const { return counters_; }
  const BlockConfig& config() const { return config_; }
  size_t memory_bytes() const;
  // What a receiver of `config` (sanitized) allocates: memory_bytes() of one built from it.
  static size_t memory_required(const BlockConfig& config);

 private:
  BlockFragmentResult count_result(BlockFragmentResult result) {
    ++counters_.results[static_cast<int>(result)];
    return result;
  }

  BlockConfig config_;
  std::vector<std::byte> data_;     // max_block_size bytes
  std::byte* buffer_ = nullptr;     // set_buffer()'s, where blocks are reassembled; nullptr: data_
  std::byte* target() { return buffer_ != nullptr ? buffer_ : data_.data(); }
  const std::byte* target() const { return buffer_ != nullptr ? buffer_ : data_.data(); }
  std::vector<uint64_t> received_;  // bitset over max_fragments
  bool receiving_ = false;
  bool complete_ = false;
  uint32_t block_id_ = 0;
  uint32_t fragment_count_ = 0;
  uint32_t received_count_ = 0;
  uint32_t last_size_ = 0;  // bytes of the last fragment once stored
  BlockReceiverCounters counters_;
};

}  // namespace bitwire
