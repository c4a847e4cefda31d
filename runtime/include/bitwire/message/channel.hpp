// Channels: what a Connection multiplexes into each packet.
//
// ReliableOrderedChannel follows the "reliable ordered messages" article exactly:
// - send: the message (already validated and measured by the connection) goes into a send queue indexed by
//   message id (a ring of send_queue_size); a full queue refuses it (kQueueFull).
// - packet: in id order from the oldest unacked id, never past oldest unacked + receive_queue_size (an id
//   the receiver could not buffer), include every message that is due (never sent, or not sent within the
//   resend delay) and still fits the remaining bits; stop when the packet's message count or bits run out.
//   Remember which ids went in which packet sequence.
// - resend delay: message_resend_time, or with message_resend_rtt_factor > 0 and an RTT measured,
//   max(message_resend_time, rtt_factor x smoothed RTT + jitter_factor x jitter) (set_round_trip()).
// - ack of a packet: drop its messages from the send queue, then advance the oldest unacked id past
//   every acked slot.
// - receive: buffer out-of-order messages by id in a ring of receive_queue_size, release strictly in
//   order. An id older than the next one expected is a duplicate (ignored, counted); an id at or beyond
//   next + receive_queue_size (and not older) means the peer broke the window: a connection error.
// Message ids are 16 bits and wrap; every comparison is modulo 65536 (sequence.hpp).
//
// Cost of building a packet: it visits only what is due. Queued messages sit on one of two intrusive lists
// through the send queue's slots: never sent (in id order) or sent (in order of last send, so in order of
// due time: one resend delay applies to all). A build takes the due prefix of the sent list (sorted by id,
// bounded by the window) and merges it with the never-sent list's head, stopping at the packet's message
// cap, the window or a block message. With nothing due it reads one list head and one entry, whatever the
// queue length or window (bench/resend_bench.cpp nothingdue, under callgrind).
//
// UnreliableUnorderedChannel: a queue of send_queue_size; each packet takes queued messages in order,
// those that fit go, those that do not are dropped (counted): the queue is empty after every packet.
// Received messages wait in a ring of receive_queue_size; a full ring drops (counted).
//
// Block messages: on an unreliable channel the block travels inline after the body. On a reliable channel
// (blocks enabled and some type carrying one) it travels as yojimbo block fragments, scheduled by a
// BlockSender and put back together by a BlockReceiver (block.hpp):
// - send: when the oldest unacked message carries a block, the channel begins it on its BlockSender and
//   sends nothing else until every fragment is acked (messages queued behind it wait). Each packet carries
//   at most one fragment of the channel -- the one next_fragment picks within the fragment budget, which
//   accrues per update (round robin over unacked fragments, resend delay, optional initial burst). The
//   sent-packet record remembers (block, fragment); the packet's ack calls on_fragment_acked, and the last
//   one removes the block message from the queue. Connection::send_packets sends more packets in the same
//   update while a fragment is ready (fragment_ready), so a block is not limited to one fragment a tick.
// - receive: a fragment whose id was already received is a duplicate (ignored, counted). Otherwise it must
//   belong to the block at the channel's head -- the first id not received yet, every earlier one received
//   (delivered or queued) -- the only block the BlockReceiver reassembles (yojimbo reassembles only the
//   block at its next expected id too). A correct sender begins a block only when every earlier message
//   was acked, so its block is always the head; a fragment further ahead makes check() refuse the packet
//   unacked (kBlockAhead, not an error: the peer resends). So a completed block is deliverable at once,
//   behind nothing the peer could withhold, and no peer can park completed blocks, holding block buffers,
//   behind a gap it never fills. Then the BlockReceiver must accept the fragment or it breaks the format:
//   check() classifies it first (disagreeing with the block's first fragment, count or id out of range,
//   larger than max_block_size), so a packet carrying a bad fragment is refused whole and is a connection
//   error with the BlockReceiver's reason. Fragment 0's message (type and body) is kept; on completion the
//   message enters the receive queue at its id, released in order, with the block:
//   - on a pool with buffers of its own (the channel built with `lend_to`): in the BlockReceiver's own
//     buffer, lent to the message (MessagePool's BlockLender; no pool buffer, no copy). The lent bytes are
//     never written until the application releases the message (or gives it another block, or sends it
//     on, which moves it into a pool buffer), across reset() too: a block()'s pointer stays valid and its
//     bytes unchanged until then. Meanwhile the first fragment of the next block at the head takes a free
//     pool buffer (make_block_room(), before check() is asked again; a fragment of a block past the head
//     takes none, it is refused as kBlockAhead), where that block is reassembled and then
//     delivered as a received block of the pool (the buffer goes back on its release; reset() gives it
//     back at once if the block is incomplete); the channel's own buffer serves again once returned. With
//     no pool buffer free, fragments of the next block are refused unacked (kBlockBusy, resent by the
//     peer), as blocks ahead of the head are, until the release or a buffer frees; the peer's ack deadline
//     (block_ack_grace) bounds that wait. A block in a borrowed pool buffer must progress: with no new
//     fragment stored within block_ack_grace (the grace runs again from each update that sees one)
//     receive_stalled() returns the reason and the connection fails (kBlockStalled), so a peer cannot
//     park a partial block there and keep this side's own block sends refused. A correct peer resends
//     every unacked fragment, so only a peer that stops sending, or a link dead for the grace (which
//     fails the peer's own ack deadline too), reaches it.
//   - on a shared BlockArena: copied into a pool block buffer of that message (taken only now, complete);
//     when none is free, the completed block waits in the BlockReceiver (its own memory, no pool buffer)
//     and is attached on a later update(), receive() or packet.
//   What the application has not received yet, or holds after receive(), is the application's.
// - deadline (update()): while a block message is queued or in flight, the oldest unacked message must be
//   acked within block_ack_grace seconds of the update that first saw it oldest, plus, for a block, twice
//   its transfer time at the block budget (ChannelConfig::block_ack_grace); past that update() returns the
//   reason and the connection fails. A peer that acks slowly within the bound is unaffected; one that
//   never acks cannot keep the block's buffer beyond it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "bitwire/message/block.hpp"
#include "bitwire/message/channel_config.hpp"
#include "bitwire/message/connection_packet.hpp"
#include "bitwire/message/detail/progress_deadline.hpp"
#include "bitwire/message/message.hpp"
#include "bitwire/packet/sequence.hpp"

