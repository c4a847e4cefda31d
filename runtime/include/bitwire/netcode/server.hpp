// netcode::Server: the dedicated server's side of netcode 1.02 -- N client slots, connect-token checks,
// challenge tokens, keep-alives, timeouts, redundant disconnects, events and per-slot statistics. Payloads
// are opaque bytes (1..1200 per packet); the layers above (Endpoint, Connection) are not part of this class.
//
// Usage:
//   bitwire::netcode::ServerConfig config;
//   config.protocol_id = kMyProtocolId;
//   config.private_key = key_shared_with_the_backend;
//   config.max_clients = 64;
//   bitwire::UdpSocket socket;  socket.open(bind_address);
//   bitwire::UdpTransport transport(socket);
//   bitwire::netcode::Server server(config, transport, public_address /* as written in the tokens */);
//   each tick:
//     server.update(now, unix_now);            // receive everything, time out, send keep-alives
//     while (server.next_event(event)) ...     // connected / disconnected (with a reason)
//     for each slot: while (server.receive_payload(slot, buffer, size, sequence)) ...
//     server.send_payload(slot, bytes);
//
// Contracts:
// - Time is passed in: `now` in seconds (any monotonic origin) and `unix_now` (unix seconds, for token
//   expiry). The server reads no clock and starts no thread. A non-finite `now` (or one beyond
//   kMaxTimeSeconds) is refused: counted in time_invalid(), the update runs at the previous time.
// - Memory is allocated in the constructor and never after: memory_bytes() reports it; memory_per_slot()
//   says what one slot costs (dominated by its payload queue: payload_queue_per_slot * 1200 bytes).
// - Every datagram is untrusted: a dropped one increments drops(PacketError) and nothing else happens. The
//   server never answers a datagram with a larger one (anti-amplification): it answers only connection
//   requests (1078 bytes, answered with <= 333) and responses (>= 326, answered with <= 33).
// - A connect token is used from one address only (token-entry history keyed by the token MAC), and holds a
//   pending mapping for at most its timeout (10 s when the token disables timeouts) counted from its first
//   request, however often it is re-sent. The pending table has max(max_clients * pending_per_slot, 256)
//   entries and the token history max(max_clients * token_history_per_slot, 512).
// - Events go through a ring of event_queue_size; when it is full the oldest is dropped and counted
//   (events_dropped()). A burst can overflow any ring, so code that must know which connection a slot
//   holds compares session(slot) with the session it last saw after every update() (what bitwire::Server
//   does) instead of inferring it from events.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "bitwire/core/config_table.hpp"
#include "bitwire/netcode/packet.hpp"
#include "bitwire/transport/transport.hpp"

namespace bitwire::netcode {

// The most memory one netcode::Server may allocate for its slots (max_clients * memory_per_slot); a config
// above it is refused. 512 MiB: 4096 slots with 100 queued payloads each, or 64 slots with 1024.
inline constexpr size_t kMaxServerMemoryBytes = size_t{512} << 20;

// The server's tunables: a ServerConfig without what identifies and sizes the server (protocol id, private
// key, slot count). bitwire::StackConfig embeds these alone and sets the other three itself, so a stack
// config cannot carry a second, contradicting copy of them.
struct ServerSettings {
  int pending_per_slot = 4;             // encryption mappings between request and connect, per slot
  int token_history_per_slot = 8;       // remembered connect-token uses (MAC + address), per slot
  int payload_queue_per_slot = 16;      // received payloads buffered per slot until receive_payload()
  int event_queue_size = 0;             // events buffered until next_event(); 0: 2 * max_clients + 16
  double keep_alive_interval = 0.1;     // seconds without a packet sent to a client before a keep-alive
  int disconnect_packets = 10;          // redundant disconnect packets sent when a slot is disconnected
  int max_receive_per_update = 0;       // datagrams handled per update(); 0: 64 * max_clients (bounds one tick)
};

struct ServerConfig : ServerSettings {
  uint64_t protocol_id = 0;  // must equal the tokens' protocol id
  Key private_key{};         // shared with the backend that makes connect tokens
  int max_clients = 64;      // client slots, [1, 4096]

