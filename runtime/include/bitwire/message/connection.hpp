// Connection: channels of messages over one Endpoint. What game code uses to send a generated message and
// receive the peer's, in order and exactly once where the channel promises it.
//
//   bitwire::ConnectionConfig config;                  // one reliable-ordered channel by default
//   config.channel_count = 2;
//   config.channels[1].type = bitwire::ChannelType::kUnreliableUnordered;
//   bitwire::ConnectionCallbacks callbacks{
//       &socket, [](void* ctx, std::span<const std::byte> datagram) { /* send the datagram */ }};
//   bitwire::Connection connection(kFactory, config, callbacks, now);
//
//   each tick:
//     connection.update(now);
//     for each datagram: connection.receive_packet(datagram);
//     while (auto message = connection.receive(0)) { if (auto* chat = message.as<Chat>()) ...; }
//     auto message = connection.create<Chat>();  ... fill ...;  connection.send(0, std::move(message));
//     connection.send_packets();                     // one packet (acks + whatever the channels fit),
//                                                    // plus one per block fragment the budget allows now
//
// Over another transport (or another ack layer), the connection-packet layer alone:
//     size_t n = connection.generate_packet(sequence, buffer);   // yojimbo 1.0 connection packet
//     connection.process_packet(sequence, bytes);                // false: refused, nothing applied
//     connection.on_packet_acked(sequence);                      // from whatever acks packets
//
// Contracts:
// - Wire: yojimbo 1.0 (connection_packet.hpp; docs/channels.md states every bit) inside reliable 1.0.
// - Configuration is part of the format. protocol_id() folds the channel layout (count; per channel its
//   type, max messages per packet, max block size, fragment size, blocks disabled, receive window) and the
//   message types (count, which carry blocks; with delta_baselines on, the baselines, which types have a
//   delta form and, if any does, the delta encoding's version) into config.protocol_id; the endpoint's
//   envelope uses it, so a peer with another layout fails the envelope check on every packet (counted
//   envelope_failures) instead of misreading bits. Without the envelope, give protocol_id() to the secure
//   transport.
// - send() refuses, with a reason and without taking the message, anything a correct peer would refuse:
//   a message that breaks a write contract (validated by a ValidateStream pass over its serialize), one
//   that can never fit the channel's packet budget (on a reliable channel, a block whose fragment entry
//   cannot), a block where blocks are off or above max_block_size, and a full queue.
// - Memory: the message pool, channel queues, packet buffers and the endpoint are allocated in the
//   constructor (memory_bytes()); send, receive, update and the packet paths never allocate.
// - Block buffers. With buffers of its own (no shared arena) a reliable channel delivers a received block
//   in its own reassembly buffer, lent to the message until the application releases it (no pool buffer,
//   no copy), so the pool's block_pool_size buffers hold the application's outgoing blocks (and unreliable
//   channels' inline received ones). While a received block is held, the channel's next block is
//   reassembled and delivered in a free pool buffer; with none free its fragments are refused unacked
//   until the release (channel.hpp). So an application must not hold a received block while waiting for
//   its own send buffer: a peer doing the same refuses this side's next block as this side refuses its
//   own, both outgoing blocks wait for acks that never come, and both connections fail with
//   kBlockAckOverdue. Copy the block out or release it first. A block in a borrowed pool buffer must get a
//   new fragment within ChannelConfig::block_ack_grace (kBlockStalled past it), so a peer cannot keep
//   that buffer, the one the application sends from, with a block it never completes.
//   On a shared arena outgoing and received blocks share the buffers; block_receive_reserve of them are
//   kept for received blocks and a completed block waiting for a buffer gets the next one freed
//   (MessagePool's contract), so an application that sends blocks greedily cannot starve its own receive
//   side: its block requests are refused with BlockRefusal::kReservedForReceiving instead; a received block
//   takes a buffer only once complete and at its channel's head (channel.hpp), so it is deliverable at
//   once. An outgoing block keeps its buffer until acked, within a deadline (update() fails
//   the connection with kBlockAckOverdue past it; ChannelConfig::block_ack_grace). So a peer can hold none
//   of this side's block buffers for longer than that deadline.
// - Untrusted input: any bytes are safe. A packet that fails to read, or whose reliable ids lie outside
//   the window, is refused whole (nothing applied) and puts the connection in a sticky error state with a
//   reason; a packet refused only because this side has no room now (message pool or block buffer
//   exhausted, receive window held) is dropped (counted) and not acked, so the peer resends it, but it is
//   deferred (Endpoint::defer_packet): the acks it carries are processed all the same.
// - The message pool's receive reserve (docs/channels.md section 2, which proves it live): a region of the
//   budget for one received packet of every channel's most messages at the largest type, which only the
//   packet reader creates in. It keeps only what the application can receive at once: a received message
//   the application sends on, and messages that wait on the peer (reliable ones past a missing id, a
//   block's fragment 0 kept for reassembly) move to the application's room; where that has no space, the
//   send is refused (kReservedForReceiving) or the packet is not acked and only what the application can
//   receive at once is applied (packets_in_order_only; its unreliable messages are applied the first time
//   the packet is seen, and a duplicate's are released: unreliable_dropped_in_order_only). So while the
//   application receives and releases,
//   every packet that brings a channel's next id is taken, and no correct peer's message waits for ever.
// - Handles: messages from create()/receive() belong to this connection's pool and must be released
//   before the connection is destroyed. reset() and the destructor release everything the connection holds.
// - Not movable (the endpoint's callbacks point to it).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "bitwire/message/channel.hpp"
#include "bitwire/message/channel_config.hpp"
#include "bitwire/message/connection_packet.hpp"
#include "bitwire/message/delta_baselines.hpp"
#include "bitwire/message/detail/flight_limit.hpp"
#include "bitwire/message/detail/sequence_marks.hpp"
#include "bitwire/message/message.hpp"
#include "bitwire/packet/endpoint.hpp"

