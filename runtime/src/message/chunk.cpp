// Chunk sender / receiver: slice and ack packets (docs/blocks.md) around BlockSender / BlockReceiver.
#include "bitwire/message/chunk.hpp"

#include <algorithm>
#include <cstring>

#include "bitwire/core/config.hpp"

namespace bitwire {

namespace {

uint16_t read_u16(const std::byte* p) {
  return static_cast<uint16_t>(std::to_integer<uint32_t>(p[0]) | (std::to_integer<uint32_t>(p[1]) << 8));
}

void write_u16(std::byte* p, uint32_t value) {
  p[0] = static_cast<std::byte>(value & 0xFFu);
  p[1] = static_cast<std::byte>((value >> 8) & 0xFFu);
}

ChunkResult from_block_fragment_result(BlockFragmentResult result) {
  switch (result) {
    case BlockFragmentResult::kAccepted:
      return ChunkResult::kSliceAccepted;
    case BlockFragmentResult::kCompleted:
      return ChunkResult::kChunkCompleted;
    case BlockFragmentResult::kDuplicate:
      return ChunkResult::kSliceDuplicate;
    case BlockFragmentResult::kAlreadyComplete:
      return ChunkResult::kReacked;
    case BlockFragmentResult::kBusy:
      return ChunkResult::kBusy;
    case BlockFragmentResult::kCountOutOfRange:
      return ChunkResult::kCountOutOfRange;
    case BlockFragmentResult::kIdOutOfRange:
      return ChunkResult::kSliceOutOfRange;
    case BlockFragmentResult::kSizeMismatch:
      return ChunkResult::kSizeMismatch;
    case BlockFragmentResult::kTooLarge:
      return ChunkResult::kTooLarge;
    case BlockFragmentResult::kBlockIdMismatch:
      return ChunkResult::kBadChunkId;
    case BlockFragmentResult::kCountMismatch:
      return ChunkResult::kCountMismatch;
    case BlockFragmentResult::kLastSizeMismatch:
      return ChunkResult::kLastSizeMismatch;
  }
  return ChunkResult::kBadKind;
}

}  // namespace

ConfigCheck ChunkConfig::check() const {
  if (ConfigCheck own = block.check(); !own) return own;
  return check_config("ChunkConfig", *this, kChunkConfigLimits);
}

ChunkConfig ChunkConfig::sanitized() const {
  ChunkConfig c = *this;
  c.block = block.sanitized();
  return sanitize_config(c, kChunkConfigLimits);
}

const char* to_string(ChunkResult result) {
  switch (result) {
    case ChunkResult::kSliceAccepted:
      return "slice accepted";
    case ChunkResult::kChunkCompleted:
      return "chunk completed";
    case ChunkResult::kSliceDuplicate:
      return "duplicate slice";
    case ChunkResult::kReacked:
      return "slice of the completed chunk: re-acked";
    case ChunkResult::kBusy:
      return "slice of the next chunk while the completed one awaits release";
    case ChunkResult::kAckApplied:
      return "ack applied";
    case ChunkResult::kAckCompleted:
      return "ack completed the chunk";
    case ChunkResult::kAckStale:
      return "ack of another chunk";
    case ChunkResult::kTruncated:
      return "truncated packet";
    case ChunkResult::kTrailingBytes:
      return "bytes after the end of the packet";
    case ChunkResult::kBadKind:
      return "unknown packet kind";
    case ChunkResult::kBadChunkId:
      return "unexpected chunk id";
    case ChunkResult::kSliceOutOfRange:
      return "slice id out of range";
    case ChunkResult::kCountOutOfRange:
      return "slice count out of range";
    case ChunkResult::kSizeMismatch:
      return "slice size out of range";
    case ChunkResult::kTooLarge:
      return "chunk larger than max_block_size";
    case ChunkResult::kCountMismatch:
      return "slice count differs from the chunk's";
    case ChunkResult::kLastSizeMismatch:
      return "last slice size differs from the one stored";
    case ChunkResult::kBadPadding:
      return "ack bitfield padding bits set";
  }
  return "?";
}

bool is_rejection(ChunkResult result) {
  return static_cast<int>(result) >= static_cast<int>(ChunkResult::kTruncated);
}

// ---- Sender ---------------------------------------------------------------------------------------------

ChunkSender::ChunkSender(const ChunkConfig& config) : config_(config.sanitized()), block_(config_.block) {
  BITWIRE_ASSERT(config.check().ok());
  data_.assign(static_cast<size_t>(config_.block.max_block_size), std::byte{0});
  scratch_.assign(static_cast<size_t>(config_.max_packet_size), std::byte{0});
}

size_t ChunkSender::memory_bytes() const {
  return block_.memory_bytes() + data_.capacity() + scratch_.capacity();
}

bool ChunkSender::send(std::span<const std::byte> chunk, double now) {
  if (chunk.size() > data_.size()) return block_.begin(0, now);  // refused and counted
  if (!block_.begin(static_cast<uint32_t>(chunk.size()), now)) return false;
  std::memcpy(data_.data(), chunk.data(), chunk.size());
  return true;
}

size_t ChunkSender::write_next_packet(double now) {
  const size_t room = scratch_.size() - kChunkLastSliceHeaderBytes;
  const auto fragment = block_.next_fragment(now, room);
  if (!fragment) return 0;
  const uint32_t count = block_.fragment_count();
  const bool last = fragment->id + 1 == count;
  std::byte* out = scratch_.data();
  out[0] = std::byte{kChunkSliceKind};
  write_u16(out + 1, chunk_id_);
  write_u16(out + 3, fragment->id);
  write_u16(out + 5, count - 1);
  size_t header = kChunkSliceHeaderBytes;
  if (last) {
    write_u16(out + 7, fragment->size - 1);
    header = kChunkLastSliceHeaderBytes;
  }
  std::memcpy(out + header, data_.data() + fragment->offset, fragment->size);
  const size_t size = header + fragment->size;
  ++counters_.packets_sent;
  counters_.bytes_sent += size;
  return size;
}

ChunkResult ChunkSender::process_packet(std::span<const std::byte> packet) {
  if (packet.size() < kChunkAckHeaderBytes) return count_result(ChunkResult::kTruncated);
  if (packet[0] != std::byte{kChunkAckKind}) return count_result(ChunkResult::kBadKind);
  const uint16_t chunk_id = read_u16(packet.data() + 1);
  const uint32_t count = read_u16(packet.data() + 3) + 1u;
  const size_t bitfield_bytes = (count + 7) / 8;
  const size_t expected = kChunkAckHeaderBytes + bitfield_bytes;
  if (packet.size() < expected) return count_result(ChunkResult::kTruncated);
  if (packet.size() > expected) return count_result(ChunkResult::kTrailingBytes);
  const std::span<const std::byte> bits = packet.subspan(kChunkAckHeaderBytes);
  if (count % 8 != 0 && (std::to_integer<uint32_t>(bits[bitfield_bytes - 1]) >> (count % 8)) != 0) {
    return count_result(ChunkResult::kBadPadding);
  }
  if (!block_.sending() || chunk_id != chunk_id_) return count_result(ChunkResult::kAckStale);
  if (count != block_.fragment_count()) return count_result(ChunkResult::kCountMismatch);
  block_.on_ack_bitfield(bits, count);
  if (block_.sending()) return count_result(ChunkResult::kAckApplied);
  ++chunk_id_;
  return count_result(ChunkResult::kAckCompleted);
}

// ---- Receiver -------------------------------------------------------------------------------------------

ChunkReceiver::ChunkReceiver(const ChunkConfig& config) : config_(config.sanitized()), block_(config_.block) {
  BITWIRE_ASSERT(config.check().ok());
  scratch_.assign(static_cast<size_t>(config_.max_packet_size), std::byte{0});
}

size_t ChunkReceiver::memory_bytes() const {
  return block_.memory_bytes() + scratch_.capacity();
}

ChunkResult ChunkReceiver::process_packet(std::span<const std::byte> packet) {
  if (packet.size() < kChunkSliceHeaderBytes) return count_result(ChunkResult::kTruncated);
  if (packet[0] != std::byte{kChunkSliceKind}) return count_result(ChunkResult::kBadKind);
  const uint16_t chunk_id = read_u16(packet.data() + 1);
  const uint32_t slice_id = read_u16(packet.data() + 3);
  const uint32_t count = read_u16(packet.data() + 5) + 1u;
  if (slice_id >= count) return count_result(ChunkResult::kSliceOutOfRange);
  const bool last = slice_id + 1 == count;
  std::span<const std::byte> data;
  if (last) {
    if (packet.size() < kChunkLastSliceHeaderBytes) return count_result(ChunkResult::kTruncated);
    const size_t slice_bytes = read_u16(packet.data() + 7) + size_t{1};
    data = packet.subspan(kChunkLastSliceHeaderBytes);
    if (data.size() < slice_bytes) return count_result(ChunkResult::kTruncated);
    if (data.size() > slice_bytes) return count_result(ChunkResult::kTrailingBytes);
  } else {
    data = packet.subspan(kChunkSliceHeaderBytes);
    const size_t slice_bytes = static_cast<size_t>(config_.block.fragment_size);
    if (data.size() < slice_bytes) return count_result(ChunkResult::kTruncated);
    if (data.size() > slice_bytes) return count_result(ChunkResult::kTrailingBytes);
  }
  // The chunk completed last: the sender missed our full ack. Checked before the chunk in progress so a
  // stale slice never reaches the reassembly.
  if (has_completed_ && chunk_id == static_cast<uint16_t>(expected_id_ - 1)) {
    if (count != completed_count_) return count_result(ChunkResult::kCountMismatch);
    reack_pending_ = true;
    return count_result(ChunkResult::kReacked);
  }
  if (chunk_id != expected_id_) return count_result(ChunkResult::kBadChunkId);
  if (block_.complete()) return count_result(ChunkResult::kBusy);
  const BlockFragmentResult result = block_.on_fragment(chunk_id, slice_id, count, data);
  switch (result) {
    case BlockFragmentResult::kAccepted:
    case BlockFragmentResult::kDuplicate:
      ack_pending_ = true;
      break;
    case BlockFragmentResult::kCompleted:
      has_completed_ = true;
      completed_count_ = count;
      ++expected_id_;
      ack_pending_ = false;
      reack_pending_ = true;
      break;
    default:
      break;
  }
  return count_result(from_block_fragment_result(result));
}

size_t ChunkReceiver::write_ack(uint16_t chunk_id, uint32_t count, bool all) {
  std::byte* out = scratch_.data();
  out[0] = std::byte{kChunkAckKind};
  write_u16(out + 1, chunk_id);
  write_u16(out + 3, count - 1);
  const size_t bitfield_bytes = (count + 7) / 8;
  std::span<std::byte> bits(out + kChunkAckHeaderBytes, bitfield_bytes);
  if (all) {
    std::fill(bits.begin(), bits.end(), std::byte{0xFF});
    if (count % 8 != 0) bits[bitfield_bytes - 1] = static_cast<std::byte>((1u << (count % 8)) - 1u);
  } else {
    block_.write_received_bits(bits);
  }
  const size_t size = kChunkAckHeaderBytes + bitfield_bytes;
  ++counters_.packets_sent;
  counters_.bytes_sent += size;
  return size;
}

size_t ChunkReceiver::write_next_packet(double now) {
  if (reack_pending_ && now - last_reack_time_ >= config_.ack_interval) {
    reack_pending_ = false;
    last_reack_time_ = now;
    return write_ack(static_cast<uint16_t>(expected_id_ - 1), completed_count_, true);
  }
  if (ack_pending_ && block_.receiving() && now - last_ack_time_ >= config_.ack_interval) {
    ack_pending_ = false;
    last_ack_time_ = now;
    return write_ack(expected_id_, block_.fragment_count(), false);
  }
  return 0;
}

}  // namespace bitwire
