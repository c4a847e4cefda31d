// Reassembler on its own: completion in any order, duplicates, conflicts (count, bytes, fragment 0's ack
// header), eviction of the reassembly started longest ago, the window, reset, fixed memory, and constant
// work per fragment whatever the number of slots.
#include "bitwire/packet/reassembler.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "support/endpoint_harness.hpp"
#include "support/seed.hpp"
#include "support/bytes.hpp"

namespace bitwire {
namespace {

using Bytes = std::vector<uint8_t>;
constexpr int kFragmentSize = 10;

ReassemblerConfig small_config(int slots = 4, int window = 16) {
  return ReassemblerConfig{window, slots, 8, kFragmentSize};
}

Bytes bytes(size_t size, uint8_t seed) {
  Bytes out(size);
  for (size_t i = 0; i < size; ++i) out[i] = static_cast<uint8_t>(seed * 31 + i);
  return out;
}

// Fragment `id` of a packet of `size` bytes whose contents are bytes(size, seed).
PacketFragmentResult add_part(Reassembler& r, uint16_t sequence, uint32_t id, size_t size, uint8_t seed,
                              uint16_t ack = 7, uint32_t ack_bits = 0xF) {
  const Bytes all = bytes(size, seed);
  const uint32_t count = static_cast<uint32_t>((size + kFragmentSize - 1) / kFragmentSize);
  const size_t offset = id * kFragmentSize;
  const size_t n = std::min<size_t>(kFragmentSize, size - offset);
  return r.add(sequence, id, count, test::view(all.data() + offset, n), ack, ack_bits, 100);
}

TEST(Reassembler, CompletesInAnyOrderWithTheRightBytesAndHeader) {
  BITWIRE_SEEDED_TEST_SEED(0x4a55);
  std::mt19937_64 rng(seed);
  Reassembler r(small_config());
  for (uint16_t sequence = 0; sequence < 200; ++sequence) {
    const size_t size = 1 + rng() % (8 * kFragmentSize);
    const uint32_t count = static_cast<uint32_t>((size + kFragmentSize - 1) / kFragmentSize);
    std::vector<uint32_t> order(count);
    std::iota(order.begin(), order.end(), 0u);
    std::shuffle(order.begin(), order.end(), rng);
    for (size_t i = 0; i < order.size(); ++i) {
      const PacketFragmentResult result =
          add_part(r, sequence, order[i], size, static_cast<uint8_t>(sequence), sequence, 3);
      ASSERT_EQ(result,
                i + 1 == order.size() ? PacketFragmentResult::kComplete : PacketFragmentResult::kStored);
    }
    const ReassembledPacket& packet = r.completed();
    EXPECT_EQ(packet.sequence, sequence);
    EXPECT_EQ(test::to_vector(packet.data), bytes(size, static_cast<uint8_t>(sequence)));
    EXPECT_EQ(packet.header.ack, sequence);
    EXPECT_EQ(packet.header.ack_bits, 3u);
    EXPECT_EQ(packet.wire_bytes, 100u * count);
    EXPECT_EQ(r.busy_slots(), 0);
  }
  EXPECT_EQ(r.evicted(), 0u);
  EXPECT_EQ(r.conflicts(), 0u);
}

TEST(Reassembler, SameBytesAreADuplicateDifferentBytesAConflict) {
  Reassembler r(small_config());
  EXPECT_EQ(add_part(r, 1, 1, 30, 1), PacketFragmentResult::kStored);
  EXPECT_EQ(add_part(r, 1, 1, 30, 1), PacketFragmentResult::kDuplicate);
  EXPECT_TRUE(r.holds(1));
  EXPECT_EQ(add_part(r, 1, 1, 30, 2), PacketFragmentResult::kConflict);  // same index, other bytes
  EXPECT_FALSE(r.holds(1));
  EXPECT_EQ(r.busy_slots(), 0);
  EXPECT_EQ(r.conflicts(), 1u);
  // Final fragment of another length.
  EXPECT_EQ(add_part(r, 2, 2, 25, 1), PacketFragmentResult::kStored);
  EXPECT_EQ(add_part(r, 2, 2, 26, 1), PacketFragmentResult::kConflict);
  // Fragment 0 with another ack header.
  EXPECT_EQ(add_part(r, 3, 0, 30, 1, 5, 1), PacketFragmentResult::kStored);
  EXPECT_EQ(add_part(r, 3, 0, 30, 1, 5, 1), PacketFragmentResult::kDuplicate);
  EXPECT_EQ(add_part(r, 3, 0, 30, 1, 6, 1), PacketFragmentResult::kConflict);
  // Another count.
  EXPECT_EQ(add_part(r, 4, 0, 30, 1), PacketFragmentResult::kStored);
  EXPECT_EQ(add_part(r, 4, 1, 80, 1), PacketFragmentResult::kConflict);
  EXPECT_EQ(r.conflicts(), 4u);
  EXPECT_EQ(r.busy_slots(), 0);
}

// Fragment 0's embedded header may carry the ack delay extension: the completed packet carries it, and
// a repeated fragment 0 whose extension differs is a conflict like a different ack.
TEST(Reassembler, CarriesFragmentZerosAckDelayExtension) {
  Reassembler r(small_config());
  const Bytes all = bytes(25, 4);
  const EmbeddedAck with_delay{40, 0xFFFF, true, 3, 200};
  EXPECT_EQ(r.add(9, 1, 3, test::view(all.data() + 10, 10), EmbeddedAck{}, 100),
            PacketFragmentResult::kStored);
  EXPECT_EQ(r.add(9, 0, 3, test::view(all.data(), 10), with_delay, 100), PacketFragmentResult::kStored);
  EXPECT_EQ(r.add(9, 0, 3, test::view(all.data(), 10), with_delay, 100), PacketFragmentResult::kDuplicate);
  EXPECT_EQ(r.add(9, 2, 3, test::view(all.data() + 20, 5), EmbeddedAck{}, 100),
            PacketFragmentResult::kComplete);
  EXPECT_EQ(r.completed().header, with_delay);
  EXPECT_EQ(test::to_vector(r.completed().data), all);

  EXPECT_EQ(r.add(10, 0, 3, test::view(all.data(), 10), with_delay, 100), PacketFragmentResult::kStored);
  EmbeddedAck other_code = with_delay;
  other_code.ack_delay = 201;
  EXPECT_EQ(r.add(10, 0, 3, test::view(all.data(), 10), other_code, 100), PacketFragmentResult::kConflict);
  EXPECT_EQ(r.add(11, 0, 3, test::view(all.data(), 10), with_delay, 100), PacketFragmentResult::kStored);
  EmbeddedAck without = with_delay;
  without.has_ack_delay = false;
  EXPECT_EQ(r.add(11, 0, 3, test::view(all.data(), 10), without, 100), PacketFragmentResult::kConflict);
  EXPECT_EQ(r.conflicts(), 2u);
}

TEST(Reassembler, AConflictTouchesNoOtherPacket) {
  Reassembler r(small_config());
  EXPECT_EQ(add_part(r, 10, 0, 30, 10), PacketFragmentResult::kStored);
  EXPECT_EQ(add_part(r, 11, 0, 30, 11), PacketFragmentResult::kStored);
  EXPECT_EQ(add_part(r, 11, 5, 80, 11), PacketFragmentResult::kConflict);
  EXPECT_EQ(add_part(r, 10, 1, 30, 10), PacketFragmentResult::kStored);
  EXPECT_EQ(add_part(r, 10, 2, 30, 10), PacketFragmentResult::kComplete);
  EXPECT_EQ(test::to_vector(r.completed().data), bytes(30, 10));
}

TEST(Reassembler, EvictsTheReassemblyStartedLongestAgo) {
  Reassembler r(small_config(3));
  EXPECT_EQ(add_part(r, 5, 0, 20, 5), PacketFragmentResult::kStored);
  EXPECT_EQ(add_part(r, 3, 0, 20, 3), PacketFragmentResult::kStored);  // older sequence, started later
  EXPECT_EQ(add_part(r, 7, 0, 20, 7), PacketFragmentResult::kStored);
  EXPECT_EQ(r.busy_slots(), 3);
  EXPECT_EQ(add_part(r, 8, 0, 20, 8), PacketFragmentResult::kStored);  // evicts 5, started first
  EXPECT_EQ(r.evicted(), 1u);
  EXPECT_FALSE(r.holds(5));
  EXPECT_TRUE(r.holds(3));
  EXPECT_TRUE(r.holds(7));
  EXPECT_TRUE(r.holds(8));
  EXPECT_EQ(add_part(r, 3, 1, 20, 3), PacketFragmentResult::kComplete);
  EXPECT_EQ(test::to_vector(r.completed().data), bytes(20, 3));
}

TEST(Reassembler, RefusesWhatIsOlderThanTheWindow) {
  Reassembler r(small_config(4, 16));
  EXPECT_EQ(add_part(r, 100, 0, 20, 1), PacketFragmentResult::kStored);
  EXPECT_TRUE(r.in_window(85));
  EXPECT_FALSE(r.in_window(84));
  EXPECT_EQ(add_part(r, 84, 0, 20, 1), PacketFragmentResult::kStale);
  EXPECT_EQ(add_part(r, 85, 0, 20, 1), PacketFragmentResult::kStored);
  // Moving the window forward past a stored packet makes it unreachable; its slot is reclaimed.
  EXPECT_EQ(add_part(r, 200, 0, 20, 1), PacketFragmentResult::kStored);
  EXPECT_FALSE(r.holds(100));
  EXPECT_FALSE(r.holds(85));
  for (uint16_t s = 201; s < 210; ++s) EXPECT_EQ(add_part(r, s, 0, 20, 1), PacketFragmentResult::kStored);
  EXPECT_EQ(r.busy_slots(), 4);
}

TEST(Reassembler, ResetForgetsEverything) {
  Reassembler r(small_config());
  EXPECT_EQ(add_part(r, 5, 0, 30, 1), PacketFragmentResult::kStored);
  EXPECT_EQ(add_part(r, 5, 1, 30, 1), PacketFragmentResult::kStored);
  r.reset();
  EXPECT_FALSE(r.holds(5));
  EXPECT_EQ(r.busy_slots(), 0);
  EXPECT_EQ(add_part(r, 5, 2, 30, 2), PacketFragmentResult::kStored);  // not completed by the old fragments
  EXPECT_EQ(add_part(r, 5, 0, 30, 2), PacketFragmentResult::kStored);
  EXPECT_EQ(add_part(r, 5, 1, 30, 2), PacketFragmentResult::kComplete);
  EXPECT_EQ(test::to_vector(r.completed().data), bytes(30, 2));
}

TEST(Reassembler, FixedMemoryAndNoAllocationWhileAdding) {
  const ReassemblerConfig config = small_config(16, 64);
  const auto before_construction = test::counting_allocations;
  Reassembler r(config);
  EXPECT_EQ(test::counting_allocations.bytes - before_construction.bytes,
            Reassembler::memory_required(config));
  const Bytes data = bytes(kFragmentSize, 1);
  const auto before = test::counting_allocations;
  for (uint32_t i = 0; i < 100000; ++i) {
    r.add(static_cast<uint16_t>(i * 7), i % 8, 8, test::view(data.data(), data.size()), 0, 0, 1);
  }
  EXPECT_EQ(test::counting_allocations.count, before.count);
}

// A hostile fragment flood (every fragment a new packet, every slot busy, evictions on every add): the
// work per fragment is the same with 8 slots and with 1,024. (Scanning the slots cost 15.7 us per
// fragment at 1,024 slots against 0.39 us at 8.)
TEST(Reassembler, WorkPerFragmentDoesNotGrowWithTheNumberOfSlots) {
  const Bytes data = bytes(kFragmentSize, 1);
  double per_fragment[2] = {};
  const int slot_counts[2] = {8, 1024};
  for (int k = 0; k < 2; ++k) {
    Reassembler r(ReassemblerConfig{2048, slot_counts[k], 8, kFragmentSize});
    const int kFragments = 200000;
    for (int i = 0; i < kFragments; ++i) {
      r.add(static_cast<uint16_t>(i), 1, 8, test::view(data.data(), data.size()), 0, 0, 1);
    }
    EXPECT_GT(r.evicted(), static_cast<uint64_t>(kFragments) / 2);
    per_fragment[k] = static_cast<double>(r.operations()) / kFragments;
  }
  EXPECT_LE(per_fragment[0], 6.0);
  EXPECT_LE(per_fragment[1], 6.0);
  EXPECT_NEAR(per_fragment[0], per_fragment[1], 0.1);
}

}  // namespace
}  // namespace bitwire
