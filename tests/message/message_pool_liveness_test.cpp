// The message pool's byte budget under loss: nothing a correct peer sends may be refused for ever. A gap's
// packet always finds room (the receive reserve), reliable messages past a gap never take that room, a
// packet that brings a channel's head is never refused whole for messages it also carries past a hole, and
// an application that creates until refused leaves the reserve alone, so two such peers keep receiving.
// Every test runs lossy links in both directions and asserts that every message arrives once, in order,
// within a bounded number of ticks.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "bitwire/message/connection.hpp"
#include "bitwire/message/message.hpp"
#include "bitwire/serialize/fixed_vector.hpp"
#include "support/connection_pair.hpp"
#include "support/test_messages.hpp"

namespace bitwire {
namespace {

using test::ConnectionPair;
using test::kAllTypes;
using test::Numbered;
using test::Small;

constexpr double kTick = 1.0 / 60.0;

// A snapshot as stack_bench's: 640 bytes in memory, as little as 10 bits on the wire when empty, so a
// correct peer may pack a channel's most messages of it into one packet.
struct Snapshot {
  static constexpr uint32_t kTypeId = 1;
  FixedVector<uint8_t, 640> bytes;
  uint32_t serial = 0;
  template <typename Stream>
  bool serialize(Stream& stream) {
    BITWIRE_TRY(serialize_bits(stream, serial, 32));
    auto count = static_cast<uint32_t>(bytes.size());
    BITWIRE_TRY(serialize_count(stream, count, 0u, 640u));
    if constexpr (Stream::kIsReading) bytes.resize(count);
    return serialize_bytes(stream, bytes.data(), count);
  }
};
constexpr MessageTypeInfo kSnapshotTypes[] = {describe_message<Small>("Small"),
                                              describe_message<Snapshot>("Snapshot")};

size_t bytes_of(const MessageFactory& factory, uint32_t type) {
  return MessagePool::message_bytes(factory, factory.types()[type]);
}

// One direction of a stream of `count` reliable messages on channel 0, serial i a Numbered when
// large(i), else a Small carrying the serial's low byte; the receiver checks the order as it goes.
struct Stream {
  uint32_t count = 0;
  bool (*large)(uint32_t) = nullptr;
  uint32_t queued = 0;
  uint32_t received = 0;
  bool out_of_order = false;