namespace bitwire {

inline constexpr int kMaxChannels = 64;

// The most a connection's channels may take together (channels_memory(): queues, sent-packet records,
// message id rings, block transfer state), counted as if a type carries blocks. A config above it is refused
// and sanitized() lowers it. 1 GiB: 64 channels of the default 16 MiB would fit; 64 channels at their
// largest legal fields (8.3 GiB) do not. With the message pool's caps (kMaxMessageSlotBytes,
// kMaxBlockPoolBytes) and the endpoint's (kMaxEndpointMemoryBytes), one connection stays under 3.1 GiB.
inline constexpr size_t kMaxConnectionChannelBytes = size_t{1} << 30;

// The derived message pool budget (ConnectionConfig::message_pool_bytes 0). A game's large messages (a
// snapshot each tick) are few alive at once -- queued, in flight, held -- while its queues can hold
// thousands of small ones: 128 of the largest type fit beside every message at the smallest's, with the
// receive reserve (one received packet of every channel's most messages at the largest type) on top, and at
// least 256 KiB, so a package of small types holds nearly every message at its largest (test::kAllTypes:
// 1,928 of its 120-byte Numbered beside the reserve, of the 2,368 messages the default queues count).
inline constexpr int kDerivedLargeMessages = 128;
inline constexpr int kDerivedPoolBytes = 256 * 1024;

struct ConnectionConfig {
  uint64_t protocol_id = 0;     // the game's id; the channel layout and message types are folded in
  int max_packet_size = 1200;   // bytes of connection packet per send_packet: the budget across channels (holds
                                // a 1 KiB block fragment entry; the endpoint never splits a packet this small)
  int max_packets_per_update = 16;  // send_packets(): most packets per call (extra ones carry block fragments)
  int channel_count = 1;        // channels in use, 1..kMaxChannels
  std::array<ChannelConfig, kMaxChannels> channels{};  // the first channel_count are used
  int message_pool_size = 0;  // messages alive at once; 0 = what the channels can hold at once: every
                              // queue's capacity + one received packet's messages (+ one sent packet's
                              // on unreliable channels, which hand them over) + 64 held by the application
  int message_pool_bytes = 0;  // the pool's byte budget, each message at its own type's size plus its header
                               // (MessagePool::message_bytes); 0 = derived: room for every message above at
                               // the smallest type's size, kDerivedLargeMessages of them and the receive
                               // reserve's at the largest's, and at least kDerivedPoolBytes (never more than
                               // every message at the largest's). A game that keeps more large messages
                               // alive sets it; a given budget below the receive reserve (one received packet
                               // of every channel's most messages at the largest type) and one more message
                               // is refused and raised (docs/channels.md section 2)
  int block_pool_size = 0;    // block buffers; 0, when a type carries blocks and a channel allows them:
                              // with buffers of its own one per channel allowing blocks and one more per
                              // unreliable one (its inline received blocks), at most 4; on a shared arena
                              // 4 (message_pool_config)
  int block_receive_reserve = -1;  // block buffers only received blocks may take (MessagePool's contract);
                                   // -1 = one per channel receiving blocks into them (on a shared arena every
                                   // block-carrying channel; else the unreliable ones), at most buffers - 1
  int delta_baselines = 0;         // > 0: every `delta message` type sent on an unreliable channel goes as a
                                   // delta against the newest snapshot of its type the peer acked, with this
                                   // many baselines kept per type on each side (docs/delta.md); 0 = whole
  EndpointConfig endpoint;      // the packet layer; its protocol_id is replaced by protocol_id()

