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
// Usage: stack_bench [inproc|udp] [workers=N] [plain] [one_walk] [ticks=N] [clients...]
//   (default: inproc 64 256 1024, then udp 64 256; 600 measured ticks)
//        stack_bench table [clients]
//   issue 24's table in one run (default 1,000 clients): UDP with 1 and 2 workers and in-process, the bytes
//   of a default slot, the packet build with nothing due, resends per delivered message and the block tail.
// ticks=N: N measured ticks instead of 600 (shorter runs under callgrind).
// one_walk: the server's tick sends each client's packets at the end of its turn (Server::send_packets(i),
//   the walk in one transport batch) instead of send_packets() after the walk: one pass over the slots
//   after update() instead of two.
// plain: the transport decorator reads no clock, so the transport share is not measured (shown as 0%).
//   Reading the thread CPU clock is a system call (CLOCK_THREAD_CPUTIME_ID has no vDSO path), two per
//   datagram sent; its calibrated cost is subtracted, but in place it costs more than in the calibration
//   loop, so "clients per core" is read from plain runs.
// workers=N (UDP only): N servers on N ports, each owning a share of the slots, each ticking on its own
//   thread; client i's connect token names worker i % N.
// The in-process transport here gives every address its own mailbox (O(1) delivery), unlike the tests'
// LoopbackNetwork (one shared queue scanned per receive), whose cost would swamp the stack at 1,024 clients.
#include <sodium.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bitwire/netcode/token.hpp"
#include "bitwire/serialize/fixed_vector.hpp"
#include "bitwire/serialize/serialize.hpp"
#include "bitwire/stack/client.hpp"
#include "bitwire/stack/server.hpp"
#include "bitwire/transport/transport.hpp"
#include "bitwire/transport/udp_socket.hpp"
#include "rows/resend_rows.hpp"

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

// The same game with a fourth type that carries a block (a level or a map sent once): what a slot costs
// when the game declares blocks.
struct LevelData {
  static constexpr uint32_t kTypeId = 3;
  static constexpr bool kHasBlock = true;
  uint32_t id = 0;
  template <typename Stream>
  bool serialize(Stream& stream) {
    return serialize_bits(stream, id, 32);
  }
};
constexpr MessageTypeInfo kTypesWithBlock[] = {
    describe_message<Input>("Input"), describe_message<Snapshot>("Snapshot"),
    describe_message<GameEvent>("GameEvent"), describe_message<LevelData>("LevelData")};
constexpr MessageFactory kFactoryWithBlock{kTypesWithBlock};
constexpr int kReliable = 0;
constexpr int kUnreliable = 1;
constexpr uint64_t kUnix = 1'700'000'000ull;

bool g_time_transport = true;  // false with `plain`
bool g_one_walk = false;       // true with `one_walk`

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
    const double start = g_time_transport ? thread_cpu_seconds() : 0.0;
    inner_.send(to, datagram);
    if (g_time_transport) {
      seconds += thread_cpu_seconds() - start;
      ++calls;
    }
  }
  bool receive(std::span<std::byte> buffer, Address& from, size_t& size, double& arrival_time) override {
    const double start = g_time_transport ? thread_cpu_seconds() : 0.0;
    const bool got = inner_.receive(buffer, from, size, arrival_time);
    if (g_time_transport) {
      seconds += thread_cpu_seconds() - start;
      ++calls;
    }
    return got;
  }
  Address local_address() const override { return inner_.local_address(); }
  void begin_batch() override { inner_.begin_batch(); }
  void end_batch() override {
    const double start = g_time_transport ? thread_cpu_seconds() : 0.0;
    inner_.end_batch();
    if (g_time_transport) {
      seconds += thread_cpu_seconds() - start;
      ++calls;
    }
  }
  std::span<std::byte> send_room() override { return inner_.send_room(); }
  void send_written(const Address& to, size_t size) override {
    const double start = g_time_transport ? thread_cpu_seconds() : 0.0;
    inner_.send_written(to, size);
    if (g_time_transport) {
      seconds += thread_cpu_seconds() - start;
      ++calls;
    }
  }
  size_t receive_many(std::span<std::byte> buffers, size_t stride, size_t count, size_t* sizes, Address* from,
                      double* arrival_times) override {
    const double start = g_time_transport ? thread_cpu_seconds() : 0.0;
    const size_t got = inner_.receive_many(buffers, stride, count, sizes, from, arrival_times);
    if (g_time_transport) {
      seconds += thread_cpu_seconds() - start;
      ++calls;
    }
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
  int workers = 1;
  double busiest_worker_seconds = 0.0;  // the worker with the most CPU time
};

