// netcode::Server: slots, connection requests and responses, keep-alives, timeouts, disconnects.
#include "bitwire/netcode/server.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <vector>

#include "address_map.hpp"
#include "bitwire/core/log.hpp"
#include "bitwire/core/monotonic_time.hpp"

namespace bitwire::netcode {

namespace {

// Pending mappings of tokens that disable the timeout still expire after this long.
constexpr double kPendingLifetimeWithoutTimeout = 10.0;
// The pending table has at least this many entries whatever max_clients is, and the token history twice as
// many: a few tokens cannot fill the table of a small server, and a token's first use is remembered for as
// long as it could hold an entry.
constexpr int kMinPendingEntries = 256;
constexpr int kMinTokenEntries = 2 * kMinPendingEntries;
constexpr uint64_t kGlobalSequenceStart = uint64_t{1} << 63;
// Datagrams taken from the transport per call (one recvmmsg on a UdpTransport).
constexpr size_t kReceiveBatch = 64;

}  // namespace

ConfigCheck ServerConfig::check() const {
  return check_config("ServerConfig", *this, kServerConfigLimits);
}

ServerConfig ServerConfig::sanitized() const {
  return sanitize_config(*this, kServerConfigLimits);
}

namespace {

// A sanitized config with its "0: ..." defaults replaced by what they stand for (what the server runs).
ServerConfig resolved(const ServerConfig& requested) {
  ServerConfig c = requested.sanitized();
  if (c.event_queue_size == 0) c.event_queue_size = 2 * c.max_clients + 16;
  if (c.max_receive_per_update == 0) c.max_receive_per_update = 64 * c.max_clients;
  return c;
}

int pending_capacity(const ServerConfig& c) {
  return std::max(c.max_clients * c.pending_per_slot, kMinPendingEntries);
}

int token_capacity(const ServerConfig& c) {
  return std::max(c.max_clients * c.token_history_per_slot, kMinTokenEntries);
}

// How long a token may hold a pending mapping, counted from its first request.
double pending_lifetime(int32_t timeout_seconds) {
  return timeout_seconds >= 0 ? timeout_seconds : kPendingLifetimeWithoutTimeout;
}

}  // namespace

const char* to_string(DisconnectReason reason) {
  switch (reason) {
    case DisconnectReason::kNone: return "none";
    case DisconnectReason::kTimedOut: return "timed out";
    case DisconnectReason::kClientDisconnected: return "client disconnected";
    case DisconnectReason::kServerDisconnected: return "server disconnected the client";
    case DisconnectReason::kServerStopped: return "server stopped";
  }
  return "unknown";
}

// The fields every update reads for every slot come first: its walk for keep-alives and timeouts reads the
// first 24 bytes (one cache line for three slots in four on x86-64, where a slot is 2,544 bytes and its
// offset within a line cycles through 0, 16, 32 and 48), then is_connected, session and the payload queue
// read the rest of the first 56 bytes. Reordered, not padded: a slot's size (memory_per_slot) is unchanged.
struct Slot {
  bool connected = false;
  bool confirmed = false;
  int32_t timeout_seconds = 0;
  double last_send = 0.0;
  double last_receive = 0.0;
  int queue_head = 0;
  int queue_count = 0;
  uint64_t session = 0;  // this connection's id, unique for the server's life; 0 when free
  uint64_t client_id = 0;
  uint64_t send_sequence = 0;
  Address address;
  Key send_key{};
  Key receive_key{};
  ReplayProtection replay;
  UserData user_data{};
  SlotStats stats;
};
static_assert(offsetof(Slot, last_receive) + sizeof(double) <= 24, "the walk's fields in the first 24 bytes");

struct Pending {
  bool in_use = false;
  Address address;
  Key send_key{};
  Key receive_key{};
  int32_t timeout_seconds = 0;
  double expire_time = 0.0;  // the token's first request plus its pending lifetime; never extended
  double last_access = 0.0;
  std::array<std::byte, kMacBytes> token_mac{};  // which token the keys and expire_time belong to
};

// How the most recent session of a slot ended (kept across the next connect).
struct EndedSession {
  uint64_t session = 0;
  DisconnectReason reason = DisconnectReason::kNone;
};

struct TokenEntry {
  double time = -1e9;
  std::array<std::byte, kMacBytes> mac{};
  Address address;
};

struct Server::State {
  explicit State(const ServerConfig& c)
      : slots(static_cast<size_t>(c.max_clients)),
        ended(static_cast<size_t>(c.max_clients)),
        pending(static_cast<size_t>(pending_capacity(c))),
        tokens(static_cast<size_t>(token_capacity(c))),
        events(static_cast<size_t>(c.event_queue_size)),
        payload_entries(static_cast<size_t>(c.max_clients) * static_cast<size_t>(c.payload_queue_per_slot) *
                        kPayloadEntryBytes),
        slot_by_address(static_cast<size_t>(c.max_clients)),
        pending_by_address(static_cast<size_t>(pending_capacity(c))) {}