  // Passes when every field (kConnectionConfigLimits), every used channel, the endpoint (as given and as
  // the connection raises it: Connection::endpoint_config) and the message pool (message_pool_config(true):
  // kMessagePoolConfigLimits, so the block buffers fit kMaxBlockPoolBytes) are in range and
  // channels_memory() is within kMaxConnectionChannelBytes, else the reason for the first problem, a nested
  // one prefixed with its part ("ConnectionConfig.channels[2]: ...", "ConnectionConfig.messages: ...") (held
  // in the ConfigCheck; see config_table.hpp).
  ConfigCheck check() const;
  // This config with every field clamped into range (every channel and the endpoint sanitized too,
  // block_pool_size lowered to the memory cap, max_packet_size lowered until the endpoint raised to hold it
  // passes its table, and the channels lowered to kMaxConnectionChannelBytes: one halving at a time of the
  // field of one channel that frees the most -- sent_message_ids, sent_packets_buffer_size, the queues,
  // max_block_size -- never the channel count or layout; both ends sanitize the same config the same way).
  ConnectionConfig sanitized() const;
  // Bytes the channels of this config (sanitized) allocate, counted as if a type carries blocks.
  size_t channels_memory() const;
  // The connection's message pool: message_pool_size (or the derived count), block_pool_size buffers (or
  // the derived count when `block_types` -- the factory has a type carrying a block -- and a channel allows
  // blocks; `shared_blocks`: the pool takes them from a shared BlockArena) of the largest max_block_size of
  // a channel that allows blocks.
  MessagePoolConfig message_pool_config(bool block_types, bool shared_blocks = false) const;
};

// The limits of ConnectionConfig's own fields (channels[] have kChannelConfigLimits, endpoint has
// kEndpointConfigLimits). check() and sanitized() are derived from these tables alone.
inline constexpr auto kConnectionConfigLimits = config_table(
    Field<ConnectionConfig, int>{.name = "max_packet_size",
                                 .member = &ConnectionConfig::max_packet_size,
                                 .min = 8,
                                 .max = 1 << 20,
                                 .unit = "bytes"},
    Field<ConnectionConfig, int>{.name = "channel_count",
                                 .member = &ConnectionConfig::channel_count,
                                 .min = 1,
                                 .max = kMaxChannels},
    Field<ConnectionConfig, int>{.name = "message_pool_size",
                                 .member = &ConnectionConfig::message_pool_size,
                                 .min = 0,
                                 .max = 1 << 24},
    Field<ConnectionConfig, int>{.name = "message_pool_bytes",
                                 .member = &ConnectionConfig::message_pool_bytes,
                                 .min = 0,
                                 .max = static_cast<int>(kMaxMessageSlotBytes),
                                 .unit = "bytes"},
    Field<ConnectionConfig, int>{.name = "block_pool_size",
                                 .member = &ConnectionConfig::block_pool_size,
                                 .min = 0,
                                 .max = 1 << 16},
    Field<ConnectionConfig, int>{.name = "block_receive_reserve",
                                 .member = &ConnectionConfig::block_receive_reserve,
                                 .min = -1,
                                 .max = (1 << 16) - 1,
                                 // One buffer is always left for the application's outgoing blocks.
                                 .upper = [](const ConnectionConfig& c) {
                                   return (c.block_pool_size > 0 ? c.block_pool_size : 4) - 1;
                                 },
                                 .upper_text = "block buffers - 1"},
    Field<ConnectionConfig, int>{.name = "delta_baselines",
                                 .member = &ConnectionConfig::delta_baselines,
                                 .min = 0,
                                 .max = DeltaBaselines::kMaxRing},
    Field<ConnectionConfig, int>{.name = "max_packets_per_update",
                                 .member = &ConnectionConfig::max_packets_per_update,
                                 .min = 1,
                                 .max = 256});

struct ConnectionCallbacks {
  void* context = nullptr;
  // Required for send_packet(): hands one datagram to the transport.
  void (*transmit)(void* context, std::span<const std::byte> datagram) = nullptr;
};

enum class SendResult : uint8_t {
  kQueued,
  kEmptyMessage,     // the handle holds no message
  kWrongPool,        // the message was created by another connection's pool
  kBadChannel,       // channel index out of range
  kInvalidMessage,   // a write contract is broken (SendStatus::write_error says which)
  kTooLarge,         // can never fit the channel's share of a packet
  kQueueFull,        // the channel's send queue is full
  kBlocksDisabled,   // a block message on a channel with blocks disabled
  kBlockMissing,     // a block message without its block
  kConnectionError,  // the connection is in its error state
  kNotConnected,     // Client / Server: no session yet (or any more) on this end or slot
  kNoBlockBuffer,    // a received block (lent by its channel) sent on a reliable channel is first moved into
                     // a block buffer of the pool's own, and none was granted (SendStatus::block_refusal)
  kReservedForReceiving,  // a received message sent on a reliable channel from the pool's receive reserve
                          // (or a block message slot) with no space in the application's room to move it
                          // to (a type without a nothrow move constructor is copied there through its
                          // serialize functions; SendStatus::limit says which way failed): it would keep
                          // the room the peer's packets need until acked (send it
                          // once more of what this side sent is acked). Checked last: a refused message is
                          // not moved. An unreliable send never moves it (nothing waits on the peer).
};
const char* to_string(SendResult result);

struct SendStatus {
  SendResult result = SendResult::kQueued;
  WriteError write_error = WriteError::kNone;  // for kInvalidMessage
  size_t bits = 0;                             // the message's measured cost (type + body + block)
  // For kTooLarge: the config field that limits the size ("ChannelConfig.max_block_size", ...); for
  // kReservedForReceiving: why the message could not leave the receive reserve; else nullptr.
  const char* limit = nullptr;
  BlockRefusal block_refusal = BlockRefusal::kNone;  // for kNoBlockBuffer: why no buffer was granted
  explicit operator bool() const { return result == SendResult::kQueued; }
};

enum class ConnectionError : uint8_t {
  kNone,
  kConfigInvalid,           // the config failed check() (the sanitized one is used; see error_reason())
  kPacketInvalid,           // a packet failed to read (packet_error() says why)
  kMessageIdOutsideWindow,  // a reliable message id beyond what the receive window allows
  kBlockFragmentInvalid,    // a block fragment the channel's block receiver rejects (error_reason() says why)
  kFactoryInvalid,   // the MessageFactory failed check() (error_reason() says why): nothing is sent or read
  kBlockAckOverdue,  // while a block was queued, the peer left it (or the message ahead of it) unacked past
                     // its deadline (ChannelConfig::block_ack_grace; error_reason() says which)
  kBlockStalled,     // the peer left a block incomplete: while a received block was held, the next one,
                     // reassembled in a borrowed pool block buffer, got no new fragment within
                     // ChannelConfig::block_ack_grace (a correct peer resends, so never hits it)
};
const char* to_string(ConnectionError error);

struct ConnectionCounters {
  uint64_t packets_generated = 0;       // connection packets built
  uint64_t packets_processed = 0;       // connection packets read and applied
  uint64_t packets_invalid = 0;         // refused: unreadable or breaking the window (sets the error)
  uint64_t packets_pool_exhausted = 0;  // refused: no message slot (or block buffer, or the channel's reassembly
                                        // buffer still lent to a block the application holds) to read into
                                        // (peer resends)
  uint64_t packets_window_busy = 0;     // refused: reliable ids past a receive window still held (peer resends)
  uint64_t packets_block_ahead = 0;     // refused: a block fragment past its channel's head, some earlier id
                                        // missing (peer resends; a correct peer never sends one)
  uint64_t extra_packets = 0;           // packets send_packets() sent after the first of a call (block fragments)
  uint64_t packets_held_back = 0;       // packets send_packets() held back for the in-flight limit (a call
                                        // stops at the first it holds, so at most one is counted per call)
  uint64_t probes_sent = 0;             // first packets sent although every ack record was in flight (one
                                        // per probe interval, so that a silent link cannot stall both ends)
  uint64_t packets_after_error = 0;     // refused: the connection was already in its error state
  uint64_t sends_refused = 0;           // send() calls that returned anything but kQueued
  uint64_t packets_no_baseline = 0;     // refused: a delta against a baseline this side does not hold
                                        // (never applied; dropped and not acked, its acks still processed)
  uint64_t packets_in_order_only = 0;   // not acked, applied only up to each reliable channel's first missing
                                        // id: what else it carried would have waited past a gap in the
                                        // receive reserve (the gap rule; the peer resends it)
  uint64_t unreliable_dropped_in_order_only = 0;  // unreliable messages of a duplicate of such a packet,
                                                  // released unapplied: the first copy applied them (the
                                                  // packet was not acked, so the network may repeat it)
  friend bool operator==(const ConnectionCounters&, const ConnectionCounters&) = default;
};

class Connection {
 public:
  Connection(const MessageFactory& factory, const ConnectionConfig& config, const ConnectionCallbacks& callbacks = {},
             double now = 0.0);
  // The same with the message pool's block buffers taken from `shared_blocks` (a server's arena shared by its
  // slots; nullptr: the pool's own): block_pool_size is then the most this connection holds at once, and
  // memory_bytes() leaves the arena out. The arena must outlive the connection.
  Connection(const MessageFactory& factory, const ConnectionConfig& config,
             const ConnectionCallbacks& callbacks, double now, BlockArena* shared_blocks);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  Connection(Connection&&) = delete;
  Connection& operator=(Connection&&) = delete;

