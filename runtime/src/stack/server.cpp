// bitwire::Server: netcode slots, each with one Connection (and its Endpoint) and a congestion controller.
#include "bitwire/stack/server.hpp"

#include <cstdio>
#include <new>

#include "bitwire/core/log.hpp"

namespace bitwire {

struct Server::Slot {
  Slot(Server& owner, int slot_index, const MessageFactory& factory, const ConnectionConfig& config,
       const BinaryCongestionConfig& congestion_config, double now, BlockArena* shared_blocks)
      : server(owner),
        index(slot_index),
        connection(factory, config, ConnectionCallbacks{this, &Server::transmit}, now, shared_blocks),
        congestion(congestion_config) {}

  Server& server;
  int index;
  Connection connection;
  BinaryCongestionController congestion;
  uint64_t payload_bytes_sent = 0;
  uint64_t payload_bytes_received = 0;
  uint64_t payloads_refused = 0;
  const char* protocol_error = nullptr;  // why the server is dropping this client, until its event is out
  // The netcode session the game was last told of (0: none) and its client id; reconcile() compares it with
  // netcode's after everything that can change a slot.
  uint64_t session = 0;
  uint64_t client_id = 0;
  netcode::DisconnectReason end_reason = netcode::DisconnectReason::kNone;  // from netcode's event, if seen
};

Server::Server(const StackConfig& config, const MessageFactory& factory, const netcode::Key& private_key,
               Transport& transport, const Address& public_address, double now)
    : config_(config.sanitized(factory)), now_(now) {
  if (const ConfigCheck problem = config.check(factory); !problem) {
    error_ = keep_config_reason(error_text_, problem);
    return;
  }
  if (const ConfigCheck problem = factory.check(); !problem) {
    error_ = keep_config_reason(error_text_, problem);
    return;
  }
  protocol_id_ = stack_protocol_id(factory, config_);
  netcode::ServerConfig netcode_config;
  static_cast<netcode::ServerSettings&>(netcode_config) = config_.server;
  netcode_config.protocol_id = protocol_id_;
  netcode_config.private_key = private_key;
  netcode_config.max_clients = config_.max_clients;
  netcode_ = std::make_unique<netcode::Server>(netcode_config, transport, public_address);
  if (!netcode_->ok()) {
    error_ = netcode_->error_reason();
    return;
  }

  if (const int buffers = stack_block_buffers(config_, factory); buffers > 0) {
    const MessagePoolConfig pool = config_.connection.message_pool_config(true);
    block_arena_ = std::make_unique<BlockArena>(buffers, static_cast<size_t>(pool.max_block_size));
  }
  const auto count = static_cast<size_t>(config_.max_clients);
  slots_.reset(new std::unique_ptr<Slot>[count]);
  for (int i = 0; i < config_.max_clients; ++i) {
    slots_[static_cast<size_t>(i)] = std::make_unique<Slot>(*this, i, factory, config_.connection,
                                                            config_.congestion, now, block_arena_.get());
  }
  event_capacity_ = config_.event_queue_size > 0 ? config_.event_queue_size : 2 * config_.max_clients + 16;
  events_.reset(new ServerEvent[static_cast<size_t>(event_capacity_)]);

  const Connection& first = slots_[0]->connection;
  if (!first.ok()) {
    // What config.check(factory) did not catch would otherwise show as a protocol error at the first update.
    error_ = keep_config_reason(error_text_, ConfigCheck::failure(first.error_reason()));
    return;
  }
  // One thread drives every slot, and a packet lives in the room only while its slot sends it.
  const size_t room_bytes = slots_[0]->connection.endpoint().shared_send_room_bytes();
  send_room_.reset(new std::byte[room_bytes]);
  for (int i = 0; i < config_.max_clients; ++i) {
    const bool shared =
        slots_[static_cast<size_t>(i)]->connection.endpoint().share_send_room({send_room_.get(), room_bytes});
    BITWIRE_ASSERT(shared);  // every slot's endpoint has the first's config, so the room's size fits all
    (void)shared;
  }
  memory_per_slot_ = sizeof(Slot) + sizeof(std::unique_ptr<Slot>) + first.memory_bytes() +
                     netcode::Server::memory_per_slot(netcode_config) + 2 * sizeof(ServerEvent);
  memory_bytes_ = sizeof(Server) + netcode_->memory_bytes() +
                  count * (sizeof(Slot) + sizeof(std::unique_ptr<Slot>) + first.memory_bytes()) +
                  static_cast<size_t>(event_capacity_) * sizeof(ServerEvent) +
                  (block_arena_ != nullptr ? block_arena_->memory_bytes() : 0) + room_bytes;
  if (log_enabled(LogLevel::kInfo)) {
    char address[kMaxAddressText];
    public_address.print(address);
    BITWIRE_LOG(LogLevel::kInfo,
                "server %s: %d slots, protocol id 0x%016llx: connect tokens must carry this id "
                "(stack_protocol_id: StackConfig.protocol_id 0x%016llx with the channel layout folded in)",
                address, config_.max_clients, static_cast<unsigned long long>(protocol_id_),
                static_cast<unsigned long long>(config_.protocol_id));
  }
}

Server::~Server() {
  if (netcode_ && netcode_->ok()) netcode_->disconnect_all();
}

bool Server::valid(int client_index) const {
  return slots_ != nullptr && client_index >= 0 && client_index < config_.max_clients;
}

void Server::transmit(void* context, std::span<const std::byte> datagram) {
  auto* slot = static_cast<Slot*>(context);
  if (slot->server.netcode_->send_payload(slot->index, datagram)) {
    slot->payload_bytes_sent += datagram.size();
  } else {
    ++slot->payloads_refused;
  }
}

void Server::reset_slot(int index) {
  Slot& slot = *slots_[static_cast<size_t>(index)];
  slot.connection.reset();
  slot.connection.update(now_);
  slot.congestion.reset();
  slot.payload_bytes_sent = 0;
  slot.payload_bytes_received = 0;
  slot.payloads_refused = 0;
}

void Server::push_event(const ServerEvent& event) {
  if (event_count_ == event_capacity_) {
    ++events_dropped_;
    return;
  }
  events_[static_cast<size_t>((event_head_ + event_count_) % event_capacity_)] = event;
  ++event_count_;
}

bool Server::next_event(ServerEvent& event) {
  if (event_count_ == 0) return false;
  event = events_[static_cast<size_t>(event_head_)];
  event_head_ = (event_head_ + 1) % event_capacity_;
  --event_count_;
  return true;
}

void Server::name_slot(int index) {
  char address[kMaxAddressText], name[BinaryCongestionController::kLogNameBytes];
  netcode_->client_address(index).print(address);
  std::snprintf(name, sizeof name, "server slot %d, client id %llu, %s", index,
                static_cast<unsigned long long>(netcode_->client_id(index)), address);
  slots_[static_cast<size_t>(index)]->congestion.set_log_name(name);
}

void Server::log_protocol_error(int index, const char* reason) const {
  if (!log_enabled(LogLevel::kWarning)) return;
  char address[kMaxAddressText];
  netcode_->client_address(index).print(address);
  BITWIRE_LOG(LogLevel::kWarning, "server slot %d (client id %llu, %s): protocol error: %s; disconnecting",
              index, static_cast<unsigned long long>(netcode_->client_id(index)), address, reason);
}

void Server::take_netcode_events() {
  // netcode's events are a lossy ring (a burst of connects and disconnects overflows it), so they only
  // supply disconnect reasons; which connection each slot holds is read from netcode's session ids.
  netcode::ServerEvent e;
  while (netcode_->next_event(e)) {
    Slot& slot = *slots_[static_cast<size_t>(e.slot)];
    if (e.kind == netcode::ServerEvent::Kind::kDisconnected && e.session == slot.session)
      slot.end_reason = e.reason;
  }
}

void Server::report_disconnect(int i) {
  const Slot& slot = *slots_[static_cast<size_t>(i)];
  if (netcode_->session(i) == slot.session || slot.session == 0) return;
  ServerEvent event;
  event.kind = ServerEvent::Kind::kDisconnected;
  event.client_index = i;
  event.client_id = slot.client_id;
  event.reason = netcode_->disconnect_reason(i, slot.session);
  if (event.reason == netcode::DisconnectReason::kNone) event.reason = slot.end_reason;
  event.protocol_error = slot.protocol_error;
  event.session = slot.session;
  push_event(event);
}

void Server::restart_slot(int i) {
  Slot& slot = *slots_[static_cast<size_t>(i)];
  const uint64_t current = netcode_->session(i);
  if (current == slot.session) return;
  // Either way the slot starts clean: nothing of the previous connection survives into the next one.
  slot.protocol_error = nullptr;
  slot.end_reason = netcode::DisconnectReason::kNone;
  reset_slot(i);
  slot.session = current;
  slot.client_id = netcode_->client_id(i);
  if (current != 0) {
    ServerEvent event;
    event.kind = ServerEvent::Kind::kConnected;
    event.client_index = i;
    event.client_id = slot.client_id;
    event.session = current;
    name_slot(i);
    push_event(event);
  }
}

void Server::reconcile() {
  take_netcode_events();
  // No slot's session changed since the last walk: every slot already holds netcode's session (a walk at
  // thousands of slots is two cache lines per slot, each update).
  const uint64_t changes = netcode_->session_changes();
  if (changes == reconciled_changes_) return;
  // Every disconnect before every connect: a client id that moved to a lower slot in this update (a second
  // token, another address) must reach the game as leave-then-join, not join-then-leave.
  for (int i = 0; i < config_.max_clients; ++i) report_disconnect(i);
  for (int i = 0; i < config_.max_clients; ++i) restart_slot(i);
  reconciled_changes_ = changes;
}

void Server::reconcile_slot(int index) {
  take_netcode_events();
  report_disconnect(index);
  restart_slot(index);
}

void Server::update(double now, uint64_t unix_now) {
  if (!ok()) return;
  const TransportBatch batch(netcode_->transport());  // disconnects' packets leave together
  now_ = now;
  netcode_->update(now, unix_now);
  reconcile();
  for (int i = 0; i < config_.max_clients; ++i) {
    if (!netcode_->is_connected(i)) continue;
    Slot& slot = *slots_[static_cast<size_t>(i)];
    Connection& connection = slot.connection;
    connection.update(now);
    std::span<const std::byte> payload;
    uint64_t sequence = 0;
    double arrival_time = now;
    // Read in place in netcode's queue: the view lives until netcode's next update.
    while (netcode_->receive_payload_view(i, payload, sequence, arrival_time)) {
      slot.payload_bytes_received += payload.size();
      connection.receive_packet(payload, arrival_time);
    }
    if (connection.error() != ConnectionError::kNone) {
      slot.protocol_error = connection.error_reason();
      log_protocol_error(i, slot.protocol_error);
      netcode_->disconnect(i);
      reconcile_slot(i);
      continue;
    }
    const Endpoint& endpoint = connection.endpoint();
    slot.congestion.update(
        now, CongestionSignal{endpoint.rtt_ms(), endpoint.packet_loss_percent(), endpoint.jitter_ms()});
  }
}

void Server::send_packets() {
  if (!ok()) return;
  // Every slot's packets in one batch: one sendmmsg per kMaxSocketBatch datagrams on UDP, each sealed in
  // the transport's room (no copy between netcode and the socket).
  const TransportBatch batch(netcode_->transport());
  for (int i = 0; i < config_.max_clients; ++i) {
    if (netcode_->is_connected(i)) slots_[static_cast<size_t>(i)]->connection.send_packets();
  }
}

void Server::send_packets(int client_index) {
  if (!ok() || !valid(client_index) || !netcode_->is_connected(client_index)) return;
  const TransportBatch batch(netcode_->transport());
  slots_[static_cast<size_t>(client_index)]->connection.send_packets();
}

MessageHandle Server::create(int client_index, uint32_t type_id) {
  if (!valid(client_index)) return {};
  return slots_[static_cast<size_t>(client_index)]->connection.create(type_id);
}

SendStatus Server::send(int client_index, int channel, MessageHandle&& message) {
  if (!valid(client_index) || !netcode_->is_connected(client_index)) {
    SendStatus status;
    status.result = SendResult::kNotConnected;
    return status;
  }
  return slots_[static_cast<size_t>(client_index)]->connection.send(channel, std::move(message));
}

MessageHandle Server::receive(int client_index, int channel) {
  if (!valid(client_index) || !netcode_->is_connected(client_index)) return {};
  Connection& connection = slots_[static_cast<size_t>(client_index)]->connection;
  if (channel < 0 || channel >= connection.channel_count()) return {};
  return connection.receive(channel);
}

void Server::disconnect(int client_index) {
  if (!valid(client_index)) return;
  netcode_->disconnect(client_index);
  reconcile_slot(client_index);
}

void Server::disconnect_all() {
  if (!ok()) return;
  netcode_->disconnect_all();
  reconcile();
}

bool Server::is_connected(int client_index) const {
  return valid(client_index) && netcode_->is_connected(client_index);
}

int Server::connected_count() const {
  return ok() ? netcode_->connected_count() : 0;
}

uint64_t Server::client_id(int client_index) const {
  return valid(client_index) ? netcode_->client_id(client_index) : 0;
}

uint64_t Server::session(int client_index) const {
  return valid(client_index) ? slots_[static_cast<size_t>(client_index)]->session : 0;
}

Address Server::client_address(int client_index) const {
  return valid(client_index) ? netcode_->client_address(client_index) : Address();
}

const Connection& Server::connection(int client_index) const {
  BITWIRE_ASSERT(valid(client_index));
  return slots_[static_cast<size_t>(client_index)]->connection;
}

StackStats Server::stats(int client_index) const {
  StackStats stats;
  if (!valid(client_index)) return stats;
  const Slot& slot = *slots_[static_cast<size_t>(client_index)];
  const Endpoint& endpoint = slot.connection.endpoint();
  stats.rtt_ms = endpoint.rtt_ms();
  stats.jitter_ms = endpoint.jitter_ms();
  stats.packet_loss_percent = endpoint.packet_loss_percent();
  stats.sent_kbps = endpoint.sent_kbps();
  stats.received_kbps = endpoint.received_kbps();
  stats.acked_kbps = endpoint.acked_kbps();
  stats.congestion_mode = slot.congestion.mode();
  stats.congestion_send_rate = slot.congestion.send_rate();
  stats.packets_sent = endpoint.counters().packets_sent;
  stats.packets_received = endpoint.counters().packets_received;
  stats.payload_bytes_sent = slot.payload_bytes_sent;
  stats.payloads_refused = slot.payloads_refused;
  stats.payload_bytes_received = slot.payload_bytes_received;
  return stats;
}

}  // namespace bitwire
