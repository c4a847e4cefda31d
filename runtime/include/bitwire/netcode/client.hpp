// netcode::Client: the client's side of netcode 1.02 -- the state machine from a connect token to connected,
// every error state, the token's server addresses tried in order, keep-alives, timeouts from the token, and
// redundant disconnect packets. Payloads are opaque bytes (1..1200 per packet).
//
// Usage:
//   bitwire::netcode::Client client(bitwire::netcode::ClientConfig{}, transport);
//   client.connect(token_bytes /* 2048 bytes from the backend */, now);
//   each tick:
//     client.update(now);                              // receive, advance the state machine, send
//     if (client.state() == ClientState::kConnected) client.send_payload(bytes);
//     while (client.receive_payload(buffer, size, sequence)) ...
//   client.disconnect(now);                            // redundant disconnect packets, then kDisconnected
//
// Contracts:
// - Time is passed in (seconds, any monotonic origin). The client reads no clock and starts no thread. A
//   non-finite update() time (or one beyond kMaxTimeSeconds) is refused: counted in time_invalid(), the
//   update runs at the previous time.
// - States and their numbers are the standard's; negative states are errors and final until connect().
// - Memory is allocated in the constructor (payload queue) and never after.
// - Every datagram is untrusted; a dropped one increments drops(PacketError).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "bitwire/core/config_table.hpp"
#include "bitwire/netcode/packet.hpp"
#include "bitwire/transport/transport.hpp"

namespace bitwire::netcode {

enum class ClientState : int8_t {
  kConnectTokenExpired = -6,
  kInvalidConnectToken = -5,
  kConnectionTimedOut = -4,
  kConnectionResponseTimedOut = -3,
  kConnectionRequestTimedOut = -2,
  kConnectionDenied = -1,
  kDisconnected = 0,
  kSendingConnectionRequest = 1,
  kSendingConnectionResponse = 2,
  kConnected = 3,
};
const char* to_string(ClientState state);

struct ClientConfig {
  double send_interval = 0.1;     // seconds between requests / responses / keep-alives (10 Hz)
  int disconnect_packets = 10;    // redundant disconnect packets sent by disconnect()
  int payload_queue_size = 64;    // received payloads buffered until receive_payload()
  int max_receive_per_update = 256;  // datagrams handled per update()
  bool allow_insecure_lan_connect = false;  // permits connect_insecure_lan() (the client holds the private key)

  // Passes when every field is within kClientConfigLimits, else the reason naming the field, its value and
  // its legal range (held in the ConfigCheck; see config_table.hpp).
  ConfigCheck check() const;
  // This config with every field clamped into kClientConfigLimits (what the client uses).
  ClientConfig sanitized() const;
};

// The limits of every ClientConfig field (the flag has no range). check() and sanitized() are derived from
// this table alone. The largest queue is 4096 * 1218 bytes (payload, size, sequence, arrival), about 5 MB.
inline constexpr auto kClientConfigLimits = config_table(
    Field<ClientConfig, double>{.name = "send_interval",
                                .member = &ClientConfig::send_interval,
                                .min = 0.001,
                                .max = 10.0,
                                .unit = "s"},
    Field<ClientConfig, int>{
        .name = "disconnect_packets", .member = &ClientConfig::disconnect_packets, .min = 0, .max = 64},
    Field<ClientConfig, int>{
        .name = "payload_queue_size", .member = &ClientConfig::payload_queue_size, .min = 1, .max = 4096},
    Field<ClientConfig, int>{.name = "max_receive_per_update",
                             .member = &ClientConfig::max_receive_per_update,
                             .min = 1,
                             .max = 1 << 20});

struct ClientStats {
  uint64_t packets_sent = 0;
  uint64_t packets_received = 0;
  uint64_t payloads_sent = 0;
  uint64_t payloads_received = 0;
  uint64_t payloads_dropped_queue_full = 0;
  uint64_t server_addresses_tried = 0;
};

class Client {
 public:
  Client(const ClientConfig& config, Transport& transport);
  // The transport this client sends on (a caller sending several payloads at once may wrap them in a
  // TransportBatch on it).
  Transport& transport() const { return transport_; }
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  bool ok() const { return error_ == nullptr; }
  const char* error_reason() const { return error_; }  // a bad config

