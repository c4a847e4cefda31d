// Channels and connections: the cost of building a packet against the number of reliable messages queued
// (1, 1,000, 65,000), messages per second through a connection pair on a perfect link (small reliable
// messages; unreliable snapshots of generated/game.hpp), and the wire overhead per message. No assertions
// on times: the figures go to bench/RESULTS.md.
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "../generated/game.hpp"
#include "bitwire/message/connection.hpp"
#include "bitwire/serialize/serialize.hpp"

namespace {

using bitwire::Connection;
using bitwire::ConnectionConfig;
using bitwire::MessageFactory;
using bitwire::MessageHandle;

struct Small {
  static constexpr uint32_t kTypeId = 0;
  uint8_t value = 0;
  template <typename Stream>
  bool serialize(Stream& stream) {
    return bitwire::serialize_bits(stream, value, 8);
  }
};

constexpr bitwire::MessageTypeInfo kSmallTypes[] = {bitwire::describe_message<Small>("Small")};

constexpr bitwire::MessageTypeInfo kGameTypes[] = {
    bitwire::describe_message<game::PlayerInput>("PlayerInput"), bitwire::describe_message<game::Snapshot>("Snapshot"),
    bitwire::describe_message<game::Events>("Events"), bitwire::describe_message<game::ScoreUpdate>("ScoreUpdate"),
    bitwire::describe_message<game::Chat>("Chat"), bitwire::describe_message<game::LevelLoad>("LevelLoad")};

// Packet build with `queued` reliable messages waiting. Arg 1 selects the moment:
//   0: every queued message is due (last sent > 0.1 s ago): the packet fills from the oldest;
//   1: every message in the window was just sent: nothing is due (the build reads the list heads only;
//      bench/resend_bench.cpp nothingdue counts its instructions).
// Nothing is ever acked, so the queue stays as it is.
void BM_PacketBuild(benchmark::State& state) {
  const int queued = static_cast<int>(state.range(0));
  const bool all_recent = state.range(1) != 0;
  ConnectionConfig config;
  config.max_packet_size = 1200;
  config.channels[0].send_queue_size = 65536;
  config.message_pool_size = 66000;
  Connection connection(MessageFactory(kSmallTypes), config);
  for (int i = 0; i < queued; ++i) {
    if (!connection.send(0, connection.create<Small>())) state.SkipWithError("send refused");
  }
  std::vector<std::byte> buffer(1200);
  uint16_t sequence = 0;
  double now = 0.0;
  // Prime: one packet marks the window's first messages sent; under all_recent, send until the whole
  // window has been sent once at time 0.
  connection.update(now);
  for (int i = 0; i < 8; ++i) connection.generate_packet(sequence++, buffer);
  auto& channel = static_cast<bitwire::ReliableOrderedChannel&>(connection.channel(0));
  int64_t walked = 0;
  int64_t packets = 0;
  for (auto _ : state) {
    if (!all_recent) {
      now += 0.2;
      connection.update(now);
    }
    benchmark::DoNotOptimize(connection.generate_packet(sequence++, buffer));
    walked += channel.last_walk_length();
    ++packets;
  }
  state.counters["walk"] = benchmark::Counter(static_cast<double>(walked) / static_cast<double>(packets));
  state.counters["queued"] = queued;
  state.SetItemsProcessed(packets);
}
BENCHMARK(BM_PacketBuild)->Args({1, 0})->Args({1000, 0})->Args({65000, 0})->Args({1, 1})->Args({1000, 1})->Args({65000, 1});

// Two connections whose transmit hands each datagram straight to the other: a perfect link.
struct Pair {
  Pair(const MessageFactory& factory, const ConnectionConfig& config)
      : a(std::make_unique<Connection>(factory, config, bitwire::ConnectionCallbacks{&b_slot, &forward})),
        b(std::make_unique<Connection>(factory, config, bitwire::ConnectionCallbacks{&a_slot, &forward})) {
    a_slot = a.get();
    b_slot = b.get();
  }
  static void forward(void* context, std::span<const std::byte> datagram) {
    (*static_cast<Connection**>(context))->receive_packet(datagram);
  }
  Connection* a_slot = nullptr;
  Connection* b_slot = nullptr;
  std::unique_ptr<Connection> a;
  std::unique_ptr<Connection> b;
};

// Small reliable messages: each iteration queues `batch` on A, sends one packet each way (data, then the
// ack) and receives them on B.
void BM_ReliableSmallMessages(benchmark::State& state) {
  const int batch = static_cast<int>(state.range(0));
  ConnectionConfig config;
  config.max_packet_size = 1200;
  config.endpoint.envelope = false;
  Pair pair(MessageFactory(kSmallTypes), config);
  double now = 0.0;
  int64_t received = 0;
  for (auto _ : state) {
    now += 1.0 / 60.0;
    pair.a->update(now);
    pair.b->update(now);
    for (int i = 0; i < batch; ++i) {
      MessageHandle m = pair.a->create<Small>();
      m.as<Small>()->value = static_cast<uint8_t>(i);
      pair.a->send(0, std::move(m));
    }
    pair.a->send_packet();
    pair.b->send_packet();
    while (MessageHandle m = pair.b->receive(0)) {
      benchmark::DoNotOptimize(m.as<Small>()->value);
      ++received;
    }
  }
  if (pair.a->send_queue_depth(0) != 0) state.SkipWithError("messages left unacked");
  state.SetItemsProcessed(received);
}
BENCHMARK(BM_ReliableSmallMessages)->Arg(1)->Arg(16)->Arg(256);

// Unreliable snapshots of 16 entities (about 2,000 bits each): one per packet.
void BM_UnreliableSnapshots(benchmark::State& state) {
  ConnectionConfig config;
  config.max_packet_size = 1200;
  config.endpoint.envelope = false;
  config.channels[0].type = bitwire::ChannelType::kUnreliableUnordered;
  Pair pair(MessageFactory(kGameTypes), config);
  game::Snapshot snapshot;
  (void)snapshot.entities.resize(16);
  for (size_t i = 0; i < 16; ++i) {
    snapshot.entities[i].id = static_cast<uint8_t>(i);
    snapshot.entities[i].kind = static_cast<game::EntityKind>(i % 4);
  }
  double now = 0.0;
  int64_t received = 0;
  for (auto _ : state) {
    now += 1.0 / 60.0;
    pair.a->update(now);
    MessageHandle m = pair.a->create<game::Snapshot>();
    *m.as<game::Snapshot>() = snapshot;
    m.as<game::Snapshot>()->tick = static_cast<uint32_t>(received);
    pair.a->send(0, std::move(m));
    pair.a->send_packet();
    while (MessageHandle got = pair.b->receive(0)) {
      benchmark::DoNotOptimize(got.as<game::Snapshot>()->tick);
      ++received;
    }
  }
  state.SetItemsProcessed(received);
}
BENCHMARK(BM_UnreliableSnapshots);

// Wire overhead: the packet for n consecutive small (8-bit) reliable messages, in bits per message
// beyond the 8-bit body (one channel, one type). Not a timing: the counters are the result.
void BM_OverheadBitsPerMessage(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  size_t bytes = 0;
  for (auto _ : state) {
    ConnectionConfig config;
    Connection connection(MessageFactory(kSmallTypes), config);
    for (int i = 0; i < n; ++i) connection.send(0, connection.create<Small>());
    std::vector<std::byte> buffer(1024);
    bytes = connection.generate_packet(0, buffer);
  }
  state.counters["packet_bytes"] = static_cast<double>(bytes);
  state.counters["overhead_bits_per_message"] = (static_cast<double>(bytes) * 8.0 - 8.0 * n) / n;
}
BENCHMARK(BM_OverheadBitsPerMessage)->Arg(1)->Arg(10)->Arg(100)->Iterations(1);

}  // namespace
