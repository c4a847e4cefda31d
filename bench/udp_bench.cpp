// UdpSocket on loopback: one system call per datagram (send / receive) against batches (sendmmsg / recvmmsg).
// Each iteration sends 64 datagrams from one socket to another and receives all 64; items/s is datagrams
// through both ends. Loopback only: the figures measure system-call overhead, not a network.
#include <benchmark/benchmark.h>

#include <array>
#include <vector>

#include "bitwire/transport/transport.hpp"
#include "bitwire/transport/udp_socket.hpp"

namespace {

using namespace bitwire;

constexpr int kPerIteration = 64;

struct Pair {
  UdpSocket a, b;
  bool ok = false;
  Pair() {
    UdpSocketConfig config;
    config.receive_buffer_size = config.send_buffer_size = 4 << 20;
    ok = a.open(Address::ipv4(127, 0, 0, 1, 0), config) == SocketStatus::kOk &&
         b.open(Address::ipv4(127, 0, 0, 1, 0), config) == SocketStatus::kOk;
  }
};

void BM_UdpOneCallPerDatagram(benchmark::State& state) {
  Pair pair;
  if (!pair.ok) {
    state.SkipWithError("cannot open loopback sockets");
    return;
  }
  const size_t size = static_cast<size_t>(state.range(0));
  std::vector<std::byte> payload(size, std::byte{0x5A});
  std::array<std::byte, 1500> buffer{};
  uint64_t lost = 0;
  for (auto _ : state) {
    for (int i = 0; i < kPerIteration; ++i) pair.a.send(pair.b.local_address(), payload);
    int got = 0;
    Address from;
    size_t n = 0;
    for (int spin = 0; spin < 100000 && got < kPerIteration; ++spin) {
      if (pair.b.receive(buffer, from, n) == SocketStatus::kOk) ++got;
    }
    lost += static_cast<uint64_t>(kPerIteration - got);
  }
  state.SetItemsProcessed(state.iterations() * kPerIteration);
  state.SetBytesProcessed(state.iterations() * kPerIteration * static_cast<int64_t>(size));
  state.counters["lost"] = static_cast<double>(lost);
}

void BM_UdpBatched(benchmark::State& state) {
  Pair pair;
  if (!pair.ok) {
    state.SkipWithError("cannot open loopback sockets");
    return;
  }
  const size_t size = static_cast<size_t>(state.range(0));
  std::vector<std::array<std::byte, 1500>> out(kPerIteration), in(kPerIteration);
  std::vector<Datagram> sends(kPerIteration), receives(kPerIteration);
  for (int i = 0; i < kPerIteration; ++i) {
    out[i].fill(std::byte{0x5A});
    sends[i].buffer = out[i];
    sends[i].size = size;
    sends[i].address = pair.b.local_address();
    receives[i].buffer = in[i];
  }
  uint64_t lost = 0;
  for (auto _ : state) {
    pair.a.send_batch(sends);
    size_t got = 0;
    for (int spin = 0; spin < 100000 && got < kPerIteration; ++spin) {
      SocketStatus status;
      got += pair.b.receive_batch(std::span(receives).subspan(got), status);
    }
    lost += kPerIteration - got;
  }
  state.SetItemsProcessed(state.iterations() * kPerIteration);
  state.SetBytesProcessed(state.iterations() * kPerIteration * static_cast<int64_t>(size));
  state.counters["lost"] = static_cast<double>(lost);
}

// UdpTransport as netcode's server drives it: receive_many into 64 rooms of 1,500 bytes, here finding one
// datagram per call, then the empty call that ends netcode's receive loop: the per-call setup is paid for
// one datagram (the worst case of the amortised receive path). Callgrind on this function gives the socket
// overhead per datagram in instructions (bench/RESULTS.md).
void BM_UdpTransportReceiveOnePerCall(benchmark::State& state) {
  Pair pair;
  if (!pair.ok) {
    state.SkipWithError("cannot open loopback sockets");
    return;
  }
  UdpTransport transport(pair.b);
  transport.set_clock([] { return 1.0; });
  const std::vector<std::byte> payload(58, std::byte{0x5A});  // stack_bench's up packet
  std::vector<std::byte> rooms(64 * 1500);
  std::array<size_t, 64> sizes{};
  std::array<Address, 64> from{};
  std::array<double, 64> arrivals{};
  uint64_t lost = 0;
  for (auto _ : state) {
    pair.a.send(pair.b.local_address(), payload);
    size_t got = 0;
    for (int spin = 0; spin < 100000 && got == 0; ++spin) {
      got = transport.receive_many(rooms, 1500, 64, sizes.data(), from.data(), arrivals.data());
    }
    transport.receive_many(rooms, 1500, 64, sizes.data(), from.data(), arrivals.data());
    lost += got == 1 ? 0 : 1;
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["lost"] = static_cast<double>(lost);
}

// A server tick's sends through UdpTransport: 64 datagrams of 629 bytes (stack_bench's down packet), one
// sendto each (Arg 0) or in one batch, one sendmmsg (Arg 1); the receiver drains them untimed-in-spirit
// (the same work in both).
void BM_UdpTransportSendTick(benchmark::State& state) {
  Pair pair;
  if (!pair.ok) {
    state.SkipWithError("cannot open loopback sockets");
    return;
  }
  UdpTransport transport(pair.a);
  const bool batched = state.range(0) != 0;
  const std::vector<std::byte> payload(629, std::byte{0x5A});
  std::vector<std::array<std::byte, 1500>> in(kPerIteration);
  std::vector<Datagram> receives(kPerIteration);
  for (int i = 0; i < kPerIteration; ++i) receives[i].buffer = in[i];
  uint64_t lost = 0;
  for (auto _ : state) {
    if (batched) transport.begin_batch();
    for (int i = 0; i < kPerIteration; ++i) transport.send(pair.b.local_address(), payload);
    if (batched) transport.end_batch();
    size_t got = 0;
    for (int spin = 0; spin < 100000 && got < kPerIteration; ++spin) {
      SocketStatus status;
      got += pair.b.receive_batch(std::span(receives).subspan(got), status);
    }
    lost += kPerIteration - got;
  }
  state.SetItemsProcessed(state.iterations() * kPerIteration);
  state.counters["lost"] = static_cast<double>(lost);
  state.counters["send_calls_per_tick"] =
      static_cast<double>(transport.send_calls()) / static_cast<double>(state.iterations());
}

BENCHMARK(BM_UdpOneCallPerDatagram)->Arg(100)->Arg(1200);
BENCHMARK(BM_UdpTransportReceiveOnePerCall);
BENCHMARK(BM_UdpTransportSendTick)->Arg(0)->Arg(1);
BENCHMARK(BM_UdpBatched)->Arg(100)->Arg(1200);

}  // namespace
