// Hostile datagrams into a ChunkReceiver and a ChunkSender, interleaved with honest slices.
//
// Input: byte 0 selects the config (bit 0: 16-byte slices, else 64) and whether honest slices of a real
// chunk are mixed in (bit 1). The rest is a list of records [op][u16 little-endian length][bytes] (the last
// takes what remains): op bit 0 sends the bytes to the receiver, else to the sender; op bit 1 releases a
// completed chunk first; op bits 2..7 advance time by that many milliseconds.
//
// Checked on every input (a violation traps): every datagram gets exactly one counted outcome; a completed
// chunk is reported exactly once and never exceeds max_block_size; memory_bytes never changes; every
// packet either side generates fits max_packet_size; every ack the receiver generates is well formed
// (the sender never rejects it as truncated, padded or of a wrong kind).
#include <cstddef>
#include <cstdint>
#include <span>

#include "bitwire/message/chunk.hpp"

namespace {

bitwire::ChunkConfig fuzz_config(bool small) {
  bitwire::ChunkConfig config;
  config.block.fragment_size = small ? 16 : 64;
  config.block.max_block_size = small ? 16 * 40 : 64 * 30 - 5;
  config.block.min_resend_delay = 0.02;
  config.max_packet_size = 200;
  config.ack_interval = 0.005;
  return config;
}

uint64_t total(const bitwire::ChunkCounters& c) {
  uint64_t sum = 0;
  for (uint64_t n : c.results) sum += n;
  return sum;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const bitwire::ChunkConfig config = fuzz_config(data[0] & 1);
  const bool honest = data[0] & 2;
  bitwire::ChunkReceiver receiver(config);
  bitwire::ChunkSender sender(config);
  bitwire::ChunkSender honest_sender(config);
  const size_t receiver_memory = receiver.memory_bytes();
  const size_t sender_memory = sender.memory_bytes();
  static std::byte chunk[64 * 30];
  for (size_t i = 0; i < sizeof chunk; ++i) chunk[i] = static_cast<std::byte>((i * 31 + 7) & 0xFFu);
  sender.send(std::span(chunk, 300), 0.0);
  honest_sender.send(std::span(chunk, static_cast<size_t>(config.block.max_block_size) - 3), 0.0);

  uint64_t to_receiver = 0, to_sender = 0, completions = 0;
  double now = 0.0;
  auto check_packet = [&](std::span<const std::byte> p) {
    if (p.size() > static_cast<size_t>(config.max_packet_size)) __builtin_trap();
  };
  auto give_receiver = [&](std::span<const std::byte> p) {
    ++to_receiver;
    if (receiver.process_packet(p) == bitwire::ChunkResult::kChunkCompleted) {
      ++completions;
      if (!receiver.has_chunk() ||
          receiver.chunk().size() > static_cast<size_t>(config.block.max_block_size)) {
        __builtin_trap();
      }
    }
  };
  size_t at = 1;
  while (at < size) {
    const uint8_t op = data[at++];
    size_t length = size - at;
    if (length >= 2) {
      const size_t declared = static_cast<size_t>(data[at]) | (static_cast<size_t>(data[at + 1]) << 8);
      at += 2;
      length = declared < size - at ? declared : size - at;
    } else {
      at += length;
      length = 0;
    }
    const std::span<const std::byte> bytes = std::as_bytes(std::span(data + at, length));
    at += length;
    now += (op >> 2) * 0.001;
    if ((op & 2) && receiver.has_chunk()) receiver.release_chunk();
    if (op & 1) {
      give_receiver(bytes);
    } else {
      ++to_sender;
      sender.process_packet(bytes);
    }
    if (honest) {
      honest_sender.generate_packets(now, [&](std::span<const std::byte> p) {
        check_packet(p);
        give_receiver(p);
      });
    }
    sender.generate_packets(now, check_packet);
    receiver.generate_packets(now, [&](std::span<const std::byte> p) {
      check_packet(p);
      ++to_sender;
      const bitwire::ChunkResult result = sender.process_packet(p);
      if (result == bitwire::ChunkResult::kTruncated || result == bitwire::ChunkResult::kTrailingBytes ||
          result == bitwire::ChunkResult::kBadPadding || result == bitwire::ChunkResult::kBadKind) {
        __builtin_trap();
      }
      honest_sender.process_packet(p);
    });
  }
  if (total(receiver.counters()) != to_receiver) __builtin_trap();
  if (total(sender.counters()) != to_sender) __builtin_trap();
  if (completions != receiver.reassembly().counters().blocks_completed) __builtin_trap();
  if (receiver.memory_bytes() != receiver_memory || sender.memory_bytes() != sender_memory) __builtin_trap();
  return 0;
}