  // ---- Messages ----
  MessageHandle create(uint32_t type_id) { return pool_->create(type_id); }
  template <typename T>
  MessageHandle create() {
    return pool_->create(static_cast<uint32_t>(T::kTypeId));
  }
  // Queues `message` on `channel`. On success the handle is moved from; on refusal it is left untouched.
  SendStatus send(int channel, MessageHandle&& message);
  // The next message received on `channel` (in order on a reliable channel), or an empty handle.
  MessageHandle receive(int channel);

  // ---- Time and packets over the endpoint ----
  // Advances the endpoint to `now`; a completed block waiting for a buffer tries again; and the deadline
  // on the peer's acks while a block is queued is checked (kBlockAckOverdue past it), then the one on a
  // block reassembled in a borrowed pool buffer (kBlockStalled past it).
  void update(double now);
  // Builds one connection packet and sends it through the endpoint (acks, fragments, transmit).
  bool send_packet();
  // send_packet(), then more packets while a channel has a block fragment ready within its budget, up to
  // max_packets_per_update in all: a block is not limited to one fragment per update. Ordinary messages
  // never cause an extra packet. Returns the packets sent.
  // In-flight limit (docs/channels.md): so that on a slow link no packet overwrites the sent-packet record
  // an ack still needs, an extra packet waits (its budget unspent; packets_held_back) while
  // endpoint().packets_in_flight() >= max_packets_in_flight(), and the first packet waits while every
  // record (ack_records()) is in flight, except one probe per probe_interval() (probes_sent).
  // Contract: the limit never deadlocks two correct peers, whatever the loss pattern was, because acks
  // always flow: records free only through the peer's acks, and every packet of the peer that arrives
  // delivers them -- even one this side must refuse for lack of room, which it defers instead (see the
  // untrusted-input contract above). Were such acks dropped, a side whose room is held by its own
  // unacked sends would refuse the very acks that free it, and both ends would end up sending only
  // probes, each refused, for good.
  int send_packets();
  // The smallest sent-packet record buffer: the endpoint's, and each reliable channel's.
  int ack_records() const { return flight_.ack_records(); }
  // 3/4 of ack_records(): the quarter left over absorbs the peer's delayed packets, whose acks reach
  // below its newest ack window, and the first packets of the updates a round trip spans.
  int max_packets_in_flight() const { return flight_.max_packets_in_flight(); }
  // Seconds between probes while every record is in flight: half the smoothed RTT, within [0.1, 1].
  double probe_interval() const;
  // Seconds an ack is expected to take to be seen here: the endpoint's smoothed RTT (the network's round
  // trip) plus two update intervals (the peer's wait until a packet carries the ack, this side's wait until
  // an update reads it; the peer is taken to update as often as this side); 0 before the first RTT
  // sample. The reliable channels' resend delays follow it and the endpoint's jitter
  // (ChannelConfig::message_resend_rtt_factor).
  double ack_round_trip() const;
  // Smoothed seconds between update() calls (weight 1/8 per call; 0 before the second call).
  double update_interval() const { return update_interval_; }
  // One datagram from the transport.
  ReceiveResult receive_packet(std::span<const std::byte> datagram);
  // The same, for a datagram that reached this host at `arrival_time` (update()'s clock): passed to
  // Endpoint::receive_packet(datagram, arrival_time), so RTT samples leave out the wait for the tick.
  ReceiveResult receive_packet(std::span<const std::byte> datagram, double arrival_time);

