// The full stack (bitwire::Server: netcode 1.02 -> Endpoint -> Connection per slot) under a game's 60 Hz
// load: every client sends an input (30 bytes, unreliable) each tick, the server sends each client a snapshot
// (600 bytes, unreliable) each tick, and both send a reliable event (about 20 bytes) every 30 ticks.
// Everything is encrypted (netcode's AEAD on every packet).
//
// Measured (the clients run in the same process but are not timed):
// - server CPU per client-tick: thread CPU time of server.update + reading every message + queuing the
//   snapshot + send_packets, divided by clients x ticks; the clients one core sustains at 60 Hz follows;
// - bytes per second per client: UDP payload bytes (netcode packets) each way, from the server's counters;
// - shares of the server time: transport (a timing decorator around the server's Transport: the syscalls
//   on UDP, a memcpy into a mailbox in-process), crypto (the same number of AEAD seals and opens at the same
//   average sizes, timed alone after the run), and the rest (netcode logic, endpoint, channels, messages).
//
// Usage: stack_bench [inproc|udp] [clients...]   (default: inproc 64 256 1024, then udp 64 256)
// The in-process transport here gives every address its own mailbox (O(1) delivery), unlike the tests'
// LoopbackNetwork (one shared queue scanned per receive), whose cost would swamp the stack at 1,024 clients.
#include <sodium.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bitwire/stack/client.hpp"
#include "bitwire/serialize/fixed_vector.hpp"
#include "bitwire/netcode/token.hpp"
#include "bitwire/serialize/serialize.hpp"
#include "bitwire/stack/server.hpp"
#include "bitwire/transport/transport.hpp"
#include "bitwire/transport/udp_socket.hpp"

namespace {

using namespace bitwire;

struct Input {
  static constexpr uint32_t kTypeId = 0;
  FixedVector<uint8_t, 32> bytes;
  template <typename Stream>
  bool serialize(Stream& stream) {
    auto count = static_cast<uint32_t>(bytes.size());
    BITWIRE_TRY(serialize_count(stream, count, 0u, 32u));
    if constexpr (Stream::kIsReading) bytes.resize(count);
    return serialize_bytes(stream, bytes.data(), count);
  }
};

struct Snapshot {
  static constexpr uint32_t kTypeId = 1;
  FixedVector<uint8_t, 640> bytes;
  template <typename Stream>
  bool serialize(Stream& stream) {
    auto count = static_cast<uint32_t>(bytes.size());
    BITWIRE_TRY(serialize_count(stream, count, 0u, 640u));
    if constexpr (Stream::kIsReading) bytes.resize(count);
    return serialize_bytes(stream, bytes.data(), count);
  }
};

struct GameEvent {
  static constexpr uint32_t kTypeId = 2;
  uint32_t serial = 0;
  FixedVector<uint8_t, 32> text;
  template <typename Stream>
  bool serialize(Stream& stream) {
    BITWIRE_TRY(serialize_bits(stream, serial, 32));
    auto count = static_cast<uint32_t>(text.size());
    BITWIRE_TRY(serialize_count(stream, count, 0u, 32u));
    if constexpr (Stream::kIsReading) text.resize(count);
    return serialize_bytes(stream, text.data(), count);
  }
};

constexpr MessageTypeInfo kTypes[] = {describe_message<Input>("Input"),
                                      describe_message<Snapshot>("Snapshot"),
                                      describe_message<GameEvent>("GameEvent")};
constexpr MessageFactory kFactory{kTypes};
constexpr int kReliable = 0;
constexpr int kUnreliable = 1;
constexpr uint64_t kUnix = 1'700'000'000ull;

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// What one timed section costs beyond its contents: two clock reads (a syscall each for the thread clock).
double clock_pair_seconds() {
  constexpr int kCount = 200000;
  const double start = thread_cpu_seconds();
  double sink = 0.0;
  for (int i = 0; i < kCount; ++i) sink += thread_cpu_seconds() - thread_cpu_seconds();
  const double elapsed = thread_cpu_seconds() - start;
  return sink > 1.0 ? 0.0 : elapsed / kCount;
}

// In-process: one mailbox (a ring of datagrams) per address; address 10.1.hi.lo is mailbox hi * 256 + lo.
class Mailboxes {
 public:
  Mailboxes(int count, int server_capacity, int client_capacity) : boxes_(static_cast<size_t>(count)) {
    for (int i = 0; i < count; ++i) {
      Box& box = boxes_[static_cast<size_t>(i)];
      box.capacity = i == 0 ? server_capacity : client_capacity;
      box.slots.resize(static_cast<size_t>(box.capacity));
    }
  }
  static Address address(int index) {
    return Address::ipv4(10, 1, static_cast<uint8_t>(index >> 8), static_cast<uint8_t>(index & 255), 5000);
  }
  static int index(const Address& a) { return a.bytes()[2] << 8 | a.bytes()[3]; }

