// Chunk sender / receiver: golden bytes derived by hand from docs/blocks.md, every receiver (and sender)
// obligation as its own test, ack rate limiting, and whole transfers over the network simulator with loss
// on both directions, latency, jitter, duplicates and reordering, with caps in ticks derived from the
// bandwidth budget and memory held constant (counting allocator).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "bitwire/message/chunk.hpp"
#include "bitwire/packet/endpoint.hpp"
#include "bitwire/sim/link.hpp"
#include "bitwire/sim/simulator.hpp"
#include "support/endpoint_harness.hpp"
#include "support/seed.hpp"
#include "support/bytes.hpp"

namespace bitwire {
namespace {

using Bytes = std::vector<uint8_t>;
using test::pattern_payload;

// 16-byte chunks in 4-byte slices: small enough to write every byte of a packet by hand.
ChunkConfig tiny_config() {
  ChunkConfig config;
  config.block.max_block_size = 16;
  config.block.fragment_size = 4;
  config.block.max_budget_bytes = 1 << 20;
  config.block.bandwidth_bytes_per_second = 1e9;
  config.max_packet_size = 64;
  config.ack_interval = 0.0;
  return config;
}

std::vector<Bytes> collect_slices(ChunkSender& sender, double now) {
  std::vector<Bytes> packets;
  sender.generate_packets(now, [&](std::span<const std::byte> p) { packets.push_back(test::to_vector(p)); });
  return packets;
}

std::vector<Bytes> collect_acks(ChunkReceiver& receiver, double now) {
  std::vector<Bytes> packets;
  receiver.generate_packets(now,
                            [&](std::span<const std::byte> p) { packets.push_back(test::to_vector(p)); });
  return packets;
}

const Bytes kTenBytes = {0xD0, 0xD1, 0xD2, 0xD3, 0xD4, 0xD5, 0xD6, 0xD7, 0xD8, 0xD9};

// ---- Golden bytes ----

TEST(ChunkGolden, SlicePacketsOfATenByteChunk) {
  ChunkSender sender(tiny_config());
  ASSERT_TRUE(sender.send(test::view(kTenBytes), 1.0));
  const std::vector<Bytes> slices = collect_slices(sender, 1.0);
  ASSERT_EQ(slices.size(), 3u);
  // kind 01 | chunk id 0000 | slice id | slice count - 1 = 0002 | [last: slice bytes - 1] | data
  EXPECT_EQ(slices[0], (Bytes{0x01, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0xD0, 0xD1, 0xD2, 0xD3}));
  EXPECT_EQ(slices[1], (Bytes{0x01, 0x00, 0x00, 0x01, 0x00, 0x02, 0x00, 0xD4, 0xD5, 0xD6, 0xD7}));
  EXPECT_EQ(slices[2], (Bytes{0x01, 0x00, 0x00, 0x02, 0x00, 0x02, 0x00, 0x01, 0x00, 0xD8, 0xD9}));
}

TEST(ChunkGolden, AckPacketsPartialAndFull) {
  ChunkSender sender(tiny_config());
  ChunkReceiver receiver(tiny_config());
  ASSERT_TRUE(sender.send(test::view(kTenBytes), 1.0));
  const std::vector<Bytes> slices = collect_slices(sender, 1.0);
  EXPECT_EQ(receiver.process_packet(test::view(slices[0])), ChunkResult::kSliceAccepted);
  EXPECT_EQ(receiver.process_packet(test::view(slices[2])), ChunkResult::kSliceAccepted);
  // kind 02 | chunk id 0000 | slice count - 1 = 0002 | bitfield: slices 0 and 2 = 0b101
  EXPECT_EQ(collect_acks(receiver, 1.0), (std::vector<Bytes>{{0x02, 0x00, 0x00, 0x02, 0x00, 0x05}}));
  EXPECT_EQ(receiver.process_packet(test::view(slices[1])), ChunkResult::kChunkCompleted);
  EXPECT_EQ(collect_acks(receiver, 1.0), (std::vector<Bytes>{{0x02, 0x00, 0x00, 0x02, 0x00, 0x07}}));
}

TEST(ChunkGolden, SecondChunkCarriesIdOne) {
  ChunkSender sender(tiny_config());
  ASSERT_TRUE(sender.send(test::view(Bytes{0xAA}), 1.0));
  collect_slices(sender, 1.0);
  EXPECT_EQ(sender.process_packet(test::view(Bytes{0x02, 0x00, 0x00, 0x00, 0x00, 0x01})),
            ChunkResult::kAckCompleted);
  EXPECT_EQ(sender.chunk_id(), 1);
  ASSERT_TRUE(sender.send(test::view(Bytes{0xBB, 0xCC}), 1.0));
  EXPECT_EQ(collect_slices(sender, 1.0),
            (std::vector<Bytes>{{0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0xBB, 0xCC}}));
}

// ---- Receiver obligations ----

struct ChunkReceiverObligations : ::testing::Test {
  ChunkReceiver receiver{tiny_config()};
  static Bytes slice(uint16_t chunk, uint16_t id, uint16_t count_minus_one, const Bytes& data,
                     int last_bytes_minus_one = -1) {
    Bytes p = {0x01,
               static_cast<uint8_t>(chunk),
               static_cast<uint8_t>(chunk >> 8),
               static_cast<uint8_t>(id),
               static_cast<uint8_t>(id >> 8),
               static_cast<uint8_t>(count_minus_one),
               static_cast<uint8_t>(count_minus_one >> 8)};
    if (last_bytes_minus_one >= 0) {
      p.push_back(static_cast<uint8_t>(last_bytes_minus_one));
      p.push_back(static_cast<uint8_t>(last_bytes_minus_one >> 8));
    }
    p.insert(p.end(), data.begin(), data.end());
    return p;
  }
  void expect_nothing_stored() {
    EXPECT_FALSE(receiver.reassembly().receiving());
    EXPECT_TRUE(collect_acks(receiver, 5.0).empty());
  }
};

TEST_F(ChunkReceiverObligations, BadChunkIdIsDropped) {
  EXPECT_EQ(receiver.process_packet(test::view(slice(1, 0, 1, {1, 2, 3, 4}))), ChunkResult::kBadChunkId);
  EXPECT_EQ(receiver.process_packet(test::view(slice(0xFFFF, 0, 1, {1, 2, 3, 4}))),
            ChunkResult::kBadChunkId);  // no chunk yet
  EXPECT_EQ(receiver.counters().count(ChunkResult::kBadChunkId), 2u);
  expect_nothing_stored();
}

TEST_F(ChunkReceiverObligations, SliceIdOutOfRangeIsDropped) {
  EXPECT_EQ(receiver.process_packet(test::view(slice(0, 2, 1, {1, 2, 3, 4}))), ChunkResult::kSliceOutOfRange);
  EXPECT_EQ(receiver.process_packet(test::view(slice(0, 0xFFFF, 0, {1, 2, 3, 4}))),
            ChunkResult::kSliceOutOfRange);
  expect_nothing_stored();
}

TEST_F(ChunkReceiverObligations, SliceCountAboveMaxIsDropped) {
  // max_block_size 16 / fragment_size 4 allows 4 slices.
  EXPECT_EQ(receiver.process_packet(test::view(slice(0, 0, 4, {1, 2, 3, 4}))), ChunkResult::kCountOutOfRange);
  EXPECT_EQ(receiver.process_packet(test::view(slice(0, 0, 0xFFFF, {1, 2, 3, 4}))),
            ChunkResult::kCountOutOfRange);
  expect_nothing_stored();
}

TEST_F(ChunkReceiverObligations, LastSliceLargerThanSliceSizeIsDropped) {
  EXPECT_EQ(receiver.process_packet(test::view(slice(0, 1, 1, {1, 2, 3, 4, 5}, 4))),
            ChunkResult::kSizeMismatch);
  expect_nothing_stored();
}

TEST_F(ChunkReceiverObligations, SliceCountDisagreeingWithFirstSliceIsDropped) {
  EXPECT_EQ(receiver.process_packet(test::view(slice(0, 0, 2, {1, 2, 3, 4}))), ChunkResult::kSliceAccepted);
  EXPECT_EQ(receiver.process_packet(test::view(slice(0, 1, 1, {5, 6}, 1))), ChunkResult::kCountMismatch);
  EXPECT_EQ(receiver.process_packet(test::view(slice(0, 1, 3, {5, 6, 7, 8}))), ChunkResult::kCountMismatch);
  EXPECT_EQ(receiver.reassembly().fragments_received(), 1u);
}

TEST_F(ChunkReceiverObligations, LastSliceSizeDisagreeingWithStoredIsDropped) {
  EXPECT_EQ(receiver.process_packet(test::view(slice(0, 1, 1, {5, 6}, 1))), ChunkResult::kSliceAccepted);
  EXPECT_EQ(receiver.process_packet(test::view(slice(0, 1, 1, {5, 6, 7}, 2))),
            ChunkResult::kLastSizeMismatch);
  EXPECT_EQ(receiver.process_packet(test::view(slice(0, 1, 1, {5, 6}, 1))), ChunkResult::kSliceDuplicate);
  EXPECT_EQ(receiver.process_packet(test::view(slice(0, 0, 1, {1, 2, 3, 4}))), ChunkResult::kChunkCompleted);
  EXPECT_EQ(test::to_vector(receiver.chunk()), (Bytes{1, 2, 3, 4, 5, 6}));
}

TEST(ChunkReceiverLimits, ChunkLargerThanMaxIsDropped) {
  ChunkConfig config = tiny_config();
  config.block.max_block_size = 14;  // 4 slices, the last at most 2 bytes
  ChunkReceiver receiver(config);
  using Obligations = ChunkReceiverObligations;
  EXPECT_EQ(receiver.process_packet(test::view(Obligations::slice(0, 3, 3, {1, 2, 3}, 2))),
            ChunkResult::kTooLarge);
  EXPECT_EQ(receiver.process_packet(test::view(Obligations::slice(0, 3, 3, {1, 2}, 1))),
            ChunkResult::kSliceAccepted);
}

TEST_F(ChunkReceiverObligations, SliceOfCompletedChunkIsReacked) {
  EXPECT_EQ(receiver.process_packet(test::view(slice(0, 0, 0, {9}, 0))), ChunkResult::kChunkCompleted);
  EXPECT_EQ(collect_acks(receiver, 1.0), (std::vector<Bytes>{{0x02, 0x00, 0x00, 0x00, 0x00, 0x01}}));
  receiver.release_chunk();
  EXPECT_TRUE(collect_acks(receiver, 2.0).empty());
  // The sender missed the ack and sends the slice again: answered with the full ack, nothing stored.
  EXPECT_EQ(receiver.process_packet(test::view(slice(0, 0, 0, {9}, 0))), ChunkResult::kReacked);
  EXPECT_EQ(collect_acks(receiver, 3.0), (std::vector<Bytes>{{0x02, 0x00, 0x00, 0x00, 0x00, 0x01}}));
  EXPECT_FALSE(receiver.has_chunk());
  EXPECT_EQ(receiver.reassembly().counters().blocks_completed, 1u);
  // ... even if it disagrees in size, but not in count.
  EXPECT_EQ(receiver.process_packet(test::view(slice(0, 0, 1, {1, 2, 3, 4}))), ChunkResult::kCountMismatch);
}

TEST_F(ChunkReceiverObligations, NextChunkWhileCompletedUnreleasedIsBusy) {
  EXPECT_EQ(receiver.process_packet(test::view(slice(0, 0, 0, {9}, 0))), ChunkResult::kChunkCompleted);
  EXPECT_EQ(receiver.process_packet(test::view(slice(1, 0, 0, {7}, 0))), ChunkResult::kBusy);
  EXPECT_EQ((test::to_vector(receiver.chunk())), (Bytes{9}));
  receiver.release_chunk();
  EXPECT_EQ(receiver.process_packet(test::view(slice(1, 0, 0, {7}, 0))), ChunkResult::kChunkCompleted);
  EXPECT_EQ((test::to_vector(receiver.chunk())), (Bytes{7}));
}

TEST_F(ChunkReceiverObligations, TruncatedPacketsAtEveryLength) {
  const Bytes middle = slice(0, 0, 2, {1, 2, 3, 4});
  const Bytes last = slice(0, 2, 2, {9, 10, 11}, 2);
  for (const Bytes* full : {&middle, &last}) {
    for (size_t length = 0; length < full->size(); ++length) {
      EXPECT_EQ(receiver.process_packet(test::view(std::span(full->data(), length))), ChunkResult::kTruncated)
          << length;
    }
  }
  expect_nothing_stored();
  EXPECT_EQ(receiver.process_packet(test::view(middle)), ChunkResult::kSliceAccepted);
}

TEST_F(ChunkReceiverObligations, TrailingBytesAreDropped) {
  EXPECT_EQ(receiver.process_packet(test::view(slice(0, 0, 2, {1, 2, 3, 4, 5}))),
            ChunkResult::kTrailingBytes);
  EXPECT_EQ(receiver.process_packet(test::view(slice(0, 2, 2, {9, 10, 11, 12}, 2))),
            ChunkResult::kTrailingBytes);
  expect_nothing_stored();
}

TEST_F(ChunkReceiverObligations, UnknownKindIsDropped) {
  Bytes p = slice(0, 0, 0, {1}, 0);
  for (uint8_t kind : {0x00, 0x02, 0x03, 0xFF}) {
    p[0] = kind;
    EXPECT_EQ(receiver.process_packet(test::view(p)), ChunkResult::kBadKind);
  }
  expect_nothing_stored();
}

TEST_F(ChunkReceiverObligations, AckFloodIsRateLimited) {
  ChunkConfig config = tiny_config();
  config.ack_interval = 4.0 / 64.0;  // binary-exact times: no rounding at the interval edges
  ChunkReceiver limited(config);
  const Bytes first = slice(0, 0, 2, {1, 2, 3, 4});
  int acks = 0;
  for (int tick = 0; tick < 100; ++tick) {  // 100 ticks of 1/64 s, 1000 duplicate slices per tick
    for (int i = 0; i < 1000; ++i) limited.process_packet(test::view(first));
    acks += static_cast<int>(collect_acks(limited, tick / 64.0).size());
  }
  EXPECT_EQ(acks, 25);  // one per 4 ticks, not one per slice
}

// ---- Sender obligations (ack packets) ----

struct ChunkSenderObligations : ::testing::Test {
  ChunkSender sender{tiny_config()};
  void SetUp() override {
    ASSERT_TRUE(sender.send(test::view(kTenBytes), 1.0));
    collect_slices(sender, 1.0);
  }
};

TEST_F(ChunkSenderObligations, TruncatedAckAtEveryLength) {
  const Bytes ack = {0x02, 0x00, 0x00, 0x02, 0x00, 0x07};
  for (size_t length = 0; length < ack.size(); ++length) {
    EXPECT_EQ(sender.process_packet(test::view(std::span(ack.data(), length))), ChunkResult::kTruncated)
        << length;
  }
  EXPECT_EQ(sender.scheduler().fragments_acked(), 0u);
}

TEST_F(ChunkSenderObligations, AckWithTrailingBytesIsDropped) {
  EXPECT_EQ(sender.process_packet(test::view(Bytes{0x02, 0x00, 0x00, 0x02, 0x00, 0x07, 0x00})),
            ChunkResult::kTrailingBytes);
  EXPECT_EQ(sender.scheduler().fragments_acked(), 0u);
}

TEST_F(ChunkSenderObligations, AckPaddingBitsSetIsDropped) {
  EXPECT_EQ(sender.process_packet(test::view(Bytes{0x02, 0x00, 0x00, 0x02, 0x00, 0x0F})),
            ChunkResult::kBadPadding);
  EXPECT_EQ(sender.scheduler().fragments_acked(), 0u);
}

TEST_F(ChunkSenderObligations, AckOfAnotherChunkIsIgnored) {
  EXPECT_EQ(sender.process_packet(test::view(Bytes{0x02, 0x01, 0x00, 0x02, 0x00, 0x07})),
            ChunkResult::kAckStale);
  EXPECT_EQ(sender.process_packet(test::view(Bytes{0x02, 0xFF, 0xFF, 0x02, 0x00, 0x07})),
            ChunkResult::kAckStale);
  EXPECT_TRUE(sender.sending());
}

TEST_F(ChunkSenderObligations, AckCountDisagreeingIsDropped) {
  EXPECT_EQ(sender.process_packet(test::view(Bytes{0x02, 0x00, 0x00, 0x01, 0x00, 0x03})),
            ChunkResult::kCountMismatch);
  EXPECT_EQ(sender.scheduler().fragments_acked(), 0u);
}

TEST_F(ChunkSenderObligations, UnknownKindIsDropped) {
  EXPECT_EQ(sender.process_packet(test::view(Bytes{0x01, 0x00, 0x00, 0x02, 0x00, 0x07})),
            ChunkResult::kBadKind);
}

TEST_F(ChunkSenderObligations, PartialAcksThenCompletion) {
  EXPECT_EQ(sender.process_packet(test::view(Bytes{0x02, 0x00, 0x00, 0x02, 0x00, 0x05})),
            ChunkResult::kAckApplied);
  EXPECT_EQ(sender.scheduler().fragments_acked(), 2u);
  // Only slice 1 is resent once the delay has passed.
  const std::vector<Bytes> resent = collect_slices(sender, 1.2);
  ASSERT_EQ(resent.size(), 1u);
  EXPECT_EQ(resent[0][3], 0x01);
  // An older ack arriving late cannot un-ack anything.
  EXPECT_EQ(sender.process_packet(test::view(Bytes{0x02, 0x00, 0x00, 0x02, 0x00, 0x01})),
            ChunkResult::kAckApplied);
  EXPECT_EQ(sender.scheduler().fragments_acked(), 2u);
  EXPECT_EQ(sender.process_packet(test::view(Bytes{0x02, 0x00, 0x00, 0x02, 0x00, 0x07})),
            ChunkResult::kAckCompleted);
  EXPECT_FALSE(sender.sending());
  EXPECT_EQ(sender.process_packet(test::view(Bytes{0x02, 0x00, 0x00, 0x02, 0x00, 0x07})),
            ChunkResult::kAckStale);
  EXPECT_EQ(sender.chunks_completed(), 1u);
}

TEST(ChunkSender, SendRefusesBusyEmptyAndTooLarge) {
  ChunkSender sender(tiny_config());
  EXPECT_FALSE(sender.send(test::view(Bytes{}), 0.0));
  EXPECT_FALSE(sender.send(test::view(Bytes(17, 1)), 0.0));
  EXPECT_TRUE(sender.send(test::view(Bytes(16, 1)), 0.0));
  EXPECT_FALSE(sender.send(test::view(Bytes(1, 1)), 0.0));
}

TEST(ChunkConfig, DefaultsValidAndBadPacketSizeNamed) {
  EXPECT_TRUE(ChunkConfig{}.check().ok());
  ChunkConfig c;
  c.max_packet_size = 1000;  // below a 1024-byte slice
  ASSERT_FALSE(c.check().ok());
  EXPECT_STREQ(
      c.check().reason(),
      "ChunkConfig.max_packet_size = 1000 is outside [1033, 65545] (min: max(block.fragment_size + 9, "
      "ceil(block.max_fragments() / 8) + 5))");
  EXPECT_TRUE(c.sanitized().check().ok());
  EXPECT_EQ(c.sanitized().max_packet_size, 1024 + 9);
  c = ChunkConfig{};
  c.block.fragment_size = 0;
  ASSERT_NE(c.check().reason(), nullptr);
  EXPECT_NE(std::string(c.check().reason()).find("fragment_size"), std::string::npos);
  c = ChunkConfig{};
  c.block.fragment_size = 1;
  c.block.max_block_size = 65536;
  c.max_packet_size = 100;  // an ack of 65536 slices needs 8197 bytes
  ASSERT_NE(c.check().reason(), nullptr);
  EXPECT_NE(
      std::string(c.check().reason()).find("ChunkConfig.max_packet_size = 100 is outside [8197, 65545]"),
      std::string::npos);
  EXPECT_EQ(c.sanitized().max_packet_size, 8192 + 5);
}

// ---- Transfers over the network simulator ----

// One sender and one receiver joined by a NetworkSimulator each way, stepped at 60 Hz.
struct Transfer {
  static constexpr double kTick = 1.0 / 60.0;
  ChunkConfig config;
  ChunkSender sender;
  ChunkReceiver receiver;
  NetworkSimulator forward;   // slices
  NetworkSimulator backward;  // acks
  double now = 0.0;
  uint64_t ticks = 0;

