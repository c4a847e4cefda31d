// Delivery over a simulated network: reliable messages arrive exactly once, in order, byte for byte, at
// 0..99% loss in each direction (so acks are lost too), with latency, jitter, duplicates and reordering;
// message ids wrap; unreliable messages that do not fit are dropped and counted. Nothing leaks.
//
// The caps. 256 small messages fit one packet, so the receiver has them all once one packet that carries
// them gets through. With the default resend time (0.1 s = 6 ticks at 60 Hz, 7 with rounding) a message
// rides every 7th packet, so the chance that none of the first k carrying packets arrives is loss^k; the
// cap is the k that makes that 1e-6, times 7, plus 2 ticks of pipeline:
//   loss     0%    25%   50%   90%   99%
//   k        1     10    20    132   1375
//   cap      2     72    142   926   9627 ticks
// The "256 small messages at 99% loss within 300 ticks" is not a safe cap at a 0.1 s resend time
// (the expected wait is 600 ticks) nor even resending in every packet (1 - 0.99^300 = 95%); resending in
// every packet (message_resend_time = 0) the 1e-6 cap is 1375 ticks, tested below.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "support/connection_pair.hpp"
#include "support/seed.hpp"
#include "support/test_messages.hpp"

namespace bitwire {
namespace {

using test::ConnectionPair;
using test::Numbered;
using test::Small;

constexpr double kTick = 1.0 / 60.0;

int cap_ticks(double loss, int ticks_per_send) {
  if (loss <= 0.0) return 2;
  const int k = static_cast<int>(std::ceil(std::log(1e-6) / std::log(loss)));
  return k * ticks_per_send + 2;
}

struct LossCase {
  double loss_percent;
  double resend_time;
  int ticks_per_send;
};

class ReliableUnderLoss : public ::testing::TestWithParam<LossCase> {};

TEST_P(ReliableUnderLoss, SmallMessagesArriveOnceInOrderWithinTheCap) {
  BITWIRE_SEEDED_TEST_SEED(0x10551u + static_cast<uint64_t>(GetParam().loss_percent * 10));
  const LossCase c = GetParam();
  NetworkConditions conditions;
  conditions.loss_percent = c.loss_percent;
  ConnectionConfig config;
  config.channels[0].message_resend_time = c.resend_time;
  ConnectionPair pair(MessageFactory(test::kAllTypes), config, conditions, seed);

  for (int i = 0; i < 256; ++i) {
    MessageHandle m = pair.a.create<Small>();
    m.as<Small>()->value = static_cast<uint8_t>(i);
    ASSERT_TRUE(pair.a.send(0, std::move(m)));
  }
  const int cap = cap_ticks(c.loss_percent / 100.0, c.ticks_per_send);
  std::vector<int> received;
  int tick = 0;
  for (; tick < cap && received.size() < 256; ++tick) {
    pair.tick(tick * kTick);
    while (MessageHandle m = pair.b.receive(0)) received.push_back(m.as<Small>()->value);
  }
  ASSERT_EQ(received.size(), 256u) << "after " << tick << " ticks (cap " << cap << ")";
  RecordProperty("ticks_to_deliver", tick);
  std::printf("loss %.0f%%: all 256 delivered after %d ticks (cap %d)\n", c.loss_percent, tick, cap);
  for (int i = 0; i < 256; ++i) EXPECT_EQ(received[static_cast<size_t>(i)], i);

  // Keep going until every message is acked (the ack path loses packets too), then check that nothing
  // arrives twice and nothing is left in either pool.
  const int drain_cap = tick + cap_ticks(c.loss_percent / 100.0, 1) * 2;
  for (; tick < drain_cap && pair.a.send_queue_depth(0) > 0; ++tick) {
    pair.tick(tick * kTick);
    EXPECT_FALSE(pair.b.receive(0));
  }
  for (int extra = 0; extra < 60; ++extra, ++tick) {
    pair.tick(tick * kTick);
    EXPECT_FALSE(pair.b.receive(0));
  }
  EXPECT_EQ(pair.a.send_queue_depth(0), 0);
  EXPECT_EQ(pair.a.pool().live(), 0);
  EXPECT_EQ(pair.b.pool().live(), 0);
  EXPECT_EQ(pair.a.error(), ConnectionError::kNone);
  EXPECT_EQ(pair.b.error(), ConnectionError::kNone);
  EXPECT_EQ(pair.b.channel_counters(0).messages_delivered, 256u);
}

INSTANTIATE_TEST_SUITE_P(Loss, ReliableUnderLoss,
                         ::testing::Values(LossCase{0, 0.1, 7}, LossCase{25, 0.1, 7}, LossCase{50, 0.1, 7},
                                           LossCase{90, 0.1, 7}, LossCase{99, 0.1, 7}, LossCase{99, 0.0, 1}),
                         [](const auto& info) {
                           return "Loss" + std::to_string(static_cast<int>(info.param.loss_percent)) +
                                  (info.param.resend_time == 0.0 ? "ResendEveryPacket" : "DefaultResend");
                         });

Numbered make_numbered(uint32_t serial) {
  Numbered n;
  n.serial = serial;
  n.level = static_cast<int32_t>(serial % 101);
  const size_t length = (serial * 7) % 65;
  for (size_t i = 0; i < length; ++i) (void)n.payload.push_back(static_cast<uint8_t>(serial * 31 + i));
  char label[17] = {};
  const int label_length = std::snprintf(label, sizeof label, "m%u", serial % 100000);
  (void)n.label.assign(std::string_view(label, static_cast<size_t>(label_length)));
  return n;
}

// Both directions at once under every impairment but corruption; larger messages (several packets'
// worth queued). Every message arrives once, in order, equal to what was sent.
TEST(ConnectionDelivery, LatencyJitterDuplicatesReorderingBothWays) {
  BITWIRE_SEEDED_TEST_SEED(0xbadbeefu);
  NetworkConditions conditions;
  conditions.latency_ms = 100;
  conditions.jitter_ms = 50;
  conditions.loss_percent = 20;
  conditions.duplicate_percent = 25;
  conditions.reorder_percent = 25;
  conditions.reorder_delay_ms = 60;
  ConnectionConfig config;
  ConnectionPair pair(MessageFactory(test::kAllTypes), config, conditions, seed);

  constexpr uint32_t kCount = 3000;
  uint32_t sent[2] = {0, 0};
  uint32_t received[2] = {0, 0};
  Connection* sides[2] = {&pair.a, &pair.b};
  int tick = 0;
  // 3000 messages at up to 20 a tick is 150 ticks of sending; at 20% loss with 300 ms RTT the window
  // drains within a few seconds more. 3000 ticks (50 s) is far beyond what a correct channel needs.
  for (; tick < 3000 && (received[0] < kCount || received[1] < kCount); ++tick) {
    for (int s = 0; s < 2; ++s) {
      for (int k = 0; k < 20 && sent[s] < kCount; ++k) {
        MessageHandle m = sides[s]->create<Numbered>();
        *m.as<Numbered>() = make_numbered(sent[s]);
        const SendStatus status = sides[s]->send(0, std::move(m));
        if (status.result == SendResult::kQueueFull) break;
        ASSERT_TRUE(status) << to_string(status.result);
        ++sent[s];
      }
    }
    pair.tick(tick * kTick);
    for (int s = 0; s < 2; ++s) {
      while (MessageHandle m = sides[1 - s]->receive(0)) {
        ASSERT_TRUE(*m.as<Numbered>() == make_numbered(received[s])) << "direction " << s << " message " << received[s];
        ++received[s];
      }
    }
  }
  EXPECT_EQ(received[0], kCount);
  EXPECT_EQ(received[1], kCount);
  EXPECT_GT(pair.link.leaving(LinkSide::kA).stats().duplicated, 0u);
  EXPECT_GT(pair.link.leaving(LinkSide::kA).stats().reordered, 0u);
  EXPECT_GT(pair.b.channel_counters(0).messages_duplicate + pair.a.channel_counters(0).messages_resent, 0u);
  EXPECT_EQ(pair.a.error(), ConnectionError::kNone);
  EXPECT_EQ(pair.b.error(), ConnectionError::kNone);
}

// 140,000 messages: the 16-bit message id wraps twice on both the send and the receive side.
TEST(ConnectionDelivery, MessageIdsWrapTwice) {
  BITWIRE_SEEDED_TEST_SEED(0x3a9u);
  NetworkConditions conditions;
  conditions.loss_percent = 10;
  ConnectionConfig config;
  ConnectionPair pair(MessageFactory(test::kAllTypes), config, conditions, seed);
  constexpr uint32_t kCount = 140000;
  uint32_t sent = 0;
  uint32_t received = 0;
  // At most 256 messages a packet and a 1024-id window: about 240 a tick at 10% loss; 2000 ticks is
  // more than three times what is needed.
  for (int tick = 0; tick < 2000 && received < kCount; ++tick) {
    while (sent < kCount && pair.a.channel(0).can_send()) {
      MessageHandle m = pair.a.create<Small>();
      m.as<Small>()->value = static_cast<uint8_t>(sent * 13);
      ASSERT_TRUE(pair.a.send(0, std::move(m)));
      ++sent;
    }
    pair.tick(tick * kTick);
    while (MessageHandle m = pair.b.receive(0)) {
      ASSERT_EQ(m.as<Small>()->value, static_cast<uint8_t>(received * 13)) << received;
      ++received;
    }
  }
  EXPECT_EQ(received, kCount);
  EXPECT_EQ(pair.b.channel_counters(0).messages_delivered, kCount);
}

// A real sender's packet whose ids run across the wrap (65530 .. 65535, 0 .. 5) is taken whole: the
// reader refuses ids that step back or span the receive window, never a step lifted across the wrap.
TEST(ConnectionDelivery, APacketOfIdsAcrossTheWrapIsTaken) {
  ConnectionConfig config;
  ConnectionPair pair(MessageFactory(test::kAllTypes), config, NetworkConditions{}, 7);
  constexpr uint32_t kBefore = 65530;
  uint32_t sent = 0;
  uint32_t received = 0;
  int tick = 0;
  const auto drain = [&] {
    while (MessageHandle m = pair.b.receive(0)) {
      ASSERT_EQ(m.as<Small>()->value, static_cast<uint8_t>(received * 7)) << received;
      ++received;
    }
  };
  // Lossless: 256 messages a packet, acked the next tick, so the queue is empty once all have arrived.
  for (; tick < 2000 && (received < kBefore || pair.a.send_queue_depth(0) > 0); ++tick) {
    while (sent < kBefore && pair.a.channel(0).can_send()) {
      MessageHandle m = pair.a.create<Small>();
      m.as<Small>()->value = static_cast<uint8_t>(sent * 7);
      ASSERT_TRUE(pair.a.send(0, std::move(m)));
      ++sent;
    }
    pair.tick(tick * kTick);
    drain();
  }
  ASSERT_EQ(received, kBefore);
  ASSERT_EQ(pair.a.send_queue_depth(0), 0);

  for (; sent < kBefore + 12; ++sent) {
    MessageHandle m = pair.a.create<Small>();
    m.as<Small>()->value = static_cast<uint8_t>(sent * 7);
    ASSERT_TRUE(pair.a.send(0, std::move(m)));
  }
  const uint64_t processed = pair.b.counters().packets_processed;
  const uint64_t messages_sent = pair.a.channel_counters(0).messages_sent;
  pair.a.send_packets();  // one packet: ids 65530 .. 5
  EXPECT_EQ(pair.a.channel_counters(0).messages_sent, messages_sent + 12);
  pair.tick(tick * kTick);
  drain();
  EXPECT_EQ(received, kBefore + 12);
  EXPECT_GT(pair.b.counters().packets_processed, processed);
  EXPECT_EQ(pair.b.counters().packets_invalid, 0u);
  EXPECT_EQ(pair.b.error(), ConnectionError::kNone);
}

// Unreliable: what fits the packet goes, the rest is dropped and counted; nothing lingers.
TEST(ConnectionDelivery, UnreliableMessagesThatDoNotFitAreDroppedAndCounted) {
  ConnectionConfig config;
  config.max_packet_size = 64;  // 512 bits: about six 70-bit Numbered messages
  config.channels[0].type = ChannelType::kUnreliableUnordered;
  ConnectionPair pair(MessageFactory(test::kAllTypes), config, NetworkConditions{}, 1);
  for (uint32_t i = 0; i < 20; ++i) {
    MessageHandle m = pair.a.create<Numbered>();
    m.as<Numbered>()->serial = i;
    ASSERT_TRUE(pair.a.send(0, std::move(m)));
  }
  pair.tick(0.0);
  pair.tick(kTick);
  std::vector<uint32_t> got;
  while (MessageHandle m = pair.b.receive(0)) got.push_back(m.as<Numbered>()->serial);
  const ChannelCounters& sender = pair.a.channel_counters(0);
  EXPECT_GT(got.size(), 0u);
  EXPECT_LT(got.size(), 20u);
  EXPECT_EQ(sender.messages_sent + sender.messages_dropped, 20u);
  EXPECT_EQ(sender.messages_sent, got.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], i);  // the first ones, in queue order
  EXPECT_EQ(pair.a.send_queue_depth(0), 0);
  EXPECT_EQ(pair.a.pool().live(), 0);
  EXPECT_EQ(pair.b.pool().live(), 0);
}

// Unreliable block messages carry their block inline, byte for byte.
TEST(ConnectionDelivery, UnreliableBlockMessageCarriesItsBlock) {
  ConnectionConfig config;
  config.channels[0].type = ChannelType::kUnreliableUnordered;
  config.channels[0].max_block_size = 512;
  config.channels[0].block_fragment_size = 512;
  ConnectionPair pair(MessageFactory(test::kAllTypes), config, NetworkConditions{}, 1);
  MessageHandle m = pair.a.create<test::WithBlock>();
  m.as<test::WithBlock>()->tag = 9;
  std::vector<std::byte> block(300);
  for (size_t i = 0; i < block.size(); ++i) block[i] = static_cast<std::byte>(i * 7);
  ASSERT_TRUE(m.attach_block(block));
  ASSERT_TRUE(pair.a.send(0, std::move(m)));
  pair.tick(0.0);
  pair.tick(kTick);
  MessageHandle got = pair.b.receive(0);
  ASSERT_TRUE(got);
  EXPECT_EQ(got.as<test::WithBlock>()->tag, 9);
  ASSERT_EQ(got.block().size(), block.size());
  EXPECT_TRUE(std::equal(block.begin(), block.end(), got.block().begin()));
  EXPECT_EQ(pair.b.channel_counters(0).blocks_received, 1u);
  got.reset();
  EXPECT_EQ(pair.b.pool().blocks_live(), 0);
  EXPECT_EQ(pair.a.pool().blocks_live(), 0);
}

// Priorities and budgets: the higher-priority channel fills the packet first; a channel's own budget
// caps its share.
TEST(ConnectionDelivery, PriorityFillsFirstAndBudgetCapsAChannel) {
  ConnectionConfig config;
  config.max_packet_size = 100;  // 800 bits
  config.channel_count = 2;
  config.channels[0].type = ChannelType::kUnreliableUnordered;
  config.channels[1].type = ChannelType::kUnreliableUnordered;
  config.channels[1].priority = 10;
  ConnectionPair pair(MessageFactory(test::kAllTypes), config, NetworkConditions{}, 1);
  for (int i = 0; i < 40; ++i) {
    for (int ch = 0; ch < 2; ++ch) {
      MessageHandle m = pair.a.create<Numbered>();
      ASSERT_TRUE(pair.a.send(ch, std::move(m)));
    }
  }
  pair.tick(0.0);
  const uint64_t low = pair.a.channel_counters(0).messages_sent;
  const uint64_t high = pair.a.channel_counters(1).messages_sent;
  EXPECT_GT(high, low);  // channel 1 has priority and took the packet first
  EXPECT_GT(high, 0u);

  ConnectionConfig budgeted = config;
  budgeted.channels[1].packet_budget_bytes = 20;  // 160 bits: two Numbered messages at most
  ConnectionPair second(MessageFactory(test::kAllTypes), budgeted, NetworkConditions{}, 1);
  for (int i = 0; i < 40; ++i) {
    for (int ch = 0; ch < 2; ++ch) ASSERT_TRUE(second.a.send(ch, second.a.create<Numbered>()));
  }
  second.tick(0.0);
  EXPECT_LE(second.a.channel_counters(1).messages_sent, 2u);
  EXPECT_GT(second.a.channel_counters(0).messages_sent, second.a.channel_counters(1).messages_sent);
}

}  // namespace
}  // namespace bitwire

