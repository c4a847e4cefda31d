// FlightLimit on its own: the in-flight limit a Connection's send_packets() keeps, and its probes.
#include <gtest/gtest.h>

#include "bitwire/message/detail/flight_limit.hpp"

namespace bitwire {
namespace {

TEST(FlightLimit, MaxInFlightIsThreeQuartersOfTheRecords) {
  EXPECT_EQ(FlightLimit(256).max_packets_in_flight(), 192);
  EXPECT_EQ(FlightLimit(256).ack_records(), 256);
  EXPECT_EQ(FlightLimit(7).max_packets_in_flight(), 6) << "7 - 7 / 4";
  EXPECT_EQ(FlightLimit(2).max_packets_in_flight(), 2);
  EXPECT_EQ(FlightLimit(1).max_packets_in_flight(), 1) << "never below one";
}

TEST(FlightLimit, ExtraPacketsStopAtTheLimit) {
  const FlightLimit limit(256);
  EXPECT_TRUE(limit.extra_allowed(0));
  EXPECT_TRUE(limit.extra_allowed(191));
  EXPECT_FALSE(limit.extra_allowed(192));
  EXPECT_FALSE(limit.extra_allowed(300));
}

TEST(FlightLimit, FirstPacketSentWhileARecordIsFree) {
  FlightLimit limit(64);
  EXPECT_EQ(limit.first_packet(0, 0.0, 100.0), FlightLimit::kSend);
  limit.sent(10.0);
  EXPECT_EQ(limit.first_packet(63, 10.0, 100.0), FlightLimit::kSend) << "above max_packets_in_flight is fine";
}

TEST(FlightLimit, EveryRecordInFlightProbesOncePerInterval) {
  FlightLimit limit(64);
  EXPECT_EQ(limit.first_packet(64, 5.0, 100.0), FlightLimit::kProbe) << "nothing sent yet: probe at once";
  limit.sent(5.0);
  // RTT 400 ms: probe every 0.2 s.
  EXPECT_EQ(limit.first_packet(64, 5.1, 400.0), FlightLimit::kHold);
  EXPECT_EQ(limit.first_packet(64, 5.199, 400.0), FlightLimit::kHold);
  EXPECT_EQ(limit.first_packet(64, 5.2, 400.0), FlightLimit::kProbe);
  EXPECT_EQ(limit.first_packet(200, 5.3, 400.0), FlightLimit::kProbe);
}

TEST(FlightLimit, ProbeIntervalIsHalfTheRttWithinBounds) {
  EXPECT_EQ(FlightLimit::probe_interval(0.0), 0.1);
  EXPECT_EQ(FlightLimit::probe_interval(100.0), 0.1);
  EXPECT_DOUBLE_EQ(FlightLimit::probe_interval(500.0), 0.25);
  EXPECT_EQ(FlightLimit::probe_interval(2000.0), 1.0);
  EXPECT_EQ(FlightLimit::probe_interval(60000.0), 1.0);
}

TEST(FlightLimit, ResetForgetsTheLastSend) {
  FlightLimit limit(8);
  limit.sent(1.0);
  EXPECT_EQ(limit.first_packet(8, 1.01, 0.0), FlightLimit::kHold);
  limit.reset();
  EXPECT_EQ(limit.first_packet(8, 1.01, 0.0), FlightLimit::kProbe);
  EXPECT_EQ(limit.ack_records(), 8) << "the limits stay";
}

}  // namespace
}  // namespace bitwire