  std::vector<Slot> slots;
  std::vector<EndedSession> ended;
  uint64_t next_session = 1;
  std::vector<Pending> pending;
  int pending_count = 0;
  std::vector<TokenEntry> tokens;
  std::vector<ServerEvent> events;
  size_t event_head = 0;
  size_t event_count = 0;
  // Each queued payload's entry: its arrival time (when its datagram was received), sequence and size,
  // then its bytes. Together, queuing or reading a short payload touches one or two cache lines, where
  // three arrays beside the bytes would add a line each.
  static constexpr size_t kPayloadArrival = 0;
  static constexpr size_t kPayloadSequence = sizeof(double);
  static constexpr size_t kPayloadSize = kPayloadSequence + sizeof(uint64_t);
  static constexpr size_t kPayloadBody = kPayloadSize + sizeof(uint16_t);
  static constexpr size_t kPayloadEntryBytes = kPayloadBody + kMaxPayloadBytes;
  static_assert(kPayloadEntryBytes == kMaxPayloadBytes + sizeof(uint16_t) + sizeof(uint64_t) + sizeof(double),
                "the queue's bytes per entry, which memory_per_slot() counts (kQueueEntryBytes)");
  std::vector<std::byte> payload_entries;
  std::byte* payload_entry(size_t entry) { return payload_entries.data() + entry * kPayloadEntryBytes; }
  static uint16_t payload_size(const std::byte* entry) {
    uint16_t size = 0;
    std::memcpy(&size, entry + kPayloadSize, sizeof size);
    return size;
  }
  detail::AddressMap slot_by_address;
  detail::AddressMap pending_by_address;
  Key challenge_key{};
  uint64_t challenge_sequence = 0;
  uint64_t global_sequence = kGlobalSequenceStart;
  double now = 0.0;
  uint64_t unix_now = 0;
  size_t reply_budget = 0;  // bytes a reply to the datagram being processed may have (0: no reply allowed)
  std::vector<std::byte> receive_buffers = std::vector<std::byte>(kReceiveBatch * kReceiveBufferBytes);
  std::array<size_t, kReceiveBatch> receive_sizes{};
  std::array<Address, kReceiveBatch> receive_from{};
  std::array<double, kReceiveBatch> receive_arrivals{};
  double arrival = 0.0;  // the arrival time of the datagram being processed (<= now)
  std::array<std::byte, kReceiveBufferBytes> send_buffer{};
  std::array<std::byte, kMaxPayloadBytes> body{};
};

// Everything the server does, as free functions over its state (kept out of the header).
struct ServerInternals {
  Server& s;
  Server::State& st;

  void push_event(const ServerEvent& event) {
    if (st.events.empty()) return;
    if (st.event_count == st.events.size()) {
      st.event_head = (st.event_head + 1) % st.events.size();
      --st.event_count;
      ++s.events_dropped_;
    }
    st.events[(st.event_head + st.event_count) % st.events.size()] = event;
    ++st.event_count;
  }

  // A reply to the datagram being processed (challenge or denied): never larger than that datagram.
  // Where the next packet is sealed: the transport's own room when it has one (no copy on the way to the
  // socket), else the server's buffer.
  std::span<std::byte> packet_room() {
    const std::span<std::byte> room = s.transport_.send_room();
    return room.size() >= kMaxPacketBytes ? room : std::span<std::byte>(st.send_buffer);
  }

  void send_packet(const Address& to, std::span<std::byte> room, size_t size) {
    if (room.data() == st.send_buffer.data()) {
      s.transport_.send(to, room.first(size));
    } else {
      s.transport_.send_written(to, size);
    }
  }

  void send_reply(const Address& to, PacketType type, std::span<const std::byte> body, const Key& key) {
    const std::span<std::byte> room = packet_room();
    const size_t size =
        write_encrypted_packet(type, st.global_sequence++, body, s.config_.protocol_id, key, room);
    if (size > st.reply_budget) {
      ++s.amplification_violations_;
      return;
    }
    st.reply_budget = 0;  // one reply per datagram
    send_packet(to, room, size);
  }

