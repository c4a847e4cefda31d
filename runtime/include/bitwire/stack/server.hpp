// bitwire::Server: the full stack for a dedicated server -- netcode 1.02 (connect tokens, encryption, slots)
// carrying, per client slot, one Endpoint (reliable 1.0 acks and fragments) under one Connection (channels
// of messages). Game code sends and receives messages by client index and channel.
//
//   bitwire::StackConfig config;                         // the same struct as the clients'
//   config.protocol_id = kMyProtocolId;
//   config.max_clients = 64;
//   config.connection.channel_count = 2;
//   config.connection.channels[1].type = bitwire::ChannelType::kUnreliableUnordered;
//   bitwire::UdpSocket socket;  socket.open(bind_address);
//   bitwire::UdpTransport transport(socket);            // or a LoopbackTransport in tests
//   bitwire::Server server(config, kFactory, private_key, transport, public_address, now);
//
//   each tick:
//     server.update(now, unix_now);                     // receive, connect/disconnect, advance every slot
//     while (server.next_event(event)) ...              // connected / disconnected (with a reason)
//     for each connected client i, each channel c:
//       while (auto message = server.receive(i, c)) ...
//     auto message = server.create<Snapshot>(i);  ... fill ...;  server.send(i, 1, std::move(message));
//     server.send_packets();                            // a packet per connected client (+ block fragments)
//   or, in one walk over the clients:
//     bitwire::TransportBatch batch(transport);
//     for each connected client i: receive, create, send as above, then server.send_packets(i);
//
// Contracts:
// - Time is passed in: `now` (seconds, any monotonic origin) and `unix_now` (unix seconds, for token
//   expiry). Single-threaded; nothing reads a clock or starts a thread.
// - Memory: every slot's Connection (message pool, channels, Endpoint), congestion controller and netcode
//   slot are allocated in the constructor; memory_per_slot() reports one slot, memory_bytes() everything.
//   update, send_packets, send, receive, create, connects and disconnects never allocate.
// - A slot is reset when its client leaves and when the next client takes it: messages queued, in flight
//   or unreceived are released to the slot's pool and nothing of the previous session reaches the next one.
//   Which connection a slot holds is read from netcode's session ids after every update() and
//   disconnect(), never inferred from netcode's event ring, so this holds whatever arrives in one update.
// - Events: for every slot whose connection changed since the last update() or disconnect(), a
//   kDisconnected for the connection the game was told of (if any), then a kConnected for the one it holds
//   now (if any); all kDisconnected of one update before its kConnected. A connection that began and ended
//   within one update() was never visible to the game and is not reported. The reason of a kDisconnected is
//   kNone only when a burst overflowed netcode's ring and another connection of the same slot ended after it
//   (netcode().events_dropped() counts the loss). This server's own ring holds event_queue_size events
//   (0: 2 * max_clients + 16), two per slot per update: a game that drains it every tick loses none; one
//   that does not sees events_dropped() grow (its slots are reset all the same).
// - A message sent to slot i must be created by create(i, ...) (another slot's pool is refused: kWrongPool).
//   Handles obtained from create/receive must be released before the server is destroyed.
// - A client whose packets break the channel protocol (the connection's error state) is disconnected; the
//   event carries the connection's reason.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "bitwire/stack/stack_config.hpp"

namespace bitwire {

struct ServerEvent {
  enum class Kind : uint8_t { kConnected, kDisconnected } kind = Kind::kConnected;
  int client_index = 0;
  uint64_t client_id = 0;                                               // from the connect token
  netcode::DisconnectReason reason = netcode::DisconnectReason::kNone;  // for kDisconnected
  const char* protocol_error = nullptr;  // set when the server dropped the client for breaking the protocol
  // Which connection of the slot this event is about: netcode's session id, new at every connect and never
  // reused (never 0 in an event). Key per-connection game state by it, not by client_index or client_id.
  uint64_t session = 0;
};

class Server {
 public:
  // Refuses (ok() false, error_reason() says why) a config that fails check(factory), a factory that fails
  // check(), a slot connection the two make invalid (a message pool above kMaxMessageSlotBytes), or what
  // netcode::Server refuses. A refused server does nothing.
  Server(const StackConfig& config, const MessageFactory& factory, const netcode::Key& private_key,
         Transport& transport, const Address& public_address, double now = 0.0);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  bool ok() const { return error_ == nullptr; }
  const char* error_reason() const { return error_; }
  const StackConfig& config() const { return config_; }
  // netcode's protocol id (stack_protocol_id): connect tokens must carry it.
  uint64_t protocol_id() const { return protocol_id_; }

  // Receives every datagram waiting (bounded by server.max_receive_per_update), handles connects,
  // disconnects and timeouts, and advances every slot's connection and statistics to `now`.
  void update(double now, uint64_t unix_now);
  // Sends one connection packet (acks plus whatever the channels fit) to every connected client, plus extra
  // packets while a block fragment is ready within its channel's block budget (Connection::send_packets,
  // at most connection.max_packets_per_update in all).
  void send_packets();
  // The same for one client: what send_packets() sends to `client_index`, sent now (nothing when the slot
  // is free or out of range). A game that walks its clients once a tick (read their messages, queue their
  // snapshot) may call it for each client at the end of its turn instead of send_packets() after the walk,
  // while the client's state is still in the cache (fewer cache misses, not measurably faster:
  // bench/RESULTS.md). Each client gets the same packets either way. Hold a
  // TransportBatch on the transport over the walk so the datagrams still leave together (one sendmmsg per
  // kMaxSocketBatch on UdpTransport); each call runs in a batch of its own otherwise.
  void send_packets(int client_index);
  // Within one update() every kDisconnected comes before every kConnected (then in slot order).
  bool next_event(ServerEvent& event);
  uint64_t events_dropped() const { return events_dropped_; }

