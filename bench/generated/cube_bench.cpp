// The cube scene of "Snapshot Compression" (cube_scene.hpp) sent at 60 Hz from a server to one client,
// and what it costs: (1) whole uncompressed floats, the article's starting point (its CubeState: bool,
// position, linear velocity, orientation = 321 bits a cube); (2) bitwire quantized (cubes.net), whole every
// tick; (3) bitwire delta (DeltaSender / DeltaReceiver) over two endpoints joined by the network
// simulator at 100 ms RTT and 0, 5 and 25% loss, every decoded snapshot checked against what was sent.
// Then the CPU cost of one 901-cube delta, calm and busy: write, read, measure, DeltaSender::encode, and
// sealing the packet (Endpoint::send_packet, fragments and CRC included; netcode's AEAD seal of the
// datagram). Figures: bench/RESULTS.md, "Delta snapshots".
//
//   cube_bench [seconds]          simulated seconds per run (default 60), then the CPU figures
//   cube_bench cpu [iterations] [calm|busy]
//                                 the CPU figures only (both scenes, or the one named), each call timed
//                                 over `iterations` (default 2000)
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "bitwire/message/delta.hpp"
#include "bitwire/netcode/packet.hpp"
#include "bitwire/packet/endpoint.hpp"
#include "bitwire/serialize/serialize.hpp"
#include "bitwire/sim/link.hpp"
#include "cube_scene.hpp"
#include "cubes.hpp"
#include "demo_delta.hpp"