  void send_to_slot(int index, PacketType type, std::span<const std::byte> body) {
    Slot& slot = st.slots[static_cast<size_t>(index)];
    const std::span<std::byte> room = packet_room();
    const size_t size =
        write_encrypted_packet(type, slot.send_sequence++, body, s.config_.protocol_id, slot.send_key, room);
    send_packet(slot.address, room, size);
    slot.last_send = st.now;
    ++slot.stats.packets_sent;
    slot.stats.bytes_sent += size;
  }

  void send_keep_alive(int index) {
    std::array<std::byte, kKeepAliveBodyBytes> body{};
    write_keep_alive_body(static_cast<uint32_t>(index), static_cast<uint32_t>(s.config_.max_clients), body);
    send_to_slot(index, PacketType::kKeepAlive, body);
    ++st.slots[static_cast<size_t>(index)].stats.keep_alives_sent;
  }

  int find_client_id(uint64_t client_id) const {
    for (size_t i = 0; i < st.slots.size(); ++i) {
      if (st.slots[i].connected && st.slots[i].client_id == client_id) return static_cast<int>(i);
    }
    return -1;
  }

  // The token-entry history: the entry of this token MAC when it is new (remembered now, its first use) or
  // was used from `from` before; -1 when it was used from another address.
  int token_entry(std::span<const std::byte, kMacBytes> mac, const Address& from) {
    // Visits every entry whatever matches, so the time taken says nothing about the history.
    int match = -1, oldest = 0;
    for (size_t i = 0; i < st.tokens.size(); ++i) {
      if (std::memcmp(st.tokens[i].mac.data(), mac.data(), kMacBytes) == 0) match = static_cast<int>(i);
      if (st.tokens[i].time < st.tokens[static_cast<size_t>(oldest)].time) oldest = static_cast<int>(i);
    }
    if (match < 0) {
      TokenEntry& e = st.tokens[static_cast<size_t>(oldest)];
      e.time = st.now;
      std::memcpy(e.mac.data(), mac.data(), kMacBytes);
      e.address = from;
      return oldest;
    }
    return st.tokens[static_cast<size_t>(match)].address == from ? match : -1;
  }

  void remove_pending(int index) {
    Pending& p = st.pending[static_cast<size_t>(index)];
    if (!p.in_use) return;
    st.pending_by_address.erase(p.address);
    p = Pending{};
    --st.pending_count;
  }

  // Maps `from` to the token's keys until `deadline` (the token's first request plus its pending lifetime):
  // a repeated request of the same token (same `mac`) refreshes the idle timer but never the deadline, so a
  // token holds an entry for a bounded time however often it is re-sent. Another token from the address
  // replaces the keys, and with them the deadline: the entry then lasts that token's lifetime.
  bool add_pending(const Address& from, const ConnectTokenPrivate& token,
                   const std::array<std::byte, kMacBytes>& mac, double deadline) {
    int index = st.pending_by_address.find(from);
    if (index < 0) {
      if (st.pending_count == static_cast<int>(st.pending.size())) return false;
      for (size_t i = 0; i < st.pending.size(); ++i) {
        if (!st.pending[i].in_use) {
          index = static_cast<int>(i);
          break;
        }
      }
      ++st.pending_count;
      st.pending_by_address.insert(from, index);
    }
    Pending& p = st.pending[static_cast<size_t>(index)];
    const bool same_token = p.in_use && p.token_mac == mac;
    p.expire_time = same_token ? std::min(p.expire_time, deadline) : deadline;
    p.token_mac = mac;
    p.in_use = true;
    p.address = from;
    p.send_key = token.server_to_client_key;
    p.receive_key = token.client_to_server_key;
    p.timeout_seconds = token.timeout_seconds;
    p.last_access = st.now;
    return true;
  }

