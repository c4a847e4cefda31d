// StackConfig: the one struct that configures the full stack on both ends -- netcode 1.02 (secure
// transport) -> Endpoint (reliable 1.0 acks and fragments) -> Connection (channels). Client and Server take
// the same struct; the fields that change the bytes on the wire (protocol id, channel layout) must agree.
//
// The fields the stack owns exist once: `protocol_id` and `max_clients` here, the private key as a Server
// constructor argument. `server` is netcode's ServerSettings, which has no protocol id, key or slot count.
// connection.protocol_id and connection.endpoint.protocol_id are 0 ("the stack's") or equal to protocol_id;
// check() refuses any other value.
//
// What the stack sets for you:
// - connection.protocol_id = protocol_id, and the endpoint's envelope is off: netcode's AEAD already
//   authenticates every payload, so the crc32 envelope would cost 4 bytes a packet for nothing.
// - the endpoint's ack delay extension is on (connection.endpoint.ack_delay = kOn) unless the game set kOff:
//   its default, kWithEnvelope, would be off without the envelope, and RTT samples would include the time
//   each ack waits for the peer's next packet. The fit to netcode's payload counts its 2 bytes, and a kOff
//   stack has another stack_protocol_id (both ends must agree on the extension).
// - netcode's protocol id is stack_protocol_id(factory, config): the game's id with the channel layout and
//   the message types folded in (Connection::protocol_id; and the ack delay mode when it is kOff), so a peer
//   built with another layout is refused at connect time instead of misreading bits. Connect tokens must
//   carry that id (the backend computes it the same way).
// - a connection packet the endpoint sends whole (connection.max_packet_size <= 1200) is at most what
//   netcode's 1200-byte payload holds behind the endpoint's header: connection.max_packet_size is lowered to
//   1189 bytes (1191 with ack_delay = kOff). A message too large for that packet is refused by send().
// - netcode's max_clients = max_clients; the server's private key is given to the Server constructor, never
//   kept in a config that clients share.
#pragma once

#include <cstddef>
#include <cstdint>

#include "bitwire/core/config_table.hpp"
#include "bitwire/packet/congestion.hpp"
#include "bitwire/message/connection.hpp"
#include "bitwire/netcode/client.hpp"
#include "bitwire/netcode/server.hpp"

namespace bitwire {

// The most a server's slots may need together: max_clients * stack_slot_memory() (each slot's Connection --
// message pool, channel queues, incoming packet, Endpoint -- and its netcode slot) + the shared block
// buffers (stack_block_arena_memory); a config above it is refused, and sanitized() lowers max_clients (then
// block_buffers) to fit. 4 GiB: all 4,096 slots of the default config without block types, or with them
// and a shared arena (block_buffers = 0: 2,048 buffers), and all 4,096 default slots that each own their
// block buffers (967,643 bytes with a block type; docs/client-server.md section 2); 4096 endpoints of 64
// MiB (256 GiB) do not fit.
inline constexpr size_t kMaxStackServerMemoryBytes = size_t{4} << 30;
// The most buffer memory the sized block arena takes (StackConfig::block_buffers = 0): 512 MiB, 2,048
// buffers of 256 KiB, so that 4,096 slots and that arena fit kMaxStackServerMemoryBytes.
inline constexpr size_t kDefaultBlockArenaBytes = size_t{512} << 20;

struct StackConfig {
  uint64_t protocol_id = 0;      // the game's protocol id (the layout is folded in: stack_protocol_id)
  int max_clients = 64;          // server slots, [1, 4096]; each slot owns one Endpoint + Connection
  ConnectionConfig connection;   // channels, message pool and the endpoint (envelope forced off)
  netcode::ServerSettings server;  // the server's netcode tunables (protocol id, key and slots: see above)
  netcode::ClientConfig client;  // the client's netcode settings (allow_insecure_lan_connect off)
  BinaryCongestionConfig congestion;  // per-slot congestion controller (reported in the statistics)
  int event_queue_size = 0;           // server events kept until next_event(); 0: 2 * max_clients + 16
  // The server's block buffers (with block types). -1 (the default): each slot owns its
  // connection.block_pool_size buffers, so nothing one client does can keep a buffer another needs.
  // 0 or N > 0: the slots share one BlockArena of buffers of the connection's largest max_block_size, each
  // slot holding at most block_pool_size of them at once (queued, in flight or held by the application);
  // 0 sizes it at one buffer per slot and one slot's block_pool_size more, at most kDefaultBlockArenaBytes
  // (2,048 of 256 KiB), N > 0 is N; never fewer than one slot's block_pool_size, at most kMaxBlockPoolBytes.
  // A shared buffer is held only by a block at its channel's head (a received one is deliverable at once)
  // or by a sent block whose peer keeps acking it (ChannelConfig::block_ack_grace), but peers that the game
  // sends blocks to can still hold buffers others need, for as long as they keep acking slowly: share the
  // arena only where such clients are trusted or few (docs/client-server.md section 2). When the arena is
  // empty an application block is refused (kSharedBuffersInUse) and a received block waits for the next
  // buffer freed. The client's Connection always keeps its own buffers.
  int block_buffers = -1;