  // Passes when every field is within kServerConfigLimits, else the reason naming the field, its value and
  // its legal range (held in the ConfigCheck; see config_table.hpp).
  ConfigCheck check() const;
  // This config with every field clamped into kServerConfigLimits; check() accepts the result. The "0: ..."
  // defaults stay 0 here; the server resolves them when it is constructed (config() shows the result).
  ServerConfig sanitized() const;
};

// The most payload_queue_per_slot that keeps max_clients * Server::memory_per_slot within
// kMaxServerMemoryBytes (the other fields assumed in range; the table's bound).
int server_max_payload_queue(const ServerConfig& config);

// The limits of every ServerConfig field, in the order they are checked (a bound computed from other fields
// reads only fields above it). check() and sanitized() are derived from this table alone.
inline constexpr auto kServerConfigLimits = config_table(
    Field<ServerConfig, int>{.name = "max_clients", .member = &ServerConfig::max_clients, .min = 1, .max = 4096},
    Field<ServerConfig, int>{
        .name = "pending_per_slot", .member = &ServerConfig::pending_per_slot, .min = 1, .max = 64},
    Field<ServerConfig, int>{
        .name = "token_history_per_slot", .member = &ServerConfig::token_history_per_slot, .min = 1, .max = 64},
    // After the fields above: the memory cap reads them.
    Field<ServerConfig, int>{.name = "payload_queue_per_slot",
                             .member = &ServerConfig::payload_queue_per_slot,
                             .min = 1,
                             .max = 1024,
                             .upper = &server_max_payload_queue,
                             .upper_text = "what keeps max_clients * memory_per_slot within 512 MiB"},
    Field<ServerConfig, int>{
        .name = "event_queue_size", .member = &ServerConfig::event_queue_size, .min = 0, .max = 1 << 20},
    Field<ServerConfig, double>{.name = "keep_alive_interval",
                                .member = &ServerConfig::keep_alive_interval,
                                .min = 0.001,
                                .max = 10.0,
                                .unit = "s"},
    Field<ServerConfig, int>{
        .name = "disconnect_packets", .member = &ServerConfig::disconnect_packets, .min = 0, .max = 64},
    Field<ServerConfig, int>{.name = "max_receive_per_update",
                             .member = &ServerConfig::max_receive_per_update,
                             .min = 0,
                             .max = 1 << 24});

enum class DisconnectReason : uint8_t {
  kNone,
  kTimedOut,             // no keep-alive or payload within the token's timeout
  kClientDisconnected,   // the client sent a disconnect packet
  kServerDisconnected,   // the server application called disconnect()
  kServerStopped,        // stop() / destruction
};
const char* to_string(DisconnectReason reason);

struct ServerEvent {
  enum class Kind : uint8_t { kConnected, kDisconnected } kind = Kind::kConnected;
  int slot = 0;
  uint64_t client_id = 0;
  DisconnectReason reason = DisconnectReason::kNone;
  uint64_t session = 0;  // the connection's session(): which connection of the slot this event is about
};

struct SlotStats {
  uint64_t packets_sent = 0;
  uint64_t packets_received = 0;
  uint64_t payloads_sent = 0;
  uint64_t payloads_received = 0;
  uint64_t keep_alives_sent = 0;
  uint64_t keep_alives_received = 0;
  uint64_t bytes_sent = 0;       // UDP payload bytes
  uint64_t bytes_received = 0;
  uint64_t payloads_dropped_queue_full = 0;
  uint64_t replayed = 0;         // packets refused by replay protection
  uint64_t decrypt_failed = 0;   // packets from this slot's address that failed the MAC
};

class Server {
 public:
  // Refuses (ok() false, error_reason() says why) a config that fails check() or a public address that is
  // empty.
  Server(const ServerConfig& config, Transport& transport, const Address& public_address);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  bool ok() const { return error_ == nullptr; }
  const char* error_reason() const { return error_; }
  const ServerConfig& config() const { return config_; }
  // The transport this server sends on: a caller that sends many payloads at once wraps them in a
  // TransportBatch on it (one sendmmsg for them on UDP). update() runs in a batch of its own.
  Transport& transport() const { return transport_; }

