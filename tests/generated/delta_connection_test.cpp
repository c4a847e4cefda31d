// Delta snapshots as bytes in a message of their own on a bitwire::Connection (docs/delta.md section 2): the
// server's DeltaSender encodes each Scene into a SceneBytes message on an unreliable channel, maps the
// packet that carries it from Endpoint::next_sequence() before Connection::send_packets(), and learns
// what arrived from the endpoint's acks; the client's DeltaReceiver decodes each message it receives.
// Through 0-25% loss with reordering: every decoded snapshot equals what was sent under its id, and
// deltas dominate.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "bitwire/core/random.hpp"
#include "bitwire/message/connection.hpp"
#include "bitwire/message/delta.hpp"
#include "delta.hpp"
#include "delta_random.hpp"
#include "support/connection_pair.hpp"
#include "support/seed.hpp"

namespace {

using deltatest::Scene;
using deltatest::SceneBytes;
constexpr int kRing = 32;
using Sender = bitwire::DeltaSender<Scene, kRing>;
using Receiver = bitwire::DeltaReceiver<Scene, kRing>;
static_assert(Sender::kMaxBytes <= 1000, "SceneBytes holds any encoded Scene");

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

class DeltaOverConnection : public ::testing::TestWithParam<double> {};

TEST_P(DeltaOverConnection, EveryDecodedSnapshotIsWhatWasSent) {
  BITWIRE_SEEDED_TEST_SEED(0xde17'c0);
  bitwire::ConnectionConfig config;
  config.channels[0].type = bitwire::ChannelType::kUnreliableUnordered;
  bitwire::NetworkConditions conditions;
  conditions.latency_ms = 50;
  conditions.loss_percent = GetParam();
  conditions.reorder_percent = 10;
  auto pair =
      std::make_unique<bitwire::test::ConnectionPair>(deltatest::message_factory(), config, conditions, seed);
  auto sender = std::make_unique<Sender>();
  auto receiver = std::make_unique<Receiver>();
  std::vector<std::byte> buffer(Sender::kMaxBytes);
  std::map<std::uint16_t, std::unique_ptr<Scene>> sent;
  bitwire::Random rng(seed);
  auto scene = std::make_unique<Scene>();
  bitwire::random_fill(rng, *scene);
  auto decoded = std::make_unique<Scene>();
  int checked = 0;
  int mismatched = 0;
  const int ticks = 600;
  for (int tick = 0; tick < ticks; ++tick) {
    const double now = tick / 60.0;
    pair->a.update(now);
    pair->b.update(now);
    pair->link.update(now);
    // Server: what arrived, then this tick's snapshot in the next packet.
    for (std::uint16_t acked : pair->a.endpoint().acks()) sender->on_packet_acked(acked);
    pair->a.endpoint().clear_acks();
    step(rng, *scene);
    const std::size_t bytes = sender->encode(*scene, buffer);
    ASSERT_GT(bytes, 0u);
    sent[sender->last_id()] = canonical(*scene);
    bitwire::MessageHandle handle = pair->a.create<SceneBytes>();
    ASSERT_TRUE(handle);
    SceneBytes* message = handle.as<SceneBytes>();
    message->payload.resize(static_cast<std::uint32_t>(bytes));
    std::memcpy(message->payload.data(), buffer.data(), bytes);
    const bitwire::SendStatus status = pair->a.send(0, std::move(handle));
    ASSERT_TRUE(status) << bitwire::to_string(status.result);
    const std::uint16_t sequence = pair->a.endpoint().next_sequence();
    pair->a.send_packets();
    sender->on_packet_sent(sequence);
    pair->b.send_packets();
    // Client: every message received is a whole snapshot again.
    while (bitwire::MessageHandle received = pair->b.receive(0)) {
      const SceneBytes* carried = received.as<SceneBytes>();
      ASSERT_NE(carried, nullptr);
      std::uint16_t id = 0;
      const bitwire::DeltaResult result = receiver->decode(
          std::span<const std::byte>(reinterpret_cast<const std::byte*>(carried->payload.data()),
                                     carried->payload.size()),
          *decoded, &id);
      if (result == bitwire::DeltaResult::kWhole || result == bitwire::DeltaResult::kDelta) {
        ++checked;
        auto it = sent.find(id);
        if (it == sent.end() || !(*it->second == *decoded)) ++mismatched;
      }
    }
  }
  EXPECT_EQ(mismatched, 0);
  EXPECT_EQ(receiver->counters().refused_invalid, 0u);
  EXPECT_EQ(receiver->counters().refused_no_baseline, 0u);
  EXPECT_GE(checked, static_cast<int>(ticks * (100 - GetParam()) / 100 * 0.8));
  EXPECT_GT(sender->counters().sent_delta, sender->counters().sent_whole * 5);
}

INSTANTIATE_TEST_SUITE_P(Loss, DeltaOverConnection, ::testing::Values(0.0, 5.0, 25.0));

}  // namespace