  // Passes when every field is in range (kStackConfigLimits), the connection's protocol ids are 0 or
  // protocol_id, every nested config passes its own check() (the server's settings as a netcode::ServerConfig
  // of max_clients slots), the endpoint's packets fit netcode's 1200-byte payload and the slots fit
  // kMaxStackServerMemoryBytes, else the reason for the first problem; a nested config's reason is prefixed
  // with the part it came from
  // ("StackConfig.connection: ConnectionConfig.endpoint: EndpointConfig.fragment_size = 0 is outside ...").
  // Without a factory the slots are counted for the smallest package (one 1-byte type, no blocks): a lower
  // bound. check(factory) counts them for `factory` (its types size the pool's budget, its block
  // types bring block buffers and block transfer state), and runs the message pool's check for the
  // factory (MessagePoolConfig::check(factory): a message_pool_bytes below the receive reserve and one
  // more message, a pool past its caps): what Server checks before it allocates anything.
  ConfigCheck check() const;
  ConfigCheck check(const MessageFactory& factory) const;
  // This config with every field clamped into range, every nested config sanitized, the endpoint fitted
  // to netcode's payload and max_clients lowered to the memory cap (what Client and Server use, with the
  // forced fields above applied); sanitized(factory) counts the slots for `factory`.
  StackConfig sanitized() const;
  StackConfig sanitized(const MessageFactory& factory) const;

  // Interop with another implementation of the same stack (yojimbo over reliable.c and netcode.c;
  // docs/interop.md). netcode's protocol id is then protocol_id itself, not stack_protocol_id's fold of the
  // layout: nothing refuses a peer with another channel layout, message types or ack delay mode at connect
  // time, so both ends must be configured alike by hand.
  bool netcode_protocol_id_as_is = false;
  // The wire of yojimbo 1.0 / reliable 1.0 / netcode 1.02 as yojimbo's default ClientServerConfig speaks
  // it, for a yojimbo peer whose protocolId is `yojimbo_protocol_id`: netcode_protocol_id_as_is, no ack
  // delay extension (kOff: reliable.c would read it as payload), connection packets up to 8 KiB (yojimbo's
  // maxPacketSize) sent whole up to 1024 bytes and in 1024-byte fragments above (8 at most), and yojimbo's
  // two default channels: both reliable-ordered, 256 messages per packet, blocks up to 256 KiB in 1 KiB
  // fragments, 1024-message queues. Change channels and packet sizes only to what the yojimbo peer's config
  // says (the table in docs/interop.md); the message factory must list yojimbo's message types in its order.
  static StackConfig yojimbo_compatible(uint64_t yojimbo_protocol_id);
};

// The bytes one server slot of `config` (sanitized for `factory`) allocates: Connection::memory_required
// (message pool, channel queues, incoming packet, Endpoint) + netcode::Server::memory_per_slot. The
// server's memory_per_slot() adds its slot bookkeeping (a few hundred bytes). Without a factory: for the
// smallest package, what check() counts.
size_t stack_slot_memory(const StackConfig& config, const MessageFactory& factory);
size_t stack_slot_memory(const StackConfig& config);
// The server's shared block buffers for `config` (sanitized for `factory`): StackConfig::block_buffers as
// resolved (0 with block_buffers = -1, without block types or with blocks off on every channel), and the
// bytes of that arena.
// The server's slots together take max_clients * stack_slot_memory + stack_block_arena_memory.
int stack_block_buffers(const StackConfig& config, const MessageFactory& factory);
size_t stack_block_arena_memory(const StackConfig& config, const MessageFactory& factory);

// The limits of StackConfig's own fields (the nested configs have their own tables). check() and
// sanitized() are derived from these tables alone, plus the one rule between two nested configs (the
// endpoint's largest datagram fits netcode's payload), whose check and repair sit side by side in
// stack_config.cpp.
inline constexpr auto kStackConfigLimits = config_table(
    Field<StackConfig, int>{
        .name = "max_clients", .member = &StackConfig::max_clients, .min = 1, .max = 4096},
    Field<StackConfig, int>{
        .name = "event_queue_size", .member = &StackConfig::event_queue_size, .min = 0, .max = 1 << 20},
    Field<StackConfig, int>{
        .name = "block_buffers", .member = &StackConfig::block_buffers, .min = -1, .max = 1 << 16});

// netcode's protocol id for this layout: tokens for this server must carry it. With
// netcode_protocol_id_as_is it is config.protocol_id itself.
uint64_t stack_protocol_id(const MessageFactory& factory, const StackConfig& config);

// Per-slot (server) or per-connection (client) statistics, read at any time.
struct StackStats {
  double rtt_ms = 0.0;               // smoothed round-trip time (endpoint)
  double jitter_ms = 0.0;            // smoothed |RTT sample - RTT|
  double packet_loss_percent = 0.0;  // of packets old enough to have been acked
  double sent_kbps = 0.0;            // endpoint datagrams sent (+ IP/UDP header), smoothed
  double received_kbps = 0.0;        // endpoint datagrams received and accepted, smoothed
  double acked_kbps = 0.0;           // of packets the peer acked
  CongestionMode congestion_mode = CongestionMode::kBad;
  double congestion_send_rate = 0.0;    // packets per second the controller advises
  uint64_t packets_sent = 0;            // connection packets sent (endpoint)
  uint64_t packets_received = 0;        // connection packets accepted
  uint64_t payload_bytes_sent = 0;      // endpoint datagrams handed to netcode (before its header and MAC)
  uint64_t payload_bytes_received = 0;  // netcode payloads handed to the endpoint
  // Endpoint datagrams netcode did not send (larger than its payload, or the session not connected at the
  // time); a sanitized stack builds none too large.
  uint64_t payloads_refused = 0;
};

}  // namespace bitwire