  void process_request(const Address& from, std::span<std::byte> datagram) {
    RequestPacket request;
    const PacketError error = read_request_packet(datagram, s.config_.protocol_id, st.unix_now, request);
    if (error != PacketError::kNone) return s.drop(error);
    std::array<std::byte, kMacBytes> mac{};
    std::memcpy(mac.data(), request.private_data.data() + kConnectTokenPrivateBytes - kMacBytes, kMacBytes);
    TokenNonce nonce;
    std::memcpy(nonce.data(), request.nonce.data(), nonce.size());
    if (!decrypt_connect_token_private(request.private_data, s.config_.protocol_id, request.expire_timestamp, nonce,
                                       s.config_.private_key)) {
      return s.drop(PacketError::kRequestTokenDecryptFailed);
    }
    ConnectTokenPrivate token;
    if (!read_connect_token_private(request.private_data, token)) return s.drop(PacketError::kRequestTokenUnreadable);
    bool listed = false;
    for (int i = 0; i < token.server_addresses.count; ++i) {
      if (token.server_addresses.items[i] == s.public_address_) listed = true;
    }
    if (!listed) return s.drop(PacketError::kRequestServerNotInToken);
    if (st.slot_by_address.find(from) >= 0) return s.drop(PacketError::kRequestAddressConnected);
    if (find_client_id(token.client_id) >= 0) return s.drop(PacketError::kRequestClientIdConnected);
    const int entry = token_entry(mac, from);
    if (entry < 0) return s.drop(PacketError::kRequestTokenReused);
    if (s.connected_count_ == s.config_.max_clients) {
      ++s.denied_sent_;
      log_denied(from, token.client_id);
      return send_reply(from, PacketType::kConnectionDenied, {}, token.server_to_client_key);
    }
    const double deadline =
        st.tokens[static_cast<size_t>(entry)].time + pending_lifetime(token.timeout_seconds);
    if (deadline < st.now) return s.drop(PacketError::kRequestPendingExpired);
    if (!add_pending(from, token, mac, deadline)) return s.drop(PacketError::kRequestNoMapping);
    ChallengeToken challenge;
    challenge.client_id = token.client_id;
    challenge.user_data = token.user_data;
    std::array<std::byte, kChallengeTokenBytes> sealed{};
    seal_challenge_token(challenge, st.challenge_sequence, st.challenge_key, sealed);
    write_challenge_body(st.challenge_sequence, sealed, st.body);
    ++st.challenge_sequence;
    ++s.challenges_sent_;
    send_reply(from, PacketType::kConnectionChallenge, std::span(st.body).first<kChallengeBodyBytes>(),
               token.server_to_client_key);
  }

  void log_denied(const Address& from, uint64_t client_id) const {
    if (!log_enabled(LogLevel::kWarning)) return;
    char address[kMaxAddressText];
    from.print(address);
    BITWIRE_LOG(LogLevel::kWarning, "netcode server: denied client id %llu from %s: all %d slots are in use",
                static_cast<unsigned long long>(client_id), address, s.config_.max_clients);
  }

  void log_slot(LogLevel level, int index, const char* what) const {
    if (!log_enabled(level)) return;
    const Slot& slot = st.slots[static_cast<size_t>(index)];
    char address[kMaxAddressText];
    slot.address.print(address);
    BITWIRE_LOG(level, "netcode server: slot %d (client id %llu, %s): %s", index,
                static_cast<unsigned long long>(slot.client_id), address, what);
  }

  void connect_slot(int index, int pending_index, const ChallengeToken& challenge) {
    Pending& p = st.pending[static_cast<size_t>(pending_index)];
    Slot& slot = st.slots[static_cast<size_t>(index)];
    const SlotStats fresh{};
    slot = Slot{};
    slot.stats = fresh;
    slot.connected = true;
    slot.confirmed = false;
    slot.session = st.next_session++;
    slot.client_id = challenge.client_id;
    slot.address = p.address;
    slot.send_key = p.send_key;
    slot.receive_key = p.receive_key;
    slot.timeout_seconds = p.timeout_seconds;
    slot.last_send = st.now;
    slot.last_receive = st.now;
    slot.user_data = challenge.user_data;
    remove_pending(pending_index);
    st.slot_by_address.insert(slot.address, index);
    ++s.connected_count_;
    ++s.session_changes_;
    push_event({ServerEvent::Kind::kConnected, index, slot.client_id, DisconnectReason::kNone, slot.session});
    log_slot(LogLevel::kInfo, index, "connected");
    send_keep_alive(index);
  }

