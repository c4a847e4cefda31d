// BlockReceiver: puts a block back together from fragments, checking each against the block's first.
#include <algorithm>
#include <cstring>

#include "bitwire/message/block.hpp"
#include "bitwire/core/config.hpp"

namespace bitwire {

BlockReceiver::BlockReceiver(const BlockConfig& config) : config_(config.sanitized()) {
  BITWIRE_ASSERT(config.check().ok());
  data_.assign(static_cast<size_t>(config_.max_block_size), std::byte{0});
  received_.assign((static_cast<size_t>(config_.max_fragments()) + 63) / 64, 0);
}

bool BlockReceiver::set_buffer(std::byte* buffer) {
  if (receiving_ || complete_) return false;
  buffer_ = buffer;
  return true;
}

size_t BlockReceiver::memory_required(const BlockConfig& config) {
  const BlockConfig c = config.sanitized();
  return static_cast<size_t>(c.max_block_size) +
         (static_cast<size_t>(c.max_fragments()) + 63) / 64 * sizeof(uint64_t);
}

size_t BlockReceiver::memory_bytes() const {
  return data_.capacity() + received_.capacity() * sizeof(uint64_t);
}

bool BlockReceiver::received(uint32_t fragment_id) const {
  if (!receiving_ && !complete_) return false;
  if (fragment_id >= fragment_count_) return false;
  return (received_[fragment_id >> 6] >> (fragment_id & 63)) & 1u;
}

BlockFragmentResult BlockReceiver::classify(uint32_t block_id, uint32_t fragment_id, uint32_t fragment_count,
                                            size_t size) const {
  if (complete_)
    return block_id == block_id_ ? BlockFragmentResult::kAlreadyComplete : BlockFragmentResult::kBusy;
  // Checks that need only the fragment itself, then its agreement with the block in progress.
  const uint32_t fragment_size = static_cast<uint32_t>(config_.fragment_size);
  if (fragment_count == 0 || fragment_count > static_cast<uint32_t>(config_.max_fragments())) {
    return BlockFragmentResult::kCountOutOfRange;
  }
  if (fragment_id >= fragment_count) return BlockFragmentResult::kIdOutOfRange;
  const bool last = fragment_id + 1 == fragment_count;
  if (last ? (size == 0 || size > fragment_size) : size != fragment_size)
    return BlockFragmentResult::kSizeMismatch;
  if (last && static_cast<uint64_t>(fragment_count - 1) * fragment_size + size >
                  static_cast<uint64_t>(config_.max_block_size)) {
    return BlockFragmentResult::kTooLarge;
  }
  if (receiving_) {
    if (block_id != block_id_) return BlockFragmentResult::kBlockIdMismatch;
    if (fragment_count != fragment_count_) return BlockFragmentResult::kCountMismatch;
    if (received(fragment_id)) {
      if (last && size != last_size_) return BlockFragmentResult::kLastSizeMismatch;
      return BlockFragmentResult::kDuplicate;
    }
  }
  return BlockFragmentResult::kAccepted;
}

BlockFragmentResult BlockReceiver::on_fragment(uint32_t block_id, uint32_t fragment_id,
                                               uint32_t fragment_count, std::span<const std::byte> bytes) {
  // Nothing is stored before every check has passed.
  const BlockFragmentResult verdict = classify(block_id, fragment_id, fragment_count, bytes.size());
  if (verdict != BlockFragmentResult::kAccepted) return count_result(verdict);
  const uint32_t fragment_size = static_cast<uint32_t>(config_.fragment_size);
  const bool last = fragment_id + 1 == fragment_count;
  if (!receiving_) {
    receiving_ = true;
    block_id_ = block_id;
    fragment_count_ = fragment_count;
    received_count_ = 0;
    last_size_ = 0;
    std::fill_n(received_.begin(), (fragment_count + 63) / 64, uint64_t{0});
  }
  std::memcpy(target() + static_cast<size_t>(fragment_id) * fragment_size, bytes.data(), bytes.size());
  received_[fragment_id >> 6] |= uint64_t{1} << (fragment_id & 63);
  if (last) last_size_ = static_cast<uint32_t>(bytes.size());
  counters_.bytes_received += bytes.size();
  if (++received_count_ < fragment_count_) return count_result(BlockFragmentResult::kAccepted);
  receiving_ = false;
  complete_ = true;
  ++counters_.blocks_completed;
  return count_result(BlockFragmentResult::kCompleted);
}

std::span<const std::byte> BlockReceiver::block() const {
  if (!complete_) return {};
  const size_t size =
      static_cast<size_t>(fragment_count_ - 1) * static_cast<size_t>(config_.fragment_size) + last_size_;
  return {target(), size};
}

size_t BlockReceiver::write_received_bits(std::span<std::byte> out) const {
  if (!receiving_ && !complete_) return 0;
  const size_t bytes = (static_cast<size_t>(fragment_count_) + 7) / 8;
  if (out.size() < bytes) return 0;
  for (size_t i = 0; i < bytes; ++i) {
    out[i] = static_cast<std::byte>((received_[i >> 3] >> ((i & 7) * 8)) & 0xFFu);
  }
  return bytes;
}

void BlockReceiver::release() {
  if (!complete_) return;
  complete_ = false;
  receiving_ = false;
  ++counters_.blocks_released;
}

void BlockReceiver::reset() {
  complete_ = false;
  receiving_ = false;
  block_id_ = 0;
  fragment_count_ = 0;
  received_count_ = 0;
  last_size_ = 0;
}

}  // namespace bitwire