namespace bitwire {

struct ChannelCounters {
  uint64_t messages_queued = 0;       // accepted by send
  uint64_t messages_sent = 0;         // message copies put in packets (first sends and resends)
  uint64_t messages_resent = 0;       // reliable: copies after the first
  uint64_t messages_acked = 0;        // reliable: removed from the send queue by an ack
  uint64_t messages_received = 0;     // accepted from packets (reliable: new ids only)
  uint64_t messages_delivered = 0;    // handed to receive()
  uint64_t messages_duplicate = 0;    // reliable: ids received again (ignored)
  uint64_t messages_dropped = 0;      // unreliable: did not fit a packet, or the receive ring was full
  uint64_t blocks_sent = 0;           // block messages sent (unreliable: inline; reliable: transfers begun)
  uint64_t blocks_acked = 0;          // reliable: block transfers whose every fragment was acked
  uint64_t blocks_received = 0;       // block messages received (reliable: reassembled and queued)
  uint64_t blocks_waiting_buffer = 0;     // reliable: completed blocks that had to wait for a pool block buffer
  uint64_t blocks_reassembled_in_pool = 0;  // reliable: pool buffers borrowed for the head block (its own
                                            // lent), each counted when taken for that block's fragment
  uint64_t block_fragments_sent = 0;      // reliable: fragment entries sent, resends included
  uint64_t block_fragments_resent = 0;    // reliable: of which were resends
  uint64_t block_fragments_acked = 0;     // reliable: fragments newly acked
  uint64_t block_fragments_received = 0;  // reliable: well-formed fragment entries received
  uint64_t block_fragments_dropped = 0;   // reliable: fragments received again or of a block already queued
  friend bool operator==(const ChannelCounters&, const ChannelCounters&) = default;
};

enum class ChannelError : uint8_t {
  kNone,
  kMessageIdOutsideWindow,  // a reliable message id at or past next expected + 2 * receive_queue_size
  kBlockFragmentInvalid,    // a block fragment the block receiver rejects (error_detail() says why)
  kBlockBusy,   // not the peer's fault: a completed block still waits for a pool block buffer, so a
                // fragment of the next block cannot be taken; the packet is dropped unacked (resent)
  kWindowBusy,  // not the peer's fault: a reliable id in [next expected + receive_queue_size, next expected
                // + 2 * receive_queue_size): acked messages not yet released hold the window (a completed
                // block waiting for a block buffer, or messages the application has not received); the
                // packet is dropped unacked (resent)
  kBlockAhead,  // a fragment of a block whose earlier message ids have not all arrived: only the block at
                // the head is reassembled; the packet is dropped unacked (resent). A correct sender never
                // sends one; not an error all the same (nothing in it is malformed)
};
const char* to_string(ChannelError error);

// Bits a message costs on the wire besides its id: type field + body (+ inline block).
struct PlannedMessage {
  MessageHandle message;
  uint32_t body_bits = 0;  // measured (conservative) body bits, block included for unreliable channels
};

class Channel {
 public:
  Channel(const PacketLayout& layout, int index);
  virtual ~Channel() = default;
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  int index() const { return index_; }
  const ChannelConfig& config() const { return config_; }
  const ChannelCounters& counters() const { return counters_; }

