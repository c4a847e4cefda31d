// netcode costs on one core: sealing and opening packets (the AEAD share), and a server tick with N connected
// clients over the in-process loopback transport (no sockets), each client sending one payload per tick and
// the server answering each with one payload -- a 60 Hz exchange without the layers above netcode.
#include <benchmark/benchmark.h>

#include <array>
#include <memory>
#include <vector>

#include "bitwire/netcode/client.hpp"
#include "bitwire/netcode/server.hpp"

namespace {

using namespace bitwire;
using namespace bitwire::netcode;

void BM_NetcodeSealPayload(benchmark::State& state) {
  const Key key = random_key();
  std::vector<uint8_t> body(static_cast<size_t>(state.range(0)), 7);
  std::array<uint8_t, kMaxPacketBytes> out{};
  uint64_t sequence = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(write_encrypted_packet(PacketType::kPayload, sequence++,
                                                    std::as_bytes(std::span(body)), 42, key,
                                                    std::as_writable_bytes(std::span(out))));
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

void BM_NetcodeOpenPayload(benchmark::State& state) {
  const Key key = random_key();
  std::vector<uint8_t> body(static_cast<size_t>(state.range(0)), 7);
  std::array<uint8_t, kMaxPacketBytes> sealed{}, work{};
  const size_t size = write_encrypted_packet(PacketType::kPayload, 1, std::as_bytes(std::span(body)), 42, key,
                                             std::as_writable_bytes(std::span(sealed)));
  for (auto _ : state) {
    work = sealed;
    EncryptedPacket packet;
    benchmark::DoNotOptimize(read_encrypted_packet(std::as_writable_bytes(std::span(work)).first(size), 42,
                                                   key, 0x7E, nullptr, packet));
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

// N clients connected to one server on a loopback network; one iteration = one 60 Hz tick. Only the server's
// side is timed (the clients run with the timer paused): update() receiving N 200-byte payloads, N
// receive_payload() calls and N 600-byte send_payload() calls, all encrypted. per_client_tick is that time
// divided by N.
void BM_NetcodeServerTick(benchmark::State& state) {
  const int clients = static_cast<int>(state.range(0));
  LoopbackNetwork network(static_cast<size_t>(clients) * 8 + 64);
  const Address server_address = Address::ipv4(10, 0, 0, 1, 40000);
  LoopbackTransport server_transport(network, server_address);
  ServerConfig config;
  config.protocol_id = 1;
  config.private_key = random_key();
  config.max_clients = clients;
  config.payload_queue_per_slot = 4;
  Server server(config, server_transport, server_address);
  std::vector<std::unique_ptr<LoopbackTransport>> transports;
  std::vector<std::unique_ptr<Client>> list;
  double now = 1.0;
  for (int i = 0; i < clients; ++i) {
    transports.push_back(std::make_unique<LoopbackTransport>(
        network, Address::ipv4(10, 1, static_cast<uint8_t>(i / 250), static_cast<uint8_t>(1 + i % 250), 50000)));
    list.push_back(std::make_unique<Client>(ClientConfig{}, *transports.back()));
    ConnectTokenParams params;
    params.protocol_id = 1;
    params.client_id = static_cast<uint64_t>(i + 1);
    params.create_timestamp = 1'700'000'000;
    params.server_addresses.count = 1;
    params.server_addresses.items[0] = server_address;
    ConnectToken token;
    generate_connect_token(params, config.private_key, token);
    std::array<std::byte, kConnectTokenBytes> bytes{};
    write_connect_token(token, bytes);
    list.back()->connect(bytes, now);
  }
  for (int i = 0; i < 600 && server.connected_count() < clients; ++i) {
    now += 1.0 / 60;
    for (auto& c : list) c->update(now);
    server.update(now, 1'700'000'001);
  }
  if (server.connected_count() != clients) {
    state.SkipWithError("not every client connected");
    return;
  }
  std::array<uint8_t, 200> input{};      // client -> server
  std::array<uint8_t, 600> snapshot{};   // server -> client
  std::array<uint8_t, kMaxPayloadBytes> buffer{};
  for (auto _ : state) {
    state.PauseTiming();
    now += 1.0 / 60;
    for (auto& c : list) {
      c->update(now);
      c->send_payload(std::as_bytes(std::span(input)));
      size_t size;
      uint64_t sequence;
      while (c->receive_payload(std::as_writable_bytes(std::span(buffer)), size, sequence)) {
      }
    }
    state.ResumeTiming();
    server.update(now, 1'700'000'001);
    for (int slot = 0; slot < clients; ++slot) {
      size_t size;
      uint64_t sequence;
      while (server.receive_payload(slot, std::as_writable_bytes(std::span(buffer)), size, sequence)) {
      }
      server.send_payload(slot, std::as_bytes(std::span(snapshot)));
    }
  }
  state.counters["clients"] = clients;
  state.counters["per_client_tick"] = benchmark::Counter(
      static_cast<double>(clients) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

BENCHMARK(BM_NetcodeSealPayload)->Arg(100)->Arg(200)->Arg(600)->Arg(1200);
BENCHMARK(BM_NetcodeOpenPayload)->Arg(100)->Arg(200)->Arg(600)->Arg(1200);
BENCHMARK(BM_NetcodeServerTick)->Arg(64)->Arg(256)->Arg(1024)->Unit(benchmark::kMicrosecond);

}  // namespace
