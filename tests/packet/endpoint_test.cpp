// Endpoint: wire bytes (golden), header codec, acks, fragmentation and reassembly, reset, logging, and the
// no-allocation contract. Statistics are in endpoint_stats_test.cpp, hostile input in
// endpoint_attack_test.cpp.
#include "bitwire/packet/endpoint.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "bitwire/core/crc32.hpp"
#include "bitwire/core/log.hpp"
#include "support/endpoint_harness.hpp"
#include "support/seed.hpp"
#include "support/bytes.hpp"

namespace bitwire {
namespace {

using test::pattern_payload;
using test::Peer;
using Bytes = std::vector<uint8_t>;

EndpointConfig raw_config() {
  EndpointConfig config;
  config.envelope = false;
  return config;
}

Bytes header_bytes(uint16_t sequence, uint16_t ack, uint32_t ack_bits) {
  uint8_t out[kMaxPacketHeaderBytes];
  const size_t size = write_packet_header(PacketHeader{sequence, ack, ack_bits}, bitwire::test::writable(out));
  return Bytes(out, out + size);
}

// Delivers every datagram `from` has transmitted to `to`, in order.
void deliver_all(Peer& from, Peer& to) {
  for (const Bytes& datagram : from.take_outbox())
    to.endpoint.receive_packet(bitwire::test::view(datagram));
}

// ---- Golden header bytes (reliable 1.0) ----

TEST(PacketHeaderGolden, OneByteAckDifferenceAllAckBitsAbsent) {
  EXPECT_EQ(header_bytes(0x1234, 0x1234, 0xFFFFFFFF), (Bytes{0x20, 0x34, 0x12, 0x00}));
  EXPECT_EQ(header_bytes(0x1234, 0x1135, 0xFFFFFFFF), (Bytes{0x20, 0x34, 0x12, 0xFF}));  // difference 255
}

TEST(PacketHeaderGolden, TwoByteAckWhenDifferenceAbove255) {
  EXPECT_EQ(header_bytes(0x1234, 0x1134, 0xFFFFFFFF),
            (Bytes{0x00, 0x34, 0x12, 0x34, 0x11}));  // difference 256
}

TEST(PacketHeaderGolden, AckDifferenceWrapsModulo65536) {
  EXPECT_EQ(header_bytes(5, 65530, 0xFFFFFFFF), (Bytes{0x20, 0x05, 0x00, 0x0B}));
  EXPECT_EQ(header_bytes(5, 0xFED9, 0xFFFFFFFF), (Bytes{0x00, 0x05, 0x00, 0xD9, 0xFE}));  // difference 300
}

TEST(PacketHeaderGolden, FreshEndpointHeader) {
  // Nothing received yet: ack 65535, ack_bits 0, so all four ack_bits bytes are present (8 bytes).
  EXPECT_EQ(header_bytes(0, 65535, 0), (Bytes{0x3E, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00}));
}

TEST(PacketHeaderGolden, LongestHeaderIsNineBytes) {
  EXPECT_EQ(header_bytes(0x0400, 0x0100, 0x01020304),
            (Bytes{0x1E, 0x00, 0x04, 0x00, 0x01, 0x04, 0x03, 0x02, 0x01}));
}

TEST(PacketHeaderGolden, OnlyBytesThatAreNot0xFFArePresent) {
  // ack_bits bytes (low first): 0x12, 0xFF, 0x00, 0xFF -> prefix bits 1 and 3.
  EXPECT_EQ(header_bytes(0x0010, 0x000F, 0xFF00FF12), (Bytes{0x2A, 0x10, 0x00, 0x01, 0x12, 0x00}));
  // Only the top byte differs from 0xFF -> prefix bit 4.
  EXPECT_EQ(header_bytes(1, 1, 0x7FFFFFFF), (Bytes{0x30, 0x01, 0x00, 0x00, 0x7F}));
}

TEST(FragmentHeaderGolden, FiveBytes) {
  uint8_t out[kFragmentHeaderBytes];
  write_fragment_header(FragmentHeader{0xBEEF, 3, 256}, bitwire::test::writable(out));
  EXPECT_EQ(Bytes(out, out + 5), (Bytes{0x01, 0xEF, 0xBE, 0x03, 0xFF}));
  write_fragment_header(FragmentHeader{7, 0, 1}, bitwire::test::writable(out));
  EXPECT_EQ(Bytes(out, out + 5), (Bytes{0x01, 0x07, 0x00, 0x00, 0x00}));
}

// ---- Header codec ----

TEST(PacketHeaderCodec, RoundTripsRandomHeaders) {
  BITWIRE_SEEDED_TEST_SEED(0x4ead);
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 100000; ++i) {
    PacketHeader header;
    header.sequence = static_cast<uint16_t>(rng());
    header.ack = static_cast<uint16_t>(rng() % 2 ? header.sequence - rng() % 300 : rng());
    uint32_t bits = 0;
    for (int k = 0; k < 4; ++k)
      bits |= static_cast<uint32_t>(rng() % 3 == 0 ? 0xFF : rng() & 0xFF) << (8 * k);
    header.ack_bits = bits;
    uint8_t out[kMaxPacketHeaderBytes];
    const size_t size = write_packet_header(header, bitwire::test::writable(out));
    ASSERT_GE(size, kMinPacketHeaderBytes);
    ASSERT_LE(size, kMaxPacketHeaderBytes);
    PacketHeader read;
    ASSERT_EQ(read_packet_header(bitwire::test::view(out, size), read), size);
    ASSERT_EQ(read, header);
  }
}

TEST(PacketHeaderCodec, EveryAcceptedEncodingIsTheCanonicalOne) {
  // Any bytes the reader accepts must re-encode to exactly the bytes it consumed.
  BITWIRE_SEEDED_TEST_SEED(0xca0);
  std::mt19937_64 rng(seed);
  int accepted = 0;
  for (int i = 0; i < 300000; ++i) {
    uint8_t bytes[kMaxPacketHeaderBytes];
    for (auto& b : bytes) b = static_cast<uint8_t>(rng() % 4 == 0 ? 0xFF : rng());
    bytes[0] &= static_cast<uint8_t>(rng() % 8 == 0 ? 0xFF : 0x3E);
    PacketHeader header;
    const size_t size = read_packet_header(bitwire::test::view(bytes), header);
    if (size == 0) continue;
    ++accepted;
    uint8_t again[kMaxPacketHeaderBytes];
    ASSERT_EQ(write_packet_header(header, bitwire::test::writable(again)), size);
    ASSERT_TRUE(std::equal(bytes, bytes + size, again));
  }
  EXPECT_GT(accepted, 1000);
}

TEST(PacketHeaderCodec, ReportsWhy) {
  const char* reason = nullptr;
  PacketHeader header;
  const uint8_t fragment[] = {0x01, 0, 0, 0, 0};
  EXPECT_EQ(read_packet_header(bitwire::test::view(fragment), header, &reason), 0u);
  EXPECT_NE(reason, nullptr);
  const uint8_t reserved[] = {0x40, 0, 0, 0};
  reason = nullptr;
  EXPECT_EQ(read_packet_header(bitwire::test::view(reserved), header, &reason), 0u);
  EXPECT_NE(reason, nullptr);
}

// ---- Sending: bytes on the wire ----

TEST(EndpointWire, FirstPacketWithoutEnvelope) {
  auto a = Peer::make(raw_config());
  a->send({'h', 'i'});
  ASSERT_EQ(a->outbox.size(), 1u);
  EXPECT_EQ(a->outbox[0], (Bytes{0x3E, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 'h', 'i'}));
  EXPECT_EQ(a->outbox_sequences[0], 0);
}

TEST(EndpointWire, EnvelopePrefixesCrcOverProtocolIdAndPacket) {
  EndpointConfig config;
  config.protocol_id = 0x1122334455667788ull;
  auto a = Peer::make(config);
  a->send({'h', 'i'});
  ASSERT_EQ(a->outbox.size(), 1u);
  const Bytes packet = {0x3E, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 'h', 'i'};
  Bytes covered = {0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11};
  covered.insert(covered.end(), packet.begin(), packet.end());
  const uint32_t crc = crc32(covered.data(), covered.size());
  Bytes expected = {static_cast<uint8_t>(crc), static_cast<uint8_t>(crc >> 8),
                    static_cast<uint8_t>(crc >> 16), static_cast<uint8_t>(crc >> 24)};
  expected.insert(expected.end(), packet.begin(), packet.end());
  EXPECT_EQ(a->outbox[0], expected);
}

TEST(EndpointWire, HeaderCarriesAckStateAfterReceiving) {
  auto a = Peer::make(raw_config());
  auto b = Peer::make(raw_config());
  for (int i = 0; i < 3; ++i) a->send({1});
  deliver_all(*a, *b);  // b has 0, 1, 2
  b->send({9});
  // b's sequence 0, ack 2 (difference 65534: two bytes), ack_bits 0b111 -> bytes 0 present (0x07), 1..3 0x00.
  EXPECT_EQ(b->outbox[0], (Bytes{0x1E, 0x00, 0x00, 0x02, 0x00, 0x07, 0x00, 0x00, 0x00, 9}));
}

TEST(EndpointWire, FragmentLayout) {
  EndpointConfig config = raw_config();
  config.fragment_above = 8;
  config.fragment_size = 8;
  config.max_fragments = 4;
  config.max_packet_size = 32;
  auto a = Peer::make(config);
  const Bytes payload = pattern_payload(20, 1);
  a->send(payload);
  ASSERT_EQ(a->outbox.size(), 3u);  // 8 + 8 + 4
  Bytes f0 = {0x01, 0x00, 0x00, 0x00, 0x02, 0x3E, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00};
  f0.insert(f0.end(), payload.begin(), payload.begin() + 8);
  Bytes f1 = {0x01, 0x00, 0x00, 0x01, 0x02};
  f1.insert(f1.end(), payload.begin() + 8, payload.begin() + 16);
  Bytes f2 = {0x01, 0x00, 0x00, 0x02, 0x02};
  f2.insert(f2.end(), payload.begin() + 16, payload.end());
  EXPECT_EQ(a->outbox[0], f0);
  EXPECT_EQ(a->outbox[1], f1);
  EXPECT_EQ(a->outbox[2], f2);
  EXPECT_EQ(a->endpoint.counters().fragments_sent, 3u);
  EXPECT_EQ(a->endpoint.counters().packets_sent, 1u);
}

TEST(EndpointWire, PayloadAtThresholdIsNotFragmented) {
  EndpointConfig config = raw_config();
  auto a = Peer::make(config);
  a->send(pattern_payload(static_cast<size_t>(config.fragment_above), 2));
  ASSERT_EQ(a->outbox.size(), 1u);
  EXPECT_EQ(a->outbox[0][0] & 1, 0);
  a->send(pattern_payload(static_cast<size_t>(config.fragment_above) + 1, 3));
  ASSERT_EQ(a->outbox.size(), 3u);  // 1024 + 1 bytes -> two fragments
  EXPECT_EQ(a->outbox[1][0], 1);
}

TEST(EndpointWire, EmptyPayloadIsJustAHeader) {
  auto a = Peer::make(raw_config());
  auto b = Peer::make(raw_config());
  a->send({});
  ASSERT_EQ(a->outbox.size(), 1u);
  EXPECT_EQ(a->outbox[0].size(), 8u);
  deliver_all(*a, *b);
  ASSERT_EQ(b->delivered.size(), 1u);
  EXPECT_TRUE(b->delivered[0].payload.empty());
}

// ---- Acks ----

TEST(EndpointAcks, EveryReceivedPacketAckedExactlyOnce) {
  auto a = Peer::make(EndpointConfig{});
  auto b = Peer::make(EndpointConfig{});
  double now = 0.0;
  for (int tick = 0; tick < 1000; ++tick) {
    now += 1.0 / 60.0;
    a->endpoint.update(now);
    b->endpoint.update(now);
    a->send(pattern_payload(50, static_cast<uint32_t>(tick)));
    b->send(pattern_payload(30, static_cast<uint32_t>(tick)));
    deliver_all(*a, *b);
    deliver_all(*b, *a);
  }
  // a sent 0..999; b answered each tick, so all but the last one a sent are acked.
  const auto acks = a->endpoint.acks();
  ASSERT_EQ(acks.size(), 256u);                  // the list is bounded by ack_buffer_size...
  EXPECT_EQ(a->acked_by_callback.size(), 999u);  // ...the callback sees every ack
  EXPECT_EQ(a->endpoint.counters().acks_overflowed, 999u - 256u);
  std::set<uint16_t> unique(a->acked_by_callback.begin(), a->acked_by_callback.end());
  EXPECT_EQ(unique.size(), 999u);
  for (uint16_t s = 0; s < 999; ++s) EXPECT_TRUE(unique.count(s)) << s;
  EXPECT_EQ(a->endpoint.counters().packets_acked, 999u);
  EXPECT_EQ(b->endpoint.counters().packets_received, 1000u);
}

TEST(EndpointAcks, ListDrainedEachTickMatchesCallback) {
  auto a = Peer::make(EndpointConfig{});
  auto b = Peer::make(EndpointConfig{});
  std::vector<uint16_t> drained;
  for (int tick = 0; tick < 300; ++tick) {
    a->send({1, 2, 3});
    b->send({4});
    deliver_all(*a, *b);
    deliver_all(*b, *a);
    for (uint16_t s : a->endpoint.acks()) drained.push_back(s);
    a->endpoint.clear_acks();
  }
  EXPECT_EQ(drained, a->acked_by_callback);
  EXPECT_EQ(a->endpoint.counters().acks_overflowed, 0u);
}

TEST(EndpointAcks, OnlyReceivedPacketsAreAckedUnderLoss) {
  BITWIRE_SEEDED_TEST_SEED(0xac5);
  std::mt19937_64 rng(seed);
  auto a = Peer::make(EndpointConfig{});
  auto b = Peer::make(EndpointConfig{});
  std::set<uint16_t> received_by_b;
  std::multiset<uint16_t> acked;
  double now = 0.0;
  for (int tick = 0; tick < 3000; ++tick) {
    now += 0.01;
    a->endpoint.update(now);
    b->endpoint.update(now);
    a->send(pattern_payload(rng() % 100, static_cast<uint32_t>(tick)));
    b->send({0});
    for (const Bytes& d : a->take_outbox()) {
      if (rng() % 100 < 40) continue;  // 40% loss a -> b
      b->endpoint.receive_packet(bitwire::test::view(d));
    }
    for (const Bytes& d : b->take_outbox()) {
      if (rng() % 100 < 40) continue;  // 40% loss b -> a
      a->endpoint.receive_packet(bitwire::test::view(d));
    }
    for (const auto& delivery : b->delivered) received_by_b.insert(delivery.sequence);
    b->delivered.clear();
    for (uint16_t s : a->endpoint.acks()) acked.insert(s);
    a->endpoint.clear_acks();
  }
  ASSERT_GT(acked.size(), 1000u);
  for (uint16_t s : acked) {
    EXPECT_EQ(acked.count(s), 1u) << s;
    EXPECT_TRUE(received_by_b.count(s)) << "acked but never received: " << s;
  }
  // With 40% loss on acks too, a 32-deep redundancy still acks nearly everything b received.
  EXPECT_GT(acked.size(), received_by_b.size() - 10);
}

TEST(EndpointAcks, RefusedPacketIsNotAckedNorCounted) {
  auto a = Peer::make(EndpointConfig{});
  auto b = Peer::make(EndpointConfig{});
  a->send({1});
  b->refuse = true;
  deliver_all(*a, *b);
  EXPECT_EQ(b->endpoint.counters().packets_refused, 1u);
  EXPECT_EQ(b->endpoint.counters().packets_received, 0u);
  EXPECT_EQ(b->endpoint.current_ack_state().ack_bits, 0u);
  b->send({2});
  deliver_all(*b, *a);
  EXPECT_TRUE(a->endpoint.acks().empty());
  // A refused packet may be offered again (it was never recorded as received).
  b->refuse = false;
  a->endpoint.reset();
  a->send({1});
  deliver_all(*a, *b);
  EXPECT_EQ(b->endpoint.counters().packets_received, 1u);
}

// A busy receiver defers a genuine packet: the payload is refused unacked (the peer sends it again), but
// the acks its header carries are processed -- the acks must flow even while the payloads cannot.
TEST(EndpointAcks, DeferredPacketIsNotAckedButItsAcksAreProcessed) {
  auto a = Peer::make(EndpointConfig{});
  auto b = Peer::make(EndpointConfig{});
  a->send({1});
  deliver_all(*a, *b);  // b has 0 from a
  a->defer = true;
  b->send({2});         // carries the ack of a's packet 0
  deliver_all(*b, *a);
  EXPECT_EQ(a->endpoint.counters().packets_deferred, 1u);
  EXPECT_EQ(a->endpoint.counters().packets_refused, 0u);
  EXPECT_EQ(a->endpoint.counters().packets_received, 0u);
  EXPECT_EQ(a->endpoint.current_ack_state().ack_bits, 0u) << "the deferred packet is not acked";
  ASSERT_EQ(a->endpoint.acks().size(), 1u) << "its ack of packet 0 is processed";
  EXPECT_EQ(a->endpoint.acks()[0], 0);
  EXPECT_EQ(a->endpoint.packets_in_flight(), 0);
  // Sent again (as the channels do) and taken once the receiver has room.
  a->defer = false;
  b->send({2});
  const auto datagrams = b->take_outbox();
  EXPECT_EQ(a->endpoint.receive_packet(bitwire::test::view(datagrams[0])), ReceiveResult::kDelivered);
  // defer_packet() outside the process callback changes nothing.
  a->endpoint.defer_packet();
  b->send({3});
  deliver_all(*b, *a);
  EXPECT_EQ(a->endpoint.counters().packets_received, 2u);
  EXPECT_EQ(a->endpoint.counters().packets_deferred, 1u);
}

// The peer's first packets arrive out of order and the first to come is deferred: the earlier one that
// follows is delivered, not dropped as too far ahead (nothing recorded yet: the deferred one is the
// horizon all the same).
TEST(EndpointAcks, APacketReorderedBehindADeferredFirstPacketIsDelivered) {
  auto a = Peer::make(EndpointConfig{});
  auto b = Peer::make(EndpointConfig{});
  a->send({1});
  a->send({2});
  const auto datagrams = a->take_outbox();
  b->defer = true;
  EXPECT_EQ(b->endpoint.receive_packet(bitwire::test::view(datagrams[1])), ReceiveResult::kDeferred);
  b->defer = false;
  EXPECT_EQ(b->endpoint.receive_packet(bitwire::test::view(datagrams[0])), ReceiveResult::kDelivered);
  EXPECT_EQ(b->endpoint.counters().packets_too_far_ahead, 0u);
  ASSERT_EQ(b->delivered.size(), 1u);
  EXPECT_EQ(b->delivered[0].sequence, 0);
  EXPECT_EQ(b->endpoint.receive_packet(bitwire::test::view(datagrams[1])), ReceiveResult::kDelivered);
}

TEST(EndpointAcks, AckBitsMarkAckAndTheSequencesBeforeIt) {
  auto a = Peer::make(raw_config());
  auto b = Peer::make(raw_config());
  for (int i = 0; i < 10; ++i) a->send({static_cast<uint8_t>(i)});
  auto datagrams = a->take_outbox();
  for (int i : {0, 2, 3, 9}) b->endpoint.receive_packet(bitwire::test::view(datagrams[i]));
  const PacketHeader state = b->endpoint.current_ack_state();
  EXPECT_EQ(state.ack, 9);
  // bit n = sequence 9 - n: 9 (bit 0), 3 (bit 6), 2 (bit 7), 0 (bit 9).
  EXPECT_EQ(state.ack_bits, (1u << 0) | (1u << 6) | (1u << 7) | (1u << 9));
  b->send({});
  deliver_all(*b, *a);
  std::vector<uint16_t> acks(a->endpoint.acks().begin(), a->endpoint.acks().end());
  EXPECT_EQ(acks, (std::vector<uint16_t>{0, 2, 3, 9}));  // oldest first
}

TEST(EndpointAcks, ReorderedAcksStillReportOlderPackets) {
  auto a = Peer::make(raw_config());
  auto b = Peer::make(raw_config());
  for (int i = 0; i < 50; ++i) a->send({});
  auto d = a->take_outbox();
  for (int i = 0; i <= 20; ++i) b->endpoint.receive_packet(bitwire::test::view(d[i]));
  b->send({});  // acks 0..20
  for (int i = 21; i < 50; ++i) b->endpoint.receive_packet(bitwire::test::view(d[i]));
  b->send({});  // acks 18..49
  auto from_b = b->take_outbox();
  a->endpoint.receive_packet(bitwire::test::view(from_b[1]));
  EXPECT_EQ(a->endpoint.acks().size(), 32u);
  a->endpoint.receive_packet(bitwire::test::view(from_b[0]));  // the older ack arrives last
  std::vector<uint16_t> acks(a->endpoint.acks().begin(), a->endpoint.acks().end());
  std::sort(acks.begin(), acks.end());
  ASSERT_EQ(acks.size(), 50u);
  for (uint16_t s = 0; s < 50; ++s) EXPECT_EQ(acks[s], s);
}

TEST(EndpointAcks, LateOlderPacketSetsItsBit) {
  auto a = Peer::make(raw_config());
  auto b = Peer::make(raw_config());
  for (int i = 0; i < 40; ++i) a->send({});
  auto d = a->take_outbox();
  b->endpoint.receive_packet(bitwire::test::view(d[39]));
  b->endpoint.receive_packet(bitwire::test::view(d[20]));  // 19 behind: inside the 32-bit window
  b->endpoint.receive_packet(bitwire::test::view(d[2]));    // 37 behind: outside it, still received
  EXPECT_EQ(b->endpoint.current_ack_state().ack, 39);
  EXPECT_EQ(b->endpoint.current_ack_state().ack_bits, 1u | (1u << 19));
  EXPECT_EQ(b->endpoint.counters().packets_received, 3u);
}

// ---- Fragmentation and reassembly ----

EndpointConfig small_fragments_config(int fragment_size, int max_fragments) {
  EndpointConfig config;
  config.fragment_size = fragment_size;
  config.fragment_above = fragment_size;
  config.max_fragments = max_fragments;
  config.max_packet_size = fragment_size * max_fragments;
  return config;
}

TEST(EndpointFragments, RoundTripsEverySizeAroundFragmentBoundaries) {
  const EndpointConfig config = small_fragments_config(64, 16);
  auto a = Peer::make(config);
  auto b = Peer::make(config);
  std::vector<size_t> sizes;
  for (size_t size = 0; size <= 64 * 16; size += (size < 200 ? 1 : 61)) sizes.push_back(size);
  sizes.push_back(64 * 16);
  for (size_t i = 0; i < sizes.size(); ++i) {
    const Bytes payload = pattern_payload(sizes[i], static_cast<uint32_t>(i));
    a->send(payload);
    deliver_all(*a, *b);
    ASSERT_EQ(b->delivered.size(), i + 1) << "size " << sizes[i];
    ASSERT_EQ(b->delivered.back().payload, payload) << "size " << sizes[i];
  }
  EXPECT_EQ(b->endpoint.counters().fragments_invalid, 0u);
}

TEST(EndpointFragments, TwoHundredFiftySixFragments) {
  const EndpointConfig config = small_fragments_config(64, 256);
  auto a = Peer::make(config);
  auto b = Peer::make(config);
  const Bytes payload = pattern_payload(64 * 256, 77);
  a->send(payload);
  ASSERT_EQ(a->outbox.size(), 256u);
  EXPECT_EQ(a->outbox.back()[4 + 4], 0xFF);  // after the envelope: count - 1 = 255
  EXPECT_EQ(a->outbox.back()[4 + 3], 0xFF);  // id 255
  deliver_all(*a, *b);
  ASSERT_EQ(b->delivered.size(), 1u);
  EXPECT_EQ(b->delivered[0].payload, payload);
  EXPECT_EQ(b->endpoint.counters().fragments_received, 256u);
  EXPECT_EQ(b->endpoint.counters().reassemblies_completed, 1u);
}

TEST(EndpointFragments, AnyArrivalOrderWithDuplicates) {
  BITWIRE_SEEDED_TEST_SEED(0xf4a6);
  std::mt19937_64 rng(seed);
  const EndpointConfig config = small_fragments_config(100, 32);
  auto a = Peer::make(config);
  auto b = Peer::make(config);
  for (int round = 0; round < 200; ++round) {
    const Bytes payload = pattern_payload(101 + rng() % (100 * 32 - 101), static_cast<uint32_t>(round));
    auto datagrams = a->send(payload);
    a->take_outbox();
    std::vector<Bytes> shuffled = datagrams;
    for (size_t i = 0; i < datagrams.size() / 2; ++i) shuffled.push_back(datagrams[rng() % datagrams.size()]);
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    const size_t before = b->delivered.size();
    for (const Bytes& d : shuffled) b->endpoint.receive_packet(bitwire::test::view(d));
    ASSERT_EQ(b->delivered.size(), before + 1);
    ASSERT_EQ(b->delivered.back().payload, payload);
  }
  EXPECT_EQ(b->endpoint.counters().fragments_invalid, 0u);
  EXPECT_GT(b->endpoint.counters().fragments_duplicate, 0u);
}

TEST(EndpointFragments, InterleavedPacketsReassembleIndependently) {
  const EndpointConfig config = small_fragments_config(50, 8);
  auto a = Peer::make(config);
  auto b = Peer::make(config);
  std::vector<std::vector<Bytes>> packets;
  std::vector<Bytes> payloads;
  for (int i = 0; i < 4; ++i) {
    payloads.push_back(pattern_payload(51 + 80 * static_cast<size_t>(i), static_cast<uint32_t>(i)));
    packets.push_back(a->send(payloads.back()));
  }
  // Round-robin one fragment of each packet at a time.
  for (size_t f = 0; f < 8; ++f) {
    for (auto& fragments : packets) {
      if (f < fragments.size()) b->endpoint.receive_packet(bitwire::test::view(fragments[f]));
    }
  }
  ASSERT_EQ(b->delivered.size(), 4u);
  std::map<uint16_t, Bytes> by_sequence;
  for (auto& d : b->delivered) by_sequence[d.sequence] = d.payload;
  for (uint16_t s = 0; s < 4; ++s) EXPECT_EQ(by_sequence[s], payloads[s]);
}

TEST(EndpointFragments, FragmentedPacketCarriesAcks) {
  const EndpointConfig config = small_fragments_config(64, 16);
  auto a = Peer::make(config);
  auto b = Peer::make(config);
  a->send({1});
  deliver_all(*a, *b);
  b->send(pattern_payload(500, 5));  // fragmented; fragment 0's embedded header acks a's packet 0
  auto fragments = b->take_outbox();
  for (size_t i = fragments.size(); i-- > 1;)
    a->endpoint.receive_packet(bitwire::test::view(fragments[i]));
  EXPECT_TRUE(a->endpoint.acks().empty());  // nothing processed before the packet is whole
  a->endpoint.receive_packet(bitwire::test::view(fragments[0]));
  ASSERT_EQ(a->endpoint.acks().size(), 1u);
  EXPECT_EQ(a->endpoint.acks()[0], 0);
}

// ---- Reset, memory, allocation ----

TEST(EndpointLifecycle, ResetReturnsToFreshState) {
  auto a = Peer::make(EndpointConfig{});
  auto b = Peer::make(EndpointConfig{});
  for (int i = 0; i < 50; ++i) {
    a->send(pattern_payload(3000, static_cast<uint32_t>(i)));
    deliver_all(*a, *b);
    b->send({});
    deliver_all(*b, *a);
  }
  a->endpoint.reset();
  EXPECT_EQ(a->endpoint.next_sequence(), 0);
  EXPECT_EQ(a->endpoint.current_ack_state(), (PacketHeader{0, 65535, 0}));
  EXPECT_EQ(a->endpoint.counters(), EndpointCounters{});
  EXPECT_TRUE(a->endpoint.acks().empty());
  EXPECT_EQ(a->endpoint.rtt_ms(), 0.0);
  EXPECT_EQ(a->endpoint.packet_loss_percent(), 0.0);
  a->take_outbox();
  a->send({'h', 'i'});
  const Bytes& first = a->outbox[0];
  // Same bytes as a fresh endpoint's first packet (after the 4-byte envelope).
  EXPECT_EQ(Bytes(first.begin() + 4, first.end()),
            (Bytes{0x3E, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 'h', 'i'}));
}

TEST(EndpointLifecycle, ConstructionAllocatesExactlyMemoryRequired) {
  const EndpointConfig config;
  const auto before = test::counting_allocations;
  // Both required callbacks (null ones are refused, and a refused endpoint allocates only a placeholder).
  const EndpointCallbacks callbacks{nullptr, [](void*, uint16_t, std::span<const std::byte>) {},
                                    [](void*, uint16_t, std::span<const std::byte>) { return true; }, nullptr};
  Endpoint endpoint(config, callbacks);
  ASSERT_TRUE(endpoint.ok()) << endpoint.error_reason();
  const auto after = test::counting_allocations;
  EXPECT_EQ(after.bytes - before.bytes, Endpoint::memory_required(config));
  EXPECT_EQ(endpoint.memory_bytes(), Endpoint::memory_required(config));
  std::printf("endpoint memory at defaults: %zu bytes in %llu allocations\n", endpoint.memory_bytes(),
              static_cast<unsigned long long>(after.count - before.count));
}

// A link that never allocates: fixed datagram slots filled by the transmit callback.
struct FixedQueue {
  static constexpr size_t kSlots = 64;
  static constexpr size_t kBytes = 1200;
  std::array<std::array<uint8_t, kBytes>, kSlots> data{};
  std::array<size_t, kSlots> sizes{};
  size_t count = 0;
  static void transmit(void* context, uint16_t, std::span<const std::byte> datagram) {
    auto* self = static_cast<FixedQueue*>(context);
    if (self->count == kSlots || datagram.size() > kBytes) return;
    std::memcpy(self->data[self->count].data(), datagram.data(), datagram.size());
    self->sizes[self->count++] = datagram.size();
  }
  static bool process(void*, uint16_t, std::span<const std::byte>) { return true; }
};

TEST(EndpointLifecycle, NoAllocationAfterConstruction) {
  BITWIRE_SEEDED_TEST_SEED(0xa110c);
  std::mt19937_64 rng(seed);
  auto queue_a = std::make_unique<FixedQueue>();
  auto queue_b = std::make_unique<FixedQueue>();
  EndpointConfig config;
  Endpoint a(config, EndpointCallbacks{queue_a.get(), &FixedQueue::transmit, &FixedQueue::process, nullptr});
  Endpoint b(config, EndpointCallbacks{queue_b.get(), &FixedQueue::transmit, &FixedQueue::process, nullptr});
  std::vector<uint8_t> payload(config.max_packet_size + 1, 0x5C);
  uint64_t received_before_reset = 0;
  const auto before = test::counting_allocations;
  double now = 0.0;
  for (int tick = 0; tick < 5000; ++tick) {
    now += 0.016;
    a.update(now);
    b.update(now);
    const size_t size = rng() % 8 == 0 ? rng() % 16000 : rng() % 900;
    a.send_packet(bitwire::test::view(payload.data(), size));
    b.send_packet(bitwire::test::view(payload.data(), rng() % 200));
    if (tick % 777 == 0) a.send_packet(bitwire::test::view(payload));  // too large: refused
    for (size_t i = 0; i < queue_a->count; ++i) {
      if (rng() % 10 == 0) continue;
      if (rng() % 50 == 0) queue_a->data[i][rng() % queue_a->sizes[i]] ^= 0x10;  // corrupt
      b.receive_packet(bitwire::test::view(queue_a->data[i].data(), queue_a->sizes[i]));
    }
    for (size_t i = 0; i < queue_b->count; ++i)
      a.receive_packet(bitwire::test::view(queue_b->data[i].data(), queue_b->sizes[i]));
    queue_a->count = queue_b->count = 0;
    a.clear_acks();
    (void)a.rtt_min_ms();
    if (tick == 2500) {  // a connection restart: both sides reset together
      received_before_reset = b.counters().packets_received;
      a.reset();
      b.reset();
    }
  }
  const auto after = test::counting_allocations;
  EXPECT_EQ(after.count, before.count);
  EXPECT_GT(received_before_reset, 1800u);  // ~85% of 2500: 10% loss, 2% corruption, big packets lost whole
  EXPECT_GT(b.counters().packets_received, 1800u);
  EXPECT_GT(b.counters().envelope_failures, 0u);
}

struct LogCapture {
  std::vector<std::string> lines;
  static void sink(void* context, LogLevel, const char* message) {
    static_cast<LogCapture*>(context)->lines.emplace_back(message);
  }
};

TEST(EndpointLogging, DropsAreLoggedWithTheReasonAtDebugLevel) {
  LogCapture capture;
  set_log_sink(&LogCapture::sink, &capture);
  const LogLevel saved = log_level();
  auto peer = Peer::make(raw_config());
  const uint8_t truncated[] = {0x3E, 0x00, 0x00};
  set_log_level(LogLevel::kInfo);
  peer->endpoint.receive_packet(bitwire::test::view(truncated));
  EXPECT_TRUE(capture.lines.empty());  // below the level: nothing formatted
  set_log_level(LogLevel::kDebug);
  peer->endpoint.receive_packet(bitwire::test::view(truncated));
  set_log_level(saved);
  set_log_sink(nullptr);
  ASSERT_EQ(capture.lines.size(), 1u);
  EXPECT_NE(capture.lines[0].find("[endpoint]"), std::string::npos) << capture.lines[0];
  EXPECT_NE(capture.lines[0].find("truncated header"), std::string::npos) << capture.lines[0];
}

TEST(EndpointLogging, DisabledLevelDoesNotEvaluateArguments) {
  const LogLevel saved = log_level();
  set_log_level(LogLevel::kError);
  int evaluated = 0;
  BITWIRE_LOG(LogLevel::kDebug, "%d", ++evaluated);
  EXPECT_EQ(evaluated, 0);
  set_log_level(LogLevel::kNone);
  BITWIRE_LOG(LogLevel::kError, "%d", ++evaluated);
  EXPECT_EQ(evaluated, 0);
  LogCapture capture;
  set_log_sink(&LogCapture::sink, &capture);
  set_log_level(LogLevel::kDebug);
  BITWIRE_LOG(LogLevel::kDebug, "value %d", ++evaluated);
  set_log_level(saved);
  set_log_sink(nullptr);
  EXPECT_EQ(evaluated, 1);
  ASSERT_EQ(capture.lines.size(), 1u);
  EXPECT_EQ(capture.lines[0], "value 1");
}

TEST(EndpointLogging, LongLinesAreTruncatedNotOverflowed) {
  LogCapture capture;
  set_log_sink(&LogCapture::sink, &capture);
  const std::string long_text(5000, 'x');
  log_write(LogLevel::kError, "%s", long_text.c_str());
  set_log_sink(nullptr);
  ASSERT_EQ(capture.lines.size(), 1u);
  EXPECT_EQ(capture.lines[0].size(), kLogLineBytes - 1);
}

TEST(EndpointConfigCheck, ReportsAndClampsBadFields) {
  EndpointConfig config;
  EXPECT_TRUE(config.check().ok());
  config.max_fragments = 300;
  EXPECT_FALSE(config.check().ok());
  EXPECT_EQ(config.sanitized().max_fragments, 16);  // exactly ceil(max_packet_size / fragment_size)
  config = EndpointConfig{};
  config.max_packet_size = config.max_fragments * config.fragment_size + 1;
  EXPECT_FALSE(config.check().ok());
  // max_fragments follows max_packet_size (it must be exactly the count the packet size needs).
  EXPECT_EQ(config.sanitized().max_fragments, config.max_fragments + 1);
  config = EndpointConfig{};
  config.rtt_smoothing_factor = 0.0f;
  EXPECT_FALSE(config.check().ok());
  EXPECT_GT(config.sanitized().rtt_smoothing_factor, 0.0f);
  EXPECT_TRUE(config.sanitized().sanitized().check().ok());
}

}  // namespace
}  // namespace bitwire
