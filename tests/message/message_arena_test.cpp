// MessageArena against a model: random allocations and frees never overlap, stay in the region and on the
// granule, keep the lists and bitmaps consistent, fail only when no free block is large enough, and give
// every byte back (one free block) once everything is freed.
#include "bitwire/message/message_arena.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

namespace bitwire {
namespace {

// Live blocks by start granule: the model.
using Live = std::map<uint32_t, uint32_t>;

bool overlaps(const Live& live, uint32_t start, uint32_t size) {
  auto after = live.lower_bound(start);
  if (after != live.end() && after->first < start + size) return true;
  if (after != live.begin()) {
    const auto before = std::prev(after);
    if (before->first + before->second > start) return true;
  }
  return false;
}

uint32_t live_granules(const Live& live) {
  uint32_t sum = 0;
  for (const auto& [start, size] : live) sum += size;
  return sum;
}

// The longest run of granules no live block covers: the largest free block of an arena that merges every
// free block with its free neighbours, computed from the model alone.
uint32_t largest_gap(const Live& live, uint32_t granules) {
  uint32_t largest = 0;
  uint32_t end = 0;  // the end of the live blocks so far
  for (const auto& [start, size] : live) {
    largest = std::max(largest, start - end);
    end = start + size;
  }
  return std::max(largest, granules - end);
}

TEST(MessageArena, ClassSizesAreListLowerBoundsAtOrAboveTheRequest) {
  for (uint32_t n = 0; n < 100'000; ++n) {
    const uint32_t c = MessageArena::class_size(n);
    EXPECT_GE(c, std::max<uint32_t>(n, 2));
    EXPECT_EQ(MessageArena::class_size(c), c) << n;
    // At most one list step (a 16th of the power of two below) above the request.
    EXPECT_LE(c - std::max<uint32_t>(n, 2), std::max<uint32_t>(n, 2) / 16 + 1) << n;
  }
}

TEST(MessageArena, RandomAllocationsAndFreesMatchTheModel) {
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    std::mt19937 random(seed);
    const size_t granule = size_t{8} << (seed % 3);  // 8, 16, 32
    const size_t bytes = granule * (2 + random() % 6000) + random() % granule;
    MessageArena arena(granule, bytes);
    ASSERT_EQ(arena.granules(), bytes / granule);
    ASSERT_EQ(arena.check(), nullptr);
    Live live;
    // Sizes as a pool asks for them: a few types, some small and some large, plus random ones.
    const uint32_t kinds[] = {2, 3, 4, 15, 16, 17, 40, 85, 300};
    uint64_t refused = 0;
    for (int step = 0; step < 4000; ++step) {
      const bool take = live.empty() || random() % 100 < 55;
      if (take) {
        const uint32_t want =
            MessageArena::class_size(random() % 4 == 0 ? 2 + random() % 600 : kinds[random() % 9]);
        const uint32_t largest = largest_gap(live, arena.granules());
        ASSERT_EQ(arena.largest_free(), largest) << "seed " << seed << " step " << step;
        const uint32_t block = arena.allocate(want);
        // Taken exactly when some free block (listed or the open block) is large enough.
        if (block == MessageArena::kNone) {
          ++refused;
          EXPECT_LT(largest, want) << "refused while a free block of " << largest << " granules fits "
                                   << want;
        } else {
          EXPECT_GE(largest, want) << "taken while no free block was large enough";
          const uint32_t size = arena.block_granules(block);
          ASSERT_GE(size, want);
          ASSERT_LE(block + size, arena.granules());
          ASSERT_FALSE(overlaps(live, block, size)) << "seed " << seed << " step " << step;
          ASSERT_EQ(reinterpret_cast<uintptr_t>(arena.at(block)) % granule, 0u);
          live.emplace(block, size);
        }
      } else {
        auto it = live.begin();
        std::advance(it, static_cast<long>(random() % live.size()));
        ASSERT_EQ(arena.block_granules(it->first), it->second) << "a live block's size changed";
        arena.free(it->first);
        live.erase(it);
      }
      ASSERT_EQ(arena.check(), nullptr) << "seed " << seed << " step " << step;
      ASSERT_EQ(arena.granules_free(), arena.granules() - live_granules(live));
      ASSERT_EQ(arena.largest_free(), largest_gap(live, arena.granules()))
          << "free blocks left unmerged (seed " << seed << " step " << step << ")";
    }
    EXPECT_GT(refused, 0u) << "the run reached the budget (seed " << seed << ")";
    while (!live.empty()) {
      arena.free(live.begin()->first);
      live.erase(live.begin());
      ASSERT_EQ(arena.check(), nullptr);
    }
    EXPECT_EQ(arena.granules_free(), arena.granules());
    EXPECT_EQ(arena.largest_free(), arena.granules()) << "coalesced back to one free block";
  }
}

// From any state the model reaches, requests adding up to the largest free block all succeed one after
// another (each is cut from a free block at least its size and the rest of that block stays one block),
// whether that block is the open block or a listed one.
TEST(MessageArena, RequestsAddingUpToTheLargestFreeBlockAllSucceed) {
  uint64_t checked = 0;
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    std::mt19937 random(seed);
    MessageArena arena(8, 8 * (200 + random() % 4000));
    Live live;
    const uint32_t kinds[] = {2, 3, 4, 15, 16, 17, 40, 85};
    for (int step = 0; step < 3000; ++step) {
      if (live.empty() || random() % 100 < 52) {
        const uint32_t block = arena.allocate(MessageArena::class_size(kinds[random() % 8]));
        if (block != MessageArena::kNone) live.emplace(block, arena.block_granules(block));
      } else {
        auto it = live.begin();
        std::advance(it, static_cast<long>(random() % live.size()));
        arena.free(it->first);
        live.erase(it);
      }
      if (step % 50 != 0) continue;
      // Sizes of class_size() values adding up to at most the largest free block, taken one after another.
      uint32_t left = largest_gap(live, arena.granules());
      std::vector<uint32_t> taken;
      while (left >= 2) {
        uint32_t want = MessageArena::class_size(1 + random() % std::min<uint32_t>(left, 120));
        if (want > left) want = MessageArena::class_size(2) <= left ? 2 : 0;
        if (want == 0) break;
        const uint32_t block = arena.allocate(want);
        ASSERT_NE(block, MessageArena::kNone)
            << "seed " << seed << " step " << step << ": " << want << " of " << left << " left refused";
        taken.push_back(block);
        left -= want;  // a block taken whole may be a granule larger, but then nothing of it is left
        ++checked;
      }
      ASSERT_EQ(arena.check(), nullptr);
      for (const uint32_t block : taken) arena.free(block);
      ASSERT_EQ(arena.check(), nullptr);
    }
  }
  EXPECT_GT(checked, 10'000u);
}

// The open block: messages that come and go in it are cut from its end and given back to it, so the same
// bytes serve the next message of that size, and when it is used up the next block freed becomes it.
TEST(MessageArena, TheOpenBlockGivesTheSameBytesToTheNextMessageOfASize) {
  MessageArena arena(8, 8 * 100);
  const uint32_t a = arena.allocate(10);
  EXPECT_EQ(a, 90u) << "cut from the end of the region";
  const uint32_t b = arena.allocate(20);
  EXPECT_EQ(b, 70u);
  arena.free(b);
  EXPECT_EQ(arena.allocate(20), 70u) << "the bytes just freed";
  arena.free(a);  // not next to the open block [0, 70): listed
  EXPECT_EQ(arena.check(), nullptr);
  EXPECT_EQ(arena.largest_free(), 70u);
  EXPECT_EQ(arena.allocate(10), 90u) << "the listed block that fits comes before the open block";
  arena.free(70);  // next to both the open block and a message
  EXPECT_EQ(arena.largest_free(), 90u);
  arena.free(90);  // next to the open block: everything free, one block
  EXPECT_EQ(arena.check(), nullptr);
  EXPECT_EQ(arena.largest_free(), 100u);
  // Used up, then a block in the middle is freed: it becomes the open block and serves the next message.
  std::vector<uint32_t> blocks;
  for (uint32_t block = arena.allocate(10); block != MessageArena::kNone; block = arena.allocate(10)) {
    blocks.push_back(block);
  }
  ASSERT_EQ(blocks.size(), 10u);
  EXPECT_EQ(arena.granules_free(), 0u);
  arena.free(blocks[4]);
  arena.free(blocks[6]);
  EXPECT_EQ(arena.check(), nullptr);
  arena.free(blocks[5]);  // between the open block and a listed one: all three one block
  EXPECT_EQ(arena.check(), nullptr);
  EXPECT_EQ(arena.largest_free(), 30u);
  EXPECT_EQ(arena.allocate(30), blocks[6]) << "the three freed blocks, as one";
  EXPECT_EQ(arena.check(), nullptr);
}

// One size until refused: exactly as many as the budget holds, nothing lost to the search.
TEST(MessageArena, ExhaustionComesOnlyWhenTheBudgetIsUsed) {
  for (const uint32_t size : {2u, 3u, 16u, 17u, 88u, 4096u}) {
    const uint32_t want = MessageArena::class_size(size);
    MessageArena arena(8, 8 * 10'007);
    uint32_t count = 0;
    while (arena.allocate(want) != MessageArena::kNone) ++count;
    EXPECT_EQ(count, arena.granules() / want) << want;
    EXPECT_LT(arena.granules_free(), want);
    EXPECT_EQ(arena.check(), nullptr);
  }
}

TEST(MessageArena, TooSmallARegionRefusesEverything) {
  MessageArena empty(8, 15);
  EXPECT_EQ(empty.granules(), 0u);
  EXPECT_EQ(empty.allocate(2), MessageArena::kNone);
  MessageArena none;
  EXPECT_EQ(none.allocate(2), MessageArena::kNone);
}

// The tail after the region is the owner's: no block reaches it, and it is allocated with the region.
TEST(MessageArena, TheTailIsNeverHandedOut) {
  MessageArena arena(16, 16 * 100, 7);
  EXPECT_EQ(arena.granules(), 100u);
  EXPECT_EQ(arena.memory_bytes(), MessageArena::memory_required(16, 16 * 100, 7));
  EXPECT_EQ(arena.memory_bytes(), MessageArena::memory_required(16, 16 * 100) + 7 * 16);
  uint32_t taken = 0;
  for (uint32_t block = arena.allocate(2); block != MessageArena::kNone; block = arena.allocate(2)) {
    EXPECT_LE(block + arena.block_granules(block), arena.granules());
    taken += arena.block_granules(block);
  }
  EXPECT_EQ(taken, 100u);
  EXPECT_EQ(arena.largest_free(), 0u);
  std::fill_n(arena.at(100), 7 * 16, std::byte{0xAB});  // the tail, written by its owner
  EXPECT_EQ(arena.check(), nullptr);
  MessageArena tail_only(8, 15, 3);
  EXPECT_EQ(tail_only.granules(), 0u);
  EXPECT_EQ(tail_only.allocate(2), MessageArena::kNone);
  EXPECT_EQ(tail_only.memory_bytes(), 4u * 8);
}

// An arena over another's tail: its blocks stay in the tail, every granule of it can be taken by requests
// that add up to it, it merges back to one block, and it allocates only its list heads.
TEST(MessageArena, AnArenaOverAnOwnersTailStaysInIt) {
  MessageArena owner(8, 8 * 50, 64);
  MessageArena view(owner.at(owner.granules()), 8, 64);
  EXPECT_EQ(view.granules(), 64u);
  EXPECT_EQ(view.memory_bytes(), MessageArena::heads_required(64));
  EXPECT_EQ(view.check(), nullptr);
  std::vector<uint32_t> blocks;
  for (const uint32_t size : {17u, 3u, 30u, 14u}) {  // 64 granules exactly
    const uint32_t block = view.allocate(MessageArena::class_size(size));
    ASSERT_NE(block, MessageArena::kNone) << size;
    EXPECT_GE(view.at(block), owner.at(owner.granules()));
    EXPECT_LE(view.at(block + view.block_granules(block)), owner.at(owner.granules() + 64));
    blocks.push_back(block);
  }
  EXPECT_EQ(view.granules_free(), 0u);
  EXPECT_EQ(owner.granules_free(), 50u) << "the owner's own blocks untouched";
  for (const uint32_t block : blocks) view.free(block);
  EXPECT_EQ(view.largest_free(), 64u);
  EXPECT_EQ(view.check(), nullptr);
  EXPECT_EQ(owner.check(), nullptr);
}

}  // namespace
}  // namespace bitwire
