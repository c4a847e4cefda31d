// BlockSender: which fragment of the block in flight goes next, within the bandwidth budget.
#include <algorithm>

#include "bitwire/message/block.hpp"
#include "bitwire/core/config.hpp"

namespace bitwire {

namespace {

size_t bitset_words(int bits) {
  return (static_cast<size_t>(bits) + 63) / 64;
}

bool test_bit(const std::vector<uint64_t>& bits, uint32_t index) {
  return (bits[index >> 6] >> (index & 63)) & 1u;
}

void set_bit(std::vector<uint64_t>& bits, uint32_t index) {
  bits[index >> 6] |= uint64_t{1} << (index & 63);
}

}  // namespace

BlockSender::BlockSender(const BlockConfig& config) : config_(config.sanitized()) {
  BITWIRE_ASSERT(config.check().ok());
  const int fragments = config_.max_fragments();
  last_sent_.assign(static_cast<size_t>(fragments), 0.0);
  next_.assign(static_cast<size_t>(fragments), 0);
  prev_.assign(static_cast<size_t>(fragments), 0);
  acked_.assign(bitset_words(fragments), 0);
  sent_.assign(bitset_words(fragments), 0);
}

bool BlockSender::due(uint32_t id, double now) const {
  if (!test_bit(sent_, id)) return true;
  if (now - last_sent_[id] >= config_.min_resend_delay) return true;
  // A fragment sent later has been acked: this one is presumed lost.
  return fast_resend_ && last_sent_[id] < acked_sent_at_;
}

size_t BlockSender::memory_required(const BlockConfig& config) {
  const auto fragments = static_cast<size_t>(config.sanitized().max_fragments());
  return fragments * sizeof(double) + 2 * fragments * sizeof(uint16_t) +
         2 * bitset_words(static_cast<int>(fragments)) * sizeof(uint64_t);
}

size_t BlockSender::memory_bytes() const {
  return last_sent_.capacity() * sizeof(double) + (next_.capacity() + prev_.capacity()) * sizeof(uint16_t) +
         (acked_.capacity() + sent_.capacity()) * sizeof(uint64_t);
}

bool BlockSender::begin(uint32_t size, double now) {
  accrue(now);
  if (sending_ || size == 0 || size > static_cast<uint32_t>(config_.max_block_size)) {
    ++counters_.blocks_refused;
    return false;
  }
  const uint32_t fragment_size = static_cast<uint32_t>(config_.fragment_size);
  block_size_ = size;
  fragment_count_ = (size + fragment_size - 1) / fragment_size;
  unacked_ = fragment_count_;
  cursor_ = 0;
  for (uint32_t i = 0; i < fragment_count_; ++i) {
    next_[i] = static_cast<uint16_t>((i + 1 == fragment_count_) ? 0 : i + 1);
    prev_[i] = static_cast<uint16_t>((i == 0) ? fragment_count_ - 1 : i - 1);
  }
  const size_t words = (fragment_count_ + 63) / 64;
  std::fill_n(acked_.begin(), words, uint64_t{0});
  std::fill_n(sent_.begin(), words, uint64_t{0});
  burst_ = static_cast<double>(config_.initial_burst_bytes);
  acked_sent_at_ = -1.0;
  sending_ = true;
  ++counters_.blocks_started;
  return true;
}

void BlockSender::accrue(double now) {
  // A clock that steps backwards accrues nothing (and does not make the next step count twice).
  if (now > last_accrual_) {
    budget_ = std::min(budget_ + (now - last_accrual_) * config_.bandwidth_bytes_per_second,
                       static_cast<double>(config_.max_budget_bytes));
  }
  last_accrual_ = std::max(last_accrual_, now);
}

void BlockSender::update(double now) {
  accrue(now);
}

bool BlockSender::set_bandwidth(double bytes_per_second, double now) {
  BlockConfig changed = config_;
  changed.bandwidth_bytes_per_second = bytes_per_second;
  if (!changed.check()) return false;
  accrue(now);
  config_ = changed;
  return true;
}

uint32_t BlockSender::fragment_size(uint32_t id) const {
  if (!sending_ || id >= fragment_count_) return 0;
  const uint32_t size = static_cast<uint32_t>(config_.fragment_size);
  return id + 1 < fragment_count_ ? size : block_size_ - id * size;
}

bool BlockSender::acked(uint32_t id) const {
  return sending_ && id < fragment_count_ && test_bit(acked_, id);
}

std::optional<BlockFragment> BlockSender::next_fragment(double now, size_t max_bytes) {
  accrue(now);
  if (!sending_) return std::nullopt;
  // The cursor is the least recently sent unacked fragment (fragments are sent in cycle order and acked
  // ones are unlinked), so if it is not due yet, nothing is (by the delay or by a later fragment's ack).
  const uint32_t id = cursor_;
  const bool resend = test_bit(sent_, id);
  if (!due(id, now)) return std::nullopt;
  const uint32_t size = fragment_size(id);
  if (size > max_bytes) return std::nullopt;
  const double cost = static_cast<double>(size) + config_.fragment_overhead_bytes;
  if (burst_ >= cost) {
    burst_ -= cost;
    counters_.burst_spent += static_cast<uint64_t>(cost);
  } else if (budget_ >= cost) {
    budget_ -= cost;
    counters_.budget_spent += static_cast<uint64_t>(cost);
  } else {
    return std::nullopt;
  }
  last_sent_[id] = now;
  set_bit(sent_, id);
  cursor_ = next_[id];
  ++counters_.fragments_sent;
  counters_.fragments_resent += resend ? 1 : 0;
  counters_.bytes_sent += size;
  return BlockFragment{id, id * static_cast<uint32_t>(config_.fragment_size), size, resend};
}

bool BlockSender::fragment_ready(double now, size_t max_bytes) {
  accrue(now);
  if (!sending_) return false;
  const uint32_t id = cursor_;
  if (!due(id, now)) return false;
  const uint32_t size = fragment_size(id);
  if (size > max_bytes) return false;
  const double cost = static_cast<double>(size) + config_.fragment_overhead_bytes;
  return burst_ >= cost || budget_ >= cost;
}

void BlockSender::unlink(uint32_t id) {
  if (cursor_ == id) cursor_ = next_[id];
  next_[prev_[id]] = next_[id];
  prev_[next_[id]] = prev_[id];
}

BlockAckResult BlockSender::on_fragment_acked(uint32_t id) {
  if (!sending_ || id >= fragment_count_) {
    ++counters_.acks_invalid;
    return BlockAckResult::kInvalid;
  }
  if (test_bit(acked_, id)) {
    ++counters_.acks_duplicate;
    return BlockAckResult::kDuplicate;
  }
  set_bit(acked_, id);
  ++counters_.acks_new;
  if (test_bit(sent_, id)) acked_sent_at_ = std::max(acked_sent_at_, last_sent_[id]);
  unlink(id);
  if (--unacked_ > 0) return BlockAckResult::kNewlyAcked;
  sending_ = false;
  ++counters_.blocks_completed;
  return BlockAckResult::kCompleted;
}

bool BlockSender::on_ack_bitfield(std::span<const std::byte> bits, uint32_t count) {
  if (!sending_ || count != fragment_count_ || bits.size() < (static_cast<size_t>(count) + 7) / 8)
    return false;
  for (uint32_t byte = 0; byte * 8 < count && sending_; ++byte) {
    // Only bits not acked yet; bits at or beyond `count` are ignored.
    const uint32_t base = byte * 8;
    const uint32_t valid = std::min<uint32_t>(8, count - base);
    const uint32_t acked_byte = static_cast<uint32_t>(acked_[base >> 6] >> (base & 63)) & 0xFFu;
    uint32_t fresh = std::to_integer<uint32_t>(bits[byte]) & ~acked_byte & ((1u << valid) - 1u);
    while (fresh != 0) {
      const uint32_t bit = static_cast<uint32_t>(__builtin_ctz(fresh));
      fresh &= fresh - 1;
      on_fragment_acked(base + bit);
    }
  }
  return true;
}

void BlockSender::cancel() {
  sending_ = false;
  block_size_ = 0;
  fragment_count_ = 0;
  unacked_ = 0;
  cursor_ = 0;
}

void BlockSender::reset(double now) {
  cancel();
  counters_ = {};
  budget_ = 0.0;
  burst_ = 0.0;
  last_accrual_ = now;
}

}  // namespace bitwire
