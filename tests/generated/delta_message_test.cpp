// A `delta message` sent through Connection::send as any other message, with
// ConnectionConfig::delta_baselines on (docs/delta.md, "Over a Connection"): the connection writes it as a
// delta against the newest snapshot of its type the peer acked, learns which packet carried it, and the
// receiver gets whole messages from receive(). Through the simulator at 0-50% loss with reordering and
// duplicates: every received Scene equals what was sent, field for field. A delta whose baseline the
// receiver does not hold is refused, counted and never applied, and the connection stays up.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "bitwire/core/random.hpp"
#include "bitwire/message/connection.hpp"
#include "delta.hpp"
#include "delta_random.hpp"
#include "support/connection_pair.hpp"
#include "support/seed.hpp"

namespace {

using deltatest::Scene;

// `value` as the receiver reads it (compressed floats quantized, untaken sides reset).
std::unique_ptr<Scene> canonical(const Scene& value) {
  std::vector<std::byte> bytes(Scene::MaxBytes + 8);
  bitwire::WriteStream write(bytes);
  EXPECT_TRUE(value.serialize(write));
  write.flush();
  auto back = std::make_unique<Scene>();
  bitwire::ReadStream read{std::span<const std::byte>(bytes.data(), write.bytes_processed())};
  EXPECT_TRUE(back->serialize(read));
  return back;
}

void step(bitwire::Random& rng, Scene& scene) {
  scene.tick += 1;
  for (int i = 0; i < 4; ++i) {
    auto& cube = scene.cubes[rng.below(scene.cubes.size())];
    cube.y = static_cast<std::int16_t>(
        std::clamp<int>(cube.y + static_cast<int>(rng.range(-20, 20)), -8192, 8191));
  }
  if (rng.below(10) == 0) bitwire::random_fill(rng, scene.player);
}

bitwire::ConnectionConfig delta_config(int baselines) {
  bitwire::ConnectionConfig config;
  config.channel_count = 2;
  config.channels[1].type = bitwire::ChannelType::kUnreliableUnordered;
  config.delta_baselines = baselines;
  return config;
}

// Counts the datagram bytes side a transmits, then hands them to the link as before.
struct ByteCounter {
  bitwire::EndpointCallbacks inner;
  uint64_t bytes = 0;

