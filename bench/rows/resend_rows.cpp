#include "resend_rows.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <vector>

#include "bitwire/message/channel.hpp"
#include "bitwire/message/connection.hpp"
#include "bitwire/serialize/serialize.hpp"
#include "bitwire/sim/link.hpp"

namespace bitwire::bench {
namespace {

constexpr double kTick = 1.0 / 60.0;

struct Event {
  static constexpr uint32_t kTypeId = 0;
  uint8_t bytes[100] = {};
  template <typename Stream>
  bool serialize(Stream& stream) {
    return serialize_bytes(stream, bytes, sizeof(bytes));
  }
};

struct Small {
  static constexpr uint32_t kTypeId = 0;
  uint8_t value = 0;
  template <typename Stream>
  bool serialize(Stream& stream) {
    return serialize_bits(stream, value, 8);
  }
};

struct Level {
  static constexpr uint32_t kTypeId = 0;
  static constexpr bool kHasBlock = true;
  uint32_t id = 7;
  template <typename Stream>
  bool serialize(Stream& stream) {
    return serialize_bits(stream, id, 32);
  }
};

constexpr MessageTypeInfo kEventTypes[] = {describe_message<Event>("Event")};
constexpr MessageTypeInfo kSmallTypes[] = {describe_message<Small>("Small")};
constexpr MessageTypeInfo kLevelTypes[] = {describe_message<Level>("Level")};

struct Pair {
  std::unique_ptr<Link> link;
  std::unique_ptr<Connection> a;
  std::unique_ptr<Connection> b;
  Pair(const MessageFactory& factory, const ConnectionConfig& config, const NetworkConditions& net,
       uint64_t seed) {
    link = std::make_unique<Link>(LinkConfig::symmetric(net, seed, 4096, 1500));
    a = std::make_unique<Connection>(factory, config);
    b = std::make_unique<Connection>(factory, config);
    a->endpoint().set_callbacks(link->callbacks(LinkSide::kA, a->endpoint_callbacks()));
    b->endpoint().set_callbacks(link->callbacks(LinkSide::kB, b->endpoint_callbacks()));
    link->connect(a->endpoint(), b->endpoint());
  }
  void tick(double now) {
    a->update(now);
    b->update(now);
    link->update(now);
    a->send_packets();
    b->send_packets();
  }
};

// The value at fraction p of the sorted values (nearest rank).
double percentile(std::vector<double>& values, double p) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const auto index = static_cast<size_t>(p * static_cast<double>(values.size() - 1) + 0.5);
  return values[std::min(index, values.size() - 1)];
}

}  // namespace

MessageResendRow measure_message_resends(double loss_percent, double rtt_ms, double rtt_factor, int seeds) {
  const MessageFactory factory(kEventTypes);
  ConnectionConfig config;
  if (rtt_factor >= 0.0) config.channels[0].message_resend_rtt_factor = rtt_factor;
  NetworkConditions net;
  net.latency_ms = rtt_ms / 2.0;
  net.loss_percent = loss_percent;
  std::vector<double> latencies;
  uint64_t sent = 0;
  uint64_t delivered = 0;
  for (int seed = 1; seed <= seeds; ++seed) {
    Pair pair(factory, config, net, static_cast<uint64_t>(seed));
    std::vector<double> send_time;
    double now = 0.0;
    int tick = 0;
    const int send_ticks = 60 * 60;
    // Run on after the last send until everything is delivered (or 30 s more).
    while (tick < send_ticks || (pair.b->channel_counters(0).messages_delivered < send_time.size() &&
                                 tick < send_ticks + 30 * 60)) {
      now += kTick;
      ++tick;
      if (tick < send_ticks && tick % 6 == 0) {
        MessageHandle m = pair.a->create<Event>();
        if (pair.a->send(0, std::move(m))) send_time.push_back(now);
      }
      pair.tick(now);
      while (MessageHandle got = pair.b->receive(0)) {
        const uint64_t index = pair.b->channel_counters(0).messages_delivered - 1;
        latencies.push_back((now - send_time[index]) * 1000.0);
      }
    }
    sent += pair.a->channel_counters(0).messages_sent;
    delivered += pair.b->channel_counters(0).messages_delivered;
  }
  MessageResendRow row;
  row.delivered = delivered;
  row.sends_per_delivered = delivered ? static_cast<double>(sent) / static_cast<double>(delivered) : 0.0;
  row.bytes_per_delivered = row.sends_per_delivered * 102.0;
  row.p50_ms = percentile(latencies, 0.50);
  row.p99_ms = percentile(latencies, 0.99);
  row.max_ms = latencies.empty() ? 0.0 : latencies.back();
  return row;
}