  // True when one more message can be queued.
  virtual bool can_send() const = 0;
  // Queues a message the connection has validated; `body_bits` is its measured cost (type + body + block).
  // Precondition: can_send().
  virtual void send(MessageHandle&& message, uint32_t body_bits) = 0;
  // The next received message, or an empty handle.
  virtual MessageHandle receive() = 0;

  // Chooses what this channel puts in packet `sequence` within `available_bits` (the entry's own header
  // included) and fills `entry`, which points into this channel's scratch until the next call. Returns
  // the bits the entry costs, 0 when the channel has nothing to send.
  virtual size_t plan(uint16_t sequence, double now, size_t available_bits, OutgoingEntry& entry) = 0;
  // The packet planned last has been written: an unreliable channel releases what it carried.
  virtual void packet_written() {}
  // Checks a received entry without changing anything; returns kNone or the reason it is refused.
  virtual ChannelError check(IncomingPacket& packet, int entry) const = 0;
  // Moves out of `pool`'s receive reserve (MessagePool::move_to_application) every message a checked entry
  // would keep waiting on the peer rather than on the application: a reliable message past a missing id
  // once this entry's own ids are counted in, a block's fragment 0 kept for reassembly. False when one
  // found no room (Connection then applies the packet in order only: docs/channels.md section 2).
  virtual bool move_held(IncomingPacket&, int, MessagePool&) const { return true; }
  // Applies only what of a checked entry the application can receive at once: a reliable channel's
  // messages up to the first missing id (with duplicates counted as apply() counts them); of a block
  // entry whose fragment 0 message is in the receive reserve, the fragment only when it completes the
  // head block (Connection applies a block entry that holds nothing there with apply(), and an
  // unreliable entry with apply() the first time the packet is seen). For a packet that is then not acked
  // (Connection's gap rule).
  virtual void apply_in_order(IncomingPacket&, int) {}
  // The reason for the last error check() returned, more precise than to_string(ChannelError).
  virtual const char* error_detail() const { return "none"; }
  // True when this channel has a block fragment that could go in another packet now, within
  // `available_bits` (the channel's share of a packet). The connection asks before each extra packet.
  virtual bool fragment_ready(double, size_t) { return false; }
  // Called by Connection::update: a completed block waiting for a buffer tries again, and the deadline on
  // the peer's acks is checked. Returns why the peer is overdue (the connection then fails), else nullptr.
  virtual const char* update(double) { return nullptr; }
  // Called by Connection::update after update(): the deadline on a block the peer is sending into a pool
  // block buffer this channel borrowed (make_block_room()). Returns why the peer stalled it (the
  // connection then fails), else nullptr.
  virtual const char* receive_stalled(double) { return nullptr; }
  // Takes the messages of a checked entry.
  virtual void apply(IncomingPacket& packet, int entry) = 0;
  // After check() answered kBlockBusy: makes room for the block's fragments if it can (a reliable channel
  // whose reassembly buffer is lent takes a free pool buffer to reassemble in) and returns true, so check()
  // is asked again; false: the packet stays refused.
  virtual bool make_block_room() { return false; }
  // Packet `sequence` (which this side sent) arrived.
  virtual void on_packet_acked(uint16_t sequence) = 0;
  // Releases every message and returns to the constructed state (counters kept).
  virtual void reset() = 0;

