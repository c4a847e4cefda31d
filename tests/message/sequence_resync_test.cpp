// A connection's in-order-only marks (detail::SequenceMarks, the gap rule) belong to one stream of peer
// sequences: when the endpoint resynchronizes backward to a new stream (endpoint_receive.cpp, a peer that
// restarted or went round), a packet of the new stream whose sequence an old packet applied in order only
// had marked is a new packet, and its unreliable messages are applied.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <span>
#include <vector>

#include "bitwire/message/connection.hpp"
#include "support/test_messages.hpp"

namespace bitwire {
namespace {

using test::kAllTypes;
using test::Numbered;

constexpr double kTick = 1.0 / 60.0;

// Datagrams a connection transmits, kept until the test hands them on (or drops them).
struct Wire {
  std::vector<std::vector<std::byte>> datagrams;
  static void transmit(void* self, std::span<const std::byte> datagram) {
    static_cast<Wire*>(self)->datagrams.emplace_back(datagram.begin(), datagram.end());
  }
  ConnectionCallbacks callbacks() { return ConnectionCallbacks{this, &Wire::transmit}; }
};

// Whether `datagram` carries channel 0's reliable id 0: a connection that has received nothing delivers it
// from that datagram alone (its endpoint takes any first sequence).
bool carries_first_id(const MessageFactory& factory, ConnectionConfig config,
                      std::span<const std::byte> datagram) {
  config.endpoint.max_sequence_jump = 32767;
  Connection probe(factory, config);
  probe.receive_packet(datagram);
  return static_cast<bool>(probe.receive(0));
}

TEST(SequenceResync, ANewStreamsPacketOnAnOldInOrderOnlyMarkIsApplied) {
  const MessageFactory factory(kAllTypes);
  const size_t numbered = MessagePool::message_bytes(factory, factory.types()[Numbered::kTypeId]);
  ConnectionConfig config;
  config.channel_count = 2;
  config.channels[0].max_messages_per_packet = 8;
  config.channels[1].type = ChannelType::kUnreliableUnordered;
  config.channels[1].max_messages_per_packet = 8;
  config.message_pool_bytes = static_cast<int>(32 * numbered);  // b: a reserve of 16 and a room of 16
  ConnectionConfig sender = config;
  sender.message_pool_bytes = 0;  // the senders keep every reliable message unacked
  Wire to_b;
  Wire to_a;
  Wire to_c;
  Connection a(factory, sender, to_b.callbacks());
  Connection b(factory, config, to_a.callbacks());
  Connection c(factory, sender, to_b.callbacks());
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  std::set<uint32_t> seen;
  int arrived = 0;
  const auto drain = [&] {
    while (MessageHandle m = b.receive(1)) {
      EXPECT_TRUE(seen.insert(m.as<Numbered>()->serial).second) << m.as<Numbered>()->serial;
      ++arrived;
    }
    while (b.receive(0)) {
    }
  };
  uint32_t serial = 0;
  const auto send_unreliable = [&](Connection& from) {
    MessageHandle u = from.create<Numbered>();
    u.as<Numbered>()->serial = serial++;
    ASSERT_EQ(from.send(1, std::move(u)).result, SendResult::kQueued);
  };

  // a's stream: 600 packets of unreliable messages, taken whole, then reliable messages whose first id
  // never arrives. b's room is full, so every packet past the gap is applied in order only and marked.
  std::vector<MessageHandle> room;
  for (MessageHandle h = b.create<Numbered>(); h; h = b.create<Numbered>()) room.push_back(std::move(h));
  for (MessageHandle h = b.create<test::Tiny>(); h; h = b.create<test::Tiny>()) room.push_back(std::move(h));
  int tick = 0;
  for (; tick < 640; ++tick) {
    if (tick >= 600) {
      MessageHandle m = a.create<Numbered>();
      ASSERT_EQ(a.send(0, std::move(m)).result, SendResult::kQueued);
    }
    send_unreliable(a);
    a.update(tick * kTick);
    b.update(tick * kTick);
    ASSERT_TRUE(a.send_packet());
    for (const std::vector<std::byte>& d : to_b.datagrams) {
      if (tick < 600 || !carries_first_id(factory, config, d)) b.receive_packet(d);
    }
    to_b.datagrams.clear();
    drain();
    ASSERT_TRUE(b.send_packet());
    for (const std::vector<std::byte>& d : to_a.datagrams) a.receive_packet(d);
    to_a.datagrams.clear();
  }
  const uint64_t in_order_only = b.counters().packets_in_order_only;
  ASSERT_GT(in_order_only, 20u) << "a's packets past the gap were applied in order only";
  ASSERT_EQ(b.counters().unreliable_dropped_in_order_only, 0u);
  const uint16_t newest = static_cast<uint16_t>(a.endpoint().next_sequence() - 1);

  // c's stream: a new peer whose sequences start 300 behind a's newest (the packets before go nowhere),
  // more than b's received window (256), so b's endpoint resynchronizes backward to it; c then sends
  // unreliable messages only, and acks b's packets, past a's newest.
  while (static_cast<uint16_t>(newest - c.endpoint().next_sequence()) > 300) {
    c.update(tick * kTick);
    ASSERT_TRUE(c.send_packet());
  }
  to_b.datagrams.clear();
  const uint64_t resyncs = b.endpoint().counters().sequence_resyncs;
  const uint64_t taken = b.endpoint().counters().packets_received;
  const int before = arrived;
  int sent = 0;
  for (int i = 0; i < 340; ++i, ++tick) {
    send_unreliable(c);
    ++sent;
    c.update(tick * kTick);
    b.update(tick * kTick);
    ASSERT_TRUE(c.send_packet());
    for (const std::vector<std::byte>& d : to_b.datagrams) b.receive_packet(d);
    to_b.datagrams.clear();
    drain();
    ASSERT_TRUE(b.send_packet());
    for (const std::vector<std::byte>& d : to_a.datagrams) c.receive_packet(d);
    to_a.datagrams.clear();
  }
  ASSERT_EQ(b.endpoint().counters().sequence_resyncs, resyncs + 1);
  ASSERT_TRUE(sequence_greater_than(static_cast<uint16_t>(c.endpoint().next_sequence() - 1), newest))
      << "c's stream passed every sequence a's packets marked";
  EXPECT_EQ(b.counters().packets_in_order_only, in_order_only);
  // Each packet of c's that b's endpoint took carries one unreliable message, applied; the few before the
  // resync (the endpoint wants sequence_resync_packets in a row, the last acking something new) are stale.
  const auto received = static_cast<int>(b.endpoint().counters().packets_received - taken);
  EXPECT_EQ(arrived - before, received);
  EXPECT_GE(received, sent - 4);
  EXPECT_EQ(b.counters().unreliable_dropped_in_order_only, 0u) << "a new packet was taken for a repeat";
  EXPECT_EQ(b.error(), ConnectionError::kNone) << b.error_reason();
}

}  // namespace
}  // namespace bitwire
