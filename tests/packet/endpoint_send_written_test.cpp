// Endpoint::send_room / send_written: a payload written in place goes out as the very datagram send_packet
// would have sent for a copy of it, and the refusals leave the endpoint as it was.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "bitwire/packet/endpoint.hpp"
#include "support/endpoint_harness.hpp"

namespace bitwire {
namespace {

using test::pattern_payload;
using test::Peer;
using Bytes = std::vector<uint8_t>;

EndpointConfig in_place_config(AckDelayMode ack_delay) {
  EndpointConfig config;
  config.envelope = false;
  config.ack_delay = ack_delay;
  config.max_packet_size = 1200;
  config.fragment_above = 1200;
  config.max_fragments = 2;  // ceil(1200 / fragment_size 1024)
  return config;
}

// Sends `payload` through the room: written at its start, then send_written.
bool send_in_place(Endpoint& endpoint, const Bytes& payload) {
  const std::span<std::byte> room = endpoint.send_room();
  if (room.size() < payload.size()) return false;
  if (!payload.empty()) std::memcpy(room.data(), payload.data(), payload.size());
  return endpoint.send_written(payload.size());
}

// Two conversations, identical but for how the first peer sends (a copy or in place): every datagram
// either way must be the same bytes, with acks, ack delays and header lengths varying as the peers talk.
void expect_same_datagrams(AckDelayMode ack_delay) {
  const EndpointConfig config = in_place_config(ack_delay);
  auto copy_sender = Peer::make(config), copy_peer = Peer::make(config);
  auto place_sender = Peer::make(config), place_peer = Peer::make(config);
  ASSERT_TRUE(place_sender->endpoint.ok()) << place_sender->endpoint.error_reason();
  double now = 0.0;
  for (uint32_t round = 0; round < 300; ++round) {
    now += 0.001 * static_cast<double>(1 + round % 7);
    for (Peer* peer : {copy_sender.get(), copy_peer.get(), place_sender.get(), place_peer.get()})
      peer->endpoint.update(now);
    const Bytes payload = pattern_payload((round * 37) % 1201, round);
    ASSERT_TRUE(copy_sender->endpoint.send_packet(test::view(payload)));
    ASSERT_TRUE(send_in_place(place_sender->endpoint, payload));
    ASSERT_EQ(copy_sender->outbox.size(), place_sender->outbox.size());
    EXPECT_EQ(copy_sender->outbox.back(), place_sender->outbox.back()) << "round " << round;
    EXPECT_EQ(copy_sender->outbox_sequences.back(), place_sender->outbox_sequences.back());
    // The peers see every other datagram (and lose the rest), answer every third round.
    if (round % 2 == 0) {
      copy_peer->endpoint.receive_packet(test::view(copy_sender->outbox.back()));
      place_peer->endpoint.receive_packet(test::view(place_sender->outbox.back()));
    }
    if (round % 3 == 0) {
      const Bytes answer = pattern_payload(round % 50, round + 1000);
      copy_peer->endpoint.send_packet(test::view(answer));
      place_peer->endpoint.send_packet(test::view(answer));
      copy_sender->endpoint.receive_packet(test::view(copy_peer->outbox.back()));
      place_sender->endpoint.receive_packet(test::view(place_peer->outbox.back()));
    }
  }
  EXPECT_EQ(copy_sender->endpoint.counters().packets_sent, place_sender->endpoint.counters().packets_sent);
  EXPECT_EQ(copy_sender->endpoint.rtt_ms(), place_sender->endpoint.rtt_ms());
  EXPECT_EQ(copy_sender->endpoint.sent_kbps(), place_sender->endpoint.sent_kbps());
  EXPECT_EQ(copy_sender->acked_by_callback, place_sender->acked_by_callback);
  EXPECT_FALSE(place_sender->acked_by_callback.empty());
}

TEST(EndpointSendWritten, TheDatagramsAreTheOnesSendPacketSends) {
  expect_same_datagrams(AckDelayMode::kOn);
}

TEST(EndpointSendWritten, TheDatagramsAreTheOnesSendPacketSendsWithoutTheAckDelay) {
  expect_same_datagrams(AckDelayMode::kOff);
}

TEST(EndpointSendWritten, TheRoomHoldsAWholeUnfragmentedPayload) {
  auto peer = Peer::make(in_place_config(AckDelayMode::kOn));
  EXPECT_EQ(peer->endpoint.send_room().size(), 1200u);
}

TEST(EndpointSendWritten, NoRoomWithTheEnvelope) {
  EndpointConfig config = in_place_config(AckDelayMode::kWithEnvelope);
  config.envelope = true;
  auto peer = Peer::make(config);
  EXPECT_TRUE(peer->endpoint.send_room().empty());
  const uint16_t next = peer->endpoint.next_sequence();
  EXPECT_FALSE(peer->endpoint.send_written(10));
  EXPECT_TRUE(peer->outbox.empty());
  EXPECT_EQ(peer->endpoint.next_sequence(), next);
  EXPECT_EQ(peer->endpoint.counters().packets_sent, 0u);
}

// With the envelope on there is no room at all: a send_written call is refused for that, whatever its
// size, and counted as a call the endpoint cannot serve (calls_refused), not as a payload too large.
TEST(EndpointSendWritten, ARefusalForTheEnvelopeIsNotCountedTooLarge) {
  EndpointConfig config = in_place_config(AckDelayMode::kWithEnvelope);
  config.envelope = true;
  auto peer = Peer::make(config);
  const EndpointCounters before = peer->endpoint.counters();
  EXPECT_FALSE(peer->endpoint.send_written(10));
  EXPECT_FALSE(peer->endpoint.send_written(0));
  EXPECT_EQ(peer->endpoint.counters().packets_too_large_to_send, 0u);
  EXPECT_EQ(peer->endpoint.counters().calls_refused, 2u);
  EndpointCounters expected = before;
  expected.calls_refused += 2;
  EXPECT_EQ(peer->endpoint.counters(), expected) << "no other counter rose";
  EXPECT_TRUE(peer->outbox.empty());
}

TEST(EndpointSendWritten, AboveTheRoomIsRefusedWithoutUsingASequence) {
  EndpointConfig config = in_place_config(AckDelayMode::kOn);
  config.max_packet_size = 4096;
  config.fragment_above = 1000;
  config.fragment_size = 1024;
  config.max_fragments = 4;
  auto peer = Peer::make(config);
  ASSERT_EQ(peer->endpoint.send_room().size(), 1000u);
  const uint16_t next = peer->endpoint.next_sequence();
  EXPECT_FALSE(peer->endpoint.send_written(1001));
  EXPECT_TRUE(peer->outbox.empty());
  EXPECT_EQ(peer->endpoint.next_sequence(), next);
  EXPECT_EQ(peer->endpoint.counters().packets_too_large_to_send, 1u);
  EXPECT_TRUE(peer->endpoint.send_written(1000));
  EXPECT_EQ(peer->outbox.size(), 1u);
}

// Two endpoints sharing one room, their sends interleaved (each packet written over the other's last), send
// the datagrams two endpoints with their own buffers send: nothing of one packet is left for the other.
TEST(EndpointSendWritten, EndpointsSharingARoomSendTheDatagramsOfTheirOwnBuffers) {
  const EndpointConfig config = in_place_config(AckDelayMode::kOn);
  auto own_a = Peer::make(config), own_b = Peer::make(config);
  auto shared_a = Peer::make(config), shared_b = Peer::make(config);
  std::vector<std::byte> room(shared_a->endpoint.shared_send_room_bytes(), std::byte{0xEE});
  ASSERT_TRUE(shared_a->endpoint.share_send_room(room));
  ASSERT_TRUE(shared_b->endpoint.share_send_room(room));
  EXPECT_GE(shared_a->endpoint.send_room().data(), room.data());
  EXPECT_LE(shared_a->endpoint.send_room().data() + shared_a->endpoint.send_room().size(),
            room.data() + room.size());
  EXPECT_EQ(shared_a->endpoint.send_room().data(), shared_b->endpoint.send_room().data());
  double now = 0.0;
  for (uint32_t round = 0; round < 200; ++round) {
    now += 0.002;
    for (Peer* peer : {own_a.get(), own_b.get(), shared_a.get(), shared_b.get()}) peer->endpoint.update(now);
    // Lengths that shrink and grow, so a stale tail of the other endpoint's packet would show.
    const Bytes a = pattern_payload((round * 211) % 1201, round);
    const Bytes b = pattern_payload((round * 97 + 600) % 1201, round + 500);
    ASSERT_TRUE(send_in_place(own_a->endpoint, a));
    ASSERT_TRUE(send_in_place(shared_a->endpoint, a));
    ASSERT_TRUE(send_in_place(own_b->endpoint, b));
    ASSERT_TRUE(send_in_place(shared_b->endpoint, b));
    EXPECT_EQ(own_a->outbox.back(), shared_a->outbox.back()) << "round " << round;
    EXPECT_EQ(own_b->outbox.back(), shared_b->outbox.back()) << "round " << round;
    // Each answers the other now and then, so the headers carry acks of varying length.
    if (round % 3 == 0) {
      own_b->endpoint.receive_packet(test::view(own_a->outbox.back()));
      shared_b->endpoint.receive_packet(test::view(shared_a->outbox.back()));
      own_a->endpoint.receive_packet(test::view(own_b->outbox.back()));
      shared_a->endpoint.receive_packet(test::view(shared_b->outbox.back()));
    }
  }
  EXPECT_EQ(own_a->outbox.size(), shared_a->outbox.size());
  EXPECT_EQ(own_a->endpoint.rtt_ms(), shared_a->endpoint.rtt_ms());
}

TEST(EndpointSendWritten, ARoomTooSmallToShareIsRefusedAndTheOwnBufferStays) {
  auto peer = Peer::make(in_place_config(AckDelayMode::kOn));
  const std::span<std::byte> own = peer->endpoint.send_room();
  std::vector<std::byte> room(peer->endpoint.shared_send_room_bytes() - 1);
  EXPECT_FALSE(peer->endpoint.share_send_room(room));
  EXPECT_EQ(peer->endpoint.send_room().data(), own.data());
  room.resize(room.size() + 1);
  EXPECT_TRUE(peer->endpoint.share_send_room(room));
  EXPECT_NE(peer->endpoint.send_room().data(), own.data());
  EXPECT_TRUE(peer->endpoint.share_send_room({}));  // back to the own buffer
  EXPECT_EQ(peer->endpoint.send_room().data(), own.data());
}

}  // namespace
}  // namespace bitwire
