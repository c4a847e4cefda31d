// bitwire::Client: the full stack for a game client -- netcode 1.02 (connect token, encryption, the client
// state machine) carrying one Endpoint (reliable 1.0 acks and fragments) under one Connection (channels of
// messages). The same StackConfig as the server's.
//
//   bitwire::Client client(config, kFactory, transport, now);
//   client.connect(token_bytes /* 2048 bytes from the backend */, now);
//   each tick:
//     client.update(now);                               // receive, advance the state machine and channels
//     while (client.next_event(event)) ...              // connected / disconnected (with the final state)
//     while (auto message = client.receive(0)) ...
//     if (client.is_connected()) { auto m = client.create<Input>(); ...; client.send(1, std::move(m)); }
//     client.send_packets();                            // a connection packet while connected (+ block fragments)
//   client.disconnect(now);
//
// Contracts:
// - Time is passed in (seconds, any monotonic origin). Single-threaded; no clock, no thread.
// - Memory: the Connection (pool, channels, Endpoint), the controller and netcode's queues are allocated in
//   the constructor; connect, update, send_packets, send, receive and disconnect never allocate.
// - Every connect and every disconnect resets the Connection: messages queued, in flight or unreceived are
//   released to the pool, and nothing of one session is sent or delivered in the next.
// - Messages may be created and queued only while connected (kConnectionError otherwise): a message queued
//   before a session exists would have no session to belong to.
// - connect_insecure_lan is INSECURE (see netcode/client.hpp): refused unless config.client.
//   allow_insecure_lan_connect is set and every server address is a LAN address.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "bitwire/stack/stack_config.hpp"

namespace bitwire {

struct ClientEvent {
  enum class Kind : uint8_t { kConnected, kDisconnected } kind = Kind::kConnected;
  // For kDisconnected: netcode's state at the end (kDisconnected after disconnect() or the server's
  // disconnect packets, an error state such as kConnectionTimedOut or kConnectionDenied otherwise).
  netcode::ClientState state = netcode::ClientState::kDisconnected;
  const char* protocol_error = nullptr;  // set when this client left because the server's packets broke
                                         // the channel protocol
};

class Client {
 public:
  static constexpr int kEventQueueSize = 16;

  // Refuses (ok() false, error_reason() says why) a config that fails check(), a factory that fails
  // check(), and a connection the config and factory together make invalid (its message pool's budget for
  // the factory's types above kMaxMessageSlotBytes). A refused client does nothing.
  Client(const StackConfig& config, const MessageFactory& factory, Transport& transport, double now = 0.0);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  bool ok() const { return error_ == nullptr; }
  const char* error_reason() const { return error_; }
  const StackConfig& config() const { return config_; }
  uint64_t protocol_id() const { return protocol_id_; }  // what the token's protocol id must be

  // Starts connecting with a connect token (2048 bytes). Any previous session is disconnected first.
  // False (and `reason`) when the token is unreadable or carries another protocol id than protocol_id().
  bool connect(std::span<const std::byte> token_bytes, double now, const char** reason = nullptr);
  // INSECURE LAN development only: the client mints its own token with the server's private key. Refused
  // (false, `reason`) unless config.client.allow_insecure_lan_connect is set and every address is LAN.
  // params.protocol_id is replaced by protocol_id().
  bool connect_insecure_lan(const netcode::ConnectTokenParams& params, const netcode::Key& private_key,
                            double now, const char** reason = nullptr);
  void update(double now);
  // Sends one connection packet (acks plus whatever the channels fit) while connected, plus extra packets
  // while a block fragment is ready within its channel's block budget (Connection::send_packets).
  void send_packets();
  // Sends netcode's redundant disconnect packets; the next event is kDisconnected.
  void disconnect(double now);
  bool next_event(ClientEvent& event);

  netcode::ClientState state() const { return netcode_.state(); }
  bool is_connected() const { return netcode_.is_connected(); }
  int client_index() const { return netcode_.client_index(); }

  // ---- Messages ----
  MessageHandle create(uint32_t type_id);
  template <typename T>
  MessageHandle create() {
    return create(static_cast<uint32_t>(T::kTypeId));
  }
  SendStatus send(int channel, MessageHandle&& message);
  MessageHandle receive(int channel);

  // ---- Statistics and memory ----
  StackStats stats() const;
  const netcode::Client& netcode() const { return netcode_; }
  const Connection& connection() const { return connection_; }
  size_t memory_bytes() const { return memory_bytes_; }

 private:
  void session_ended(const char* protocol_error);
  void push_event(const ClientEvent& event);
  static void transmit(void* context, std::span<const std::byte> datagram);

  StackConfig config_;
  const char* error_ = nullptr;
  char error_text_[kConfigReasonBytes] = {};  // the reason, owned: error_reason() points here or to a literal
  uint64_t protocol_id_ = 0;
  double now_ = 0.0;
  netcode::Client netcode_;
  Connection connection_;
  BinaryCongestionController congestion_;
  bool was_connected_ = false;
  ClientEvent events_[kEventQueueSize];
  int event_head_ = 0;
  int event_count_ = 0;
  uint64_t payload_bytes_sent_ = 0;
  uint64_t payload_bytes_received_ = 0;
  uint64_t payloads_refused_ = 0;
  size_t memory_bytes_ = 0;
};

}  // namespace bitwire