namespace bitwire {
namespace {

// Every ring of a reliable channel at its smallest and largest legal capacity (kChannelConfigLimits), with
// real traffic on a lossless link both ways: 64 messages each way arrive once, in order, and are acked.
// Cap: a queue of one moves a message per round trip (the link has no latency: a send, the peer's
// answer with the ack, the next send: 3 ticks), so 64 messages take at most 64 x 3 ticks; 600 allows for
// the resend time. No loss, so a slower run is a stall, not bad luck.
TEST(ChannelBuffers, EveryRingAtItsSmallestAndLargestCapacityDeliversInOrder) {
  struct Case {
    const char* name;
    int ChannelConfig::*member;
    int value;
  };
  const Case cases[] = {
      {"send_queue_size", &ChannelConfig::send_queue_size, 1},
      {"send_queue_size", &ChannelConfig::send_queue_size, 65536},
      {"receive_queue_size", &ChannelConfig::receive_queue_size, 1},
      {"receive_queue_size", &ChannelConfig::receive_queue_size, 32768},
      {"sent_packets_buffer_size", &ChannelConfig::sent_packets_buffer_size, 2},  // 1 is refused: below
      {"sent_packets_buffer_size", &ChannelConfig::sent_packets_buffer_size, 32768},
      {"max_messages_per_packet", &ChannelConfig::max_messages_per_packet, 1},
      {"max_messages_per_packet", &ChannelConfig::max_messages_per_packet, 4096},
      {"sent_message_ids", &ChannelConfig::sent_message_ids, 256},  // its smallest: max_messages_per_packet
      {"sent_message_ids", &ChannelConfig::sent_message_ids, 1 << 24},
  };
  // One sent-packet record: both ends send, each is then held by the in-flight limit until a probe, and
  // each probe overwrites the record of the packet the peer's probe acks: messages arrive but are never
  // acked (resent forever). check() refuses it, as it refuses the endpoint's.
  {
    ConnectionConfig config;
    config.channels[0].sent_packets_buffer_size = 1;
    ASSERT_FALSE(config.check().ok());
    EXPECT_NE(std::string(config.check().reason()).find("sent_packets_buffer_size = 1"), std::string::npos)
        << config.check().reason();
  }
  for (const Case& c : cases) {
    ConnectionConfig config;
    config.channels[0].*c.member = c.value;
    if (c.member == &ChannelConfig::max_messages_per_packet) config.channels[0].sent_message_ids = std::max(16384, c.value);
    ASSERT_TRUE(config.check().ok()) << c.name << " = " << c.value << ": " << config.check().reason();
    ConnectionPair pair(MessageFactory(test::kAllTypes), config, NetworkConditions{}, 1);
    Connection* sides[2] = {&pair.a, &pair.b};
    int sent[2] = {0, 0};
    int received[2] = {0, 0};
    int tick = 0;
    for (; tick < 600 && (received[0] < 64 || received[1] < 64 || pair.a.send_queue_depth(0) > 0 ||
                          pair.b.send_queue_depth(0) > 0);
         ++tick) {
      for (int s = 0; s < 2; ++s) {
        while (sent[s] < 64 && sides[s]->channel(0).can_send()) {
          MessageHandle m = sides[s]->create<Small>();
          ASSERT_TRUE(m) << c.name << " = " << c.value;
          m.as<Small>()->value = static_cast<uint8_t>(sent[s]);
          ASSERT_TRUE(sides[s]->send(0, std::move(m))) << c.name << " = " << c.value;
          ++sent[s];
        }
      }
      pair.tick(tick * kTick);
      for (int s = 0; s < 2; ++s) {
        while (MessageHandle m = sides[1 - s]->receive(0)) {
          EXPECT_EQ(m.as<Small>()->value, received[s]) << c.name << " = " << c.value;
          ++received[s];
        }
      }
    }
    for (int s = 0; s < 2; ++s) {
      EXPECT_EQ(received[s], 64) << c.name << " = " << c.value << ", direction " << s << " after " << tick << " ticks";
      EXPECT_EQ(sides[s]->send_queue_depth(0), 0) << c.name << " = " << c.value << ": not all acked";
      EXPECT_EQ(sides[s]->error(), ConnectionError::kNone) << c.name << " = " << c.value << ": " << sides[s]->error_reason();
    }
    std::printf("%s = %d: 64 messages each way delivered and acked in %d ticks\n", c.name, c.value, tick);
  }
}

}  // namespace
}  // namespace bitwire