  void send(const Address& from, const Address& to, std::span<const std::byte> bytes) {
    const int i = index(to);
    if (i < 0 || i >= static_cast<int>(boxes_.size()) || bytes.size() > 1500) return;
    Box& box = boxes_[static_cast<size_t>(i)];
    if (box.count == box.capacity) {
      ++dropped;
      return;
    }
    Datagram& d = box.slots[static_cast<size_t>((box.head + box.count) % box.capacity)];
    d.from = from;
    d.size = bytes.size();
    std::memcpy(d.bytes.data(), bytes.data(), bytes.size());
    ++box.count;
  }
  bool receive(const Address& to, std::span<std::byte> buffer, Address& from, size_t& size) {
    Box& box = boxes_[static_cast<size_t>(index(to))];
    if (box.count == 0) return false;
    Datagram& d = box.slots[static_cast<size_t>(box.head)];
    from = d.from;
    size = d.size <= buffer.size() ? d.size : 0;
    if (size > 0) std::memcpy(buffer.data(), d.bytes.data(), size);
    box.head = (box.head + 1) % box.capacity;
    --box.count;
    return true;
  }
  uint64_t dropped = 0;

 private:
  struct Datagram {
    Address from;
    size_t size = 0;
    std::array<std::byte, 1500> bytes{};
  };
  struct Box {
    int capacity = 0;
    int head = 0;
    int count = 0;
    std::vector<Datagram> slots;
  };
  std::vector<Box> boxes_;
};

class MailboxTransport final : public Transport {
 public:
  MailboxTransport(Mailboxes& boxes, int index) : boxes_(boxes), address_(Mailboxes::address(index)) {}
  void send(const Address& to, std::span<const std::byte> datagram) override {
    boxes_.send(address_, to, datagram);
  }
  bool receive(std::span<std::byte> buffer, Address& from, size_t& size, double& arrival_time) override {
    arrival_time = clock_now();
    return boxes_.receive(address_, buffer, from, size);
  }
  Address local_address() const override { return address_; }

 private:
  Mailboxes& boxes_;
  Address address_;
};

// Forwards to another transport and accumulates the thread CPU time spent in it (the server's transport
// share), minus the cost of the clock reads themselves (calibrated once; see clock_pair_seconds()).
class TimedTransport final : public Transport {
 public:
  explicit TimedTransport(Transport& inner) : inner_(inner) {}
  void send(const Address& to, std::span<const std::byte> datagram) override {
    const double start = thread_cpu_seconds();
    inner_.send(to, datagram);
    seconds += thread_cpu_seconds() - start;
    ++calls;
  }
  bool receive(std::span<std::byte> buffer, Address& from, size_t& size, double& arrival_time) override {
    const double start = thread_cpu_seconds();
    const bool got = inner_.receive(buffer, from, size, arrival_time);
    seconds += thread_cpu_seconds() - start;
    ++calls;
    return got;
  }
  Address local_address() const override { return inner_.local_address(); }
  void begin_batch() override { inner_.begin_batch(); }
  void end_batch() override {
    const double start = thread_cpu_seconds();
    inner_.end_batch();
    seconds += thread_cpu_seconds() - start;
    ++calls;
  }
  std::span<std::byte> send_room() override { return inner_.send_room(); }
  void send_written(const Address& to, size_t size) override {
    const double start = thread_cpu_seconds();
    inner_.send_written(to, size);
    seconds += thread_cpu_seconds() - start;
    ++calls;
  }
  size_t receive_many(std::span<std::byte> buffers, size_t stride, size_t count, size_t* sizes, Address* from,
                      double* arrival_times) override {
    const double start = thread_cpu_seconds();
    const size_t got = inner_.receive_many(buffers, stride, count, sizes, from, arrival_times);
    seconds += thread_cpu_seconds() - start;
    ++calls;
    return got;
  }
  double seconds = 0.0;
  uint64_t calls = 0;