namespace {

using cubes::CubeSnapshot;
constexpr int kRing = 64;
using Sender = bitwire::DeltaSender<CubeSnapshot, kRing>;
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

// What a whole read of `value` gives: what the client must decode under its id.
template <typename T>
void canonical(const T& value, T& out) {
  static std::vector<std::byte> bytes(T::MaxBytes + 8);
  bitwire::WriteStream write(bytes);
  value.serialize(write);
  write.flush();
  bitwire::ReadStream read{std::span<const std::byte>(bytes.data(), write.bytes_processed())};
  out.serialize(read);
}

template <typename T>
struct Client {
  bitwire::DeltaReceiver<T, kRing> receiver;
  std::unique_ptr<T> out = std::make_unique<T>();
  // What the server sent under each id, as a whole read gives it: a ring of the last kRing * 2.
  std::unique_ptr<T[]> sent = std::make_unique<T[]>(kRing * 2);
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

// Snapshots `fill(tick, snapshot)` at 60 Hz from a DeltaSender to a DeltaReceiver over the simulator at
// 100 ms RTT; `whole_bytes` receives the bytes the same snapshots take whole.
template <typename T, typename Fill>
DeltaRun run_delta(double loss_percent, int ticks, Fill&& fill, double* whole_bytes = nullptr) {
  bitwire::NetworkConditions conditions;
  conditions.latency_ms = 50;  // each way: 100 ms RTT
  conditions.loss_percent = loss_percent;
  bitwire::Link link(bitwire::LinkConfig::symmetric(conditions, kSeed));
  auto client = std::make_unique<Client<T>>();
  Wire wire;
  bitwire::Endpoint server_endpoint(
      {}, link.callbacks(bitwire::LinkSide::kA, {&wire, &Wire::transmit, &accept, nullptr}));
  bitwire::Endpoint client_endpoint(
      {}, link.callbacks(bitwire::LinkSide::kB, {client.get(), nullptr, &Client<T>::process, nullptr}));
  link.connect(server_endpoint, client_endpoint);
  auto sender = std::make_unique<bitwire::DeltaSender<T, kRing>>();
  std::vector<std::byte> buffer(bitwire::DeltaSender<T, kRing>::kMaxBytes);
  std::vector<std::byte> whole(T::MaxBytes + 8);
  auto snapshot = std::make_unique<T>();
  DeltaRun run;
  const std::byte nothing[1] = {};
  for (int tick = 0; tick < ticks; ++tick) {
    const double now = tick * cube_scene::kDt;
    server_endpoint.update(now);
    client_endpoint.update(now);
    link.update(now);
    for (std::uint16_t acked : server_endpoint.acks()) sender->on_packet_acked(acked);
    server_endpoint.clear_acks();
    fill(tick, *snapshot);
    const std::size_t bytes = sender->encode(*snapshot, buffer);
    const int slot = sender->last_id() % (kRing * 2);
    canonical(*snapshot, client->sent[slot]);
    client->sent_ids[slot] = sender->last_id();
    if (whole_bytes != nullptr) {
      bitwire::WriteStream write(whole);
      snapshot->serialize(write);
      write.flush();
      *whole_bytes += static_cast<double>(write.bytes_processed());
    }
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

// The demo's snapshot (examples/demo/session.cpp, fill_snapshot): 64 entities moving on circles, values
// on the schema's quanta.
float on_grid(float value, float step) {
  return std::round(value / step) * step;
}

void fill_demo_snapshot(demo_delta::Snapshot& snapshot, std::uint32_t tick, std::uint32_t last_input_tick) {
  snapshot.tick = tick;
  snapshot.last_input_tick = last_input_tick;
  snapshot.entities.clear();
  for (std::uint32_t i = 0; i < 64; ++i) {
    demo_delta::EntityState e;
    e.id = static_cast<std::uint8_t>(i);
    e.kind = static_cast<demo_delta::EntityKind>(i % 4);
    const float angle = static_cast<float>(i) * 0.1f + static_cast<float>(tick % 3600) * 0.01f;
    e.position = {on_grid(300.0f * std::cos(angle), 0.125f), on_grid(12.5f + static_cast<float>(i), 0.125f),
                  on_grid(-300.0f * std::sin(angle), 0.125f)};
    e.orientation = {static_cast<std::uint8_t>(i % 4), static_cast<std::int16_t>(i * 7 - 200), -35, 480};
    e.at_rest = i % 5 == 0;
    if (!e.at_rest) {
      e.velocity = {on_grid(std::sin(angle) * 8.0f, 0.03125f), 0.0f,
                    on_grid(std::cos(angle) * 8.0f, 0.03125f)};
    }
    if (e.kind == demo_delta::EntityKind::Player) {
      e.health = static_cast<std::int8_t>(100 - i);
      e.weapon = demo_delta::Weapon::Rifle;
      e.clips = 3;
    } else if (e.kind == demo_delta::EntityKind::Vehicle) {
      e.fuel = 60;
      e.occupants = 2;
    }
    snapshot.entities.push_back(e);
  }
}

void print_run(const char* what, double loss, const DeltaRun& run, double seconds) {
  std::printf(
      "%s, %2.0f%% loss  %8.0f bytes/snapshot  %9.1f kbit/s payload  %9.1f kbit/s datagrams  "
      "%9.1f kbit/s with %.0f bytes/datagram; %ld sent (%llu whole, %llu delta), %ld decoded, %ld "
      "mismatched, "
      "%llu refused for a missing baseline\n",
      what, loss, run.payload_bytes / static_cast<double>(run.snapshots), kbps(run.payload_bytes, seconds),
      kbps(run.datagram_bytes, seconds),
      kbps(run.datagram_bytes + kRuleOfThumbHeaderBytes * static_cast<double>(run.datagrams), seconds),
      kRuleOfThumbHeaderBytes, run.snapshots, static_cast<unsigned long long>(run.server.sent_whole),
      static_cast<unsigned long long>(run.server.sent_delta), run.decoded, run.mismatched,
      static_cast<unsigned long long>(run.client.refused_no_baseline));
}

template <typename F>
double ns_per_call(int iterations, F&& f) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) f();
  const auto end = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(end - start).count() / iterations;
}

// The operations the CPU figures time, each a call of its own ([[gnu::noipa]]: neither inlined nor its
// result reused across calls) so that callgrind counts its instructions by name (bench/RESULTS.md:
// callgrind_annotate --inclusive=yes).
[[gnu::noipa]] std::size_t cpu_delta_write(const CubeSnapshot& value, const CubeSnapshot& baseline,
                                           std::span<std::byte> out) {
  bitwire::WriteStream write(out);
  value.serialize_delta(write, baseline);
  write.flush();
  return write.bytes_processed();
}

[[gnu::noipa]] bool cpu_delta_read(CubeSnapshot& out, const CubeSnapshot& baseline,
                                   std::span<const std::byte> bytes) {
  bitwire::ReadStream read(bytes);
  return out.serialize_delta(read, baseline);
}

[[gnu::noipa]] std::size_t cpu_delta_measure(const CubeSnapshot& value, const CubeSnapshot& baseline) {
  bitwire::MeasureStream measure;
  value.serialize_delta(measure, baseline);
  return measure.bits_processed();
}

[[gnu::noipa]] std::size_t cpu_whole_write(const CubeSnapshot& value, std::span<std::byte> out) {
  bitwire::WriteStream write(out);
  value.serialize(write);
  write.flush();
  return write.bytes_processed();
}

[[gnu::noipa]] std::size_t cpu_sender_encode(Sender& sender, const CubeSnapshot& value,
                                             std::span<std::byte> out) {
  return sender.encode(value, out);
}

[[gnu::noipa]] void cpu_endpoint_send(bitwire::Endpoint& endpoint, std::span<const std::byte> packet) {
  endpoint.send_packet(packet);
}

[[gnu::noipa]] std::size_t cpu_netcode_seal(std::uint64_t sequence, std::span<const std::byte> body,
                                            const bitwire::netcode::Key& key, std::span<std::byte> out) {
  return bitwire::netcode::write_encrypted_packet(bitwire::netcode::PacketType::kPayload, sequence, body,
                                                  0x1234'5678'9abc'def0ull, key, out);
}

// The last datagram an endpoint handed to its transport, and how many.
struct LastDatagram {
  std::vector<std::byte> bytes = std::vector<std::byte>(4096);
  std::size_t size = 0;
  std::size_t count = 0;
  static void transmit(void* context, std::uint16_t, std::span<const std::byte> datagram) {
    auto* self = static_cast<LastDatagram*>(context);
    ++self->count;
    self->size = std::min(datagram.size(), self->bytes.size());
    std::memcpy(self->bytes.data(), datagram.data(), self->size);
  }
};

// The CPU cost of one 901-cube delta of the scene with `kicks` random kicks a tick, against the snapshot 8
// ticks before it (a 100 ms RTT baseline): the delta's write, read and measure, a whole write of the same
// snapshot, DeltaSender::encode (the delta, then the whole write and read that keep the snapshot as the
// client holds it), and sealing the packet that carries it: Endpoint::send_packet (header, CRC32
// envelope, transmit) and netcode's write_encrypted_packet of the datagram the endpoint produced
// (ChaCha20-Poly1305). Wall time per call over `iterations` calls each. Returns nonzero on a failed check.
int cpu_figures(double kicks, int iterations) {
  cube_scene::Scene scene(kSeed, kicks);
  auto baseline = std::make_unique<CubeSnapshot>();
  auto current = std::make_unique<CubeSnapshot>();
  for (int tick = 0; tick < 600; ++tick) scene.step();
  cube_scene::quantize(scene, *baseline);
  for (int tick = 0; tick < 8; ++tick) scene.step();
  cube_scene::quantize(scene, *current);
  std::vector<std::byte> buffer(CubeSnapshot::MaxDeltaBytes + 8);
  std::vector<std::byte> scratch(CubeSnapshot::MaxBytes + 8);
  std::size_t bytes = 0;
  const double write_ns =
      ns_per_call(iterations, [&] { bytes = cpu_delta_write(*current, *baseline, buffer); });
  auto decoded = std::make_unique<CubeSnapshot>();
  bool ok = true;
  const double read_ns = ns_per_call(iterations, [&] {
    ok = cpu_delta_read(*decoded, *baseline, std::span<const std::byte>(buffer.data(), bytes)) && ok;
  });
  if (!ok || !(*decoded == *current)) {
    std::printf("delta read back differs\n");
    return 1;
  }
  std::size_t bits = 0;
  const double measure_ns = ns_per_call(iterations, [&] { bits = cpu_delta_measure(*current, *baseline); });
  if ((bits + 7) / 8 != bytes) {
    std::printf("measure (%zu bits) disagrees with the write (%zu bytes)\n", bits, bytes);
    return 1;
  }
  const double whole_write_ns = ns_per_call(iterations, [&] { cpu_whole_write(*current, scratch); });
  // DeltaSender::encode. Each batch starts a sender whose only acked snapshot is `baseline`, and stays
  // within its ring.
  std::vector<std::byte> packet(Sender::kMaxBytes);
  std::size_t packet_bytes = 0;
  double encode_total_ns = 0;
  const int per_batch = kRing - 2;
  const int batches = std::max(1, iterations / per_batch);
  for (int batch = 0; batch < batches; ++batch) {
    auto sender = std::make_unique<Sender>();
    sender->encode(*baseline, packet);
    sender->on_packet_sent(0);
    sender->on_packet_acked(0);
    encode_total_ns += per_batch * ns_per_call(per_batch, [&] {
                         packet_bytes = cpu_sender_encode(*sender, *current, packet);
                         sender->on_packet_sent(1);
                       });
    if (sender->counters().sent_delta != static_cast<std::uint64_t>(per_batch)) {
      std::printf("encode did not send deltas\n");
      return 1;
    }
  }
  const double encode_ns = encode_total_ns / (batches * per_batch);
  // Sealing the packet that carries it.
  LastDatagram datagram;
  bitwire::Endpoint endpoint({}, {&datagram, &LastDatagram::transmit, &accept, nullptr});
  const double send_ns = ns_per_call(iterations, [&] {
    cpu_endpoint_send(endpoint, std::span<const std::byte>(packet.data(), packet_bytes));
  });
  if (datagram.count != static_cast<std::size_t>(iterations) ||
      datagram.size > bitwire::netcode::kMaxPayloadBytes) {
    std::printf("the endpoint sent %zu datagrams for %d packets, the last %zu bytes\n", datagram.count,
                iterations, datagram.size);
    return 1;
  }
  bitwire::netcode::Key key{};
  for (std::size_t i = 0; i < key.size(); ++i) key[i] = static_cast<std::byte>(i * 7 + 1);
  std::array<std::byte, bitwire::netcode::kMaxPacketBytes> sealed{};
  std::size_t sealed_bytes = 0;
  // libsodium initializes on its first use: outside the timed (and counted) calls.
  bitwire::netcode::write_encrypted_packet(bitwire::netcode::PacketType::kPayload, 0,
                                           std::span<const std::byte>(datagram.bytes.data(), datagram.size),
                                           0, key, sealed);
  std::uint64_t sequence = 1;
  const double seal_ns = ns_per_call(iterations, [&] {
    sealed_bytes = cpu_netcode_seal(
        sequence++, std::span<const std::byte>(datagram.bytes.data(), datagram.size), key, sealed);
  });
  int changed = 0;
  for (std::size_t i = 0; i < current->cubes.size(); ++i)
    changed += current->cubes[i] == baseline->cubes[i] ? 0 : 1;
  std::printf(
      "CPU, %s scene, one delta of %d changed cubes against the snapshot 8 ticks older (%zu bytes), ns per "
      "call over %d: write %.0f, read %.0f, measure %.0f; whole quantized write %.0f; DeltaSender::encode "
      "%.0f (%zu bytes); Endpoint::send_packet %.0f (%zu-byte datagram); netcode seal %.0f (%zu bytes)\n",
      kicks == 0 ? "calm" : "busy", changed, bytes, iterations, write_ns, read_ns, measure_ns, whole_write_ns,
      encode_ns, packet_bytes, send_ns, datagram.size, seal_ns, sealed_bytes);
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "cpu") == 0) {
    const int iterations = argc > 2 ? std::atoi(argv[2]) : 2000;
    const char* only = argc > 3 ? argv[3] : "";
    if (iterations < 1) return 2;
    const bool calm = std::strcmp(only, "busy") != 0;
    const bool busy = std::strcmp(only, "calm") != 0;
    return (!calm || cpu_figures(0.0, iterations) == 0) && (!busy || cpu_figures(1.0, iterations) == 0) ? 0
                                                                                                        : 1;
  }
  const double seconds = argc > 1 ? std::atof(argv[1]) : 60.0;
  const int ticks = static_cast<int>(seconds * 60);

