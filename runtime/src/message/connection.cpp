// Connection: send-time validation, packet planning across channels (priorities and budgets), packet
// processing (read whole, check, then apply), acks, and the endpoint underneath.
#include "bitwire/message/connection.hpp"

#include <algorithm>

#include "bitwire/core/log.hpp"
#include "bitwire/serialize/serialize.hpp"

namespace bitwire {

const char* to_string(SendResult result) {
  switch (result) {
    case SendResult::kQueued: return "queued";
    case SendResult::kEmptyMessage: return "empty message handle";
    case SendResult::kWrongPool: return "message from another connection's pool";
    case SendResult::kBadChannel: return "channel index out of range";
    case SendResult::kInvalidMessage: return "message breaks a write contract";
    case SendResult::kTooLarge: return "message can never fit the channel's packet budget";
    case SendResult::kQueueFull: return "send queue full";
    case SendResult::kBlocksDisabled: return "blocks are disabled on this channel";
    case SendResult::kBlockMissing: return "block message without a block";
    case SendResult::kConnectionError: return "connection is in its error state";
    case SendResult::kNoBlockBuffer:
      return "a received block sent on needs a block buffer of the pool's own and none is granted "
             "(block_refusal)";
    case SendResult::kNotConnected:
      return "not connected: send after the session is connected";
    case SendResult::kReservedForReceiving:
      return "a received message sent on a reliable channel would keep the message pool's receive reserve "
             "until acked: no room to move or copy it to (limit says which)";
  }
  return "unknown send result";
}

const char* to_string(ConnectionError error) {
  switch (error) {
    case ConnectionError::kNone: return "none";
    case ConnectionError::kConfigInvalid: return "invalid config";
    case ConnectionError::kPacketInvalid: return "invalid packet";
    case ConnectionError::kMessageIdOutsideWindow: return "message id outside the receive window";
    case ConnectionError::kBlockFragmentInvalid: return "block fragment rejected";
    case ConnectionError::kFactoryInvalid:
      return "message factory refused";
    case ConnectionError::kBlockAckOverdue:
      return "block unacked past its deadline";
    case ConnectionError::kBlockStalled:
      return "peer left a block incomplete";
  }
  return "unknown connection error";
}

namespace {

// FNV-1a over little-endian fields: a fixed, platform-independent fold.
struct Fingerprint {
  uint64_t hash = 0xcbf29ce484222325ull;
  void add(uint64_t value, int bytes = 8) {
    for (int i = 0; i < bytes; ++i) {
      hash ^= (value >> (8 * i)) & 0xFF;
      hash *= 0x100000001b3ull;
    }
  }
};

}  // namespace

EndpointConfig Connection::endpoint_config(const ConnectionConfig& config) {
  EndpointConfig endpoint = config.endpoint;
  if (endpoint.max_packet_size < config.max_packet_size && endpoint.fragment_size > 0) {
    // Raised to hold a whole connection packet; max_fragments must then be exactly the count it needs
    // (EndpointConfig's limits). A config left as given is checked by the endpoint itself.
    endpoint.max_packet_size = config.max_packet_size;
    endpoint.max_fragments = (endpoint.max_packet_size + endpoint.fragment_size - 1) / endpoint.fragment_size;
  }
  // A connection packet up to 1200 bytes (the default: a 1 KiB block fragment and its headers) is sent
  // whole: splitting it would double its exposure to loss. Larger packets are the endpoint's to fragment.
  if (config.max_packet_size <= 1200) {
    endpoint.fragment_above = std::max(endpoint.fragment_above, config.max_packet_size);
  }
  return endpoint;
}

uint64_t Connection::protocol_id(const MessageFactory& factory, const ConnectionConfig& raw,
                                 int delta_format) {
  const ConnectionConfig config = raw.sanitized();
  Fingerprint f;
  f.add(config.protocol_id);
  f.add(static_cast<uint64_t>(factory.type_count()), 4);
  for (const MessageTypeInfo& type : factory.types()) f.add(type.has_block ? 1 : 0, 1);
  f.add(static_cast<uint64_t>(config.channel_count), 4);
  for (int i = 0; i < config.channel_count; ++i) {
    const ChannelConfig& c = config.channels[static_cast<size_t>(i)];
    f.add(static_cast<uint64_t>(c.type), 1);
    f.add(static_cast<uint64_t>(c.max_messages_per_packet), 4);
    f.add(static_cast<uint64_t>(c.max_block_size), 4);
    f.add(static_cast<uint64_t>(c.block_fragment_size), 4);
    f.add(c.disable_blocks ? 1 : 0, 1);
    f.add(static_cast<uint64_t>(c.receive_queue_size), 4);
  }
  // The delta form changes how delta types are read: a peer without it must fail the envelope. Folded in
  // only when on, so every existing protocol id stays what it was. So must a peer with another delta
  // encoding (delta_format), folded in only when some type is sent as a delta.
  if (config.delta_baselines > 0) {
    f.add(static_cast<uint64_t>(config.delta_baselines), 4);
    bool any_delta = false;
    for (const MessageTypeInfo& type : factory.types()) {
      f.add(type.write_delta != nullptr ? 1 : 0, 1);
      any_delta |= type.write_delta != nullptr;
    }
    if (any_delta) f.add(static_cast<uint64_t>(static_cast<uint32_t>(delta_format)), 4);
  }
  return f.hash;
}

Connection::Connection(const MessageFactory& factory, const ConnectionConfig& config,
                       const ConnectionCallbacks& callbacks, double now)
    : Connection(factory, config, callbacks, now, nullptr) {}

Connection::Connection(const MessageFactory& factory, const ConnectionConfig& config,
                       const ConnectionCallbacks& callbacks, double now, BlockArena* shared_blocks)
    : config_(config.sanitized()), callbacks_(callbacks), factory_(factory), now_(now) {
  if (const ConfigCheck problem = config.check(); !problem) {
    // A flagged state, not an abort: the sanitized config runs and error() says what was refused.
    fail(ConnectionError::kConfigInvalid, keep_config_reason(config_reason_, problem));
  }
  if (const ConfigCheck problem = factory.check(); !problem) {
    // Its entries (sizes, functions) cannot be trusted: the pool holds no slot, no message is written or
    // read, and the error outranks a refused config.
    error_ = ConnectionError::kNone;
    fail(ConnectionError::kFactoryInvalid, keep_config_reason(config_reason_, problem));
  }
  layout_.factory = factory_;
  layout_.channels = std::span<const ChannelConfig>(config_.channels.data(), static_cast<size_t>(config_.channel_count));
  protocol_id_ = protocol_id(factory_, config_);

  pool_ = std::make_unique<MessagePool>(
      factory_, config_.message_pool_config(factory_.any_block_type(), shared_blocks != nullptr),
      shared_blocks);
  if (!pool_->ok() && error_ == ConnectionError::kNone) {
    // The table passed (config_ is sanitized); the factory's largest type made the slots too big.
    fail(ConnectionError::kConfigInvalid,
         keep_config_reason(config_reason_, config_part_check("ConnectionConfig.messages",
                                                              ConfigCheck::failure(pool_->error_reason()))));
  }

  const auto count = static_cast<size_t>(config_.channel_count);
  // With buffers of its own, every reliable channel that reassembles blocks lends its buffer to the pool.
  if (shared_blocks == nullptr) pool_->reserve_lenders(lending_channels(factory_, config_));
  // The endpoint reports acks only for the packets it still remembers: no channel keeps more records.
  const int endpoint_records = endpoint_config(config_).sanitized().sent_packets_buffer_size;
  channels_.reset(new std::unique_ptr<Channel>[count]);
  for (int i = 0; i < config_.channel_count; ++i) {
    if (layout_.channels[static_cast<size_t>(i)].type == ChannelType::kReliableOrdered) {
      // With buffers of its own the pool borrows the channel's reassembly buffer for a received block; on a
      // shared arena the block is copied into an arena buffer once complete (channel.hpp).
      channels_[i] = std::make_unique<ReliableOrderedChannel>(
          layout_, i, shared_blocks == nullptr ? pool_.get() : nullptr, endpoint_records);
    } else {
      channels_[i] = std::make_unique<UnreliableUnorderedChannel>(layout_, i);
    }
    priority_order_[static_cast<size_t>(i)] = i;
  }
  // Higher priority first, ties by index: a stable insertion sort (at most 64 channels, no allocation).
  for (int i = 1; i < config_.channel_count; ++i) {
    const int channel = priority_order_[static_cast<size_t>(i)];
    const int priority = layout_.channels[static_cast<size_t>(channel)].priority;
    int j = i;
    while (j > 0 && layout_.channels[static_cast<size_t>(priority_order_[static_cast<size_t>(j - 1)])].priority < priority) {
      priority_order_[static_cast<size_t>(j)] = priority_order_[static_cast<size_t>(j - 1)];
      --j;
    }
    priority_order_[static_cast<size_t>(j)] = channel;
  }
  planned_.reset(new OutgoingEntry[count]);
  outgoing_.reset(new OutgoingEntry[count]);
  incoming_ = std::make_unique<IncomingPacket>(layout_);
  packet_buffer_.reset(new std::byte[static_cast<size_t>(config_.max_packet_size)]);
  delta_ = std::make_unique<DeltaBaselines>(factory_, config_.delta_baselines);
  delta_on_ = delta_->ring() > 0;

  EndpointConfig endpoint = endpoint_config(config_);
  endpoint.protocol_id = protocol_id_;
  endpoint_ = std::make_unique<Endpoint>(endpoint, endpoint_callbacks(), now);
  in_order_only_ = detail::SequenceMarks(endpoint_->config().received_packets_buffer_size);
  if (const size_t copy = copy_buffer_bytes(factory_, config_); copy > 0)
    copy_buffer_.reset(new std::byte[copy]);

  int ack_records = endpoint_->config().sent_packets_buffer_size;
  for (const ChannelConfig& c : layout_.channels) {
    if (c.type == ChannelType::kReliableOrdered)
      ack_records = std::min(ack_records, c.sent_packets_buffer_size);
  }
  flight_ = FlightLimit(ack_records);
}

Connection::~Connection() {
  // Channels and the staging packet hold handles into the pool: release them before the pool goes.
  incoming_.reset();
  if (channels_) {
    for (int i = 0; i < config_.channel_count; ++i) channels_[i].reset();
  }
}

EndpointCallbacks Connection::endpoint_callbacks() {
  EndpointCallbacks callbacks;
  callbacks.context = this;
  callbacks.transmit = &Connection::transmit_trampoline;
  callbacks.process = &Connection::process_trampoline;
  callbacks.on_ack = &Connection::on_ack_trampoline;
  return callbacks;
}

void Connection::transmit_trampoline(void* context, uint16_t, std::span<const std::byte> datagram) {
  auto* self = static_cast<Connection*>(context);
  if (self->callbacks_.transmit != nullptr) self->callbacks_.transmit(self->callbacks_.context, datagram);
}

bool Connection::process_trampoline(void* context, uint16_t sequence, std::span<const std::byte> payload) {
  return static_cast<Connection*>(context)->process_packet(sequence, payload);
}

void Connection::on_ack_trampoline(void* context, uint16_t sequence) {
  static_cast<Connection*>(context)->on_packet_acked(sequence);
}

void Connection::fail(ConnectionError error, const char* reason) {
  if (error_ != ConnectionError::kNone) return;
  error_ = error;
  error_reason_ = reason;
  BITWIRE_LOG(LogLevel::kInfo, "connection error: %s: %s", to_string(error), reason);
}

SendStatus Connection::send(int channel_index, MessageHandle&& message) {
  SendStatus status;
  const auto refuse = [&](SendResult result, const char* limit = nullptr) {
    ++counters_.sends_refused;
    status.result = result;
    status.limit = limit;
    return status;
  };
  if (!message) return refuse(SendResult::kEmptyMessage);
  if (message.pool() != pool_.get()) return refuse(SendResult::kWrongPool);
  if (channel_index < 0 || channel_index >= config_.channel_count) return refuse(SendResult::kBadChannel);
  if (error_ != ConnectionError::kNone && error_ != ConnectionError::kConfigInvalid) {
    return refuse(SendResult::kConnectionError);
  }
  Channel& channel = *channels_[channel_index];
  // A received message sent on a reliable channel stays until the peer acks it: it leaves the receive
  // reserve (or a block message slot) for the application's room (MessagePool's contract;
  // docs/channels.md section 2). The move is the last step that may refuse, so a refused message is where
  // it was (a pointer into it stays valid). An unreliable channel's sent message never waits on the peer
  // (released at the next plan): it is not moved.
  // A type without a nothrow move constructor is copied through its serialize functions instead, in a
  // buffer of its own (copy_buffer_bytes): a send() from a transmit callback runs while the endpoint still
  // reads the packet buffer's fragments.
  size_t body_bits = 0;
  const auto leave_reserve = [&]() {
    if (channel.config().type != ChannelType::kReliableOrdered ||
        !(pool_->in_receive_reserve(message) || pool_->in_block_slot(message))) {
      return true;
    }
    const bool movable = message.info().relocate != nullptr;
    if (movable ? pool_->move_to_application(message)
                : pool_->copy_to_application(
                      message, std::span<std::byte>(copy_buffer_.get(), copy_buffer_bytes(factory_, config_)),
                      body_bits)) {
      return true;
    }
    refuse(SendResult::kReservedForReceiving,
           movable
               ? "MessagePool::room_capacity() or the application's room bytes: no room to move it to"
               : "the application's room (the type, without a nothrow move constructor, is copied through "
                 "its serialize functions): no room, or its read refused what its write gave");
    return false;
  };
  const ChannelConfig& c = channel.config();
  const MessageTypeInfo& info = message.info();

  ValidateStream validate;
  if (!info.validate(message.data(), validate) && !validate.failed()) validate.refuse(WriteError::kInvalidData);
  if (validate.failed()) {
    status.write_error = validate.error();
    return refuse(SendResult::kInvalidMessage);
  }
  body_bits = validate.bits_processed();
  size_t bits = static_cast<size_t>(layout_.type_bits()) + validate.bits_processed();
  // The delta form's header (its body never measures more than the whole one: DeltaBaselines).
  if (c.type != ChannelType::kReliableOrdered && delta_on_ && delta_->handles(info))
    bits += DeltaBaselines::kHeaderBits;
  // The most this message's entry can ever have: the whole packet, or the channel's own budget.
  size_t budget_bytes = static_cast<size_t>(config_.max_packet_size);
  const char* budget_limit = "ConnectionConfig.max_packet_size";
  if (c.packet_budget_bytes > 0 && static_cast<size_t>(c.packet_budget_bytes) < budget_bytes) {
    budget_bytes = static_cast<size_t>(c.packet_budget_bytes);
    budget_limit = "ChannelConfig.packet_budget_bytes";
  }
  const size_t budget_bits = budget_bytes * 8 - std::min(budget_bytes * 8, static_cast<size_t>(layout_.packet_header_bits()));
  if (info.has_block) {
    if (c.disable_blocks) return refuse(SendResult::kBlocksDisabled);
    const std::span<const std::byte> block = message.block();
    if (block.empty()) return refuse(SendResult::kBlockMissing);
    if (block.size() > static_cast<size_t>(c.max_block_size)) {
      return refuse(SendResult::kTooLarge, "ChannelConfig.max_block_size");
    }
    if (c.type == ChannelType::kReliableOrdered) {
      BITWIRE_ASSERT(channel.block_capable());  // a block type exists and the channel allows blocks
      // Sent as fragments: fragment 0's entry (header, a whole fragment, type and body) must fit.
      status.bits = bits;
      if (channel.fragment_entry_bits(bits) + static_cast<size_t>(c.block_fragment_size) * 8 > budget_bits) {
        return refuse(SendResult::kTooLarge, budget_limit);
      }
      if (!channel.can_send()) return refuse(SendResult::kQueueFull);
      // A received block lent by its channel goes out of a buffer of the pool's own: a queued block waits
      // for the peer's acks, and the lent buffer must never wait on the peer (both ends echoing blocks
      // would each hold the buffer the other's next block needs). It is copied only once nothing else can
      // refuse the send (a refused message keeps its lent block): the buffer is checked first, and
      // leave_reserve() takes no block buffer.
      const bool lent = message.block_lent();
      if (lent) {
        if (message.block_refusal(block.size()) != BlockRefusal::kNone) {
          status.block_refusal = message.try_attach_block(block);  // refuses alike, counted by the pool
          return refuse(SendResult::kNoBlockBuffer);
        }
      }
      if (!leave_reserve()) return status;
      if (lent) {
        [[maybe_unused]] const BlockRefusal moved = message.try_attach_block(message.block());
        BITWIRE_ASSERT(moved == BlockRefusal::kNone);  // block_refusal() said so, and nothing took one since
      }
      channel.send(std::move(message), static_cast<uint32_t>(bits));
      return status;
    }
    bits += static_cast<size_t>(bits_required(1u, static_cast<uint32_t>(c.max_block_size))) +
            MeasureStream::kAlignBound + block.size() * 8;
  }
  status.bits = bits;
  const size_t overhead = static_cast<size_t>(layout_.entry_header_bits()) + 1 +
                          static_cast<size_t>(bits_required(1u, static_cast<uint32_t>(c.max_messages_per_packet))) +
                          (c.type == ChannelType::kReliableOrdered ? 16 : 0);
  if (overhead + bits > budget_bits) return refuse(SendResult::kTooLarge, budget_limit);
  if (!channel.can_send()) return refuse(SendResult::kQueueFull);
  if (!leave_reserve()) return status;
  channel.send(std::move(message), static_cast<uint32_t>(bits));
  return status;
}

MessageHandle Connection::receive(int channel) {
  if (channel < 0 || channel >= config_.channel_count) return {};
  return channels_[channel]->receive();
}

void Connection::update(double now) {
  if (updated_ && now > now_) {
    const double interval = now - now_;
    update_interval_ =
        update_interval_ == 0.0 ? interval : update_interval_ + (interval - update_interval_) / 8.0;
  }
  updated_ = true;
  now_ = now;
  endpoint_->update(now);
  if (error_ != ConnectionError::kNone && error_ != ConnectionError::kConfigInvalid) return;
  for (int i = 0; i < config_.channel_count; ++i) {
    if (const char* overdue = channels_[i]->update(now)) {
      fail(ConnectionError::kBlockAckOverdue, overdue);
      return;
    }
    if (const char* stalled = channels_[i]->receive_stalled(now)) {
      fail(ConnectionError::kBlockStalled, stalled);
      return;
    }
  }
}

bool Connection::send_packet() {
  const auto max_size = static_cast<size_t>(config_.max_packet_size);
  // Written straight into the endpoint's datagram when a whole packet fits there (no copy, and no cold
  // per-connection buffer touched); else into packet_buffer_ and copied (the endpoint fragments it).
  if (const std::span<std::byte> room = endpoint_->send_room(); room.size() >= max_size) {
    const size_t size = generate_packet(endpoint_->next_sequence(), room.first(max_size));
    if (!endpoint_->send_written(size)) return false;
    flight_.sent(now_);
    return true;
  }
  const size_t size =
      generate_packet(endpoint_->next_sequence(), std::span<std::byte>(packet_buffer_.get(), max_size));
  if (!endpoint_->send_packet({packet_buffer_.get(), size})) return false;
  flight_.sent(now_);
  return true;
}

double Connection::ack_round_trip() const {
  if (endpoint_->rtt_samples() == 0) return 0.0;
  return endpoint_->rtt_ms() / 1000.0 + 2.0 * update_interval_;
}

double Connection::probe_interval() const {
  return FlightLimit::probe_interval(endpoint_->rtt_ms());
}

int Connection::send_packets() {
  // Every record in flight: the next packet would overwrite one whose ack may still come. Wait, but send
  // a probe now and then: when both ends have all records in flight (e.g. after an outage), only a
  // packet that reaches the peer makes its acks, and so both ends' windows, move again.
  switch (flight_.first_packet(endpoint_->packets_in_flight(), now_, endpoint_->rtt_ms())) {
    case FlightLimit::kHold:
      ++counters_.packets_held_back;
      return 0;
    case FlightLimit::kProbe:
      ++counters_.probes_sent;
      break;
    case FlightLimit::kSend:
      break;
  }
  int sent = send_packet() ? 1 : 0;
  const size_t packet_bits = static_cast<size_t>(config_.max_packet_size) * 8;
  const size_t header = static_cast<size_t>(layout_.packet_header_bits());
  for (int k = 1; k < config_.max_packets_per_update; ++k) {
    bool ready = false;
    for (int i = 0; i < config_.channel_count && !ready; ++i) {
      const ChannelConfig& c = layout_.channels[static_cast<size_t>(i)];
      size_t available = packet_bits - std::min(packet_bits, header);
      if (c.packet_budget_bytes > 0) available = std::min(available, static_cast<size_t>(c.packet_budget_bytes) * 8);
      ready = channels_[i]->fragment_ready(now_, available);
    }
    if (!ready || (error_ != ConnectionError::kNone && error_ != ConnectionError::kConfigInvalid)) break;
    if (!flight_.extra_allowed(endpoint_->packets_in_flight())) {
      ++counters_.packets_held_back;
      break;
    }
    uint64_t fragments_before = 0;
    for (int i = 0; i < config_.channel_count; ++i) fragments_before += channels_[i]->counters().block_fragments_sent;
    if (!send_packet()) break;
    ++sent;
    ++counters_.extra_packets;
    // Higher-priority channels may have taken the room the fragment needed: then stop, not spin.
    uint64_t fragments_after = 0;
    for (int i = 0; i < config_.channel_count; ++i) fragments_after += channels_[i]->counters().block_fragments_sent;
    if (fragments_after == fragments_before) break;
  }
  return sent;
}

ReceiveResult Connection::receive_packet(std::span<const std::byte> datagram) {
  return endpoint_->receive_packet(datagram);
}

ReceiveResult Connection::receive_packet(std::span<const std::byte> datagram, double arrival_time) {
  return endpoint_->receive_packet(datagram, arrival_time);
}

size_t Connection::generate_packet(uint16_t sequence, std::span<std::byte> out) {
  const size_t bytes = std::min(out.size(), static_cast<size_t>(config_.max_packet_size));
  if (bytes == 0) return 0;
  size_t remaining = bytes * 8;
  const auto header = static_cast<size_t>(layout_.packet_header_bits());
  remaining = remaining > header ? remaining - header : 0;
  const bool active = error_ == ConnectionError::kNone || error_ == ConnectionError::kConfigInvalid;
  std::array<bool, kMaxChannels> has{};
  if (active) {
    // The resend delays follow the measured round trip (none before the first sample).
    const double round_trip = ack_round_trip();
    const double jitter = endpoint_->jitter_ms() / 1000.0;
    for (int i = 0; i < config_.channel_count; ++i) channels_[i]->set_round_trip(round_trip, jitter);
    for (int k = 0; k < config_.channel_count; ++k) {
      const int i = priority_order_[static_cast<size_t>(k)];
      const ChannelConfig& c = layout_.channels[static_cast<size_t>(i)];
      size_t available = remaining;
      if (c.packet_budget_bytes > 0) available = std::min(available, static_cast<size_t>(c.packet_budget_bytes) * 8);
      const size_t used = channels_[i]->plan(sequence, now_, available, planned_[i]);
      if (used != 0) {
        has[static_cast<size_t>(i)] = true;
        remaining -= used;
      }
    }
  }
  size_t count = 0;
  for (int i = 0; i < config_.channel_count; ++i) {
    if (has[static_cast<size_t>(i)]) outgoing_[count++] = planned_[i];
  }
  DeltaBaselines* const delta = delta_on_ ? delta_.get() : nullptr;
  if (delta != nullptr) delta->begin_packet(sequence);
  const size_t size = write_connection_packet(layout_, std::span<const OutgoingEntry>(outgoing_.get(), count),
                                              out.first(bytes), delta);
  for (int i = 0; i < config_.channel_count; ++i) channels_[i]->packet_written();
  ++counters_.packets_generated;
  return size;
}

bool Connection::process_packet(uint16_t sequence, std::span<const std::byte> bytes) {
  if (error_ != ConnectionError::kNone && error_ != ConnectionError::kConfigInvalid) {
    ++counters_.packets_after_error;
    return false;
  }
  // The endpoint counts each restart of its received window (a backward resync, a reset) before it passes
  // on the packet that caused it, or, for a fragment's, any later packet: the peer's sequences then begin a
  // new stream, on which the in-order-only marks of the old one must not be read, whether this packet is
  // ahead of the marks or behind them. A forward resync is none: the marks stay.
  if (const uint16_t restarts = endpoint_->receive_restarts(); restarts != restarts_seen_) {
    restarts_seen_ = restarts;
    in_order_only_.clear();
  }
  in_order_only_.observe(sequence);
  const ConnectionPacketError error = read_connection_packet(
      layout_, *pool_, bytes, *incoming_, &packet_read_error_, delta_on_ ? delta_.get() : nullptr);
  if (error == ConnectionPacketError::kDeltaNoBaseline) {
    // Never applied. Not the peer's fault either (its baseline was acked, then overwritten here by a
    // newer snapshot that overtook this packet), so no error: dropped and not acked; its acks count.
    ++counters_.packets_no_baseline;
    endpoint_->defer_packet();
    return false;
  }
  if (error == ConnectionPacketError::kPoolExhausted) {
    ++counters_.packets_pool_exhausted;
    endpoint_->defer_packet();  // busy, not wrong: its acks still count (a refusal alone would drop them)
    return false;
  }
  if (error != ConnectionPacketError::kNone) {
    ++counters_.packets_invalid;
    packet_error_ = error;
    fail(ConnectionError::kPacketInvalid, to_string(error));
    return false;
  }
  for (int e = 0; e < incoming_->entry_count(); ++e) {
    Channel& channel = *channels_[incoming_->entry(e).channel];
    ChannelError channel_error = channel.check(*incoming_, e);
    // A reliable channel whose reassembly buffer is lent to a block the application holds reassembles the
    // next one in a free pool buffer: only with none free is the whole packet refused (acks still count).
    if (channel_error == ChannelError::kBlockBusy && channel.make_block_room()) {
      channel_error = channel.check(*incoming_, e);
    }
    if (channel_error == ChannelError::kBlockBusy) {
      incoming_->clear();
      ++counters_.packets_pool_exhausted;
      endpoint_->defer_packet();
      return false;
    }
    if (channel_error == ChannelError::kWindowBusy) {
      incoming_->clear();
      ++counters_.packets_window_busy;
      endpoint_->defer_packet();
      return false;
    }
    if (channel_error == ChannelError::kBlockAhead) {
      incoming_->clear();
      ++counters_.packets_block_ahead;
      endpoint_->defer_packet();
      return false;
    }
    if (channel_error != ChannelError::kNone) {
      incoming_->clear();
      ++counters_.packets_invalid;
      fail(channel_error == ChannelError::kBlockFragmentInvalid ? ConnectionError::kBlockFragmentInvalid
                                                                : ConnectionError::kMessageIdOutsideWindow,
           channel.error_detail());
      return false;
    }
  }
  // The gap rule (docs/channels.md section 2). The receive reserve keeps only what the application can
  // receive at once: messages that wait on the peer -- reliable ones past a missing id, a block's fragment
  // 0 kept for reassembly -- move to the application's room. Where it has no room for one, the packet is
  // not acked and only what the application can receive at once is applied: each reliable channel's
  // messages up to its first missing id, and block fragments whose message is not in the reserve. So the
  // packet that fills a gap is never refused for what it also carries past a hole, and nothing that waits
  // on the peer takes the room that packet needs.
  bool moved = true;
  for (int e = 0; e < incoming_->entry_count() && moved; ++e) {
    moved = channels_[incoming_->entry(e).channel]->move_held(*incoming_, e, *pool_);
  }
  if (!moved) {
    // Unreliable messages are applied the first time the packet is seen (nothing in them waits on the
    // peer, and the peer never resends them, so snapshots keep flowing while a reliable gap is held). The
    // packet is not acked, so the network may still bring a duplicate of it: the marks remember it, and a
    // duplicate's unreliable messages are released unapplied. Their delta forms do not become baselines
    // here: the peer takes one only from a packet it saw acked, and an acked duplicate commits them.
    const bool first = !in_order_only_.marked(sequence);
    for (int e = 0; e < incoming_->entry_count(); ++e) {
      Channel& channel = *channels_[incoming_->entry(e).channel];
      const IncomingPacket::Entry& entry = incoming_->entry(e);
      if (entry.block) {
        if (!pool_->in_receive_reserve(entry.fragment.message)) {
          channel.apply(*incoming_, e);
        } else {
          channel.apply_in_order(*incoming_, e);
        }
      } else if (layout_.channels[static_cast<size_t>(entry.channel)].type != ChannelType::kReliableOrdered) {
        if (first) {
          channel.apply(*incoming_, e);
        } else {
          counters_.unreliable_dropped_in_order_only += static_cast<uint64_t>(entry.message_count);
        }
      } else {
        channel.apply_in_order(*incoming_, e);
      }
    }
    in_order_only_.mark(sequence);
    incoming_->clear();
    ++counters_.packets_in_order_only;
    endpoint_->defer_packet();
    return false;
  }
  // Accepted: the delta-form snapshots it carried become baselines, then the channels take the messages.
  for (int e = 0; delta_on_ && e < incoming_->entry_count(); ++e) {
    const IncomingPacket::Entry& entry = incoming_->entry(e);
    if (entry.block ||
        layout_.channels[static_cast<size_t>(entry.channel)].type == ChannelType::kReliableOrdered)
      continue;
    for (int m = entry.first_message; m < entry.first_message + entry.message_count; ++m) {
      IncomingPacket::Message& message = incoming_->message(m);
      if (delta_->handles(message.message.info())) delta_->commit(message.message, message.id);
    }
  }
  // A duplicate of a packet applied in order only: its unreliable messages were applied then.
  const bool repeat = in_order_only_.marked(sequence);
  for (int e = 0; e < incoming_->entry_count(); ++e) {
    const IncomingPacket::Entry& entry = incoming_->entry(e);
    if (repeat && !entry.block &&
        layout_.channels[static_cast<size_t>(entry.channel)].type != ChannelType::kReliableOrdered) {
      counters_.unreliable_dropped_in_order_only += static_cast<uint64_t>(entry.message_count);
      continue;
    }
    channels_[entry.channel]->apply(*incoming_, e);
  }
  incoming_->clear();
  ++counters_.packets_processed;
  return true;
}

void Connection::on_packet_acked(uint16_t sequence) {
  for (int i = 0; i < config_.channel_count; ++i) channels_[i]->on_packet_acked(sequence);
  if (delta_on_) delta_->on_packet_acked(sequence);
}

void Connection::reset() {
  incoming_->clear();
  for (int i = 0; i < config_.channel_count; ++i) channels_[i]->reset();
  endpoint_->reset();
  delta_->reset();
  if (error_ != ConnectionError::kConfigInvalid && error_ != ConnectionError::kFactoryInvalid) {
    error_ = ConnectionError::kNone;
    error_reason_ = nullptr;
  }
  packet_error_ = ConnectionPacketError::kNone;
  packet_read_error_ = ReadError::kNone;
  flight_.reset();
  in_order_only_.clear();
  restarts_seen_ = endpoint_->receive_restarts();  // the reset is a restart: the marks are already clear
  update_interval_ = 0.0;
  updated_ = false;
}

size_t Connection::copy_buffer_bytes(const MessageFactory& factory, const ConnectionConfig& config) {
  // A message sent on a reliable channel measures at most a packet (send() refuses more); the write stream
  // takes a word of slack for alignment. Only a type without a nothrow move is ever copied.
  for (const MessageTypeInfo& info : factory.types()) {
    if (info.relocate == nullptr) return static_cast<size_t>(config.max_packet_size) + 8;
  }
  return 0;
}

int Connection::lending_channels(const MessageFactory& factory, const ConnectionConfig& config) {
  if (!factory.any_block_type()) return 0;
  int count = 0;
  for (int i = 0; i < config.channel_count; ++i) {
    const ChannelConfig& c = config.channels[static_cast<size_t>(i)];
    count += c.type == ChannelType::kReliableOrdered && c.fragments_blocks() ? 1 : 0;
  }
  return count;
}

size_t Connection::memory_required(const MessageFactory& factory, const ConnectionConfig& raw,
                                   bool shared_blocks) {
  const ConnectionConfig config = raw.sanitized();
  const bool block_types = factory.any_block_type();
  const auto channels =
      std::span<const ChannelConfig>(config.channels.data(), static_cast<size_t>(config.channel_count));
  size_t total = MessagePool::memory_required(factory, config.message_pool_config(block_types, shared_blocks),
                                              shared_blocks) +
                 (shared_blocks ? 0 : MessagePool::lender_bytes(lending_channels(factory, config))) +
                 IncomingPacket::memory_required(channels) +
                 Endpoint::memory_required(endpoint_config(config)) +
                 static_cast<size_t>(config.max_packet_size) +
                 static_cast<size_t>(config.channel_count) * (2 * sizeof(OutgoingEntry) + sizeof(void*)) +
                 DeltaBaselines::memory_required(factory, config.delta_baselines) +
                 detail::SequenceMarks::memory_required(
                     endpoint_config(config).sanitized().received_packets_buffer_size) +
                 copy_buffer_bytes(factory, config);
  const int ack_records = endpoint_config(config).sanitized().sent_packets_buffer_size;
  for (const ChannelConfig& c : channels) {
    total += c.type == ChannelType::kReliableOrdered
                 ? ReliableOrderedChannel::memory_required(c, block_types, ack_records)
                 : UnreliableUnorderedChannel::memory_required(c);
  }
  return total;
}

size_t Connection::memory_bytes() const {
  size_t total = pool_->memory_bytes() + incoming_->memory_bytes() + endpoint_->memory_bytes() +
                 static_cast<size_t>(config_.max_packet_size) +
                 static_cast<size_t>(config_.channel_count) * (2 * sizeof(OutgoingEntry) + sizeof(void*)) +
                 delta_->memory_bytes() + in_order_only_.memory_bytes() +
                 copy_buffer_bytes(factory_, config_);
  for (int i = 0; i < config_.channel_count; ++i) total += channels_[i]->memory_bytes();
  return total;
}

}  // namespace bitwire