  void process_response(const Address& from, int pending_index, const EncryptedPacket& packet) {
    uint64_t challenge_sequence = 0;
    std::span<const std::byte> sealed;
    read_challenge_body(packet.body, challenge_sequence, sealed);
    ChallengeToken challenge;
    if (!open_challenge_token(sealed, challenge_sequence, st.challenge_key, challenge)) {
      return s.drop(PacketError::kChallengeTokenInvalid);
    }
    if (pending_index < 0 || st.slot_by_address.find(from) >= 0) {
      return s.drop(PacketError::kResponseAddressConnected);
    }
    if (find_client_id(challenge.client_id) >= 0) return s.drop(PacketError::kResponseClientIdConnected);
    if (s.connected_count_ == s.config_.max_clients) {
      ++s.denied_sent_;
      log_denied(from, challenge.client_id);
      return send_reply(from, PacketType::kConnectionDenied, {},
                        st.pending[static_cast<size_t>(pending_index)].send_key);
    }
    int free_slot = -1;
    for (size_t i = 0; i < st.slots.size(); ++i) {
      if (!st.slots[i].connected) {
        free_slot = static_cast<int>(i);
        break;
      }
    }
    connect_slot(free_slot, pending_index, challenge);
  }

  void free_slot(int index, DisconnectReason reason, bool send_disconnects) {
    Slot& slot = st.slots[static_cast<size_t>(index)];
    if (!slot.connected) return;
    if (send_disconnects) {
      for (int i = 0; i < s.config_.disconnect_packets; ++i) send_to_slot(index, PacketType::kDisconnect, {});
    }
    push_event({ServerEvent::Kind::kDisconnected, index, slot.client_id, reason, slot.session});
    st.ended[static_cast<size_t>(index)] = EndedSession{slot.session, reason};
    log_slot(reason == DisconnectReason::kTimedOut ? LogLevel::kWarning : LogLevel::kInfo, index,
             to_string(reason));
    st.slot_by_address.erase(slot.address);
    slot.connected = false;
    slot.session = 0;
    slot.confirmed = false;
    slot.queue_head = slot.queue_count = 0;
    slot.address = Address();
    slot.send_key = {};
    slot.receive_key = {};
    --s.connected_count_;
    ++s.session_changes_;
  }