 private:
  Transport& inner_;
};

StackConfig bench_config(int max_clients) {
  StackConfig config;
  config.protocol_id = 0x62656e6368737461ull;
  config.max_clients = max_clients;
  config.connection.channel_count = 2;
  config.connection.channels[kUnreliable].type = ChannelType::kUnreliableUnordered;
  for (int i = 0; i < 2; ++i) {
    ChannelConfig& c = config.connection.channels[static_cast<size_t>(i)];
    c.disable_blocks = true;
    c.send_queue_size = 32;
    c.receive_queue_size = 32;
    c.sent_packets_buffer_size = 256;
    c.sent_message_ids = 1024;
  }
  config.connection.message_pool_size = 96;
  config.connection.endpoint.max_packet_size = 4096;
  config.connection.endpoint.max_fragments = 4;
  config.connection.endpoint.reassembly_slots = 4;
  config.server.payload_queue_per_slot = 8;
  config.server.max_receive_per_update = 0;
  return config;
}

// The AEAD alone: `count` seals and opens of `size`-byte bodies (netcode's packet primitive).
double aead_seconds(size_t size, int count) {
  std::array<uint8_t, 1300> buffer{};
  std::array<uint8_t, crypto_aead_chacha20poly1305_ietf_KEYBYTES> key{};
  std::array<uint8_t, crypto_aead_chacha20poly1305_ietf_NPUBBYTES> nonce{};
  randombytes_buf(key.data(), key.size());
  const uint8_t ad[22] = {};
  unsigned long long sealed = 0, opened = 0;
  const double start = thread_cpu_seconds();
  for (int i = 0; i < count; ++i) {
    nonce[0] = static_cast<uint8_t>(i);
    crypto_aead_chacha20poly1305_ietf_encrypt(buffer.data(), &sealed, buffer.data(), size, ad, sizeof ad,
                                              nullptr, nonce.data(), key.data());
    if (crypto_aead_chacha20poly1305_ietf_decrypt(buffer.data(), &opened, nullptr, buffer.data(), sealed, ad,
                                                  sizeof ad, nonce.data(), key.data()) != 0) {
      std::abort();
    }
  }
  return (thread_cpu_seconds() - start) / 2.0;  // per direction: one seal or one open each
}

struct Result {
  const char* transport = "";
  int clients = 0;
  int connected = 0;
  double server_seconds = 0.0;
  double transport_seconds = 0.0;
  double crypto_seconds = 0.0;
  int ticks = 0;
  double up_bytes_per_second = 0.0;
  double down_bytes_per_second = 0.0;
  size_t memory_per_slot = 0;
  uint64_t snapshots_lost = 0;
  uint64_t inputs_received = 0;
};

Result run(bool udp, int client_count, int ticks) {
  Result result;
  result.transport = udp ? "loopback UDP" : "in-process";
  result.clients = client_count;
  const StackConfig config = bench_config(client_count);
  const netcode::Key key = netcode::random_key();

  std::unique_ptr<Mailboxes> boxes;
  std::vector<std::unique_ptr<UdpSocket>> sockets;
  std::vector<std::unique_ptr<Transport>> transports;
  if (udp) {
    for (int i = 0; i <= client_count; ++i) {
      auto socket = std::make_unique<UdpSocket>();
      UdpSocketConfig socket_config;
      socket_config.receive_buffer_size = i == 0 ? 8 << 20 : 256 << 10;
      socket_config.send_buffer_size = i == 0 ? 8 << 20 : 256 << 10;
      if (socket->open(Address::ipv4(127, 0, 0, 1, 0), socket_config) != SocketStatus::kOk) {
        std::fprintf(stderr, "cannot open socket %d\n", i);
        std::exit(1);
      }
      transports.push_back(std::make_unique<UdpTransport>(*socket));
      sockets.push_back(std::move(socket));
    }
  } else {
    boxes = std::make_unique<Mailboxes>(client_count + 1, 8 * client_count + 64, 64);
    for (int i = 0; i <= client_count; ++i)
      transports.push_back(std::make_unique<MailboxTransport>(*boxes, i));
  }
  TimedTransport server_transport(*transports[0]);
  const Address server_address = transports[0]->local_address();
  double now = 1.0;
  Server server(config, kFactory, key, server_transport, server_address, now);
  if (!server.ok()) {
    std::fprintf(stderr, "server: %s\n", server.error_reason());
    std::exit(1);
  }
  result.memory_per_slot = server.memory_per_slot();
  std::vector<std::unique_ptr<Client>> clients;
  for (int i = 0; i < client_count; ++i) {
    clients.push_back(
        std::make_unique<Client>(config, kFactory, *transports[static_cast<size_t>(i + 1)], now));
    netcode::ConnectTokenParams params;
    params.protocol_id = server.protocol_id();
    params.client_id = static_cast<uint64_t>(i + 1);
    params.create_timestamp = kUnix;
    params.timeout_seconds = 10;
    params.server_addresses.count = 1;
    params.server_addresses.items[0] = server_address;
    netcode::ConnectToken token;
    std::array<std::byte, netcode::kConnectTokenBytes> bytes{};
    if (!netcode::generate_connect_token(params, key, token) || !netcode::write_connect_token(token, bytes)) {
      std::abort();
    }
    clients.back()->connect(bytes, now);
  }

  uint32_t serial = 0;
  auto client_tick = [&](int tick) {
    for (auto& client : clients) {
      client->update(now);
      if (!client->is_connected()) continue;
      while (auto m = client->receive(kReliable)) {
      }
      while (auto m = client->receive(kUnreliable)) {
      }
      auto input = client->create<Input>();
      input.as<Input>()->bytes.resize(30);
      client->send(kUnreliable, std::move(input));
      if (tick % 30 == 0) {
        auto event = client->create<GameEvent>();
        event.as<GameEvent>()->serial = serial++;
        event.as<GameEvent>()->text.resize(16);
        client->send(kReliable, std::move(event));
      }
      client->send_packets();
    }
  };
  uint64_t inputs = 0;
  auto server_tick = [&](int tick) {
    server.update(now, kUnix + 1);
    ServerEvent event;
    while (server.next_event(event)) {
    }
    for (int i = 0; i < client_count; ++i) {
      if (!server.is_connected(i)) continue;
      while (auto m = server.receive(i, kUnreliable)) ++inputs;
      while (auto m = server.receive(i, kReliable)) {
      }
      auto snapshot = server.create<Snapshot>(i);
      snapshot.as<Snapshot>()->bytes.resize(600);
      server.send(i, kUnreliable, std::move(snapshot));
      if ((tick + i) % 30 == 0) {
        auto e = server.create<GameEvent>(i);
        e.as<GameEvent>()->serial = static_cast<uint32_t>(tick);
        e.as<GameEvent>()->text.resize(20);
        server.send(i, kReliable, std::move(e));
      }
    }
    server.send_packets();
  };

  // Connect (untimed), then a warm-up second, then the measured ticks.
  for (int tick = 0; tick < 600 && server.connected_count() < client_count; ++tick) {
    now += 1.0 / 60.0;
    client_tick(tick);
    server_tick(tick);
  }
  for (int tick = 0; tick < 60; ++tick) {
    now += 1.0 / 60.0;
    client_tick(tick);
    server_tick(tick);
  }
  result.connected = server.connected_count();
  uint64_t sent0 = 0, received0 = 0, packets_sent0 = 0, packets_received0 = 0;
  for (int i = 0; i < client_count; ++i) {
    sent0 += server.netcode().stats(i).bytes_sent;
    received0 += server.netcode().stats(i).bytes_received;
    packets_sent0 += server.netcode().stats(i).packets_sent;
    packets_received0 += server.netcode().stats(i).packets_received;
  }
  server_transport.seconds = 0.0;
  server_transport.calls = 0;
  inputs = 0;
  double server_seconds = 0.0;
  for (int tick = 0; tick < ticks; ++tick) {
    now += 1.0 / 60.0;
    client_tick(tick);
    const double start = thread_cpu_seconds();
    server_tick(tick);
    server_seconds += thread_cpu_seconds() - start;
  }
  uint64_t sent = 0, received = 0, packets_sent = 0, packets_received = 0;
  for (int i = 0; i < client_count; ++i) {
    sent += server.netcode().stats(i).bytes_sent;
    received += server.netcode().stats(i).bytes_received;
    packets_sent += server.netcode().stats(i).packets_sent;
    packets_received += server.netcode().stats(i).packets_received;
  }
  sent -= sent0;
  received -= received0;
  packets_sent -= packets_sent0;
  packets_received -= packets_received0;
  const double seconds = ticks / 60.0;
  result.ticks = ticks;
  // The clock reads inside the decorator are part of server_seconds too: take them out of both.
  const double clock_cost = clock_pair_seconds() * static_cast<double>(server_transport.calls);
  result.transport_seconds = std::max(0.0, server_transport.seconds - clock_cost);
  result.server_seconds = std::max(1e-9, server_seconds - clock_cost);
  result.inputs_received = inputs;
  result.up_bytes_per_second = static_cast<double>(received) / seconds / client_count;
  result.down_bytes_per_second = static_cast<double>(sent) / seconds / client_count;
  // The server opened `packets_received` packets and sealed `packets_sent`, at these average sizes.
  const size_t up_size = packets_received ? received / packets_received : 0;
  const size_t down_size = packets_sent ? sent / packets_sent : 0;
  constexpr int kSamples = 20000;
  result.crypto_seconds = aead_seconds(up_size, kSamples) / kSamples * static_cast<double>(packets_received) +
                          aead_seconds(down_size, kSamples) / kSamples * static_cast<double>(packets_sent);
  std::fprintf(stderr, "  %s %d clients: %llu up packets of %zu B, %llu down of %zu B\n", result.transport,
               client_count, static_cast<unsigned long long>(packets_received), up_size,
               static_cast<unsigned long long>(packets_sent), down_size);
  return result;
}

void print(const Result& r) {
  const double client_ticks = static_cast<double>(r.clients) * r.ticks;
  const double per_client_tick_us = 1e6 * r.server_seconds / client_ticks;
  const double sustained = (1.0 / 60.0) / (r.server_seconds / client_ticks);
  const double transport = 100.0 * r.transport_seconds / r.server_seconds;
  const double crypto = 100.0 * r.crypto_seconds / r.server_seconds;
  std::printf(
      "| %s | %d (%d connected) | %.2f | %.0f | %.0f / %.0f | %.0f%% | %.0f%% | %.0f%% | %zu | %.1f%% |\n",
      r.transport, r.clients, r.connected, per_client_tick_us, sustained, r.up_bytes_per_second,
      r.down_bytes_per_second, crypto, transport, std::max(0.0, 100.0 - crypto - transport),
      r.memory_per_slot, 100.0 * static_cast<double>(r.inputs_received) / client_ticks);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  if (sodium_init() < 0) return 1;
  std::vector<std::pair<bool, int>> runs;
  bool udp = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "udp") {
      udp = true;
    } else if (arg == "inproc") {
      udp = false;
    } else {
      runs.emplace_back(udp, std::atoi(argv[i]));
    }
  }
  if (runs.empty()) runs = {{false, 64}, {false, 256}, {false, 1024}, {true, 64}, {true, 256}};
  std::printf(
      "| transport | clients | server CPU us / client-tick | clients at 60 Hz on one core | "
      "bytes/s per client up / down | crypto | transport | stack (rest) | bytes per slot | inputs delivered "
      "|\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
  for (const auto& [is_udp, clients] : runs) print(run(is_udp, clients, 600));
  return 0;
}
