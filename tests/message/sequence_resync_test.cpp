// A connection's in-order-only marks (detail::SequenceMarks, the gap rule) belong to one stream of peer
// sequences: when the endpoint's received window restarts (a backward resync to a new stream -- a peer that
// restarted or went round -- by a packet or a fragment, or an Endpoint::reset), a packet of the new stream
// whose sequence an old packet applied in order only had marked is a new packet, and its unreliable
// messages are applied. A forward resync, even one a fragment completes, keeps the marks: a duplicate from
// before it is not applied twice.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
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

// b takes a's stream: 600 packets of unreliable messages, taken whole, then 40 that also carry reliable
// messages whose first id never arrives. b's room is full, so every packet past the gap is applied in order
// only and marked. c, a second sender to b, is a new stream of peer sequences.
class SequenceResync : public ::testing::Test {
 protected:
  static ConnectionConfig receiver_config(const MessageFactory& factory) {
    const size_t numbered = MessagePool::message_bytes(factory, factory.types()[Numbered::kTypeId]);
    ConnectionConfig config;
    config.max_packet_size = 2400;  // above 1200: a packet past the endpoint's fragment_above is fragmented
    config.channel_count = 2;
    config.channels[0].max_messages_per_packet = 8;
    config.channels[1].type = ChannelType::kUnreliableUnordered;
    config.channels[1].max_messages_per_packet = 16;
    config.message_pool_bytes = static_cast<int>(32 * numbered);  // b: a reserve of 16 and a room of 16
    return config;
  }
  static ConnectionConfig sender_config(ConnectionConfig config) {
    config.message_pool_bytes = 0;  // the senders keep every reliable message unacked
    return config;
  }

  void SetUp() override { ASSERT_TRUE(a_.ok() && b_.ok() && c_.ok()); }

  void drain() {
    while (MessageHandle m = b_.receive(1)) {
      EXPECT_TRUE(seen_.insert(m.as<Numbered>()->serial).second) << m.as<Numbered>()->serial;
      ++arrived_;
    }
    while (b_.receive(0)) {
    }
  }
  // Queues `count` unreliable messages of `payload` bytes each on `from`.
  void send_unreliable(Connection& from, int count = 1, size_t payload = 0) {
    for (int i = 0; i < count; ++i) {
      MessageHandle u = from.create<Numbered>();
      ASSERT_TRUE(u);
      u.as<Numbered>()->serial = serial_++;
      u.as<Numbered>()->payload.resize(payload);
      ASSERT_EQ(from.send(1, std::move(u)).result, SendResult::kQueued);
    }
  }
  // One packet of `from` at this tick: its datagrams, which the caller hands to b (or drops).
  std::vector<std::vector<std::byte>> send(Connection& from) {
    from.update(tick_ * kTick);
    b_.update(tick_ * kTick);
    EXPECT_TRUE(from.send_packet());
    std::vector<std::vector<std::byte>> out = std::move(to_b_.datagrams);
    to_b_.datagrams.clear();
    return out;
  }
  // b's packet of this tick, delivered to `peer`.
  void answer(Connection& peer) {
    EXPECT_TRUE(b_.send_packet());
    for (const std::vector<std::byte>& d : to_a_.datagrams) peer.receive_packet(d);
    to_a_.datagrams.clear();
  }

  // Runs a's stream; returns a's newest sequence. in_order_only_ keeps the datagram of each packet of a's
  // that b applied in order only (marked), by sequence.
  uint16_t run_a_stream() {
    for (MessageHandle h = b_.create<Numbered>(); h; h = b_.create<Numbered>()) room_.push_back(std::move(h));
    for (MessageHandle h = b_.create<test::Tiny>(); h; h = b_.create<test::Tiny>())
      room_.push_back(std::move(h));
    for (; tick_ < 640; ++tick_) {
      if (tick_ >= 600) {
        MessageHandle m = a_.create<Numbered>();
        EXPECT_EQ(a_.send(0, std::move(m)).result, SendResult::kQueued);
      }
      send_unreliable(a_);
      const uint16_t sequence = a_.endpoint().next_sequence();
      const std::vector<std::vector<std::byte>> datagrams = send(a_);
      const uint64_t in_order_only = b_.counters().packets_in_order_only;
      for (const std::vector<std::byte>& d : datagrams) {
        if (tick_ < 600 || !carries_first_id(factory_, config_, d)) b_.receive_packet(d);
      }
      if (b_.counters().packets_in_order_only == in_order_only + 1 && datagrams.size() == 1) {
        in_order_only_[sequence] = datagrams[0];
      }
      drain();
      answer(a_);
    }
    return static_cast<uint16_t>(a_.endpoint().next_sequence() - 1);
  }