  void update(double now, uint64_t unix_now);
  // Handles one datagram as update() does for each one it receives (also the fuzz entry point). `datagram` is
  // modified (decrypted in place).
  void process_datagram(const Address& from, std::span<std::byte> datagram);
  // The same for a datagram the transport received at `arrival_time` (update()'s clock; a later, NaN or
  // infinite one is read as the last update's now). Payloads are queued with it.
  void process_datagram(const Address& from, std::span<std::byte> datagram, double arrival_time);

  bool is_connected(int slot) const;
  int connected_count() const { return connected_count_; }
  int max_clients() const { return config_.max_clients; }
  uint64_t client_id(int slot) const;
  // The id of the connection the slot holds: a new one at every connect, never reused by this server, 0 when
  // the slot is free. A change between two reads means the slot's connection changed in between.
  uint64_t session(int slot) const;
  // How many times any slot's session changed (connects plus disconnects) since construction. A caller that
  // compares session(slot) for every slot after each update may skip the walk while this has not moved.
  uint64_t session_changes() const { return session_changes_; }
  // Why `session` ended, while it is the most recent connection of `slot` to have ended; kNone otherwise.
  DisconnectReason disconnect_reason(int slot, uint64_t session) const;
  Address client_address(int slot) const;
  const UserData* client_user_data(int slot) const;  // nullptr when the slot is free
  const SlotStats& stats(int slot) const;
  bool is_confirmed(int slot) const;

  // Sends 1..1200 bytes to a connected slot. False when the slot is free or the size is out of range.
  bool send_payload(int slot, std::span<const std::byte> payload);
  // Pops the oldest payload received from `slot` into `out` (room for kMaxPayloadBytes).
  bool receive_payload(int slot, std::span<std::byte> out, size_t& size, uint64_t& sequence);
  // The same, with the time its datagram was received (the transport's arrival time, at most the now of the
  // update() that received it): what the Endpoint needs for RTT samples that exclude the wait for the tick.
  bool receive_payload(int slot, std::span<std::byte> out, size_t& size, uint64_t& sequence, double& arrival_time);
  // The same without the copy: `payload` views the popped entry inside the server's queue. The view is
  // valid until the next update() or process_datagram() (only they fill the queue), so read it first.
  bool receive_payload_view(int slot, std::span<const std::byte>& payload, uint64_t& sequence,
                            double& arrival_time);
  // Sends the redundant disconnect packets and frees the slot (event kDisconnected, kServerDisconnected).
  void disconnect(int slot);
  void disconnect_all();

  bool next_event(ServerEvent& event);
  uint64_t events_dropped() const { return events_dropped_; }

  uint64_t drops(PacketError error) const { return drops_[static_cast<int>(error)]; }
  uint64_t denied_sent() const { return denied_sent_; }
  uint64_t challenges_sent() const { return challenges_sent_; }
  uint64_t largest_reply_ratio_violations() const { return amplification_violations_; }
  // update() times refused (non-finite or beyond kMaxTimeSeconds): the update ran at the previous time.
  uint64_t time_invalid() const { return time_invalid_; }

  size_t memory_bytes() const { return memory_bytes_; }
  static size_t memory_per_slot(const ServerConfig& config);

 private:
  struct State;
  void drop(PacketError error) {
    ++drops_[static_cast<int>(error)];
    last_drop_ = error;
  }
  // Logs why a connection request from `from` was refused (rate-limited with every log line).
  void log_refused_request(const Address& from, std::span<const std::byte> datagram, PacketError error) const;

  ServerConfig config_;
  Transport& transport_;
  Address public_address_;
  const char* error_ = nullptr;
  char error_text_[kConfigReasonBytes] = {};  // the reason, owned: error_reason() points here or to a literal
  int connected_count_ = 0;
  uint64_t session_changes_ = 0;
  uint64_t drops_[kPacketErrorCount] = {};
  PacketError last_drop_ = PacketError::kNone;
  uint64_t denied_sent_ = 0;
  uint64_t time_invalid_ = 0;
  uint64_t challenges_sent_ = 0;
  uint64_t amplification_violations_ = 0;
  uint64_t events_dropped_ = 0;
  size_t memory_bytes_ = 0;
  std::unique_ptr<State> state_;
  friend struct ServerInternals;
};

}  // namespace bitwire::netcode
