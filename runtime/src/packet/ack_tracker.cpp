#include "bitwire/packet/detail/ack_tracker.hpp"

#include "bitwire/packet/sequence.hpp"

namespace bitwire {

AckTracker::AckTracker(size_t capacity)
    : list_(new uint16_t[capacity]), capacity_(static_cast<uint32_t>(capacity)) {}

void AckTracker::reset() {
  count_ = 0;
  has_processed_ = false;
  processed_ack_ = 0;
  processed_bits_ = 0;
  processed_at_send_ = 0;
}

uint32_t AckTracker::unseen(uint16_t peer_ack, uint32_t peer_ack_bits, uint64_t packets_sent) {
  uint32_t bits = peer_ack_bits;
  if (has_processed_ && packets_sent - processed_at_send_ >= 32768) has_processed_ = false;
  if (has_processed_) {
    const int advance = sequence_difference(peer_ack, processed_ack_);
    if (advance >= 0) {
      const uint32_t known = advance >= 32 ? 0u : processed_bits_ << advance;
      bits &= ~known;
      processed_ack_ = peer_ack;
      processed_bits_ = known | peer_ack_bits;
      processed_at_send_ = packets_sent;
    }
  } else {
    has_processed_ = true;
    processed_ack_ = peer_ack;
    processed_bits_ = peer_ack_bits;
    processed_at_send_ = packets_sent;
  }
  return bits;
}

bool AckTracker::newer_than_processed(uint16_t peer_ack, uint16_t last_sent) const {
  if (!has_processed_) return true;
  return sequence_greater_than(peer_ack, processed_ack_) && !sequence_greater_than(peer_ack, last_sent);
}

bool AckTracker::push(uint16_t sequence) {
  if (count_ >= capacity_) return false;
  list_[count_++] = sequence;
  return true;
}

}  // namespace bitwire