  // ---- The connection-packet layer alone ----
  // Writes the connection packet for packet `sequence` into `out` (at most min(out.size(),
  // max_packet_size) bytes) and returns its size.
  size_t generate_packet(uint16_t sequence, std::span<std::byte> out);
  // Reads and applies a connection packet; false when it is refused (nothing applied).
  bool process_packet(uint16_t sequence, std::span<const std::byte> bytes);
  // Packet `sequence`, sent by this side, arrived.
  void on_packet_acked(uint16_t sequence);

  // Releases every message held, clears every channel and the endpoint, clears the error.
  void reset();

  // ---- State ----
  // False once an error is set (sticky until reset(); a refused config stays).
  bool ok() const { return error_ == ConnectionError::kNone; }
  ConnectionError error() const { return error_; }
  // nullptr when ok(), else why (a literal, or a config reason owned by the connection).
  const char* error_reason() const { return error_reason_; }
  ConnectionPacketError packet_error() const { return packet_error_; }
  ReadError packet_read_error() const { return packet_read_error_; }
  uint64_t protocol_id() const { return protocol_id_; }
  // `delta_format` is the delta encoding's version (serialize/bits.hpp), folded in only when a type is
  // sent as a delta (delta_baselines > 0 and a type with a delta form); a parameter so that tests can
  // show what it changes.
  static uint64_t protocol_id(const MessageFactory& factory, const ConnectionConfig& config,
                              int delta_format = kDeltaFormatVersion);
  // The endpoint a connection of `config` (already sanitized) builds, its protocol id aside: config.endpoint
  // with max_packet_size raised to hold a whole connection packet, and fragment_above raised to
  // config.max_packet_size when that is at most 1200 bytes (such a packet is sent whole, never split). What
  // a transport under the connection must carry (the stack fits it to netcode's payload).
  static EndpointConfig endpoint_config(const ConnectionConfig& config);
  // The reliable channels of `config` that reassemble blocks for `factory` (and so lend their buffer to the
  // pool when it holds buffers of its own).
  static int lending_channels(const MessageFactory& factory, const ConnectionConfig& config);
  // The bytes of send()'s scratch for copying a received message out of the receive reserve (a type
  // without a nothrow move, MessagePool::copy_to_application): a packet and a word when `factory` has such
  // a type, else 0.
  static size_t copy_buffer_bytes(const MessageFactory& factory, const ConnectionConfig& config);

