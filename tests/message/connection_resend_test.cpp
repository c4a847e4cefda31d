// Resend timing of reliable messages and block fragments over a simulated link:
// - the resend delay follows the measured round trip (Connection::ack_round_trip() and the endpoint's
//   jitter), so a message whose ack is on its way is not sent again, while a lost one is resent about one
//   round trip after its send; the fixed mode (message_resend_rtt_factor = 0, yojimbo's) keeps 0.1 s;
// - a block's fragments are resent as soon as an ack shows them missing, which keeps the transfer's tail
//   under loss short (the goal: time / (size / budget / (1 - loss)) at p90 <= 1.25 over 200 seeds).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "bitwire/message/channel.hpp"
#include "bitwire/message/connection.hpp"
#include "bitwire/stack/stack_config.hpp"
#include "support/connection_pair.hpp"
#include "support/seed.hpp"
#include "support/test_messages.hpp"

namespace bitwire {
namespace {

using test::ConnectionPair;
using test::Small;
using test::WithBlock;

constexpr double kTick = 1.0 / 60.0;

NetworkConditions round_trip_ms(double rtt) {
  NetworkConditions conditions;
  conditions.latency_ms = rtt / 2.0;
  return conditions;
}

TEST(ConnectionResend, DelayFollowsTheRoundTripAboveTheFloor) {
  ConnectionConfig config;
  Connection connection(MessageFactory(test::kAllTypes), config);
  Channel& channel = connection.channel(0);
  EXPECT_DOUBLE_EQ(channel.message_resend_delay(), 0.1) << "no RTT yet: the fixed time";
  channel.set_round_trip(0.2, 0.01);
  EXPECT_DOUBLE_EQ(channel.message_resend_delay(), 0.2 + 4 * 0.01);
  channel.set_round_trip(0.02, 0.001);
  EXPECT_DOUBLE_EQ(channel.message_resend_delay(), 0.1) << "never below message_resend_time";

  config.channels[0].message_resend_rtt_factor = 0.0;
  Connection fixed(MessageFactory(test::kAllTypes), config);
  fixed.channel(0).set_round_trip(0.2, 0.01);
  EXPECT_DOUBLE_EQ(fixed.channel(0).message_resend_delay(), 0.1) << "factor 0: the fixed time";
}

TEST(ConnectionResend, YojimboCompatibleKeepsTheFixedTime) {
  const StackConfig config = StackConfig::yojimbo_compatible(0x1234);
  for (int i = 0; i < config.connection.channel_count; ++i) {
    EXPECT_EQ(config.connection.channels[static_cast<size_t>(i)].message_resend_rtt_factor, 0.0);
    EXPECT_EQ(config.connection.channels[static_cast<size_t>(i)].message_resend_time, 0.1);
  }
}

// 120 ms round trip, no loss, 10 messages a second: every ack arrives 120 ms or more after its send (the
// trip, plus up to a tick at each end), later than the fixed 0.1 s. The delay from the round trip sends
// each message once; the fixed time sends every one of them twice.
TEST(ConnectionResend, NoResendWhileTheAckIsOnItsWay) {
  for (const double factor : {1.0, 0.0}) {
    ConnectionConfig config;
    config.channels[0].message_resend_rtt_factor = factor;
    ConnectionPair pair(MessageFactory(test::kAllTypes), config, round_trip_ms(120), 7);
    int tick = 1;
    for (; tick <= 60; ++tick) pair.tick(tick * kTick);  // RTT samples from the empty packets
    ASSERT_GT(pair.a.endpoint().rtt_samples(), 0u);
    EXPECT_NEAR(pair.a.ack_round_trip(), 0.12 + 2 * kTick, 0.01);
    int delivered = 0;
    for (; tick <= 60 + 300; ++tick) {
      if (tick % 6 == 0 && tick <= 60 + 240) {
        ASSERT_TRUE(pair.a.send(0, pair.a.create<Small>()));
      }
      pair.tick(tick * kTick);
      while (pair.b.receive(0)) ++delivered;
    }
    EXPECT_EQ(delivered, 40);
    if (factor > 0.0) {
      EXPECT_EQ(pair.a.channel_counters(0).messages_resent, 0u);
      EXPECT_EQ(pair.a.channel_counters(0).messages_sent, 40u);
    } else {
      EXPECT_GE(pair.a.channel_counters(0).messages_resent, 40u)
          << "the fixed 0.1 s resends while acks travel";
    }
  }
}

// The packet carrying a message is lost: the message goes again once the delay from the round trip has
// passed (not before: the ack could still come), and arrives.
TEST(ConnectionResend, ALostMessageIsResentAfterTheRoundTrip) {
  ConnectionConfig config;
  ConnectionPair pair(MessageFactory(test::kAllTypes), config, round_trip_ms(100), 9);
  int tick = 1;
  for (; tick <= 60; ++tick) pair.tick(tick * kTick);
  const double delay = pair.a.channel(0).message_resend_delay();
  NetworkConditions lossy = round_trip_ms(100);
  lossy.loss_percent = 100.0;
  ASSERT_TRUE(pair.a.send(0, pair.a.create<Small>()));
  const double sent_at = tick * kTick;
  ASSERT_TRUE(pair.link.leaving(LinkSide::kA).set_conditions(lossy));
  pair.tick(sent_at);
  ASSERT_TRUE(pair.link.leaving(LinkSide::kA).set_conditions(round_trip_ms(100)));
  ASSERT_EQ(pair.a.channel_counters(0).messages_sent, 1u);
  double resent_at = -1.0;
  bool delivered = false;
  for (++tick; tick <= 120; ++tick) {
    pair.tick(tick * kTick);
    if (resent_at < 0.0 && pair.a.channel_counters(0).messages_resent == 1) resent_at = tick * kTick;
    if (pair.b.receive(0)) delivered = true;
  }
  EXPECT_TRUE(delivered);
  EXPECT_EQ(pair.a.channel_counters(0).messages_resent, 1u);
  EXPECT_GE(resent_at - sent_at, delay - 1e-9);
  EXPECT_LT(resent_at - sent_at, delay + kTick + 1e-9) << "resent at the first update past the delay";
  EXPECT_GT(delay, 0.1 + kTick) << "the delay covers the round trip and the ticks, not the fixed 0.1 s";
}

// The due lists pick exactly what a walk over the window would: a model walks from the oldest unacked
// id, at most receive_queue_size ids, and takes every due message (never sent, or last sent at least the
// resend delay ago) until the packet's message cap; the channel must return those ids, in that order.
// Random sends, acks (in any order, some never), clock steps and round-trip changes; ids wrap.
TEST(ConnectionResend, PacketBuildPicksWhatAWalkOverTheWindowPicks) {
  BITWIRE_SEEDED_TEST_SEED(0xd0e5u);
  std::mt19937_64 rng(seed);
  ConnectionConfig config;
  config.channels[0].send_queue_size = 256;
  config.channels[0].receive_queue_size = 64;
  config.channels[0].max_messages_per_packet = 8;
  config.channels[0].message_resend_time = 0.05;
  config.message_pool_size = 512;
  Connection connection(MessageFactory(test::kAllTypes), config);
  auto& channel = static_cast<ReliableOrderedChannel&>(connection.channel(0));

  struct Model {
    double last_sent = -1.0;
    bool acked = false;
  };
  std::vector<Model> model;                    // by serial
  std::vector<std::vector<uint32_t>> packets;  // serials carried by each sequence
  uint32_t oldest = 0;
  double now = 0.0;
  uint64_t compared = 0;
  for (int step = 0; step < 60000; ++step) {
    const int sends = static_cast<int>(rng() % 4);
    for (int i = 0; i < sends && channel.can_send(); ++i) {
      ASSERT_TRUE(connection.send(0, connection.create<Small>()));
      model.push_back({});
    }
    now += static_cast<double>(rng() % 4) * 0.02;
    if (rng() % 8 == 0) channel.set_round_trip(static_cast<double>(rng() % 200) / 1000.0, 0.005);
    const double delay = channel.message_resend_delay();
    // The model's packet.
    std::vector<uint32_t> expected;
    const uint32_t end = std::min<uint32_t>(static_cast<uint32_t>(model.size()), oldest + 64);
    for (uint32_t serial = oldest; serial < end && expected.size() < 8; ++serial) {
      const Model& m = model[serial];
      if (m.acked || (m.last_sent >= 0.0 && now < m.last_sent + delay)) continue;
      expected.push_back(serial);
    }
    OutgoingEntry entry;
    const auto sequence = static_cast<uint16_t>(packets.size());
    const size_t used = channel.plan(sequence, now, 8 * 1200, entry);
    std::vector<uint32_t> got;
    if (used != 0) {
      for (const OutgoingMessage& m : entry.messages) {
        // Serials from 16-bit ids: the id is the serial's low 16 bits, within 65535 of the oldest.
        got.push_back(oldest + static_cast<uint16_t>(m.id - static_cast<uint16_t>(oldest)));
      }
    }
    ASSERT_EQ(got, expected) << "step " << step;
    compared += got.size();
    for (const uint32_t serial : got) model[serial].last_sent = now;
    packets.push_back(got);
    // Ack a few random recent packets (some are never acked: their messages are resent).
    for (int k = static_cast<int>(rng() % 3); k > 0 && !packets.empty(); --k) {
      const size_t back = std::min<size_t>(packets.size(), 1 + rng() % 40);
      const size_t index = packets.size() - back;
      channel.on_packet_acked(static_cast<uint16_t>(index));
      for (const uint32_t serial : packets[index]) model[serial].acked = true;
      packets[index].clear();
    }
    while (oldest < model.size() && model[oldest].acked) ++oldest;
    ASSERT_EQ(channel.oldest_unacked_id(), static_cast<uint16_t>(oldest));
  }
  EXPECT_GT(model.size(), 65536u) << "ids wrapped";
  EXPECT_GT(compared, 100000u);
}

// A 256 KiB block at 10% loss both ways and 100 ms RTT, 200 seeds: the time to deliver over what the
// budget allows at that loss (size / budget / 0.9). With resends only on the 0.1 s timer the p90 was 1.26
// and 23 seeds took more than 1.25; resending what an ack shows missing brings the p90 to 1.25 or less.
TEST(ConnectionResend, BlockTailUnderLossStaysNearTheBudget) {
  const ConnectionConfig config;
  const MessageFactory factory(test::kAllTypes);
  constexpr size_t kBlockBytes = 256 * 1024;
  std::vector<std::byte> block(kBlockBytes);
  for (size_t i = 0; i < block.size(); ++i) block[i] = static_cast<std::byte>(i * 2654435761u >> 24);
  NetworkConditions conditions = round_trip_ms(100);
  conditions.loss_percent = 10.0;
  const double ideal = kBlockBytes / config.channels[0].block_bandwidth_bytes_per_second / 0.9;
  std::vector<double> ratios;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    ConnectionPair pair(factory, config, conditions, seed);
    MessageHandle m = pair.a.create<WithBlock>();
    ASSERT_TRUE(m.attach_block(block));
    ASSERT_TRUE(pair.a.send(0, std::move(m)));
    double now = 0.0;
    MessageHandle got;
    while (!got && now < 10.0) {
      now += kTick;
      pair.tick(now);
      got = pair.b.receive(0);
    }
    ASSERT_TRUE(got) << seed;
    ASSERT_EQ(got.block().size(), block.size());
    ASSERT_EQ(std::memcmp(got.block().data(), block.data(), block.size()), 0);
    ratios.push_back(now / ideal);
  }
  std::sort(ratios.begin(), ratios.end());
  const double p90 = ratios[static_cast<size_t>(0.9 * 199 + 0.5)];
  RecordProperty("p90", std::to_string(p90));
  EXPECT_LE(p90, 1.25);
}

}  // namespace
}  // namespace bitwire