  for (double kicks : {0.0, 1.0}) {
    std::printf("%s\n", kicks == 0 ? "-- calm scene: the player's pushes only"
                                   : "-- busy scene: the player's pushes and one random kick per tick");
    // (1) and (2): one pass over the scene, whole every tick.
    {
      cube_scene::Scene scene(kSeed, kicks);
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
      auto scene = std::make_unique<cube_scene::Scene>(kSeed, kicks);
      const DeltaRun run = run_delta<CubeSnapshot>(loss, ticks, [&](int, CubeSnapshot& snapshot) {
        scene->step();
        cube_scene::quantize(*scene, snapshot);
      });
      print_run("(3) cubes, delta", loss, run, seconds);
    }
  }

  // (4): the demo's 64-entity snapshot, whole and delta.
  for (double loss : {0.0, 5.0, 25.0}) {
    double whole = 0;
    const DeltaRun run = run_delta<demo_delta::Snapshot>(
        loss, ticks,
        [](int tick, demo_delta::Snapshot& snapshot) {
          fill_demo_snapshot(snapshot, static_cast<std::uint32_t>(tick),
                             static_cast<std::uint32_t>(tick > 3 ? tick - 3 : 0));
        },
        &whole);
    std::printf("(4) demo Snapshot, whole  %8.0f bytes/snapshot  %9.1f kbit/s payload\n",
                whole / static_cast<double>(run.snapshots), kbps(whole, seconds));
    print_run("(4) demo Snapshot, delta", loss, run, seconds);
  }

  return cpu_figures(0.0, 2000) == 0 && cpu_figures(1.0, 2000) == 0 ? 0 : 1;
}
