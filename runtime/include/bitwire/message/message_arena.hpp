// MessageArena: the byte budget a MessagePool keeps its messages in, each at its own type's size.
//
// One region allocated at construction, cut into blocks of whole granules (a power of two, at least 8 bytes
// and at least the largest alignment asked for). A block starts with a 4-byte header (its size in granules,
// a free flag, and whether the block before it in memory is a listed free block) followed by what its user
// puts there; a listed free block keeps its free-list links after the header and its size in its last 4
// bytes (where the block after it finds it to merge), so a block is at least two granules.
//
// Allocation is a two-level segregated fit: sizes up to 15 granules each have a free list of their own, and
// every larger power-of-two range [2^m, 2^(m+1)) is split into 16 equal lists. A bitmap of the non-empty
// lists per range and one of the non-empty ranges find the first list whose blocks are all large enough in
// constant time; the block found is split and its rest goes back to the lists. A freed block merges with its
// free neighbours in memory at once, so when every block is freed the arena is one free block again.
//
// One free block, the open block, is in no list: its place and size are kept in the arena object, not in
// its bytes (the whole region at first; when it is used up, the next block freed becomes it). allocate
// cuts from its end when no list holds a block large enough, and a block freed next to it grows it, both
// without writing a header but the message's own or a list (a free reads the next block's header): a pool
// whose messages come and go in the open block (the common case: a few messages alive at once) writes only
// their lines and the arena object's. It is a free block like any other: merged with its free neighbours,
// counted in granules_free(), and found by allocate whenever it is large enough.
//
// Contracts:
// - allocate(n) takes a size that class_size() returned (a list's lower bound): every block in that list or
//   a later one fits it, so allocate fails only when no free block of n granules or more exists (never
//   because the search rounded). An arbitrary n is rounded up with class_size() first.
// - Requests adding up to a free block's size all succeed one after another (each is cut from a block at
//   least its size, and the rest of that block stays one block): an empty arena of n granules holds any
//   messages adding up to n.
// - `tail` granules after the region belong to the owner (at() reaches them; the lists never do).
// - No allocation after construction; nothing is shared between arenas; not thread-safe.
// - The indexes are granule offsets from the start (32 bits: at most 2^32 granules).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>

namespace bitwire {

class MessageArena {
 public:
  static constexpr uint32_t kNone = 0xFFFFFFFFu;
  static constexpr size_t kHeaderBytes = 4;
  static constexpr int kSecondLevels = 16;  // lists per power-of-two range
  static constexpr uint32_t kMaxGranules = uint32_t{1} << 29;

  // An empty arena (every allocate fails).
  MessageArena() = default;
  // `granule` a power of two >= 8; `bytes` is rounded down to whole granules (at most kMaxGranules; fewer
  // than two leaves the arena empty). The region is aligned to the granule; `tail` more granules follow it
  // for the owner's own use.
  MessageArena(size_t granule, size_t bytes, uint32_t tail = 0);
  // An arena over `granules` granules at `base` that its owner keeps (aligned to `granule`, which is a power
  // of two >= 8; another arena's tail): only the list heads are allocated here.
  MessageArena(std::byte* base, size_t granule, uint32_t granules);
  MessageArena(const MessageArena&) = delete;
  MessageArena& operator=(const MessageArena&) = delete;
  MessageArena(MessageArena&&) = default;
  MessageArena& operator=(MessageArena&&) = default;

  // The smallest list lower bound >= granules (and >= 2, room for the free-list links): what allocate takes.
  static uint32_t class_size(uint32_t granules) {
    granules = granules < 2 ? 2 : granules;
    if (granules < static_cast<uint32_t>(kSecondLevels)) return granules;
    const uint32_t step = uint32_t{1} << (std::bit_width(granules) - 5);  // a 16th of the power of two below
    return (granules + step - 1) & ~(step - 1);
  }

  // What allocate takes for `bytes` in granules of 2^`granule_shift` bytes: whole granules (at most 2^30,
  // past any arena), rounded up to a size class. The one rule the pool both budgets and allocates by.
  static uint32_t granules_for(size_t bytes, int granule_shift) {
    const size_t granules = (bytes + (size_t{1} << granule_shift) - 1) >> granule_shift;
    return class_size(static_cast<uint32_t>(std::min<size_t>(granules, uint32_t{1} << 30)));
  }

