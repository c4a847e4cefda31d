// AckDelayReport on its own: the extension fields it writes, when it leaves them out, one report per
// packet, a uniform and reproducible choice among the packets offered.
#include <gtest/gtest.h>

#include <array>

#include "bitwire/packet/detail/ack_delay_report.hpp"

namespace bitwire {
namespace {

PacketHeader header_with_ack(uint16_t ack) {
  PacketHeader header;
  header.sequence = 500;
  header.ack = ack;
  header.ack_bits = 1;
  return header;
}

TEST(AckDelayReport, NothingOfferedNothingWritten) {
  AckDelayReport report;
  PacketHeader header = header_with_ack(100);
  report.take(header, 1.0);
  EXPECT_EQ(header, header_with_ack(100));
}

TEST(AckDelayReport, WritesOffsetAndDelayCode) {
  AckDelayReport report;
  report.offer(97, 1.0);
  ASSERT_TRUE(report.has_report());
  PacketHeader header = header_with_ack(100);
  report.take(header, 1.005);
  EXPECT_TRUE(header.has_ack_delay);
  EXPECT_EQ(header.ack_delay_offset, 3);
  EXPECT_EQ(header.ack_delay, 5) << "5 ms";
  EXPECT_EQ(header.sequence, 500);
  EXPECT_EQ(header.ack, 100);
  EXPECT_FALSE(report.has_report()) << "each packet is reported once at most";
  PacketHeader next = header_with_ack(100);
  report.take(next, 1.010);
  EXPECT_FALSE(next.has_ack_delay);
}

TEST(AckDelayReport, LongDelayUsesTheCoarseScale) {
  AckDelayReport report;
  report.offer(100, 1.0);
  PacketHeader header = header_with_ack(100);
  report.take(header, 1.2);  // 200 ms: 128 + 8 * 9
  EXPECT_TRUE(header.has_ack_delay);
  EXPECT_EQ(header.ack_delay, 137);
}

TEST(AckDelayReport, OffsetAbove255IsLeftOutAndForgotten) {
  AckDelayReport report;
  report.offer(0, 1.0);
  PacketHeader header = header_with_ack(256);
  report.take(header, 1.001);
  EXPECT_FALSE(header.has_ack_delay);
  EXPECT_FALSE(report.has_report());
}

TEST(AckDelayReport, DelayBeyondTheCodeIsLeftOut) {
  AckDelayReport report;
  report.offer(100, 1.0);
  PacketHeader header = header_with_ack(100);
  report.take(header, 1.0 + (kMaxAckDelayMs + 10.0) / 1000.0);
  EXPECT_FALSE(header.has_ack_delay);
  EXPECT_FALSE(report.has_report());
}

TEST(AckDelayReport, ChoiceIsUniformOverThePacketsOffered) {
  AckDelayReport report;
  std::array<int, 4> chosen{};
  constexpr int kRounds = 40000;
  for (int round = 0; round < kRounds; ++round) {
    for (uint16_t s = 0; s < 4; ++s) report.offer(s, 1.0 + 0.001 * s);
    ASSERT_TRUE(report.has_report());
    const uint16_t timed = report.sequence();
    ++chosen[timed];
    PacketHeader header = header_with_ack(3);
    report.take(header, 1.01);
    ASSERT_TRUE(header.has_ack_delay);
    ASSERT_EQ(header.ack_delay_offset, 3 - timed) << round;
    ASSERT_EQ(header.ack_delay, 10 - timed) << "the wait of the packet timed, not another's";
  }
  for (int count : chosen) {
    // 10000 expected each; 5 standard deviations is about 433.
    EXPECT_GT(count, 9500);
    EXPECT_LT(count, 10500);
  }
}

TEST(AckDelayReport, ChoicesRepeatAfterReset) {
  AckDelayReport report;
  std::array<uint16_t, 64> first{};
  for (uint16_t& choice : first) {
    for (uint16_t s = 0; s < 7; ++s) report.offer(s, 1.0);
    choice = report.sequence();
    PacketHeader header = header_with_ack(6);
    report.take(header, 1.0);
  }
  report.reset();
  EXPECT_FALSE(report.has_report());
  for (uint16_t expected : first) {
    for (uint16_t s = 0; s < 7; ++s) report.offer(s, 1.0);
    EXPECT_EQ(report.sequence(), expected);
    PacketHeader header = header_with_ack(6);
    report.take(header, 1.0);
  }
}

}  // namespace
}  // namespace bitwire