  // True when block messages queued here travel as fragments (reliable, blocks enabled, a block type).
  virtual bool block_capable() const { return false; }
  // Bits of a block fragment entry besides the fragment's data, for a block message whose type + body
  // cost `body_bits`: entry header, id, count, fragment id, size, alignment, type and body (the last two
  // only on fragment 0, charged to every fragment: conservative).
  size_t fragment_entry_bits(size_t body_bits) const;

  // Messages waiting to be sent (reliable: queued and not yet acked).
  virtual int send_queue_depth() const = 0;
  // Messages received and not yet taken by receive().
  virtual int receive_queue_depth() const = 0;
  // Bytes allocated at construction.
  virtual size_t memory_bytes() const = 0;

  // The connection's round-trip estimate (seconds; rtt <= 0: none measured yet), set before each packet.
  void set_round_trip(double rtt, double jitter) {
    rtt_ = rtt;
    jitter_ = jitter;
  }
  // Seconds before an unacked message may be sent again: message_resend_time, or from the RTT when
  // message_resend_rtt_factor > 0 and an RTT is known (never below message_resend_time).
  double message_resend_delay() const;

 protected:
  // Bits of the entry's header and message count/flags before any message.
  size_t entry_overhead_bits() const;

  PacketLayout layout_;
  ChannelConfig config_;
  int index_ = 0;
  int type_bits_ = 0;
  ChannelCounters counters_;
  double rtt_ = 0.0;
  double jitter_ = 0.0;
};

class ReliableOrderedChannel final : public Channel, private BlockLender {
 public:
  // `lend_to`: the connection's pool when it holds buffers of its own; the channel then delivers a received
  // block in its reassembly buffer, lent to the message (no pool buffer, no copy), and takes the next
  // block's fragments only once the application has released it. nullptr (a shared arena): a completed
  // block is copied into a pool buffer.
  // `ack_records`: the packets whose acks can still arrive (the endpoint's sent_packets_buffer_size; 0: no
  // bound): the channel keeps at most that many sent-packet records, since an older packet's ack is never
  // reported to it.
  ReliableOrderedChannel(const PacketLayout& layout, int index, MessagePool* lend_to = nullptr,
                         int ack_records = 0);
  ~ReliableOrderedChannel() override;  // before the pool goes (its handles too)
  // What one of `config` allocates (memory_bytes()); `block_types`: the factory has a type carrying a block;
  // `ack_records` as for the constructor.
  static size_t memory_required(const ChannelConfig& config, bool block_types, int ack_records = 0);
  // The sent-packet records a channel of `config` keeps: sent_packets_buffer_size, at most `ack_records`.
  static int sent_records(const ChannelConfig& config, int ack_records);

  bool can_send() const override;
  void send(MessageHandle&& message, uint32_t body_bits) override;
  MessageHandle receive() override;
  size_t plan(uint16_t sequence, double now, size_t available_bits, OutgoingEntry& entry) override;
  ChannelError check(IncomingPacket& packet, int entry) const override;
  bool move_held(IncomingPacket& packet, int entry, MessagePool& pool) const override;
  void apply_in_order(IncomingPacket& packet, int entry) override;
  const char* error_detail() const override;
  bool block_capable() const override { return block_sender_ != nullptr; }
  bool fragment_ready(double now, size_t available_bits) override;
  const char* update(double now) override;
  const char* receive_stalled(double now) override;
  void apply(IncomingPacket& packet, int entry) override;
  void on_packet_acked(uint16_t sequence) override;
  void reset() override;
  int send_queue_depth() const override;
  int receive_queue_depth() const override;
  size_t memory_bytes() const override;

