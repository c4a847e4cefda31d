// Endpoint throughput: header write + read + ack processing per packet on a perfect link, fragmentation +
// reassembly of a 64 KiB packet next to memcpy of 64 KiB in the same run, CRC32, and the memory an
// endpoint allocates at defaults. No assertions on times: the figures go to docs/packets.md.
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "bitwire/core/crc32.hpp"
#include "bitwire/packet/endpoint.hpp"
#include "bitwire/packet/reassembler.hpp"

namespace {

using bitwire::Endpoint;
using bitwire::EndpointCallbacks;
using bitwire::EndpointConfig;

// Each endpoint's transmit callback hands the datagram straight to the other endpoint: a perfect link.
struct Pair {
  explicit Pair(const EndpointConfig& config)
      : a(config, EndpointCallbacks{&b_slot, &forward, &accept, nullptr}),
        b(config, EndpointCallbacks{&a_slot, &forward, &accept, nullptr}) {
    a_slot = &a;
    b_slot = &b;
  }
  static void forward(void* context, uint16_t, std::span<const std::byte> datagram) {
    (*static_cast<Endpoint**>(context))->receive_packet(datagram);
  }
  static bool accept(void* context, uint16_t, std::span<const std::byte> payload) {
    benchmark::DoNotOptimize(context);
    if (!payload.empty()) benchmark::DoNotOptimize(payload.back());
    return true;
  }
  Endpoint* a_slot = nullptr;
  Endpoint* b_slot = nullptr;
  Endpoint a;
  Endpoint b;
};

// One iteration: a sends a small packet to b, b sends one back; each send writes a header, each receive
// reads it, checks duplicates, delivers, and processes the acks (one new ack per packet in steady state).
// items_per_second counts packets (two per iteration).
void BM_SendReceiveAck(benchmark::State& state) {
  EndpointConfig config;
  config.envelope = state.range(0) != 0;
  Pair pair(config);
  std::vector<uint8_t> payload(static_cast<size_t>(state.range(1)), 0xA5);
  double now = 0.0;
  for (auto _ : state) {
    now += 0.001;
    pair.a.update(now);
    pair.b.update(now);
    pair.a.send_packet(std::as_bytes(std::span(payload)));
    pair.b.send_packet(std::as_bytes(std::span(payload)));
    pair.a.clear_acks();
    pair.b.clear_acks();
  }
  if (pair.a.counters().packets_acked + 1 < pair.a.counters().packets_sent) state.SkipWithError("acks lost");
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * 2);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 2 * state.range(1));
  state.counters["ns_per_packet"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * 2, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_SendReceiveAck)
    ->ArgNames({"envelope", "payload"})
    ->Args({0, 32})
    ->Args({1, 32})
    ->Args({0, 256})
    ->Args({1, 256});

// One iteration: a 64 KiB packet is split into 64 fragments of 1 KiB, transmitted, and reassembled by the
// receiver, which delivers it. bytes_per_second counts the 64 KiB payload.
void BM_Fragment64KiB(benchmark::State& state) {
  EndpointConfig config;
  config.envelope = state.range(0) != 0;
  config.max_packet_size = 64 * 1024;
  config.max_fragments = 64;
  config.fragment_size = 1024;
  Pair pair(config);
  std::vector<uint8_t> payload(64 * 1024);
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<uint8_t>(i * 7);
  for (auto _ : state) pair.a.send_packet(std::as_bytes(std::span(payload)));
  if (pair.b.counters().reassemblies_completed != static_cast<uint64_t>(state.iterations())) {
    state.SkipWithError("reassembly failed");
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(payload.size()));
}
BENCHMARK(BM_Fragment64KiB)->ArgName("envelope")->Arg(0)->Arg(1);

// The yardstick for BM_Fragment64KiB: one memcpy of 64 KiB.
void BM_Memcpy64KiB(benchmark::State& state) {
  std::vector<uint8_t> source(64 * 1024, 0x3C), destination(64 * 1024);
  for (auto _ : state) {
    std::memcpy(destination.data(), source.data(), source.size());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(source.size()));
}
BENCHMARK(BM_Memcpy64KiB);

void BM_Crc32(benchmark::State& state) {
  std::vector<uint8_t> data(static_cast<size_t>(state.range(0)), 0x77);
  for (auto _ : state) benchmark::DoNotOptimize(bitwire::crc32(data.data(), data.size()));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_Crc32)->Arg(64)->Arg(1200)->Arg(64 * 1024);

// Hostile CPU: every fragment names a new packet, so every add starts a reassembly and, with every slot
// busy, evicts one. Time per fragment at 8 and at 1,024 slots (the slot lookup is constant time, so the
// two should match; a linear scan of the slots cost 40x more at 1,024).
void BM_HostileFragment(benchmark::State& state) {
  bitwire::Reassembler reassembler(
      bitwire::ReassemblerConfig{2048, static_cast<int>(state.range(0)), 16, 1024});
  std::vector<uint8_t> data(1024, 0x42);
  uint16_t sequence = 0;
  for (int64_t i = 0; i <= state.range(0); ++i) {  // every slot busy before timing starts
    reassembler.add(sequence++, 1, 16, std::as_bytes(std::span(data)), 0, 0, 1);
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(reassembler.add(sequence++, 1, 16, std::as_bytes(std::span(data)), 0, 0, 1));
  }
  if (reassembler.evicted() == 0) state.SkipWithError("no eviction: the flood did not fill the slots");
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_HostileFragment)->ArgName("slots")->Arg(8)->Arg(1024);

// Not a timing: reports the bytes one endpoint allocates with the default config (counter `bytes`).
void BM_EndpointMemoryAtDefaults(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(Endpoint::memory_required(EndpointConfig{}));
  state.counters["bytes"] = static_cast<double>(Endpoint::memory_required(EndpointConfig{}));
  EndpointConfig small;
  small.reassembly_slots = 1;
  state.counters["bytes_1_slot"] = static_cast<double>(Endpoint::memory_required(small));
}
BENCHMARK(BM_EndpointMemoryAtDefaults);

}  // namespace

BENCHMARK_MAIN();