// One measured server tick, in a frame of its own so that a profiler can count the measured ticks alone
// (the connects before them are far costlier per client): valgrind --tool=callgrind --collect-atstart=no
// --toggle-collect='*measured_server_tick*'.
template <typename Tick>
[[gnu::noinline]] void measured_server_tick(Tick&& tick) {
  tick();
}

// `workers` servers, each on its own UDP port and owning ceil(clients / workers) slots; client i's token
// names worker i % workers (the backend's choice: N ports announced in the connect token). Each worker's
// tick runs on its own thread; its thread CPU time is what is measured.
Result run(bool udp, int client_count, int ticks, int workers = 1) {
  Result result;
  result.transport = udp ? "loopback UDP" : "in-process";
  result.clients = client_count;
  result.workers = workers;
  if (workers < 1 || (!udp && workers > 1)) {
    std::fprintf(stderr, "workers > 1 needs udp\n");
    std::exit(1);
  }
  const int per_worker = (client_count + workers - 1) / workers;
  const StackConfig config = bench_config(per_worker);
  const netcode::Key key = netcode::random_key();

  std::unique_ptr<Mailboxes> boxes;
  std::vector<std::unique_ptr<UdpSocket>> sockets;
  std::vector<std::unique_ptr<Transport>> transports;  // workers first, then the clients
  if (udp) {
    for (int i = 0; i < workers + client_count; ++i) {
      auto socket = std::make_unique<UdpSocket>();
      UdpSocketConfig socket_config;
      socket_config.receive_buffer_size = i < workers ? 8 << 20 : 256 << 10;
      socket_config.send_buffer_size = i < workers ? 8 << 20 : 256 << 10;
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
  double now = 1.0;
  std::vector<std::unique_ptr<TimedTransport>> timed;
  std::vector<std::unique_ptr<Server>> servers;
  for (int w = 0; w < workers; ++w) {
    timed.push_back(std::make_unique<TimedTransport>(*transports[static_cast<size_t>(w)]));
    servers.push_back(std::make_unique<Server>(config, kFactory, key, *timed.back(),
                                               transports[static_cast<size_t>(w)]->local_address(), now));
    if (!servers.back()->ok()) {
      std::fprintf(stderr, "server: %s\n", servers.back()->error_reason());
      std::exit(1);
    }
  }
  result.memory_per_slot = servers[0]->memory_per_slot();
  std::vector<std::unique_ptr<Client>> clients;
  for (int i = 0; i < client_count; ++i) {
    const Server& server = *servers[static_cast<size_t>(i % workers)];
    clients.push_back(
        std::make_unique<Client>(config, kFactory, *transports[static_cast<size_t>(workers + i)], now));
    netcode::ConnectTokenParams params;
    params.protocol_id = server.protocol_id();
    params.client_id = static_cast<uint64_t>(i + 1);
    params.create_timestamp = kUnix;
    params.timeout_seconds = 10;
    params.server_addresses.count = 1;
    params.server_addresses.items[0] = transports[static_cast<size_t>(i % workers)]->local_address();
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
  std::vector<uint64_t> inputs(static_cast<size_t>(workers), 0);
  auto server_tick = [&](int tick, int w) {
    Server& server = *servers[static_cast<size_t>(w)];
    server.update(now, kUnix + 1);
    ServerEvent event;
    while (server.next_event(event)) {
    }
    // one_walk: each client's packets leave at the end of its turn (send_packets(i)), the walk's datagrams
    // held in one batch as send_packets() holds them.
    std::optional<TransportBatch> walk_batch;
    if (g_one_walk) walk_batch.emplace(*timed[static_cast<size_t>(w)]);
    for (int i = 0; i < server.max_clients(); ++i) {
      if (!server.is_connected(i)) continue;
      while (auto m = server.receive(i, kUnreliable)) ++inputs[static_cast<size_t>(w)];
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
      if (g_one_walk) server.send_packets(i);
    }
    if (!g_one_walk) server.send_packets();
  };
  // Every worker's tick, each on its own thread (worker 0 on this one); `seconds[w]` += its thread CPU time.
  std::vector<double> seconds(static_cast<size_t>(workers), 0.0);
  auto all_server_ticks = [&](int tick, bool timed_run) {
    auto one = [&](int w) {
      const double start = thread_cpu_seconds();
      if (timed_run) {
        measured_server_tick([&] { server_tick(tick, w); });
      } else {
        server_tick(tick, w);
      }
      if (timed_run) seconds[static_cast<size_t>(w)] += thread_cpu_seconds() - start;
    };
    std::vector<std::thread> threads;
    for (int w = 1; w < workers; ++w) threads.emplace_back(one, w);
    one(0);
    for (std::thread& t : threads) t.join();
  };
  auto connected = [&] {
    int n = 0;
    for (const auto& server : servers) n += server->connected_count();
    return n;
  };
  auto totals = [&](uint64_t& sent, uint64_t& received, uint64_t& packets_sent, uint64_t& packets_received) {
    sent = received = packets_sent = packets_received = 0;
    for (const auto& server : servers) {
      for (int i = 0; i < server->max_clients(); ++i) {
        sent += server->netcode().stats(i).bytes_sent;
        received += server->netcode().stats(i).bytes_received;
        packets_sent += server->netcode().stats(i).packets_sent;
        packets_received += server->netcode().stats(i).packets_received;
      }
    }
  };

  // Connect (untimed), then a warm-up second, then the measured ticks.
  for (int tick = 0; tick < 600 && connected() < client_count; ++tick) {
    now += 1.0 / 60.0;
    client_tick(tick);
    all_server_ticks(tick, false);
  }
  for (int tick = 0; tick < 60; ++tick) {
    now += 1.0 / 60.0;
    client_tick(tick);
    all_server_ticks(tick, false);
  }
  result.connected = connected();
  uint64_t sent0 = 0, received0 = 0, packets_sent0 = 0, packets_received0 = 0;
  totals(sent0, received0, packets_sent0, packets_received0);
  for (auto& t : timed) {
    t->seconds = 0.0;
    t->calls = 0;
  }
  std::fill(inputs.begin(), inputs.end(), 0);
  for (int tick = 0; tick < ticks; ++tick) {
    now += 1.0 / 60.0;
    client_tick(tick);
    all_server_ticks(tick, true);
  }
  uint64_t sent = 0, received = 0, packets_sent = 0, packets_received = 0;
  totals(sent, received, packets_sent, packets_received);
  sent -= sent0;
  received -= received0;
  packets_sent -= packets_sent0;
  packets_received -= packets_received0;
  const double game_seconds = ticks / 60.0;
  result.ticks = ticks;
  // The clock reads inside the decorator are part of the workers' time too: take them out of both.
  const double clock_pair = clock_pair_seconds();
  double transport_seconds = 0.0, server_seconds = 0.0;
  for (int w = 0; w < workers; ++w) {
    const TimedTransport& t = *timed[static_cast<size_t>(w)];
    const double clock_cost = clock_pair * static_cast<double>(t.calls);
    transport_seconds += std::max(0.0, t.seconds - clock_cost);
    const double worker = std::max(1e-9, seconds[static_cast<size_t>(w)] - clock_cost);
    seconds[static_cast<size_t>(w)] = worker;
    server_seconds += worker;
    result.busiest_worker_seconds = std::max(result.busiest_worker_seconds, worker);
  }
  result.transport_seconds = transport_seconds;
  result.server_seconds = server_seconds;
  for (uint64_t n : inputs) result.inputs_received += n;
  result.up_bytes_per_second = static_cast<double>(received) / game_seconds / client_count;
  result.down_bytes_per_second = static_cast<double>(sent) / game_seconds / client_count;
  // The servers opened `packets_received` packets and sealed `packets_sent`, at these average sizes.
  const size_t up_size = packets_received ? received / packets_received : 0;
  const size_t down_size = packets_sent ? sent / packets_sent : 0;
  constexpr int kSamples = 20000;
  result.crypto_seconds = aead_seconds(up_size, kSamples) / kSamples * static_cast<double>(packets_received) +
                          aead_seconds(down_size, kSamples) / kSamples * static_cast<double>(packets_sent);
  std::fprintf(stderr, "  %s %d clients, %d worker(s): %llu up packets of %zu B, %llu down of %zu B\n",
               result.transport, client_count, workers, static_cast<unsigned long long>(packets_received),
               up_size, static_cast<unsigned long long>(packets_sent), down_size);
  for (int w = 0; w < workers; ++w) {
    std::fprintf(
        stderr, "  worker %d: %d clients, %.2f us CPU per client-tick\n", w,
        servers[static_cast<size_t>(w)]->connected_count(),
        1e6 * seconds[static_cast<size_t>(w)] /
            (static_cast<double>(std::max(servers[static_cast<size_t>(w)]->connected_count(), 1)) * ticks));
  }
  return result;
}

void print(const Result& r) {
  const double client_ticks = static_cast<double>(r.clients) * r.ticks;
  const double per_client_tick_us = 1e6 * r.server_seconds / client_ticks;
  const double sustained = (1.0 / 60.0) / (r.server_seconds / client_ticks);
  const double transport = 100.0 * r.transport_seconds / r.server_seconds;
  const double crypto = 100.0 * r.crypto_seconds / r.server_seconds;
  // With workers, the clients the machine sustains at 60 Hz: the busiest worker's core is the limit.
  const double busiest_share = r.busiest_worker_seconds / r.server_seconds;
  std::printf(
      "| %s | %d (%d connected) | %d | %.2f | %.0f | %.0f%% | %.0f / %.0f | %.0f%% | %.0f%% | %.0f%% | %zu | "
      "%.1f%% |\n",
      r.transport, r.clients, r.connected, r.workers, per_client_tick_us, sustained, 100.0 * busiest_share,
      r.up_bytes_per_second, r.down_bytes_per_second, crypto, transport,
      std::max(0.0, 100.0 - crypto - transport), r.memory_per_slot,
      100.0 * static_cast<double>(r.inputs_received) / client_ticks);
  std::fflush(stdout);
}

// From the clients that connected (the table's exit code fails when any did not).
double clients_per_core(const Result& r) {
  return (1.0 / 60.0) / (r.server_seconds / (static_cast<double>(std::max(r.connected, 1)) * r.ticks));
}

// Issue 24's table, every row measured in this one run (plain UDP: the decorator reads no clock). The rows
// counted in instructions in the issue (a packet build with nothing due, the receive path) need callgrind,
// which this program cannot run on itself (no hardware counters on the VM): their deterministic part (the
// entries a build visits) and their time are printed, the instruction counts come from the callgrind
// commands in bench/RESULTS.md.
int run_table(int clients) {
  g_time_transport = false;
  std::fprintf(stderr, "stack_bench table: %d clients, 600 ticks each run\n", clients);
  const Result udp1 = run(true, clients, 600, 1);
  const Result udp2 = run(true, clients, 600, 2);
  const Result inproc = run(false, clients, 600, 1);
  std::printf("| what | measured | goal |\n|---|---|---|\n");
  std::printf(
      "| clients one core serves at 60 Hz, %d clients, loopback UDP | %.0f (%.2f us per client-tick, %d "
      "connected) "
      "| >= 3,000 |\n",
      clients, clients_per_core(udp1),
      1e6 * udp1.server_seconds / (static_cast<double>(std::max(udp1.connected, 1)) * udp1.ticks),
      udp1.connected);
  std::printf(
      "| the same, in-process transport | %.0f (%.2f us per client-tick, %d connected) | >= 5,000 |\n",
      clients_per_core(inproc),
      1e6 * inproc.server_seconds / (static_cast<double>(std::max(inproc.connected, 1)) * inproc.ticks),
      inproc.connected);
  const double busiest = udp2.busiest_worker_seconds / udp2.server_seconds;
  std::printf(
      "| server cores used: 2 workers (one port each, clients named round-robin in the token), loopback UDP "
      "| "
      "%.0f clients a core, the busiest worker's share of the server CPU time %.0f%% (50%% = even), %.0f "
      "clients on 2 cores by the busiest (%d "
      "connected) | all of the machine's, clients spread evenly |\n",
      clients_per_core(udp2), 100.0 * busiest,
      (1.0 / 60.0) /
          (udp2.busiest_worker_seconds / (static_cast<double>(std::max(udp2.connected, 1)) * udp2.ticks)),
      udp2.connected);
  const StackConfig defaults;
  const size_t with_blocks = stack_slot_memory(defaults, kFactoryWithBlock);
  const size_t without_blocks = stack_slot_memory(defaults, kFactory);
  const size_t bench_slot = stack_slot_memory(bench_config(clients), kFactory);
  constexpr double kFourGiB = 4294967296.0;
  std::printf(
      "| bytes of a server slot, default StackConfig, this program's types + a block type / without it; this "
      "program's config | %zu (%.0f slots in 4 GiB) / %zu (%.0f) ; %zu (%.0f) | <= 1 MB by default: 4,096 "
      "slots "
      "fit |\n",
      with_blocks, kFourGiB / static_cast<double>(with_blocks), without_blocks,
      kFourGiB / static_cast<double>(without_blocks), bench_slot, kFourGiB / static_cast<double>(bench_slot));
  const bench::NothingDueRow small = bench::measure_nothing_due(1024, 65000, 20000);
  const bench::NothingDueRow large = bench::measure_nothing_due(32768, 65000, 20000);
  std::printf(
      "| packet build with nothing due, 65,000 reliable messages queued, window 1,024 / 32,768 | entries "
      "visited %d / %d, %.0f / %.0f ns a build (%s; %.1f / %.1f bytes a build) | flat in the queue length and "
      "the window |\n",
      small.walk, large.walk, small.ns_per_build, large.ns_per_build,
      small.ok && large.ok ? "every message queued" : "A SEND WAS REFUSED",
      static_cast<double>(small.bytes) / 20000.0, static_cast<double>(large.bytes) / 20000.0);
  const bench::MessageResendRow resend = bench::measure_message_resends(5.0, 100.0, -1.0, 4);
  std::printf(
      "| sends per delivered reliable message, 100 ms RTT, 5%% loss | %.3f (%.0f bytes per 100-byte "
      "message), "
      "latency p50 %.0f ms, p99 %.0f ms | <= 1.2, p99 <= 255 ms |\n",
      resend.sends_per_delivered, resend.bytes_per_delivered, resend.p50_ms, resend.p99_ms);
  const bench::BlockTailRow block = bench::measure_block_tail(200);
  if (block.ok) {
    std::printf(
        "| 256 KiB block at 10%% loss, 100 ms RTT: time / (size / budget / (1 - loss)), 200 seeds | mean "
        "%.3f, "
        "p90 %.3f, max %.3f (%d over 1.25) | p90 <= 1.25 |\n",
        block.mean, block.p90, block.max, block.over_1_25);
  } else {
    std::printf("| 256 KiB block at 10%% loss | seed %d: missing or corrupt | p90 <= 1.25 |\n",
                block.failed_seed);
  }
  std::printf(
      "| receive path per packet; socket overhead per datagram | instructions: callgrind (bench/RESULTS.md, "
      "\"Batched sends, an amortised receive path\") | under 500 instructions a datagram |\n");
  return udp1.connected == clients && udp2.connected == clients && inproc.connected == clients && block.ok &&
                 small.ok && large.ok
             ? 0
             : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (sodium_init() < 0) return 1;
  struct Run {
    bool udp;
    int clients;
    int workers;
  };
  std::vector<Run> runs;
  bool udp = false;
  int workers = 1;
  if (argc > 1 && std::string(argv[1]) == "table") return run_table(argc > 2 ? std::atoi(argv[2]) : 1000);
  int ticks = 600;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "udp") {
      udp = true;
    } else if (arg == "inproc") {
      udp = false;
    } else if (arg == "plain") {
      g_time_transport = false;
    } else if (arg == "one_walk") {
      g_one_walk = true;
    } else if (arg.rfind("workers=", 0) == 0) {
      workers = std::atoi(arg.c_str() + 8);
    } else if (arg.rfind("ticks=", 0) == 0) {
      ticks = std::max(1, std::atoi(arg.c_str() + 6));
    } else {
      runs.push_back({udp, std::atoi(argv[i]), workers});
    }
  }
  if (runs.empty()) runs = {{false, 64, 1}, {false, 256, 1}, {false, 1024, 1}, {true, 64, 1}, {true, 256, 1}};
  std::printf(
      "| transport | clients | workers | server CPU us / client-tick (all workers) | clients at 60 Hz per "
      "core | "
      "busiest worker's share | bytes/s per client up / down | crypto | transport | stack (rest) | bytes per "
      "slot | inputs delivered |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const Run& r : runs) print(run(r.udp, r.clients, ticks, r.workers));
  return 0;
}