  Transfer(const ChunkConfig& c, const NetworkConditions& conditions, uint64_t seed)
      : config(c),
        sender(c),
        receiver(c),
        forward(NetworkSimulatorConfig{seed, 4096, 1200, conditions}),
        backward(NetworkSimulatorConfig{seed ^ 0x9E3779B97F4A7C15ull, 4096, 1200, conditions}) {}

  void step() {
    now += kTick;
    ++ticks;
    sender.generate_packets(now, [&](std::span<const std::byte> p) { forward.send(now, p); });
    forward.deliver(now, [&](std::span<const std::byte> p) { receiver.process_packet(p); });
    receiver.generate_packets(now, [&](std::span<const std::byte> p) { backward.send(now, p); });
    backward.deliver(now, [&](std::span<const std::byte> p) { sender.process_packet(p); });
  }

  // Steps until the receiver holds a chunk or `cap` ticks pass. Returns the ticks taken (cap + 1 if not).
  uint64_t until_received(uint64_t cap) {
    const uint64_t start = ticks;
    while (!receiver.has_chunk()) {
      if (ticks - start > cap) return cap + 1;
      step();
    }
    return ticks - start;
  }
};

NetworkConditions hostile_network(double loss) {
  NetworkConditions c;
  c.latency_ms = 50.0;
  c.jitter_ms = 20.0;
  c.loss_percent = loss;
  c.duplicate_percent = 10.0;
  c.reorder_percent = 10.0;
  c.reorder_delay_ms = 30.0;
  return c;
}

// The time the budget implies for one block at `loss` (each direction): every fragment costs its bytes
// plus the overhead, a fraction (1 - loss) of the sends arrive, plus one worst-case one-way trip.
double budget_time(const BlockConfig& block, uint32_t size, double loss_percent,
                   const NetworkConditions& net) {
  const double fragments = std::ceil(static_cast<double>(size) / block.fragment_size);
  const double wire = size + fragments * block.fragment_overhead_bytes;
  return wire / (block.bandwidth_bytes_per_second * (1.0 - loss_percent / 100.0)) +
         (net.latency_ms + net.jitter_ms + net.reorder_delay_ms) / 1000.0;
}

// The tail the budget does not cover: once few fragments remain, each further round costs
// min_resend_delay, not budget, and the unluckiest of n fragments needs about ln(n) / ln(1 / loss)
// rounds at this loss.
double resend_tail(const BlockConfig& block, uint32_t size, double loss_percent) {
  if (loss_percent <= 0.0) return 0.0;
  const double fragments = std::ceil(static_cast<double>(size) / block.fragment_size);
  return block.min_resend_delay * std::log(fragments) / std::log(100.0 / loss_percent);
}

class ChunkOverLoss : public ::testing::TestWithParam<double> {};

// One 256 KiB chunk arrives byte-exact within the budget's time plus 50%, with no allocation after
// construction, at 0, 25, 50 and 90% loss both ways (slices and acks), duplicates and reordering.
TEST_P(ChunkOverLoss, BlockArrivesByteExactWithinBudgetPlusHalf) {
  BITWIRE_SEEDED_TEST_SEED(0xc4u + static_cast<uint64_t>(GetParam()));
  const double loss = GetParam();
  const NetworkConditions net = hostile_network(loss);
  const ChunkConfig config;  // 256 KiB, 1 KiB slices, 262144 B/s, 40 bytes overhead
  Transfer transfer(config, net, seed);
  const Bytes block = pattern_payload(256 * 1024, static_cast<uint32_t>(seed));
  // The budget's time plus 50%, plus the resend tail. Caps at 60 Hz: 0% 103 ticks, 25% 158, 50% 245,
  // 90% 1260. Over 300 seeds the slowest runs took 69, 129, 195 and 945 ticks.
  const double allowed =
      1.5 * budget_time(config.block, 256 * 1024, loss, net) + resend_tail(config.block, 256 * 1024, loss);
  const uint64_t cap = static_cast<uint64_t>(std::ceil(allowed / Transfer::kTick));
  SCOPED_TRACE("cap " + std::to_string(cap) + " ticks");

  const auto before = test::counting_allocations;
  ASSERT_TRUE(transfer.sender.send(test::view(block), transfer.now));
  const uint64_t taken = transfer.until_received(cap);
  const auto after = test::counting_allocations;
  ASSERT_LE(taken, cap);
  const std::span<const std::byte> got = transfer.receiver.chunk();
  ASSERT_EQ(got.size(), block.size());
  EXPECT_TRUE(std::ranges::equal(got, test::view(block)));
  EXPECT_EQ(after.count, before.count) << "allocations during the transfer";
  std::printf("loss %.0f%%: %llu ticks (cap %llu), %llu slices sent (%llu resends), %llu acks sent\n", loss,
              static_cast<unsigned long long>(taken), static_cast<unsigned long long>(cap),
              static_cast<unsigned long long>(transfer.sender.scheduler().counters().fragments_sent),
              static_cast<unsigned long long>(transfer.sender.scheduler().counters().fragments_resent),
              static_cast<unsigned long long>(transfer.receiver.counters().packets_sent));
  // The sender learns of completion too (acks get through eventually).
  transfer.receiver.release_chunk();
  for (int i = 0; i < 6000 && transfer.sender.sending(); ++i) transfer.step();
  EXPECT_FALSE(transfer.sender.sending());
  EXPECT_EQ(transfer.sender.chunk_id(), 1);
}

INSTANTIATE_TEST_SUITE_P(Loss, ChunkOverLoss, ::testing::Values(0.0, 25.0, 50.0, 90.0), [](const auto& info) {
  return "Loss" + std::to_string(static_cast<int>(info.param));
});

// The sender's budget is respected on the wire: over the whole transfer, what it charged never exceeds
// what the budget accrued plus the cap.
TEST(ChunkTransfer, SenderNeverExceedsTheBudget) {
  const ChunkConfig config;
  Transfer transfer(config, hostile_network(25.0), 7);
  const Bytes block = pattern_payload(256 * 1024, 3);
  ASSERT_TRUE(transfer.sender.send(test::view(block), 0.0));
  transfer.until_received(100000);
  const double accrued =
      transfer.now * config.block.bandwidth_bytes_per_second + config.block.max_budget_bytes;
  EXPECT_LE(static_cast<double>(transfer.sender.scheduler().counters().budget_spent), accrued);
  // Data + overhead charged = bytes actually put on the wire minus the real header (7..9) plus 40.
  const auto& c = transfer.sender.scheduler().counters();
  EXPECT_EQ(c.budget_spent, c.bytes_sent + 40 * c.fragments_sent);
}

TEST(ChunkTransfer, InitialBurstMovesABlockInOneTrip) {
  ChunkConfig config;
  config.block.initial_burst_bytes = 256 * (1024 + 40);
  NetworkConditions net;
  net.latency_ms = 50.0;
  Transfer transfer(config, net, 11);
  const Bytes block = pattern_payload(256 * 1024, 5);
  ASSERT_TRUE(transfer.sender.send(test::view(block), 0.0));
  // 50 ms one way at 60 Hz: the burst is on the wire in the first tick and arrives 3 or 4 ticks later.
  EXPECT_LE(transfer.until_received(1000), 5u);
  EXPECT_TRUE(std::ranges::equal(transfer.receiver.chunk(), test::view(block)));
}

// Many chunks of assorted sizes back to back, each byte-exact and in order, memory constant throughout.
TEST(ChunkTransfer, ManyChunksBackToBack) {
  BITWIRE_SEEDED_TEST_SEED(0xb2b);
  std::mt19937_64 rng(seed);
  const ChunkConfig config;
  Transfer transfer(config, hostile_network(20.0), seed);
  std::vector<Bytes> chunks;
  for (int i = 0; i < 24; ++i) {
    const size_t size = i % 6 == 0 ? 256 * 1024 : 1 + rng() % (64 * 1024);
    chunks.push_back(pattern_payload(size, static_cast<uint32_t>(i)));
  }
  size_t next_to_send = 0;
  size_t received = 0;
  const auto before = test::counting_allocations;
  for (int tick = 0; tick < 60 * 120 && received < chunks.size(); ++tick) {
    if (!transfer.sender.sending() && next_to_send < chunks.size()) {
      ASSERT_TRUE(transfer.sender.send(test::view(chunks[next_to_send]), transfer.now));
      ++next_to_send;
    }
    transfer.step();
    if (transfer.receiver.has_chunk()) {
      const std::span<const std::byte> got = transfer.receiver.chunk();
      ASSERT_EQ(got.size(), chunks[received].size()) << received;
      ASSERT_TRUE(std::ranges::equal(got, test::view(chunks[received]))) << received;
      transfer.receiver.release_chunk();
      ++received;
    }
  }
  EXPECT_EQ(test::counting_allocations.count, before.count);
  EXPECT_EQ(received, chunks.size());
  EXPECT_EQ(transfer.receiver.reassembly().counters().blocks_completed, chunks.size());
}

// Chunk ids wrap at 65536 without confusing either side (a perfect, instant link).
TEST(ChunkTransfer, ChunkIdWraps) {
  ChunkConfig config;
  config.block.max_block_size = 64;
  config.block.fragment_size = 16;
  config.block.max_budget_bytes = 1 << 20;
  config.block.bandwidth_bytes_per_second = 1e9;
  config.ack_interval = 0.0;
  ChunkSender sender(config);
  ChunkReceiver receiver(config);
  double now = 1.0;
  const uint32_t total = 65536 + 300;
  uint8_t data[40];
  for (uint32_t n = 0; n < total; ++n) {
    for (uint8_t i = 0; i < sizeof data; ++i) data[i] = static_cast<uint8_t>(n * 7 + i);
    ASSERT_TRUE(sender.send(test::view(data), now)) << n;
    sender.generate_packets(now, [&](std::span<const std::byte> p) { receiver.process_packet(p); });
    ASSERT_TRUE(receiver.has_chunk()) << n;
    ASSERT_TRUE(std::ranges::equal(receiver.chunk(), test::view(data))) << n;
    receiver.release_chunk();
    receiver.generate_packets(now, [&](std::span<const std::byte> p) {
      ASSERT_EQ(sender.process_packet(p), ChunkResult::kAckCompleted) << n;
    });
    now += 0.001;
  }
  EXPECT_EQ(sender.chunk_id(), static_cast<uint16_t>(total));
  EXPECT_EQ(receiver.expected_chunk_id(), static_cast<uint16_t>(total));
}

// Hostile bytes (random, and valid slices with bytes flipped) into both sides: no crash, no allocation,
// memory_bytes unchanged, every outcome counted.
TEST(ChunkTransfer, HostilePacketsNeverGrowMemory) {
  BITWIRE_SEEDED_TEST_SEED(0x4051);
  std::mt19937_64 rng(seed);
  const ChunkConfig config;
  ChunkSender honest(config);
  ChunkSender sender(config);
  ChunkReceiver receiver(config);
  const size_t receiver_memory = receiver.memory_bytes();
  const size_t sender_memory = sender.memory_bytes();
  ASSERT_TRUE(sender.send(test::view(pattern_payload(100000, 1)), 0.0));
  ASSERT_TRUE(honest.send(test::view(pattern_payload(256 * 1024, 2)), 0.0));
  std::vector<Bytes> valid;
  honest.generate_packets(1.0, [&](std::span<const std::byte> p) { valid.push_back(test::to_vector(p)); });
  ASSERT_FALSE(valid.empty());
  Bytes buffer(2048);
  const auto before = test::counting_allocations;
  uint64_t fed = 0;
  for (int i = 0; i < 100000; ++i) {
    size_t size;
    if (rng() % 2 == 0) {
      const Bytes& v = valid[rng() % valid.size()];
      size = std::min(v.size() + rng() % 3, buffer.size());
      std::copy_n(v.begin(), std::min(size, v.size()), buffer.begin());
      for (int flips = static_cast<int>(rng() % 3); flips > 0; --flips) {
        buffer[rng() % 9] ^= static_cast<uint8_t>(1u << (rng() % 8));  // in the header
      }
    } else {
      size = rng() % 64;
      for (size_t k = 0; k < size; ++k) buffer[k] = static_cast<uint8_t>(rng());
      if (size > 0) buffer[0] = static_cast<uint8_t>(1 + rng() % 2);
    }
    receiver.process_packet(test::view(std::span(buffer.data(), size)));
    sender.process_packet(test::view(std::span(buffer.data(), size)));
    if (receiver.has_chunk()) receiver.release_chunk();
    receiver.generate_packets(i * 0.001, [&](std::span<const std::byte> p) { sender.process_packet(p); });
    fed += 2;
  }
  EXPECT_EQ(test::counting_allocations.count, before.count);
  EXPECT_EQ(receiver.memory_bytes(), receiver_memory);
  EXPECT_EQ(sender.memory_bytes(), sender_memory);
  uint64_t outcomes = 0;
  for (uint64_t n : receiver.counters().results) outcomes += n;
  for (uint64_t n : sender.counters().results) outcomes += n;
  EXPECT_GE(outcomes, fed);  // every packet has an outcome (acks from the receiver add to the sender's)
  EXPECT_GT(receiver.counters().count(ChunkResult::kTruncated), 0u);
  EXPECT_GT(receiver.counters().count(ChunkResult::kTrailingBytes), 0u);
}

// The chunk protocol as the payload of Endpoint packets over a Link (envelope on, 10% loss both ways):
// each slice is one unfragmented endpoint packet.
struct ChunkPeer {
  ChunkSender* sender = nullptr;
  ChunkReceiver* receiver = nullptr;
  static bool process(void* context, uint16_t, std::span<const std::byte> payload) {
    auto* self = static_cast<ChunkPeer*>(context);
    const uint8_t kind = payload.empty() ? 0 : std::to_integer<uint8_t>(payload[0]);
    if (kind == kChunkAckKind && self->sender != nullptr) self->sender->process_packet(payload);
    if (kind == kChunkSliceKind && self->receiver != nullptr) self->receiver->process_packet(payload);
    return true;
  }
};

TEST(ChunkTransfer, OverEndpointsOnALink) {
  NetworkConditions net;
  net.latency_ms = 30.0;
  net.loss_percent = 10.0;
  Link link(LinkConfig::symmetric(net, 5));
  const ChunkConfig config;
  ChunkSender sender(config);
  ChunkReceiver receiver(config);
  ChunkPeer peer_a{&sender, nullptr};
  ChunkPeer peer_b{nullptr, &receiver};
  EndpointConfig endpoint_config;
  endpoint_config.fragment_above = config.max_slice_packet_bytes();  // a slice is never fragmented
  Endpoint a(endpoint_config, link.callbacks(LinkSide::kA, {&peer_a, nullptr, &ChunkPeer::process, nullptr}));
  Endpoint b(endpoint_config, link.callbacks(LinkSide::kB, {&peer_b, nullptr, &ChunkPeer::process, nullptr}));
  link.connect(a, b);
  const Bytes block = pattern_payload(256 * 1024, 9);
  ASSERT_TRUE(sender.send(test::view(block), 0.0));
  double now = 0.0;
  int ticks = 0;
  for (; ticks < 600 && !receiver.has_chunk(); ++ticks) {
    now += 1.0 / 60.0;
    a.update(now);
    b.update(now);
    link.update(now);
    sender.generate_packets(now, [&](std::span<const std::byte> p) { a.send_packet(p); });
    receiver.generate_packets(now, [&](std::span<const std::byte> p) { b.send_packet(p); });
  }
  ASSERT_TRUE(receiver.has_chunk());
  EXPECT_TRUE(std::ranges::equal(receiver.chunk(), test::view(block)));
  EXPECT_EQ(a.counters().fragments_sent, 0u);
  std::printf("over endpoints at 10%% loss: %d ticks\n", ticks);
  EXPECT_LT(ticks, 120);  // 1.04 s of budget at 90% delivery is 1.15 s = 69 ticks, plus the trip and tail
}

TEST(ChunkMemory, ReportedMemoryIsWhatConstructionAllocates) {
  const ChunkConfig config;
  const auto before = test::counting_allocations;
  ChunkReceiver receiver(config);
  const auto middle = test::counting_allocations;
  ChunkSender sender(config);
  const auto after = test::counting_allocations;
  EXPECT_EQ(middle.bytes - before.bytes, receiver.memory_bytes());
  EXPECT_EQ(after.bytes - middle.bytes, sender.memory_bytes());
  std::printf("chunk memory at defaults: receiver %zu bytes, sender %zu bytes\n", receiver.memory_bytes(),
              sender.memory_bytes());
}

}  // namespace
}  // namespace bitwire
