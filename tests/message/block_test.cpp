// BlockSender scheduling (fragments, budget, cap, round-robin, resend delay, burst, acks) and
// BlockReceiver reassembly (every rejection reason, completion once, memory fixed), wire-agnostic.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "bitwire/message/block.hpp"
#include "bitwire/packet/reassembler.hpp"  // both fragment results in one translation unit
#include "support/bytes.hpp"
#include "support/endpoint_harness.hpp"
#include "support/seed.hpp"

namespace bitwire {
namespace {

using test::pattern_payload;

// The block layer's and the packet layer's fragment results are two types with their own names: a file that
// sees both (as this one does) compiles, and neither converts to the other.
static_assert(!std::is_same_v<BlockFragmentResult, PacketFragmentResult>);
static_assert(!std::is_convertible_v<BlockFragmentResult, PacketFragmentResult>);

// A config whose budget never limits, so a test sees the scheduling alone.
BlockConfig unlimited(int max_block_size = 256 * 1024, int fragment_size = 1024) {
  BlockConfig config;
  config.max_block_size = max_block_size;
  config.fragment_size = fragment_size;
  config.bandwidth_bytes_per_second = 1e12;
  config.max_budget_bytes = 1 << 30;
  return config;
}

// A sender whose clock starts one second early, so an unlimited budget is full at time 0.
BlockSender primed(const BlockConfig& config) {
  BlockSender sender(config);
  sender.reset(-1.0);
  return sender;
}

std::vector<uint32_t> drain(BlockSender& sender, double now, size_t room = 1 << 20) {
  std::vector<uint32_t> ids;
  while (auto fragment = sender.next_fragment(now, room)) ids.push_back(fragment->id);
  return ids;
}

std::vector<uint32_t> range(uint32_t first, uint32_t end) {
  std::vector<uint32_t> ids;
  for (uint32_t i = first; i < end; ++i) ids.push_back(i);
  return ids;
}

// ---- Config ----

TEST(BlockConfig, DefaultsAreValid) {
  const BlockConfig config;
  EXPECT_TRUE(config.check().ok());
  EXPECT_EQ(config.max_block_size, 256 * 1024);
  EXPECT_EQ(config.fragment_size, 1024);
  EXPECT_EQ(config.max_fragments(), 256);
}

TEST(BlockConfig, EachBadFieldIsNamed) {
  struct Case {
    void (*mutate)(BlockConfig&);
    const char* word;
  };
  const Case cases[] = {
      {[](BlockConfig& c) { c.max_block_size = 0; }, "max_block_size"},
      {[](BlockConfig& c) { c.fragment_size = 0; }, "fragment_size"},
      {[](BlockConfig& c) { c.fragment_size = 70000; }, "fragment_size"},
      {[](BlockConfig& c) { c.min_resend_delay = -1; }, "min_resend_delay"},
      {[](BlockConfig& c) { c.bandwidth_bytes_per_second = std::nan(""); }, "bandwidth_bytes_per_second"},
      {[](BlockConfig& c) { c.initial_burst_bytes = -5; }, "initial_burst_bytes"},
      {[](BlockConfig& c) { c.fragment_overhead_bytes = -1; }, "fragment_overhead_bytes"},
      {[](BlockConfig& c) { c.max_budget_bytes = 100; }, "max_budget_bytes"},  // < one fragment
      {[](BlockConfig& c) {
         c.fragment_size = 1;
         c.max_block_size = 65537;
       },
       "(max: fragment_size * 65536)"},
  };
  for (const Case& c : cases) {
    BlockConfig config;
    c.mutate(config);
    const ConfigCheck check = config.check();
    const char* reason = check.reason();
    ASSERT_NE(reason, nullptr) << c.word;
    EXPECT_NE(std::string(reason).find(c.word), std::string::npos) << reason;
    EXPECT_TRUE(config.sanitized().check().ok()) << c.word;
  }
}

// check() and sanitized() come from one table: every sanitized config passes, and a config that passes
// is left unchanged.
TEST(BlockConfig, SanitizedAlwaysPassesCheck) {
  BITWIRE_SEEDED_TEST_SEED(0xb10c);
  std::mt19937_64 rng(seed);
  auto any_int = [&] { return static_cast<int>(rng() % 3 == 0 ? rng() : rng() % 200000) - 1000; };
  for (int i = 0; i < 20000; ++i) {
    BlockConfig c;
    c.max_block_size = any_int();
    c.fragment_size = any_int();
    c.max_budget_bytes = any_int();
    c.initial_burst_bytes = any_int();
    c.fragment_overhead_bytes = any_int() % 70000;
    c.min_resend_delay = static_cast<double>(any_int()) / 100.0;
    c.bandwidth_bytes_per_second = rng() % 7 == 0 ? std::nan("") : static_cast<double>(any_int());
    const BlockConfig s = c.sanitized();
    ASSERT_TRUE(s.check().ok()) << i;
    const BlockConfig again = s.sanitized();
    EXPECT_EQ(again.max_block_size, s.max_block_size);
    EXPECT_EQ(again.fragment_size, s.fragment_size);
    EXPECT_EQ(again.max_budget_bytes, s.max_budget_bytes);
    EXPECT_EQ(again.bandwidth_bytes_per_second, s.bandwidth_bytes_per_second);
  }
}

// ---- Sender: fragments ----

TEST(BlockSender, SplitsIntoFragmentsWithShortLast) {
  BlockSender sender = primed(unlimited());
  ASSERT_TRUE(sender.begin(256 * 1024 - 100, 0.0));
  EXPECT_EQ(sender.fragment_count(), 256u);
  EXPECT_EQ(sender.fragment_size(0), 1024u);
  EXPECT_EQ(sender.fragment_size(255), 924u);
  EXPECT_EQ(sender.fragment_size(256), 0u);
  std::vector<BlockFragment> fragments;
  while (auto f = sender.next_fragment(0.0, 4096)) fragments.push_back(*f);
  ASSERT_EQ(fragments.size(), 256u);
  for (uint32_t i = 0; i < 256; ++i) {
    EXPECT_EQ(fragments[i].id, i);
    EXPECT_EQ(fragments[i].offset, i * 1024);
    EXPECT_FALSE(fragments[i].resend);
  }
  EXPECT_EQ(fragments.back().size, 924u);
}

TEST(BlockSender, BeginRefusesBusyEmptyAndTooLarge) {
  BlockSender sender = primed(unlimited(4096));
  EXPECT_FALSE(sender.begin(0, 0.0));
  EXPECT_FALSE(sender.begin(4097, 0.0));
  EXPECT_TRUE(sender.begin(4096, 0.0));
  EXPECT_FALSE(sender.begin(10, 0.0));  // one block in flight
  EXPECT_EQ(sender.counters().blocks_refused, 3u);
  EXPECT_EQ(sender.counters().blocks_started, 1u);
}

TEST(BlockSender, FragmentLargerThanRoomIsNotSent) {
  BlockSender sender = primed(unlimited());
  ASSERT_TRUE(sender.begin(3000, 0.0));
  EXPECT_FALSE(sender.next_fragment(0.0, 1023).has_value());
  EXPECT_TRUE(sender.next_fragment(0.0, 1024).has_value());
}

// ---- Sender: acks and completion ----

TEST(BlockSender, AcksCompleteExactlyOnce) {
  BlockSender sender = primed(unlimited());
  ASSERT_TRUE(sender.begin(3 * 1024, 0.0));
  drain(sender, 0.0);
  EXPECT_EQ(sender.on_fragment_acked(1), BlockAckResult::kNewlyAcked);
  EXPECT_EQ(sender.on_fragment_acked(1), BlockAckResult::kDuplicate);
  EXPECT_EQ(sender.on_fragment_acked(3), BlockAckResult::kInvalid);
  EXPECT_EQ(sender.on_fragment_acked(0), BlockAckResult::kNewlyAcked);
  EXPECT_EQ(sender.on_fragment_acked(2), BlockAckResult::kCompleted);
  EXPECT_FALSE(sender.sending());
  EXPECT_EQ(sender.on_fragment_acked(2), BlockAckResult::kInvalid);
  EXPECT_EQ(sender.counters().blocks_completed, 1u);
  EXPECT_EQ(sender.counters().acks_new, 3u);
  EXPECT_EQ(sender.counters().acks_duplicate, 1u);
  EXPECT_EQ(sender.counters().acks_invalid, 2u);
  EXPECT_FALSE(sender.next_fragment(10.0, 4096).has_value());
  EXPECT_TRUE(sender.begin(10, 10.0));  // idle again
}

TEST(BlockSender, AckBitfieldAppliesOnlyMatchingCount) {
  BlockSender sender = primed(unlimited());
  ASSERT_TRUE(sender.begin(10 * 1024, 0.0));
  const uint8_t bits[2] = {0b1010'0101, 0b0000'0010};
  EXPECT_FALSE(sender.on_ack_bitfield(test::view(bits), 11));  // count differs: nothing applied
  EXPECT_EQ(sender.fragments_acked(), 0u);
  EXPECT_TRUE(sender.on_ack_bitfield(test::view(bits), 10));
  EXPECT_EQ(sender.fragments_acked(), 5u);
  for (uint32_t id : {0u, 2u, 5u, 7u, 9u}) EXPECT_TRUE(sender.acked(id)) << id;
  EXPECT_TRUE(sender.on_ack_bitfield(test::view(bits), 10));  // the same again: nothing new
  EXPECT_EQ(sender.counters().acks_new, 5u);
  EXPECT_EQ(sender.counters().acks_duplicate, 0u);  // old bits are masked out, not re-acked
  const uint8_t all[2] = {0xFF, 0x03};
  EXPECT_TRUE(sender.on_ack_bitfield(test::view(all), 10));
  EXPECT_FALSE(sender.sending());
  EXPECT_EQ(sender.counters().blocks_completed, 1u);
}

// ---- Sender: round-robin, resend delay ----

TEST(BlockSender, RoundRobinSkipsAckedAndResendsAfterDelay) {
  BlockConfig config = unlimited(8 * 1024);
  config.min_resend_delay = 0.1;
  BlockSender sender = primed(config);
  ASSERT_TRUE(sender.begin(8 * 1024, 0.0));
  EXPECT_EQ(drain(sender, 0.0), range(0, 8));
  EXPECT_TRUE(drain(sender, 0.05).empty());  // nothing due before the delay
  EXPECT_TRUE(drain(sender, 0.0999).empty());
  sender.on_fragment_acked(2);
  sender.on_fragment_acked(5);
  sender.on_fragment_acked(0);
  const std::vector<uint32_t> due = drain(sender, 0.1);
  EXPECT_EQ(due, (std::vector<uint32_t>{1, 3, 4, 6, 7}));
  EXPECT_EQ(sender.counters().fragments_resent, 5u);
}

// Fast resend: an ack of fragment 2 shows that 0 and 1, sent before it, are missing: they go at once,
// long before min_resend_delay; 3, sent after 2, still waits. Without fast resend (the default) nothing
// goes before the delay.
TEST(BlockSender, FastResendSendsWhatAnAckShowsMissing) {
  for (const bool fast : {true, false}) {
    BlockConfig config = unlimited(8 * 1024);
    config.min_resend_delay = 1.0;
    BlockSender sender = primed(config);
    sender.set_fast_resend(fast);
    ASSERT_TRUE(sender.begin(8 * 1024, 0.0));
    for (uint32_t i = 0; i < 4; ++i) {  // one fragment at each of 0.0, 0.1, 0.2, 0.3
      const auto fragment = sender.next_fragment(0.1 * i, 1 << 20);
      ASSERT_TRUE(fragment);
      EXPECT_EQ(fragment->id, i);
    }
    sender.on_fragment_acked(2);
    // The cursor is at 4 (never sent): first sends go first, then the holes.
    EXPECT_EQ(drain(sender, 0.35), fast ? (std::vector<uint32_t>{4, 5, 6, 7, 0, 1}) : range(4, 8)) << fast;
    EXPECT_TRUE(drain(sender, 0.4).empty()) << "resent holes wait again; 3 was sent after the ack's fragment";
    EXPECT_EQ(sender.counters().fragments_resent, fast ? 2u : 0u);
    // An ack of 5 (sent at 0.35) shows 3 (sent at 0.3) missing, not those sent with 5 at 0.35.
    sender.on_fragment_acked(5);
    EXPECT_EQ(drain(sender, 0.45), fast ? std::vector<uint32_t>{3} : std::vector<uint32_t>{}) << fast;
  }
}

TEST(BlockSender, CursorResumesWhereTheBudgetStopped) {
  BlockConfig config;
  config.max_block_size = 8 * 1024;
  config.fragment_overhead_bytes = 0;
  config.bandwidth_bytes_per_second = 3 * 1024;  // three fragments per second
  config.max_budget_bytes = 3 * 1024;
  config.min_resend_delay = 0.0;
  BlockSender sender(config);
  ASSERT_TRUE(sender.begin(8 * 1024, 0.0));
  EXPECT_TRUE(drain(sender, 0.0).empty());  // no budget yet
  EXPECT_EQ(drain(sender, 1.0), range(0, 3));
  EXPECT_EQ(drain(sender, 2.0), range(3, 6));
  sender.on_fragment_acked(0);
  sender.on_fragment_acked(7);
  EXPECT_EQ(drain(sender, 3.0), (std::vector<uint32_t>{6, 1, 2}));  // wraps past the acked 7 and 0
}

// The cursor's fragment is always the least recently sent unacked one: acks in any order never let a
// fragment be resent early or starve another.
TEST(BlockSender, RandomAcksNeverResendEarlyOrStarve) {
  BITWIRE_SEEDED_TEST_SEED(0x5ced);
  std::mt19937_64 rng(seed);
  BlockConfig config = unlimited(64 * 1024, 512);
  config.min_resend_delay = 0.05;
  BlockSender sender = primed(config);
  ASSERT_TRUE(sender.begin(64 * 1024, 0.0));
  std::vector<double> last_sent(128, -1.0);
  double now = 0.0;
  while (sender.sending()) {
    now += 0.01;
    for (const uint32_t id : drain(sender, now)) {
      ASSERT_LT(id, 128u);
      if (last_sent[id] >= 0.0) {
        ASSERT_GE(now - last_sent[id], 0.05 - 1e-9) << id;
      }
      last_sent[id] = now;
    }
    // Every unacked fragment is due at most min_resend_delay + one step after its last send.
    for (uint32_t id = 0; id < 128; ++id) {
      if (!sender.acked(id)) {
        ASSERT_LE(now - last_sent[id], 0.05 + 1e-9) << id;
      }
    }
    for (int k = 0; k < 3; ++k) sender.on_fragment_acked(static_cast<uint32_t>(rng() % 128));
  }
  EXPECT_EQ(sender.counters().blocks_completed, 1u);
}

// ---- Sender: budget ----

TEST(BlockSender, SeveralFragmentsPerUpdateWithinBudget) {
  BlockConfig config;  // 262144 B/s, 1024 + 40 per fragment
  BlockSender sender(config);
  sender.reset(0.0);
  ASSERT_TRUE(sender.begin(256 * 1024, 0.0));
  const double tick = 1.0 / 60.0;
  // 262144 / 60 = 4369 bytes per tick: four 1064-byte fragments, the remainder carried over.
  size_t total = 0;
  for (int t = 1; t <= 60; ++t) {
    const size_t n = drain(sender, t * tick).size();
    EXPECT_GE(n, 4u);
    EXPECT_LE(n, 5u);
    total += n;
  }
  EXPECT_EQ(total, static_cast<size_t>(262144 / 1064));  // one second of budget, nothing lost
  EXPECT_LE(sender.counters().budget_spent, 262144u);
}

TEST(BlockSender, IdleTimeBanksAtMostTheCap) {
  BlockConfig config;
  config.max_budget_bytes = 5 * 1064;
  BlockSender sender(config);
  sender.reset(0.0);
  ASSERT_TRUE(sender.begin(256 * 1024, 100.0));  // 100 s idle
  EXPECT_EQ(sender.budget_bytes(), 5 * 1064.0);
  EXPECT_EQ(drain(sender, 100.0).size(), 5u);
  EXPECT_LT(sender.budget_bytes(), 1064.0);
}

TEST(BlockSender, ClockSteppingBackAccruesNothing) {
  BlockConfig config;
  BlockSender sender(config);
  sender.reset(10.0);
  sender.update(9.0);
  EXPECT_EQ(sender.budget_bytes(), 0.0);
  sender.update(10.0);
  EXPECT_EQ(sender.budget_bytes(), 0.0);
}

TEST(BlockSender, SetBandwidthAppliesFromNowAndRefusesBadRates) {
  BlockConfig config;
  config.bandwidth_bytes_per_second = 1000.0;
  config.max_budget_bytes = 1 << 20;
  BlockSender sender(config);
  sender.reset(0.0);
  EXPECT_TRUE(sender.set_bandwidth(3000.0, 2.0));  // 2 s at 1000 B/s accrued before the change
  EXPECT_EQ(sender.budget_bytes(), 2000.0);
  sender.update(3.0);
  EXPECT_EQ(sender.budget_bytes(), 5000.0);
  EXPECT_FALSE(sender.set_bandwidth(0.0, 3.0));
  EXPECT_FALSE(sender.set_bandwidth(std::nan(""), 3.0));
  EXPECT_EQ(sender.config().bandwidth_bytes_per_second, 3000.0);
}

TEST(BlockSender, InitialBurstSendsWithoutBudget) {
  BlockConfig config;
  config.max_block_size = 64 * 1024;
  config.initial_burst_bytes = 64 * (1024 + 40);
  BlockSender sender(config);
  sender.reset(0.0);
  ASSERT_TRUE(sender.begin(64 * 1024, 0.0));
  EXPECT_EQ(drain(sender, 0.0), range(0, 64));  // the whole block at once
  EXPECT_EQ(sender.counters().budget_spent, 0u);
  EXPECT_EQ(sender.counters().burst_spent, 64u * 1064u);
  EXPECT_TRUE(drain(sender, 0.05).empty());  // then the resend delay and the budget rule again
  // 0.1 s accrues 26214 bytes, capped at max_budget_bytes (16384): 15 fragments of 1064.
  EXPECT_EQ(drain(sender, 0.1).size(), 15u);
}

// ---- Receiver ----

struct ReceiverFixture : ::testing::Test {
  BlockConfig config = [] {
    BlockConfig c;
    c.max_block_size = 10 * 100;
    c.fragment_size = 100;
    c.max_budget_bytes = 1000;
    return c;
  }();
  BlockReceiver receiver{config};
  std::vector<uint8_t> block = pattern_payload(950, 7);  // 10 fragments, the last 50 bytes

