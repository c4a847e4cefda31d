// The cube scene of "Snapshot Compression" (cube_scene.hpp) sent at 60 Hz from a server to one client,
// and what it costs: (1) whole uncompressed floats, the article's starting point (its CubeState: bool,
// position, linear velocity, orientation = 321 bits a cube); (2) bitwire quantized (cubes.net), whole every
// tick; (3) bitwire delta (DeltaSender / DeltaReceiver) over two endpoints joined by the network
// simulator at 100 ms RTT and 0, 5 and 25% loss, every decoded snapshot checked against what was sent.
// Then the CPU cost of one 901-cube delta: write, read, DeltaSender::encode, and sealing the packet
// (Endpoint::send_packet, fragments and CRC included). Figures: bench/RESULTS.md, "Delta snapshots".
//
//   cube_bench [seconds]     simulated seconds per run (default 60)
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <span>
#include <vector>

#include "bitwire/message/delta.hpp"
#include "bitwire/packet/endpoint.hpp"
#include "bitwire/serialize/serialize.hpp"
#include "bitwire/sim/link.hpp"
#include "cube_scene.hpp"
#include "cubes.hpp"

namespace {

using cubes::CubeSnapshot;
constexpr int kRing = 64;
using Sender = bitwire::DeltaSender<CubeSnapshot, kRing>;
using Receiver = bitwire::DeltaReceiver<CubeSnapshot, kRing>;
constexpr std::uint64_t kSeed = 0x5eed'c0be;
constexpr double kRuleOfThumbHeaderBytes = 32;  // the article's UDP/IP header allowance per packet

double kbps(double bytes, double seconds) {
  return bytes * 8 / seconds / 1000;
}

// (1): the article's uncompressed CubeState, written with bitwire's float serializer.
std::size_t uncompressed_bytes(const cube_scene::Scene& scene) {
  static std::vector<std::byte> buffer(64 * 1024);
  bitwire::WriteStream stream(buffer);
  for (const cube_scene::Body& b : scene.bodies()) {
    bool interacting = b.interacting;
    bitwire::serialize_bool(stream, interacting);
    for (double v : {b.x, b.y, b.z, b.vx, b.vy, b.vz}) {
      float f = static_cast<float>(v);
      bitwire::serialize_float(stream, f);
    }
    for (double v : cube_scene::orientation(b)) {
      float f = static_cast<float>(v);
      bitwire::serialize_float(stream, f);
    }
  }
  stream.flush();
  return stream.bytes_processed();
}

struct Client {
  Receiver receiver;
  std::unique_ptr<CubeSnapshot> out = std::make_unique<CubeSnapshot>();
  // What the server sent under each id, as a whole read gives it: a ring of the last kRing * 2.
  std::unique_ptr<CubeSnapshot[]> sent = std::make_unique<CubeSnapshot[]>(kRing * 2);
  std::unique_ptr<std::uint16_t[]> sent_ids = std::make_unique<std::uint16_t[]>(kRing * 2);
  long decoded = 0;
  long mismatched = 0;
  static bool process(void* context, std::uint16_t, std::span<const std::byte> payload) {
    auto* self = static_cast<Client*>(context);
    std::uint16_t id = 0;
    const bitwire::DeltaResult result = self->receiver.decode(payload, *self->out, &id);
    if (result == bitwire::DeltaResult::kWhole || result == bitwire::DeltaResult::kDelta) {
      ++self->decoded;
      const int slot = id % (kRing * 2);
      if (self->sent_ids[slot] != id || !(self->sent[slot] == *self->out)) ++self->mismatched;
    }
    return true;
  }
};

struct Wire {
  double datagram_bytes = 0;
  long datagrams = 0;
  static void transmit(void* context, std::uint16_t, std::span<const std::byte> datagram) {
    auto* self = static_cast<Wire*>(context);
    self->datagram_bytes += static_cast<double>(datagram.size());
    ++self->datagrams;
  }
};

bool accept(void*, std::uint16_t, std::span<const std::byte>) {
  return true;
}

struct DeltaRun {
  double payload_bytes = 0;
  double datagram_bytes = 0;
  long datagrams = 0;
  long snapshots = 0;
  long decoded = 0;
  long mismatched = 0;
  bitwire::DeltaCounters server;
  bitwire::DeltaCounters client;
};

DeltaRun run_delta(double loss_percent, int ticks) {
  bitwire::NetworkConditions conditions;
  conditions.latency_ms = 50;  // each way: 100 ms RTT
  conditions.loss_percent = loss_percent;
  bitwire::Link link(bitwire::LinkConfig::symmetric(conditions, kSeed));
  auto client = std::make_unique<Client>();
  Wire wire;
  bitwire::Endpoint server_endpoint(
      {}, link.callbacks(bitwire::LinkSide::kA, {&wire, &Wire::transmit, &accept, nullptr}));
  bitwire::Endpoint client_endpoint(
      {}, link.callbacks(bitwire::LinkSide::kB, {client.get(), nullptr, &Client::process, nullptr}));
  link.connect(server_endpoint, client_endpoint);
  auto sender = std::make_unique<Sender>();
  std::vector<std::byte> buffer(Sender::kMaxBytes);
  cube_scene::Scene scene(kSeed);
  auto snapshot = std::make_unique<CubeSnapshot>();
  DeltaRun run;
  const std::byte nothing[1] = {};
  for (int tick = 0; tick < ticks; ++tick) {
    const double now = tick * cube_scene::kDt;
    server_endpoint.update(now);
    client_endpoint.update(now);
    link.update(now);
    for (std::uint16_t acked : server_endpoint.acks()) sender->on_packet_acked(acked);
    server_endpoint.clear_acks();
    scene.step();
    cube_scene::quantize(scene, *snapshot);
    const std::size_t bytes = sender->encode(*snapshot, buffer);
    const int slot = sender->last_id() % (kRing * 2);
    client->sent[slot] = *snapshot;  // quantized integers only: exactly what a whole read gives
    client->sent_ids[slot] = sender->last_id();
    const std::uint16_t sequence = server_endpoint.next_sequence();
    server_endpoint.send_packet(std::span<const std::byte>(buffer.data(), bytes));
    sender->on_packet_sent(sequence);
    client_endpoint.send_packet(nothing);
    run.payload_bytes += static_cast<double>(bytes);
    ++run.snapshots;
  }
  run.datagram_bytes = wire.datagram_bytes;
  run.datagrams = wire.datagrams;
  run.decoded = client->decoded;
  run.mismatched = client->mismatched;
  run.server = sender->counters();
  run.client = client->receiver.counters();
  return run;
}

template <typename F>
double ns_per_call(int iterations, F&& f) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) f();
  const auto end = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(end - start).count() / iterations;
}