  // ---- Messages ----
  MessageHandle create(int client_index, uint32_t type_id);
  template <typename T>
  MessageHandle create(int client_index) {
    return create(client_index, static_cast<uint32_t>(T::kTypeId));
  }
  // Queues `message` for client `client_index` on `channel`. kConnectionError also when the slot has no
  // client. On refusal the handle is left untouched.
  SendStatus send(int client_index, int channel, MessageHandle&& message);
  // The next message from client `client_index` on `channel`, or an empty handle.
  MessageHandle receive(int client_index, int channel);

  // ---- Clients ----
  // Sends netcode's redundant disconnect packets and frees the slot (event kDisconnected).
  void disconnect(int client_index);
  void disconnect_all();
  bool is_connected(int client_index) const;
  int connected_count() const;
  int max_clients() const { return config_.max_clients; }
  uint64_t client_id(int client_index) const;
  // The session id of the connection the game was last told of in slot `client_index` (the `session` of
  // its kConnected event), 0 when the slot is free or the index invalid.
  uint64_t session(int client_index) const;
  Address client_address(int client_index) const;

  // ---- Statistics and memory ----
  StackStats stats(int client_index) const;
  const netcode::Server& netcode() const { return *netcode_; }
  // The slot's connection, for its counters and channel state (do not reset or feed it directly).
  const Connection& connection(int client_index) const;
  // Bytes allocated for one slot, fixed at construction, each part sized from what the game declared:
  // - the message pool: a byte budget (message_pool_bytes; 0: derived from what can be alive and the
  //   factory's smallest and largest types, ConnectionConfig) holding each message at its own type's size,
  //   and its block_pool_size buffers for outgoing blocks (with a shared
  //   block_arena() taken from it, counted in memory_bytes() once, not per slot);
  // - each channel: its send and receive queues, its sent-packet records and message ids, and with blocks
  //   a block sender (per-fragment state) and receiver (one max_block_size buffer, lent to the block it
  //   delivers when the slot owns its buffers);
  // - the Endpoint: its sequence windows and, when connection packets are at most 1200 bytes (sent whole by
  //   both ends), one packet buffer and one reassembly slot of connection.max_packet_size; larger packets
  //   keep the endpoint's own reassembly_slots x max_packet_size;
  // - the incoming packet's entry table (per channel) and the packet buffer (connection.max_packet_size);
  // - netcode's slot (payload_queue_per_slot x 1200 bytes and its replay window), the Slot object with its
  //   congestion controller, and its two event records.
  // stack_slot_memory(config, factory) is the same figure less the Slot object (docs/client-server.md 2).
  size_t memory_per_slot() const { return memory_per_slot_; }
  // Everything allocated at construction (the slots, netcode, the events, the shared block arena and the
  // one send room the slots share).
  size_t memory_bytes() const { return memory_bytes_; }
  // The block buffers all slots share (StackConfig::block_buffers), or nullptr without block types or with
  // block_buffers = -1 (each slot owns its buffers).
  const BlockArena* block_arena() const { return block_arena_.get(); }

 private:
  struct Slot;
  void reset_slot(int index);
  void push_event(const ServerEvent& event);
  void name_slot(int index);  // names the slot's congestion log lines after its client
  void log_protocol_error(int index, const char* reason) const;
  // Brings the game's view of every slot in line with netcode's sessions: O(max_clients), once per update.
  void reconcile();
  // The same for one slot whose session only the game or a protocol error ended (no connect can have
  // happened since the last reconcile()): O(1), so N disconnects in one update cost N, not N x max_clients.
  void reconcile_slot(int index);
  void take_netcode_events();
  void report_disconnect(int index);
  void restart_slot(int index);
  bool valid(int client_index) const;
  static void transmit(void* context, std::span<const std::byte> datagram);

  StackConfig config_;
  const char* error_ = nullptr;
  char error_text_[kConfigReasonBytes] = {};  // the reason, owned: error_reason() points here or to a literal
  uint64_t protocol_id_ = 0;
  double now_ = 0.0;
  std::unique_ptr<netcode::Server> netcode_;
  std::unique_ptr<BlockArena> block_arena_;  // before slots_: their pools give buffers back on destruction
  // The send room every slot's endpoint shares (Endpoint::share_send_room): each packet is written and
  // sealed in the same hot bytes instead of a cold per-slot buffer.
  std::unique_ptr<std::byte[]> send_room_;
  std::unique_ptr<std::unique_ptr<Slot>[]> slots_;
  std::unique_ptr<ServerEvent[]> events_;
  int event_capacity_ = 0;
  int event_head_ = 0;
  int event_count_ = 0;
  uint64_t events_dropped_ = 0;
  uint64_t reconciled_changes_ = 0;  // netcode's session_changes() when every slot last matched netcode's
  size_t memory_per_slot_ = 0;
  size_t memory_bytes_ = 0;
};

}  // namespace bitwire