  void install(bitwire::Endpoint& endpoint, const bitwire::EndpointCallbacks& link) {
    inner = link;
    bitwire::EndpointCallbacks wrapped;
    wrapped.context = this;
    wrapped.transmit = [](void* c, uint16_t sequence, std::span<const std::byte> datagram) {
      auto* self = static_cast<ByteCounter*>(c);
      self->bytes += datagram.size();
      self->inner.transmit(self->inner.context, sequence, datagram);
    };
    wrapped.process = [](void* c, uint16_t sequence, std::span<const std::byte> payload) {
      auto* self = static_cast<ByteCounter*>(c);
      return self->inner.process(self->inner.context, sequence, payload);
    };
    wrapped.on_ack = [](void* c, uint16_t sequence) {
      auto* self = static_cast<ByteCounter*>(c);
      self->inner.on_ack(self->inner.context, sequence);
    };
    endpoint.set_callbacks(wrapped);
  }
};

struct RunResult {
  int received = 0;
  int mismatched = 0;
  uint64_t bytes_sent = 0;
};

// 600 ticks at 60 Hz of a Scene per tick from a to b on channel 1; every received Scene is checked.
RunResult run(uint64_t seed, bitwire::test::ConnectionPair& pair) {
  RunResult result;
  auto counter = std::make_unique<ByteCounter>();
  counter->install(pair.a.endpoint(),
                   pair.link.callbacks(bitwire::LinkSide::kA, pair.a.endpoint_callbacks()));
  std::map<uint32_t, std::unique_ptr<Scene>> sent;  // by tick
  bitwire::Random rng(seed);
  auto scene = std::make_unique<Scene>();
  bitwire::random_fill(rng, *scene);
  scene->tick = 0;
  for (int tick = 0; tick < 600; ++tick) {
    const double now = tick / 60.0;
    pair.a.update(now);
    pair.b.update(now);
    pair.link.update(now);
    step(rng, *scene);
    sent[scene->tick] = canonical(*scene);
    bitwire::MessageHandle handle = pair.a.create<Scene>();
    EXPECT_TRUE(handle);
    *handle.as<Scene>() = *scene;
    const bitwire::SendStatus status = pair.a.send(1, std::move(handle));
    EXPECT_TRUE(status) << bitwire::to_string(status.result);
    pair.a.send_packets();
    pair.b.send_packets();
    while (bitwire::MessageHandle received = pair.b.receive(1)) {
      const Scene* got = received.as<Scene>();
      EXPECT_NE(got, nullptr);
      ++result.received;
      auto it = sent.find(got->tick);
      if (it == sent.end() || !(*it->second == *got)) ++result.mismatched;
    }
  }
  result.bytes_sent = counter->bytes;
  pair.a.endpoint().set_callbacks(pair.link.callbacks(bitwire::LinkSide::kA, pair.a.endpoint_callbacks()));
  return result;
}

class DeltaMessage : public ::testing::TestWithParam<double> {};

TEST_P(DeltaMessage, EveryReceivedSnapshotIsWhatWasSent) {
  BITWIRE_SEEDED_TEST_SEED(0xde17'a5);
  bitwire::NetworkConditions conditions;
  conditions.latency_ms = 50;
  conditions.loss_percent = GetParam();
  conditions.reorder_percent = 10;
  conditions.duplicate_percent = 5;
  auto pair = std::make_unique<bitwire::test::ConnectionPair>(deltatest::message_factory(), delta_config(32),
                                                              conditions, seed);
  const RunResult result = run(seed, *pair);
  EXPECT_EQ(result.mismatched, 0);
  EXPECT_GE(result.received, static_cast<int>(600 * (100 - GetParam()) / 100 * 0.8));
  EXPECT_TRUE(pair->a.ok() && pair->b.ok()) << pair->b.error_reason();
  const bitwire::DeltaBaselineCounters& sender = pair->a.delta_baselines().counters();
  const bitwire::DeltaBaselineCounters& receiver = pair->b.delta_baselines().counters();
  EXPECT_GT(sender.sent_delta, sender.sent_whole * 3);
  EXPECT_GT(receiver.received_delta, receiver.received_whole * 3);
  EXPECT_EQ(receiver.refused_no_baseline, pair->b.counters().packets_no_baseline);
  EXPECT_EQ(pair->b.counters().packets_invalid, 0u);
}

INSTANTIATE_TEST_SUITE_P(Loss, DeltaMessage, ::testing::Values(0.0, 5.0, 25.0, 50.0));

TEST(DeltaMessage, SendsFewerBytesThanWhole) {
  bitwire::NetworkConditions conditions;
  conditions.latency_ms = 50;
  conditions.loss_percent = 5;
  auto whole = std::make_unique<bitwire::test::ConnectionPair>(deltatest::message_factory(), delta_config(0),
                                                               conditions, 7);
  auto delta = std::make_unique<bitwire::test::ConnectionPair>(deltatest::message_factory(), delta_config(32),
                                                               conditions, 7);
  const RunResult a = run(7, *whole);
  const RunResult b = run(7, *delta);
  EXPECT_EQ(a.mismatched, 0);
  EXPECT_EQ(b.mismatched, 0);
  EXPECT_EQ(whole->a.delta_baselines().counters().sent_delta, 0u);
  EXPECT_LT(b.bytes_sent * 2, a.bytes_sent) << "whole " << a.bytes_sent << " bytes, delta " << b.bytes_sent;
}

TEST(DeltaMessage, ProtocolIdChangesOnlyWhenOn) {
  const bitwire::MessageFactory factory = deltatest::message_factory();
  EXPECT_NE(bitwire::Connection::protocol_id(factory, delta_config(0)),
            bitwire::Connection::protocol_id(factory, delta_config(32)));
  bitwire::ConnectionConfig plain;
  plain.channel_count = 2;
  plain.channels[1].type = bitwire::ChannelType::kUnreliableUnordered;
  EXPECT_EQ(bitwire::Connection::protocol_id(factory, plain),
            bitwire::Connection::protocol_id(factory, delta_config(0)));
}

// Peers that send deltas must speak the same delta encoding: its version joins the id when a delta type
// is sent, and nowhere else (a connection without deltas keeps the id yojimbo and netcode peers expect).
TEST(DeltaMessage, ProtocolIdFoldsTheDeltaFormatOnlyWhenDeltaTypesAreSent) {
  constexpr int kVersion = bitwire::kDeltaFormatVersion;
  const bitwire::MessageFactory factory = deltatest::message_factory();
  const auto id = [](const bitwire::MessageFactory& f, int baselines, int version) {
    return bitwire::Connection::protocol_id(f, delta_config(baselines), version);
  };
  EXPECT_EQ(bitwire::Connection::protocol_id(factory, delta_config(32)), id(factory, 32, kVersion));
  EXPECT_NE(id(factory, 32, kVersion), id(factory, 32, kVersion + 1));
  EXPECT_EQ(id(factory, 0, kVersion), id(factory, 0, kVersion + 1)) << "deltas off";
  // The same table with no delta form: nothing is sent as a delta, whatever delta_baselines says.
  std::vector<bitwire::MessageTypeInfo> types(factory.types().begin(), factory.types().end());
  for (bitwire::MessageTypeInfo& type : types) {
    type.max_delta_bits = 0;
    type.write_delta = nullptr;
    type.read_delta = nullptr;
    type.copy = nullptr;
  }
  const bitwire::MessageFactory whole_only{std::span<const bitwire::MessageTypeInfo>(types)};
  ASSERT_TRUE(whole_only.check()) << whole_only.check().reason();
  EXPECT_EQ(id(whole_only, 32, kVersion), id(whole_only, 32, kVersion + 1)) << "no delta type";
}

TEST(DeltaMessage, MemoryIsFixedAndReported) {
  const bitwire::MessageFactory factory = deltatest::message_factory();
  bitwire::Connection off(factory, delta_config(0));
  bitwire::Connection on(factory, delta_config(32));
  EXPECT_EQ(on.memory_bytes(), bitwire::Connection::memory_required(factory, delta_config(32)));
  EXPECT_EQ(off.memory_bytes(), bitwire::Connection::memory_required(factory, delta_config(0)));
  // Two rings of 32 Scenes at least.
  EXPECT_GE(on.memory_bytes() - off.memory_bytes(), 2 * 32 * sizeof(Scene));
  EXPECT_EQ(on.delta_baselines().memory_bytes(), bitwire::DeltaBaselines::memory_required(factory, 32));
}

// A delta against a snapshot the receiver never got: refused, counted, not applied, not acked; the
// connection stays up, and once the baseline arrives the same delta is accepted.
TEST(DeltaMessage, DeltaWithoutItsBaselineIsRefusedAndCounted) {
  const bitwire::MessageFactory factory = deltatest::message_factory();
  bitwire::Connection a(factory, delta_config(8));
  bitwire::Connection b(factory, delta_config(8));
  bitwire::Random rng(11);
  auto first = std::make_unique<Scene>();
  bitwire::random_fill(rng, *first);
  auto second = std::make_unique<Scene>(*first);
  second->tick += 1;
  second->cubes[3].x = static_cast<std::int16_t>(second->cubes[3].x / 2);

  std::vector<std::byte> packet0(1200);
  std::vector<std::byte> packet1(1200);
  bitwire::MessageHandle handle = a.create<Scene>();
  *handle.as<Scene>() = *first;
  ASSERT_TRUE(a.send(1, std::move(handle)));
  packet0.resize(a.generate_packet(0, packet0));
  a.on_packet_acked(0);  // as if acked: b has not read it
  handle = a.create<Scene>();
  *handle.as<Scene>() = *second;
  ASSERT_TRUE(a.send(1, std::move(handle)));
  packet1.resize(a.generate_packet(1, packet1));
  ASSERT_EQ(a.delta_baselines().counters().sent_whole, 1u);
  ASSERT_EQ(a.delta_baselines().counters().sent_delta, 1u);

  EXPECT_FALSE(b.process_packet(1, packet1));
  EXPECT_EQ(b.counters().packets_no_baseline, 1u);
  EXPECT_EQ(b.delta_baselines().counters().refused_no_baseline, 1u);
  EXPECT_TRUE(b.ok());
  EXPECT_FALSE(b.receive(1));
  EXPECT_EQ(b.pool().live(), 0);

  EXPECT_TRUE(b.process_packet(0, packet0));
  EXPECT_TRUE(b.process_packet(1, packet1));
  bitwire::MessageHandle got0 = b.receive(1);
  bitwire::MessageHandle got1 = b.receive(1);
  ASSERT_TRUE(got0 && got1);
  EXPECT_TRUE(*canonical(*first) == *got0.as<Scene>());
  EXPECT_TRUE(*canonical(*second) == *got1.as<Scene>());
  EXPECT_EQ(b.delta_baselines().counters().received_delta, 1u);

  // reset() forgets the baselines: the same delta is refused again.
  got0.reset();
  got1.reset();
  b.reset();
  EXPECT_FALSE(b.process_packet(1, packet1));
  EXPECT_EQ(b.counters().packets_no_baseline, 2u);
}

// Untrusted bytes: real packets with bits flipped, truncated or not, read by a receiver that holds a
// baseline. Each is refused with a reason or read whole, never a crash, and nothing refused is applied.
TEST(DeltaMessage, DamagedPacketsAreRefusedOrReadWhole) {
  const bitwire::MessageFactory factory = deltatest::message_factory();
  bitwire::Connection a(factory, delta_config(8));
  bitwire::Connection b(factory, delta_config(8));
  bitwire::Random rng(23);
  auto scene = std::make_unique<Scene>();
  bitwire::random_fill(rng, *scene);
  std::vector<std::vector<std::byte>> packets;
  for (uint16_t sequence = 0; sequence < 8; ++sequence) {
    step(rng, *scene);
    bitwire::MessageHandle handle = a.create<Scene>();
    *handle.as<Scene>() = *scene;
    ASSERT_TRUE(a.send(1, std::move(handle)));
    std::vector<std::byte> bytes(1200);
    bytes.resize(a.generate_packet(sequence, bytes));
    a.on_packet_acked(sequence);
    packets.push_back(bytes);
  }
  ASSERT_GT(a.delta_baselines().counters().sent_delta, 0u);
  int refused = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    b.reset();
    ASSERT_TRUE(b.process_packet(0, packets[0]));  // the whole one: a baseline held
    while (b.receive(1)) {
    }
    std::vector<std::byte> bytes = packets[1 + rng.below(packets.size() - 1)];
    const int flips = 1 + static_cast<int>(rng.below(8));
    for (int f = 0; f < flips; ++f)
      bytes[rng.below(bytes.size())] ^= std::byte{static_cast<uint8_t>(1u << rng.below(8))};
    if (rng.below(4) == 0) bytes.resize(rng.below(bytes.size()));
    const uint64_t processed = b.counters().packets_processed;
    if (!b.process_packet(1, bytes)) {
      ++refused;
      EXPECT_EQ(b.counters().packets_processed, processed);
      EXPECT_FALSE(b.receive(1) || b.receive(0));
    }
    while (b.receive(1) || b.receive(0)) {  // a flipped bit may name the other channel
    }
    b.reset();  // releases what the reliable channel holds for a gap a damaged id opened
    EXPECT_EQ(b.pool().live(), 0);
  }
  EXPECT_GT(refused, 0);
}

}  // namespace
