// bitwire::Client: netcode::Client carrying one Connection (and its Endpoint), plus a congestion controller.
#include "bitwire/stack/client.hpp"

#include <cstdio>

#include "bitwire/core/log.hpp"
#include "bitwire/netcode/token.hpp"

namespace bitwire {

Client::Client(const StackConfig& config, const MessageFactory& factory, Transport& transport, double now)
    : config_(config.sanitized()),
      protocol_id_(stack_protocol_id(factory, config_)),
      now_(now),
      netcode_(config_.client, transport),
      connection_(factory, config_.connection, ConnectionCallbacks{this, &Client::transmit}, now),
      congestion_(config_.congestion) {
  error_ = keep_config_reason(error_text_, config.check());
  if (error_ == nullptr) error_ = keep_config_reason(error_text_, factory.check());
  // The connection checks what config.check() cannot without the factory (its pool's slots for the
  // factory's largest type): a refused one would disconnect at the first update with a protocol error.
  if (error_ == nullptr && !connection_.ok())
    error_ = keep_config_reason(error_text_, ConfigCheck::failure(connection_.error_reason()));
  if (error_ == nullptr && !netcode_.ok()) error_ = netcode_.error_reason();
  memory_bytes_ = sizeof(Client) + netcode_.memory_bytes() + connection_.memory_bytes();
}

Client::~Client() {
  if (ok() && netcode_.state() > netcode::ClientState::kDisconnected) netcode_.disconnect(now_);
}

void Client::transmit(void* context, std::span<const std::byte> datagram) {
  auto* self = static_cast<Client*>(context);
  if (self->netcode_.send_payload(datagram)) {
    self->payload_bytes_sent_ += datagram.size();
  } else {
    ++self->payloads_refused_;
  }
}

void Client::push_event(const ClientEvent& event) {
  if (event_count_ == kEventQueueSize) {
    // The oldest event goes: a caller that never reads events still sees the latest state.
    event_head_ = (event_head_ + 1) % kEventQueueSize;
    --event_count_;
  }
  events_[(event_head_ + event_count_) % kEventQueueSize] = event;
  ++event_count_;
}

bool Client::next_event(ClientEvent& event) {
  if (event_count_ == 0) return false;
  event = events_[event_head_];
  event_head_ = (event_head_ + 1) % kEventQueueSize;
  --event_count_;
  return true;
}

void Client::session_ended(const char* protocol_error) {
  if (was_connected_) {
    ClientEvent event;
    event.kind = ClientEvent::Kind::kDisconnected;
    event.state = netcode_.state();
    event.protocol_error = protocol_error;
    push_event(event);
  }
  was_connected_ = false;
  connection_.reset();
  connection_.update(now_);
  congestion_.reset();
}

bool Client::connect(std::span<const std::byte> token_bytes, double now, const char** reason) {
  if (!ok()) {
    if (reason != nullptr) *reason = error_;
    return false;
  }
  now_ = now;
  if (netcode_.state() > netcode::ClientState::kDisconnected) netcode_.disconnect(now);
  session_ended(nullptr);
  payload_bytes_sent_ = payload_bytes_received_ = payloads_refused_ = 0;
  // A token for another protocol id is for another game or another channel layout: connecting would end in
  // a server that refuses every packet (or, worse, one that shares the id but not the layout).
  netcode::ConnectToken token;
  if (token_bytes.size() == netcode::kConnectTokenBytes && netcode::read_connect_token(token_bytes, token) &&
      token.protocol_id != protocol_id_) {
    if (reason != nullptr) *reason = "the connect token's protocol id is not this client's stack_protocol_id";
    BITWIRE_LOG(
        LogLevel::kWarning,
        "client: connect token refused: it is for protocol id 0x%016llx, this client's stack_protocol_id is "
        "0x%016llx (a token made with the schema's id, or for another schema or channel layout)",
        static_cast<unsigned long long>(token.protocol_id), static_cast<unsigned long long>(protocol_id_));
    return false;
  }
  netcode_.connect(token_bytes, now);
  if (netcode_.state() < netcode::ClientState::kDisconnected) {
    if (reason != nullptr)
      *reason = netcode_.token_error() ? netcode_.token_error() : to_string(netcode_.state());
    return false;
  }
  return true;
}

bool Client::connect_insecure_lan(const netcode::ConnectTokenParams& params, const netcode::Key& private_key,
                                  double now, const char** reason) {
  if (!ok()) {
    if (reason != nullptr) *reason = error_;
    return false;
  }
  now_ = now;
  if (netcode_.state() > netcode::ClientState::kDisconnected) netcode_.disconnect(now);
  session_ended(nullptr);
  payload_bytes_sent_ = payload_bytes_received_ = payloads_refused_ = 0;
  netcode::ConnectTokenParams stacked = params;
  stacked.protocol_id = protocol_id_;
  return netcode_.connect_insecure_lan(stacked, private_key, now, reason);
}

void Client::update(double now) {
  if (!ok()) return;
  now_ = now;
  netcode_.update(now);
  const bool connected = netcode_.is_connected();
  if (connected && !was_connected_) {
    connection_.reset();
    congestion_.reset();
    was_connected_ = true;
    char address[kMaxAddressText], name[BinaryCongestionController::kLogNameBytes];
    netcode_.server_address().print(address);
    std::snprintf(name, sizeof name, "client index %d, server %s", netcode_.client_index(), address);
    congestion_.set_log_name(name);
    push_event(ClientEvent{ClientEvent::Kind::kConnected, netcode_.state(), nullptr});
  } else if (!connected && was_connected_) {
    session_ended(nullptr);
  }
  connection_.update(now);
  uint64_t sequence = 0;
  double arrival_time = now;
  std::span<const std::byte> payload;
  // Read in place in netcode's queue: the view lives until netcode's next update.
  while (netcode_.receive_payload_view(payload, sequence, arrival_time)) {
    if (!connected)
      continue;  // a payload that arrived before the session was reported: nothing to apply it to
    payload_bytes_received_ += payload.size();
    connection_.receive_packet(payload, arrival_time);
  }
  if (connected && connection_.error() != ConnectionError::kNone) {
    const char* reason = connection_.error_reason();
    if (log_enabled(LogLevel::kWarning)) {
      char address[kMaxAddressText];
      netcode_.server_address().print(address);
      BITWIRE_LOG(LogLevel::kWarning, "client index %d, server %s: protocol error: %s; disconnecting",
                  netcode_.client_index(), address, reason);
    }
    netcode_.disconnect(now);
    session_ended(reason);
    return;
  }
  if (!connected) return;  // no session, no congestion to judge (nor to log)
  const Endpoint& endpoint = connection_.endpoint();
  congestion_.update(
      now, CongestionSignal{endpoint.rtt_ms(), endpoint.packet_loss_percent(), endpoint.jitter_ms()});
}

void Client::send_packets() {
  if (!ok() || !netcode_.is_connected() || !was_connected_) return;
  const TransportBatch batch(netcode_.transport());  // a tick's packets (and block fragments) together
  connection_.send_packets();
}

void Client::disconnect(double now) {
  if (!ok()) return;
  now_ = now;
  netcode_.disconnect(now);
  session_ended(nullptr);
}

MessageHandle Client::create(uint32_t type_id) {
  if (!ok() || !was_connected_) return {};
  return connection_.create(type_id);
}

SendStatus Client::send(int channel, MessageHandle&& message) {
  if (!ok() || !was_connected_) {
    SendStatus status;
    status.result = ok() ? SendResult::kNotConnected : SendResult::kConnectionError;
    return status;
  }
  return connection_.send(channel, std::move(message));
}

MessageHandle Client::receive(int channel) {
  if (!ok() || !was_connected_ || channel < 0 || channel >= connection_.channel_count()) return {};
  return connection_.receive(channel);
}

StackStats Client::stats() const {
  StackStats stats;
  const Endpoint& endpoint = connection_.endpoint();
  stats.rtt_ms = endpoint.rtt_ms();
  stats.jitter_ms = endpoint.jitter_ms();
  stats.packet_loss_percent = endpoint.packet_loss_percent();
  stats.sent_kbps = endpoint.sent_kbps();
  stats.received_kbps = endpoint.received_kbps();
  stats.acked_kbps = endpoint.acked_kbps();
  stats.congestion_mode = congestion_.mode();
  stats.congestion_send_rate = congestion_.send_rate();
  stats.packets_sent = endpoint.counters().packets_sent;
  stats.packets_received = endpoint.counters().packets_received;
  stats.payload_bytes_sent = payload_bytes_sent_;
  stats.payloads_refused = payloads_refused_;
  stats.payload_bytes_received = payload_bytes_received_;
  return stats;
}

}  // namespace bitwire
