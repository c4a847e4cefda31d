// Reliable-ordered and unreliable-unordered channels (the algorithms are described in channel.hpp).
#include "bitwire/message/channel.hpp"

#include <algorithm>
#include <cstring>

#include "bitwire/serialize/bits.hpp"

namespace bitwire {

const char* to_string(ChannelType type) {
  switch (type) {
    case ChannelType::kReliableOrdered: return "reliable-ordered";
    case ChannelType::kUnreliableUnordered: return "unreliable-unordered";
  }
  return "unknown channel type";
}

const char* to_string(ChannelError error) {
  switch (error) {
    case ChannelError::kNone: return "none";
    case ChannelError::kMessageIdOutsideWindow: return "reliable message id outside the receive window";
    case ChannelError::kBlockFragmentInvalid: return "block fragment rejected";
    case ChannelError::kBlockBusy: return "a completed block waits for a block buffer";
    case ChannelError::kWindowBusy: return "the receive window is held: the message ids run past it";
    case ChannelError::kBlockAhead:
      return "a block fragment ahead of the channel's head (earlier ids missing)";
  }
  return "unknown channel error";
}

Channel::Channel(const PacketLayout& layout, int index)
    : layout_(layout), config_(layout.channels[static_cast<size_t>(index)]), index_(index),
      type_bits_(layout.type_bits()) {}

double Channel::message_resend_delay() const {
  const double floor = config_.message_resend_time;
  if (config_.message_resend_rtt_factor <= 0.0 || rtt_ <= 0.0) return floor;
  return std::max(floor,
                  config_.message_resend_rtt_factor * rtt_ + config_.message_resend_jitter_factor * jitter_);
}

size_t Channel::entry_overhead_bits() const {
  // Entry header (channel index, block flag), hasMessages, the message count.
  return static_cast<size_t>(layout_.entry_header_bits()) + 1 +
         static_cast<size_t>(bits_required(1u, static_cast<uint32_t>(config_.max_messages_per_packet)));
}

// ---- ReliableOrderedChannel ----

int ReliableOrderedChannel::sent_records(const ChannelConfig& config, int ack_records) {
  return ack_records > 0 ? std::min(config.sent_packets_buffer_size, ack_records)
                         : config.sent_packets_buffer_size;
}

ReliableOrderedChannel::ReliableOrderedChannel(const PacketLayout& layout, int index, MessagePool* lend_to,
                                               int ack_records)
    : Channel(layout, index), sent_packets_(static_cast<size_t>(sent_records(config_, ack_records))) {
  send_mask_ = static_cast<uint32_t>(config_.send_queue_size - 1);
  receive_mask_ = static_cast<uint32_t>(config_.receive_queue_size - 1);
  send_queue_.reset(new SendEntry[static_cast<size_t>(config_.send_queue_size)]);
  receive_queue_.reset(new ReceiveEntry[static_cast<size_t>(config_.receive_queue_size)]);
  id_ring_size_ = static_cast<uint64_t>(config_.sent_message_ids);
  id_ring_.reset(new uint16_t[id_ring_size_]);
  scratch_.reset(new OutgoingMessage[static_cast<size_t>(config_.max_messages_per_packet)]);
  serials_.reset(new uint32_t[static_cast<size_t>(config_.max_messages_per_packet)]);
  due_capacity_ = std::min(config_.send_queue_size, config_.receive_queue_size);
  due_.reset(new uint16_t[static_cast<size_t>(due_capacity_)]);
  // Blocks travel as fragments only when some type carries one; otherwise no block memory at all.
  if (config_.fragments_blocks() && layout.factory.any_block_type()) {
    block_sender_ = std::make_unique<BlockSender>(config_.block_config());
    block_receiver_ = std::make_unique<BlockReceiver>(config_.block_config());
    // With resends timed from the round trip, a fragment sent before one whose ack arrived goes again at
    // once (the fixed-time mode, yojimbo's, keeps the delay alone). The fragments' timer stays
    // block_resend_time: at the end of a block nothing later can show a hole, and the timer is what
    // finds the last losses; a timer from the round trip (longer) made the tail longer (bench/RESULTS.md).
    block_sender_->set_fast_resend(config_.message_resend_rtt_factor > 0.0);
    if (lend_to != nullptr) {
      lender_index_ = lend_to->add_lender(this, block_receiver_->storage());
      if (lender_index_ >= 0) lend_pool_ = lend_to;
    }
  }
}

ReliableOrderedChannel::~ReliableOrderedChannel() {
  set_block_waiting(false);
  // Handles released below (the queues) or later must not call back into a channel that is gone.
  if (lend_pool_ != nullptr) {
    lend_pool_->remove_lender(lender_index_);
    drop_reassembly_block();
  }
}

void ReliableOrderedChannel::block_returned() {
  lent_ = false;
  if (reassembly_block_ < 0) {
    block_receiver_->release();  // the completed block it held (nothing after a reset or a swap)
    return;
  }
  // The next block is being reassembled in a pool buffer: it stays there. An idle receiver gives the pool
  // buffer back and reassembles in its own buffer again.
  if (!block_receiver_->receiving() && !block_receiver_->complete()) drop_reassembly_block();
}

void ReliableOrderedChannel::drop_reassembly_block() {
  if (reassembly_block_ < 0) return;
  block_receiver_->reset();
  [[maybe_unused]] const bool back = block_receiver_->set_buffer(nullptr);
  BITWIRE_ASSERT(back);  // reset just above
  lend_pool_->free_block(reassembly_block_, true);
  reassembly_block_ = -1;
}

bool ReliableOrderedChannel::make_block_room() {
  // Only a receiver whose own buffer is lent (it then holds the lent block complete, or is idle after a
  // reset) and has no pool buffer yet; the lent bytes are never touched.
  if (!lent_ || reassembly_block_ >= 0 || lend_pool_ == nullptr || lend_pool_->blocks_free() == 0)
    return false;
  if (block_receiver_->receiving()) return false;
  block_receiver_->release();  // the lent block's bookkeeping only: its bytes stay where they are
  const int block = lend_pool_->take_block(true);
  BITWIRE_ASSERT(block >= 0);
  [[maybe_unused]] const bool moved = block_receiver_->set_buffer(lend_pool_->block_data(block));
  BITWIRE_ASSERT(moved);  // the receiver is idle (released above)
  reassembly_block_ = block;
  stall_deadline_.timed = false;  // receive_stalled() starts this buffer's deadline at the next update
  ++counters_.blocks_reassembled_in_pool;
  return true;
}

size_t ReliableOrderedChannel::memory_required(const ChannelConfig& config, bool block_types,
                                               int ack_records) {
  const bool blocks = config.fragments_blocks() && block_types;
  return static_cast<size_t>(config.send_queue_size) * sizeof(SendEntry) +
         static_cast<size_t>(config.receive_queue_size) * sizeof(ReceiveEntry) +
         SequenceBuffer<SentPacket>::memory_required(static_cast<size_t>(sent_records(config, ack_records))) +
         static_cast<size_t>(config.sent_message_ids) * sizeof(uint16_t) +
         static_cast<size_t>(config.max_messages_per_packet) * (sizeof(OutgoingMessage) + sizeof(uint32_t)) +
         static_cast<size_t>(std::min(config.send_queue_size, config.receive_queue_size)) * sizeof(uint16_t) +
         (blocks ? sizeof(BlockSender) + BlockSender::memory_required(config.block_config()) : 0) +
         (blocks ? sizeof(BlockReceiver) + BlockReceiver::memory_required(config.block_config()) : 0);
}

size_t ReliableOrderedChannel::memory_bytes() const {
  return static_cast<size_t>(config_.send_queue_size) * sizeof(SendEntry) +
         static_cast<size_t>(config_.receive_queue_size) * sizeof(ReceiveEntry) +
         sent_packets_.memory_bytes() + id_ring_size_ * sizeof(uint16_t) +
         static_cast<size_t>(config_.max_messages_per_packet) * (sizeof(OutgoingMessage) + sizeof(uint32_t)) +
         static_cast<size_t>(due_capacity_) * sizeof(uint16_t) +
         (block_sender_ ? sizeof(BlockSender) + block_sender_->memory_bytes() : 0) +
         (block_receiver_ ? sizeof(BlockReceiver) + block_receiver_->memory_bytes() : 0);
}

bool ReliableOrderedChannel::can_send() const {
  // At most 65535 pending: send_id_ == oldest_unacked_ must keep meaning "nothing pending".
  const uint32_t pending = static_cast<uint16_t>(send_id_ - oldest_unacked_);
  return pending < static_cast<uint32_t>(config_.send_queue_size) && pending < 65535u;
}

void ReliableOrderedChannel::send(MessageHandle&& message, uint32_t body_bits) {
  BITWIRE_ASSERT(can_send());
  SendEntry& entry = send_queue_[send_id_ & send_mask_];
  entry.message = std::move(message);
  entry.last_sent = -1.0;
  entry.body_bits = body_bits;
  entry.serial = send_serial_;
  entry.sent_once = false;
  if (block_sender_ && entry.message.info().has_block) ++blocks_queued_;
  list_append(unsent_, static_cast<int32_t>(send_id_ & send_mask_));
  ++send_id_;
  ++send_serial_;
  ++queued_;
  ++counters_.messages_queued;
}

MessageHandle ReliableOrderedChannel::receive() {
  if (block_waiting_) finish_block();
  // Nothing in the receive queue (received_waiting_ counts its filled slots): the queue's own lines are
  // not read, which at many connections are cold on every call that finds nothing.
  if (received_waiting_ == 0) return {};
  ReceiveEntry& entry = receive_queue_[receive_id_ & receive_mask_];
  if (!entry.message) return {};  // held messages' ids are in the window: this one is receive_id_
  ++receive_id_;
  --received_waiting_;
  ++counters_.messages_delivered;
  return std::move(entry.message);
}

size_t ReliableOrderedChannel::plan(uint16_t sequence, double now, size_t available_bits, OutgoingEntry& out) {
  last_walk_ = 0;
  if (queued_ == 0) return 0;
  const MessageHandle& oldest = send_queue_[oldest_unacked_ & send_mask_].message;
  if (block_sender_ && oldest && oldest.info().has_block) {
    return plan_block(sequence, now, available_bits, out);
  }
  const size_t overhead = entry_overhead_bits() + 16;  // + the first id
  if (available_bits <= overhead) return 0;
  size_t budget = available_bits - overhead;
  const int max_messages = config_.max_messages_per_packet;
  // Never past oldest unacked + the receiver's window.
  const int pending = static_cast<uint16_t>(send_id_ - oldest_unacked_);
  const int walk = std::min(pending, config_.receive_queue_size);
  // The due prefix of the sent list (ordered by last send, so by due time), as offsets from the oldest
  // unacked id. Every sent message lies within the window and before any block message.
  const double delay = message_resend_delay();
  int due = 0;
  for (int32_t slot = sent_.head; slot >= 0 && due < due_capacity_;) {
    const SendEntry& entry = send_queue_[slot];
    if (now < entry.last_sent + delay) break;
    due_[due++] = static_cast<uint16_t>(static_cast<uint16_t>(entry.serial) - oldest_unacked_);
    ++last_walk_;
    slot = entry.next;
  }
  if (due > 1) std::sort(due_.get(), due_.get() + due);
  // Merge with the never-sent messages (in id order) up to the window or a block message: the ids in
  // ascending order, exactly as a walk over the window skipping what is not due would meet them.
  int count = 0;
  uint16_t previous = 0;
  int next_due = 0;
  int32_t unsent = unsent_.head;
  while (count < max_messages) {
    int unsent_offset = walk;
    if (unsent >= 0) {
      const SendEntry& candidate = send_queue_[unsent];
      unsent_offset = static_cast<uint16_t>(static_cast<uint16_t>(candidate.serial) - oldest_unacked_);
      // A block message goes alone, as fragments, once it is the oldest unacked: what follows it waits.
      if (candidate.message.info().has_block) unsent_offset = walk;
    }
    const bool take_unsent = unsent_offset < walk && (next_due == due || unsent_offset < due_[next_due]);
    if (!take_unsent && next_due == due) break;
    const int offset = take_unsent ? unsent_offset : due_[next_due++];
    const auto slot = static_cast<int32_t>((oldest_unacked_ + offset) & send_mask_);
    SendEntry& entry = send_queue_[slot];
    if (take_unsent) {
      unsent = entry.next;
      ++last_walk_;
    }
    const auto id = static_cast<uint16_t>(oldest_unacked_ + offset);
    const size_t cost = (count == 0 ? 0 : static_cast<size_t>(relative_id_bits(previous, id))) + entry.body_bits;
    if (cost > budget) continue;
    budget -= cost;
    scratch_[count] = OutgoingMessage{id, &entry.message};
    serials_[count] = entry.serial;
    ++count;
    previous = id;
    ++counters_.messages_sent;
    if (entry.sent_once) ++counters_.messages_resent;
    list_remove(entry.sent_once ? sent_ : unsent_, slot);
    list_append(sent_, slot);
    entry.sent_once = true;
    entry.last_sent = now;
  }
  if (count == 0) return 0;

  SentPacket* record = sent_packets_.insert(sequence);
  if (record != nullptr) {
    *record = SentPacket{};
    record->first = id_ring_next_;
    record->count = static_cast<uint16_t>(count);
    record->serial = serials_[0];
    // Ascending ids within the window from the oldest unacked: each offset from the first is below 32768.
    for (int i = 0; i < count; ++i) {
      id_ring_[(id_ring_next_ + static_cast<uint64_t>(i)) % id_ring_size_] =
          static_cast<uint16_t>(serials_[i] - serials_[0]);
    }
    id_ring_next_ += static_cast<uint64_t>(count);
  }
  out = OutgoingEntry{};
  out.channel = index_;
  out.block = false;
  out.messages = std::span<const OutgoingMessage>(scratch_.get(), static_cast<size_t>(count));
  return available_bits - budget;
}

void ReliableOrderedChannel::list_append(SlotList& list, int32_t slot) {
  SendEntry& entry = send_queue_[slot];
  entry.prev = list.tail;
  entry.next = -1;
  if (list.tail >= 0) {
    send_queue_[list.tail].next = slot;
  } else {
    list.head = slot;
  }
  list.tail = slot;
}

void ReliableOrderedChannel::list_remove(SlotList& list, int32_t slot) {
  SendEntry& entry = send_queue_[slot];
  if (entry.prev >= 0) {
    send_queue_[entry.prev].next = entry.next;
  } else {
    list.head = entry.next;
  }
  if (entry.next >= 0) {
    send_queue_[entry.next].prev = entry.prev;
  } else {
    list.tail = entry.prev;
  }
  entry.prev = entry.next = -1;
}

size_t Channel::fragment_entry_bits(size_t body_bits) const {
  // The fragment id is counted as if the block had the most fragments.
  const auto max_fragments = static_cast<uint32_t>(config_.max_fragments_per_block());
  size_t bits = static_cast<size_t>(layout_.entry_header_bits()) + 16 + 7 + body_bits +
                static_cast<size_t>(bits_required(1u, static_cast<uint32_t>(config_.block_fragment_size)));
  if (max_fragments > 1) bits += static_cast<size_t>(bits_required(1u, max_fragments) + bits_required(0u, max_fragments - 1));
  return bits;
}

bool ReliableOrderedChannel::block_in_flight() const {
  if (!block_sender_ || !block_sender_->sending()) return false;
  const SendEntry& oldest = send_queue_[oldest_unacked_ & send_mask_];
  return oldest.message && oldest.serial == block_serial_;
}

bool ReliableOrderedChannel::fragment_ready(double now, size_t available_bits) {
  if (!block_in_flight()) return false;
  const size_t header = fragment_entry_bits(send_queue_[oldest_unacked_ & send_mask_].body_bits);
  if (available_bits <= header) return false;
  return block_sender_->fragment_ready(now, (available_bits - header) / 8);
}

size_t ReliableOrderedChannel::plan_block(uint16_t sequence, double now, size_t available_bits, OutgoingEntry& out) {
  SendEntry& entry = send_queue_[oldest_unacked_ & send_mask_];
  if (!block_in_flight()) {
    block_sender_->cancel();
    if (!block_sender_->begin(static_cast<uint32_t>(entry.message.block().size()), now)) return 0;
    block_serial_ = entry.serial;
    ++counters_.blocks_sent;
    ++counters_.messages_sent;
  }
  const size_t header = fragment_entry_bits(entry.body_bits);
  if (available_bits <= header) return 0;
  const std::optional<BlockFragment> fragment = block_sender_->next_fragment(now, (available_bits - header) / 8);
  if (!fragment) return 0;
  ++counters_.block_fragments_sent;
  if (fragment->resend) ++counters_.block_fragments_resent;
  SentPacket* record = sent_packets_.insert(sequence);
  if (record != nullptr) {
    *record = SentPacket{};
    record->first = id_ring_next_;
    record->fragment = static_cast<int32_t>(fragment->id);
    record->serial = block_serial_;
  }
  out = OutgoingEntry{};
  out.channel = index_;
  out.block = true;
  out.fragment.message_id = static_cast<uint16_t>(entry.serial);
  out.fragment.fragment_count = static_cast<int>(block_sender_->fragment_count());
  out.fragment.fragment_id = static_cast<int>(fragment->id);
  out.fragment.data = entry.message.block().subspan(fragment->offset, fragment->size);
  out.fragment.message = &entry.message;
  return header + static_cast<size_t>(fragment->size) * 8;
}

const char* ReliableOrderedChannel::error_detail() const { return error_detail_; }

const char* ReliableOrderedChannel::update(double now) {
  if (block_waiting_) finish_block();
  if (blocks_queued_ == 0) {
    head_deadline_.timed = false;
    return nullptr;
  }
  // A block is queued, so the oldest unacked id holds a message (the oldest advances only past acked ones).
  const SendEntry& head = send_queue_[oldest_unacked_ & send_mask_];
  BITWIRE_ASSERT(head.message);
  const bool block = head.message.info().has_block;
  // A peer that keeps acking fragments is a slow link, not a peer holding the buffer: each update that sees
  // more fragments acked gives it the grace again (the update rate, the in-flight limit or other channels
  // may move the block slower than its bandwidth budget). A new block starts its count from zero.
  const uint32_t acked = block ? block_sender_->fragments_acked() : 0;
  if (!head_deadline_.timed || head.serial != head_serial_) {
    head_serial_ = head.serial;
    double allowed = config_.block_ack_grace;
    if (block) {
      allowed +=
          2.0 * block_sender_->config().transfer_seconds(static_cast<uint32_t>(head.message.block().size()));
    }
    head_deadline_.start(now, allowed, acked);
    return nullptr;
  }
  if (!head_deadline_.expired(now, acked, config_.block_ack_grace)) return nullptr;
  return block ? "the peer did not ack a block within its deadline (2 x its transfer time at "
                 "ChannelConfig.block_bandwidth_bytes_per_second + ChannelConfig.block_ack_grace)"
               : "the peer did not ack the message ahead of a queued block within "
                 "ChannelConfig.block_ack_grace";
}

const char* ReliableOrderedChannel::receive_stalled(double now) {
  if (reassembly_block_ < 0) {
    stall_deadline_.timed = false;
    return nullptr;
  }
  // The same rule as the send side's deadline: the grace runs from the first update that saw the pool
  // buffer taken, and each update that sees more of the block's fragments stored gives it again.
  const uint32_t received = block_receiver_->fragments_received();
  if (!stall_deadline_.timed) {
    stall_deadline_.start(now, config_.block_ack_grace, received);
    return nullptr;
  }
  if (!stall_deadline_.expired(now, received, config_.block_ack_grace)) return nullptr;
  return "the peer left a block incomplete: no new fragment of the block reassembled in a borrowed pool "
         "block buffer within ChannelConfig.block_ack_grace";
}

void ReliableOrderedChannel::set_block_waiting(bool waiting) {
  if (waiting == block_waiting_) return;
  block_waiting_ = waiting;
  // The pool hands the next freed buffer to a waiting block before the application's requests.
  if (waiting) {
    waiting_pool_ = block_message_.pool();
    waiting_pool_->add_receive_waiter();
  } else {
    waiting_pool_->remove_receive_waiter();
    waiting_pool_ = nullptr;
  }
}

void ReliableOrderedChannel::finish_block() {
  if (!block_receiver_->complete()) return;
  const auto id = static_cast<uint16_t>(block_receiver_->block_id());
  ReceiveEntry& slot = receive_queue_[id & receive_mask_];
  // Only a hostile peer can fill the block's id with another message (or lose fragment 0's message): the
  // block is dropped, counted, and nothing else changes.
  if (sequence_less_than(id, receive_id_) || slot.message || !block_message_) {
    set_block_waiting(false);
    block_receiver_->release();
    block_message_.reset();
    ++counters_.block_fragments_dropped;
    return;
  }
  const std::span<const std::byte> block = block_receiver_->block();
  if (reassembly_block_ >= 0) {
    // Reassembled in a pool buffer (the own one was lent): that buffer goes to the message, a received
    // block of the pool; the receiver is back on its own buffer, which check() keeps idle while lent.
    lend_pool_->attach_received_block(block_message_, reassembly_block_, static_cast<uint32_t>(block.size()));
    reassembly_block_ = -1;
    block_receiver_->release();
    [[maybe_unused]] const bool back = block_receiver_->set_buffer(nullptr);
    BITWIRE_ASSERT(back);  // released just above
    slot.message = std::move(block_message_);
    ++received_waiting_;
    ++counters_.messages_received;
    ++counters_.blocks_received;
    advance_receive_head();
    return;
  }
  if (lend_pool_ != nullptr) {
    // The receiver's buffer goes to the message as it is; the receiver stays complete (busy) until
    // block_returned().
    lend_pool_->lend_block(block_message_, lender_index_, static_cast<uint32_t>(block.size()));
    lent_ = true;
    slot.message = std::move(block_message_);
    ++received_waiting_;
    ++counters_.messages_received;
    ++counters_.blocks_received;
    advance_receive_head();
    return;
  }
  const std::span<std::byte> destination = block_message_.allocate_received_block(block.size());
  if (destination.empty()) {
    if (!block_waiting_) ++counters_.blocks_waiting_buffer;
    set_block_waiting(true);
    return;
  }
  set_block_waiting(false);
  std::memcpy(destination.data(), block.data(), block.size());
  slot.message = std::move(block_message_);
  block_receiver_->release();
  ++received_waiting_;
  ++counters_.messages_received;
  ++counters_.blocks_received;
  advance_receive_head();
}

void ReliableOrderedChannel::on_packet_acked(uint16_t sequence) {
  SentPacket* record = sent_packets_.find(sequence);
  if (record == nullptr) return;
  if (record->fragment >= 0) {
    if (block_in_flight() && record->serial == block_serial_) {
      const BlockAckResult result = block_sender_->on_fragment_acked(static_cast<uint32_t>(record->fragment));
      if (result == BlockAckResult::kNewlyAcked || result == BlockAckResult::kCompleted) ++counters_.block_fragments_acked;
      if (result == BlockAckResult::kCompleted) {
        SendEntry& entry = send_queue_[block_serial_ & send_mask_];
        entry.message.reset();
        list_remove(unsent_, static_cast<int32_t>(block_serial_ & send_mask_));
        --queued_;
        --blocks_queued_;
        ++counters_.messages_acked;
        ++counters_.blocks_acked;
      }
    }
    sent_packets_.remove(sequence);
    while (oldest_unacked_ != send_id_ && !send_queue_[oldest_unacked_ & send_mask_].message) ++oldest_unacked_;
    return;
  }
  // Ids overwritten in the ring since: this packet's acks are forgotten (its messages get resent).
  if (id_ring_next_ - record->first <= id_ring_size_) {
    for (uint16_t i = 0; i < record->count; ++i) {
      const uint32_t serial = record->serial + id_ring_[(record->first + i) % id_ring_size_];
      SendEntry& entry = send_queue_[serial & send_mask_];
      if (entry.message && entry.serial == serial) {
        entry.message.reset();
        list_remove(sent_, static_cast<int32_t>(serial & send_mask_));
        --queued_;
        ++counters_.messages_acked;
      }
    }
  }
  sent_packets_.remove(sequence);
  while (oldest_unacked_ != send_id_ && !send_queue_[oldest_unacked_ & send_mask_].message) ++oldest_unacked_;
}

void ReliableOrderedChannel::reset() {
  for (int i = 0; i < config_.send_queue_size; ++i) send_queue_[i] = SendEntry{};
  for (int i = 0; i < config_.receive_queue_size; ++i) receive_queue_[i] = ReceiveEntry{};
  sent_packets_.reset();
  unsent_ = SlotList{};
  sent_ = SlotList{};
  if (block_sender_) block_sender_->cancel();
  // A lent buffer stays lent (lent_ kept) until the application releases the block it holds.
  if (block_receiver_) block_receiver_->reset();
  drop_reassembly_block();
  set_block_waiting(false);
  block_message_.reset();
  id_ring_next_ = 0;
  send_id_ = 0;
  send_serial_ = 0;
  oldest_unacked_ = 0;
  receive_id_ = 0;
  receive_head_ = 0;
  queued_ = 0;
  blocks_queued_ = 0;
  head_deadline_ = {};
  stall_deadline_ = {};
  received_waiting_ = 0;
}

int ReliableOrderedChannel::send_queue_depth() const { return queued_; }
int ReliableOrderedChannel::receive_queue_depth() const { return received_waiting_; }

// ---- UnreliableUnorderedChannel ----

UnreliableUnorderedChannel::UnreliableUnorderedChannel(const PacketLayout& layout, int index)
    : Channel(layout, index) {
  capacity_send_ = config_.send_queue_size;
  capacity_receive_ = config_.receive_queue_size;
  send_queue_.reset(new PlannedMessage[static_cast<size_t>(capacity_send_)]);
  receive_queue_.reset(new MessageHandle[static_cast<size_t>(capacity_receive_)]);
  in_packet_.reset(new MessageHandle[static_cast<size_t>(config_.max_messages_per_packet)]);
  scratch_.reset(new OutgoingMessage[static_cast<size_t>(config_.max_messages_per_packet)]);
}

size_t UnreliableUnorderedChannel::memory_required(const ChannelConfig& config) {
  return static_cast<size_t>(config.send_queue_size) * sizeof(PlannedMessage) +
         static_cast<size_t>(config.receive_queue_size) * sizeof(MessageHandle) +
         static_cast<size_t>(config.max_messages_per_packet) * (sizeof(MessageHandle) + sizeof(OutgoingMessage));
}

size_t UnreliableUnorderedChannel::memory_bytes() const {
  return static_cast<size_t>(capacity_send_) * sizeof(PlannedMessage) +
         static_cast<size_t>(capacity_receive_) * sizeof(MessageHandle) +
         static_cast<size_t>(config_.max_messages_per_packet) * (sizeof(MessageHandle) + sizeof(OutgoingMessage));
}

bool UnreliableUnorderedChannel::can_send() const { return send_count_ < capacity_send_; }

void UnreliableUnorderedChannel::send(MessageHandle&& message, uint32_t body_bits) {
  BITWIRE_ASSERT(can_send());
  PlannedMessage& slot = send_queue_[(send_head_ + send_count_) % capacity_send_];
  slot.message = std::move(message);
  slot.body_bits = body_bits;
  ++send_count_;
  ++counters_.messages_queued;
}

MessageHandle UnreliableUnorderedChannel::receive() {
  if (receive_count_ == 0) return {};
  MessageHandle message = std::move(receive_queue_[receive_head_]);
  receive_head_ = (receive_head_ + 1) % capacity_receive_;
  --receive_count_;
  ++counters_.messages_delivered;
  return message;
}

void UnreliableUnorderedChannel::packet_written() {
  for (int i = 0; i < in_packet_count_; ++i) in_packet_[i].reset();
  in_packet_count_ = 0;
}

size_t UnreliableUnorderedChannel::plan(uint16_t, double, size_t available_bits, OutgoingEntry& out) {
  packet_written();
  if (send_count_ == 0) return 0;
  const size_t overhead = entry_overhead_bits();
  size_t budget = available_bits > overhead ? available_bits - overhead : 0;
  int count = 0;
  while (send_count_ > 0) {
    PlannedMessage& next = send_queue_[send_head_];
    send_head_ = (send_head_ + 1) % capacity_send_;
    --send_count_;
    if (count < config_.max_messages_per_packet && next.body_bits <= budget) {
      budget -= next.body_bits;
      if (next.message.info().has_block) ++counters_.blocks_sent;
      in_packet_[count] = std::move(next.message);
      scratch_[count] = OutgoingMessage{0, &in_packet_[count]};
      ++count;
      ++counters_.messages_sent;
    } else {
      next.message.reset();
      ++counters_.messages_dropped;
    }
  }
  in_packet_count_ = count;
  if (count == 0) return 0;
  out = OutgoingEntry{};
  out.channel = index_;
  out.block = false;
  out.messages = std::span<const OutgoingMessage>(scratch_.get(), static_cast<size_t>(count));
  return available_bits - budget;
}

ChannelError UnreliableUnorderedChannel::check(IncomingPacket&, int) const { return ChannelError::kNone; }

void UnreliableUnorderedChannel::apply(IncomingPacket& packet, int entry_index) {
  IncomingPacket::Entry& entry = packet.entry(entry_index);
  for (int i = 0; i < entry.message_count; ++i) {
    IncomingPacket::Message& m = packet.message(entry.first_message + i);
    if (receive_count_ == capacity_receive_) {
      ++counters_.messages_dropped;
      continue;
    }
    if (m.message.info().has_block) ++counters_.blocks_received;
    receive_queue_[(receive_head_ + receive_count_) % capacity_receive_] = std::move(m.message);
    ++receive_count_;
    ++counters_.messages_received;
  }
}

void UnreliableUnorderedChannel::reset() {
  for (int i = 0; i < capacity_send_; ++i) send_queue_[i] = PlannedMessage{};
  for (int i = 0; i < capacity_receive_; ++i) receive_queue_[i].reset();
  packet_written();
  send_head_ = send_count_ = 0;
  receive_head_ = receive_count_ = 0;
}

}  // namespace bitwire
