// netcode::Client: the connection state machine.
#include "bitwire/netcode/client.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "bitwire/core/log.hpp"
#include "bitwire/core/monotonic_time.hpp"

namespace bitwire::netcode {

namespace {

constexpr double kNever = -std::numeric_limits<double>::infinity();

}  // namespace

ConfigCheck ClientConfig::check() const {
  return check_config("ClientConfig", *this, kClientConfigLimits);
}

ClientConfig ClientConfig::sanitized() const {
  return sanitize_config(*this, kClientConfigLimits);
}

const char* to_string(ClientState state) {
  switch (state) {
    case ClientState::kConnectTokenExpired: return "connect token expired";
    case ClientState::kInvalidConnectToken: return "invalid connect token";
    case ClientState::kConnectionTimedOut: return "connection timed out";
    case ClientState::kConnectionResponseTimedOut: return "connection response timed out";
    case ClientState::kConnectionRequestTimedOut: return "connection request timed out";
    case ClientState::kConnectionDenied: return "connection denied";
    case ClientState::kDisconnected: return "disconnected";
    case ClientState::kSendingConnectionRequest: return "sending connection request";
    case ClientState::kSendingConnectionResponse: return "sending connection response";
    case ClientState::kConnected: return "connected";
  }
  return "unknown";
}

Client::Client(const ClientConfig& config, Transport& transport)
    : config_(config.sanitized()), transport_(transport) {
  error_ = keep_config_reason(error_text_, config.check());
  if (!crypto_init()) error_ = "libsodium failed to initialise";
  receive_rooms_.reset(new std::byte[kClientReceiveBatch * kReceiveBufferBytes]);
  const size_t n = static_cast<size_t>(config_.payload_queue_size);
  queue_bytes_.resize(n * kMaxPayloadBytes);
  queue_sizes_.resize(n);
  queue_sequences_.resize(n);
  queue_arrivals_.resize(n);
}

Client::~Client() = default;

size_t Client::memory_bytes() const {
  return sizeof(Client) + kClientReceiveBatch * kReceiveBufferBytes + queue_bytes_.size() +
         queue_sizes_.size() * sizeof(uint16_t) + queue_sequences_.size() * sizeof(uint64_t) +
         queue_arrivals_.size() * sizeof(double);
}

Address Client::server_address() const {
  if (server_index_ < 0 || server_index_ >= token_.server_addresses.count) return Address();
  return token_.server_addresses.items[server_index_];
}

void Client::reset_connection() {
  client_index_ = -1;
  max_clients_ = 0;
  challenge_sequence_ = 0;
  challenge_token_ = {};
  replay_.reset();
  queue_head_ = queue_count_ = 0;
}

void Client::connect(std::span<const std::byte> token_bytes, double now) {
  if (error_ != nullptr) return;
  if (state_ >= ClientState::kSendingConnectionRequest) disconnect(now);
  reset_connection();
  now_ = now;
  token_error_ = nullptr;
  sequence_ = 0;
  if (token_bytes.size() != kConnectTokenBytes) {
    token_error_ = "a connect token is 2048 bytes";
    state_ = ClientState::kInvalidConnectToken;
    BITWIRE_LOG(LogLevel::kWarning, "netcode client: connect token refused: %s", token_error_);
    return;
  }
  if (!read_connect_token(token_bytes, token_, &token_error_)) {
    state_ = ClientState::kInvalidConnectToken;
    BITWIRE_LOG(LogLevel::kWarning, "netcode client: connect token refused: %s", token_error_);
    return;
  }
  connect_start_ = now;
  start_server(0, now);
  if (log_enabled(LogLevel::kInfo)) {
    char address[kMaxAddressText];
    server_address().print(address);
    BITWIRE_LOG(LogLevel::kInfo, "netcode client: connecting to %s (server 1 of %d, protocol id 0x%016llx)",
                address, token_.server_addresses.count, static_cast<unsigned long long>(token_.protocol_id));
  }
}

namespace {

bool is_lan_address(const Address& address) {
  const auto& b = address.bytes();
  if (address.is_ipv4()) {
    return b[0] == 127 || b[0] == 10 || (b[0] == 172 && (b[1] & 0xF0) == 16) || (b[0] == 192 && b[1] == 168) ||
           (b[0] == 169 && b[1] == 254);
  }
  if (address.is_ipv6()) {
    bool loopback = b[15] == 1;
    for (int i = 0; i < 15; ++i) loopback = loopback && b[i] == 0;
    return loopback || (b[0] & 0xFE) == 0xFC || (b[0] == 0xFE && (b[1] & 0xC0) == 0x80);
  }
  return false;
}

}  // namespace

bool Client::connect_insecure_lan(const ConnectTokenParams& params, const Key& private_key, double now,
                                  const char** reason) {
  auto refuse = [&](const char* why) {
    if (reason != nullptr) *reason = why;
    return false;
  };
  if (!config_.allow_insecure_lan_connect) {
    return refuse("insecure LAN connect is disabled: set ClientConfig::allow_insecure_lan_connect");
  }
  for (int i = 0; i < params.server_addresses.count && i < kMaxServersPerConnect; ++i) {
    if (!is_lan_address(params.server_addresses.items[i])) {
      return refuse("insecure LAN connect refuses a server address that is not loopback, private or link-local");
    }
  }
  ConnectToken token;
  if (!generate_connect_token(params, private_key, token, reason)) return false;
  std::array<std::byte, kConnectTokenBytes> bytes{};
  if (!write_connect_token(token, bytes, reason)) return false;
  connect(bytes, now);
  return state_ == ClientState::kSendingConnectionRequest;
}

void Client::start_server(int index, double now) {
  reset_connection();
  server_index_ = index;
  state_ = ClientState::kSendingConnectionRequest;
  last_receive_ = now;
  last_send_ = kNever;
  ++stats_.server_addresses_tried;
}

void Client::fail_or_next(ClientState failure, double now) {
  if (server_index_ + 1 < token_.server_addresses.count) {
    start_server(server_index_ + 1, now);
  } else {
    reset_connection();
    state_ = failure;
  }
}

void Client::send_packet(PacketType type, std::span<const std::byte> body) {
  // The sequence carries on across the token's servers: the key is the same, so a nonce is never reused.
  // Sealed in the transport's own room when it has one (no copy on the way to the socket).
  const std::span<std::byte> room = transport_.send_room();
  const bool in_room = room.size() >= kMaxPacketBytes;
  const std::span<std::byte> out = in_room ? room : std::span<std::byte>(send_buffer_);
  const size_t size =
      write_encrypted_packet(type, sequence_++, body, token_.protocol_id, token_.client_to_server_key, out);
  if (in_room) {
    transport_.send_written(server_address(), size);
  } else {
    transport_.send(server_address(), out.first(size));
  }
  last_send_ = now_;
  ++stats_.packets_sent;
}

void Client::update(double now) {
  if (!valid_time(now)) {
    ++time_invalid_;  // refused: a NaN taken as the last receive time would keep it from ever timing out
    now = now_;
  }
  const ClientState before = state_;
  const int before_index = server_index_;
  step(now);
  if ((state_ != before || server_index_ != before_index) && log_enabled(LogLevel::kWarning)) {
    log_change(before, before_index);
  }
}

void Client::log_change(ClientState before, int before_index) const {
  char address[kMaxAddressText];
  const int count = token_.server_addresses.count;
  const int index = server_index_ >= 0 && server_index_ < count ? server_index_ : 0;
  token_.server_addresses.items[index].print(address);
  if (state_ == ClientState::kSendingConnectionRequest && server_index_ != before_index) {
    char previous[kMaxAddressText];
    const int p = before_index >= 0 && before_index < count ? before_index : 0;
    token_.server_addresses.items[p].print(previous);
    BITWIRE_LOG(LogLevel::kInfo,
                "netcode client: server %s did not take the connection (%s); trying %s (%d of %d)", previous,
                before == ClientState::kSendingConnectionResponse ? "no answer to the response"
                                                                  : "no answer or denied",
                address, server_index_ + 1, count);
    return;
  }
  const long long timeout = token_.timeout_seconds;
  const unsigned long long protocol_id = token_.protocol_id;
  switch (state_) {
    case ClientState::kConnected:
      BITWIRE_LOG(LogLevel::kInfo, "netcode client: connected to %s as client index %d of %d", address,
                  client_index_, max_clients_);
      return;
    case ClientState::kConnectionDenied:
      BITWIRE_LOG(LogLevel::kWarning,
                  "netcode client: connection denied by %s: the server has no free slot (netcode's denial "
                  "carries no other reason)",
                  address);
      return;
    case ClientState::kConnectionRequestTimedOut:
      BITWIRE_LOG(
          LogLevel::kWarning,
          "netcode client: connection request to %s timed out: no answer in %lld s. A server ignores a "
          "request it refuses; likely causes: the token was minted for another protocol id (this one's "
          "is 0x%016llx; a bitwire Server expects stack_protocol_id(factory, config), which "
          "`bitwire_token --protocol-id` prints), the token expired on the server's clock, the token "
          "does not list this server, or no server listens at that address",
          address, timeout, protocol_id);
      return;
    case ClientState::kConnectionResponseTimedOut:
      BITWIRE_LOG(
          LogLevel::kWarning,
          "netcode client: connection response to %s timed out after %lld s: the server challenged this "
          "client but never confirmed it",
          address, timeout);
      return;
    case ClientState::kConnectionTimedOut:
      BITWIRE_LOG(LogLevel::kWarning,
                  "netcode client: connection to %s timed out: nothing received for %lld s", address,
                  timeout);
      return;
    case ClientState::kConnectTokenExpired:
      BITWIRE_LOG(LogLevel::kWarning,
                  "netcode client: connect token expired (%llu s after it was created) before %s took the "
                  "connection",
                  static_cast<unsigned long long>(token_.expire_timestamp - token_.create_timestamp),
                  address);
      return;
    case ClientState::kDisconnected:
      if (before == ClientState::kConnected) {
        BITWIRE_LOG(LogLevel::kInfo, "netcode client: disconnected by the server %s", address);
      }
      return;
    default:
      return;
  }
}

void Client::step(double now) {
  now_ = now;
  if (error_ != nullptr) return;
  // Batched as the server's: one receive_many (one recvmmsg on UdpTransport) per kClientReceiveBatch
  // datagrams, ending at the first call that returns fewer than it asked for.
  const std::span<std::byte> rooms(receive_rooms_.get(), kClientReceiveBatch * kReceiveBufferBytes);
  int budget = config_.max_receive_per_update;
  while (budget > 0) {
    const size_t want = std::min<size_t>(static_cast<size_t>(budget), kClientReceiveBatch);
    // An entry the transport leaves undated is taken as received now (process_datagram clamps the rest).
    std::fill_n(receive_arrivals_.begin(), want, now);
    const size_t got = transport_.receive_many(rooms, kReceiveBufferBytes, want, receive_sizes_.data(),
                                               receive_from_.data(), receive_arrivals_.data());
    for (size_t i = 0; i < got; ++i) {
      if (receive_sizes_[i] == 0) {
        drop(PacketError::kOversized);
        continue;
      }
      process_datagram(receive_from_[i], rooms.subspan(i * kReceiveBufferBytes, receive_sizes_[i]),
                       receive_arrivals_[i]);
    }
    budget -= static_cast<int>(got);
    if (got < want) break;
  }
  if (state_ <= ClientState::kDisconnected) return;
  if (state_ != ClientState::kConnected &&
      now - connect_start_ >= static_cast<double>(token_.expire_timestamp - token_.create_timestamp)) {
    reset_connection();
    state_ = ClientState::kConnectTokenExpired;
    return;
  }
  if (token_.timeout_seconds >= 0 && last_receive_ + token_.timeout_seconds < now) {
    switch (state_) {
      case ClientState::kSendingConnectionRequest:
        fail_or_next(ClientState::kConnectionRequestTimedOut, now);
        break;
      case ClientState::kSendingConnectionResponse:
        fail_or_next(ClientState::kConnectionResponseTimedOut, now);
        break;
      default:
        reset_connection();
        state_ = ClientState::kConnectionTimedOut;
        return;
    }
  }
  if (last_send_ + config_.send_interval > now) return;
  switch (state_) {
    case ClientState::kSendingConnectionRequest: {
      const size_t size = write_request_packet(token_, std::span(send_buffer_));
      transport_.send(server_address(), std::span(send_buffer_).first(size));
      last_send_ = now;
      ++stats_.packets_sent;
      break;
    }
    case ClientState::kSendingConnectionResponse: {
      std::array<std::byte, kChallengeBodyBytes> body{};
      write_challenge_body(challenge_sequence_, challenge_token_, body);
      send_packet(PacketType::kConnectionResponse, body);
      break;
    }
    case ClientState::kConnected: {
      std::array<std::byte, kKeepAliveBodyBytes> body{};
      write_keep_alive_body(0, 0, body);
      send_packet(PacketType::kKeepAlive, body);
      break;
    }
    default:
      break;
  }
}

void Client::disconnect(double now) {
  now_ = now;
  if (state_ >= ClientState::kSendingConnectionRequest && log_enabled(LogLevel::kInfo)) {
    char address[kMaxAddressText];
    server_address().print(address);
    BITWIRE_LOG(LogLevel::kInfo, "netcode client: disconnecting from %s (client index %d)", address,
                client_index_);
  }
  if (state_ >= ClientState::kSendingConnectionResponse) {
    for (int i = 0; i < config_.disconnect_packets; ++i) send_packet(PacketType::kDisconnect, {});
  }
  reset_connection();
  state_ = ClientState::kDisconnected;
}

void Client::process_datagram(const Address& from, std::span<std::byte> datagram) {
  process_datagram(from, datagram, now_);
}

void Client::process_datagram(const Address& from, std::span<std::byte> datagram, double arrival_time) {
  // No later than the update's now; an unknown (NaN) or non-finite time is the update's now.
  const double arrival = std::isfinite(arrival_time) && arrival_time < now_ ? arrival_time : now_;
  if (state_ <= ClientState::kDisconnected) return drop(PacketError::kWrongState);
  if (from != server_address()) return drop(PacketError::kFromWrongAddress);
  constexpr TypeMask kAllowed = type_bit(PacketType::kConnectionDenied) | type_bit(PacketType::kConnectionChallenge) |
                                type_bit(PacketType::kKeepAlive) | type_bit(PacketType::kPayload) |
                                type_bit(PacketType::kDisconnect);
  EncryptedPacket packet;
  const PacketError error = read_encrypted_packet(datagram, token_.protocol_id, token_.server_to_client_key,
                                                  kAllowed, &replay_, packet);
  if (error != PacketError::kNone) return drop(error);
  ++stats_.packets_received;
  switch (packet.type) {
    case PacketType::kConnectionDenied:
      if (state_ != ClientState::kSendingConnectionRequest && state_ != ClientState::kSendingConnectionResponse) {
        return drop(PacketError::kWrongState);
      }
      return fail_or_next(ClientState::kConnectionDenied, now_);
    case PacketType::kConnectionChallenge: {
      if (state_ != ClientState::kSendingConnectionRequest) return drop(PacketError::kWrongState);
      std::span<const std::byte> sealed;
      read_challenge_body(packet.body, challenge_sequence_, sealed);
      if (sealed.size() != kChallengeTokenBytes) return drop(PacketError::kWrongBodySize);
      std::memcpy(challenge_token_.data(), sealed.data(), kChallengeTokenBytes);
      state_ = ClientState::kSendingConnectionResponse;
      last_receive_ = now_;
      last_send_ = kNever;
      return;
    }
    case PacketType::kKeepAlive: {
      if (state_ == ClientState::kSendingConnectionResponse) {
        uint32_t index = 0, max = 0;
        read_keep_alive_body(packet.body, index, max);
        if (max == 0 || index >= max) return drop(PacketError::kWrongBodySize);
        client_index_ = static_cast<int>(index);
        max_clients_ = static_cast<int>(max);
        state_ = ClientState::kConnected;
      } else if (state_ != ClientState::kConnected) {
        return drop(PacketError::kWrongState);
      }
      last_receive_ = now_;
      return;
    }
    case PacketType::kPayload: {
      if (state_ != ClientState::kConnected) return drop(PacketError::kWrongState);
      last_receive_ = now_;
      ++stats_.payloads_received;
      if (queue_count_ == config_.payload_queue_size) {
        ++stats_.payloads_dropped_queue_full;
        return;
      }
      const size_t entry = static_cast<size_t>((queue_head_ + queue_count_) % config_.payload_queue_size);
      std::memcpy(queue_bytes_.data() + entry * kMaxPayloadBytes, packet.body.data(), packet.body.size());
      queue_sizes_[entry] = static_cast<uint16_t>(packet.body.size());
      queue_sequences_[entry] = packet.sequence;
      queue_arrivals_[entry] = arrival;
      ++queue_count_;
      return;
    }
    case PacketType::kDisconnect:
      if (state_ != ClientState::kConnected) return drop(PacketError::kWrongState);
      reset_connection();
      state_ = ClientState::kDisconnected;
      return;
    default:
      return drop(PacketError::kTypeNotAllowed);
  }
}

bool Client::send_payload(std::span<const std::byte> payload) {
  if (state_ != ClientState::kConnected || payload.empty() || payload.size() > kMaxPayloadBytes) return false;
  send_packet(PacketType::kPayload, payload);
  ++stats_.payloads_sent;
  return true;
}

bool Client::receive_payload(std::span<std::byte> out, size_t& size, uint64_t& sequence) {
  double arrival_time = 0.0;
  return receive_payload(out, size, sequence, arrival_time);
}

bool Client::receive_payload(std::span<std::byte> out, size_t& size, uint64_t& sequence, double& arrival_time) {
  if (queue_count_ == 0) return false;
  if (out.size() < queue_sizes_[static_cast<size_t>(queue_head_)]) return false;
  std::span<const std::byte> view;
  receive_payload_view(view, sequence, arrival_time);
  std::memcpy(out.data(), view.data(), view.size());
  size = view.size();
  return true;
}

bool Client::receive_payload_view(std::span<const std::byte>& payload, uint64_t& sequence,
                                  double& arrival_time) {
  if (queue_count_ == 0) return false;
  const size_t entry = static_cast<size_t>(queue_head_);
  payload = std::span<const std::byte>(queue_bytes_.data() + entry * kMaxPayloadBytes, queue_sizes_[entry]);
  sequence = queue_sequences_[entry];
  arrival_time = queue_arrivals_[entry];
  queue_head_ = (queue_head_ + 1) % config_.payload_queue_size;
  --queue_count_;
  return true;
}

}  // namespace bitwire::netcode