  // Reads the token (2048 bytes) and starts with its first server address. An unreadable token moves to
  // kInvalidConnectToken (token_error() says why).
  void connect(std::span<const std::byte> token_bytes, double now);
  // INSECURE, for LAN development without a backend: the client mints its own connect token with the
  // server's private key, so anyone holding that key can connect as anyone. Refused (false, `reason`) unless
  // config.allow_insecure_lan_connect is set, and unless every server address is loopback, private (RFC 1918,
  // IPv6 unique local) or link-local. The packets are still netcode 1.02, encrypted as usual.
  bool connect_insecure_lan(const ConnectTokenParams& params, const Key& private_key, double now,
                            const char** reason = nullptr);
  void update(double now);
  // Sends the redundant disconnect packets when connected (or connecting), then kDisconnected.
  void disconnect(double now);
  // Handles one datagram as update() does (the fuzz and test entry point); `datagram` is decrypted in place.
  void process_datagram(const Address& from, std::span<std::byte> datagram);
  // The same for a datagram the transport received at `arrival_time` (update()'s clock; a later, NaN or
  // infinite one is read as the last update's now). Payloads are queued with it.
  void process_datagram(const Address& from, std::span<std::byte> datagram, double arrival_time);

  ClientState state() const { return state_; }
  bool is_connected() const { return state_ == ClientState::kConnected; }
  int client_index() const { return client_index_; }
  int max_clients() const { return max_clients_; }
  int server_index() const { return server_index_; }  // which token address is in use
  Address server_address() const;
  const char* token_error() const { return token_error_; }

  bool send_payload(std::span<const std::byte> payload);
  bool receive_payload(std::span<std::byte> out, size_t& size, uint64_t& sequence);
  // The same, with the time its datagram was received (at most the now of the update() that received it).
  bool receive_payload(std::span<std::byte> out, size_t& size, uint64_t& sequence, double& arrival_time);
  // The same without the copy: `payload` views the popped entry inside the client's queue, valid until
  // the next update() or process_datagram() (only they fill the queue).
  bool receive_payload_view(std::span<const std::byte>& payload, uint64_t& sequence, double& arrival_time);

  uint64_t drops(PacketError error) const { return drops_[static_cast<int>(error)]; }
  const ClientStats& stats() const { return stats_; }
  // update() times refused (non-finite or beyond kMaxTimeSeconds): the update ran at the previous time.
  uint64_t time_invalid() const { return time_invalid_; }
  size_t memory_bytes() const;

 private:
  void reset_connection();
  void step(double now);  // update() without its log line
  // Logs the change from `before` (state and server index) to now: a connect, a move to the next server,
  // a denial, a timeout or a disconnect, naming the server and the likely causes.
  void log_change(ClientState before, int before_index) const;
  void start_server(int index, double now);
  void fail_or_next(ClientState failure, double now);
  void send_packet(PacketType type, std::span<const std::byte> body);
  void drop(PacketError error) { ++drops_[static_cast<int>(error)]; }

  ClientConfig config_;
  Transport& transport_;
  const char* error_ = nullptr;
  char error_text_[kConfigReasonBytes] = {};  // the reason, owned: error_reason() points here or to a literal
  const char* token_error_ = nullptr;
  ClientState state_ = ClientState::kDisconnected;
  ConnectToken token_;
  int server_index_ = 0;
  double connect_start_ = 0.0;
  double last_send_ = 0.0;
  double last_receive_ = 0.0;
  double now_ = 0.0;
  uint64_t sequence_ = 0;
  int client_index_ = -1;
  int max_clients_ = 0;
  uint64_t challenge_sequence_ = 0;
  std::array<std::byte, kChallengeTokenBytes> challenge_token_{};
  ReplayProtection replay_;
  uint64_t drops_[kPacketErrorCount] = {};
  uint64_t time_invalid_ = 0;
  ClientStats stats_;
  std::vector<std::byte> queue_bytes_;
  std::vector<uint16_t> queue_sizes_;
  std::vector<uint64_t> queue_sequences_;
  std::vector<double> queue_arrivals_;  // when each queued payload's datagram was received
  int queue_head_ = 0;
  int queue_count_ = 0;
  // Datagrams as the transport hands them over: up to kClientReceiveBatch per receive_many (one recvmmsg on
  // UdpTransport), allocated at construction and counted in memory_bytes().
  static constexpr size_t kClientReceiveBatch = 16;
  std::unique_ptr<std::byte[]> receive_rooms_;  // kClientReceiveBatch x kReceiveBufferBytes
  std::array<size_t, kClientReceiveBatch> receive_sizes_{};
  std::array<Address, kClientReceiveBatch> receive_from_{};
  std::array<double, kClientReceiveBatch> receive_arrivals_{};
  // One datagram as the transport takes it.
  std::array<std::byte, kReceiveBufferBytes> send_buffer_{};
};

}  // namespace bitwire::netcode