  int channel_count() const { return config_.channel_count; }
  const ChannelCounters& channel_counters(int channel) const { return channels_[channel]->counters(); }
  int send_queue_depth(int channel) const { return channels_[channel]->send_queue_depth(); }
  int receive_queue_depth(int channel) const { return channels_[channel]->receive_queue_depth(); }
  const ConnectionCounters& counters() const { return counters_; }
  // The delta form's rings and counters (ConnectionConfig::delta_baselines; ring() 0 when off).
  const DeltaBaselines& delta_baselines() const { return *delta_; }
  const ConnectionConfig& config() const { return config_; }
  const PacketLayout& layout() const { return layout_; }
  Channel& channel(int index) { return *channels_[index]; }
  const Channel& channel(int index) const { return *channels_[index]; }
  MessagePool& pool() { return *pool_; }
  const MessagePool& pool() const { return *pool_; }
  // The endpoint under the connection. Its reset() alone restarts the received window, which the
  // connection sees (Endpoint::receive_restarts) before the next packet: its in-order-only marks are
  // cleared; the channels keep their state (Connection::reset restarts everything).
  Endpoint& endpoint() { return *endpoint_; }
  const Endpoint& endpoint() const { return *endpoint_; }
  // The callbacks the connection gave its endpoint (to wrap, e.g. by a Link, and set back).
  EndpointCallbacks endpoint_callbacks();
  // Bytes allocated at construction (pool, channels, buffers, endpoint; not a shared arena's buffers).
  size_t memory_bytes() const;
  // What a connection of `config` (sanitized) and `factory` allocates: memory_bytes() of one built from
  // them, without building it (the stack's memory cap counts it per server slot); `shared_blocks`: built on
  // a BlockArena.
  static size_t memory_required(const MessageFactory& factory, const ConnectionConfig& config,
                                bool shared_blocks = false);