  void process_encrypted(const Address& from, std::span<std::byte> datagram) {
    constexpr TypeMask kAllowed = type_bit(PacketType::kConnectionResponse) | type_bit(PacketType::kKeepAlive) |
                                  type_bit(PacketType::kPayload) | type_bit(PacketType::kDisconnect);
    const int slot_index = st.slot_by_address.find(from);
    const int pending_index = slot_index >= 0 ? -1 : st.pending_by_address.find(from);
    if (slot_index < 0 && pending_index < 0) return s.drop(PacketError::kNoKey);
    Slot* slot = slot_index >= 0 ? &st.slots[static_cast<size_t>(slot_index)] : nullptr;
    const Key& key = slot ? slot->receive_key : st.pending[static_cast<size_t>(pending_index)].receive_key;
    EncryptedPacket packet;
    const PacketError error = read_encrypted_packet(datagram, s.config_.protocol_id, key, kAllowed,
                                                    slot ? &slot->replay : nullptr, packet);
    if (error != PacketError::kNone) {
      if (slot && error == PacketError::kReplayed) ++slot->stats.replayed;
      if (slot && error == PacketError::kDecryptFailed) ++slot->stats.decrypt_failed;
      return s.drop(error);
    }
    if (!slot) st.pending[static_cast<size_t>(pending_index)].last_access = st.now;
    if (packet.type == PacketType::kConnectionResponse) {
      st.reply_budget = datagram.size();
      return process_response(from, pending_index, packet);
    }
    if (!slot) return s.drop(PacketError::kNotConnected);
    ++slot->stats.packets_received;
    slot->stats.bytes_received += datagram.size();
    switch (packet.type) {
      case PacketType::kKeepAlive:
        ++slot->stats.keep_alives_received;
        slot->confirmed = true;
        slot->last_receive = st.now;
        break;
      case PacketType::kPayload: {
        slot->confirmed = true;
        slot->last_receive = st.now;
        ++slot->stats.payloads_received;
        const int queue = s.config_.payload_queue_per_slot;
        if (slot->queue_count == queue) {
          ++slot->stats.payloads_dropped_queue_full;
          break;
        }
        const size_t entry = static_cast<size_t>(slot_index * queue + (slot->queue_head + slot->queue_count) % queue);
        std::byte* at = st.payload_entry(entry);
        const auto size = static_cast<uint16_t>(packet.body.size());
        std::memcpy(at + Server::State::kPayloadArrival, &st.arrival, sizeof st.arrival);
        std::memcpy(at + Server::State::kPayloadSequence, &packet.sequence, sizeof packet.sequence);
        std::memcpy(at + Server::State::kPayloadSize, &size, sizeof size);
        std::memcpy(at + Server::State::kPayloadBody, packet.body.data(), packet.body.size());
        ++slot->queue_count;
        break;
      }
      case PacketType::kDisconnect:
        free_slot(slot_index, DisconnectReason::kClientDisconnected, false);
        break;
      default:
        break;
    }
  }
};

Server::Server(const ServerConfig& config, Transport& transport, const Address& public_address)
    : config_(resolved(config)), transport_(transport), public_address_(public_address) {
  if (const ConfigCheck problem = config.check(); !problem) {
    error_ = keep_config_reason(error_text_, problem);
    return;
  }
  if (public_address.is_none() || public_address.port() == 0) {
    error_ = "the public address must be a real address with a port";
    return;
  }
  if (!crypto_init()) {
    error_ = "libsodium failed to initialise";
    return;
  }
  state_ = std::make_unique<State>(config_);
  state_->challenge_key = random_key();
  memory_bytes_ = sizeof(Server) + sizeof(State) +
                  state_->slots.size() * (sizeof(Slot) + sizeof(EndedSession)) +
                  state_->pending.size() * sizeof(Pending) + state_->tokens.size() * sizeof(TokenEntry) +
                  state_->events.size() * sizeof(ServerEvent) + state_->payload_entries.size() +
                  state_->slot_by_address.memory_bytes() + state_->pending_by_address.memory_bytes() +
                  state_->receive_buffers.size();
}

Server::~Server() = default;

namespace {

// Bytes of one slot for a config whose fields are in range (not sanitized here: the table's memory cap
// calls this while sanitizing). The payload queue is the only term that grows per queued entry.
constexpr size_t kQueueEntryBytes = kMaxPayloadBytes + sizeof(uint16_t) + sizeof(uint64_t) + sizeof(double);
size_t slot_bytes_without_queue(const ServerConfig& c) {
  return sizeof(Slot) + sizeof(EndedSession) + static_cast<size_t>(c.pending_per_slot) * sizeof(Pending) +
         static_cast<size_t>(c.token_history_per_slot) * sizeof(TokenEntry) + 2 * sizeof(ServerEvent) +
         4 * (sizeof(Address) + sizeof(int)) * (1 + static_cast<size_t>(c.pending_per_slot));
}

}  // namespace

size_t Server::memory_per_slot(const ServerConfig& requested) {
  const ServerConfig c = requested.sanitized();
  return slot_bytes_without_queue(c) + static_cast<size_t>(c.payload_queue_per_slot) * kQueueEntryBytes;
}

int server_max_payload_queue(const ServerConfig& config) {
  const size_t per_slot = kMaxServerMemoryBytes / static_cast<size_t>(std::max(config.max_clients, 1));
  const size_t fixed = slot_bytes_without_queue(config);
  // At least one entry: with every field at its maximum a slot's fixed part is far below 512 MiB / 4096.
  if (per_slot <= fixed + kQueueEntryBytes) return 1;
  return static_cast<int>(std::min<size_t>((per_slot - fixed) / kQueueEntryBytes, 1 << 30));
}

void Server::update(double now, uint64_t unix_now) {
  if (!state_) return;
  State& st = *state_;
  ServerInternals in{*this, st};
  const TransportBatch batch(transport_);  // replies and keep-alives leave together at the end
  if (!valid_time(now)) {
    ++time_invalid_;  // refused: a NaN taken as a packet's arrival time would keep its slot from timing out
    now = st.now;
  }
  st.now = now;
  st.unix_now = unix_now;
  int budget = config_.max_receive_per_update;
  while (budget > 0) {
    const size_t want = std::min<size_t>(static_cast<size_t>(budget), kReceiveBatch);
    // Unknown until the transport says: an entry it leaves unwritten is read as now, never as the time
    // the previous batch's datagram in that entry arrived.
    std::fill_n(st.receive_arrivals.begin(), want, std::numeric_limits<double>::quiet_NaN());
    const size_t got = transport_.receive_many(std::span(st.receive_buffers),
                                               kReceiveBufferBytes, want, st.receive_sizes.data(),
                                               st.receive_from.data(), st.receive_arrivals.data());
    for (size_t i = 0; i < got; ++i) {
      if (st.receive_sizes[i] == 0) {
        drop(PacketError::kOversized);
        continue;
      }
      process_datagram(st.receive_from[i],
                       std::span(st.receive_buffers).subspan(i * kReceiveBufferBytes, st.receive_sizes[i]),
                       st.receive_arrivals[i]);
    }
    budget -= static_cast<int>(got);
    if (got < want) break;
  }
  // One walk over the slots: a slot's keep-alive (when due), then its timeout. Each slot's packets leave
  // in that order, as they would from two walks; only the interleaving between slots differs.
  for (int i = 0; i < config_.max_clients; ++i) {
    const Slot& slot = st.slots[static_cast<size_t>(i)];
    if (!slot.connected) continue;
    if (slot.last_send + config_.keep_alive_interval <= now) in.send_keep_alive(i);
    if (slot.timeout_seconds >= 0 && slot.last_receive + slot.timeout_seconds < now) {
      in.free_slot(i, DisconnectReason::kTimedOut, true);
    }
  }
  // Stops after the last entry in use: with every client connected the table (pending_per_slot entries a
  // slot) is empty and not walked at all.
  int in_use = st.pending_count;
  for (size_t i = 0; i < st.pending.size() && in_use > 0; ++i) {
    const Pending& p = st.pending[i];
    if (!p.in_use) continue;
    --in_use;
    const bool idle = p.timeout_seconds >= 0 && p.last_access + p.timeout_seconds < now;
    if (p.expire_time < now || idle) in.remove_pending(static_cast<int>(i));
  }
}

void Server::process_datagram(const Address& from, std::span<std::byte> datagram) {
  if (!state_) return;
  process_datagram(from, datagram, state_->now);
}

void Server::process_datagram(const Address& from, std::span<std::byte> datagram, double arrival_time) {
  if (!state_) return;
  ServerInternals in{*this, *state_};
  // No later than the update's now; an unknown (NaN) or non-finite time is the update's now.
  state_->arrival = std::isfinite(arrival_time) && arrival_time < state_->now ? arrival_time : state_->now;
  state_->reply_budget = 0;
  if (datagram.empty()) return drop(PacketError::kTooSmall);
  if (datagram[0] == std::byte{0}) {
    state_->reply_budget = datagram.size();
    last_drop_ = PacketError::kNone;
    in.process_request(from, datagram);
    if (last_drop_ != PacketError::kNone && log_enabled(LogLevel::kWarning)) {
      log_refused_request(from, datagram, last_drop_);
    }
  } else {
    in.process_encrypted(from, datagram);
  }
  state_->reply_budget = 0;
}

void Server::log_refused_request(const Address& from, std::span<const std::byte> datagram,
                                 PacketError error) const {
  char address[kMaxAddressText];
  from.print(address);
  // The request's public fields (prefix, 13 bytes of version, protocol id, expire timestamp), read only
  // to explain the refusal; the packet was refused whatever they hold.
  uint64_t fields[2] = {0, 0};
  if (datagram.size() >= 1 + kVersionInfoBytes + 16) {
    for (int f = 0; f < 2; ++f) {
      for (int i = 7; i >= 0; --i) {
        fields[f] = (fields[f] << 8) | std::to_integer<uint64_t>(
                                           datagram[1 + kVersionInfoBytes + static_cast<size_t>(8 * f + i)]);
      }
    }
  }
  const auto id = static_cast<unsigned long long>(fields[0]);
  const auto expire = static_cast<unsigned long long>(fields[1]);
  switch (error) {
    case PacketError::kRequestProtocolId:
      BITWIRE_LOG(
          LogLevel::kWarning,
          "netcode server: refused a connection request from %s: request for another protocol id "
          "(the token's is 0x%016llx, this server's 0x%016llx: mint tokens with the server's id; for a "
          "bitwire Server that is stack_protocol_id, not the schema's id)",
          address, id, static_cast<unsigned long long>(config_.protocol_id));
      return;
    case PacketError::kRequestTokenExpired:
      BITWIRE_LOG(LogLevel::kWarning,
                  "netcode server: refused a connection request from %s: token expired (at unix time %llu; "
                  "this server's time is %llu: check the backend's expire_seconds and both clocks)",
                  address, expire, static_cast<unsigned long long>(state_ ? state_->unix_now : 0));
      return;
    default:
      BITWIRE_LOG(LogLevel::kWarning, "netcode server: refused a connection request from %s: %s", address,
                  to_string(error));
      return;
  }
}

bool Server::is_connected(int slot) const {
  return state_ && slot >= 0 && slot < config_.max_clients && state_->slots[static_cast<size_t>(slot)].connected;
}

bool Server::is_confirmed(int slot) const {
  return is_connected(slot) && state_->slots[static_cast<size_t>(slot)].confirmed;
}

uint64_t Server::session(int slot) const {
  return is_connected(slot) ? state_->slots[static_cast<size_t>(slot)].session : 0;
}

DisconnectReason Server::disconnect_reason(int slot, uint64_t session) const {
  if (!state_ || slot < 0 || slot >= config_.max_clients || session == 0) return DisconnectReason::kNone;
  const EndedSession& e = state_->ended[static_cast<size_t>(slot)];
  return e.session == session ? e.reason : DisconnectReason::kNone;
}

uint64_t Server::client_id(int slot) const {
  return is_connected(slot) ? state_->slots[static_cast<size_t>(slot)].client_id : 0;
}

Address Server::client_address(int slot) const {
  return is_connected(slot) ? state_->slots[static_cast<size_t>(slot)].address : Address();
}

const UserData* Server::client_user_data(int slot) const {
  return is_connected(slot) ? &state_->slots[static_cast<size_t>(slot)].user_data : nullptr;
}

const SlotStats& Server::stats(int slot) const {
  static const SlotStats kEmpty{};
  if (!state_ || slot < 0 || slot >= config_.max_clients) return kEmpty;
  return state_->slots[static_cast<size_t>(slot)].stats;
}

bool Server::send_payload(int slot, std::span<const std::byte> payload) {
  if (!is_connected(slot) || payload.empty() || payload.size() > kMaxPayloadBytes) return false;
  ServerInternals in{*this, *state_};
  Slot& s = state_->slots[static_cast<size_t>(slot)];
  if (!s.confirmed) in.send_keep_alive(slot);
  in.send_to_slot(slot, PacketType::kPayload, payload);
  ++s.stats.payloads_sent;
  return true;
}

bool Server::receive_payload(int slot, std::span<std::byte> out, size_t& size, uint64_t& sequence) {
  double arrival_time = 0.0;
  return receive_payload(slot, out, size, sequence, arrival_time);
}

bool Server::receive_payload(int slot, std::span<std::byte> out, size_t& size, uint64_t& sequence,
                             double& arrival_time) {
  if (!is_connected(slot)) return false;
  const Slot& s = state_->slots[static_cast<size_t>(slot)];
  if (s.queue_count == 0) return false;
  const size_t entry = static_cast<size_t>(slot * config_.payload_queue_per_slot + s.queue_head);
  if (out.size() < State::payload_size(state_->payload_entry(entry))) return false;
  std::span<const std::byte> view;
  receive_payload_view(slot, view, sequence, arrival_time);
  std::memcpy(out.data(), view.data(), view.size());
  size = view.size();
  return true;
}

bool Server::receive_payload_view(int slot, std::span<const std::byte>& payload, uint64_t& sequence,
                                  double& arrival_time) {
  if (!is_connected(slot)) return false;
  Slot& s = state_->slots[static_cast<size_t>(slot)];
  if (s.queue_count == 0) return false;
  const size_t entry = static_cast<size_t>(slot * config_.payload_queue_per_slot + s.queue_head);
  const std::byte* at = state_->payload_entry(entry);
  payload = std::span<const std::byte>(at + State::kPayloadBody, State::payload_size(at));
  std::memcpy(&sequence, at + State::kPayloadSequence, sizeof sequence);
  std::memcpy(&arrival_time, at + State::kPayloadArrival, sizeof arrival_time);
  s.queue_head = (s.queue_head + 1) % config_.payload_queue_per_slot;
  --s.queue_count;
  return true;
}

void Server::disconnect(int slot) {
  if (!is_connected(slot)) return;
  ServerInternals{*this, *state_}.free_slot(slot, DisconnectReason::kServerDisconnected, true);
}

void Server::disconnect_all() {
  if (!state_) return;
  for (int i = 0; i < config_.max_clients; ++i) {
    ServerInternals{*this, *state_}.free_slot(i, DisconnectReason::kServerStopped, true);
  }
}

bool Server::next_event(ServerEvent& event) {
  if (!state_ || state_->event_count == 0) return false;
  event = state_->events[state_->event_head];
  state_->event_head = (state_->event_head + 1) % state_->events.size();
  --state_->event_count;
  return true;
}

}  // namespace bitwire::netcode
