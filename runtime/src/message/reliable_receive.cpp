// The reliable-ordered channel's receive path: checking a received entry against the window and the block
// receiver, the gap rule's part (what waits on the peer moves out of the pool's receive reserve; the
// in-order part of an entry), and applying an entry (the algorithms are described in channel.hpp).
#include "bitwire/message/channel.hpp"

namespace bitwire {

ChannelError ReliableOrderedChannel::check(IncomingPacket& packet, int entry_index) const {
  const IncomingPacket::Entry& entry = packet.entry(entry_index);
  if (entry.block) {
    const IncomingPacket::Fragment& f = entry.fragment;
    if (sequence_less_than(f.message_id, receive_id_)) return ChannelError::kNone;  // delivered already
    if (const ChannelError window = check_window(f.message_id); window != ChannelError::kNone) return window;
    const ReceiveEntry& slot = receive_queue_[f.message_id & receive_mask_];
    if (slot.message) return ChannelError::kNone;  // queued already (the id is in the window)
    // The reader refuses fragments on a channel with blocks disabled; with no block type at all there is
    // no receiver either, and the reader refuses fragment 0 (kFragmentNotBlockType), so later fragments
    // without a receiver are the peer's error too.
    if (!block_receiver_) {
      error_detail_ = "block fragment on a channel whose package has no block message type";
      return ChannelError::kBlockFragmentInvalid;
    }
    // The reassembly buffer is lent to a delivered block the application still holds (after a reset too,
    // when the receiver itself is idle): no fragment may be stored, or taken as a duplicate and acked,
    // until it is back. For a fragment of the head block, kBlockBusy lets make_block_room() move
    // reassembly to a free pool buffer, if there is one; a fragment of a later block could not be stored
    // there either (the head rule below), so it must not take one.
    if (lent_ && reassembly_block_ < 0) {
      return f.message_id == receive_head_ ? ChannelError::kBlockBusy : ChannelError::kBlockAhead;
    }
    // Only the block at the head is reassembled: behind it nothing is missing, so once complete it is
    // deliverable at once. Past it: a completed block waiting for a buffer keeps the receiver busy; a
    // fragment of another block while one is in progress breaks the format (classify says how); else the
    // earlier ids have not all arrived.
    if (f.message_id != receive_head_ && !block_receiver_->receiving()) {
      return block_receiver_->complete() ? ChannelError::kBlockBusy : ChannelError::kBlockAhead;
    }
    const BlockFragmentResult result =
        block_receiver_->classify(f.message_id, static_cast<uint32_t>(f.fragment_id),
                                  static_cast<uint32_t>(f.fragment_count), f.data.size());
    if (is_rejection(result)) {
      error_detail_ = to_string(result);
      return ChannelError::kBlockFragmentInvalid;
    }
    if (result == BlockFragmentResult::kBusy) return ChannelError::kBlockBusy;
    return ChannelError::kNone;
  }
  for (int i = 0; i < entry.message_count; ++i) {
    const uint16_t id = packet.message(entry.first_message + i).id;
    if (sequence_less_than(id, receive_id_)) continue;  // already delivered: a resend whose ack was lost
    if (const ChannelError window = check_window(id); window != ChannelError::kNone) return window;
  }
  return ChannelError::kNone;
}

bool ReliableOrderedChannel::move_held(IncomingPacket& packet, int entry_index, MessagePool& pool) const {
  IncomingPacket::Entry& entry = packet.entry(entry_index);
  if (entry.block) {
    // Only the head block is reassembled (check): its fragment 0's message waits for the other fragments,
    // which only the peer can send, unless this fragment completes the block.
    IncomingPacket::Fragment& f = entry.fragment;
    if (!f.message || !pool.in_receive_reserve(f.message) || !block_receiver_ ||
        f.message_id != receive_head_ || receive_queue_[f.message_id & receive_mask_].message) {
      return true;
    }
    return !waits_for_fragments(f) || pool.move_to_application(f.message);
  }
  // Past the first missing id: what is new waits for the gap (a duplicate, queued already, is released at
  // apply).
  for (int i = in_order_count(packet, entry); i < entry.message_count; ++i) {
    IncomingPacket::Message& m = packet.message(entry.first_message + i);
    if (!pool.in_receive_reserve(m.message) || receive_queue_[m.id & receive_mask_].message) continue;
    if (!pool.move_to_application(m.message)) return false;
  }
  return true;
}

bool ReliableOrderedChannel::waits_for_fragments(const IncomingPacket::Fragment& f) const {
  // Stored, it keeps fragment 0's message until the peer sends the rest; completing the block, it is
  // deliverable at once.
  const auto count = static_cast<uint32_t>(f.fragment_count);
  return block_receiver_->classify(f.message_id, static_cast<uint32_t>(f.fragment_id), count,
                                   f.data.size()) == BlockFragmentResult::kAccepted &&
         !block_receiver_->completes(count);
}

int ReliableOrderedChannel::in_order_count(IncomingPacket& packet, const IncomingPacket::Entry& entry) const {
  // The ids the sender packs ascend. A message is in order when it is delivered or queued already (a
  // duplicate, released at once) or the first id not received yet, counting those this entry brings
  // before it; the first message past a missing id ends the run.
  // Every id is walked: the packet reader accepts any relative step, so a shortcut from the first and last
  // ids alone would let a hostile packet's ids that go back and forth pass for a run without a hole.
  uint16_t expected = receive_head_;
  for (int i = 0; i < entry.message_count; ++i) {
    const uint16_t id = packet.message(entry.first_message + i).id;
    if (sequence_less_than(id, expected)) continue;  // delivered, queued, or brought already
    if (id != expected) return i;
    do {
      ++expected;
    } while (static_cast<uint16_t>(expected - receive_id_) <
                 static_cast<uint32_t>(config_.receive_queue_size) &&
             receive_queue_[expected & receive_mask_].message);
  }
  return entry.message_count;
}

void ReliableOrderedChannel::apply_in_order(IncomingPacket& packet, int entry_index) {
  IncomingPacket::Entry& entry = packet.entry(entry_index);
  if (entry.block) {
    // A fragment whose message (fragment 0's) is in the receive reserve: kept only when it completes the
    // head block, which is then deliverable at once (move_held moves it out otherwise); a fragment that
    // would keep it waiting for the others is dropped unstored (the peer resends it: not acked).
    const IncomingPacket::Fragment& f = entry.fragment;
    if (f.message && block_receiver_ && f.message_id == receive_head_ &&
        !receive_queue_[f.message_id & receive_mask_].message && waits_for_fragments(f)) {
      ++counters_.block_fragments_received;
      ++counters_.block_fragments_dropped;
      return;
    }
    apply(packet, entry_index);
    return;
  }
  // The rest stays in the packet (released with it); the peer resends it, since the packet is not acked.
  entry.message_count = in_order_count(packet, entry);
  apply(packet, entry_index);
}

ChannelError ReliableOrderedChannel::check_window(uint16_t id) const {
  // The sender walks at most receive_queue_size ids from its oldest unacked id. Every id it saw acked is
  // below receive_id_ + receive_queue_size (released, buffered, or the completed block waiting for a
  // buffer), so a correct sender never reaches receive_id_ + 2 * receive_queue_size. Ids in the second
  // window come from a correct sender whose acks ran ahead of what this side could release (a completed
  // block waiting for a pool block buffer holds the head; so does an application that has not called
  // receive() yet): the packet is refused unacked and resent later. Only beyond that is the peer wrong.
  const uint32_t ahead = static_cast<uint16_t>(id - receive_id_);
  const auto window = static_cast<uint32_t>(config_.receive_queue_size);
  if (ahead < window) return ChannelError::kNone;
  if (ahead < 2 * window) return ChannelError::kWindowBusy;
  error_detail_ = to_string(ChannelError::kMessageIdOutsideWindow);
  return ChannelError::kMessageIdOutsideWindow;
}

void ReliableOrderedChannel::apply(IncomingPacket& packet, int entry_index) {
  IncomingPacket::Entry& entry = packet.entry(entry_index);
  if (entry.block) {
    IncomingPacket::Fragment& f = entry.fragment;
    ++counters_.block_fragments_received;
    const ReceiveEntry& slot = receive_queue_[f.message_id & receive_mask_];
    if (sequence_less_than(f.message_id, receive_id_) || slot.message || !block_receiver_ ||
        f.message_id != receive_head_) {
      ++counters_.block_fragments_dropped;
      return;
    }
    const BlockFragmentResult result = block_receiver_->on_fragment(
        f.message_id, static_cast<uint32_t>(f.fragment_id), static_cast<uint32_t>(f.fragment_count),
        std::span<const std::byte>(f.data.data(), f.data.size()));
    BITWIRE_ASSERT(!is_rejection(result));  // check() ran first
    if (result != BlockFragmentResult::kAccepted && result != BlockFragmentResult::kCompleted) {
      ++counters_.block_fragments_dropped;
      if (block_waiting_) finish_block();
      return;
    }
    if (f.fragment_id == 0) block_message_ = std::move(f.message);
    if (result == BlockFragmentResult::kCompleted) finish_block();
    return;
  }
  for (int i = 0; i < entry.message_count; ++i) {
    IncomingPacket::Message& m = packet.message(entry.first_message + i);
    if (sequence_less_than(m.id, receive_id_)) {
      ++counters_.messages_duplicate;
      continue;
    }
    ReceiveEntry& slot = receive_queue_[m.id & receive_mask_];
    if (slot.message) {  // check() put the id in the window: the slot holds this id
      ++counters_.messages_duplicate;
      continue;
    }
    slot.message = std::move(m.message);
    ++received_waiting_;
    ++counters_.messages_received;
  }
  advance_receive_head();
}

void ReliableOrderedChannel::advance_receive_head() {
  // At most receive_queue_size steps: the slot of receive_id_ + receive_queue_size holds receive_id_'s
  // message (or nothing), never that id, so the walk stops at the window's end.
  while (static_cast<uint16_t>(receive_head_ - receive_id_) <
         static_cast<uint32_t>(config_.receive_queue_size)) {
    if (!receive_queue_[receive_head_ & receive_mask_].message) return;
    ++receive_head_;
  }
}

}  // namespace bitwire
