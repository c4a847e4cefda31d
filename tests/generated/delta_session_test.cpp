// DeltaSender / DeltaReceiver (bitwire/message/delta.hpp) over two packet endpoints joined by the network
// simulator: a server sends a changing Scene every tick at 60 Hz, as a delta against the newest snapshot
// the client acked, through 0-50% loss with reordering and duplication; every snapshot the client decodes
// equals, field for field, what the server sent under that id (as a whole read gives it), no delta is ever
// refused for a missing baseline, and most snapshots go as deltas. A delta naming a baseline the receiver
// does not hold is refused and counted, leaving the output untouched.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "bitwire/core/random.hpp"
#include "bitwire/message/delta.hpp"
#include "bitwire/packet/endpoint.hpp"
#include "bitwire/sim/link.hpp"
#include "delta.hpp"
#include "delta_random.hpp"
#include "support/seed.hpp"

namespace {

using deltatest::Scene;
constexpr int kRing = 32;
using Sender = bitwire::DeltaSender<Scene, kRing>;
using Receiver = bitwire::DeltaReceiver<Scene, kRing>;

// What a whole read of `value` gives.
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

// One tick of the scene: a few cubes move a little, one jumps, the tick advances.
void step(bitwire::Random& rng, Scene& scene) {
  scene.tick += 1;
  for (int i = 0; i < 4; ++i) {
    auto& cube = scene.cubes[rng.below(scene.cubes.size())];
    cube.x = static_cast<std::int16_t>(
        std::clamp<int>(cube.x + static_cast<int>(rng.range(-20, 20)), -8192, 8191));
    cube.at_rest = false;
  }
  if (rng.below(8) == 0) bitwire::random_fill(rng, scene.cubes[rng.below(scene.cubes.size())]);
  if (rng.below(30) == 0) bitwire::random_fill(rng, scene.player);
}

struct Client {
  Receiver receiver;
  std::map<std::uint16_t, std::unique_ptr<Scene>>* sent = nullptr;
  std::unique_ptr<Scene> out = std::make_unique<Scene>();
  int checked = 0;
  int mismatched = 0;
  static bool process(void* context, std::uint16_t, std::span<const std::byte> payload) {
    auto* self = static_cast<Client*>(context);
    std::uint16_t id = 0;
    const bitwire::DeltaResult result = self->receiver.decode(payload, *self->out, &id);
    if (result == bitwire::DeltaResult::kWhole || result == bitwire::DeltaResult::kDelta) {
      ++self->checked;
      auto it = self->sent->find(id);
      if (it == self->sent->end() || !(*it->second == *self->out)) ++self->mismatched;
    }
    return true;
  }
};

struct Server {
  static bool process(void*, std::uint16_t, std::span<const std::byte>) { return true; }
};

struct Outcome {
  int sent = 0;
  int checked = 0;
  int mismatched = 0;
  bitwire::DeltaCounters server;
  bitwire::DeltaCounters client;
};

Outcome run_session(double loss_percent, std::uint64_t seed) {
  bitwire::NetworkConditions conditions;
  conditions.latency_ms = 50;
  conditions.jitter_ms = 10;
  conditions.loss_percent = loss_percent;
  conditions.reorder_percent = 10;
  conditions.duplicate_percent = 5;
  bitwire::Link link(bitwire::LinkConfig::symmetric(conditions, seed));
  auto client = std::make_unique<Client>();
  std::map<std::uint16_t, std::unique_ptr<Scene>> sent;
  client->sent = &sent;
  bitwire::Endpoint server_endpoint(
      {}, link.callbacks(bitwire::LinkSide::kA, {nullptr, nullptr, &Server::process, nullptr}));
  bitwire::Endpoint client_endpoint(
      {}, link.callbacks(bitwire::LinkSide::kB, {client.get(), nullptr, &Client::process, nullptr}));
  link.connect(server_endpoint, client_endpoint);
  auto sender = std::make_unique<Sender>();
  std::vector<std::byte> buffer(Sender::kMaxBytes);
  bitwire::Random rng(seed);
  auto scene = std::make_unique<Scene>();
  bitwire::random_fill(rng, *scene);
  Outcome outcome;
  const std::byte nothing[1] = {};
  for (int tick = 0; tick < 900; ++tick) {
    const double now = tick / 60.0;
    server_endpoint.update(now);
    client_endpoint.update(now);
    link.update(now);
    for (std::uint16_t acked : server_endpoint.acks()) sender->on_packet_acked(acked);
    server_endpoint.clear_acks();
    step(rng, *scene);
    const std::size_t bytes = sender->encode(*scene, buffer);
    EXPECT_GT(bytes, 0u);
    sent[sender->last_id()] = canonical(*scene);
    const std::uint16_t sequence = server_endpoint.next_sequence();
    EXPECT_TRUE(server_endpoint.send_packet(std::span<const std::byte>(buffer.data(), bytes)));
    sender->on_packet_sent(sequence);
    ++outcome.sent;
    client_endpoint.send_packet(nothing);  // carries the acks back
  }
  outcome.checked = client->checked;
  outcome.mismatched = client->mismatched;
  outcome.server = sender->counters();
  outcome.client = client->receiver.counters();
  return outcome;
}

class DeltaSession : public ::testing::TestWithParam<double> {};

TEST_P(DeltaSession, EveryDecodedSnapshotIsWhatWasSent) {
  BITWIRE_SEEDED_TEST_SEED(0xde17'5e55);
  const double loss = GetParam();
  const Outcome outcome = run_session(loss, seed);
  SCOPED_TRACE("loss " + std::to_string(loss));
  EXPECT_EQ(outcome.mismatched, 0);
  EXPECT_EQ(outcome.client.refused_no_baseline, 0u) << "the sender used a baseline the client does not hold";
  EXPECT_EQ(outcome.client.refused_invalid, 0u);
  // At least half of what survives the loss arrives (duplicates count twice).
  EXPECT_GE(outcome.checked, static_cast<int>(outcome.sent * (100 - loss) / 100 * 0.8));
  EXPECT_EQ(outcome.client.decoded_delta + outcome.client.decoded_whole,
            static_cast<std::uint64_t>(outcome.checked));
  // Deltas dominate whenever acks come back within the ring (32 ticks, about 0.5 s; RTT 100 ms).
  if (loss <= 25) {
    EXPECT_GT(outcome.server.sent_delta, outcome.server.sent_whole * 10);
  }
  EXPECT_GT(outcome.server.sent_delta, 0u);
}

INSTANTIATE_TEST_SUITE_P(Loss, DeltaSession, ::testing::Values(0.0, 5.0, 25.0, 50.0));

TEST(DeltaRuntime, ADeltaAgainstABaselineNotHeldIsRefusedAndCounted) {
  Sender sender;
  std::vector<std::byte> buffer(Sender::kMaxBytes);
  bitwire::Random rng(3);
  auto scene = std::make_unique<Scene>();
  bitwire::random_fill(rng, *scene);
  ASSERT_GT(sender.encode(*scene, buffer), 0u);  // id 0, whole
  sender.on_packet_sent(100);
  sender.on_packet_acked(100);
  step(rng, *scene);
  const std::size_t bytes = sender.encode(*scene, buffer);  // id 1, a delta against id 0
  EXPECT_EQ(sender.counters().sent_delta, 1u);

  Receiver receiver;  // never saw id 0
  auto out = std::make_unique<Scene>();
  out->tick = 12345;
  EXPECT_EQ(receiver.decode(std::span<const std::byte>(buffer.data(), bytes), *out),
            bitwire::DeltaResult::kNoBaseline);
  EXPECT_EQ(out->tick, 12345u) << "a refused delta leaves the output untouched";
  EXPECT_EQ(receiver.counters().refused_no_baseline, 1u);
}

TEST(DeltaRuntime, WithoutAnAckedBaselineTheWholeSnapshotIsSent) {
  Sender sender;
  std::vector<std::byte> buffer(Sender::kMaxBytes);
  Scene scene;
  for (int i = 0; i < 3; ++i) {
    ASSERT_GT(sender.encode(scene, buffer), 0u);
    sender.on_packet_sent(static_cast<std::uint16_t>(i));
  }
  EXPECT_EQ(sender.counters().sent_whole, 3u);
  // Acked, then more than the ring's length later: too old, whole again.
  sender.on_packet_acked(2);
  ASSERT_GT(sender.encode(scene, buffer), 0u);
  EXPECT_EQ(sender.counters().sent_delta, 1u);
  for (int i = 0; i < kRing; ++i) ASSERT_GT(sender.encode(scene, buffer, false), 0u);
  const std::uint64_t whole = sender.counters().sent_whole;
  ASSERT_GT(sender.encode(scene, buffer), 0u);
  EXPECT_EQ(sender.counters().sent_whole, whole + 1);
}

TEST(DeltaRuntime, TruncatedOrGarbledSnapshotsAreRefused) {
  Sender sender;
  std::vector<std::byte> buffer(Sender::kMaxBytes);
  bitwire::Random rng(4);
  auto scene = std::make_unique<Scene>();
  bitwire::random_fill(rng, *scene);
  const std::size_t bytes = sender.encode(*scene, buffer);
  Receiver receiver;
  auto out = std::make_unique<Scene>();
  for (std::size_t cut = 0; cut < bytes - 1; cut += 7) {
    EXPECT_EQ(receiver.decode(std::span<const std::byte>(buffer.data(), cut), *out),
              bitwire::DeltaResult::kInvalid);
  }
  EXPECT_NE(receiver.read_error(), bitwire::ReadError::kNone);
  EXPECT_EQ(receiver.decode(std::span<const std::byte>(buffer.data(), bytes), *out),
            bitwire::DeltaResult::kWhole);
  EXPECT_TRUE(*out == *canonical(*scene));
}

}  // namespace