  uint16_t next_send_id() const { return send_id_; }
  uint16_t oldest_unacked_id() const { return oldest_unacked_; }
  uint16_t next_receive_id() const { return receive_id_; }
  // The first id not received yet (every id before it was delivered or is queued): the only block whose
  // fragments are taken.
  uint16_t receive_head_id() const { return receive_head_; }
  // Block messages queued or in flight (each holds its block buffer until acked).
  int blocks_queued() const { return blocks_queued_; }
  // Message ids the last plan() visited (due resends gathered + never-sent messages looked at), for the
  // cost tests and benchmarks.
  int last_walk_length() const { return last_walk_; }
  // The block machinery (nullptr unless blocks travel as fragments on this channel).
  const BlockSender* block_sender() const { return block_sender_.get(); }
  const BlockReceiver* block_receiver() const { return block_receiver_.get(); }

 private:
  struct SendEntry {
    MessageHandle message;
    double last_sent = -1.0;
    uint32_t body_bits : 31 = 0;  // a message's bits are far below 2^31 (the packet bounds them)
    uint32_t sent_once : 1 = 0;   // on the sent list (else on the never-sent list)
    uint32_t serial = 0;  // monotonic message count; the id is its low 16 bits
    int32_t prev = -1;    // neighbours on the list the message is on (slot indices; -1: none)
    int32_t next = -1;
  };
  static_assert(sizeof(MessageHandle) != 16 || sizeof(double) != 8 || sizeof(SendEntry) == 40,
                "the list links fit where the padding was: memory per slot unchanged");
  // An intrusive list through send_queue_ slots.
  struct SlotList {
    int32_t head = -1;
    int32_t tail = -1;
  };
  // A received message waiting for receive(), at the slot of its id. Every held id lies in [receive_id_,
  // receive_id_ + receive_queue_size) (check() refuses others; receive_id_ only moves past delivered ones),
  // so a slot holds the one id of the window that maps to it and needs no id of its own.
  struct ReceiveEntry {
    MessageHandle message;
  };
  struct SentPacket {
    uint64_t first = 0;  // position of its first id in the id ring (monotonic)
    uint16_t count = 0;
    int32_t fragment = -1;  // the block fragment it carried, or -1
    uint32_t serial = 0;    // its fragment's block message; else its first message, the ring's base
  };

  void list_append(SlotList& list, int32_t slot);
  void list_remove(SlotList& list, int32_t slot);
  size_t plan_block(uint16_t sequence, double now, size_t available_bits, OutgoingEntry& out);
  bool block_in_flight() const;
  // Where a reliable id not older than the next expected one falls: kNone (in the receive window),
  // kWindowBusy or kMessageIdOutsideWindow (sets error_detail_).
  ChannelError check_window(uint16_t id) const;
  // Queues the completed block, when a pool block buffer is free.
  void finish_block();
  // Moves receive_head_ past every id now queued.
  void advance_receive_head();
  // How many of a checked message entry's messages lie before its first one past a missing id (duplicates
  // included): all of them when applying it leaves nothing waiting past a gap.
  int in_order_count(IncomingPacket& packet, const IncomingPacket::Entry& entry) const;
  // A fragment of the head block that would be stored without completing it (block_receiver_ exists).
  bool waits_for_fragments(const IncomingPacket::Fragment& fragment) const;
  void set_block_waiting(bool waiting);
  bool make_block_room() override;
  // Gives the pool buffer the receiver reassembles in back to the pool (dropping what it held), if any.
  void drop_reassembly_block();
  // BlockLender: the message holding the lent reassembly buffer let it go.
  void block_returned() override;

