// A message pool built directly from a bad config, and memory caps that depend on more than one config: a
// factory whose largest type makes the slots too big, the stack's per-slot memory.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "bitwire/connection.hpp"
#include "bitwire/message.hpp"
#include "support/test_messages.hpp"

namespace bitwire::test {
namespace {

// A message of 1 MiB: 1,024 slots of it fill kMaxMessageSlotBytes.
struct Huge {
  static constexpr uint32_t kTypeId = 0;
  uint8_t bytes[1 << 20] = {};
  template <typename Stream>
  bool serialize(Stream& stream) {
    return serialize_bits(stream, bytes[0], 8);
  }
};

inline constexpr MessageTypeInfo kHugeTypes[] = {describe_message<Huge>("Huge")};

// 65,536 block buffers of 1 GiB (64 TiB) was clamped field by field and allocated: the pool is flagged and
// keeps its block memory within kMaxBlockPoolBytes.
TEST(MessagePoolMemory, DirectlyBuiltPoolWithTooManyBlockBuffersIsFlaggedAndCapped) {
  const MessageFactory factory(kAllTypes);
  MessagePoolConfig config;
  config.capacity = 8;
  config.block_count = 1 << 16;
  config.max_block_size = 1 << 30;
  const MessagePool pool(factory, config);
  ASSERT_NE(pool.config_error(), nullptr);
  EXPECT_STREQ(pool.config_error(),
               "MessagePoolConfig.block_count = 65536 is outside [0, 1] (max: 1 GiB / max_block_size)");
  EXPECT_EQ(pool.block_count(), 1);
  EXPECT_EQ(pool.max_block_size(), size_t{1} << 30) << "fewer buffers, never smaller blocks";
  EXPECT_EQ(pool.memory_bytes(), MessagePool::memory_required(factory, config));
  EXPECT_LE(pool.memory_bytes(), kMaxBlockPoolBytes + 8 * 1024);
}

// Every field of a directly built pool is taken through the table: out of range is flagged and clamped.
TEST(MessagePoolMemory, DirectlyBuiltPoolClampsEveryField) {
  const MessageFactory factory(kAllTypes);
  MessagePoolConfig config;
  config.capacity = 0;
  config.block_count = -5;
  config.max_block_size = 0;
  const MessagePool pool(factory, config);
  ASSERT_NE(pool.config_error(), nullptr);
  EXPECT_STREQ(pool.config_error(), "MessagePoolConfig.capacity = 0 is outside [1, 16777216]");
  EXPECT_EQ(pool.capacity(), 1);
  EXPECT_EQ(pool.block_count(), 0);
  EXPECT_EQ(pool.max_block_size(), 1u);
  const MessagePool good(factory, MessagePoolConfig{});
  EXPECT_EQ(good.config_error(), nullptr);
  EXPECT_EQ(good.capacity(), MessagePoolConfig{}.capacity);
}

// 2,048 slots of a 1 MiB type (2 GiB) pass kMaxMessageSlotBytes: check(factory) refuses it, the pool is
// flagged and holds the 1,024 that fit.
TEST(MessagePoolMemory, SlotsAboveTheCapForTheFactoryAreFlagged) {
  const MessageFactory factory(kHugeTypes);
  MessagePoolConfig config;
  config.capacity = 2048;
  EXPECT_EQ(config.check(), nullptr) << "the table alone does not know the message size";
  ASSERT_NE(config.check(factory), nullptr);
  EXPECT_NE(std::string(config.check(factory)).find("MessagePoolConfig.capacity = 2048: slots of 1048576 bytes"),
            std::string::npos)
      << config.check(factory);
  EXPECT_EQ(config.sanitized(factory).capacity, 1024);
  EXPECT_EQ(config.sanitized(factory).check(factory), nullptr);
  const MessagePool pool(factory, config);
  EXPECT_NE(pool.config_error(), nullptr);
  EXPECT_EQ(pool.capacity(), 1024);
  config.capacity = 1024;
  EXPECT_EQ(config.check(factory), nullptr) << "the largest count that fits";
}

// The connection reports a pool whose slots pass the cap for its factory (the config alone passes).
TEST(MessagePoolMemory, ConnectionReportsPoolSlotsAboveTheCap) {
  ConnectionConfig config;
  config.message_pool_size = 4096;
  ASSERT_EQ(config.check(), nullptr);
  Connection connection(MessageFactory(kHugeTypes), config);
  EXPECT_EQ(connection.error(), ConnectionError::kConfigInvalid);
  EXPECT_NE(std::string(connection.error_reason()).find("ConnectionConfig.messages: MessagePoolConfig.capacity = 4096"),
            std::string::npos)
      << connection.error_reason();
  EXPECT_EQ(connection.pool().capacity(), 1024);
}

// ConnectionConfig's pool part is checked through MessagePoolConfig's table, its reason prefixed.
TEST(MessagePoolMemory, ConnectionConfigNamesItsPoolPart) {
  ConnectionConfig config;
  config.channels[0].type = ChannelType::kUnreliableUnordered;
  config.channels[0].max_block_size = 1 << 30;  // 4 default buffers of 1 GiB
  EXPECT_STREQ(config.check(),
               "ConnectionConfig.messages: MessagePoolConfig.block_count = 4 is outside [0, 1] (max: 1 GiB / "
               "max_block_size)");
  const ConnectionConfig fitted = config.sanitized();
  EXPECT_EQ(fitted.block_pool_size, 1);
  EXPECT_EQ(fitted.check(), nullptr);
  EXPECT_EQ(fitted.message_pool_config(true).check(), nullptr);
}

}  // namespace
}  // namespace bitwire::test
