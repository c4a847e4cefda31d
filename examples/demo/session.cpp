#include "session.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "bitwire/core/crc32.hpp"
#include "bitwire/core/random.hpp"
#include "bitwire/netcode/token.hpp"
#include "game.hpp"
#include "world.hpp"

namespace demo {
namespace {

// The package's message table, emitted by idlc; `message LevelLoad block` in game.net makes LevelLoad
// the one type that carries a block (the level file).
const bitwire::MessageFactory& factory() { return game::message_factory(); }

constexpr int kReliable = 0;
constexpr int kUnreliable = 1;
constexpr int kLevel = 2;
constexpr uint64_t kFirstClientId = 1000;
constexpr int kConnectTimeoutSeconds = 10;

const char* const kPhrases[] = {"rotate to B", "need ammo", "nice shot", "hold the bridge", "gg",
                                "push now \xF0\x9F\x9A\x80", "one left, low", "regroup at spawn"};

float on_grid(float value, float step) { return std::round(value / step) * step; }

bitwire::StackConfig make_config(int clients, double rate_hz, bool whole) {
  bitwire::StackConfig config;
  config.protocol_id = game::ProtocolId;
  config.max_clients = clients;
  // The server sends each client snapshots at the rate its congestion controller advises: every tick while
  // the link is good, a quarter of them while it is bad.
  config.congestion.good_send_rate = rate_hz;
  config.congestion.bad_send_rate = rate_hz / 4.0;
  // Bad means clearly worse than the default conditions (about 230 ms RTT and 5% loss as measured here):
  // the --scenario loss burst and latency spike cross these, the default network does not.
  config.congestion.rtt_threshold_ms = 300.0;
  config.congestion.loss_threshold_percent = 12.0;
  bitwire::ConnectionConfig& c = config.connection;
  // A 64-entity snapshot is about 1 KiB: with acks and the other channels a packet often exceeds the
  // endpoint's 1 KiB fragment threshold and travels as fragments.
  c.max_packet_size = 2400;
  c.channel_count = 3;
  c.channels[kReliable].type = bitwire::ChannelType::kReliableOrdered;
  c.channels[kReliable].disable_blocks = true;
  c.channels[kReliable].send_queue_size = 256;
  c.channels[kReliable].receive_queue_size = 256;
  c.channels[kUnreliable].type = bitwire::ChannelType::kUnreliableUnordered;
  c.channels[kUnreliable].priority = 1;  // the newest input / snapshot goes first
  c.channels[kUnreliable].send_queue_size = 64;
  c.channels[kUnreliable].receive_queue_size = 64;
  c.channels[kLevel].type = bitwire::ChannelType::kReliableOrdered;
  c.channels[kLevel].send_queue_size = 4;
  c.channels[kLevel].receive_queue_size = 4;
  // Resend a fragment only after about an RTT at the default conditions, not every 100 ms.
  c.channels[kLevel].block_resend_time = 0.25;
  c.channels[kLevel].block_bandwidth_bytes_per_second = 512 * 1024;
  c.block_pool_size = 2;
  // Snapshots (`delta message Snapshot`) go as deltas against the newest one each client acked; --whole
  // sends them whole (no rings), the figure the deltas are compared with.
  c.delta_baselines = whole ? 0 : 32;
  // Every queue (256 + 256 + 64 + 64 + 4 + 4) plus what one received packet may hold: far below the default
  // (every queue + 256 + 64), whose slots each hold a whole Snapshot.
  c.message_pool_size = 768;
  // The endpoint's default 256 sent-packet records are enough at any latency: while a block is in flight
  // send_packets() sends up to 16 packets a tick, but never more in flight than the records can match
  // acks to (Connection::max_packets_in_flight); on a long link the extra packets wait.
  c.endpoint.max_packet_size = 2400;
  c.endpoint.max_fragments = 3;
  return config;
}

// The world at `tick` (world.hpp); values sit on the schema's quanta so what arrives equals what was sent.
void fill_snapshot(game::Snapshot& snapshot, uint32_t tick, uint32_t last_input_tick, double tick_seconds) {
  snapshot.tick = tick;
  snapshot.last_input_tick = last_input_tick;
  fill_world(snapshot, tick, tick_seconds);
}

void fill_events(game::Events& events, uint32_t sequence, bitwire::Random& random) {
  events.tick = sequence;  // the sequence number the receiver checks
  const int count = 1 + static_cast<int>(random.next() % 3);
  for (int i = 0; i < count; ++i) {
    game::GameEvent event;
    event.kind = static_cast<game::EventKind>(random.next() % 4);
    event.subject = static_cast<uint8_t>(random.next() % 64);
    if (event.kind == game::EventKind::Hit) {
      event.attacker = static_cast<uint8_t>(random.next() % 64);
      event.damage = static_cast<int16_t>(1 + random.next() % 250);
    } else if (event.kind == game::EventKind::Death) {
      event.killer = static_cast<uint8_t>(random.next() % 64);
      event.weapon = static_cast<game::Weapon>(random.next() % 5);
    } else {
      event.where = {on_grid(static_cast<float>(random.uniform(-500.0, 500.0)), 0.125f), 0.0f, 0.0f};
    }
    events.events.push_back(event);
  }
}

void fill_chat(game::Chat& chat, uint32_t sequence, uint8_t sender, bitwire::Random& random) {
  chat.sender = sender;
  chat.channel = game::ChatChannel::Team;
  char text[96];
  std::snprintf(text, sizeof text, "#%u %s", sequence, kPhrases[random.next() % std::size(kPhrases)]);
  chat.text = text;
}

// The sequence number a reliable message carries, or -1 for a message that is not Events or Chat.
int64_t sequence_of(bitwire::MessageHandle& message) {
  if (const auto* events = message.as<game::Events>()) return events->tick;
  if (const auto* chat = message.as<game::Chat>()) {
    const char* text = chat->text.c_str();
    if (text[0] != '#') return -1;
    char* end = nullptr;
    const unsigned long value = std::strtoul(text + 1, &end, 10);
    return end != text + 1 ? static_cast<int64_t>(value) : -1;
  }
  return -1;
}

double sum_percent(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0.0 : std::min(100.0, 100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

}  // namespace

void fill_level(uint64_t seed, uint64_t client_id, uint8_t* out, size_t size) {
  bitwire::Random random(seed * 0x9E3779B97F4A7C15ull + client_id);
  for (size_t i = 0; i < size; i += 8) {
    const uint64_t word = random.next();
    for (size_t b = 0; b < 8 && i + b < size; ++b) out[i + b] = static_cast<uint8_t>(word >> (8 * b));
  }
}

struct Session::ClientEnd {
  bitwire::UdpSocket socket;
  std::unique_ptr<SocketTransport> socket_transport;       // the socket, dated on the demo's clock
  std::unique_ptr<bitwire::SimulatedTransport> transport;  // the simulated network around it
  std::unique_ptr<bitwire::Client> client;
  bitwire::Random random{0};
  uint32_t input_tick = 0;
};

Session::Session(const Options& options)
    : options_(options), config_(make_config(options.clients, options.rate_hz, options.whole)) {
  bitwire::NetworkConditions conditions;
  conditions.latency_ms = options.latency_ms;
  conditions.jitter_ms = options.jitter_ms;
  conditions.loss_percent = options.loss_percent;
  conditions.duplicate_percent = options.dup_percent;
  conditions.bandwidth_kbps = options.bandwidth_kbps;
  simulator_config_ = bitwire::SimulatedTransportConfig::symmetric(conditions);
  simulator_config_.outgoing.capacity = 2048;
  simulator_config_.incoming.capacity = 2048;
  level_.resize(kLevelBytes);
}

Session::~Session() = default;

bool Session::start(double now, uint64_t unix_now, std::string& error) {
  start_ = now;
  if (const bitwire::ConfigCheck check = config_.check(); !check) {
    error = std::string("stack config: ") + check.reason();
    return false;
  }
  if (const bitwire::ConfigCheck check = simulator_config_.check(); !check) {
    error = std::string("simulator config: ") + check.reason();
    return false;
  }
  const bitwire::Address loopback = bitwire::Address::ipv4(127, 0, 0, 1, 0);
  if (const bitwire::SocketStatus status = server_socket_.open(loopback); status != bitwire::SocketStatus::kOk) {
    error = std::string("server socket: ") + bitwire::to_string(status) + " " + server_socket_.system_error();
    return false;
  }
  // The private key is random per run, from libsodium (tokens are minted in-process, as a backend would).
  const bitwire::netcode::Key key = bitwire::netcode::random_key();
  clock_.begin_tick(now);
  server_transport_ = std::make_unique<SocketTransport>(server_socket_, clock_);
  server_ = std::make_unique<bitwire::Server>(config_, factory(), key, *server_transport_,
                                              server_socket_.local_address(), now);
  if (!server_->ok()) {
    error = std::string("server: ") + server_->error_reason();
    return false;
  }
  slot_client_.assign(static_cast<size_t>(options_.clients), -1);
  tallies_.resize(static_cast<size_t>(options_.clients));
  snapshot_credit_.assign(static_cast<size_t>(options_.clients), 0.0);
  for (int c = 0; c < options_.clients; ++c) {
    auto end = std::make_unique<ClientEnd>();
    if (const bitwire::SocketStatus status = end->socket.open(loopback); status != bitwire::SocketStatus::kOk) {
      error = std::string("client socket: ") + bitwire::to_string(status) + " " + end->socket.system_error();
      return false;
    }
    bitwire::SimulatedTransportConfig link = simulator_config_;
    link.outgoing.seed = options_.seed * 1000 + static_cast<uint64_t>(c) * 2;
    link.incoming.seed = link.outgoing.seed + 1;
    end->socket_transport = std::make_unique<SocketTransport>(end->socket, clock_);
    end->transport = std::make_unique<bitwire::SimulatedTransport>(*end->socket_transport, link);
    end->transport->set_clock([this] { return clock_.now(); });
    end->client = std::make_unique<bitwire::Client>(config_, factory(), *end->transport, now);
    end->random.reseed(options_.seed * 7919 + static_cast<uint64_t>(c));
    if (!end->client->ok()) {
      error = std::string("client: ") + end->client->error_reason();
      return false;
    }
    const uint64_t client_id = kFirstClientId + static_cast<uint64_t>(c);
    tallies_[static_cast<size_t>(c)].client_id = client_id;
    bitwire::netcode::ConnectTokenParams params;
    params.protocol_id = bitwire::stack_protocol_id(factory(), config_);
    params.client_id = client_id;
    params.create_timestamp = unix_now;
    params.expire_seconds = 60;
    params.timeout_seconds = kConnectTimeoutSeconds;
    params.server_addresses.count = 1;
    params.server_addresses.items[0] = server_socket_.local_address();
    bitwire::netcode::ConnectToken token;
    std::array<std::byte, bitwire::netcode::kConnectTokenBytes> bytes{};
    const char* reason = nullptr;
    if (!bitwire::netcode::generate_connect_token(params, key, token, &reason) ||
        !bitwire::netcode::write_connect_token(token, bytes, &reason) ||
        !end->client->connect(bytes, now, &reason)) {
      error = std::string("connect token: ") + (reason != nullptr ? reason : "refused");
      return false;
    }
    clients_.push_back(std::move(end));
  }
  return true;
}

void Session::set_conditions(const bitwire::NetworkConditions& conditions) {
  for (auto& end : clients_) end->transport->set_conditions(conditions);
}

void Session::fail(int c, const std::string& reason) {
  ConnectionTally& t = tallies_[static_cast<size_t>(c)];
  if (t.failure.empty()) t.failure = reason;
}

bool Session::refused(int c, const char* what, const bitwire::SendStatus& status) {
  if (status) return true;
  ++tallies_[static_cast<size_t>(c)].refused_sends;
  fail(c, std::string(what) + " send refused: " + bitwire::to_string(status.result));
  return false;
}

void Session::tick(double now, uint64_t unix_now, bool send_reliable) {
  clock_.begin_tick(now);
  for (int c = 0; c < clients(); ++c) client_tick(c, now, send_reliable);
  server_tick(now, unix_now, send_reliable);
  ++tick_;
}

void Session::client_tick(int c, double now, bool send_reliable) {
  ClientEnd& end = *clients_[static_cast<size_t>(c)];
  ConnectionTally& t = tallies_[static_cast<size_t>(c)];
  bitwire::Client& client = *end.client;
  client.update(now);  // the simulated transport moves what is due as the client reads it
  bitwire::ClientEvent event;
  while (client.next_event(event)) {
    if (event.kind == bitwire::ClientEvent::Kind::kConnected) {
      t.connected_once = true;
    } else {
      ++t.disconnects;
      fail(c, std::string("client disconnected: ") + bitwire::netcode::to_string(event.state) +
                  (event.protocol_error != nullptr ? std::string(", protocol error: ") + event.protocol_error : ""));
    }
  }
  if (client.is_connected()) {
    while (auto message = client.receive(kReliable)) {
      const int64_t sequence = sequence_of(message);
      if (sequence != static_cast<int64_t>(t.down_received)) ++t.down_out_of_order;
      ++t.down_received;
    }
    while (auto message = client.receive(kUnreliable)) {
      const auto* snapshot = message.as<game::Snapshot>();
      ++t.snapshots_received;
      if (snapshot == nullptr || snapshot->entities.size() != 64 || snapshot->last_input_tick > end.input_tick) {
        ++t.snapshots_bad;
        continue;
      }
      // Whole again, field for field, whether it came whole or as a delta: the server filled it from its
      // tick and input tick alone.
      fill_snapshot(expected_snapshot_, snapshot->tick, snapshot->last_input_tick, 1.0 / options_.rate_hz);
      if (!(expected_snapshot_ == *snapshot)) ++t.snapshots_bad;
    }
    while (auto message = client.receive(kLevel)) {
      ++t.blocks_received;
      const auto* level = message.as<game::LevelLoad>();
      const std::span<const std::byte> block = message.block();
      fill_level(options_.seed, t.client_id, level_.data(), level_.size());
      t.block_exact = level != nullptr && block.size() == level_.size() &&
                      std::memcmp(block.data(), level_.data(), level_.size()) == 0 &&
                      bitwire::crc32(block.data(), block.size()) == level->checksum;
      t.block_done_s = now - start_;
    }

    auto input = client.create<game::PlayerInput>();
    if (auto* in = input.as<game::PlayerInput>()) {
      in->tick = ++end.input_tick;
      in->buttons = (end.input_tick / 30) % 2 == 0 ? game::InputButtons::Forward
                                                    : game::InputButtons::Forward | game::InputButtons::Fire;
      in->yaw = on_grid(static_cast<float>(std::fmod(end.input_tick * 0.5, 360.0) - 180.0), 0.01f);
      in->pitch = on_grid(static_cast<float>(end.random.uniform(-10.0, 10.0)), 0.01f);
      refused(c, "client input", client.send(kUnreliable, std::move(input)));
    }
    // Events 5 per second and chat once a second, client to server.
    const uint64_t period = static_cast<uint64_t>(std::max(1.0, options_.rate_hz / 5.0));
    if (send_reliable && (tick_ + static_cast<uint64_t>(c)) % period == 0) {
      const bool chat = (tick_ / period) % 5 == 0;
      auto message = chat ? client.create<game::Chat>() : client.create<game::Events>();
      if (auto* m = message.as<game::Chat>()) fill_chat(*m, t.up_sent, static_cast<uint8_t>(c), end.random);
      if (auto* m = message.as<game::Events>()) fill_events(*m, t.up_sent, end.random);
      if (refused(c, "client reliable", client.send(kReliable, std::move(message)))) ++t.up_sent;
    }
  }
  client.send_packets();
}

void Session::server_tick(double now, uint64_t unix_now, bool send_reliable) {
  bitwire::Server& server = *server_;
  server.update(now, unix_now);
  bitwire::ServerEvent event;
  while (server.next_event(event)) {
    const int c = static_cast<int>(event.client_id - kFirstClientId);
    if (c < 0 || c >= clients()) continue;
    ConnectionTally& t = tallies_[static_cast<size_t>(c)];
    if (event.kind == bitwire::ServerEvent::Kind::kConnected) {
      t.slot = event.client_index;
      slot_client_[static_cast<size_t>(event.client_index)] = c;
      // The level, at connect: a LevelLoad whose block is the level file.
      auto message = server.create<game::LevelLoad>(event.client_index);
      auto* level = message.as<game::LevelLoad>();
      const std::span<std::byte> block = message ? message.allocate_block(kLevelBytes) : std::span<std::byte>();
      if (level == nullptr || block.size() != kLevelBytes) {
        fail(c, "server: no message or block buffer for the level");
        continue;
      }
      fill_level(options_.seed, t.client_id, reinterpret_cast<uint8_t*>(block.data()), block.size());
      level->level = "harbor_night";
      level->checksum = bitwire::crc32(block.data(), block.size());
      level->max_players = static_cast<uint8_t>(std::min(64, options_.clients));
      const bitwire::SendStatus status = server.send(event.client_index, kLevel, std::move(message));
      if (!status) fail(c, std::string("server refused the level: ") + bitwire::to_string(status.result));
    } else {
      ++t.disconnects;
      slot_client_[static_cast<size_t>(event.client_index)] = -1;
      fail(c, std::string("server dropped the client: ") + bitwire::netcode::to_string(event.reason) +
                  (event.protocol_error != nullptr ? std::string(", protocol error: ") + event.protocol_error : ""));
    }
  }
  const uint64_t period = static_cast<uint64_t>(std::max(1.0, options_.rate_hz / 10.0));
  for (int slot = 0; slot < server.max_clients(); ++slot) {
    const int c = slot_client_[static_cast<size_t>(slot)];
    if (c < 0 || !server.is_connected(slot)) continue;
    ConnectionTally& t = tallies_[static_cast<size_t>(c)];
    ClientEnd& end = *clients_[static_cast<size_t>(c)];
    while (auto message = server.receive(slot, kReliable)) {
      if (sequence_of(message) != static_cast<int64_t>(t.up_received)) ++t.up_out_of_order;
      ++t.up_received;
    }
    uint32_t last_input = 0;
    while (auto message = server.receive(slot, kUnreliable)) {
      if (const auto* input = message.as<game::PlayerInput>()) last_input = std::max(last_input, input->tick);
      ++t.inputs_received;
    }
    // Snapshots at the advised rate: a credit of (advised rate / tick rate) per tick, one snapshot per credit.
    double& credit = snapshot_credit_[static_cast<size_t>(c)];
    credit = std::min(1.0, credit + server.stats(slot).congestion_send_rate / options_.rate_hz);
    if (credit >= 1.0 - 1e-9) {
      credit -= 1.0;
      auto snapshot = server.create<game::Snapshot>(slot);
      if (auto* s = snapshot.as<game::Snapshot>()) {
        fill_snapshot(*s, static_cast<uint32_t>(tick_), last_input, 1.0 / options_.rate_hz);
      }
      if (refused(c, "server snapshot", server.send(slot, kUnreliable, std::move(snapshot)))) ++t.snapshots_sent;
    }
    // Events 10 per second, every fifth a chat line instead, server to client.
    if (send_reliable && (tick_ + static_cast<uint64_t>(slot)) % period == 0) {
      const bool chat = (tick_ / period) % 5 == 0;
      auto message = chat ? server.create<game::Chat>(slot) : server.create<game::Events>(slot);
      if (auto* m = message.as<game::Chat>()) fill_chat(*m, t.down_sent, 63, end.random);
      if (auto* m = message.as<game::Events>()) fill_events(*m, t.down_sent, end.random);
      if (refused(c, "server reliable", server.send(slot, kReliable, std::move(message)))) ++t.down_sent;
    }
  }
  server.send_packets();
}

ConnectionView Session::view(int c) const {
  ConnectionView v;
  const ClientEnd& end = *clients_[static_cast<size_t>(c)];
  const ConnectionTally& t = tallies_[static_cast<size_t>(c)];
  const bitwire::Client& client = *end.client;
  v.connected = client.is_connected();
  const bitwire::StackStats stats = client.stats();
  v.rtt_ms = client.connection().endpoint().rtt_samples() > 0 ? stats.rtt_ms
                                                              : std::numeric_limits<double>::quiet_NaN();
  v.jitter_ms = stats.jitter_ms;
  v.loss_percent = stats.packet_loss_percent;
  v.up_kbps = stats.sent_kbps;
  v.down_kbps = stats.received_kbps;
  v.congestion_good = stats.congestion_mode == bitwire::CongestionMode::kGood;
  auto add = [&v](const bitwire::Connection& connection) {
    for (int ch = 0; ch < connection.channel_count(); ++ch) {
      const bitwire::ChannelCounters& counters = connection.channel_counters(ch);
      v.messages_sent += counters.messages_sent;
      v.messages_received += counters.messages_received;
      v.messages_resent += counters.messages_resent;
    }
  };
  add(client.connection());
  if (t.slot >= 0 && server_->is_connected(t.slot)) {
    add(server_->connection(t.slot));
    const uint64_t fragments = (kLevelBytes + 1023) / 1024;
    v.block_percent = sum_percent(server_->connection(t.slot).channel_counters(kLevel).block_fragments_acked, fragments);
  }
  if (t.blocks_received > 0) v.block_percent = 100.0;
  return v;
}

bool Session::settled() const {
  for (const ConnectionTally& t : tallies_) {
    if (t.up_received < t.up_sent || t.down_received < t.down_sent || t.blocks_received == 0) return false;
  }
  return true;
}

uint64_t Session::invalid_packets(int c) const {
  const ConnectionTally& t = tallies_[static_cast<size_t>(c)];
  uint64_t invalid = clients_[static_cast<size_t>(c)]->client->connection().counters().packets_invalid;
  if (t.slot >= 0 && server_->is_connected(t.slot)) invalid += server_->connection(t.slot).counters().packets_invalid;
  return invalid;
}

uint64_t Session::payloads_refused(int c) const {
  const ConnectionTally& t = tallies_[static_cast<size_t>(c)];
  uint64_t refused = clients_[static_cast<size_t>(c)]->client->stats().payloads_refused;
  if (t.slot >= 0 && server_->is_connected(t.slot)) refused += server_->stats(t.slot).payloads_refused;
  return refused;
}

const bitwire::SimulatedTransport& Session::link(int c) const {
  return *clients_[static_cast<size_t>(c)]->transport;
}

size_t Session::server_memory_bytes() const { return server_ ? server_->memory_bytes() : 0; }
size_t Session::client_memory_bytes() const { return clients_.empty() ? 0 : clients_.front()->client->memory_bytes(); }

}  // namespace demo