 private:
  void fail(ConnectionError error, const char* reason);
  static bool process_trampoline(void* context, uint16_t sequence, std::span<const std::byte> payload);
  static void on_ack_trampoline(void* context, uint16_t sequence);
  static void transmit_trampoline(void* context, uint16_t sequence, std::span<const std::byte> datagram);

  ConnectionConfig config_;
  ConnectionCallbacks callbacks_;
  MessageFactory factory_;
  PacketLayout layout_;
  uint64_t protocol_id_ = 0;
  double now_ = 0.0;
  std::unique_ptr<MessagePool> pool_;
  std::unique_ptr<std::unique_ptr<Channel>[]> channels_;
  std::array<int, kMaxChannels> priority_order_{};
  std::unique_ptr<OutgoingEntry[]> planned_;
  std::unique_ptr<OutgoingEntry[]> outgoing_;
  std::unique_ptr<IncomingPacket> incoming_;
  std::unique_ptr<std::byte[]> packet_buffer_;
  std::unique_ptr<std::byte[]> copy_buffer_;  // send()'s scratch for a type without a nothrow move
  std::unique_ptr<Endpoint> endpoint_;
  std::unique_ptr<DeltaBaselines> delta_;
  // The packets applied in order only within the endpoint's received window: a duplicate of one does not
  // apply its unreliable messages again.
  detail::SequenceMarks in_order_only_;
  uint16_t restarts_seen_ = 0;  // the endpoint's receive_restarts() when the last packet was processed
  ConnectionError error_ = ConnectionError::kNone;
  // delta_->ring() > 0. Without the delta form no packet path reads the delta object (a cold line each
  // time); the flag sits in what would be padding, so it adds nothing to sizeof(Connection).
  bool delta_on_ = false;
  const char* error_reason_ = nullptr;
  char config_reason_[kConfigReasonBytes] = {};  // a config reason, owned by the connection
  ConnectionPacketError packet_error_ = ConnectionPacketError::kNone;
  ReadError packet_read_error_ = ReadError::kNone;
  ConnectionCounters counters_;
  FlightLimit flight_;  // when send_packets() may send (the in-flight limit and its probes)
  double update_interval_ = 0.0;  // smoothed seconds between update() calls
  bool updated_ = false;          // update() has been called since construction or reset()
};

}  // namespace bitwire
