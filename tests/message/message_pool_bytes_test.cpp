// MessagePool's byte budget: each message at its own type's size, every type aligned, exhaustion counted
// and undone by releases, nothing of a released message in the next, the budget's config refusals, and a
// connection at its budget under a peer's flood refusing packets unacked and recovering.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bitwire/message/connection.hpp"
#include "bitwire/message/message.hpp"
#include "bitwire/sim/link.hpp"
#include "support/test_messages.hpp"

namespace bitwire {
namespace {

using test::kAllTypes;
using test::Numbered;
using test::Small;

template <size_t Size, size_t Align, uint32_t Id>
struct alignas(Align) Raw {
  static constexpr uint32_t kTypeId = Id;
  uint8_t bytes[Size];
  template <typename Stream>
  bool serialize(Stream& stream) {
    return serialize_bits(stream, bytes[0], 8);
  }
};
using Raw1 = Raw<1, 1, 0>;
using Raw8 = Raw<24, 8, 1>;
using Raw16 = Raw<100, 16, 2>;
using Raw32 = Raw<640, 32, 3>;
using Raw4 = Raw<13, 4, 4>;
constexpr MessageTypeInfo kAligned[] = {describe_message<Raw1>("Raw1"), describe_message<Raw8>("Raw8"),
                                        describe_message<Raw16>("Raw16"), describe_message<Raw32>("Raw32"),
                                        describe_message<Raw4>("Raw4")};

TEST(MessagePoolBytes, EachMessageTakesItsOwnTypesSize) {
  const MessageFactory factory(kAllTypes);
  const size_t small = MessagePool::message_bytes(factory, factory.types()[Small::kTypeId]);
  const size_t numbered = MessagePool::message_bytes(factory, factory.types()[Numbered::kTypeId]);
  EXPECT_EQ(small, 24u) << "a 4-byte arena header, a 12-byte SlotState and the 1-byte message, in granules";
  EXPECT_EQ(numbered, 16 + sizeof(Numbered));
  MessagePoolConfig config;
  config.capacity = 100'000;
  config.bytes = static_cast<int>(10 * numbered);
  MessagePool pool(factory, config);
  ASSERT_TRUE(pool.ok()) << pool.error_reason();
  EXPECT_EQ(pool.bytes(), 10 * numbered);
  std::vector<MessageHandle> held;
  for (MessageHandle m = pool.create<Small>(); m; m = pool.create<Small>()) held.push_back(std::move(m));
  EXPECT_EQ(held.size(), 10 * numbered / small) << "a Small takes " << small << " bytes, not " << numbered;
  EXPECT_EQ(pool.exhausted(), 1u);
  EXPECT_EQ(pool.bytes_free(), 0u);
  held.clear();
  EXPECT_EQ(pool.bytes_free(), pool.bytes());
  for (MessageHandle m = pool.create<Numbered>(); m; m = pool.create<Numbered>())
    held.push_back(std::move(m));
  EXPECT_EQ(held.size(), 10u);
  EXPECT_EQ(pool.exhausted(), 2u);
  // Freeing one Numbered makes room for one Numbered or four Smalls, not more.
  held.pop_back();
  EXPECT_EQ(pool.bytes_free(), numbered);
  held.push_back(pool.create<Small>());
  EXPECT_TRUE(held.back());
  EXPECT_FALSE(pool.create<Numbered>()) << "the freed block now holds a Small";
  held.clear();
  EXPECT_EQ(pool.arena().check(), nullptr);
  EXPECT_EQ(pool.arena().largest_free(), pool.arena().granules());
}

// The count cap still holds on a budget with room to spare.
TEST(MessagePoolBytes, CapacityStillCapsTheCount) {
  const MessageFactory factory(kAllTypes);
  MessagePool pool(factory, MessagePoolConfig{3, 0, 1});
  EXPECT_EQ(pool.bytes(), 3 * MessagePool::message_bytes(factory, factory.types()[Numbered::kTypeId]))
      << "bytes 0 with large_messages -1: every message may be the largest";
  MessageHandle a = pool.create<Small>();
  MessageHandle b = pool.create<Small>();
  MessageHandle c = pool.create<Small>();
  ASSERT_TRUE(a && b && c);
  EXPECT_FALSE(pool.create<Small>());
  EXPECT_EQ(pool.exhausted(), 1u);
  EXPECT_GT(pool.bytes_free(), 0u);
  b.reset();
  EXPECT_TRUE(pool.create<Numbered>());
}

// Random creates and releases of types aligned 1 to 32: every message on its alignment, none overlapping
// another (each filled with its own pattern, checked before release), and all bytes back at the end.
TEST(MessagePoolBytes, RandomMixedTypesAreAlignedAndNeverOverlap) {
  const MessageFactory factory(kAligned);
  MessagePoolConfig config;
  config.capacity = 1000;
  config.bytes = 40'000;
  MessagePool pool(factory, config);
  ASSERT_TRUE(pool.ok()) << pool.error_reason();
  std::mt19937 random(7);
  struct Held {
    MessageHandle handle;
    uint8_t pattern;
  };
  std::vector<Held> held;
  uint64_t refused = 0;
  for (int step = 0; step < 20'000; ++step) {
    if (held.empty() || random() % 100 < 55) {
      const auto type = static_cast<uint32_t>(random() % 5);
      MessageHandle m = pool.create(type);
      if (!m) {
        ++refused;
        continue;
      }
      const MessageTypeInfo& info = m.info();
      ASSERT_EQ(reinterpret_cast<uintptr_t>(m.data()) % info.align, 0u) << info.name;
      for (size_t i = 0; i < info.size; ++i)
        ASSERT_EQ(static_cast<uint8_t*>(m.data())[i], 0) << "T() is zeroed";
      const auto pattern = static_cast<uint8_t>(1 + step % 255);
      std::memset(m.data(), pattern, info.size);
      held.push_back({std::move(m), pattern});
    } else {
      const size_t at = random() % held.size();
      const MessageHandle& m = held[at].handle;
      for (size_t i = 0; i < m.info().size; ++i) {
        ASSERT_EQ(static_cast<const uint8_t*>(m.data())[i], held[at].pattern) << "another message wrote here";
      }
      held.erase(held.begin() + static_cast<long>(at));
    }
    ASSERT_EQ(pool.live(), static_cast<int>(held.size()));
  }
  EXPECT_GT(refused, 0u) << "the run reached the budget";
  EXPECT_EQ(pool.exhausted(), refused);
  held.clear();
  EXPECT_EQ(pool.arena().check(), nullptr);
  EXPECT_EQ(pool.bytes_free(), pool.bytes());
  EXPECT_EQ(pool.arena().largest_free(), pool.arena().granules()) << "one free block again";
}

// A released message's bytes never show in the next one, whatever type takes its place.
TEST(MessagePoolBytes, AReleasedMessagesBytesNeverShowInTheNext) {
  const MessageFactory factory(kAligned);
  MessagePoolConfig config;
  config.capacity = 4;
  config.bytes = static_cast<int>(MessagePool::message_bytes(factory, factory.types()[3]));  // one Raw32
  MessagePool pool(factory, config);
  ASSERT_TRUE(pool.ok()) << pool.error_reason();
  {
    MessageHandle m = pool.create<Raw32>();
    ASSERT_TRUE(m);
    std::memset(m.data(), 0xAB, sizeof(Raw32));
  }
  for (uint32_t type = 0; type < 5; ++type) {
    MessageHandle m = pool.create(type);
    ASSERT_TRUE(m);
    for (size_t i = 0; i < m.info().size; ++i) ASSERT_EQ(static_cast<uint8_t*>(m.data())[i], 0) << type;
    std::memset(m.data(), 0xCD, m.info().size);
  }
}

TEST(MessagePoolBytes, ABudgetBelowTheLargestTypeIsRefusedAndRaised) {
  const MessageFactory factory(kAllTypes);
  const size_t numbered = MessagePool::message_bytes(factory, factory.types()[Numbered::kTypeId]);
  MessagePoolConfig config;
  config.bytes = 100;
  ASSERT_TRUE(config.check().ok());
  EXPECT_STREQ(config.check(factory).reason(),
               ("MessagePoolConfig.bytes = 100 is below the receive reserve and one more message of the "
                "factory's largest type (0 + 1 of " +
                std::to_string(numbered) + " bytes with the header: " + std::to_string(numbered) + ")")
                   .c_str());
  EXPECT_EQ(config.sanitized(factory).bytes, static_cast<int>(numbered));
  MessagePool pool(factory, config);
  EXPECT_FALSE(pool.ok());
  EXPECT_EQ(pool.bytes(), numbered);
  EXPECT_TRUE(pool.create<Numbered>());
  // With a receive reserve of 3, the reserve and one more.
  config.bytes = static_cast<int>(4 * numbered - 1);
  config.receive_reserve = 3;
  EXPECT_FALSE(config.check(factory).ok());
  EXPECT_EQ(config.sanitized(factory).bytes, static_cast<int>(4 * numbered));
  config.bytes = static_cast<int>(4 * numbered);
  EXPECT_TRUE(config.check(factory).ok()) << config.check(factory).reason();
  config.receive_reserve = 0;
  config.bytes = -1;
  EXPECT_STREQ(config.check().reason(), "MessagePoolConfig.bytes = -1 is outside [0, 1073741824]");
  ConnectionConfig connection;
  connection.message_pool_bytes = (1 << 30) + 1;
  EXPECT_STREQ(connection.check().reason(),
               "ConnectionConfig.message_pool_bytes = 1073741825 is outside [0, 1073741824]");
  EXPECT_EQ(connection.sanitized().message_pool_bytes, 1 << 30);
}

// The derived budget: every message at the smallest type, 128 and one received packet's (the receive
// reserve, 256) at the largest, at least 256 KiB; a count below the reserve gives the application 64
// messages beside it.
TEST(MessagePoolBytes, TheConnectionsDerivedBudget) {
  const MessageFactory factory(kAligned);
  const size_t smallest = MessagePool::message_bytes(factory, factory.types()[0]);
  const size_t largest = MessagePool::message_bytes(factory, factory.types()[3]);
  ConnectionConfig config;
  const MessagePoolConfig pool = config.message_pool_config(false);
  const auto count = static_cast<size_t>(pool.capacity);
  EXPECT_EQ(count, 2368u);
  EXPECT_EQ(pool.receive_reserve, 256);
  EXPECT_EQ(pool.bytes_for(factory),
            std::max<size_t>(count * smallest + (128 + 256) * (largest - smallest), 256 * 1024));
  config.message_pool_size = 100;
  EXPECT_EQ(config.message_pool_config(false).bytes_for(factory), 164 * largest)
      << "a count below one received packet: the reserve takes all 100 at the largest, and 64 more are the "
         "application's";
  config.message_pool_size = 1000;
  EXPECT_EQ(config.message_pool_config(false).bytes_for(factory),
            1000 * smallest + (128 + 256) * (largest - smallest));
  config.message_pool_bytes = 5000;
  EXPECT_EQ(config.message_pool_config(false).bytes_for(factory), 5000u);
}

// A receiver whose budget holds 12 Numbered, under a peer sending 300 reliably: packets that find no room
// are refused unacked and counted, never an error; as the application receives and releases, the peer's
// resends get in and every message arrives once, in order.
TEST(MessagePoolBytes, AConnectionAtItsBudgetUnderAFloodRecoversWhenMessagesAreReleased) {
  const MessageFactory factory(kAllTypes);
  ConnectionConfig config;
  config.channels[0].max_messages_per_packet = 4;
  ConnectionConfig small = config;
  const size_t numbered = MessagePool::message_bytes(factory, factory.types()[Numbered::kTypeId]);
  small.message_pool_bytes = static_cast<int>(12 * numbered);
  ASSERT_TRUE(small.check().ok()) << small.check().reason();
  Link link(LinkConfig::symmetric(NetworkConditions{}, 1, 4096, 1500));
  Connection sender(factory, config);
  Connection receiver(factory, small);
  ASSERT_TRUE(receiver.ok()) << receiver.error_reason();
  sender.endpoint().set_callbacks(link.callbacks(LinkSide::kA, sender.endpoint_callbacks()));
  receiver.endpoint().set_callbacks(link.callbacks(LinkSide::kB, receiver.endpoint_callbacks()));
  link.connect(sender.endpoint(), receiver.endpoint());
  constexpr uint32_t kCount = 300;
  uint32_t queued = 0;
  double now = 0;
  auto tick = [&] {
    now += 0.01;
    while (queued < kCount) {
      MessageHandle m = sender.create<Numbered>();
      if (!m) break;
      m.as<Numbered>()->serial = queued;
      m.as<Numbered>()->payload.resize(64);
      if (sender.send(0, std::move(m)).result != SendResult::kQueued) break;
      ++queued;
    }
    sender.update(now);
    receiver.update(now);
    link.update(now);
    sender.send_packets();
    receiver.send_packets();
  };
  for (int i = 0; i < 50; ++i) tick();  // nobody receives: the budget fills
  EXPECT_GT(receiver.counters().packets_pool_exhausted, 0u);
  EXPECT_GT(receiver.pool().exhausted(), 0u);
  EXPECT_LT(receiver.pool().bytes_free(), numbered);
  EXPECT_EQ(receiver.error(), ConnectionError::kNone);
  uint32_t next = 0;
  for (int i = 0; i < 20'000 && next < kCount; ++i) {
    tick();
    while (MessageHandle m = receiver.receive(0)) {
      ASSERT_NE(m.as<Numbered>(), nullptr);
      ASSERT_EQ(m.as<Numbered>()->serial, next);
      ++next;
    }
  }
  EXPECT_EQ(next, kCount);
  EXPECT_EQ(receiver.error(), ConnectionError::kNone);
  EXPECT_EQ(sender.error(), ConnectionError::kNone);
  EXPECT_EQ(receiver.pool().live(), 0);
  EXPECT_EQ(receiver.pool().bytes_free(), receiver.pool().bytes());
  EXPECT_EQ(receiver.pool().arena().check(), nullptr);
}

}  // namespace
}  // namespace bitwire
