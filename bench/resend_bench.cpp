// Reliable resend timing and block transfer tails over the simulator (a Link between two Connections, both
// ticked at 60 Hz with send_packets() every tick). Simulated time only: no CPU figures here, so the results
// do not depend on the machine's load. Three modes:
//
//   resend_bench messages [fixed|F] sends per delivered reliable message and latency, at 5% and 25% loss both
//                                  ways and RTT 50-300 ms (half each way): A sends one 100-byte reliable
//                                  message every 6 ticks (10 a second) for 60 s, 4 seeds a cell.
//                                  `fixed` runs the yojimbo-style fixed 0.1 s resend time instead; a
//                                  number F sets message_resend_rtt_factor (default: the config's).
//   resend_bench block [seeds]     one 256 KiB block message at 10% loss both ways, RTT 100 ms, default
//                                  channel (budget 262,144 bytes/s): time / (size / budget / (1 - loss)),
//                                  mean, p90 and max over `seeds` seeds (default 200).
//   resend_bench nothingdue W Q K  a packet build with nothing due, receive window W, Q messages queued,
//                                  repeated K times; run under callgrind with K and 0 and divide the
//                                  difference by K for the instructions of one build.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bitwire/message/channel.hpp"
#include "bitwire/message/connection.hpp"
#include "bitwire/serialize/serialize.hpp"
#include "bitwire/sim/link.hpp"

namespace {

using namespace bitwire;

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

double percentile(std::vector<double>& values, double p) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const auto index = static_cast<size_t>(p * static_cast<double>(values.size() - 1) + 0.5);
  return values[std::min(index, values.size() - 1)];
}

int run_messages(double factor) {
  const MessageFactory factory(kEventTypes);
  ConnectionConfig config;
  const bool fixed = factor == 0.0;
  if (factor >= 0.0) config.channels[0].message_resend_rtt_factor = factor;
  std::printf("resend: %s (message_resend_time %.3f s, rtt factor %.2f, jitter factor %.1f)\n",
              fixed ? "fixed" : "from the RTT", config.channels[0].message_resend_time,
              config.channels[0].message_resend_rtt_factor, config.channels[0].message_resend_jitter_factor);
  std::printf(
      "| loss | RTT | sends per delivered | bytes per delivered (100-byte message) | latency p50 | p99 | max "
      "|\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  for (const double loss : {5.0, 25.0}) {
    for (const double rtt : {50.0, 100.0, 200.0, 300.0}) {
      NetworkConditions net;
      net.latency_ms = rtt / 2.0;
      net.loss_percent = loss;
      std::vector<double> latencies;
      uint64_t sent = 0;
      uint64_t delivered = 0;
      for (uint64_t seed = 1; seed <= 4; ++seed) {
        Pair pair(factory, config, net, seed);
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
      const double per = static_cast<double>(sent) / static_cast<double>(delivered);
      std::vector<double> copy = latencies;
      const double p50 = percentile(copy, 0.50);
      const double p99 = percentile(copy, 0.99);
      const double max = copy.empty() ? 0.0 : copy.back();
      // Bytes a message copy costs in a packet: 100 bytes of body plus its id (16 bits, or relative).
      std::printf("| %.0f%% | %.0f ms | %.3f | %.0f | %.0f ms | %.0f ms | %.0f ms |\n", loss, rtt, per,
                  per * 102.0, p50, p99, max);
    }
  }
  return 0;
}

int run_block(int seeds) {
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
  for (int seed = 1; seed <= seeds; ++seed) {
    Pair pair(factory, config, net, static_cast<uint64_t>(seed));
    MessageHandle m = pair.a->create<Level>();
    if (!m.attach_block(block) || !pair.a->send(0, std::move(m))) {
      std::printf("send refused\n");
      return 1;
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
      std::printf("seed %d: block missing or corrupt (now %.2f, got %d, error %s)\n", seed, now, got ? 1 : 0,
                  to_string(pair.b->error()));
      return 1;
    }
    ratios.push_back(now / ideal);
    fragments += pair.a->channel_counters(0).block_fragments_sent;
  }
  double sum = 0.0;
  for (const double r : ratios) sum += r;
  std::vector<double> copy = ratios;
  const double p90 = percentile(copy, 0.90);
  const auto over = std::count_if(copy.begin(), copy.end(), [](double r) { return r > 1.25; });
  std::printf(
      "256 KiB block, 10%% loss both ways, RTT 100 ms, %d seeds: time / (size / budget / (1 - loss)) "
      "mean %.3f, p50 %.3f, p90 %.3f, max %.3f, %ld over 1.25; fragments sent per block %.1f\n",
      seeds, sum / static_cast<double>(seeds), percentile(copy, 0.5), p90, copy.back(),
      static_cast<long>(over), static_cast<double>(fragments) / seeds);
  return 0;
}

int run_nothing_due(int window, int queued, int repeats) {
  ConnectionConfig config;
  config.max_packet_size = 1200;
  config.channels[0].send_queue_size = 65536;
  config.channels[0].receive_queue_size = window;
  config.message_pool_size = 66000;
  Connection connection(MessageFactory(kSmallTypes), config);
  for (int i = 0; i < queued; ++i) {
    if (!connection.send(0, connection.create<Small>())) {
      std::printf("send refused at %d\n", i);
      return 1;
    }
  }
  std::vector<std::byte> buffer(1200);
  uint16_t sequence = 0;
  connection.update(0.0);
  // Send the whole window once at time 0 (256 messages a packet); nothing is acked afterwards.
  for (int i = 0; i < window / 256 + 2; ++i) connection.generate_packet(sequence++, buffer);
  size_t bytes = 0;
  for (int i = 0; i < repeats; ++i) bytes += connection.generate_packet(sequence++, buffer);
  const auto& channel = static_cast<const ReliableOrderedChannel&>(connection.channel(0));
  std::printf("window %d, queued %d, %d builds with nothing due: %zu bytes, last walk %d\n", window, queued,
              repeats, bytes, channel.last_walk_length());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "messages";
  if (mode == "messages") {
    const std::string arg = argc > 2 ? argv[2] : "";
    return run_messages(arg.empty() ? -1.0 : arg == "fixed" ? 0.0 : std::atof(arg.c_str()));
  }
  if (mode == "block") return run_block(argc > 2 ? std::atoi(argv[2]) : 200);
  if (mode == "nothingdue" && argc > 4)
    return run_nothing_due(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]));
  std::printf("usage: resend_bench messages [fixed|F] | block [seeds] | nothingdue W Q K\n");
  return 2;
}