  uint32_t send_mask_ = 0;
  uint32_t receive_mask_ = 0;
  std::unique_ptr<SendEntry[]> send_queue_;
  std::unique_ptr<ReceiveEntry[]> receive_queue_;
  SequenceBuffer<SentPacket> sent_packets_;
  // The messages in recorded packets, as offsets of their serials from their packet's first (SentPacket::
  // serial): a packet's ids lie within the receive window (at most 32768) from its first, so 16 bits hold
  // them, half the ring a whole serial would take.
  std::unique_ptr<uint16_t[]> id_ring_;
  uint64_t id_ring_size_ = 0;
  uint64_t id_ring_next_ = 0;  // monotonic write position
  std::unique_ptr<OutgoingMessage[]> scratch_;
  std::unique_ptr<uint32_t[]> serials_;
  SlotList unsent_;  // queued, never sent, in id order (a block message stays here until acked)
  SlotList sent_;    // sent and unacked, in order of last send (of due time)
  std::unique_ptr<uint16_t[]> due_;  // plan(): the due messages' offsets from oldest_unacked_
  int due_capacity_ = 0;
  uint16_t send_id_ = 0;
  uint32_t send_serial_ = 0;  // 32-bit count behind send_id_: an ack from an earlier 16-bit lap cannot match
  uint16_t oldest_unacked_ = 0;
  uint16_t receive_id_ = 0;
  uint16_t receive_head_ = 0;  // first id at or past receive_id_ not in the receive queue
  int queued_ = 0;
  int blocks_queued_ = 0;  // block messages in the send queue (with block_sender_)
  // The deadline of the oldest unacked message while a block is queued (head_serial_ is its serial):
  // started at the first update() that saw it oldest; for a block, its fragments acked are the progress.
  uint32_t head_serial_ = 0;
  detail::ProgressDeadline head_deadline_;
  // The deadline of the block reassembled in the borrowed pool buffer (receive_stalled()): its fragments
  // stored are the progress.
  detail::ProgressDeadline stall_deadline_;
  int received_waiting_ = 0;
  int last_walk_ = 0;
  std::unique_ptr<BlockSender> block_sender_;
  std::unique_ptr<BlockReceiver> block_receiver_;
  uint32_t block_serial_ = 0;       // serial of the block message in flight, while block_sender_->sending()
  MessageHandle block_message_;     // receiver: fragment 0's message of the block in progress
  bool block_waiting_ = false;      // receiver: a completed block waits for a pool block buffer
  MessagePool* waiting_pool_ = nullptr;  // the pool counting this channel's waiting block (while waiting)
  MessagePool* lend_pool_ = nullptr;     // receiver: the pool its reassembly buffer is lent to, or nullptr
  int lender_index_ = -1;                // this channel in lend_pool_'s lenders
  bool lent_ = false;  // the reassembly buffer is lent to a delivered message (held until it is released)
  // While lent_: the pool buffer the receiver reassembles the next block in (taken by make_block_room(),
  // handed to that block's message on completion), or -1.
  int32_t reassembly_block_ = -1;
  mutable const char* error_detail_ = "none";  // why check() refused a fragment
};

class UnreliableUnorderedChannel final : public Channel {
 public:
  UnreliableUnorderedChannel(const PacketLayout& layout, int index);
  // What one of `config` allocates (memory_bytes()).
  static size_t memory_required(const ChannelConfig& config);

  bool can_send() const override;
  void send(MessageHandle&& message, uint32_t body_bits) override;
  MessageHandle receive() override;
  size_t plan(uint16_t sequence, double now, size_t available_bits, OutgoingEntry& entry) override;
  ChannelError check(IncomingPacket& packet, int entry) const override;
  void apply(IncomingPacket& packet, int entry) override;
  void on_packet_acked(uint16_t) override {}
  void packet_written() override;
  void reset() override;
  int send_queue_depth() const override { return send_count_; }
  int receive_queue_depth() const override { return receive_count_; }
  size_t memory_bytes() const override;

 private:
  int capacity_send_ = 0;
  int capacity_receive_ = 0;
  std::unique_ptr<PlannedMessage[]> send_queue_;  // FIFO ring
  int send_head_ = 0;
  int send_count_ = 0;
  std::unique_ptr<MessageHandle[]> in_packet_;  // messages of the packet being built, until the next plan
  int in_packet_count_ = 0;
  std::unique_ptr<MessageHandle[]> receive_queue_;
  int receive_head_ = 0;
  int receive_count_ = 0;
  std::unique_ptr<OutgoingMessage[]> scratch_;
};

}  // namespace bitwire
