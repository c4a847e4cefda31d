// The default slot of a game with one large message type (a ~640-byte snapshot among small inputs and
// events, as bench/stack_bench's): its message pool holds each message at its own type's size, so the slot
// stays within a megabyte with and without a block type, and 4,096 slots fit the server's cap.
#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "bitwire/message/connection.hpp"
#include "bitwire/message/message.hpp"
#include "bitwire/serialize/fixed_vector.hpp"
#include "bitwire/serialize/serialize.hpp"
#include "bitwire/stack/server.hpp"
#include "bitwire/stack/stack_config.hpp"
#include "bitwire/transport/transport.hpp"
#include "support/test_messages.hpp"

namespace bitwire {
namespace {

struct Input {
  static constexpr uint32_t kTypeId = 0;
  FixedVector<uint8_t, 32> bytes;
  template <typename Stream>
  bool serialize(Stream& stream) {
    auto count = static_cast<uint32_t>(bytes.size());
    BITWIRE_TRY(serialize_count(stream, count, 0u, 32u));
    if constexpr (Stream::kIsReading) bytes.resize(count);
    return serialize_bytes(stream, bytes.data(), count);
  }
};

struct Snapshot {
  static constexpr uint32_t kTypeId = 1;
  FixedVector<uint8_t, 640> bytes;
  template <typename Stream>
  bool serialize(Stream& stream) {
    auto count = static_cast<uint32_t>(bytes.size());
    BITWIRE_TRY(serialize_count(stream, count, 0u, 640u));
    if constexpr (Stream::kIsReading) bytes.resize(count);
    return serialize_bytes(stream, bytes.data(), count);
  }
};

struct GameEvent {
  static constexpr uint32_t kTypeId = 2;
  uint32_t serial = 0;
  FixedVector<uint8_t, 32> text;
  template <typename Stream>
  bool serialize(Stream& stream) {
    BITWIRE_TRY(serialize_bits(stream, serial, 32));
    auto count = static_cast<uint32_t>(text.size());
    BITWIRE_TRY(serialize_count(stream, count, 0u, 32u));
    if constexpr (Stream::kIsReading) text.resize(count);
    return serialize_bytes(stream, text.data(), count);
  }
};

struct LevelData {
  static constexpr uint32_t kTypeId = 3;
  static constexpr bool kHasBlock = true;
  uint32_t id = 0;
  template <typename Stream>
  bool serialize(Stream& stream) {
    return serialize_bits(stream, id, 32);
  }
};

constexpr MessageTypeInfo kGameTypes[] = {describe_message<Input>("Input"),
                                          describe_message<Snapshot>("Snapshot"),
                                          describe_message<GameEvent>("GameEvent")};
constexpr MessageTypeInfo kGameBlockTypes[] = {
    describe_message<Input>("Input"), describe_message<Snapshot>("Snapshot"),
    describe_message<GameEvent>("GameEvent"), describe_message<LevelData>("LevelData")};

void expect_default_slot_in_a_megabyte(const MessageFactory& factory, const char* name) {
  SCOPED_TRACE(name);
  const StackConfig config;
  const size_t slot = stack_slot_memory(config, factory);
  EXPECT_LE(slot, 1'000'000u);
  StackConfig most = config;
  most.max_clients = 4096;
  EXPECT_TRUE(most.check(factory).ok()) << most.check(factory).reason();
  EXPECT_EQ(most.sanitized(factory).max_clients, 4096);
  EXPECT_LE(4096 * stack_slot_memory(most, factory), kMaxStackServerMemoryBytes);

  LoopbackNetwork network(16);
  const Address address = Address::ipv4(10, 0, 0, 1, 40000);
  LoopbackTransport transport(network, address);
  const Server server(config, factory, netcode::random_key(), transport, address, 0.0);
  ASSERT_TRUE(server.ok()) << server.error_reason();
  EXPECT_LE(server.memory_per_slot(), 1'000'000u);
  const MessagePool& pool = server.connection(0).pool();
  std::printf("default slot, %s: %zu bytes, message pool %zu (%d messages); Server::memory_per_slot() %zu\n",
              name, slot, pool.memory_bytes(), pool.capacity(), server.memory_per_slot());
}

TEST(StackMemory, TheDefaultSlotWithALargeMessageTypeFitsAMegabyte) {
  const MessageFactory factory(kGameTypes);
  std::printf("message bytes with the header: Input %zu, Snapshot %zu, GameEvent %zu\n",
              MessagePool::message_bytes(factory, factory.types()[0]),
              MessagePool::message_bytes(factory, factory.types()[1]),
              MessagePool::message_bytes(factory, factory.types()[2]));
  expect_default_slot_in_a_megabyte(MessageFactory(kGameBlockTypes), "a 640-byte snapshot and a block type");
  expect_default_slot_in_a_megabyte(MessageFactory(kGameTypes), "a 640-byte snapshot, no block type");
}

// What of the default budget the application may fill with Snapshots alone: everything but the receive
// reserve (one received packet of the channel's 256 messages at the largest type), as one free block.
TEST(StackMemory, TheApplicationsSnapshotsLeaveTheReserveFree) {
  const MessageFactory factory(kGameTypes);
  const StackConfig config;
  Connection connection(factory, config.connection);
  ASSERT_TRUE(connection.ok()) << connection.error_reason();
  const MessagePool& pool = connection.pool();
  const size_t snapshot = MessagePool::message_bytes(factory, factory.types()[Snapshot::kTypeId]);
  EXPECT_EQ(pool.receive_reserve_bytes(), 256 * snapshot);
  std::vector<MessageHandle> held;
  for (MessageHandle m = connection.create<Snapshot>(); m; m = connection.create<Snapshot>()) {
    held.push_back(std::move(m));
  }
  EXPECT_EQ(held.size(), (pool.bytes() - pool.receive_reserve_bytes()) / snapshot);
  EXPECT_EQ(pool.receive_reserve_free(), pool.receive_reserve_bytes());
  std::printf("budget %zu bytes, receive reserve %zu; the application creates %zu Snapshots alone\n",
              pool.bytes(), pool.receive_reserve_bytes(), held.size());
}

// The same for test::kAllTypes' largest type (the figure connection.hpp's kDerivedLargeMessages states).
TEST(StackMemory, TheApplicationsNumberedLeaveTheReserveFree) {
  const MessageFactory factory(test::kAllTypes);
  Connection connection(factory, ConnectionConfig{});
  const MessagePool& pool = connection.pool();
  const size_t numbered = MessagePool::message_bytes(factory, factory.types()[test::Numbered::kTypeId]);
  std::vector<MessageHandle> held;
  for (MessageHandle m = connection.create<test::Numbered>(); m; m = connection.create<test::Numbered>()) {
    held.push_back(std::move(m));
  }
  EXPECT_EQ(held.size(), (pool.bytes() - pool.receive_reserve_bytes()) / numbered);
  std::printf("kAllTypes: budget %zu bytes, receive reserve %zu; the application creates %zu Numbered\n",
              pool.bytes(), pool.receive_reserve_bytes(), held.size());
}

}  // namespace
}  // namespace bitwire
