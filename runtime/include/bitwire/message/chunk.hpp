// Chunk sender / receiver: the standalone large-block protocol of "Sending Large Blocks of Data". A chunk
// (up to max_block_size bytes) travels as slice packets; the receiver answers with ack packets carrying a
// bitfield of the slices it holds. One chunk is in flight at a time; chunk ids count up from 0 and wrap at
// 65536. Scheduling (resend delay, bandwidth budget, round-robin, burst) is BlockSender's, reassembly is
// BlockReceiver's (block.hpp). The bytes are docs/blocks.md's; they run over anything that moves
// datagrams: a socket, a Link, or as the payload of an Endpoint packet.
//
//   bitwire::ChunkSender sender(config);          bitwire::ChunkReceiver receiver(config);
//   sender.send(bytes, now);                      // when !sender.sending()
//   each update:
//     sender.generate_packets(now, [&](std::span<const std::byte> p) { sendto(p); });   // slices
//     receiver.generate_packets(now, [&](std::span<const std::byte> p) { sendto(p); }); // acks
//     on a datagram at the receiver:  receiver.process_packet(bytes);
//     on a datagram at the sender:    sender.process_packet(bytes);
//     if (receiver.has_chunk()) { use receiver.chunk(); receiver.release_chunk(); }
//
// Contracts:
// - Both ends must use the same max_block_size and block.fragment_size (they decide the bytes).
// - Memory: each side allocates at construction (max_block_size bytes for the chunk, per-slice state and
//   one max_packet_size scratch packet) and never again; memory_bytes() reports it.
// - Untrusted input: process_packet accepts any bytes and returns a ChunkResult naming what happened;
//   every outcome has a counter. Nothing is stored unless the whole packet is valid.
// - Amplification: the receiver sends at most one ack packet per ack_interval (plus one re-ack of the
//   previous chunk), whatever arrives, so a flood of slices cannot make it send a flood of acks.
// - Time is passed in; generate_packets hands out each packet through the sink during the call (the span
//   is valid only then).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "bitwire/message/block.hpp"
#include "bitwire/core/config_table.hpp"

namespace bitwire {

inline constexpr uint8_t kChunkSliceKind = 0x01;
inline constexpr uint8_t kChunkAckKind = 0x02;
inline constexpr size_t kChunkSliceHeaderBytes = 7;      // kind, chunk id, slice id, slice count - 1
inline constexpr size_t kChunkLastSliceHeaderBytes = 9;  // + slice bytes - 1, on the last slice only
inline constexpr size_t kChunkAckHeaderBytes = 5;        // kind, chunk id, slice count - 1

struct ChunkConfig {
  BlockConfig block;           // chunk limits and send scheduling (both ends must agree on the sizes)
  int max_packet_size = 1200;  // largest datagram either side writes; must hold a whole slice and an ack
  double ack_interval = 0.01;  // receiver: minimum seconds between two acks of the chunk in progress

  // Bytes of the largest slice packet and of the largest ack packet this config produces.
  int max_slice_packet_bytes() const {
    return block.fragment_size + static_cast<int>(kChunkLastSliceHeaderBytes);
  }
  int max_ack_packet_bytes() const {
    return (block.max_fragments() + 7) / 8 + static_cast<int>(kChunkAckHeaderBytes);
  }

  // Passes when `block` and every field are in range (kBlockConfigLimits, kChunkConfigLimits), else the
  // reason for the first that is not (held in the ConfigCheck; see config_table.hpp).
  ConfigCheck check() const;
  // `block` sanitized, then every field clamped into its range; check() accepts the result.
  ChunkConfig sanitized() const;
};

// The largest chunk datagram: 16 bytes up to the largest slice (65536 bytes of data plus its header).
inline constexpr int kMaxChunkPacketSize = 65536 + static_cast<int>(kChunkLastSliceHeaderBytes);

// The limits of ChunkConfig's own fields (`block` has kBlockConfigLimits, checked and sanitized first:
// the bounds below read it). check() and sanitized() are derived from these two tables alone.
inline constexpr auto kChunkConfigLimits = config_table(
    // A datagram must hold a whole slice and an ack of the largest chunk.
    Field<ChunkConfig, int>{.name = "max_packet_size",
                            .member = &ChunkConfig::max_packet_size,
                            .min = 16,
                            .max = kMaxChunkPacketSize,
                            .lower = [](const ChunkConfig& c) {
                              const int slice = c.max_slice_packet_bytes();
                              const int ack = c.max_ack_packet_bytes();
                              return slice > ack ? slice : ack;
                            },
                            .lower_text = "max(block.fragment_size + 9, ceil(block.max_fragments() / 8) + 5)",
                            .unit = "bytes"},
    Field<ChunkConfig, double>{.name = "ack_interval",
                               .member = &ChunkConfig::ack_interval,
                               .min = 0.0,
                               .max = 10.0,
                               .unit = "s"});

// What process_packet did with a datagram (both sides share the list; each uses its own part).
enum class ChunkResult : uint8_t {
  // Receiver, accepted:
  kSliceAccepted,   // a new slice of the chunk in progress was stored
  kChunkCompleted,  // ... and it completed the chunk (reported once per chunk)
  kSliceDuplicate,  // a slice already held (the sender has not seen our ack yet: ack again)
  kReacked,         // a slice of the chunk completed last: answered with a full ack again
  kBusy,            // a slice of the next chunk while the completed one awaits release_chunk()
  // Sender, accepted:
  kAckApplied,    // an ack of the chunk in flight; newly acked slices stop being sent
  kAckCompleted,  // ... and every slice is now acked: the chunk is done, the sender is idle
  kAckStale,      // an ack of another chunk (late or duplicated): ignored
  // Rejected (either side):
  kTruncated,         // shorter than its header or than the length its header implies
  kTrailingBytes,     // longer than its header implies
  kBadKind,           // first byte is not this side's packet kind
  kBadChunkId,        // receiver: slice of neither the chunk expected nor the one completed last
  kSliceOutOfRange,   // slice id >= slice count
  kCountOutOfRange,   // slice count above what max_block_size allows
  kSizeMismatch,      // the last slice's size exceeds fragment_size
  kTooLarge,          // the chunk implied exceeds max_block_size
  kCountMismatch,     // slice count differs from the chunk in progress (receiver) or in flight (sender)
  kLastSizeMismatch,  // the last slice again with a different size
  kBadPadding,        // ack bitfield: bits above the slice count are set
};
inline constexpr int kChunkResultCount = 19;
const char* to_string(ChunkResult result);
bool is_rejection(ChunkResult result);

struct ChunkCounters {
  uint64_t packets_sent = 0;                 // slice packets (sender) or ack packets (receiver) generated
  uint64_t bytes_sent = 0;                   // their bytes
  uint64_t results[kChunkResultCount] = {};  // process_packet outcomes, indexed by ChunkResult
  uint64_t count(ChunkResult result) const { return results[static_cast<int>(result)]; }
};

class ChunkSender {
 public:
  explicit ChunkSender(const ChunkConfig& config = {});

