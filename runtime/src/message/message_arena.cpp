// MessageArena: the two-level segregated fit over one region (message_arena.hpp).
#include "bitwire/message/message_arena.hpp"

#include <algorithm>
#include <bit>
#include <new>

namespace bitwire {

namespace {
constexpr uint32_t kMinBlock = 2;  // the header, the free-list links and the size at the end
}  // namespace

int MessageArena::levels_for(uint32_t granules) {
  if (granules < kMinBlock) return 0;
  int first = 0;
  int second = 0;
  list_of(granules, first, second);
  return first + 1;
}

MessageArena::MessageArena(size_t granule, size_t bytes, uint32_t tail)
    : granule_(std::max<size_t>(std::bit_ceil(granule), 8)) {
  size_t count = std::min<size_t>(bytes / granule_, kMaxGranules);
  if (count < kMinBlock) count = 0;
  if (count + tail == 0) return;
  granules_ = static_cast<uint32_t>(count);
  levels_ = levels_for(granules_);
  if (levels_ > 0) {
    heads_.reset(new uint32_t[static_cast<size_t>(levels_) * kSecondLevels]);
    std::fill_n(heads_.get(), static_cast<size_t>(levels_) * kSecondLevels, kNone);
  }
  region_bytes_ = (count + tail) * granule_ + granule_;
  region_.reset(new std::byte[region_bytes_]);
  const auto address = reinterpret_cast<uintptr_t>(region_.get());
  base_ = region_.get() + (granule_ - address % granule_) % granule_;
  if (granules_ == 0) return;
  open_size_ = granules_;
  free_ = granules_;
}

MessageArena::MessageArena(std::byte* base, size_t granule, uint32_t granules)
    : base_(base), granule_(std::max<size_t>(std::bit_ceil(granule), 8)) {
  if (granules < kMinBlock || base == nullptr) return;
  granules_ = std::min(granules, kMaxGranules);
  levels_ = levels_for(granules_);
  heads_.reset(new uint32_t[static_cast<size_t>(levels_) * kSecondLevels]);
  std::fill_n(heads_.get(), static_cast<size_t>(levels_) * kSecondLevels, kNone);
  open_size_ = granules_;
  free_ = granules_;
}

size_t MessageArena::heads_required(uint32_t granules) {
  return static_cast<size_t>(levels_for(granules)) * kSecondLevels * sizeof(uint32_t);
}

size_t MessageArena::memory_required(size_t granule, size_t bytes, uint32_t tail) {
  const size_t g = std::max<size_t>(std::bit_ceil(granule), 8);
  size_t count = std::min<size_t>(bytes / g, kMaxGranules);
  if (count < kMinBlock) count = 0;
  if (count + tail == 0) return 0;
  return (count + tail) * g + g +
         static_cast<size_t>(levels_for(static_cast<uint32_t>(count))) * kSecondLevels * sizeof(uint32_t);
}

size_t MessageArena::memory_bytes() const {
  return region_bytes_ + static_cast<size_t>(levels_) * kSecondLevels * sizeof(uint32_t);
}

[[gnu::always_inline]] inline void MessageArena::list_of(uint32_t granules, int& first, int& second) {
  if (granules < static_cast<uint32_t>(kSecondLevels)) {
    first = 0;
    second = static_cast<int>(granules);
    return;
  }
  const int top = std::bit_width(granules) - 1;  // >= 4
  first = top - 3;
  second = static_cast<int>(granules >> (top - 4)) - kSecondLevels;
}

// Marks `block` free (its predecessor is never free: free neighbours are merged), keeps its size at its end
// for the next block, tells the next block, and pushes it on its list.
[[gnu::always_inline]] inline void MessageArena::insert(uint32_t block, uint32_t granules) {
  int first = 0;
  int second = 0;
  list_of(granules, first, second);
  uint32_t& head = heads_[static_cast<size_t>(first) * kSecondLevels + static_cast<size_t>(second)];
  set_word(block, granules | kFreeBit);
  ::new (at(block) + kHeaderBytes) Links{head, kNone};
  const uint32_t end = block + granules;
  ::new (at(end) - sizeof(uint32_t)) uint32_t{granules};
  if (end < granules_) set_word(end, word(end) | kPrevFreeBit);
  if (head != kNone) links(head).prev = block;
  head = block;
  second_map_[first] |= uint32_t{1} << second;
  first_map_ |= uint32_t{1} << first;
}

// Takes `block` off its list (the caller sets its header and its neighbour's flag).
[[gnu::always_inline]] inline void MessageArena::remove(uint32_t block, uint32_t granules) {
  int first = 0;
  int second = 0;
  list_of(granules, first, second);
  uint32_t& head = heads_[static_cast<size_t>(first) * kSecondLevels + static_cast<size_t>(second)];
  const Links own = links(block);
  if (own.prev != kNone) {
    links(own.prev).next = own.next;
  } else {
    head = own.next;
  }
  if (own.next != kNone) links(own.next).prev = own.prev;
  if (head == kNone) {
    second_map_[first] &= ~(uint32_t{1} << second);
    if (second_map_[first] == 0) first_map_ &= ~(uint32_t{1} << first);
  }
}

uint32_t MessageArena::allocate_search(uint32_t granules) {
  if (granules < kMinBlock || granules > free_) return kNone;
  // No listed block: the open block or nothing (the search below would come to the same).
  if (first_map_ == 0) return open_size_ >= granules ? take_open(granules) : kNone;
  int first = 0;
  int second = 0;
  list_of(granules, first, second);  // first < levels_: granules <= free_ <= granules_
  // granules is a list's lower bound: its own list and every later one hold only blocks that fit.
  uint32_t seconds = second_map_[first] & (~uint32_t{0} << second);
  if (seconds == 0) {
    const uint32_t firsts = first + 1 < 32 ? first_map_ & (~uint32_t{0} << (first + 1)) : 0;
    if (firsts == 0) return open_size_ >= granules ? take_open(granules) : kNone;
    first = std::countr_zero(firsts);
    seconds = second_map_[first];
  }
  second = std::countr_zero(seconds);
  const uint32_t block = heads_[static_cast<size_t>(first) * kSecondLevels + static_cast<size_t>(second)];
  const uint32_t size = block_granules(block);
  free_ -= granules;
  const uint32_t end = block + size;
  if (size - granules < kMinBlock) {  // the whole block
    remove(block, size);
    set_word(block, size);
    if (end < granules_) set_word(end, word(end) & ~kPrevFreeBit);
    free_ -= size - granules;
    return block;
  }
  // The message is cut from the end, so the free rest keeps its place and, while its size stays in the same
  // list (a large free block serving small messages), its list links: no list work at all.
  const uint32_t rest = size - granules;
  int rest_first = 0;
  int rest_second = 0;
  list_of(rest, rest_first, rest_second);
  if (rest_first == first && rest_second == second) {
    set_word(block, rest | kFreeBit);
    ::new (at(block + rest) - sizeof(uint32_t)) uint32_t{rest};
  } else {
    remove(block, size);
    insert(block, rest);
  }
  const uint32_t taken = block + rest;
  set_word(taken, granules | kPrevFreeBit);
  if (end < granules_) set_word(end, word(end) & ~kPrevFreeBit);
  return taken;
}

// Cuts `granules` from the open block's end (all of it when the rest would be under a block): the block
// after it keeps its header (its kPrevFreeBit is clear after the open block and after a message alike).
uint32_t MessageArena::take_open(uint32_t granules) {
  const uint32_t rest = open_size_ - granules;
  if (rest < kMinBlock) {
    set_word(open_, open_size_);
    free_ -= open_size_;
    open_size_ = 0;
    return open_;
  }
  const uint32_t taken = open_ + rest;
  set_word(taken, granules);
  open_size_ = rest;
  free_ -= granules;
  return taken;
}

void MessageArena::free_merge(uint32_t block) {
  uint32_t size = block_granules(block);
  free_ += size;
  const uint32_t next = block + size;
  // Into the open block when it is a neighbour: only the arena object changes (a listed neighbour on the
  // other side joins it too).
  if (open_size_ != 0 && next == open_) {
    if ((word(block) & kPrevFreeBit) != 0) {
      const uint32_t prev_size = footer(block);
      remove(block - prev_size, prev_size);
      block -= prev_size;
      size += prev_size;
    }
    open_ = block;
    open_size_ += size;
    return;
  }
  if (open_size_ != 0 && open_ + open_size_ == block) {
    uint32_t grown = open_size_ + size;
    if (next < granules_ && (word(next) & kFreeBit) != 0) {
      const uint32_t next_size = block_granules(next);
      remove(next, next_size);
      grown += next_size;
      // The block after the listed one now follows the open block.
      if (const uint32_t end = next + next_size; end < granules_) set_word(end, word(end) & ~kPrevFreeBit);
    }
    open_size_ = grown;
    return;
  }
  bool next_listed = false;
  if (next < granules_ && (word(next) & kFreeBit) != 0) {
    const uint32_t next_size = block_granules(next);
    remove(next, next_size);
    size += next_size;
    next_listed = true;
  }
  if (open_size_ == 0) {
    // No open block: this one becomes it, out of the lists.
    if ((word(block) & kPrevFreeBit) != 0) {
      const uint32_t prev_size = footer(block);
      remove(block - prev_size, prev_size);
      block -= prev_size;
      size += prev_size;
    }
    if (const uint32_t end = block + size; next_listed && end < granules_) {
      set_word(end, word(end) & ~kPrevFreeBit);
    }
    open_ = block;
    open_size_ = size;
    return;
  }
  if ((word(block) & kPrevFreeBit) != 0) {
    // Merged into the free block before it, which keeps its list links while its size stays in its list.
    const uint32_t prev_size = footer(block);
    const uint32_t prev = block - prev_size;
    const uint32_t merged = prev_size + size;
    int first = 0;
    int second = 0;
    int merged_first = 0;
    int merged_second = 0;
    list_of(prev_size, first, second);
    list_of(merged, merged_first, merged_second);
    if (first == merged_first && second == merged_second) {
      set_word(prev, merged | kFreeBit);
      const uint32_t end = prev + merged;
      ::new (at(end) - sizeof(uint32_t)) uint32_t{merged};
      if (end < granules_) set_word(end, word(end) | kPrevFreeBit);
      return;
    }
    remove(prev, prev_size);
    block = prev;
    size = merged;
  }
  insert(block, size);
}

const char* MessageArena::check() const {
  uint32_t at_block = 0;
  bool prev_free = false;
  uint32_t free_blocks = 0;
  uint32_t free_granules = 0;
  while (at_block < granules_) {
    if (open_size_ != 0 && at_block == open_) {
      if (prev_free) return "a listed free block is the open block's neighbour";
      if (open_size_ < kMinBlock || open_size_ > granules_ - at_block)
        return "the open block runs past the region";
      free_granules += open_size_;
      at_block += open_size_;
      if (at_block < granules_ && (word(at_block) & kFreeBit) != 0) {
        return "a listed free block is the open block's neighbour";
      }
      prev_free = false;
      continue;
    }
    const uint32_t w = word(at_block);
    const uint32_t size = w & kSizeMask;
    const bool is_free = (w & kFreeBit) != 0;
    if (size < kMinBlock || size > granules_ - at_block) return "a block's size runs past the region";
    if (((w & kPrevFreeBit) != 0) != prev_free) return "a block's prev-free flag is wrong";
    if (is_free && prev_free) return "two free blocks are neighbours";
    if (is_free) {
      if (footer(at_block + size) != size) return "a free block's size at its end is wrong";
      ++free_blocks;
      free_granules += size;
    }
    prev_free = is_free;
    at_block += size;
  }
  if (at_block != granules_) return "the blocks do not tile the region";
  if (free_granules != free_) return "the free count does not add up";
  uint32_t listed = 0;
  for (int first = 0; first < levels_; ++first) {
    for (int second = 0; second < kSecondLevels; ++second) {
      const uint32_t head = heads_[static_cast<size_t>(first) * kSecondLevels + static_cast<size_t>(second)];
      const bool mapped = (second_map_[first] >> second & 1) != 0;
      if (mapped != (head != kNone)) return "a second-level bitmap does not match its list";
      uint32_t before = kNone;
      for (uint32_t b = head; b != kNone; b = links(b).next) {
        if (++listed > free_blocks) return "a list holds more blocks than are free";
        if ((word(b) & kFreeBit) == 0) return "a listed block is not free";
        int f = 0;
        int s = 0;
        list_of(block_granules(b), f, s);
        if (f != first || s != second) return "a free block is in the wrong list";
        if (links(b).prev != before) return "a list's back link is wrong";
        before = b;
      }
    }
    if (((first_map_ >> first & 1) != 0) != (second_map_[first] != 0)) return "the first-level bitmap is wrong";
  }
  if (levels_ < 32 && (first_map_ >> levels_) != 0) return "a range past the region is mapped";
  if (listed != free_blocks) return "a free block is in no list";
  return nullptr;
}

uint32_t MessageArena::largest_free() const {
  uint32_t largest = open_size_;
  for (uint32_t b = 0; b < granules_;) {
    if (open_size_ != 0 && b == open_) {
      b += open_size_;
      continue;
    }
    if ((word(b) & kFreeBit) != 0) largest = std::max(largest, block_granules(b));
    b += block_granules(b);
  }
  return largest;
}

}  // namespace bitwire
