// Large blocks: how long a 256 KiB block takes over a simulated link at 0% and 10% loss (both ways) at the
// default budget, next to what the budget allows -- with the chunk sender/receiver, and as a reliable block
// message through a Connection pair (fragments in connection packets over the endpoint); and the CPU cost per fragment of the scheduling
// (BlockSender next_fragment + ack) and reassembly (BlockReceiver on_fragment), at 256 and 65,536
// fragments per block to show the per-fragment cost does not grow with the block. No assertions on times.
#include <benchmark/benchmark.h>

#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "bitwire/message/block.hpp"
#include "bitwire/message/chunk.hpp"
#include "bitwire/message/connection.hpp"
#include "bitwire/sim/link.hpp"
#include "bitwire/serialize/serialize.hpp"
#include "bitwire/sim/simulator.hpp"

namespace {

constexpr double kTick = 1.0 / 60.0;
constexpr uint32_t kBlockBytes = 256 * 1024;

// One 256 KiB chunk from a ChunkSender to a ChunkReceiver over two NetworkSimulators (50 ms each way,
// `loss` percent each way), stepped at 60 Hz. Counters: simulated seconds until the receiver holds the
// chunk (mean over iterations), the seconds the budget allows (wire bytes / budget), their ratio, slices
// sent per chunk, and CPU time per slice sent (sender, receiver and both simulators together).
void BM_ChunkTransfer(benchmark::State& state) {
  const double loss = static_cast<double>(state.range(0));
  const bitwire::ChunkConfig config;
  std::vector<std::byte> block(kBlockBytes);
  for (size_t i = 0; i < block.size(); ++i)
    block[i] = static_cast<std::byte>((i * 2654435761u >> 24) & 0xFFu);
  bitwire::NetworkConditions net;
  net.latency_ms = 50.0;
  net.loss_percent = loss;
  double simulated = 0.0;
  uint64_t slices = 0;
  uint64_t seed = 1;
  for (auto _ : state) {
    state.PauseTiming();  // construction (buffers, simulator slots) is not part of moving the block
    bitwire::ChunkSender sender(config);
    bitwire::ChunkReceiver receiver(config);
    bitwire::NetworkSimulator forward({seed, 4096, 1200, net});
    bitwire::NetworkSimulator backward({seed + 1000, 4096, 1200, net});
    seed += 2;
    state.ResumeTiming();
    double now = 0.0;
    sender.send(block, now);
    while (!receiver.has_chunk()) {
      now += kTick;
      sender.generate_packets(now, [&](std::span<const std::byte> p) { forward.send(now, p); });
      forward.deliver(now, [&](std::span<const std::byte> p) { receiver.process_packet(p); });
      receiver.generate_packets(now, [&](std::span<const std::byte> p) { backward.send(now, p); });
      backward.deliver(now, [&](std::span<const std::byte> p) { sender.process_packet(p); });
    }
    if (std::memcmp(receiver.chunk().data(), block.data(), block.size()) != 0) state.SkipWithError("corrupt");
    simulated += now;
    slices += sender.scheduler().counters().fragments_sent;
  }
  const double n = static_cast<double>(state.iterations());
  const double wire = kBlockBytes + 256.0 * config.block.fragment_overhead_bytes;
  const double allowed = wire / config.block.bandwidth_bytes_per_second;
  state.counters["sim_s"] = simulated / n;
  state.counters["budget_s"] = allowed;
  state.counters["ratio"] = simulated / n / allowed;
  state.counters["slices"] = static_cast<double>(slices) / n;
  state.counters["cpu_per_slice"] = benchmark::Counter(
      static_cast<double>(slices), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_ChunkTransfer)->Arg(0)->Arg(10)->Unit(benchmark::kMillisecond);

// A block message of the connection benchmark.
struct Level {
  static constexpr uint32_t kTypeId = 0;
  static constexpr bool kHasBlock = true;
  uint32_t id = 0;
  template <typename Stream>
  bool serialize(Stream& stream) {
    return bitwire::serialize_bits(stream, id, 32);
  }
};
constexpr bitwire::MessageTypeInfo kLevelTypes[] = {bitwire::describe_message<Level>("Level")};

// One 256 KiB block message from Connection A to Connection B on the default reliable channel (1 KiB
// fragments, budget 262,144 bytes/s, 40 bytes charged per fragment, 1200-byte packets), over a Link of
// 50 ms each way and `loss` percent each way, both sides ticked at 60 Hz with send_packets() (several
// fragments per tick). Counters as BM_ChunkTransfer: simulated seconds until B's receive() returns the
// block, what the budget allows, the ratio, fragments sent, extra packets per transfer, CPU per fragment.
void BM_ConnectionBlockTransfer(benchmark::State& state) {
  const double loss = static_cast<double>(state.range(0));
  const bitwire::ConnectionConfig config;
  const bitwire::MessageFactory factory(kLevelTypes);
  std::vector<std::byte> block(kBlockBytes);
  for (size_t i = 0; i < block.size(); ++i) block[i] = static_cast<std::byte>(i * 2654435761u >> 24);
  bitwire::NetworkConditions net;
  net.latency_ms = 50.0;
  net.loss_percent = loss;
  double simulated = 0.0;
  uint64_t fragments = 0;
  uint64_t extra = 0;
  uint64_t seed = 1;
  for (auto _ : state) {
    state.PauseTiming();  // construction is not part of moving the block
    auto link = std::make_unique<bitwire::Link>(bitwire::LinkConfig::symmetric(net, seed++, 4096, 1500));
    auto a = std::make_unique<bitwire::Connection>(factory, config);
    auto b = std::make_unique<bitwire::Connection>(factory, config);
    a->endpoint().set_callbacks(link->callbacks(bitwire::LinkSide::kA, a->endpoint_callbacks()));
    b->endpoint().set_callbacks(link->callbacks(bitwire::LinkSide::kB, b->endpoint_callbacks()));
    link->connect(a->endpoint(), b->endpoint());
    bitwire::MessageHandle m = a->create<Level>();
    m.attach_block(block);
    state.ResumeTiming();
    double now = 0.0;
    if (!a->send(0, std::move(m))) state.SkipWithError("send refused");
    bitwire::MessageHandle got;
    while (!got && now < 60.0) {
      now += kTick;
      a->update(now);
      b->update(now);
      link->update(now);
      a->send_packets();
      b->send_packets();
      got = b->receive(0);
    }
    if (!got || got.block().size() != block.size() ||
        std::memcmp(got.block().data(), block.data(), block.size()) != 0) {
      state.SkipWithError("block missing or corrupt");
    }
    simulated += now;
    fragments += a->channel_counters(0).block_fragments_sent;
    extra += a->counters().extra_packets;
    state.PauseTiming();
    got.reset();
    b.reset();
    a.reset();
    link.reset();
    state.ResumeTiming();
  }
  const double n = static_cast<double>(state.iterations());
  const double wire = kBlockBytes + 256.0 * config.channels[0].block_fragment_overhead_bytes;
  const double allowed = wire / config.channels[0].block_bandwidth_bytes_per_second;
  state.counters["sim_s"] = simulated / n;
  state.counters["budget_s"] = allowed;
  state.counters["ratio"] = simulated / n / allowed;
  state.counters["fragments"] = static_cast<double>(fragments) / n;
  state.counters["extra_packets"] = static_cast<double>(extra) / n;
  state.counters["cpu_per_fragment"] = benchmark::Counter(
      static_cast<double>(fragments), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_ConnectionBlockTransfer)->Arg(0)->Arg(10)->Unit(benchmark::kMillisecond);

// Scheduling alone: one iteration sends a whole block with an unlimited budget and acks each fragment as
// it goes (next_fragment + on_fragment_acked per fragment). items = fragments.
void BM_BlockSenderPerFragment(benchmark::State& state) {
  bitwire::BlockConfig config;
  config.fragment_size = static_cast<int>(state.range(1));
  config.max_block_size = static_cast<int>(state.range(0)) * config.fragment_size;
  config.bandwidth_bytes_per_second = 1e12;
  config.max_budget_bytes = 1 << 30;
  bitwire::BlockSender sender(config);
  sender.reset(-1.0);
  double now = 0.0;
  uint64_t fragments = 0;
  for (auto _ : state) {
    now += 1.0;
    sender.begin(static_cast<uint32_t>(config.max_block_size), now);
    while (auto fragment = sender.next_fragment(now, 65536)) {
      benchmark::DoNotOptimize(fragment->offset);
      sender.on_fragment_acked(fragment->id);
      ++fragments;
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(fragments));
}
BENCHMARK(BM_BlockSenderPerFragment)->Args({256, 1024})->Args({65536, 16});

// The sender's worst case for a scan-based design: every fragment in flight and not yet due. Each call
// must answer "nothing to send" without walking the block. items = calls.
void BM_BlockSenderNothingDue(benchmark::State& state) {
  bitwire::BlockConfig config;
  config.fragment_size = 16;
  config.max_block_size = static_cast<int>(state.range(0)) * 16;
  config.bandwidth_bytes_per_second = 1e12;
  config.max_budget_bytes = 1 << 30;
  config.min_resend_delay = 1e6;
  bitwire::BlockSender sender(config);
  sender.reset(-1.0);
  sender.begin(static_cast<uint32_t>(config.max_block_size), 0.0);
  while (sender.next_fragment(0.0, 65536)) {
  }
  for (auto _ : state) benchmark::DoNotOptimize(sender.next_fragment(1.0, 65536));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_BlockSenderNothingDue)->Arg(256)->Arg(65536);

// Reassembly alone: one iteration stores every fragment of a block (in a scattered order) and releases
// it. items = fragments, bytes = block bytes.
void BM_BlockReceiverPerFragment(benchmark::State& state) {
  bitwire::BlockConfig config;
  config.fragment_size = static_cast<int>(state.range(1));
  config.max_block_size = static_cast<int>(state.range(0)) * config.fragment_size;
  bitwire::BlockReceiver receiver(config);
  const uint32_t count = static_cast<uint32_t>(state.range(0));
  std::vector<std::byte> fragment(static_cast<size_t>(config.fragment_size), std::byte{0x5A});
  uint32_t block_id = 0;
  for (auto _ : state) {
    for (uint32_t i = 0; i < count; ++i) {
      const uint32_t id = (i * 167u) % count;  // 167 is prime: a permutation for these counts
      receiver.on_fragment(block_id, id, count, fragment);
    }
    if (!receiver.complete()) state.SkipWithError("incomplete");
    receiver.release();
    ++block_id;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * count);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * config.max_block_size);
}
BENCHMARK(BM_BlockReceiverPerFragment)->Args({256, 1024})->Args({65536, 16});

}  // namespace
