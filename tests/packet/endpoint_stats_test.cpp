// Endpoint statistics: RTT (smoothed, min / max / average), jitter, loss (judging, late acks, eviction,
// accuracy under random loss with latency) and bandwidth.
#include <gtest/gtest.h>

#include <random>
#include <utility>
#include <vector>

#include "bitwire/packet/endpoint.hpp"
#include "support/endpoint_harness.hpp"
#include "support/seed.hpp"
#include "support/bytes.hpp"

namespace bitwire {
namespace {

using test::Peer;
using Bytes = std::vector<uint8_t>;

// Delivers every datagram `from` has transmitted to `to`, in order.
void deliver_all(Peer& from, Peer& to) {
  for (const Bytes& datagram : from.take_outbox())
    to.endpoint.receive_packet(bitwire::test::view(datagram));
}

TEST(EndpointStats, RttAtFixedRoundTrip) {
  auto a = Peer::make(EndpointConfig{});
  auto b = Peer::make(EndpointConfig{});
  double now = 0.0;
  for (int tick = 0; tick < 200; ++tick) {
    a->endpoint.update(now);
    a->send({1});
    b->endpoint.update(now + 0.05);
    deliver_all(*a, *b);
    b->send({2});
    now += 0.1;
    a->endpoint.update(now);
    deliver_all(*b, *a);
  }
  EXPECT_NEAR(a->endpoint.rtt_ms(), 100.0, 1e-6);
  EXPECT_NEAR(a->endpoint.rtt_min_ms(), 100.0, 1e-3);
  EXPECT_NEAR(a->endpoint.rtt_max_ms(), 100.0, 1e-3);
  EXPECT_NEAR(a->endpoint.rtt_avg_ms(), 100.0, 1e-3);
  EXPECT_NEAR(a->endpoint.jitter_ms(), 0.0, 1e-6);
  EXPECT_NEAR(a->endpoint.packet_loss_percent(), 0.0, 1e-9);
}

TEST(EndpointStats, RttSmoothsTowardsNewSamplesAndTracksMinMax) {
  auto a = Peer::make(EndpointConfig{});
  auto b = Peer::make(EndpointConfig{});
  double now = 0.0;
  for (int tick = 0; tick < 400; ++tick) {
    const double rtt = tick < 200 ? 0.05 : 0.15;  // the link's round trip changes halfway
    a->endpoint.update(now);
    a->send({1});
    deliver_all(*a, *b);
    b->send({2});
    now += rtt;
    a->endpoint.update(now);
    deliver_all(*b, *a);
  }
  EXPECT_NEAR(a->endpoint.rtt_ms(), 150.0, 1.0);
  EXPECT_NEAR(a->endpoint.rtt_min_ms(), 50.0, 1e-3);  // the window (256) still holds 56 of the old samples
  EXPECT_NEAR(a->endpoint.rtt_max_ms(), 150.0, 1e-3);
  EXPECT_NEAR(a->endpoint.rtt_avg_ms(), (56 * 50.0 + 200 * 150.0) / 256.0, 1e-2);
}

TEST(EndpointStats, JitterReflectsVaryingRoundTrips) {
  auto a = Peer::make(EndpointConfig{});
  auto b = Peer::make(EndpointConfig{});
  double now = 0.0;
  for (int tick = 0; tick < 400; ++tick) {
    a->endpoint.update(now);
    a->send({1});
    deliver_all(*a, *b);
    b->send({2});
    now += tick % 2 ? 0.08 : 0.12;  // 80 / 120 ms alternating: mean 100, deviation 20
    a->endpoint.update(now);
    deliver_all(*b, *a);
  }
  EXPECT_NEAR(a->endpoint.rtt_avg_ms(), 100.0, 0.5);
  EXPECT_NEAR(a->endpoint.jitter_ms(), 20.0, 3.0);
}

TEST(EndpointStats, LossCountsOnlyPacketsOldEnoughToBeAcked) {
  auto a = Peer::make(EndpointConfig{});
  auto b = Peer::make(EndpointConfig{});
  double now = 0.0;
  for (int tick = 0; tick < 2000; ++tick) {
    now += 0.01;
    a->endpoint.update(now);
    b->endpoint.update(now);
    a->send({1});
    b->send({2});
    auto datagrams = a->take_outbox();
    if (tick % 4 != 0) {  // exactly one packet in four lost
      for (const Bytes& d : datagrams) b->endpoint.receive_packet(bitwire::test::view(d));
    }
    deliver_all(*b, *a);
  }
  EXPECT_NEAR(a->endpoint.packet_loss_percent(), 25.0, 0.5);

  // Packets younger than the judging age are not counted yet: a fresh endpoint that sent into the void
  // for less than packet_loss_unknown_rtt_age reports no loss, and then 100% once they are old enough.
  auto c = Peer::make(EndpointConfig{});
  for (int tick = 0; tick < 50; ++tick) {
    c->endpoint.update(tick * 0.01);
    c->send({1});
  }
  EXPECT_EQ(c->endpoint.packet_loss_percent(), 0.0);
  c->endpoint.update(2.0);
  EXPECT_EQ(c->endpoint.packet_loss_percent(), 100.0);
}

TEST(EndpointStats, LateAckTakesPacketBackOutOfLoss) {
  EndpointConfig config;
  config.packet_loss_unknown_rtt_age = 0.5;
  auto a = Peer::make(config);
  auto b = Peer::make(config);
  a->endpoint.update(0.0);
  for (int i = 0; i < 10; ++i) a->send({1});
  deliver_all(*a, *b);
  a->endpoint.update(1.0);  // judged: all 10 unacked -> 100% loss
  EXPECT_EQ(a->endpoint.packet_loss_percent(), 100.0);
  b->send({});
  deliver_all(*b, *a);  // the acks arrive late
  EXPECT_EQ(a->endpoint.packet_loss_percent(), 0.0);
  EXPECT_EQ(a->endpoint.counters().packets_acked, 10u);
}

TEST(EndpointStats, EvictedUnackedPacketsCountAsLost) {
  EndpointConfig config;
  config.sent_packets_buffer_size = 16;
  auto a = Peer::make(config);
  a->endpoint.update(0.0);
  for (int i = 0; i < 16 + 8; ++i) a->send({1});  // time never advances; the first 8 are evicted unacked
  EXPECT_EQ(a->endpoint.packet_loss_percent(), 100.0);
}

// packets_in_flight(): sent packets whose ack may still arrive. It counts from the oldest packet that is
// neither acked nor more than 31 before the peer's newest ack, and never beyond the sent buffer.
TEST(EndpointStats, PacketsInFlightCountsWhatAnAckCanStillReach) {
  EndpointConfig config;
  config.sent_packets_buffer_size = 64;
  auto a = Peer::make(config);
  auto b = Peer::make(config);
  EXPECT_EQ(a->endpoint.packets_in_flight(), 0);
  for (int i = 0; i < 10; ++i) a->send({1});
  EXPECT_EQ(a->endpoint.packets_in_flight(), 10);
  // All ten arrive and are acked: nothing left in flight.
  deliver_all(*a, *b);
  b->send({});
  deliver_all(*b, *a);
  EXPECT_EQ(a->endpoint.packets_in_flight(), 0);

  // Sequences 10..49 sent; 10 is lost, 11..49 arrive, then one packet of the peer: its ack (49) covers
  // 18..49, which are acked. 10..17 are below its window, so no later packet of the peer can ack them:
  // nothing remains in flight.
  for (int i = 0; i < 40; ++i) a->send({1});
  auto datagrams = a->take_outbox();
  EXPECT_EQ(a->endpoint.packets_in_flight(), 40);
  for (size_t i = 1; i < datagrams.size(); ++i) b->endpoint.receive_packet(bitwire::test::view(datagrams[i]));
  b->send({});
  deliver_all(*b, *a);
  EXPECT_EQ(a->endpoint.packets_in_flight(), 0);

  // Sequence 50 lost, 51..60 arrive: 50 is inside the peer's window (ack 60), it could still be acked.
  for (int i = 0; i < 11; ++i) a->send({1});
  datagrams = a->take_outbox();
  for (size_t i = 1; i < datagrams.size(); ++i) b->endpoint.receive_packet(bitwire::test::view(datagrams[i]));
  b->send({});
  deliver_all(*b, *a);
  EXPECT_EQ(a->endpoint.packets_in_flight(), 11);
  // ... and once it arrives late and is acked, nothing is in flight.
  b->endpoint.receive_packet(bitwire::test::view(datagrams[0]));
  b->send({});
  deliver_all(*b, *a);
  EXPECT_EQ(a->endpoint.packets_in_flight(), 0);

  // Into the void: never more than the sent buffer holds records for.
  for (int i = 0; i < 100; ++i) a->send({1});
  EXPECT_EQ(a->endpoint.packets_in_flight(), 64);
  a->endpoint.reset();
  EXPECT_EQ(a->endpoint.packets_in_flight(), 0);
}

TEST(EndpointStats, BandwidthSentReceivedAcked) {
  auto a = Peer::make(EndpointConfig{});
  auto b = Peer::make(EndpointConfig{});
  double now = 0.0;
  for (int tick = 0; tick <= 300; ++tick) {
    now = tick * 0.01;
    a->endpoint.update(now);
    b->endpoint.update(now);
    a->send(Bytes(100, 7));
    deliver_all(*a, *b);
    b->send({});
    deliver_all(*b, *a);
  }
  // a's datagrams: 4 (envelope) + 4 (steady header: everything acked) + 2 (ack delay extension, on with
  // the envelope) + 100 + 28 (IP/UDP) = 138 bytes, 100/s.
  EXPECT_NEAR(a->endpoint.sent_kbps(), 138 * 8 * 100 / 1000.0, 2.0);
  EXPECT_NEAR(b->endpoint.received_kbps(), 138 * 8 * 100 / 1000.0, 2.0);
  EXPECT_NEAR(a->endpoint.acked_kbps(), 138 * 8 * 100 / 1000.0, 2.0);
  // b sends 4 + 4 + 2 + 0 + 28 = 38 bytes per packet.
  EXPECT_NEAR(b->endpoint.sent_kbps(), 38 * 8 * 100 / 1000.0, 1.0);
}

// A one-way delay line with random loss: datagrams come out `delay` seconds after they went in.
struct DelayLine {
  double delay = 0.05;
  int loss_percent = 0;
  std::vector<std::pair<double, Bytes>> in_flight;
  void push(double now, std::vector<Bytes> datagrams, std::mt19937_64& rng) {
    for (Bytes& d : datagrams) {
      if (static_cast<int>(rng() % 100) < loss_percent) continue;
      in_flight.emplace_back(now + delay, std::move(d));
    }
  }
  void deliver(double now, Endpoint& to) {
    size_t kept = 0;
    for (size_t i = 0; i < in_flight.size(); ++i) {
      if (in_flight[i].first <= now + 1e-9) {
        to.receive_packet(bitwire::test::view(in_flight[i].second));
      } else {
        if (kept != i) in_flight[kept] = std::move(in_flight[i]);
        ++kept;
      }
    }
    in_flight.resize(kept);
  }
};

TEST(EndpointStats, LossEstimateAveragedOverSixtySecondsIsWithinTwoPoints) {
  BITWIRE_SEEDED_TEST_SEED(0x10557);
  std::mt19937_64 rng(seed);
  for (int loss : {10, 25, 50}) {
    auto a = Peer::make(EndpointConfig{});
    auto b = Peer::make(EndpointConfig{});
    DelayLine ab{0.05, loss, {}}, ba{0.05, loss, {}};
    double sum = 0.0;
    int samples = 0;
    const double tick = 1.0 / 60.0;
    for (int i = 0; i < 70 * 60; ++i) {  // 10 s warm-up, then 60 s measured
      const double now = i * tick;
      a->endpoint.update(now);
      b->endpoint.update(now);
      ab.deliver(now, b->endpoint);
      ba.deliver(now, a->endpoint);
      a->send({1, 2, 3});
      b->send({4, 5, 6});
      ab.push(now, a->take_outbox(), rng);
      ba.push(now, b->take_outbox(), rng);
      b->delivered.clear();
      a->delivered.clear();
      a->endpoint.clear_acks();
      b->endpoint.clear_acks();
      if (i >= 10 * 60) {
        sum += a->endpoint.packet_loss_percent();
        ++samples;
      }
    }
    EXPECT_NEAR(sum / samples, loss, 2.0) << "loss " << loss << "%";
    // RTT is measured at the first ack, so losing the packets that carry acks adds about
    // loss / (1 - loss) ticks on average (one tick at 50%); at 10% it stays within one tick + 10%.
    if (loss == 10) {
      EXPECT_NEAR(a->endpoint.rtt_ms(), 100.0, 1000.0 / 60.0 + 10.0);
    }
  }
}

}  // namespace
}  // namespace bitwire
