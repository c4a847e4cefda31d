// StackConfig checks and clamping: kStackConfigLimits, the nested configs' own, and the rule that the
// endpoint's datagrams fit netcode's payload.
#include "bitwire/stack/stack_config.hpp"

#include <algorithm>
#include <cstdio>

namespace bitwire {

namespace {

// The ack delay mode the stack runs with: on, unless the game turned it off (kOff). The endpoint's default,
// kWithEnvelope, would be off here (the stack turns the envelope off), and RTT samples would then include the
// time every ack waits for the peer's next packet: a tick or more at a game's send rates.
AckDelayMode stacked_ack_delay(AckDelayMode requested) {
  return requested == AckDelayMode::kOff ? AckDelayMode::kOff : AckDelayMode::kOn;
}

// The largest packet header the stack's endpoint writes: the reliable 1.0 header, plus the ack delay
// extension when it is on.
size_t stacked_header_bytes(const EndpointConfig& e) {
  return kMaxPacketHeaderBytes + (stacked_ack_delay(e.ack_delay) == AckDelayMode::kOn ? kAckDelayBytes : 0);
}

// A connection packet the endpoint sends whole (Connection::endpoint_config: up to 1200 bytes) must fit
// netcode's payload behind the endpoint's header: 1189 bytes with the ack delay, 1191 without.
int whole_packet_room(const EndpointConfig& e) {
  return static_cast<int>(netcode::kMaxPayloadBytes - stacked_header_bytes(e));
}

// A connection whose packets are at most 1200 bytes has every one sent whole (Connection::endpoint_config
// raises fragment_above to max_packet_size), and so has its peer, which runs the same config: its endpoint
// never reassembles a packet a well-behaved peer sent. Its packet and reassembly buffers are sized to that
// packet instead of the endpoint's 16 KiB default (32 reassembly slots of 16 KiB: 512 KiB of a 540 KiB
// endpoint); one slot of it is kept, so a fragmented packet from a hostile peer is refused by size, not
// by a missing buffer. Only lowers: nothing on the wire changes (a peer's whole packets are at most
// connection.max_packet_size, its fragments never came), nor the protocol id (the endpoint is not in it).
void size_endpoint_to_whole_packets(ConnectionConfig& connection) {
  EndpointConfig& e = connection.endpoint;
  if (e.max_packet_size <= connection.max_packet_size) return;
  e.max_packet_size = connection.max_packet_size;
  e.fragment_size = std::min(e.fragment_size, e.max_packet_size);
  e.max_fragments = (e.max_packet_size + e.fragment_size - 1) / e.fragment_size;
  e.fragment_above = std::min(e.fragment_above, e.max_packet_size);
  e.reassembly_slots = 1;
}

// The connection as the stack runs it: the forced fields of stack/stack_config.hpp applied (protocol id, envelope
// off, ack delay, and a connection packet sent whole no larger than netcode's payload holds).
// `size_endpoint` false: the endpoint as the game gave it (what the netcode fit rule judges).
ConnectionConfig stacked_connection(const StackConfig& c, bool size_endpoint = true) {
  ConnectionConfig connection = c.connection;
  connection.protocol_id = c.protocol_id;
  connection.endpoint.protocol_id = c.protocol_id;  // the Connection replaces it; the same value is legal
  connection.endpoint.envelope = false;
  connection.endpoint.ack_delay = stacked_ack_delay(connection.endpoint.ack_delay);
  const int room = whole_packet_room(connection.endpoint);
  if (connection.max_packet_size <= 1200 && connection.max_packet_size > room)
    connection.max_packet_size = room;
  if (size_endpoint && connection.max_packet_size <= 1200) size_endpoint_to_whole_packets(connection);
  return connection;
}

// The largest datagram the endpoint the Connection builds sends: a whole packet up to fragment_above bytes
// behind its largest header, or a fragment (its 5-byte header, a packet header, fragment_size bytes).
bool endpoint_fits_netcode(const StackConfig& c) {
  const EndpointConfig e = Connection::endpoint_config(stacked_connection(c, false).sanitized()).sanitized();
  const size_t header = stacked_header_bytes(e);
  const size_t whole = header + static_cast<size_t>(std::min(e.fragment_above, e.max_packet_size));
  const size_t fragment = kFragmentHeaderBytes + header + static_cast<size_t>(e.fragment_size);
  return whole <= netcode::kMaxPayloadBytes && fragment <= netcode::kMaxPayloadBytes;
}

void fit_endpoint_to_netcode(StackConfig& c) {
  EndpointConfig& e = c.connection.endpoint;
  const size_t header = stacked_header_bytes(e);
  const int room_fragment = static_cast<int>(netcode::kMaxPayloadBytes - kFragmentHeaderBytes - header);
  e.fragment_size = std::min(e.fragment_size, room_fragment);
  e.fragment_above = std::min(e.fragment_above, whole_packet_room(e));
  e = e.sanitized();  // max_packet_size must still fit max_fragments * fragment_size
}

netcode::ServerConfig stacked_server(const StackConfig& c) {
  netcode::ServerConfig server;
  static_cast<netcode::ServerSettings&>(server) = c.server;
  server.max_clients = c.max_clients;
  return server;
}

// A protocol id the stack sets, given as something else: refused, not overwritten.
ConfigCheck protocol_id_refusal(const char* field, uint64_t value, uint64_t protocol_id) {
  char out[kConfigReasonBytes];
  std::snprintf(out, sizeof out,
                "StackConfig.%s = %llu is not StackConfig.protocol_id = %llu (the stack sets it: leave it 0)",
                field, static_cast<unsigned long long>(value), static_cast<unsigned long long>(protocol_id));
  return ConfigCheck::failure(out);
}

// The smallest message package: one 1-byte type, no blocks. check() without a factory counts a slot for it
// (a lower bound: a real factory's larger types and block buffers only add).
struct SmallestMessage {
  static constexpr uint32_t kTypeId = 0;
  template <typename Stream>
  bool serialize(Stream&) {
    return true;
  }
};
constexpr MessageTypeInfo kSmallestTypes[] = {describe_message<SmallestMessage>("SmallestMessage")};
constexpr MessageFactory kSmallestFactory{kSmallestTypes};

// The arena's buffer count and size for `c` (its nested configs in range); 0 buffers without block types or
// with block_buffers = -1 (the default: each slot owns its buffers). block_buffers = 0 sizes the arena at
// one buffer per slot and one slot's block_pool_size more (a block to or from every client at once, e.g. a
// level sent at connect, with a slot's receive reserve left over), at most kDefaultBlockArenaBytes of
// buffers: with the cap 4,096 slots and their arena fit the server's cap with at most 1,000,000 bytes a
// slot, its share of the arena counted in (docs/client-server.md section 2).
int arena_buffers(const StackConfig& c, const MessageFactory& factory, size_t* buffer_size = nullptr) {
  const MessagePoolConfig pool = c.connection.message_pool_config(factory.any_block_type(), true);
  if (buffer_size != nullptr) *buffer_size = static_cast<size_t>(std::max(pool.max_block_size, 1));
  if (pool.block_count == 0 || c.block_buffers < 0) return 0;
  const size_t per_buffer = static_cast<size_t>(std::max(pool.max_block_size, 1));
  const int by_default = static_cast<int>(
      std::min<size_t>(static_cast<size_t>(c.max_clients) + static_cast<size_t>(pool.block_count),
                       kDefaultBlockArenaBytes / per_buffer));
  const int declared = c.block_buffers > 0 ? c.block_buffers : by_default;
  const size_t most = kMaxBlockPoolBytes / static_cast<size_t>(std::max(pool.max_block_size, 1));
  return static_cast<int>(std::min<size_t>(static_cast<size_t>(std::max(declared, pool.block_count)), most));
}

// The bytes of one server slot of `c` (its nested configs in range) for `factory`: the Connection (message
// pool, channel queues, incoming packet and its Endpoint as the stack runs it: envelope off, ack delay as
// stacked) and the netcode slot. With a shared arena (block_buffers >= 0) a slot's block buffers are the
// arena's (arena_bytes), not the slot's; without one each slot's pool owns its own.
size_t slot_bytes(const StackConfig& c, const MessageFactory& factory = kSmallestFactory) {
  return Connection::memory_required(factory, stacked_connection(c), arena_buffers(c, factory) > 0) +
         netcode::Server::memory_per_slot(stacked_server(c));
}

size_t arena_bytes(const StackConfig& c, const MessageFactory& factory) {
  size_t size = 0;
  const int count = arena_buffers(c, factory, &size);
  return BlockArena::memory_required(count, size);
}

// A declared arena within kMaxBlockPoolBytes, its buffers as large as the connection's largest block (the
// connection already checked or sanitized, so its channels can be read).
size_t declared_buffer_size(const StackConfig& c) {
  return static_cast<size_t>(std::max(c.connection.message_pool_config(true).max_block_size, 1));
}

// A sized arena (0) is clamped to the cap where it is resolved (arena_buffers); -1 declares none.
bool declared_arena_fits(const StackConfig& c) {
  return c.block_buffers <= 0 ||
         static_cast<size_t>(c.block_buffers) <= kMaxBlockPoolBytes / declared_buffer_size(c);
}

ConfigCheck declared_arena_refusal(const StackConfig& c) {
  char out[kConfigReasonBytes];
  std::snprintf(
      out, sizeof out,
      "StackConfig.block_buffers = %d: buffers of %zu bytes pass the %zu MiB cap (kMaxBlockPoolBytes)",
      c.block_buffers, declared_buffer_size(c), kMaxBlockPoolBytes >> 20);
  return ConfigCheck::failure(out);
}

bool memory_fits(const StackConfig& c, const MessageFactory& factory = kSmallestFactory) {
  return static_cast<size_t>(c.max_clients) * slot_bytes(c, factory) + arena_bytes(c, factory) <=
         kMaxStackServerMemoryBytes;
}

// max_clients lowered until the slots and the arena fit (the arena at most 1 GiB: kMaxBlockPoolBytes). The
// sized arena (block_buffers = 0) shrinks with max_clients, so the arena counted for the larger count
// leaves room to spare.
void fit_memory(StackConfig& c, const MessageFactory& factory) {
  const size_t arena = arena_bytes(c, factory);
  c.max_clients =
      static_cast<int>(std::max<size_t>((kMaxStackServerMemoryBytes - arena) / slot_bytes(c, factory), 1));
}

ConfigCheck memory_refusal(const StackConfig& c, const MessageFactory& factory) {
  char out[kConfigReasonBytes];
  std::snprintf(out, kConfigReasonBytes,
                "StackConfig.max_clients = %d: %d slots of %zu bytes (connection: message pool, channels, "
                "endpoint; netcode slot) and %zu bytes of shared block buffers pass the server's %zu MiB cap "
                "(kMaxStackServerMemoryBytes)",
                c.max_clients, c.max_clients, slot_bytes(c, factory), arena_bytes(c, factory),
                kMaxStackServerMemoryBytes >> 20);
  return ConfigCheck::failure(out);
}

constexpr const char* kFitsNetcodeReason =
    "StackConfig.connection.endpoint: fragment_above and fragment_size must fit netcode's 1200-byte payload "
    "with the ack delay extension (fragment_size <= 1184, fragment_above <= 1189; with ack_delay = kOff "
    "1186 and 1191)";

}  // namespace

ConfigCheck StackConfig::check() const {
  if (ConfigCheck own = check_config("StackConfig", *this, kStackConfigLimits); !own) return own;
  if (connection.protocol_id != 0 && connection.protocol_id != protocol_id) {
    return protocol_id_refusal("connection.protocol_id", connection.protocol_id, protocol_id);
  }
  if (connection.endpoint.protocol_id != 0 && connection.endpoint.protocol_id != protocol_id) {
    return protocol_id_refusal("connection.endpoint.protocol_id", connection.endpoint.protocol_id,
                               protocol_id);
  }
  if (const ConfigCheck problem = connection.check(); !problem) {
    return config_part_check("StackConfig.connection", problem);
  }
  if (const ConfigCheck problem = stacked_server(*this).check(); !problem) {
    return config_part_check("StackConfig.server", problem);
  }
  if (const ConfigCheck problem = client.check(); !problem) {
    return config_part_check("StackConfig.client", problem);
  }
  if (const ConfigCheck problem = congestion.check(); !problem) {
    return config_part_check("StackConfig.congestion", problem);
  }
  if (!endpoint_fits_netcode(*this)) return ConfigCheck::failure(kFitsNetcodeReason);
  if (!declared_arena_fits(*this)) return declared_arena_refusal(*this);
  if (!memory_fits(*this)) return memory_refusal(*this, kSmallestFactory);
  return {};
}

StackConfig StackConfig::sanitized() const {
  StackConfig c = sanitize_config(*this, kStackConfigLimits);
  c.connection = c.connection.sanitized();
  c.server = stacked_server(c).sanitized();
  c.client = c.client.sanitized();
  c.congestion = c.congestion.sanitized();
  if (!endpoint_fits_netcode(c)) fit_endpoint_to_netcode(c);
  if (!declared_arena_fits(c))
    c.block_buffers = static_cast<int>(kMaxBlockPoolBytes / declared_buffer_size(c));
  // Fewer slots, never smaller ones: a slot's size is what the game asked each connection to hold. One slot
  // always fits (the endpoint's own cap is 64 MiB, the netcode slot's a few MiB at most).
  if (!memory_fits(c)) fit_memory(c, kSmallestFactory);
  c.connection = stacked_connection(c);
  return c;
}

// check() counted the slots for the smallest factory; `factory`'s can only be larger.
ConfigCheck StackConfig::check(const MessageFactory& factory) const {
  if (ConfigCheck own = check(); !own) return own;
  // The message pool's own check for the factory's sizes (its budget against the receive reserve and the
  // caps), so a slot's pool that would be refused is refused here, before the server builds any slot. A
  // factory that fails its own check is refused by the Client and Server with that reason.
  if (factory.check()) {
    const MessagePoolConfig pool =
        connection.message_pool_config(factory.any_block_type(), block_buffers >= 0);
    if (const ConfigCheck problem = pool.check(factory); !problem) {
      return config_part_check("StackConfig.connection: ConnectionConfig.messages", problem);
    }
  }
  if (!memory_fits(*this, factory)) return memory_refusal(*this, factory);
  return {};
}

StackConfig StackConfig::sanitized(const MessageFactory& factory) const {
  StackConfig c = sanitized();
  if (!memory_fits(c, factory)) fit_memory(c, factory);
  return c;
}

size_t stack_slot_memory(const StackConfig& config, const MessageFactory& factory) {
  return slot_bytes(config.sanitized(factory), factory);
}

size_t stack_slot_memory(const StackConfig& config) { return stack_slot_memory(config, kSmallestFactory); }

int stack_block_buffers(const StackConfig& config, const MessageFactory& factory) {
  return arena_buffers(config.sanitized(factory), factory);
}

size_t stack_block_arena_memory(const StackConfig& config, const MessageFactory& factory) {
  return arena_bytes(config.sanitized(factory), factory);
}

uint64_t stack_protocol_id(const MessageFactory& factory, const StackConfig& config) {
  if (config.netcode_protocol_id_as_is) return config.protocol_id;
  const StackConfig c = config.sanitized();
  const uint64_t id = Connection::protocol_id(factory, c.connection);
  // Both ends must agree on the ack delay extension (a header with it is refused by an end without it): a
  // stack that turned it off has another id, so the mismatch is refused at connect time. The default (on)
  // keeps the connection's id.
  constexpr uint64_t kAckDelayOff = 0x61636b64656c6179ull;  // "ackdelay"
  return c.connection.endpoint.ack_delay == AckDelayMode::kOff ? id ^ kAckDelayOff : id;
}

// yojimbo's ClientServerConfig defaults, field by field (yojimbo_config.h); docs/interop.md has the table.
StackConfig StackConfig::yojimbo_compatible(uint64_t yojimbo_protocol_id) {
  StackConfig c;
  c.protocol_id = yojimbo_protocol_id;
  c.netcode_protocol_id_as_is = true;
  ConnectionConfig& connection = c.connection;
  connection.max_packet_size = 8 * 1024;  // maxPacketSize
  connection.channel_count = 2;           // numChannels
  for (int i = 0; i < connection.channel_count; ++i) {
    // ChannelConfig(): reliable-ordered (channel 1 too: yojimbo sets only channel 0's type, to the same).
    ChannelConfig& channel = connection.channels[static_cast<size_t>(i)];
    channel.type = ChannelType::kReliableOrdered;
    channel.disable_blocks = false;
    channel.max_messages_per_packet = 256;
    channel.max_block_size = 256 * 1024;
    channel.block_fragment_size = 1024;
    channel.send_queue_size = 1024;
    channel.receive_queue_size = 1024;
    channel.sent_packets_buffer_size = 1024;
    channel.packet_budget_bytes = 0;  // packetBudget -1: the rest of the packet
    channel.message_resend_time = 0.1;
    channel.message_resend_rtt_factor = 0.0;  // yojimbo resends after a fixed messageResendTime
  }
  EndpointConfig& endpoint = connection.endpoint;
  endpoint.ack_delay = AckDelayMode::kOff;  // reliable 1.0 has no extension
  endpoint.fragment_above = 1024;           // fragmentPacketsAbove
  endpoint.fragment_size = 1024;            // packetFragmentSize
  endpoint.max_packet_size = 8 * 1024;      // the reliable endpoint's max_packet_size is maxPacketSize
  endpoint.max_fragments = 8;               // maxPacketFragments: ceil(maxPacketSize / packetFragmentSize)
  return c;
}

}  // namespace bitwire