BlockTailRow measure_block_tail(int seeds) {
  const MessageFactory factory(kLevelTypes);
  const ConnectionConfig config;
  constexpr uint32_t kBlockBytes = 256 * 1024;
  std::vector<std::byte> block(kBlockBytes);
  for (size_t i = 0; i < block.size(); ++i) block[i] = static_cast<std::byte>(i * 2654435761u >> 24);
  NetworkConditions net;
  net.latency_ms = 50.0;
  net.loss_percent = 10.0;
  const double ideal = kBlockBytes / config.channels[0].block_bandwidth_bytes_per_second / (1.0 - 0.10);
  std::vector<double> ratios;
  uint64_t fragments = 0;
  BlockTailRow row;
  for (int seed = 1; seed <= seeds; ++seed) {
    Pair pair(factory, config, net, static_cast<uint64_t>(seed));
    MessageHandle m = pair.a->create<Level>();
    if (!m.attach_block(block) || !pair.a->send(0, std::move(m))) {
      row.failed_seed = seed;
      return row;
    }
    double now = 0.0;
    MessageHandle got;
    while (!got && now < 60.0) {
      now += kTick;
      pair.tick(now);
      got = pair.b->receive(0);
    }
    if (!got || got.block().size() != block.size() ||
        std::memcmp(got.block().data(), block.data(), block.size()) != 0) {
      row.failed_seed = seed;
      return row;
    }
    ratios.push_back(now / ideal);
    fragments += pair.a->channel_counters(0).block_fragments_sent;
  }
  double sum = 0.0;
  for (const double r : ratios) sum += r;
  row.ok = seeds > 0;
  row.mean = seeds > 0 ? sum / static_cast<double>(seeds) : 0.0;
  row.p50 = percentile(ratios, 0.50);
  row.p90 = percentile(ratios, 0.90);
  row.max = ratios.empty() ? 0.0 : ratios.back();
  row.over_1_25 =
      static_cast<int>(std::count_if(ratios.begin(), ratios.end(), [](double r) { return r > 1.25; }));
  row.fragments_per_block = seeds > 0 ? static_cast<double>(fragments) / seeds : 0.0;
  return row;
}

NothingDueRow measure_nothing_due(int window, int queued, int repeats) {
  ConnectionConfig config;
  config.max_packet_size = 1200;
  config.channels[0].send_queue_size = 65536;
  config.channels[0].receive_queue_size = window;
  config.message_pool_size = 66000;
  Connection connection(MessageFactory(kSmallTypes), config);
  NothingDueRow row;
  for (int i = 0; i < queued; ++i) {
    if (!connection.send(0, connection.create<Small>())) return row;
  }
  std::vector<std::byte> buffer(1200);
  uint16_t sequence = 0;
  connection.update(0.0);
  // Send the whole window once at time 0 (256 messages a packet); nothing is acked afterwards.
  for (int i = 0; i < window / 256 + 2; ++i) connection.generate_packet(sequence++, buffer);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < repeats; ++i) row.bytes += connection.generate_packet(sequence++, buffer);
  const std::chrono::duration<double, std::nano> elapsed = std::chrono::steady_clock::now() - start;
  const auto& channel = static_cast<const ReliableOrderedChannel&>(connection.channel(0));
  row.ok = true;
  row.walk = channel.last_walk_length();
  row.ns_per_build = repeats > 0 ? elapsed.count() / repeats : 0.0;
  return row;
}

}  // namespace bitwire::bench
