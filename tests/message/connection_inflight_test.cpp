// Packets in flight: a Connection pair whose block sender could send more packets in one round trip than
// the endpoint has sent-packet entries. The connection limits the packets in flight so that acks still find
// their entries; these tests check the block completes, the messages behind it arrive in order, probes
// survive an outage, and the limit never binds where a round trip holds few packets.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

#include "support/block_messages.hpp"
#include "support/connection_pair.hpp"
#include "support/test_messages.hpp"

namespace bitwire {
namespace {

using test::block_message;
using test::ConnectionPair;
using test::pattern;
using test::Small;
using test::small_message;
using test::WithBlock;

constexpr double kTick = 1.0 / 60.0;

// A block sender that may send 16 packets an update (1 MiB/s at 60 Hz) over a long link: one round trip
// holds far more packets than the endpoint's 256 sent-packet entries. Without the in-flight limit every
// ack arrives after its entry was overwritten, nothing is acked again and everything is resent forever.
// With it the block completes byte-exact both ways and the small reliable messages behind it arrive in
// order; the extra packets the limit held back are counted.
struct LongLink {
  double latency_ms;
  double loss_percent;  // each way: acks are lost too
  double jitter_ms;
};

void PrintTo(const LongLink& link, std::ostream* os) {
  *os << link.latency_ms << " ms, " << link.loss_percent << "% loss, +-" << link.jitter_ms << " ms";
}

class InFlightOverLatency : public ::testing::TestWithParam<LongLink> {};

TEST_P(InFlightOverLatency, BlockCompletesWithTheDefaultSentBufferOnALongLink) {
  const double latency_ms = GetParam().latency_ms;
  ConnectionConfig config;
  ASSERT_EQ(config.endpoint.sent_packets_buffer_size, 256);
  config.channels[0].block_bandwidth_bytes_per_second = 1024.0 * 1024.0;
  NetworkConditions net;
  net.latency_ms = latency_ms;
  net.loss_percent = GetParam().loss_percent;
  net.jitter_ms = GetParam().jitter_ms;
  ConnectionPair pair(MessageFactory(test::kAllTypes), config, net, 7);
  Connection* sides[2] = {&pair.a, &pair.b};
  constexpr size_t kSize = 64 * 1024;
  const std::vector<std::byte> blocks[2] = {pattern(kSize, 11), pattern(kSize, 12)};
  constexpr int kSmalls = 20;
  for (int s = 0; s < 2; ++s) {
    ASSERT_TRUE(sides[s]->send(0, block_message(*sides[s], static_cast<uint8_t>(s), blocks[s])));
    for (int i = 0; i < kSmalls; ++i) ASSERT_TRUE(sides[s]->send(0, small_message(*sides[s], static_cast<uint8_t>(i))));
  }
  // Cap: the 64 fragments need a few round trips at most (the limit allows about 190 packets per round
  // trip; loss adds resend rounds); 10 round trips plus a second is far above that and far below "never".
  const int cap = static_cast<int>(std::ceil((10.0 * 2.0 * latency_ms / 1000.0 + 1.0) / kTick));
  bool block_arrived[2] = {false, false};
  int smalls[2] = {0, 0};
  int tick = 0;
  for (; tick < cap && !(smalls[0] == kSmalls && smalls[1] == kSmalls); ++tick) {
    pair.tick(tick * kTick);
    for (int s = 0; s < 2; ++s) {
      while (MessageHandle m = sides[1 - s]->receive(0)) {
        if (m.as<WithBlock>() != nullptr) {
          EXPECT_FALSE(block_arrived[s]) << "the block arrives once";
          EXPECT_TRUE(std::equal(m.block().begin(), m.block().end(), blocks[s].begin(), blocks[s].end()));
          block_arrived[s] = true;
        } else {
          ASSERT_NE(m.as<Small>(), nullptr);
          EXPECT_TRUE(block_arrived[s]) << "small messages queued behind the block come after it";
          EXPECT_EQ(m.as<Small>()->value, smalls[s]) << "in order";
          ++smalls[s];
        }
      }
    }
  }
  SCOPED_TRACE("latency " + std::to_string(latency_ms) + " ms, loss " + std::to_string(net.loss_percent) +
               "%, " + std::to_string(tick) + " of " + std::to_string(cap) + " ticks");
  std::printf("[ info ] %.0f ms, %.0f%% loss: done in %d ticks (cap %d); held back %llu, in flight <= %d\n",
              latency_ms, net.loss_percent, tick, cap,
              static_cast<unsigned long long>(pair.a.counters().packets_held_back), pair.a.max_packets_in_flight());
  for (int s = 0; s < 2; ++s) {
    EXPECT_TRUE(block_arrived[s]) << "side " << s;
    EXPECT_EQ(smalls[s], kSmalls) << "side " << s;
    EXPECT_GT(sides[s]->endpoint().counters().packets_acked, 0u);
    EXPECT_EQ(sides[s]->error(), ConnectionError::kNone);
    EXPECT_GT(sides[s]->counters().packets_held_back, 0u) << "one round trip holds more than the limit";
    EXPECT_LE(sides[s]->endpoint().packets_in_flight(), sides[s]->max_packets_in_flight() + 1);
  }
}

INSTANTIATE_TEST_SUITE_P(Links, InFlightOverLatency,
                         ::testing::Values(LongLink{400.0, 0.0, 0.0}, LongLink{1000.0, 0.0, 0.0},
                                           LongLink{400.0, 25.0, 50.0}, LongLink{1000.0, 25.0, 100.0}));

// At 240 Hz over a 2 s round trip the first packets of the updates alone (480 a round trip) would overwrite
// every one of the 256 records before its ack arrives: then the first packet waits too, except one probe
// each probe interval. A 3 s outage in the middle (every packet of both ends lost, so both ends have every
// record in flight and no ack can come) is survived through the probes. Every reliable message arrives
// in order, both ways, and is acked (without the limit nothing is ever acked: the messages arrive only
// because they are resent forever, and the send queues never drain).
TEST(InFlight, HighRateLongLinkFirstPacketsWaitAndProbesSurviveAnOutage) {
  constexpr double kFastTick = 1.0 / 240.0;
  ConnectionConfig config;
  NetworkConditions net;
  net.latency_ms = 1000.0;
  net.loss_percent = 10.0;
  ConnectionPair pair(MessageFactory(test::kAllTypes), config, net, 5);
  Connection* sides[2] = {&pair.a, &pair.b};
  constexpr int kMessages = 200;
  int queued = 0;
  int received[2] = {0, 0};
  int tick = 0;
  const int cap = static_cast<int>(30.0 / kFastTick);
  const auto acked = [&](int s) { return sides[s]->channel_counters(0).messages_acked; };
  for (; tick < cap && !(received[0] == kMessages && received[1] == kMessages && acked(0) == kMessages &&
                         acked(1) == kMessages);
       ++tick) {
    const double now = tick * kFastTick;
    if (tick == static_cast<int>(6.0 / kFastTick)) {
      NetworkConditions outage = net;
      outage.loss_percent = 100.0;
      ASSERT_TRUE(pair.link.set_conditions(outage));
    }
    if (tick == static_cast<int>(9.0 / kFastTick)) {
      ASSERT_TRUE(pair.link.set_conditions(net));
    }
    // One message per side every 10 updates while the first 12 seconds last.
    if (tick % 10 == 0 && queued < kMessages) {
      for (Connection* side : sides) ASSERT_TRUE(side->send(0, small_message(*side, static_cast<uint8_t>(queued))));
      ++queued;
    }
    pair.tick(now);
    for (int s = 0; s < 2; ++s) {
      while (MessageHandle m = sides[1 - s]->receive(0)) {
        ASSERT_NE(m.as<Small>(), nullptr);
        EXPECT_EQ(m.as<Small>()->value, static_cast<uint8_t>(received[s])) << "in order";
        ++received[s];
      }
    }
  }
  std::printf("[ info ] 240 Hz, 1000 ms, 3 s outage: done at %.1f s; held back %llu, probes %llu, acked %llu\n",
              tick * kFastTick, static_cast<unsigned long long>(pair.a.counters().packets_held_back),
              static_cast<unsigned long long>(pair.a.counters().probes_sent),
              static_cast<unsigned long long>(pair.a.endpoint().counters().packets_acked));
  for (int s = 0; s < 2; ++s) {
    EXPECT_EQ(received[s], kMessages) << "side " << s;
    EXPECT_EQ(acked(s), static_cast<uint64_t>(kMessages)) << "side " << s;
    EXPECT_EQ(sides[s]->send_queue_depth(0), 0);
    EXPECT_GT(sides[s]->counters().packets_held_back, 0u);
    EXPECT_GT(sides[s]->counters().probes_sent, 0u);
    EXPECT_LE(sides[s]->endpoint().packets_in_flight(), sides[s]->ack_records());
    EXPECT_EQ(sides[s]->error(), ConnectionError::kNone);
  }
}

// Each side has one block buffer and queues its next block as soon as that buffer is free. A completed
// block that waits for a buffer makes its receiver refuse the peer's next fragments, unacked (busy); the
// buffer it waits for is held by the receiver's own outgoing block, which only the peer's acks free -- and
// they travel in exactly those refused packets. Scripted: B's small block completes at A and waits (A's
// buffer holds A's big block); B queues a big one; a one-way outage with reordering (B -> A lost) lets A's
// block complete at B, where it waits too; then the link is clean. While a refused packet's acks were
// dropped with it, A never learnt its block had arrived, both ends soon had every record in flight and
// sent only probes, each carrying a fragment and so refused as well: two correct peers deadlocked for
// good. A busy refusal now defers the packet (Endpoint::defer_packet): unacked, its acks processed.
// Each side's buffer is on a BlockArena of its own, where a completed block is copied into a buffer (with
// buffers of its own a channel lends its reassembly buffer and nothing waits for one).
TEST(InFlight, BusyReceiversStillTakeTheAcksAndTheSessionSettlesAfterAnOutage) {
  ConnectionConfig config;
  config.max_packet_size = 300;
  config.block_pool_size = 1;
  config.channels[0].max_block_size = 16 * 1024;
  config.channels[0].block_fragment_size = 256;  // 47 fragments a big block: every packet carries one
  BlockArena arenas[2] = {BlockArena(1, 16 * 1024), BlockArena(1, 16 * 1024)};
  ConnectionPair pair(MessageFactory(test::kAllTypes), config, NetworkConditions{}, 7, &arenas[0],
                      &arenas[1]);
  Connection* sides[2] = {&pair.a, &pair.b};
  const std::vector<size_t> sizes[2] = {{12000, 300}, {100, 12000, 300}};
  const auto block_of = [](int s, size_t n, size_t size) {
    return pattern(size, static_cast<uint32_t>(100 * s) + static_cast<uint32_t>(n));
  };
  size_t queued[2] = {0, 0};
  size_t received[2] = {0, 0};  // side s's blocks received by the other side
  const auto queue_next = [&](int s) {
    if (queued[s] == sizes[s].size()) return;
    const size_t n = queued[s];
    MessageHandle m = block_message(*sides[s], static_cast<uint8_t>(n), block_of(s, n, sizes[s][n]));
    if (m && sides[s]->send(0, std::move(m))) ++queued[s];  // no free block buffer: again next tick
  };
  int tick = 0;
  const auto step = [&] {
    for (int s = 0; s < 2; ++s) queue_next(s);
    pair.tick(tick * kTick);
    ++tick;
    for (int s = 0; s < 2; ++s) {
      while (MessageHandle m = sides[1 - s]->receive(0)) {
        ASSERT_NE(m.as<WithBlock>(), nullptr);
        ASSERT_EQ(m.as<WithBlock>()->tag, received[s]) << "in order, once";
        const std::vector<std::byte> expected = block_of(s, received[s], sizes[s][received[s]]);
        ASSERT_TRUE(std::equal(m.block().begin(), m.block().end(), expected.begin(), expected.end()));
        ++received[s];
      }
    }
  };
  // B's small block waits at A, and B (its block acked) has queued its big one.
  while (tick < 60 && !(pair.a.channel_counters(0).blocks_waiting_buffer == 1 && queued[1] == 2)) step();
  ASSERT_EQ(pair.a.channel_counters(0).blocks_waiting_buffer, 1u);
  ASSERT_EQ(queued[1], 2u);
  NetworkConditions outage;
  outage.loss_percent = 100.0;
  outage.reorder_percent = 50.0;
  ASSERT_TRUE(pair.link.leaving(LinkSide::kB).set_conditions(outage));
  NetworkConditions reordering;
  reordering.reorder_percent = 50.0;
  ASSERT_TRUE(pair.link.leaving(LinkSide::kA).set_conditions(reordering));
  // A's big block completes at B and waits there too; the outage lasts until both ends have every record
  // in flight (A hears nothing; B's packets never reach A, so nothing acks them).
  const auto all_in_flight = [](Connection& c) { return c.endpoint().packets_in_flight() >= c.ack_records(); };
  while (tick < 600 && !(pair.b.channel_counters(0).blocks_waiting_buffer == 1 && all_in_flight(pair.a) &&
                         all_in_flight(pair.b))) {
    step();
  }
  ASSERT_EQ(pair.b.channel_counters(0).blocks_waiting_buffer, 1u);
  ASSERT_TRUE(all_in_flight(pair.a) && all_in_flight(pair.b));
  ASSERT_TRUE(pair.link.set_conditions(NetworkConditions{}));
  const int clean_from = tick;
  const auto settled = [&] { return received[0] == sizes[0].size() && received[1] == sizes[1].size(); };
  while (tick < clean_from + 600 && !settled()) step();
  std::printf("[ info ] clean from tick %d, settled at %d; deferred %llu / %llu, probes %llu / %llu\n",
              clean_from, tick, static_cast<unsigned long long>(pair.a.endpoint().counters().packets_deferred),
              static_cast<unsigned long long>(pair.b.endpoint().counters().packets_deferred),
              static_cast<unsigned long long>(pair.a.counters().probes_sent),
              static_cast<unsigned long long>(pair.b.counters().probes_sent));
  for (int s = 0; s < 2; ++s) {
    EXPECT_EQ(received[s], sizes[s].size()) << "side " << s;
    EXPECT_LT(sides[s]->endpoint().packets_in_flight(), sides[s]->max_packets_in_flight()) << "side " << s;
    EXPECT_EQ(sides[s]->send_queue_depth(0), 0) << "side " << s;
    EXPECT_EQ(sides[s]->error(), ConnectionError::kNone);
  }
  EXPECT_GT(pair.a.endpoint().counters().packets_deferred, 0u) << "A was busy and took B's acks anyway";
}

// Where a round trip holds few packets the limit never binds: at 0 latency a block at a 1 MiB/s budget
// still moves its budget's worth of packets every update (16 at 60 Hz) and nothing is held back.
TEST(InFlight, ZeroLatencyBlockKeepsSeveralPacketsPerUpdate) {
  ConnectionConfig config;
  config.channels[0].block_bandwidth_bytes_per_second = 1024.0 * 1024.0;
  ConnectionPair pair(MessageFactory(test::kAllTypes), config, NetworkConditions{}, 3);
  ASSERT_TRUE(pair.a.send(0, block_message(pair.a, 1, pattern(256 * 1024, 4))));
  uint64_t fewest_in_a_tick = ~uint64_t{0};
  uint64_t previous = 0;
  for (int tick = 1; tick <= 12; ++tick) {
    pair.tick(tick * kTick);
    const uint64_t sent = pair.a.channel_counters(0).block_fragments_sent;
    if (tick > 1) fewest_in_a_tick = std::min(fewest_in_a_tick, sent - previous);
    previous = sent;
  }
  // 1 MiB/s / 60 / 1064 bytes per fragment = 16.4: max_packets_per_update (16) is what binds.
  EXPECT_GE(fewest_in_a_tick, 15u);
  EXPECT_EQ(pair.a.counters().packets_held_back, 0u);
  EXPECT_LT(pair.a.endpoint().packets_in_flight(), 2 * config.max_packets_per_update + 32);
}

}  // namespace
}  // namespace bitwire