  BlockFragmentResult give(uint32_t id, uint32_t count = 10, uint32_t block_id = 3) {
    const size_t offset = static_cast<size_t>(id) * 100;
    const size_t size = offset < block.size() ? std::min<size_t>(100, block.size() - offset) : 100;
    std::vector<uint8_t> bytes(size);
    for (size_t i = 0; i < size; ++i) bytes[i] = offset + i < block.size() ? block[offset + i] : 0;
    return receiver.on_fragment(block_id, id, count, test::view(bytes));
  }
};

TEST_F(ReceiverFixture, ReassemblesOutOfOrderAndCompletesOnce) {
  const uint32_t order[] = {9, 3, 0, 7, 1, 2, 8, 4, 6};
  for (uint32_t id : order) EXPECT_EQ(give(id), BlockFragmentResult::kAccepted) << id;
  EXPECT_EQ(give(3), BlockFragmentResult::kDuplicate);
  EXPECT_FALSE(receiver.complete());
  EXPECT_EQ(give(5), BlockFragmentResult::kCompleted);
  EXPECT_TRUE(receiver.complete());
  EXPECT_EQ(test::to_vector(receiver.block()), block);
  EXPECT_EQ(give(5), BlockFragmentResult::kAlreadyComplete);
  EXPECT_EQ(give(0, 10, 4), BlockFragmentResult::kBusy);
  EXPECT_EQ(receiver.counters().blocks_completed, 1u);
  EXPECT_EQ(receiver.counters().count(BlockFragmentResult::kCompleted), 1u);
  receiver.release();
  EXPECT_FALSE(receiver.complete());
  EXPECT_TRUE(receiver.block().empty());
  EXPECT_EQ(give(0, 10, 4), BlockFragmentResult::kAccepted);  // the next block
}

TEST_F(ReceiverFixture, RejectsCountOutOfRange) {
  EXPECT_EQ(give(0, 0), BlockFragmentResult::kCountOutOfRange);
  EXPECT_EQ(give(0, 11), BlockFragmentResult::kCountOutOfRange);
  EXPECT_EQ(receiver.counters().count(BlockFragmentResult::kCountOutOfRange), 2u);
  EXPECT_FALSE(receiver.receiving());
}

TEST_F(ReceiverFixture, RejectsIdOutOfRange) {
  EXPECT_EQ(receiver.on_fragment(3, 10, 10, test::view(std::vector<uint8_t>(100))),
            BlockFragmentResult::kIdOutOfRange);
  EXPECT_EQ(receiver.on_fragment(3, 0xFFFFFFFFu, 10, test::view(std::vector<uint8_t>(100))),
            BlockFragmentResult::kIdOutOfRange);
  EXPECT_FALSE(receiver.receiving());
}

TEST_F(ReceiverFixture, RejectsWrongFragmentSize) {
  EXPECT_EQ(receiver.on_fragment(3, 0, 10, test::view(std::vector<uint8_t>(99))),
            BlockFragmentResult::kSizeMismatch);
  EXPECT_EQ(receiver.on_fragment(3, 0, 10, test::view(std::vector<uint8_t>(101))),
            BlockFragmentResult::kSizeMismatch);
  EXPECT_EQ(receiver.on_fragment(3, 9, 10, test::view(std::vector<uint8_t>())),
            BlockFragmentResult::kSizeMismatch);
  EXPECT_EQ(receiver.on_fragment(3, 9, 10, test::view(std::vector<uint8_t>(101))),
            BlockFragmentResult::kSizeMismatch);
  EXPECT_EQ(receiver.counters().count(BlockFragmentResult::kSizeMismatch), 4u);
  EXPECT_FALSE(receiver.receiving());
}

TEST(BlockReceiver, RejectsBlockLargerThanMax) {
  BlockConfig config;
  config.max_block_size = 950;  // 10 fragments of 100, the last at most 50
  config.fragment_size = 100;
  BlockReceiver receiver(config);
  EXPECT_EQ(receiver.on_fragment(0, 9, 10, test::view(std::vector<uint8_t>(51))),
            BlockFragmentResult::kTooLarge);
  EXPECT_EQ(receiver.on_fragment(0, 9, 10, test::view(std::vector<uint8_t>(50))),
            BlockFragmentResult::kAccepted);
}

TEST_F(ReceiverFixture, RejectsDisagreementWithFirstFragment) {
  EXPECT_EQ(give(4), BlockFragmentResult::kAccepted);  // the first seen fixes block id 3 and count 10
  EXPECT_EQ(give(5, 10, 4), BlockFragmentResult::kBlockIdMismatch);
  EXPECT_EQ(receiver.on_fragment(3, 5, 9, test::view(std::vector<uint8_t>(100))),
            BlockFragmentResult::kCountMismatch);
  EXPECT_EQ(give(9), BlockFragmentResult::kAccepted);
  EXPECT_EQ(receiver.on_fragment(3, 9, 10, test::view(std::vector<uint8_t>(60))),
            BlockFragmentResult::kLastSizeMismatch);
  EXPECT_EQ(receiver.fragments_received(), 2u);
  EXPECT_EQ(receiver.counters().count(BlockFragmentResult::kBlockIdMismatch), 1u);
  EXPECT_EQ(receiver.counters().count(BlockFragmentResult::kCountMismatch), 1u);
  EXPECT_EQ(receiver.counters().count(BlockFragmentResult::kLastSizeMismatch), 1u);
}

TEST_F(ReceiverFixture, ReceivedBitsMatchStoredFragments) {
  give(0);
  give(3);
  give(9);
  uint8_t bits[2] = {0xEE, 0xEE};
  ASSERT_EQ(receiver.write_received_bits(test::writable(bits)), 2u);
  EXPECT_EQ(bits[0], 0b0000'1001);
  EXPECT_EQ(bits[1], 0b0000'0010);  // bits 10..15 (beyond the count) are zero
  uint8_t short_out[1];
  EXPECT_EQ(receiver.write_received_bits(test::writable(short_out)), 0u);
}

TEST(BlockReceiver, ConstructionAllocatesMaxOnceAndHostileFragmentsNeverAllocate) {
  BITWIRE_SEEDED_TEST_SEED(0x4057);
  std::mt19937_64 rng(seed);
  const BlockConfig config;
  const auto before_construction = test::counting_allocations;
  BlockReceiver receiver(config);
  const auto constructed = test::counting_allocations;
  EXPECT_EQ(constructed.bytes - before_construction.bytes, receiver.memory_bytes());
  EXPECT_EQ(receiver.memory_bytes(), 256u * 1024u + 256u / 8u);
  std::vector<uint8_t> buffer(70000, 0xAB);
  const auto before = test::counting_allocations;
  for (int i = 0; i < 200000; ++i) {
    const uint32_t count = rng() % 4 == 0 ? static_cast<uint32_t>(rng()) : static_cast<uint32_t>(rng() % 300);
    const uint32_t id = rng() % 4 == 0 ? static_cast<uint32_t>(rng()) : static_cast<uint32_t>(rng() % 300);
    const size_t size = rng() % 3 == 0 ? 1024 : rng() % buffer.size();
    const BlockFragmentResult result = receiver.on_fragment(static_cast<uint32_t>(rng() % 3), id, count,
                                                            test::view(std::span(buffer.data(), size)));
    if (receiver.complete()) receiver.release();
    ASSERT_LE(static_cast<int>(result), kBlockFragmentResultCount - 1);
  }
  EXPECT_EQ(test::counting_allocations.count, before.count);
  EXPECT_EQ(receiver.memory_bytes(), 256u * 1024u + 256u / 8u);
}

// fragment_ready is the connection's question before each extra packet: it must answer exactly what
// next_fragment would do, at every time, room and budget, without changing the schedule.
TEST(BlockSender, FragmentReadyAgreesWithNextFragment) {
  BITWIRE_SEEDED_TEST_SEED(0x4ead);
  std::mt19937_64 rng(seed);
  BlockConfig config;
  config.max_block_size = 64 * 1024;
  config.initial_burst_bytes = 5000;
  BlockSender sender(config);
  sender.reset(0.0);
  double now = 0.0;
  int ready_count = 0;
  for (int i = 0; i < 20000; ++i) {
    if (!sender.sending()) {
      ASSERT_TRUE(sender.begin(1 + static_cast<uint32_t>(rng() % (64 * 1024)), now));
    }
    now += (rng() % 4) * 0.004;
    const size_t room = rng() % 5 == 0 ? rng() % 1100 : 1024;
    const bool ready = sender.fragment_ready(now, room);
    const std::optional<BlockFragment> fragment = sender.next_fragment(now, room);
    ASSERT_EQ(ready, fragment.has_value()) << "step " << i;
    ready_count += ready ? 1 : 0;
    if (fragment && rng() % 3 != 0) sender.on_fragment_acked(fragment->id);
  }
  EXPECT_GT(ready_count, 1000);
}

// classify is what the channel checks a whole packet with before applying any of it: it must agree with
// on_fragment (which reports the completing fragment as kCompleted) on every input.
TEST(BlockReceiver, ClassifyAgreesWithOnFragment) {
  BITWIRE_SEEDED_TEST_SEED(0xc1a5);
  std::mt19937_64 rng(seed);
  BlockConfig config;
  config.max_block_size = 16 * 100;
  config.fragment_size = 100;
  config.max_budget_bytes = 1000;
  BlockReceiver receiver(config);
  std::vector<uint8_t> buffer(300, 0x5C);
  for (int i = 0; i < 100000; ++i) {
    const uint32_t count = static_cast<uint32_t>(rng() % 19);
    const uint32_t id = static_cast<uint32_t>(rng() % 20);
    const size_t size = rng() % 2 == 0 ? 100 : rng() % 120;
    const uint32_t block_id = static_cast<uint32_t>(rng() % 2);
    const BlockFragmentResult expected = receiver.classify(block_id, id, count, size);
    BlockFragmentResult got =
        receiver.on_fragment(block_id, id, count, test::view(std::span(buffer.data(), size)));
    if (got == BlockFragmentResult::kCompleted) got = BlockFragmentResult::kAccepted;
    ASSERT_EQ(expected, got) << "step " << i;
    if (receiver.complete() && rng() % 4 == 0) receiver.release();
  }
  EXPECT_GT(receiver.counters().blocks_completed, 0u);
}

TEST(BlockSender, ConstructionAllocatesMemoryBytesAndSendingNeverAllocates) {
  const BlockConfig config;
  const auto before_construction = test::counting_allocations;
  BlockSender sender(config);
  EXPECT_EQ(test::counting_allocations.bytes - before_construction.bytes, sender.memory_bytes());
  const auto before = test::counting_allocations;
  double now = 0.0;
  for (int block = 0; block < 20; ++block) {
    ASSERT_TRUE(sender.begin(static_cast<uint32_t>(1 + block * 13000), now));
    while (sender.sending()) {
      now += 1.0 / 60.0;
      while (auto f = sender.next_fragment(now, 2048)) sender.on_fragment_acked(f->id);
    }
  }
  EXPECT_EQ(test::counting_allocations.count, before.count);
  EXPECT_EQ(sender.counters().blocks_completed, 20u);
}

}  // namespace
}  // namespace bitwire