  // A block of at least `granules` (a class_size() value), or kNone when no free block is that large.
  uint32_t allocate(uint32_t granules) {
    // No listed block and the open block large enough: cut from its end, here.
    if (first_map_ == 0 && open_size_ >= granules && granules >= 2 && open_size_ - granules >= 2) {
      open_size_ -= granules;
      free_ -= granules;
      const uint32_t taken = open_ + open_size_;
      set_word(taken, granules);
      return taken;
    }
    return allocate_search(granules);
  }
  // Frees a block allocate() returned, merging it with its free neighbours.
  void free(uint32_t block) {
    // Next to the open block's end, with no listed block after it: the open block grows, here.
    const uint32_t size = block_granules(block);
    if (open_size_ != 0 && open_ + open_size_ == block) {
      const uint32_t next = block + size;
      if (next >= granules_ || (word(next) & kFreeBit) == 0) {
        open_size_ += size;
        free_ += size;
        return;
      }
    }
    free_merge(block);
  }

  std::byte* at(uint32_t block) const { return base_ + static_cast<size_t>(block) * granule_; }
  size_t granule() const { return granule_; }
  uint32_t granules() const { return granules_; }
  uint32_t granules_free() const { return free_; }
  // The granules of the block at `block` (allocated or free).
  uint32_t block_granules(uint32_t block) const { return word(block) & kSizeMask; }
  // The bytes allocated at construction (region, alignment slack and the list heads of the ranges its size
  // reaches; an arena over its owner's memory counts only its list heads).
  size_t memory_bytes() const;
  static size_t memory_required(size_t granule, size_t bytes, uint32_t tail = 0);
  // What an arena over its owner's memory of `granules` allocates (its list heads).
  static size_t heads_required(uint32_t granules);

  // Walks every block and list and returns what is broken (nullptr when consistent): blocks tile the region,
  // no two free blocks are neighbours, every free block is in the list of its size exactly once and the
  // bitmaps match the lists, and the free count adds up. For tests; O(blocks).
  const char* check() const;
  // The largest free block (O(blocks)); for tests.
  uint32_t largest_free() const;

 private:
  static constexpr uint32_t kFreeBit = uint32_t{1} << 31;
  static constexpr uint32_t kPrevFreeBit = uint32_t{1} << 30;
  static constexpr uint32_t kSizeMask = kPrevFreeBit - 1;
  struct Links {
    uint32_t next;
    uint32_t prev;
  };
  // The header: the size in granules, kFreeBit (a listed free block), kPrevFreeBit (the block before is a
  // listed free block; never set after the open block, which the free path finds by its place). Read
  // through word(); written with
  // set_word(), which creates the uint32_t it stores (the bytes may last have held a message).
  uint32_t word(uint32_t block) const { return *std::launder(reinterpret_cast<const uint32_t*>(at(block))); }
  void set_word(uint32_t block, uint32_t value) const { ::new (at(block)) uint32_t{value}; }
  // The size a free block ending at `end` keeps in its last 4 bytes (written with placement new).
  uint32_t footer(uint32_t end) const {
    return *std::launder(reinterpret_cast<const uint32_t*>(at(end) - sizeof(uint32_t)));
  }
  Links& links(uint32_t block) const {
    return *std::launder(reinterpret_cast<Links*>(at(block) + kHeaderBytes));
  }
  static void list_of(uint32_t granules, int& first, int& second);
  static int levels_for(uint32_t granules);
  void insert(uint32_t block, uint32_t granules);
  void remove(uint32_t block, uint32_t granules);
  uint32_t take_open(uint32_t granules);
  uint32_t allocate_search(uint32_t granules);  // allocate() past its fast path
  void free_merge(uint32_t block);              // free() past its fast path

  // What every allocate and free reads comes first (one cache line of the object).
  std::byte* base_ = nullptr;
  size_t granule_ = 8;
  uint32_t granules_ = 0;
  uint32_t free_ = 0;
  uint32_t open_ = 0;       // the open block's first granule
  uint32_t open_size_ = 0;  // its granules; 0: there is none
  uint32_t first_map_ = 0;
  int levels_ = 0;                     // power-of-two ranges up to the region's size
  std::unique_ptr<uint32_t[]> heads_;  // levels_ x kSecondLevels list heads
  size_t region_bytes_ = 0;
  std::unique_ptr<std::byte[]> region_;
  uint32_t second_map_[32] = {};
};

}  // namespace bitwire
