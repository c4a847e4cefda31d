// BlockArena: block buffers shared by many MessagePools (a server's slots). Each pool takes at most its
// block_count buffers at once; an empty arena refuses with its own reason; buffers go back on release; an
// application block filled in place never shows bytes another pool's block left in the buffer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "bitwire/message/message.hpp"
#include "support/test_messages.hpp"

namespace bitwire {
namespace {

using test::WithBlock;

MessagePoolConfig pool_config(int block_count) {
  MessagePoolConfig config;
  config.capacity = 16;
  config.block_count = block_count;
  config.max_block_size = 1024;
  return config;
}

TEST(BlockArena, PoolsOnAnArenaAllocateNoBlockBuffersOfTheirOwn) {
  const MessageFactory factory(test::kAllTypes);
  BlockArena arena(3, 1024);
  MessagePool own(factory, pool_config(4));
  MessagePool shared(factory, pool_config(4), &arena);
  EXPECT_TRUE(shared.ok());
  EXPECT_EQ(own.memory_bytes() - shared.memory_bytes(), 4 * (1024 + sizeof(int32_t)));
  EXPECT_EQ(shared.memory_bytes(), MessagePool::memory_required(factory, pool_config(4), true));
  EXPECT_EQ(arena.memory_bytes(), 3 * (1024 + sizeof(int32_t)));
}

TEST(BlockArena, AnEmptyArenaRefusesWithItsReasonAndAReleaseGivesTheBufferBack) {
  const MessageFactory factory(test::kAllTypes);
  BlockArena arena(3, 1024);
  MessagePool a(factory, pool_config(4), &arena);
  MessagePool b(factory, pool_config(4), &arena);
  const std::byte bytes[100] = {};
  MessageHandle a0 = a.create<WithBlock>();
  MessageHandle a1 = a.create<WithBlock>();
  MessageHandle b0 = b.create<WithBlock>();
  ASSERT_EQ(a0.try_attach_block(bytes), BlockRefusal::kNone);
  ASSERT_EQ(a1.try_attach_block(bytes), BlockRefusal::kNone);
  ASSERT_EQ(b0.try_attach_block(bytes), BlockRefusal::kNone);
  EXPECT_EQ(arena.buffers_free(), 0);
  EXPECT_EQ(b.blocks_free(), 0) << "b may hold 4 but the arena has none";
  MessageHandle b1 = b.create<WithBlock>();
  EXPECT_EQ(b1.try_attach_block(bytes), BlockRefusal::kSharedBuffersInUse);
  EXPECT_STREQ(to_string(BlockRefusal::kSharedBuffersInUse),
               "every buffer of the shared block arena is in use (StackConfig.block_buffers)");
  EXPECT_TRUE(b1.allocate_received_block(10).empty()) << "received blocks wait too, never overflow";
  EXPECT_EQ(arena.exhausted(), 2u);
  a0.reset();
  EXPECT_EQ(arena.buffers_free(), 1);
  EXPECT_EQ(b1.try_attach_block(bytes), BlockRefusal::kNone);
  EXPECT_EQ(b.blocks_live(), 2);
  EXPECT_EQ(a.blocks_live(), 1);
}

TEST(BlockArena, APoolTakesNoMoreThanItsBlockCount) {
  const MessageFactory factory(test::kAllTypes);
  BlockArena arena(8, 1024);
  MessagePool pool(factory, pool_config(2), &arena);
  const std::byte bytes[10] = {};
  MessageHandle m[3] = {pool.create<WithBlock>(), pool.create<WithBlock>(), pool.create<WithBlock>()};
  EXPECT_EQ(m[0].try_attach_block(bytes), BlockRefusal::kNone);
  EXPECT_EQ(m[1].try_attach_block(bytes), BlockRefusal::kNone);
  EXPECT_EQ(m[2].try_attach_block(bytes), BlockRefusal::kNoBuffer) << "the pool's own cap, not the arena's";
  EXPECT_EQ(arena.buffers_free(), 6);
}

TEST(BlockArena, TheReceiveReserveHoldsOnAnArena) {
  const MessageFactory factory(test::kAllTypes);
  BlockArena arena(8, 1024);
  MessagePoolConfig config = pool_config(2);
  config.block_receive_reserve = 1;
  MessagePool pool(factory, config, &arena);
  const std::byte bytes[10] = {};
  MessageHandle sent = pool.create<WithBlock>();
  MessageHandle more = pool.create<WithBlock>();
  MessageHandle received = pool.create<WithBlock>();
  EXPECT_EQ(sent.try_attach_block(bytes), BlockRefusal::kNone);
  EXPECT_EQ(more.try_attach_block(bytes), BlockRefusal::kReservedForReceiving);
  EXPECT_FALSE(received.allocate_received_block(10).empty());
}

TEST(BlockArena, ABlockFilledInPlaceNeverShowsAnotherPoolsBytes) {
  const MessageFactory factory(test::kAllTypes);
  BlockArena arena(1, 1024);
  MessagePool a(factory, pool_config(1), &arena);
  MessagePool b(factory, pool_config(1), &arena);
  {
    MessageHandle secret = a.create<WithBlock>();
    const std::span<std::byte> bytes = secret.allocate_received_block(1024);
    ASSERT_EQ(bytes.size(), 1024u);
    std::memset(bytes.data(), 0x5a, bytes.size());
  }
  MessageHandle mine = b.create<WithBlock>();
  const BlockAllocation fill = mine.try_allocate_block(1024);
  ASSERT_TRUE(fill);
  EXPECT_TRUE(
      std::all_of(fill.bytes.begin(), fill.bytes.end(), [](std::byte x) { return x == std::byte{0}; }));
}

TEST(BlockArena, BuffersSmallerThanThePoolsBlocksAreRefused) {
  const MessageFactory factory(test::kAllTypes);
  BlockArena arena(4, 512);
  MessagePool pool(factory, pool_config(2), &arena);
  EXPECT_FALSE(pool.ok());
  EXPECT_STREQ(pool.error_reason(),
               "MessagePool: the shared BlockArena's buffers are smaller than max_block_size");
  MessageHandle m = pool.create<WithBlock>();
  const std::byte bytes[10] = {};
  EXPECT_EQ(m.try_attach_block(bytes), BlockRefusal::kNoBuffer);
  EXPECT_EQ(arena.buffers_free(), 4);
}

// try_allocate_block hands out bytes the caller fills in place, on a handle that already holds a block
// too (its buffer is reused). Those bytes are zeroed on every pool, the pool's own buffers as well as an
// arena's: an own pool's buffer outlives the client of its slot (the server's slot pools are reused by the
// next client), and a block reused in place still shows its previous bytes. Before, only arena buffers
// were zeroed: both cases below showed 0x5a on an own pool.
TEST(BlockArena, TryAllocateBlockZeroesTheBytesOnEveryPool) {
  const MessageFactory factory(test::kAllTypes);
  BlockArena arena(2, 1024);
  MessagePool own(factory, pool_config(2));
  MessagePool shared(factory, pool_config(2), &arena);
  const auto all_zero = [](std::span<const std::byte> bytes) {
    return std::all_of(bytes.begin(), bytes.end(), [](std::byte x) { return x == std::byte{0}; });
  };
  std::byte secret[1024];
  std::memset(secret, 0x5a, sizeof secret);
  for (MessagePool* pool : {&own, &shared}) {
    SCOPED_TRACE(pool == &own ? "own buffers" : "arena buffers");
    {
      // A buffer freed by one message and taken by the next (the next client of a server slot).
      MessageHandle previous = pool->create<WithBlock>();
      ASSERT_EQ(previous.try_attach_block(secret), BlockRefusal::kNone);
    }
    MessageHandle next = pool->create<WithBlock>();
    const BlockAllocation fresh = next.try_allocate_block(1024);
    ASSERT_TRUE(fresh);
    EXPECT_TRUE(all_zero(fresh.bytes)) << "a freed buffer taken again";
    // The same handle, its block reused in place.
    std::memset(fresh.bytes.data(), 0x5a, fresh.bytes.size());
    const BlockAllocation again = next.try_allocate_block(512);
    ASSERT_TRUE(again);
    EXPECT_EQ(again.bytes.data(), fresh.bytes.data()) << "no second buffer is taken";
    EXPECT_TRUE(all_zero(again.bytes)) << "a handle's block reused in place";
    EXPECT_EQ(pool->blocks_live(), 1);
  }
}

}  // namespace
}  // namespace bitwire
