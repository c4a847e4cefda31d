// Link: two endpoints through a simulator in each direction.
#include "bitwire/sim/link.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "support/seed.hpp"
#include "support/session.hpp"
#include "support/bytes.hpp"
#include "support/config_table_probe.hpp"

namespace bitwire {
namespace {

using test::Session;
using test::SessionOptions;

struct Recorder {
  std::vector<uint16_t> transmitted;
  std::vector<uint16_t> processed;
  std::vector<uint16_t> acked;
  std::vector<double> processed_at;
  const Endpoint* self = nullptr;

  static void transmit(void* context, uint16_t sequence, std::span<const std::byte>) {
    static_cast<Recorder*>(context)->transmitted.push_back(sequence);
  }
  static bool process(void* context, uint16_t sequence, std::span<const std::byte>) {
    auto* recorder = static_cast<Recorder*>(context);
    recorder->processed.push_back(sequence);
    recorder->processed_at.push_back(recorder->self != nullptr ? recorder->self->time() : -1.0);
    return true;
  }
  static void on_ack(void* context, uint16_t sequence) {
    static_cast<Recorder*>(context)->acked.push_back(sequence);
  }

  EndpointCallbacks callbacks() { return {this, &transmit, &process, &on_ack}; }
};

// A Link built from a bad direction dropped every datagram of that direction with only a log line: the
// link now reports which direction was refused and why.
TEST(Link, ConfigErrorNamesTheRefusedDirection) {
  LinkConfig config;
  config.b_to_a.capacity = 0;
  EXPECT_STREQ(config.check().reason(),
               "LinkConfig.b_to_a: NetworkSimulatorConfig.capacity = 0 is outside [1, 894784] "
               "(max: 2^30 / mtu)");
  const Link link(config);
  ASSERT_NE(link.error_reason(), nullptr);
  EXPECT_STREQ(link.error_reason(),
               "LinkConfig.b_to_a: NetworkSimulatorConfig.capacity = 0 is outside [1, 894784] "
               "(max: 2^30 / mtu)");
  EXPECT_TRUE(link.leaving(LinkSide::kA).ok());
  EXPECT_FALSE(link.leaving(LinkSide::kB).ok()) << "the refused direction refuses every datagram";
  const LinkConfig fixed = config.sanitized();
  EXPECT_TRUE(fixed.check().ok());
  EXPECT_EQ(fixed.b_to_a.capacity, 1);
  EXPECT_EQ(Link(fixed).error_reason(), nullptr);
  EXPECT_EQ(Link().error_reason(), nullptr);
  config = LinkConfig{};
  config.a_to_b.conditions.loss_percent = std::numeric_limits<double>::quiet_NaN();
  ASSERT_NE(config.check().reason(), nullptr);
  EXPECT_NE(
      std::string(config.check().reason()).find("LinkConfig.a_to_b: NetworkConditions.loss_percent = nan"),
      std::string::npos)
      << config.check().reason();
}

// LinkConfig::check() is each direction's table: every NetworkSimulatorConfig field at and past both ends,
// in either direction, is refused exactly when the direction's own check() refuses it, with the direction
// named, and sanitized() repairs it.
TEST(Link, ConfigCheckIsEachDirectionsTable) {
  for_each_field(kNetworkSimulatorConfigLimits, [&](const auto& field) {
    for (const auto value : test::probes(field, NetworkSimulatorConfig{})) {
      for (const bool forward : {true, false}) {
        LinkConfig config;
        NetworkSimulatorConfig& direction = forward ? config.a_to_b : config.b_to_a;
        direction.*field.member = value;
        SCOPED_TRACE(std::string(field.name) + " = " + std::to_string(value));
        const ConfigCheck own_check = direction.check();
        const char* own = own_check.reason();
        const std::string own_text = own != nullptr ? own : "";
        const ConfigCheck check = config.check();
        const char* reason = check.reason();
        if (own == nullptr) {
          EXPECT_EQ(reason, nullptr);
          continue;
        }
        ASSERT_NE(reason, nullptr);
        EXPECT_EQ(std::string(reason),
                  std::string(forward ? "LinkConfig.a_to_b: " : "LinkConfig.b_to_a: ") + own_text);
        EXPECT_TRUE(config.sanitized().check().ok());
      }
    }
  });
}

TEST(Link, CarriesPacketsBothWaysWithTheCallersCallbacksAndContext) {
  Link link;
  Recorder ra, rb;
  Endpoint a({}, link.callbacks(LinkSide::kA, ra.callbacks()));
  Endpoint b({}, link.callbacks(LinkSide::kB, rb.callbacks()));
  rb.self = &b;
  link.connect(a, b);
  const uint8_t payload[40] = {1, 2, 3};
  for (int tick = 0; tick < 10; ++tick) {
    const double now = tick * 0.1;
    a.update(now);
    b.update(now);
    link.update(now);
    a.send_packet(bitwire::test::view(payload));
    b.send_packet(bitwire::test::view(payload));
  }
  EXPECT_EQ(ra.transmitted.size(), 10u);  // the caller's transmit observes every datagram
  EXPECT_EQ(rb.processed.size(), 9u);     // the last one is still on the (zero-latency) wire until update
  EXPECT_EQ(ra.processed.size(), 9u);
  EXPECT_EQ(ra.acked.size(), 8u);  // acks ride on B's packets, one tick behind
  EXPECT_EQ(link.leaving(LinkSide::kA).stats().delivered, 9u);
  EXPECT_EQ(link.update(1.0), 2);
  EXPECT_EQ(rb.processed.size(), 10u);
}

TEST(Link, EachDirectionHasItsOwnConditions) {
  LinkConfig config;
  config.a_to_b.conditions.latency_ms = 100.0;  // B->A stays instant
  Link link(config);
  Recorder ra, rb;
  Endpoint a({}, link.callbacks(LinkSide::kA, ra.callbacks()));
  Endpoint b({}, link.callbacks(LinkSide::kB, rb.callbacks()));
  ra.self = &a;
  rb.self = &b;
  link.connect(a, b);
  const uint8_t payload[8] = {};
  for (int tick = 0; tick <= 20; ++tick) {
    const double now = tick / 64.0;
    a.update(now);
    b.update(now);
    link.update(now);
    if (tick == 0) {
      a.send_packet(bitwire::test::view(payload));
      b.send_packet(bitwire::test::view(payload));
    }
  }
  ASSERT_EQ(rb.processed_at.size(), 1u);
  ASSERT_EQ(ra.processed_at.size(), 1u);
  EXPECT_EQ(ra.processed_at[0], 1 / 64.0);  // instant: handed over at the next update
  EXPECT_EQ(rb.processed_at[0], 7 / 64.0);  // the first tick at or after 0.1 s
}

TEST(Link, SendInjectsRawBytesThatTheEndpointRejects) {
  Link link;
  Endpoint a({}, link.callbacks(LinkSide::kA));
  Endpoint b({}, link.callbacks(LinkSide::kB));
  link.connect(a, b);
  const uint8_t garbage[12] = {0xde, 0xad, 0xbe, 0xef, 0, 1, 2, 3, 4, 5, 6, 7};
  link.send(LinkSide::kA, test::view(garbage));
  link.send(LinkSide::kA, test::view(garbage).first(2));
  EXPECT_EQ(link.update(0.0), 2);
  EXPECT_EQ(b.counters().envelope_failures, 2u);
  EXPECT_EQ(b.counters().packets_received, 0u);
}

TEST(Link, WithoutAnEndpointDatagramsAreDiscarded) {
  Link link;
  Endpoint a({}, link.callbacks(LinkSide::kA));
  link.connect(&a, nullptr);
  const uint8_t payload[8] = {};
  a.send_packet(bitwire::test::view(payload));
  EXPECT_EQ(link.update(0.0), 1);
  EXPECT_EQ(link.leaving(LinkSide::kA).in_flight(), 0);
}

TEST(Link, SymmetricConfigUsesDifferentStreamsPerDirection) {
  BITWIRE_SEEDED_TEST_SEED(31);
  NetworkConditions conditions;
  conditions.loss_percent = 50.0;
  Link link(LinkConfig::symmetric(conditions, seed));
  std::vector<int> a_lost, b_lost;
  const uint8_t byte = 0;
  for (int i = 0; i < 64; ++i) {
    link.send(LinkSide::kA, test::view(&byte, 1));
    link.send(LinkSide::kB, test::view(&byte, 1));
    a_lost.push_back(static_cast<int>(link.leaving(LinkSide::kA).stats().lost));
    b_lost.push_back(static_cast<int>(link.leaving(LinkSide::kB).stats().lost));
  }
  EXPECT_NE(a_lost, b_lost);
}

TEST(Link, SessionOverAHostileLinkKeepsEveryPromise) {
  BITWIRE_SEEDED_TEST_SEED(32);
  NetworkConditions conditions;
  conditions.latency_ms = 60.0;
  conditions.jitter_ms = 30.0;
  conditions.loss_percent = 10.0;
  conditions.duplicate_percent = 10.0;
  conditions.reorder_percent = 5.0;
  conditions.corrupt_percent = 2.0;
  SessionOptions options;
  options.link = LinkConfig::symmetric(conditions, seed);
  options.seed = seed;
  options.refuse_percent = 5.0;
  auto session = std::make_unique<Session>(options);
  for (int tick = 0; tick < 3000; ++tick) {
    session->advance(tick * 0.01);
    session->send(LinkSide::kA, session->random_size(4000));
    session->send(LinkSide::kB, session->random_size(600));
  }
  EXPECT_EQ(session->violations(), 0u) << session->report();
  const auto& ab = session->ledger(LinkSide::kA);
  const auto& ba = session->ledger(LinkSide::kB);
  EXPECT_GT(ab.delivered, 1500u) << session->report();
  EXPECT_GT(ba.delivered, 2000u) << session->report();
  EXPECT_GT(ab.acks, 1000u) << session->report();
  EXPECT_GT(ab.refused, 0u);
  EXPECT_GT(session->endpoint(LinkSide::kB).counters().envelope_failures, 0u);  // corruption was caught
}

}  // namespace
}  // namespace bitwire