  // a's next 150 packets are lost; of the next three, fragmented, b gets the first fragment of each only:
  // 151..153 after b's horizon (a's newest), past the fragment margin (128), so the third completes a
  // forward resync run while its packet stays incomplete. The connection sees none of them.
  void resync_forward_by_fragments() {
    for (int i = 0; i < 150; ++i, ++tick_) {
      send_unreliable(a_);
      send(a_);
    }
    const uint64_t resyncs = b_.endpoint().counters().sequence_resyncs;
    for (int i = 0; i < 3; ++i, ++tick_) {
      send_unreliable(a_, 16, 64);
      const std::vector<std::vector<std::byte>> datagrams = send(a_);
      ASSERT_GE(datagrams.size(), 2u) << "a's packet is fragmented";
      b_.receive_packet(datagrams[0]);
      answer(a_);
    }
    ASSERT_EQ(b_.endpoint().counters().sequence_resyncs, resyncs + 1);
  }

  // Sends packets of c's, which b never sees, until c's next sequence is `next`.
  void advance_c_to(uint16_t next) {
    while (c_.endpoint().next_sequence() != next) {
      c_.update(tick_ * kTick);
      ASSERT_TRUE(c_.send_packet());
    }
    to_b_.datagrams.clear();
  }

  const MessageFactory factory_{kAllTypes};
  const ConnectionConfig config_ = receiver_config(factory_);
  const ConnectionConfig sender_ = sender_config(config_);
  Wire to_b_;
  Wire to_a_;
  Connection a_{factory_, sender_, to_b_.callbacks()};
  Connection b_{factory_, config_, to_a_.callbacks()};
  Connection c_{factory_, sender_, to_b_.callbacks()};
  std::vector<MessageHandle> room_;  // b's pool, held: b's room is full
  std::set<uint32_t> seen_;
  int arrived_ = 0;
  uint32_t serial_ = 0;
  int tick_ = 0;
  std::map<uint16_t, std::vector<std::byte>> in_order_only_;
};

TEST_F(SequenceResync, ANewStreamsPacketOnAnOldInOrderOnlyMarkIsApplied) {
  const uint16_t newest = run_a_stream();
  const uint64_t in_order_only = b_.counters().packets_in_order_only;
  ASSERT_GT(in_order_only, 20u) << "a's packets past the gap were applied in order only";
  ASSERT_EQ(b_.counters().unreliable_dropped_in_order_only, 0u);

  // c's stream: a new peer whose sequences start 300 behind a's newest (the packets before go nowhere),
  // more than b's received window (256), so b's endpoint resynchronizes backward to it; c then sends
  // unreliable messages only, and acks b's packets, past a's newest.
  advance_c_to(static_cast<uint16_t>(newest - 300));
  const uint64_t resyncs = b_.endpoint().counters().sequence_resyncs;
  const uint64_t taken = b_.endpoint().counters().packets_received;
  const int before = arrived_;
  int sent = 0;
  for (int i = 0; i < 340; ++i, ++tick_) {
    send_unreliable(c_);
    ++sent;
    for (const std::vector<std::byte>& d : send(c_)) b_.receive_packet(d);
    drain();
    answer(c_);
  }
  ASSERT_EQ(b_.endpoint().counters().sequence_resyncs, resyncs + 1);
  ASSERT_TRUE(sequence_greater_than(static_cast<uint16_t>(c_.endpoint().next_sequence() - 1), newest))
      << "c's stream passed every sequence a's packets marked";
  EXPECT_EQ(b_.counters().packets_in_order_only, in_order_only);
  // Each packet of c's that b's endpoint took carries one unreliable message, applied; the few before the
  // resync (the endpoint wants sequence_resync_packets in a row, the last acking something new) are stale.
  const auto received = static_cast<int>(b_.endpoint().counters().packets_received - taken);
  EXPECT_EQ(arrived_ - before, received);
  EXPECT_GE(received, sent - 4);
  EXPECT_EQ(b_.counters().unreliable_dropped_in_order_only, 0u) << "a new packet was taken for a repeat";
  EXPECT_EQ(b_.error(), ConnectionError::kNone) << b_.error_reason();
}

// A fragment completes a forward resync run (defaults: received window 256, fragment margin 128): the
// endpoint's horizon moves 153 past a's newest before the connection sees any packet of the new range.
// A network duplicate of an in-order-only packet from before, 158 behind the horizon, still in the
// endpoint's range, reaches the connection: the forward resync kept the marks, so its unreliable message
// is not applied a second time.
TEST_F(SequenceResync, ADuplicateAfterAForwardResyncByAFragmentIsNotAppliedTwice) {
  const uint16_t newest = run_a_stream();
  const auto old = static_cast<uint16_t>(newest - 5);
  ASSERT_TRUE(in_order_only_.contains(old)) << "a's packet 5 before its newest was applied in order only";

  ASSERT_NO_FATAL_FAILURE(resync_forward_by_fragments());

  const int before = arrived_;
  const uint64_t in_order_only = b_.counters().packets_in_order_only;
  const uint64_t dropped = b_.counters().unreliable_dropped_in_order_only;
  b_.receive_packet(in_order_only_[old]);  // the network's duplicate
  drain();
  ASSERT_EQ(b_.counters().packets_in_order_only, in_order_only + 1) << "the endpoint handed the duplicate on";
  EXPECT_EQ(arrived_, before) << "the duplicate's unreliable message was applied a second time";
  EXPECT_EQ(b_.counters().unreliable_dropped_in_order_only, dropped + 1);
  EXPECT_EQ(b_.error(), ConnectionError::kNone) << b_.error_reason();
}

