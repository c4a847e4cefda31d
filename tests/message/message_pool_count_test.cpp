// The message pool's count beside its bytes: the receive reserve keeps its messages' share of the count
// (an application holding every handle it can create still receives), what holding a received message
// costs, and the block message slots' bytes stay within their cap.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "bitwire/core/log.hpp"
#include "bitwire/message/connection.hpp"
#include "bitwire/message/message.hpp"
#include "support/connection_pair.hpp"
#include "support/test_messages.hpp"

namespace bitwire {
namespace {

using test::ConnectionPair;
using test::kAllTypes;
using test::Numbered;
using test::Small;

constexpr double kTick = 1.0 / 60.0;

// The count is shared by the application's room and the receive reserve: create() stops where what is left
// is the reserve's messages, so the packet reader can still create one received packet's messages.
TEST(PoolCount, TheApplicationLeavesTheReserveItsShareOfTheCount) {
  const MessageFactory factory(kAllTypes);
  MessagePoolConfig config;
  config.capacity = 100;
  config.receive_reserve = 30;
  config.bytes = 1 << 20;  // bytes to spare: only the count limits
  MessagePool pool(factory, config);
  ASSERT_TRUE(pool.ok()) << pool.error_reason();
  std::vector<MessageHandle> held;
  for (MessageHandle m = pool.create<Small>(); m; m = pool.create<Small>()) held.push_back(std::move(m));
  EXPECT_EQ(held.size(), 70u) << "the count less the reserve's 30";
  for (int i = 0; i < 30; ++i) {
    held.push_back(pool.create_received(Numbered::kTypeId));
    ASSERT_TRUE(held.back()) << "received message " << i;
  }
  EXPECT_EQ(pool.live(), 100);
  EXPECT_FALSE(pool.create_received(Small::kTypeId)) << "the count is the count";
  held.clear();
  EXPECT_EQ(pool.live(), 0);
}

// A count given below the reserve's messages and 64 still leaves the application 64 of it (the derived
// budget's room beside such a reserve); the count then may hold a packet back, as the docs say.
TEST(PoolCount, ACountBelowTheReserveAndSixtyFourLeavesTheApplicationSixtyFour) {
  const MessageFactory factory(kAllTypes);
  MessagePoolConfig config;
  config.capacity = 96;
  config.receive_reserve = 256;
  MessagePool pool(factory, config);
  std::vector<MessageHandle> held;
  for (MessageHandle m = pool.create<Small>(); m; m = pool.create<Small>()) held.push_back(std::move(m));
  EXPECT_EQ(held.size(), 64u);
  held.clear();
}

// The reviewer's case: on the default connection the application creates until refused and keeps every
// handle. The peer's messages must all still arrive (the count left for the reserve takes them).
TEST(PoolCount, AnApplicationHoldingEveryHandleStillReceivesEverything) {
  const MessageFactory factory(kAllTypes);
  const ConnectionConfig config;
  ConnectionPair pair(factory, config, NetworkConditions{}, 11);
  std::vector<MessageHandle> held;
  for (MessageHandle m = pair.b.create<Small>(); m; m = pair.b.create<Small>()) held.push_back(std::move(m));
  ASSERT_GT(held.size(), 0u);
  EXPECT_LT(static_cast<int>(held.size()), pair.b.pool().capacity()) << "the reserve keeps its share";
  constexpr uint32_t kCount = 600;
  uint32_t queued = 0;
  uint32_t received = 0;
  bool in_order = true;
  for (int tick = 0; tick < 3000 && received < kCount; ++tick) {
    while (queued < kCount) {
      MessageHandle m = pair.a.create<Numbered>();
      if (!m) break;
      m.as<Numbered>()->serial = queued;
      if (pair.a.send(0, std::move(m)).result != SendResult::kQueued) break;
      ++queued;
    }
    pair.tick(tick * kTick);
    while (MessageHandle m = pair.b.receive(0)) {
      in_order &= m.as<Numbered>() != nullptr && m.as<Numbered>()->serial == received;
      ++received;
    }
  }
  EXPECT_TRUE(in_order);
  EXPECT_EQ(received, kCount) << "packets refused for the pool: " << pair.b.counters().packets_pool_exhausted;
  EXPECT_EQ(pair.b.error(), ConnectionError::kNone) << pair.b.error_reason();
  held.clear();
}

// A received message the application holds stays where the packet reader created it (receive() does not
// move it: an application holding received messages in its own room could no longer send on the one still
// in the reserve, PoolLiveness.APeerSendingOnWhatItReceivesKeepsTheReserve). Holding it costs the reserve
// its bytes until it is released: a packet of the channel's most messages of the largest type no longer
// fits the reserve alone and takes the application's room for the rest, and with that full it is refused
// (kPoolExhausted, resent by the peer) until the application releases.
TEST(PoolCount, AHeldReceivedMessageCostsTheReserveUntilReleased) {
  const MessageFactory factory(kAllTypes);
  const size_t numbered = MessagePool::message_bytes(factory, factory.types()[Numbered::kTypeId]);
  ConnectionConfig config;
  config.channels[0].max_messages_per_packet = 8;
  config.message_pool_bytes = static_cast<int>(16 * numbered);  // the reserve of 8 and a room of 8
  ConnectionPair pair(factory, config, NetworkConditions{}, 5);
  ASSERT_TRUE(pair.b.ok()) << pair.b.error_reason();
  const auto send_numbered = [&](uint32_t count) {
    for (uint32_t i = 0; i < count; ++i) {
      MessageHandle m = pair.a.create<Numbered>();
      ASSERT_TRUE(m);
      m.as<Numbered>()->serial = i;
      ASSERT_EQ(pair.a.send(0, std::move(m)).result, SendResult::kQueued);
    }
  };
  send_numbered(1);
  MessageHandle held;
  int tick = 0;
  for (; tick < 60 && !held; ++tick) {
    pair.tick(tick * kTick);
    held = pair.b.receive(0);
  }
  ASSERT_TRUE(held);
  EXPECT_TRUE(pair.b.pool().in_receive_reserve(held));
  EXPECT_EQ(pair.b.pool().receive_reserve_free(), pair.b.pool().receive_reserve_bytes() - numbered);
  for (int i = 0; i < 10; ++i, ++tick) pair.tick(tick * kTick);  // a's first message acked and released
  ASSERT_EQ(pair.a.pool().live(), 0);

  // The application's room full: a packet of 8 Numbered needs the held message's bytes.
  std::vector<MessageHandle> room;
  for (MessageHandle h = pair.b.create<Numbered>(); h; h = pair.b.create<Numbered>())
    room.push_back(std::move(h));
  ASSERT_EQ(room.size(), 8u) << "the budget less the reserve of 8";
  send_numbered(8);
  std::vector<MessageHandle> got;
  const uint64_t refused_before = pair.b.counters().packets_pool_exhausted;
  for (int i = 0; i < 30; ++i, ++tick) {
    pair.tick(tick * kTick);
    while (MessageHandle h = pair.b.receive(0)) got.push_back(std::move(h));
  }
  EXPECT_EQ(got.size(), 0u) << "the packet does not fit while the message is held";
  EXPECT_GT(pair.b.counters().packets_pool_exhausted, refused_before);
  held.reset();
  for (int i = 0; i < 60 && got.size() < 8; ++i, ++tick) {
    pair.tick(tick * kTick);
    while (MessageHandle h = pair.b.receive(0)) got.push_back(std::move(h));
  }
  EXPECT_EQ(got.size(), 8u) << "released, the reserve takes the packet";
  EXPECT_EQ(pair.b.error(), ConnectionError::kNone);
  got.clear();
  room.clear();
}

// A type whose move constructor may throw gets no relocate: a throwing move would leave the new bytes
// taken and the message in both places.
struct ThrowingMove {
  static constexpr uint32_t kTypeId = 0;
  uint8_t value = 0;
  ThrowingMove() = default;
  ThrowingMove(ThrowingMove&& other) noexcept(false) : value(other.value) {}
  template <typename Stream>
  bool serialize(Stream& stream) {
    return serialize_bits(stream, value, 8);
  }
};

TEST(PoolCount, OnlyANothrowMoveRelocates) {
  EXPECT_EQ(describe_message<ThrowingMove>("ThrowingMove").relocate, nullptr);
  EXPECT_NE(describe_message<Numbered>("Numbered").relocate, nullptr);
}

// A received message of a type without a nothrow move is still sent on from the reserve when the
// application's room has space: copied through its serialize functions, it leaves the reserve, and the
// peer gets what was received.
constexpr MessageTypeInfo kThrowingTypes[] = {describe_message<ThrowingMove>("ThrowingMove")};

TEST(PoolCount, ATypeWithoutANothrowMoveIsSentOnFromTheReserveByCopy) {
  const MessageFactory factory(kThrowingTypes);
  const ConnectionConfig config;
  ConnectionPair pair(factory, config, NetworkConditions{}, 13);
  ASSERT_TRUE(pair.b.ok()) << pair.b.error_reason();
  MessageHandle m = pair.a.create<ThrowingMove>();
  m.as<ThrowingMove>()->value = 77;
  ASSERT_EQ(pair.a.send(0, std::move(m)).result, SendResult::kQueued);
  MessageHandle got;
  int tick = 0;
  for (; tick < 60 && !got; ++tick) {
    pair.tick(tick * kTick);
    got = pair.b.receive(0);
  }
  ASSERT_TRUE(got);
  ASSERT_TRUE(pair.b.pool().in_receive_reserve(got));
  const SendStatus status = pair.b.send(0, std::move(got));
  ASSERT_EQ(status.result, SendResult::kQueued) << (status.limit != nullptr ? status.limit : "");
  EXPECT_EQ(pair.b.pool().receive_reserve_free(), pair.b.pool().receive_reserve_bytes());
  MessageHandle echo;
  for (int i = 0; i < 60 && !echo; ++i, ++tick) {
    pair.tick(tick * kTick);
    echo = pair.a.receive(0);
  }
  ASSERT_TRUE(echo);
  EXPECT_EQ(echo.as<ThrowingMove>()->value, 77);
}

// send() moves a received message out of the reserve only as its last step: a send refused for another
// reason (here a full send queue) leaves it where it was, so a pointer into it stays valid; an unreliable
// send does not move it at all (nothing it does waits on the peer).
TEST(PoolCount, ARefusedOrUnreliableSendLeavesAReceivedMessageWhereItIs) {
  const MessageFactory factory(kAllTypes);
  ConnectionConfig config;
  config.channel_count = 2;
  config.channels[0].send_queue_size = 2;
  config.channels[1].type = ChannelType::kUnreliableUnordered;
  ConnectionPair pair(factory, config, NetworkConditions{}, 9);
  ASSERT_TRUE(pair.b.ok()) << pair.b.error_reason();
  for (uint32_t i = 0; i < 2; ++i) {
    MessageHandle m = pair.a.create<Numbered>();
    m.as<Numbered>()->serial = i;
    ASSERT_EQ(pair.a.send(0, std::move(m)).result, SendResult::kQueued);
  }
  std::vector<MessageHandle> got;
  for (int tick = 0; tick < 60 && got.size() < 2; ++tick) {
    pair.tick(tick * kTick);
    while (MessageHandle h = pair.b.receive(0)) got.push_back(std::move(h));
  }
  ASSERT_EQ(got.size(), 2u);
  ASSERT_TRUE(pair.b.pool().in_receive_reserve(got[0]));
  for (int i = 0; i < 2; ++i) ASSERT_EQ(pair.b.send(0, pair.b.create<Small>()).result, SendResult::kQueued);
  const Numbered* before = got[0].as<Numbered>();
  const SendStatus full = pair.b.send(0, std::move(got[0]));
  EXPECT_EQ(full.result, SendResult::kQueueFull);
  ASSERT_TRUE(got[0]);
  EXPECT_TRUE(pair.b.pool().in_receive_reserve(got[0])) << "a refused send does not move the message";
  EXPECT_EQ(got[0].as<Numbered>(), before);
  EXPECT_EQ(before->serial, 0u);

  const uint32_t room_free = pair.b.pool().arena().granules_free();
  const size_t reserve_free = pair.b.pool().receive_reserve_free();
  ASSERT_EQ(pair.b.send(1, std::move(got[1])).result, SendResult::kQueued);
  EXPECT_EQ(pair.b.pool().arena().granules_free(), room_free) << "an unreliable send takes no room";
  EXPECT_EQ(pair.b.pool().receive_reserve_free(), reserve_free);
  got.clear();
}

// A reliable channel's share of the receive reserve is the most ids a correct sender has in flight, its
// receive_queue_size, when that is below max_messages_per_packet; an unreliable channel's is
// max_messages_per_packet. With that smaller reserve, an application holding its whole room still
// receives everything in order under loss.
TEST(PoolCount, AReliableChannelsReserveIsAtMostItsReceiveWindow) {
  ConnectionConfig config;
  config.channel_count = 2;
  config.channels[0].receive_queue_size = 8;
  config.channels[1].type = ChannelType::kUnreliableUnordered;
  config.channels[1].receive_queue_size = 8;
  config.channels[1].max_messages_per_packet = 16;
  EXPECT_EQ(config.message_pool_config(false).receive_reserve, 8 + 16);

  const MessageFactory factory(kAllTypes);
  const size_t numbered = MessagePool::message_bytes(factory, factory.types()[Numbered::kTypeId]);
  config.channel_count = 1;
  config.message_pool_bytes = static_cast<int>(16 * numbered);  // the reserve of 8 and a room of 8
  NetworkConditions conditions;
  conditions.loss_percent = 20;
  for (int seed = 1; seed <= 4; ++seed) {
    SCOPED_TRACE(seed);
    ConnectionPair pair(factory, config, conditions, static_cast<uint64_t>(seed));
    ASSERT_TRUE(pair.b.ok()) << pair.b.error_reason();
    EXPECT_EQ(pair.b.pool().receive_reserve_bytes(), 8 * numbered);
    std::vector<MessageHandle> room;
    for (MessageHandle h = pair.b.create<Numbered>(); h; h = pair.b.create<Numbered>())
      room.push_back(std::move(h));
    uint32_t queued = 0;
    uint32_t received = 0;
    bool in_order = true;
    for (int tick = 0; tick < 20'000 && received < 400; ++tick) {
      while (queued < 400) {
        MessageHandle m = queued % 3 == 0 ? pair.a.create<Numbered>() : pair.a.create<Small>();
        if (!m) break;
        if (Numbered* n = m.as<Numbered>()) n->serial = queued;
        if (Small* small = m.as<Small>()) small->value = static_cast<uint8_t>(queued);
        if (pair.a.send(0, std::move(m)).result != SendResult::kQueued) break;
        ++queued;
      }
      pair.tick(tick * kTick);
      while (MessageHandle m = pair.b.receive(0)) {
        in_order &= received % 3 == 0
                        ? m.as<Numbered>() != nullptr && m.as<Numbered>()->serial == received
                        : m.as<Small>() != nullptr && m.as<Small>()->value == static_cast<uint8_t>(received);
        ++received;
      }
    }
    EXPECT_TRUE(in_order);
    EXPECT_EQ(received, 400u);
    EXPECT_EQ(pair.b.error(), ConnectionError::kNone) << pair.b.error_reason();
  }
}

// A block type of 32 MiB and 1,024 block message slots: the slots' bytes (in size_t) pass the pool's cap.
// The config is refused for that factory, sanitized to the most slots that fit, and what a pool of it
// allocates covers every slot.
struct HugeBlock {
  static constexpr uint32_t kTypeId = 0;
  static constexpr bool kHasBlock = true;
  uint8_t bytes[32u << 20] = {};
  template <typename Stream>
  bool serialize(Stream& stream) {
    return serialize_bits(stream, bytes[0], 8);
  }
};
constexpr MessageTypeInfo kHugeBlockTypes[] = {describe_message<HugeBlock>("HugeBlock")};

TEST(PoolCount, BlockMessageSlotsPastTheCapAreRefusedNotWrapped) {
  const MessageFactory factory(kHugeBlockTypes);
  const size_t slot = MessagePool::message_bytes(factory, factory.types()[0]);
  const auto fitting = static_cast<int>(kMaxMessageSlotBytes / slot);
  MessagePoolConfig config;
  config.capacity = 1;
  config.block_messages = 1024;
  const ConfigCheck refused = config.check(factory);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(std::string(refused.reason()).find("block_messages = 1024"), std::string::npos)
      << refused.reason();
  EXPECT_EQ(config.sanitized(factory).block_messages, fitting);
  EXPECT_GE(MessagePool::memory_required(factory, config), static_cast<size_t>(fitting) * slot)
      << "every slot the pool keeps is allocated";
  EXPECT_LE(MessagePool::memory_required(factory, config), 2 * kMaxMessageSlotBytes);
  config.block_messages = fitting;
  EXPECT_TRUE(config.check(factory).ok()) << config.check(factory).reason();
  config.block_messages = fitting + 1;
  EXPECT_FALSE(config.check(factory).ok());
}

// A count below the receive reserve and the application's 64 is valid (check() passes) but warned
// about: the application's room takes part of the reserve's share.
TEST(PoolCountWarning, ACountBelowTheReserveAndSixtyFourIsWarnedAbout) {
  MessagePoolConfig pool;
  pool.receive_reserve = 30;
  pool.capacity = 94;
  EXPECT_TRUE(pool.count_warning());
  pool.capacity = 93;
  const ConfigCheck warning = pool.count_warning();
  ASSERT_FALSE(warning);
  EXPECT_TRUE(pool.check()) << "a warning, not a refusal";
  EXPECT_NE(std::string(warning.reason()).find("30 + 64 = 94"), std::string::npos) << warning.reason();
  EXPECT_NE(std::string(warning.reason()).find("takes 1 of the reserve's share"), std::string::npos)
      << warning.reason();
  pool.capacity = 10;  // the reserve's share is the whole count, all of which the room may take
  EXPECT_NE(std::string(pool.count_warning().reason()).find("takes 10 of the reserve's share"),
            std::string::npos)
      << pool.count_warning().reason();

  // The derived count always holds both.
  ConnectionConfig config;
  EXPECT_TRUE(config.message_pool_config(true, false).count_warning());
  config.message_pool_size = 96;  // stack_bench's count under the default channel: a reserve of 256
  EXPECT_FALSE(config.message_pool_config(true, false).count_warning());

  // The pool says so in the log when built.
  struct Lines {
    std::vector<std::string> warnings;
  } lines;
  const LogLevel level = log_level();
  set_log_level(LogLevel::kWarning);
  set_log_sink(
      [](void* context, LogLevel at, const char* message) {
        if (at == LogLevel::kWarning) static_cast<Lines*>(context)->warnings.emplace_back(message);
      },
      &lines);
  {
    const Connection connection(MessageFactory(kAllTypes), config);
    EXPECT_TRUE(connection.ok()) << connection.error_reason();
  }
  set_log_sink(nullptr);
  set_log_level(level);
  ASSERT_EQ(lines.warnings.size(), 1u);
  EXPECT_NE(lines.warnings[0].find("message pool: MessagePoolConfig.capacity = 96"), std::string::npos)
      << lines.warnings[0];
}

}  // namespace
}  // namespace bitwire