  // Creates and sends until create() or send() refuses (the greedy application of finding 3).
  void feed(Connection& from) {
    while (queued < count) {
      const bool big = large(queued);
      MessageHandle m = big ? from.create<Numbered>() : from.create<Small>();
      if (!m) return;
      if (big) {
        m.as<Numbered>()->serial = queued;
        m.as<Numbered>()->payload.resize(1 + queued % 60);
      } else {
        m.as<Small>()->value = static_cast<uint8_t>(queued);
      }
      if (from.send(0, std::move(m)).result != SendResult::kQueued) return;
      ++queued;
    }
  }
  void drain(Connection& to) {
    while (MessageHandle m = to.receive(0)) {
      if (const Numbered* n = m.as<Numbered>()) {
        out_of_order |= !large(received) || n->serial != received;
      } else {
        out_of_order |= large(received) || m.as<Small>()->value != static_cast<uint8_t>(received);
      }
      ++received;
    }
  }
};

// Both peers stream `count` messages to each other over `conditions` until both have everything or
// `max_ticks` pass; returns the ticks taken (max_ticks when it did not finish).
// `expected` is the connections' error all along (kConfigInvalid: a refused config runs sanitized).
int stream_both_ways(ConnectionPair& pair, uint32_t count, bool (*large)(uint32_t), int max_ticks,
                     ConnectionError expected = ConnectionError::kNone) {
  Stream a_to_b{count, large};
  Stream b_to_a{count, large};
  int tick = 0;
  for (; tick < max_ticks && (a_to_b.received < count || b_to_a.received < count); ++tick) {
    a_to_b.feed(pair.a);
    b_to_a.feed(pair.b);
    pair.tick(tick * kTick);
    a_to_b.drain(pair.b);
    b_to_a.drain(pair.a);
  }
  EXPECT_FALSE(a_to_b.out_of_order);
  EXPECT_FALSE(b_to_a.out_of_order);
  EXPECT_EQ(a_to_b.received, count) << "a -> b stalled (queued " << a_to_b.queued << ")";
  EXPECT_EQ(b_to_a.received, count) << "b -> a stalled (queued " << b_to_a.queued << ")";
  EXPECT_EQ(pair.a.error(), expected) << pair.a.error_reason();
  EXPECT_EQ(pair.b.error(), expected) << pair.b.error_reason();
  return tick;
}

// The receive reserve is a region of its own: the application's creates never take it, however greedy;
// the receive path takes it first.
TEST(PoolLiveness, TheApplicationNeverTakesTheReceiveReserve) {
  const MessageFactory factory(kAllTypes);
  const size_t numbered = bytes_of(factory, Numbered::kTypeId);
  const size_t small = bytes_of(factory, Small::kTypeId);
  MessagePoolConfig config;
  config.capacity = 100'000;
  config.receive_reserve = 4;
  config.bytes = static_cast<int>(10 * numbered);
  MessagePool pool(factory, config);
  ASSERT_TRUE(pool.ok()) << pool.error_reason();
  EXPECT_EQ(pool.bytes(), 10 * numbered);
  EXPECT_EQ(pool.receive_reserve_bytes(), 4 * numbered);
  std::vector<MessageHandle> held;
  for (MessageHandle m = pool.create<Small>(); m; m = pool.create<Small>()) held.push_back(std::move(m));
  EXPECT_EQ(held.size(), 6 * numbered / small);
  EXPECT_EQ(pool.receive_reserve_free(), pool.receive_reserve_bytes());
  for (int i = 0; i < 4; ++i) {
    held.push_back(pool.create_received(Numbered::kTypeId));
    ASSERT_TRUE(held.back());
    EXPECT_TRUE(pool.in_receive_reserve(held.back())) << "a received message takes the reserve";
  }
  EXPECT_EQ(pool.receive_reserve_free(), 0u);
  EXPECT_FALSE(pool.create_received(Small::kTypeId)) << "reserve and application room both full";
  held.erase(held.begin());  // one Small of the application's room freed
  MessageHandle spilled = pool.create_received(Small::kTypeId);
  ASSERT_TRUE(spilled);
  EXPECT_FALSE(pool.in_receive_reserve(spilled)) << "with the reserve full, the application's room";
  EXPECT_FALSE(pool.create<Small>());
  spilled.reset();
  held.clear();
  EXPECT_EQ(pool.live(), 0);
  EXPECT_EQ(pool.bytes_free(), pool.bytes());
  EXPECT_EQ(pool.arena().check(), nullptr);
  EXPECT_EQ(pool.receive_arena().check(), nullptr);
}

// A received message moved out of the reserve keeps its contents and its handle; with no room in the
// application's, nothing changes.
TEST(PoolLiveness, AReceivedMessageMovesOutOfTheReserve) {
  const MessageFactory factory(kAllTypes);
  const size_t numbered = bytes_of(factory, Numbered::kTypeId);
  MessagePoolConfig config;
  config.capacity = 100'000;
  config.receive_reserve = 2;
  config.bytes = static_cast<int>(3 * numbered);
  MessagePool pool(factory, config);
  ASSERT_TRUE(pool.ok()) << pool.error_reason();
  MessageHandle received = pool.create_received(Numbered::kTypeId);
  ASSERT_TRUE(pool.in_receive_reserve(received));
  received.as<Numbered>()->serial = 77;
  received.as<Numbered>()->payload.resize(3);
  received.as<Numbered>()->payload[2] = 9;
  MessageHandle application = pool.create<Numbered>();
  ASSERT_TRUE(application);
  EXPECT_FALSE(pool.move_to_application(received)) << "the application's room is full";
  EXPECT_TRUE(pool.in_receive_reserve(received));
  EXPECT_EQ(received.as<Numbered>()->serial, 77u);
  application.reset();
  ASSERT_TRUE(pool.move_to_application(received));
  EXPECT_FALSE(pool.in_receive_reserve(received));
  EXPECT_EQ(pool.receive_reserve_free(), pool.receive_reserve_bytes());
  EXPECT_EQ(received.as<Numbered>()->serial, 77u);
  ASSERT_EQ(received.as<Numbered>()->payload.size(), 3u);
  EXPECT_EQ(received.as<Numbered>()->payload[2], 9);
  EXPECT_EQ(pool.live(), 1);
  received.reset();
  EXPECT_EQ(pool.bytes_free(), pool.bytes());
}

// A block's fragment 0 takes a block message slot outside the budget while one is free: a block in
// reassembly never splits the free bytes a received packet needs.
TEST(PoolLiveness, ReceivedBlockMessagesTakeTheirSlotsOutsideTheBudget) {
  const MessageFactory factory(kAllTypes);
  MessagePoolConfig config;
  config.receive_reserve = 1;
  config.block_messages = 2;
  MessagePool pool(factory, config);
  ASSERT_TRUE(pool.ok()) << pool.error_reason();
  EXPECT_EQ(pool.block_message_slots(), 2);
  const size_t free = pool.bytes_free();
  MessageHandle first = pool.create_received_block(test::WithBlock::kTypeId);
  MessageHandle second = pool.create_received_block(test::WithBlock::kTypeId);
  ASSERT_TRUE(first && second);
  EXPECT_TRUE(pool.in_block_slot(first));
  EXPECT_TRUE(pool.in_block_slot(second));
  EXPECT_EQ(pool.bytes_free(), free);
  first.as<test::WithBlock>()->tag = 7;
  second.as<test::WithBlock>()->tag = 9;
  MessageHandle third = pool.create_received_block(test::WithBlock::kTypeId);
  ASSERT_TRUE(third);
  EXPECT_FALSE(pool.in_block_slot(third)) << "with both slots taken, the budget";
  EXPECT_LT(pool.bytes_free(), free);
  EXPECT_FALSE(pool.in_block_slot(pool.create_received(test::WithBlock::kTypeId)));
  EXPECT_EQ(first.as<test::WithBlock>()->tag, 7);
  EXPECT_EQ(second.as<test::WithBlock>()->tag, 9);
  first.reset();
  MessageHandle again = pool.create_received_block(test::WithBlock::kTypeId);
  EXPECT_TRUE(pool.in_block_slot(again));
  EXPECT_EQ(again.as<test::WithBlock>()->tag, 0) << "value-initialised in the slot";
  again.reset();
  second.reset();
  third.reset();
  EXPECT_EQ(pool.live(), 0);
  EXPECT_EQ(pool.bytes_free(), pool.bytes());
  EXPECT_EQ(pool.arena().check(), nullptr);
}

bool one_in_four_large(uint32_t serial) {
  return serial % 4 == 1;
}
bool first_large(uint32_t serial) {
  return serial == 0;
}

// Finding 1's budget: one Numbered and ten Smalls. The peer sends a Numbered then a Small; whenever the
// Numbered's packet is lost and the Small's arrives, the Small waits past the gap and the Numbered's
// resends need more than what stays free. Such a budget cannot hold a gap's packet beside what the
// application sends: it is refused with a reason, and the connection runs with the smallest budget that
// can (the reserve for one received packet beside one message of the application), which delivers.
TEST(PoolLiveness, ABudgetThatCannotHoldAGapsPacketIsRefusedAndTheRaisedOneDelivers) {
  const MessageFactory factory(kAllTypes);
  ConnectionConfig config;
  config.channels[0].max_messages_per_packet = 4;
  config.message_pool_bytes =
      static_cast<int>(bytes_of(factory, Numbered::kTypeId) + 10 * bytes_of(factory, Small::kTypeId));
  const Connection probe(factory, config);
  EXPECT_FALSE(probe.ok()) << "a budget below the receive reserve and one message is refused";
  EXPECT_NE(std::string(probe.ok() ? "" : probe.error_reason()).find("receive reserve"), std::string::npos)
      << probe.error_reason();
  EXPECT_GE(probe.pool().bytes(), 5 * bytes_of(factory, Numbered::kTypeId));

  for (int seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE(seed);
    NetworkConditions conditions;
    conditions.loss_percent = 30;
    ConnectionPair pair(factory, config, conditions, static_cast<uint64_t>(seed));
    EXPECT_LT(stream_both_ways(pair, 40, first_large, 3000, ConnectionError::kConfigInvalid), 3000);
  }
}

// A budget at the smallest the check allows (the reserve and one Numbered), mixed sizes, 10-30% loss both
// ways, both applications creating until refused: every message arrives in order within the bound and
// neither side's pool is left holding anything.
TEST(PoolLiveness, TwoGreedyPeersAtTheSmallestBudgetDeliverEverythingUnderLoss) {
  const MessageFactory factory(kAllTypes);
  for (const double loss : {10.0, 20.0, 30.0}) {
    for (int seed = 1; seed <= 6; ++seed) {
      SCOPED_TRACE(std::to_string(loss) + "% loss, seed " + std::to_string(seed));
      ConnectionConfig config;
      config.channels[0].max_messages_per_packet = 8;
      config.message_pool_bytes = static_cast<int>(9 * bytes_of(factory, Numbered::kTypeId));
      ASSERT_TRUE(config.check().ok()) << config.check().reason();
      NetworkConditions conditions;
      conditions.loss_percent = loss;
      ConnectionPair pair(factory, config, conditions, static_cast<uint64_t>(seed) * 7919u);
      ASSERT_TRUE(pair.a.ok()) << pair.a.error_reason();
      const int ticks = stream_both_ways(pair, 600, one_in_four_large, 20'000);
      const uint64_t in_order_only =
          pair.a.counters().packets_in_order_only + pair.b.counters().packets_in_order_only;
      const uint64_t refused =
          pair.a.counters().packets_pool_exhausted + pair.b.counters().packets_pool_exhausted;
      std::printf(
          "%.0f%% loss, seed %d: 600 each way in %d ticks; packets applied in order only %llu, refused "
          "for room %llu\n",
          loss, seed, ticks, static_cast<unsigned long long>(in_order_only),
          static_cast<unsigned long long>(refused));
      for (int i = 0; i < 2000 && (pair.a.pool().live() > 0 || pair.b.pool().live() > 0); ++i) {
        pair.tick((ticks + i) * kTick);
      }
      EXPECT_EQ(pair.a.pool().live(), 0);
      EXPECT_EQ(pair.b.pool().live(), 0);
    }
  }
}

// The receiver's application holds its whole room (created, never sent): messages that arrive past a gap
// have nowhere to wait, so those packets are applied in order only and not acked (finding 2: the packet
// that fills a gap is never refused for what else it carries), and every message still arrives in order.
TEST(PoolLiveness, AFullApplicationRoomStillTakesEveryPacketInOrder) {
  const MessageFactory factory(kAllTypes);
  ConnectionConfig config;
  config.channels[0].max_messages_per_packet = 8;
  config.message_pool_bytes = static_cast<int>(24 * bytes_of(factory, Numbered::kTypeId));
  NetworkConditions conditions;
  conditions.loss_percent = 20;
  uint64_t in_order_only = 0;
  for (int seed = 1; seed <= 6; ++seed) {
    SCOPED_TRACE(seed);
    ConnectionPair pair(factory, config, conditions, static_cast<uint64_t>(seed));
    std::vector<MessageHandle> held;
    for (MessageHandle m = pair.b.create<Numbered>(); m; m = pair.b.create<Numbered>())
      held.push_back(std::move(m));
    ASSERT_EQ(held.size(), 16u) << "the budget less the reserve of 8";
    Stream a_to_b{400, one_in_four_large};
    int tick = 0;
    for (; tick < 20'000 && a_to_b.received < 400; ++tick) {
      a_to_b.feed(pair.a);
      pair.tick(tick * kTick);
      a_to_b.drain(pair.b);
    }
    EXPECT_FALSE(a_to_b.out_of_order);
    EXPECT_EQ(a_to_b.received, 400u) << "stalled after " << tick << " ticks";
    EXPECT_EQ(pair.b.error(), ConnectionError::kNone);
    in_order_only += pair.b.counters().packets_in_order_only;
  }
  EXPECT_GT(in_order_only, 0u) << "packets past a gap came while the application's room was full";
  std::printf("packets applied in order only over 6 seeds: %llu\n",
              static_cast<unsigned long long>(in_order_only));
}

// Twice that budget, the h-pool shape of finding 3: the applications' queued messages alone could fill it.
// Each side keeps the reserve for the other's packets, so neither stops acking the other.
TEST(PoolLiveness, GreedyPeersNeverTakeTheRoomTheirReceivingNeeds) {
  const MessageFactory factory(kAllTypes);
  ConnectionConfig config;
  config.channels[0].max_messages_per_packet = 8;
  config.message_pool_bytes = static_cast<int>(24 * bytes_of(factory, Numbered::kTypeId));
  NetworkConditions conditions;
  conditions.loss_percent = 20;
  for (int seed = 1; seed <= 6; ++seed) {
    SCOPED_TRACE(seed);
    ConnectionPair pair(factory, config, conditions, static_cast<uint64_t>(seed));
    stream_both_ways(
        pair, 1000, [](uint32_t serial) { return serial % 2 == 0; }, 20'000);
  }
}

// A peer that sends on what it receives (an echo): sending it on keeps the message until the peer acks, so
// it moves out of the receive reserve into the application's room; with no room there the send is refused
// (kReservedForReceiving) and the echo waits for this side's acks, while the reserve keeps taking packets.
TEST(PoolLiveness, APeerSendingOnWhatItReceivesKeepsTheReserve) {
  const MessageFactory factory(kAllTypes);
  ConnectionConfig config;
  config.channels[0].max_messages_per_packet = 8;
  config.message_pool_bytes = static_cast<int>(12 * bytes_of(factory, Numbered::kTypeId));
  NetworkConditions conditions;
  conditions.loss_percent = 20;
  uint64_t refused = 0;
  for (int seed = 1; seed <= 6; ++seed) {
    SCOPED_TRACE(seed);
    ConnectionPair pair(factory, config, conditions, static_cast<uint64_t>(seed));
    Stream a_to_b{600, one_in_four_large};
    Stream echoes{600, one_in_four_large};
    std::vector<MessageHandle> waiting;  // received by b, not yet sent back
    int tick = 0;
    for (; tick < 20'000 && echoes.received < 600; ++tick) {
      a_to_b.feed(pair.a);
      pair.tick(tick * kTick);
      while (MessageHandle m = pair.b.receive(0)) waiting.push_back(std::move(m));
      size_t sent = 0;
      for (; sent < waiting.size(); ++sent) {
        const SendStatus status = pair.b.send(0, std::move(waiting[sent]));
        if (status.result == SendResult::kQueued) continue;
        ASSERT_TRUE(status.result == SendResult::kReservedForReceiving ||
                    status.result == SendResult::kQueueFull)
            << to_string(status.result);
        refused += status.result == SendResult::kReservedForReceiving ? 1 : 0;
        break;
      }
      waiting.erase(waiting.begin(), waiting.begin() + static_cast<std::ptrdiff_t>(sent));
      echoes.drain(pair.a);
    }
    EXPECT_FALSE(echoes.out_of_order);
    EXPECT_EQ(echoes.received, 600u) << "stalled after " << tick << " ticks, " << waiting.size()
                                     << " waiting";
    EXPECT_EQ(pair.a.error(), ConnectionError::kNone);
    EXPECT_EQ(pair.b.error(), ConnectionError::kNone);
  }
  EXPECT_GT(refused, 0u) << "the reserve was in use when an echo was sent";
}

// The derived budget with a 640-byte type and a channel's 256 messages a packet: empty snapshots are a
// few bytes on the wire, so a correct peer's packet may carry 256 of them, more than half of a 256 KiB
// budget. Smaller packets past the gap may not take the room that packet needs.
TEST(PoolLiveness, TheDerivedBudgetTakesAGapsPacketOfAChannelsMostMessagesOfTheLargestType) {
  const MessageFactory factory(kSnapshotTypes);
  ConnectionConfig config;
  config.max_packet_size = 1200;
  const Connection probe(factory, config);
  ASSERT_TRUE(probe.ok()) << probe.error_reason();
  EXPECT_GE(probe.pool().bytes(), 256 * bytes_of(factory, Snapshot::kTypeId))
      << "the derived budget holds one received packet of the channel's most snapshots";
  NetworkConditions conditions;
  conditions.loss_percent = 25;
  // Greedy: the receiving application holds every message its room gives besides (it never releases
  // them), so only the receive reserve takes the snapshots.
  for (int run = 0; run < 8; ++run) {
    const int seed = 1 + run % 4;
    const bool greedy = run >= 4;
    SCOPED_TRACE(::testing::Message() << "seed " << seed << (greedy ? ", greedy receiver" : ""));
    ConnectionPair pair(factory, config, conditions, static_cast<uint64_t>(seed));
    std::vector<MessageHandle> held;
    if (greedy) {
      for (MessageHandle h = pair.b.create<Snapshot>(); h; h = pair.b.create<Snapshot>())
        held.push_back(std::move(h));
      ASSERT_FALSE(held.empty());
    }
    constexpr uint32_t kCount = 3000;
    uint32_t queued = 0;
    uint32_t received = 0;
    bool in_order = true;
    int tick = 0;
    for (; tick < 6000 && received < kCount; ++tick) {
      // A full packet of snapshots every fifth tick, a few in between: a lost full packet leaves its gap
      // behind smaller ones that arrive.
      const uint32_t burst = tick % 5 == 0 ? 256 : 40;
      for (uint32_t k = 0; k < burst && queued < kCount; ++k) {
        MessageHandle m = pair.a.create<Snapshot>();
        if (!m) break;
        m.as<Snapshot>()->serial = queued;
        if (!pair.a.send(0, std::move(m))) break;
        ++queued;
      }
      pair.tick(tick * kTick);
      while (MessageHandle m = pair.b.receive(0)) {
        in_order &= m.as<Snapshot>() != nullptr && m.as<Snapshot>()->serial == received;
        ++received;
      }
    }
    EXPECT_TRUE(in_order);
    EXPECT_EQ(received, kCount) << "stalled after " << tick << " ticks";
    EXPECT_EQ(pair.b.error(), ConnectionError::kNone) << pair.b.error_reason();
    std::printf("seed %d%s: %d ticks, %llu packets in order only, %llu refused for the pool\n", seed,
                greedy ? " (greedy)" : "", tick,
                static_cast<unsigned long long>(pair.b.counters().packets_in_order_only),
                static_cast<unsigned long long>(pair.b.counters().packets_pool_exhausted));
    if (!greedy) {
      EXPECT_EQ(pair.b.counters().packets_pool_exhausted, 0u)
          << "a receiver that drains every tick never refuses a packet for the pool";
    }
  }
}

}  // namespace
}  // namespace bitwire