// A fragment completes a backward resync run to c's stream (300 behind a's newest), and a forward one by
// fragments follows, so the first packet of c's the connection sees is past a's newest -- ahead of the
// marks' front. The backward resync started a new stream all the same: a late packet of c's whose
// sequence an in-order-only packet of a's marked is new, and its unreliable message is applied.
TEST_F(SequenceResync, ABackwardResyncByAFragmentClearsTheMarks) {
  const uint16_t newest = run_a_stream();
  const auto old = static_cast<uint16_t>(newest - 5);
  ASSERT_TRUE(in_order_only_.contains(old)) << "a's packet 5 before its newest was applied in order only";

  const auto start = static_cast<uint16_t>(newest - 300);
  advance_c_to(start);
  // c takes b's packets first (three: b's sequence is far ahead of c's fresh window, a forward run), so
  // that the fragment 0 completing the backward run acks a packet of b's newer than any b saw acked.
  for (int i = 0; i < 3; ++i) answer(c_);
  ASSERT_EQ(c_.endpoint().counters().packets_received, 1u);
  const uint64_t resyncs = b_.endpoint().counters().sequence_resyncs;
  const int before = arrived_;
  std::vector<std::byte> late;
  for (uint16_t k = 0; k <= 303; ++k, ++tick_) {
    // c's packets 0..2 and 300..302 after start are fragmented; b gets each one's fragment 0 only (it
    // carries the ack that a backward run needs), and of the rest only c's packet 303 (past a's newest).
    const bool fragmented = k < 3 || (k >= 300 && k < 303);
    send_unreliable(c_, fragmented ? 16 : 1, fragmented ? 64 : 0);
    const uint16_t sequence = c_.endpoint().next_sequence();
    const std::vector<std::vector<std::byte>> datagrams = send(c_);
    if (fragmented) {
      ASSERT_GE(datagrams.size(), 2u) << "c's packet is fragmented";
      b_.receive_packet(datagrams[0]);
    } else if (sequence == old) {
      late = datagrams[0];
    } else if (k == 303) {
      for (const std::vector<std::byte>& d : datagrams) b_.receive_packet(d);
    }
    drain();
    answer(c_);
  }
  ASSERT_EQ(b_.endpoint().counters().sequence_resyncs, resyncs + 2) << "backward, then forward";
  ASSERT_EQ(arrived_, before + 1) << "c's packet past a's newest was applied";
  ASSERT_FALSE(late.empty());

  b_.receive_packet(late);
  drain();
  EXPECT_EQ(arrived_, before + 2) << "c's late packet was taken for a repeat of a's";
  EXPECT_EQ(b_.counters().unreliable_dropped_in_order_only, 0u);
  EXPECT_EQ(b_.error(), ConnectionError::kNone) << b_.error_reason();
}

// Endpoint::reset (reachable through Connection::endpoint()) restarts the received window as a backward
// resync does, whatever the endpoint's counters then read: the connection clears its marks, and a new
// stream's packet on an old mark is applied. Here the connection has seen one resync (forward, by
// fragments, then a's next packet); after the reset the endpoint's counter reads one again once c's
// stream, far ahead of the fresh window, completes a forward run.
TEST_F(SequenceResync, AnEndpointResetClearsTheMarks) {
  const uint16_t newest = run_a_stream();
  const auto old = static_cast<uint16_t>(newest - 5);
  ASSERT_TRUE(in_order_only_.contains(old)) << "a's packet 5 before its newest was applied in order only";
  ASSERT_NO_FATAL_FAILURE(resync_forward_by_fragments());
  send_unreliable(a_);
  const uint64_t in_order_only = b_.counters().packets_in_order_only;
  for (const std::vector<std::byte>& d : send(a_)) b_.receive_packet(d);
  ++tick_;
  drain();
  ASSERT_EQ(b_.counters().packets_in_order_only, in_order_only + 1) << "the connection saw a's next packet";

  advance_c_to(static_cast<uint16_t>(old - 2));
  b_.endpoint().reset();
  const int before = arrived_;
  for (int i = 0; i < 3; ++i, ++tick_) {  // old - 2 .. old: the third completes a forward run
    send_unreliable(c_);
    for (const std::vector<std::byte>& d : send(c_)) b_.receive_packet(d);
    drain();
  }
  ASSERT_EQ(b_.endpoint().counters().sequence_resyncs, 1u);
  EXPECT_EQ(b_.endpoint().counters().packets_received, 1u);
  EXPECT_EQ(arrived_, before + 1) << "c's packet was taken for a repeat of a's";
  EXPECT_EQ(b_.counters().unreliable_dropped_in_order_only, 0u);
  EXPECT_EQ(b_.error(), ConnectionError::kNone) << b_.error_reason();
}

}  // namespace
}  // namespace bitwire
