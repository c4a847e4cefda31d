// The ack delay extension (docs/packets.md section 1.5) and arrival times: golden bytes derived by hand,
// the code's scale, refusal of malformed or unusable extensions (each counted), raw reliable 1.0 left
// byte-exact, and RTT samples that exclude the time an ack waited at the peer and the time a datagram
// waited for the receiver's tick.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "bitwire/packet/endpoint.hpp"
#include "bitwire/core/random.hpp"
#include "support/endpoint_harness.hpp"
#include "support/bytes.hpp"

namespace bitwire {
namespace {

using test::Peer;
using Bytes = std::vector<uint8_t>;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Raw datagrams (no envelope) so tests can craft them; the extension switched on explicitly.
EndpointConfig extension_config() {
  EndpointConfig config;
  config.envelope = false;
  config.ack_delay = AckDelayMode::kOn;
  return config;
}

EndpointConfig raw_config() {
  EndpointConfig config;
  config.envelope = false;
  return config;
}

Bytes header_bytes(const PacketHeader& header) {
  uint8_t out[kMaxPacketHeaderBytes + kAckDelayBytes];
  return Bytes(out, out + write_packet_header(header, bitwire::test::writable(out)));
}

void deliver_all(Peer& from, Peer& to) {
  for (const Bytes& datagram : from.take_outbox())
    to.endpoint.receive_packet(bitwire::test::view(datagram));
}

// ---- Bytes ----

TEST(AckDelayGolden, ExtensionFollowsTheAckBits) {
  // Prefix 0x20 (one-byte ack) | 0x40 (extension) = 0x60; sequence 34 12; ack difference 00; no ack_bits
  // bytes (all 0xFF); then offset 00 and code 0x11 (17 ms).
  EXPECT_EQ(header_bytes(PacketHeader{0x1234, 0x1234, 0xFFFFFFFF, true, 0, 17}),
            (Bytes{0x60, 0x34, 0x12, 0x00, 0x00, 0x11}));
  // The longest header: prefix 0x1E | 0x40 = 0x5E, sequence 00 04, two-byte ack 00 01, ack_bits
  // 04 03 02 01, offset 3 (it times packet 0x00FD), code 0xC8 = 200 (128 + 8 * 72 = 704 ms): 11 bytes.
  EXPECT_EQ(header_bytes(PacketHeader{0x0400, 0x0100, 0x01020304, true, 3, 200}),
            (Bytes{0x5E, 0x00, 0x04, 0x00, 0x01, 0x04, 0x03, 0x02, 0x01, 0x03, 0xC8}));
  // Without the extension, the reliable 1.0 bytes, unchanged.
  EXPECT_EQ(header_bytes(PacketHeader{0x1234, 0x1234, 0xFFFFFFFF}), (Bytes{0x20, 0x34, 0x12, 0x00}));
}

TEST(AckDelayGolden, ReadBackWhenEnabled) {
  const Bytes bytes{0x6A, 0x10, 0x00, 0x01, 0x12, 0x00, 0xFE, 0x80};
  PacketHeader header;
  ASSERT_EQ(read_packet_header(bitwire::test::view(bytes), header, nullptr, true), 8u);
  EXPECT_EQ(header, (PacketHeader{0x0010, 0x000F, 0xFF00FF12, true, 0xFE, 0x80}));
  EXPECT_EQ(ack_delay_ms(header.ack_delay), 128.0);
}

TEST(AckDelayGolden, CodeScale) {
  EXPECT_EQ(ack_delay_code(0.0), 0);
  EXPECT_EQ(ack_delay_code(-0.4), 0);  // rounding noise below zero
  EXPECT_EQ(ack_delay_code(0.49), 0);
  EXPECT_EQ(ack_delay_code(0.5), 1);
  EXPECT_EQ(ack_delay_code(16.7), 17);
  EXPECT_EQ(ack_delay_code(127.4), 127);
  EXPECT_EQ(ack_delay_code(127.5), 128);  // 128 ms, the first 8 ms step
  EXPECT_EQ(ack_delay_code(131.9), 128);
  EXPECT_EQ(ack_delay_code(132.0), 129);  // 136 ms is nearer
  EXPECT_EQ(ack_delay_code(1144.0), 255);
  EXPECT_EQ(ack_delay_code(1147.9), 255);
  EXPECT_EQ(ack_delay_code(1148.0), -1);  // does not fit: the extension is left out
  EXPECT_EQ(ack_delay_code(-0.6), -1);
  EXPECT_EQ(ack_delay_code(kNaN), -1);
  EXPECT_EQ(ack_delay_ms(0), 0.0);
  EXPECT_EQ(ack_delay_ms(127), 127.0);
  EXPECT_EQ(ack_delay_ms(128), 128.0);
  EXPECT_EQ(ack_delay_ms(129), 136.0);
  EXPECT_EQ(ack_delay_ms(255), kMaxAckDelayMs);
  for (int code = 0; code < 256; ++code) {  // every code decodes to a delay that encodes back to it
    EXPECT_EQ(ack_delay_code(ack_delay_ms(static_cast<uint8_t>(code))), code);
  }
}

TEST(AckDelayGolden, CanonicalRoundTripOverRandomBytes) {
  Random random(0xde1a);
  int accepted = 0;
  for (int i = 0; i < 200000; ++i) {
    uint8_t bytes[12];
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(random.next());
    if (i % 2) bytes[0] |= 0x40;
    const size_t size = 1 + random.next() % sizeof(bytes);
    PacketHeader header;
    const size_t read = read_packet_header(bitwire::test::view(bytes, size), header, nullptr, true);
    if (read == 0) continue;
    ++accepted;
    ASSERT_EQ(header_bytes(header), Bytes(bytes, bytes + read));
  }
  EXPECT_GT(accepted, 10000);
}

// ---- Malformed extensions are refused and counted ----

TEST(AckDelayRefusal, BitSixRefusedWhenTheExtensionIsOff) {
  auto peer = Peer::make(raw_config());
  const Bytes packet{0x60, 0x00, 0x00, 0x00, 0x00, 0x05, 0xAA};
  EXPECT_EQ(peer->endpoint.receive_packet(bitwire::test::view(packet)), ReceiveResult::kHeaderInvalid);
  EXPECT_EQ(peer->endpoint.counters().packets_invalid, 1u);
  EXPECT_TRUE(peer->delivered.empty());
  const char* reason = nullptr;
  PacketHeader header;
  EXPECT_EQ(read_packet_header(bitwire::test::view(packet), header, &reason), 0u);
  EXPECT_STREQ(reason, "prefix bit 6 (ack delay extension) is set but the extension is not enabled");
}

TEST(AckDelayRefusal, TruncatedExtensionRefused) {
  auto peer = Peer::make(extension_config());
  for (const Bytes& packet : {Bytes{0x60, 0x00, 0x00, 0x00}, Bytes{0x60, 0x00, 0x00, 0x00, 0x00}}) {
    EXPECT_EQ(peer->endpoint.receive_packet(bitwire::test::view(packet)), ReceiveResult::kHeaderInvalid);
  }
  EXPECT_EQ(peer->endpoint.counters().packets_invalid, 2u);
  const Bytes whole{0x60, 0x00, 0x00, 0x00, 0x00, 0x05};  // the same with both bytes: delivered
  EXPECT_EQ(peer->endpoint.receive_packet(bitwire::test::view(whole)), ReceiveResult::kDelivered);
}

TEST(AckDelayRefusal, BitSevenStaysReserved) {
  auto peer = Peer::make(extension_config());
  const Bytes packet{0xE0, 0x00, 0x00, 0x00, 0x00, 0x05};
  EXPECT_EQ(peer->endpoint.receive_packet(bitwire::test::view(packet)), ReceiveResult::kHeaderInvalid);
  EXPECT_EQ(peer->endpoint.counters().packets_invalid, 1u);
}

TEST(AckDelayRefusal, FragmentCarryingTheExtensionRefusedWhenOff) {
  EndpointConfig config = raw_config();
  config.fragment_size = 8;
  config.fragment_above = 8;
  config.max_packet_size = 64;
  config.max_fragments = 8;  // exactly ceil(max_packet_size / fragment_size), as EndpointConfig requires
  auto peer = Peer::make(config);
  // Fragment 0 of 2 for sequence 0, embedding a header with bit 6 set.
  const Bytes fragment{0x01, 0x00, 0x00, 0x00, 0x01, 0x60, 0x00, 0x00, 0x00, 0x00, 0x05,
                       1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_EQ(peer->endpoint.receive_packet(bitwire::test::view(fragment)), ReceiveResult::kFragmentInvalid);
  EXPECT_EQ(peer->endpoint.counters().fragments_invalid, 1u);
}

// A datagram from the peer that acks our packet 0 and reports a delay for packet (ack - offset).
Bytes report(uint16_t sequence, uint16_t ack, uint8_t offset, uint8_t code) {
  return header_bytes(PacketHeader{sequence, ack, 1, true, offset, code});
}

TEST(AckDelayRefusal, ReportOfAPacketNeverSentGivesNoSample) {
  auto peer = Peer::make(extension_config());
  peer->endpoint.update(0.0);
  peer->send({1});  // sequence 0
  peer->endpoint.update(0.1);
  const Bytes packet = report(0, 0, 7, 10);  // names 0 - 7 = 65529: never sent
  EXPECT_EQ(peer->endpoint.receive_packet(bitwire::test::view(packet)), ReceiveResult::kDelivered);
  EXPECT_EQ(peer->endpoint.counters().ack_delays_unusable, 1u);
  EXPECT_EQ(peer->endpoint.counters().packets_acked, 1u);  // the ack itself still counts
  EXPECT_EQ(peer->endpoint.rtt_ms(), 0.0);                  // but gave no sample
}

TEST(AckDelayRefusal, DelayLongerThanTheRoundTripGivesNoSample) {
  auto peer = Peer::make(extension_config());
  peer->endpoint.update(0.0);
  peer->send({1});
  peer->endpoint.update(0.05);                  // 50 ms after sending
  const Bytes packet = report(0, 0, 0, 60);     // the peer claims it held packet 0 for 60 ms
  EXPECT_EQ(peer->endpoint.receive_packet(bitwire::test::view(packet)), ReceiveResult::kDelivered);
  EXPECT_EQ(peer->endpoint.counters().ack_delays_unusable, 1u);
  EXPECT_EQ(peer->endpoint.rtt_ms(), 0.0);
  // Half a step short is rounding, not a lie: read as a 0 ms sample.
  auto other = Peer::make(extension_config());
  other->endpoint.update(0.0);
  other->send({1});
  other->endpoint.update(0.0496);
  const Bytes rounded = report(0, 0, 0, 50);
  other->endpoint.receive_packet(bitwire::test::view(rounded));
  EXPECT_EQ(other->endpoint.counters().ack_delays_unusable, 0u);
  EXPECT_EQ(other->endpoint.rtt_max_ms(), 0.0);
  EXPECT_EQ(other->endpoint.rtt_avg_ms(), 0.0);
}

// ---- Raw reliable 1.0 stays byte-exact ----

TEST(AckDelayModes, RawReliableNeverSendsTheExtension) {
  for (const AckDelayMode mode : {AckDelayMode::kWithEnvelope, AckDelayMode::kOff}) {
    EndpointConfig config = raw_config();
    config.ack_delay = mode;
    auto a = Peer::make(config);
    auto b = Peer::make(config);
    for (int tick = 0; tick < 100; ++tick) {
      a->endpoint.update(tick * 0.01);
      b->endpoint.update(tick * 0.01);
      a->send({1, 2, 3});
      b->send({4});
      for (Peer* p : {a.get(), b.get()}) {
        for (const Bytes& d : p->outbox) EXPECT_EQ(d[0] & 0xC0, 0) << "tick " << tick;
      }
      deliver_all(*a, *b);
      deliver_all(*b, *a);
    }
    EXPECT_GE(a->endpoint.counters().packets_acked, 99u);
    EXPECT_EQ(a->endpoint.counters().packets_invalid + b->endpoint.counters().packets_invalid, 0u);
  }
}

TEST(AckDelayModes, OnWithTheEnvelopeByDefaultAndOnWhenAsked) {
  EndpointConfig enveloped;  // the defaults: envelope on, kWithEnvelope
  EndpointConfig forced = raw_config();
  forced.ack_delay = AckDelayMode::kOn;
  for (const EndpointConfig& config : {enveloped, forced}) {
    auto a = Peer::make(config);
    auto b = Peer::make(config);
    a->endpoint.update(0.0);
    b->endpoint.update(0.0);
    a->send({1});
    const size_t prefix_at = config.envelope ? 4 : 0;
    EXPECT_EQ(a->outbox.back()[prefix_at] & 0x40, 0);  // nothing received yet: nothing to report
    deliver_all(*a, *b);
    b->send({2});
    EXPECT_EQ(b->outbox.back()[prefix_at] & 0x40, 0x40);
    deliver_all(*b, *a);
    EXPECT_EQ(a->endpoint.counters().packets_invalid, 0u);
  }
}

TEST(AckDelayModes, InvalidModeIsNamedByCheckAndReplacedBySanitized) {
  EndpointConfig config;
  config.ack_delay = static_cast<AckDelayMode>(7);
  // The reason comes from kEndpointConfigLimits: field, value and the enumerators' range.
  EXPECT_STREQ(config.check().reason(), "EndpointConfig.ack_delay = 7 is outside [0, 2]");
  EXPECT_EQ(config.sanitized().ack_delay, AckDelayMode::kWithEnvelope);
}

// ---- The RTT excludes the hold and the wait for the tick ----

// A sends at t; B sees it at t + 50 ms, but sends its next packet only at t + 80 ms; A sees that at
// t + 130 ms. The network's round trip is 100 ms; the ack waited 30 ms at B.
double rtt_with_hold(const EndpointConfig& config) {
  auto a = Peer::make(config);
  auto b = Peer::make(config);
  for (int tick = 0; tick < 100; ++tick) {
    const double t = tick * 0.2;
    a->endpoint.update(t);
    a->send({1});
    b->endpoint.update(t + 0.05);
    deliver_all(*a, *b);
    b->endpoint.update(t + 0.08);
    b->send({2});
    a->endpoint.update(t + 0.13);
    deliver_all(*b, *a);
  }
  EXPECT_NEAR(a->endpoint.jitter_ms(), 0.0, 1e-6);
  return a->endpoint.rtt_ms();
}

TEST(AckDelayRtt, HoldTimeIsSubtracted) {
  EXPECT_NEAR(rtt_with_hold(extension_config()), 100.0, 1e-6);
  EXPECT_NEAR(rtt_with_hold(EndpointConfig{}), 100.0, 1e-6);  // the defaults
  // Raw reliable 1.0 has no room for the delay: its samples include the hold.
  EXPECT_NEAR(rtt_with_hold(raw_config()), 130.0, 1e-6);
}

// Same exchange, but each side drains its socket 40 ms after the datagram arrived and passes the arrival
// time: the wait for the tick is not counted, at either end.
double rtt_with_arrival_times(bool pass_arrival) {
  auto a = Peer::make(extension_config());
  auto b = Peer::make(extension_config());
  for (int tick = 0; tick < 100; ++tick) {
    const double t = tick * 0.5;
    a->endpoint.update(t);
    a->send({1});
    b->endpoint.update(t + 0.09);
    for (const Bytes& d : a->take_outbox()) {
      if (pass_arrival) {
        b->endpoint.receive_packet(bitwire::test::view(d), t + 0.05);
      } else {
        b->endpoint.receive_packet(bitwire::test::view(d));
      }
    }
    b->send({2});  // held 0 ms after the tick, 40 ms after arrival
    a->endpoint.update(t + 0.19);
    for (const Bytes& d : b->take_outbox()) {
      if (pass_arrival) {
        a->endpoint.receive_packet(bitwire::test::view(d), t + 0.14);
      } else {
        a->endpoint.receive_packet(bitwire::test::view(d));
      }
    }
  }
  return a->endpoint.rtt_ms();
}

TEST(AckDelayRtt, ArrivalTimesExcludeTheWaitForTheTick) {
  EXPECT_NEAR(rtt_with_arrival_times(true), 100.0, 1e-6);
  EXPECT_NEAR(rtt_with_arrival_times(false), 190.0, 1e-6);  // 100 + 40 at B + 50 at A
}

TEST(AckDelayRtt, FutureOrNonFiniteArrivalReadsAsNow) {
  for (const double arrival : {kNaN, std::numeric_limits<double>::infinity(), 1e9}) {
    auto a = Peer::make(extension_config());
    auto b = Peer::make(extension_config());
    a->endpoint.update(0.0);
    a->send({1});
    b->endpoint.update(0.05);
    deliver_all(*a, *b);
    b->send({2});
    a->endpoint.update(0.1);
    for (const Bytes& d : b->take_outbox()) {
      EXPECT_EQ(a->endpoint.receive_packet(bitwire::test::view(d), arrival), ReceiveResult::kDelivered);
    }
    EXPECT_NEAR(a->endpoint.rtt_ms(), 100.0, 1e-6) << arrival;
  }
}

// A steady 400 ms round trip; A updates every 100 ms. One datagram is then passed with a stale arrival
// time (from three ticks before, as a caller that reuses an old time would): read as-is, it makes a 50 ms
// sample of a 400 ms link (and a 35 ms jump in the jitter). Clamped to the previous update() less
// kArrivalSlackSeconds, the sample is off by at most one tick + the slack, and the clamp is counted.
TEST(EndpointArrival, StaleArrivalIsClampedNearThePreviousUpdate) {
  auto a = Peer::make(extension_config());
  auto b = Peer::make(extension_config());
  constexpr int kRounds = 10;
  for (int round = 0; round < kRounds; ++round) {
    const double t = round * 1.0;
    a->endpoint.update(t);
    a->send({1});
    b->endpoint.update(t + 0.2);
    for (const Bytes& d : a->take_outbox()) b->endpoint.receive_packet(bitwire::test::view(d), t + 0.2);
    b->send({2});  // no hold: the report says 0 ms
    for (int tick = 1; tick <= 4; ++tick) a->endpoint.update(t + 0.1 * tick);
    const bool stale = round == kRounds - 1;
    for (const Bytes& d : b->take_outbox()) {
      EXPECT_EQ(a->endpoint.receive_packet(bitwire::test::view(d), stale ? t + 0.05 : t + 0.4),
                ReceiveResult::kDelivered);
    }
    if (!stale) {
      EXPECT_NEAR(a->endpoint.rtt_min_ms(), 400.0, 1e-6);
      EXPECT_EQ(a->endpoint.counters().arrival_times_stale, 0u);
    }
  }
  // The stale sample: at least 400 ms - (the 100 ms since the previous update + the slack).
  const double bound_ms = 400.0 - (100.0 + kArrivalSlackSeconds * 1000.0);
  EXPECT_GE(a->endpoint.rtt_min_ms(), bound_ms - 1e-6);
  EXPECT_NEAR(a->endpoint.rtt_min_ms(), bound_ms, 1e-6) << "clamped to exactly the bound";
  EXPECT_LE(a->endpoint.jitter_ms(), extension_config().jitter_smoothing_factor * (400.0 - bound_ms) + 1e-6);
  EXPECT_EQ(a->endpoint.counters().arrival_times_stale, 1u);
  EXPECT_EQ(b->endpoint.counters().arrival_times_stale, 0u);
}

// Later than now, NaN and infinities read as now, uncounted (a transport clock read after update() is a
// little later); exactly the lower bound is believed; just below it is stale.
TEST(EndpointArrival, OnlyStaleArrivalsAreCounted) {
  const double kFloor = 0.08 - kArrivalSlackSeconds;  // previous update 0.08, current 0.1
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const double kArrivals[] = {kNaN, kInf, -kInf, 1e9, 0.1 + 1e-9, kFloor, kFloor - 1e-6};
  const double kRtt[] = {100.0, 100.0, 100.0, 100.0, 100.0, 1000.0 * kFloor, 1000.0 * kFloor};
  const uint64_t kStale[] = {0, 0, 0, 0, 0, 0, 1};
  for (size_t i = 0; i < std::size(kArrivals); ++i) {
    auto a = Peer::make(extension_config());
    auto b = Peer::make(extension_config());
    a->endpoint.update(0.0);
    a->send({1});
    b->endpoint.update(0.0);
    deliver_all(*a, *b);
    b->send({2});
    a->endpoint.update(0.08);
    a->endpoint.update(0.1);
    for (const Bytes& d : b->take_outbox()) {
      EXPECT_EQ(a->endpoint.receive_packet(bitwire::test::view(d), kArrivals[i]), ReceiveResult::kDelivered);
    }
    EXPECT_NEAR(a->endpoint.rtt_ms(), kRtt[i], 1e-6) << kArrivals[i];
    EXPECT_EQ(a->endpoint.counters().arrival_times_stale, kStale[i]) << kArrivals[i];
  }
}

TEST(AckDelayRtt, FragmentedPacketsCarryTheReport) {
  EndpointConfig config = extension_config();
  config.fragment_size = 16;
  config.fragment_above = 16;
  config.max_packet_size = 256;
  auto a = Peer::make(config);
  auto b = Peer::make(config);
  for (int tick = 0; tick < 20; ++tick) {
    const double t = tick * 0.2;
    a->endpoint.update(t);
    a->send(Bytes(40, 1));  // 3 fragments
    b->endpoint.update(t + 0.05);
    deliver_all(*a, *b);
    b->endpoint.update(t + 0.07);
    b->send(Bytes(40, 2));
    a->endpoint.update(t + 0.12);
    deliver_all(*b, *a);
  }
  EXPECT_EQ(a->endpoint.counters().reassemblies_completed, 20u);
  EXPECT_NEAR(a->endpoint.rtt_ms(), 100.0, 1e-6);
  EXPECT_EQ(a->endpoint.counters().ack_delays_unusable, 0u);
}

}  // namespace
}  // namespace bitwire