std::size_t sealed = 0;  // datagrams the sealing loop handed to its transport

void discard(void* context, std::uint16_t, std::span<const std::byte>) {
  ++*static_cast<std::size_t*>(context);
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 60.0;
  const int ticks = static_cast<int>(seconds * 60);

  // (1) and (2): one pass over the scene, whole every tick.
  {
    cube_scene::Scene scene(kSeed);
    auto snapshot = std::make_unique<CubeSnapshot>();
    std::vector<std::byte> buffer(CubeSnapshot::MaxBytes + 8);
    double floats = 0;
    double quantized = 0;
    long interacting = 0;
    for (int tick = 0; tick < ticks; ++tick) {
      scene.step();
      floats += static_cast<double>(uncompressed_bytes(scene));
      cube_scene::quantize(scene, *snapshot);
      bitwire::WriteStream write(buffer);
      snapshot->serialize(write);
      write.flush();
      quantized += static_cast<double>(write.bytes_processed());
      for (const auto& b : scene.bodies()) interacting += b.interacting ? 1 : 0;
    }
    std::printf(
        "cube scene: %d cubes, %d ticks at 60 Hz (%.0f s), seed 0x%llx; %.1f cubes interacting per tick on "
        "average\n",
        cube_scene::kCubes, ticks, seconds, static_cast<unsigned long long>(kSeed),
        static_cast<double>(interacting) / ticks);
    std::printf(
        "(1) uncompressed floats  %8.0f bytes/snapshot  %9.1f kbit/s payload  %9.1f kbit/s with %.0f "
        "bytes/packet\n",
        floats / ticks, kbps(floats, seconds), kbps(floats + kRuleOfThumbHeaderBytes * ticks, seconds),
        kRuleOfThumbHeaderBytes);
    std::printf(
        "(2) quantized, whole     %8.0f bytes/snapshot  %9.1f kbit/s payload  %9.1f kbit/s with %.0f "
        "bytes/packet\n",
        quantized / ticks, kbps(quantized, seconds),
        kbps(quantized + kRuleOfThumbHeaderBytes * ticks, seconds), kRuleOfThumbHeaderBytes);
  }

  // (3): delta over the simulator.
  for (double loss : {0.0, 5.0, 25.0}) {
    const DeltaRun run = run_delta(loss, ticks);
    std::printf(
        "(3) delta, %2.0f%% loss     %8.0f bytes/snapshot  %9.1f kbit/s payload  %9.1f kbit/s datagrams  "
        "%9.1f kbit/s with %.0f bytes/datagram; %ld sent (%llu whole, %llu delta), %ld decoded, %ld "
        "mismatched, "
        "%llu refused for a missing baseline\n",
        loss, run.payload_bytes / static_cast<double>(run.snapshots), kbps(run.payload_bytes, seconds),
        kbps(run.datagram_bytes, seconds),
        kbps(run.datagram_bytes + kRuleOfThumbHeaderBytes * static_cast<double>(run.datagrams), seconds),
        kRuleOfThumbHeaderBytes, run.snapshots, static_cast<unsigned long long>(run.server.sent_whole),
        static_cast<unsigned long long>(run.server.sent_delta), run.decoded, run.mismatched,
        static_cast<unsigned long long>(run.client.refused_no_baseline));
  }

  // CPU: one delta of the scene against the snapshot 8 ticks before it (a 100 ms RTT baseline at 5% loss).
  {
    cube_scene::Scene scene(kSeed);
    auto baseline = std::make_unique<CubeSnapshot>();
    auto current = std::make_unique<CubeSnapshot>();
    for (int tick = 0; tick < 600; ++tick) scene.step();
    cube_scene::quantize(scene, *baseline);
    for (int tick = 0; tick < 8; ++tick) scene.step();
    cube_scene::quantize(scene, *current);
    std::vector<std::byte> buffer(CubeSnapshot::MaxDeltaBytes + 8);
    std::size_t bytes = 0;
    const int iterations = 2000;
    const double write_ns = ns_per_call(iterations, [&] {
      bitwire::WriteStream write(buffer);
      current->serialize_delta(write, *baseline);
      write.flush();
      bytes = write.bytes_processed();
    });
    auto decoded = std::make_unique<CubeSnapshot>();
    bool ok = true;
    const double read_ns = ns_per_call(iterations, [&] {
      bitwire::ReadStream read{std::span<const std::byte>(buffer.data(), bytes)};
      ok = decoded->serialize_delta(read, *baseline) && ok;
    });
    if (!ok || !(*decoded == *current)) {
      std::printf("delta read back differs\n");
      return 1;
    }
    const double whole_write_ns = ns_per_call(iterations, [&] {
      std::vector<std::byte>& out = buffer;
      bitwire::WriteStream write(out);
      current->serialize(write);
      write.flush();
    });
    // DeltaSender::encode: the delta plus keeping the snapshot (a whole write and read). Each batch
    // starts a sender whose only acked snapshot is `baseline`, and stays within its ring.
    std::vector<std::byte> packet(Sender::kMaxBytes);
    std::size_t packet_bytes = 0;
    double encode_total_ns = 0;
    const int batches = 40;
    const int per_batch = kRing - 2;
    for (int batch = 0; batch < batches; ++batch) {
      auto sender = std::make_unique<Sender>();
      sender->encode(*baseline, packet);
      sender->on_packet_sent(0);
      sender->on_packet_acked(0);
      encode_total_ns += per_batch * ns_per_call(per_batch, [&] {
                           packet_bytes = sender->encode(*current, packet);
                           sender->on_packet_sent(1);
                         });
      if (sender->counters().sent_delta != static_cast<std::uint64_t>(per_batch)) {
        std::printf("encode did not send deltas\n");
        return 1;
      }
    }
    const double encode_ns = encode_total_ns / (batches * per_batch);
    // Sealing: the endpoint's send_packet of the encoded snapshot (header, CRC, transmit).
    bitwire::Endpoint endpoint({}, {&sealed, &discard, &accept, nullptr});
    const double seal_ns = ns_per_call(
        iterations, [&] { endpoint.send_packet(std::span<const std::byte>(packet.data(), packet_bytes)); });
    if (sealed != static_cast<std::size_t>(iterations)) {
      std::printf("only %zu of %d packets were sealed\n", sealed, iterations);
      return 1;
    }
    int changed = 0;
    for (std::size_t i = 0; i < current->cubes.size(); ++i)
      changed += current->cubes[i] == baseline->cubes[i] ? 0 : 1;
    std::printf(
        "CPU, one delta of %d changed cubes against the snapshot 8 ticks older (%zu bytes): write %.0f ns, "
        "read %.0f ns; whole quantized write %.0f ns; DeltaSender::encode %.0f ns (%zu bytes); "
        "Endpoint::send_packet %.0f ns\n",
        changed, bytes, write_ns, read_ns, whole_write_ns, encode_ns, packet_bytes, seal_ns);
  }
  return 0;
}