  // Copies `chunk` and starts sending it at `now`. False when a chunk is in flight or the size is 0 or
  // above max_block_size.
  bool send(std::span<const std::byte> chunk, double now);

  // Hands every slice packet the budget allows now to `sink(std::span<const std::byte>)`. Returns how many.
  template <typename Sink>
  int generate_packets(double now, Sink&& sink) {
    int count = 0;
    for (size_t size = write_next_packet(now); size != 0; size = write_next_packet(now)) {
      sink(std::span<const std::byte>(scratch_.data(), size));
      ++count;
    }
    return count;
  }

  // Takes one datagram from the receiver (an ack packet). Any bytes are safe.
  ChunkResult process_packet(std::span<const std::byte> packet);

  bool sending() const { return block_.sending(); }
  uint16_t chunk_id() const { return chunk_id_; }  // of the chunk in flight, or of the next one
  uint64_t chunks_completed() const { return block_.counters().blocks_completed; }
  const BlockSender& scheduler() const { return block_; }
  const ChunkCounters& counters() const { return counters_; }
  const ChunkConfig& config() const { return config_; }
  size_t memory_bytes() const;

 private:
  // Writes the next slice packet into scratch_; 0 when none is due.
  size_t write_next_packet(double now);
  ChunkResult count_result(ChunkResult result) {
    ++counters_.results[static_cast<int>(result)];
    return result;
  }

  ChunkConfig config_;
  BlockSender block_;
  std::vector<std::byte> data_;     // the chunk in flight, max_block_size bytes
  std::vector<std::byte> scratch_;  // one packet, max_packet_size bytes
  uint16_t chunk_id_ = 0;
  ChunkCounters counters_;
};

class ChunkReceiver {
 public:
  explicit ChunkReceiver(const ChunkConfig& config = {});

  // Takes one datagram from the sender (a slice packet). Any bytes are safe.
  ChunkResult process_packet(std::span<const std::byte> packet);

  // Hands the ack packets due now to `sink(std::span<const std::byte>)`: at most one for the chunk in
  // progress and one full ack of the chunk completed last (on completion, and again when a slice of it
  // comes in again), each at most once per ack_interval. Returns how many.
  template <typename Sink>
  int generate_packets(double now, Sink&& sink) {
    int count = 0;
    for (size_t size = write_next_packet(now); size != 0; size = write_next_packet(now)) {
      sink(std::span<const std::byte>(scratch_.data(), size));
      ++count;
    }
    return count;
  }

  bool has_chunk() const { return block_.complete(); }
  // The completed chunk (empty unless has_chunk()). Valid until release_chunk().
  std::span<const std::byte> chunk() const { return block_.block(); }
  // Consumes the completed chunk; slices of the next one are accepted from now on.
  void release_chunk() { block_.release(); }

  uint16_t expected_chunk_id() const { return expected_id_; }
  const BlockReceiver& reassembly() const { return block_; }
  const ChunkCounters& counters() const { return counters_; }
  const ChunkConfig& config() const { return config_; }
  size_t memory_bytes() const;

 private:
  size_t write_next_packet(double now);
  size_t write_ack(uint16_t chunk_id, uint32_t count, bool all);
  ChunkResult count_result(ChunkResult result) {
    ++counters_.results[static_cast<int>(result)];
    return result;
  }

  ChunkConfig config_;
  BlockReceiver block_;
  std::vector<std::byte> scratch_;
  uint16_t expected_id_ = 0;         // id of the chunk being received (or next to be)
  bool has_completed_ = false;       // a chunk was completed (its id is expected_id_ - 1)
  uint32_t completed_count_ = 0;     // its slice count
  bool ack_pending_ = false;         // the chunk in progress changed or was resent since the last ack
  bool reack_pending_ = false;       // a slice of the completed chunk came in again
  double last_ack_time_ = -1e300;    // of the last ack of the chunk in progress
  double last_reack_time_ = -1e300;  // of the last full ack of the completed chunk
  ChunkCounters counters_;
};

}  // namespace bitwire
