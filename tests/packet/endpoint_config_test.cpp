// EndpointConfig limits that refuse what cannot work, construction with a bad config or bad callbacks
// (a sticky failed state with a reason, never an abort or a silent clamp), the copied name, and update()
// with times that are not a clock's (NaN, infinities, huge values, steps back).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "bitwire/packet/endpoint.hpp"
#include "support/endpoint_harness.hpp"
#include "support/bytes.hpp"

namespace bitwire {
namespace {

using test::Peer;

bool mentions(const char* reason, const std::string& text) {
  return reason != nullptr && std::string(reason).find(text) != std::string::npos;
}

// ---- Limits ----

// check() and sanitized() used to disagree: check() accepted fragment_above > max_packet_size and
// sanitized() then changed it. A config check() accepts must be the config the endpoint uses.
TEST(EndpointConfigLimits, FragmentAboveCheckAndSanitizedAgree) {
  EndpointConfig config;
  config.fragment_above = config.max_packet_size + 1;
  if (config.check().ok()) {
    EXPECT_EQ(config.sanitized().fragment_above, config.fragment_above)
        << "check() accepted what sanitized() changed";
  } else {
    EXPECT_TRUE(mentions(config.check().reason(), "fragment_above = 16385")) << config.check().reason();
    EXPECT_EQ(config.sanitized().fragment_above, config.max_packet_size);
  }
  config.fragment_above = config.max_packet_size;
  EXPECT_TRUE(config.check().ok());
  EXPECT_EQ(config.sanitized().fragment_above, config.fragment_above);
}

// With one sent-packet slot a packet is evicted by the next send before its ack can come back: no packet
// is ever acked. Two is the smallest buffer that acks.
TEST(EndpointConfigLimits, SentPacketBufferOfOneIsRefused) {
  EndpointConfig config;
  config.envelope = false;
  config.sent_packets_buffer_size = 1;
  EXPECT_TRUE(mentions(config.check().reason(), "sent_packets_buffer_size = 1 is outside [2, 32768]"))
      << config.check().reason();

  config.sent_packets_buffer_size = 2;
  ASSERT_TRUE(config.check().ok());
  Peer a(config), b(config);
  ASSERT_TRUE(a.endpoint.ok());
  uint64_t acked = 0;
  for (int tick = 0; tick < 20; ++tick) {
    const double now = tick * 0.016;
    a.endpoint.update(now);
    b.endpoint.update(now);
    a.send({1, 2, 3});
    b.send({4, 5, 6});
    for (const auto& datagram : a.take_outbox()) b.endpoint.receive_packet(bitwire::test::view(datagram));
    for (const auto& datagram : b.take_outbox()) a.endpoint.receive_packet(bitwire::test::view(datagram));
    acked = a.endpoint.counters().packets_acked;
  }
  EXPECT_GE(acked, 18u) << "a two-slot sent buffer acks every packet on a lossless ping-pong";
}

// A fragment datagram (envelope 4 + fragment header 5 + embedded header up to 11 with the ack delay
// extension + data) must fit one UDP datagram: 65507 bytes over IPv4.
TEST(EndpointConfigLimits, FragmentSizeAboveUdpDatagramIsRefused) {
  EXPECT_EQ(kMaxUdpPayloadBytes, 65507u);
  EXPECT_EQ(kMaxFragmentSize, 65507 - 4 - 5 - 11);
  EndpointConfig config;
  config.fragment_size = 65536;  // accepted before: [1, 65536]
  config.max_fragments = 1;
  config.max_packet_size = 65536;
  EXPECT_TRUE(mentions(config.check().reason(), "fragment_size = 65536 is outside [1, 65487]"))
      << config.check().reason();
  config.fragment_size = kMaxFragmentSize + 1;
  config.max_packet_size = kMaxFragmentSize + 1;
  EXPECT_FALSE(config.check().ok());

  // At the limit: the largest fragment is exactly the largest datagram.
  config.fragment_size = kMaxFragmentSize;
  config.max_packet_size = 2 * kMaxFragmentSize;
  config.max_fragments = 2;
  config.fragment_above = 0;
  config.reassembly_slots = 1;
  ASSERT_TRUE(config.check().ok()) << config.check().reason();
  Peer peer(config);
  ASSERT_TRUE(peer.endpoint.ok()) << peer.endpoint.error_reason();
  const auto datagrams = peer.send(std::vector<uint8_t>(static_cast<size_t>(kMaxFragmentSize) + 1, 7));
  ASSERT_EQ(datagrams.size(), 2u);
  EXPECT_LE(datagrams[0].size(), kMaxUdpPayloadBytes);
  // A fresh endpoint's embedded header is 8 bytes and has no ack delay report (nothing received yet):
  // 3 short of the largest header, 11.
  EXPECT_GE(datagrams[0].size(), kMaxUdpPayloadBytes - 3);

  // The same for a regular packet: fragment_above is bounded by the datagram too.
  config = EndpointConfig{};
  config.fragment_size = kMaxFragmentSize;
  config.max_fragments = 2;
  config.max_packet_size = 2 * kMaxFragmentSize;
  config.fragment_above = kMaxFragmentAbove + 1;
  EXPECT_TRUE(mentions(config.check().reason(), "fragment_above = 65493 is outside [0, 65492]"))
      << config.check().reason();
}

// 256 fragments of 64 KiB in 1,024 reassembly slots is 16 GiB; check() accepted it. Memory is capped at
// kMaxEndpointMemoryBytes, and memory_required() never reports more.
TEST(EndpointConfigLimits, AbsurdTotalMemoryIsRefused) {
  EndpointConfig config;
  config.fragment_size = kMaxFragmentSize;
  config.max_fragments = 256;
  config.max_packet_size = 256 * kMaxFragmentSize;
  config.fragment_above = 1024;
  config.reassembly_slots = 1024;
  const ConfigCheck check = config.check();
  const char* reason = check.reason();
  EXPECT_TRUE(mentions(reason, "reassembly_slots = 1024 is outside [1, 3]")) << reason;
  EXPECT_TRUE(mentions(reason, "kMaxEndpointMemoryBytes")) << reason;
  EXPECT_LE(Endpoint::memory_required(config), kMaxEndpointMemoryBytes);
  EXPECT_EQ(config.sanitized().reassembly_slots, 3);

  // Every field at its largest legal value: still within the cap, and such an endpoint can be built.
  EndpointConfig largest = config;
  for_each_field(kEndpointConfigLimits, [&](const auto& field) { largest.*field.member = field.max; });
  largest = largest.sanitized();
  ASSERT_TRUE(largest.check().ok()) << largest.check().reason();
  EXPECT_LE(Endpoint::memory_required(largest), kMaxEndpointMemoryBytes);
  EXPECT_GT(Endpoint::memory_required(largest), kMaxEndpointMemoryBytes / 2);
  Peer peer(largest);
  EXPECT_TRUE(peer.endpoint.ok()) << peer.endpoint.error_reason();
  EXPECT_EQ(peer.endpoint.memory_bytes(), Endpoint::memory_required(largest));
}

// A reassembly slot holds max_fragments * fragment_size bytes. max_fragments above what max_packet_size
// needs made every slot larger than any deliverable packet (1,200-byte packets in 16 KiB slots).
TEST(EndpointConfigLimits, ReassemblySlotStrideFollowsMaxPacketSize) {
  EndpointConfig config;
  config.max_packet_size = 1200;  // default fragment_size 1024, max_fragments 16
  EXPECT_TRUE(mentions(config.check().reason(),
                       "max_fragments = 16 must be 2 (ceil(max_packet_size / fragment_size))"))
      << config.check().reason();
  EXPECT_EQ(config.sanitized().max_fragments, 2);
  config.max_fragments = 2;
  ASSERT_TRUE(config.check().ok());
  EndpointConfig one_slot_more = config;
  one_slot_more.reassembly_slots = config.reassembly_slots + 1;
  const size_t per_slot = Endpoint::memory_required(one_slot_more) - Endpoint::memory_required(config);
  // Two fragments of bytes plus the Reassembler's bookkeeping per slot (its slot record and free-stack
  // entry, under 128 bytes); sized for max_fragments = 16 it would be 16 KiB.
  EXPECT_GE(per_slot, 2u * 1024u);
  EXPECT_LE(per_slot, 2u * 1024u + 128u);
  // max_packet_size above max_fragments * fragment_size is refused as before.
  config.max_packet_size = 2049;
  EXPECT_TRUE(mentions(config.check().reason(), "max_fragments = 2 must be 3")) << config.check().reason();
}

TEST(EndpointConfigLimits, NonFiniteAndTinyDurationsAreRefused) {
  const double bad[] = {std::numeric_limits<double>::quiet_NaN(),
                        std::numeric_limits<double>::infinity(),
                        -std::numeric_limits<double>::infinity(),
                        1e-9,
                        0.0,
                        -1.0,
                        1e300};
  for (double EndpointConfig::*field :
       {&EndpointConfig::packet_loss_min_age, &EndpointConfig::packet_loss_unknown_rtt_age,
        &EndpointConfig::bandwidth_sample_interval}) {
    for (const double value : bad) {
      EndpointConfig config;
      config.*field = value;
      EXPECT_FALSE(config.check().ok()) << value;
      const EndpointConfig clamped = config.sanitized();
      EXPECT_TRUE(std::isfinite(clamped.*field) && clamped.*field >= 0.001) << value;
      EXPECT_TRUE(clamped.check().ok());
    }
  }
  for (float EndpointConfig::*field :
       {&EndpointConfig::rtt_smoothing_factor, &EndpointConfig::jitter_smoothing_factor,
        &EndpointConfig::bandwidth_smoothing_factor}) {
    for (const float value : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                              0.0f, 1e-9f, 1.5f}) {
      EndpointConfig config;
      config.*field = value;
      EXPECT_FALSE(config.check().ok()) << value;
    }
  }
}

// ---- Construction ----

void transmit_into(void* context, uint16_t, std::span<const std::byte> datagram) {
  static_cast<std::vector<std::vector<uint8_t>>*>(context)->push_back(test::to_vector(datagram));
}
bool accept(void*, uint16_t, std::span<const std::byte>) {
  return true;
}

// A bad config used to be asserted (an abort in debug builds) or silently clamped (release).
TEST(EndpointConstruction, BadConfigFailsWithReasonAndRefusesEveryCall) {
  EndpointConfig config;
  config.max_fragments = 300;
  std::vector<std::vector<uint8_t>> sent;
  Endpoint endpoint(config, EndpointCallbacks{&sent, &transmit_into, &accept, nullptr}, 0.0);
  ASSERT_FALSE(endpoint.ok());
  EXPECT_TRUE(mentions(endpoint.error_reason(), "EndpointConfig.max_fragments = 300 must be 16"))
      << endpoint.error_reason();
  EXPECT_LT(endpoint.memory_bytes(), 2048u) << "a failed endpoint allocates only a placeholder";
  const uint8_t payload[4] = {1, 2, 3, 4};
  EXPECT_FALSE(endpoint.send_packet(bitwire::test::view(payload)));
  EXPECT_EQ(endpoint.receive_packet(bitwire::test::view(payload)), ReceiveResult::kEndpointFailed);
  endpoint.update(1.0);
  EXPECT_EQ(endpoint.time(), 0.0);
  EXPECT_TRUE(sent.empty());
  EXPECT_EQ(endpoint.counters().calls_refused, 3u);
  EXPECT_EQ(endpoint.counters().packets_sent, 0u);
  EXPECT_STREQ(to_string(ReceiveResult::kEndpointFailed), "the endpoint failed at construction");
  // The reason is the endpoint's own copy: a later check() on this thread does not change it.
  EndpointConfig other;
  other.rtt_history_size = 0;
  EXPECT_FALSE(other.check().ok());
  EXPECT_TRUE(mentions(endpoint.error_reason(), "max_fragments")) << endpoint.error_reason();

  Endpoint good(EndpointConfig{}, EndpointCallbacks{&sent, &transmit_into, &accept, nullptr}, 0.0);
  EXPECT_TRUE(good.ok());
  EXPECT_EQ(good.error_reason(), nullptr);
}

// A null transmit used to be accepted: send_packet returned true and counted the packet as sent while it
// went nowhere.
TEST(EndpointConstruction, NullTransmitIsRefused) {
  Endpoint endpoint(EndpointConfig{}, EndpointCallbacks{nullptr, nullptr, &accept, nullptr}, 0.0);
  ASSERT_FALSE(endpoint.ok());
  EXPECT_TRUE(mentions(endpoint.error_reason(), "transmit is null")) << endpoint.error_reason();
  const uint8_t payload[4] = {1, 2, 3, 4};
  EXPECT_FALSE(endpoint.send_packet(bitwire::test::view(payload)));
  EXPECT_EQ(endpoint.counters().packets_sent, 0u);
}

TEST(EndpointConstruction, NullProcessIsRefused) {
  std::vector<std::vector<uint8_t>> sent;
  Endpoint endpoint(EndpointConfig{}, EndpointCallbacks{&sent, &transmit_into, nullptr, nullptr}, 0.0);
  ASSERT_FALSE(endpoint.ok());
  EXPECT_TRUE(mentions(endpoint.error_reason(), "process is null")) << endpoint.error_reason();
}

TEST(EndpointConstruction, SetCallbacksRefusesNullAndKeepsTheOldOnes) {
  std::vector<std::vector<uint8_t>> sent;
  Endpoint endpoint(EndpointConfig{}, EndpointCallbacks{&sent, &transmit_into, &accept, nullptr}, 0.0);
  EXPECT_FALSE(endpoint.set_callbacks(EndpointCallbacks{&sent, nullptr, &accept, nullptr}));
  EXPECT_FALSE(endpoint.set_callbacks(EndpointCallbacks{&sent, &transmit_into, nullptr, nullptr}));
  const uint8_t payload[4] = {1, 2, 3, 4};
  EXPECT_TRUE(endpoint.send_packet(bitwire::test::view(payload)));
  EXPECT_EQ(sent.size(), 1u) << "the old transmit is still in place";
  EXPECT_TRUE(endpoint.set_callbacks(EndpointCallbacks{&sent, &transmit_into, &accept, nullptr}));
}

// The name used to be kept as a pointer: a name built in a temporary buffer dangled.
TEST(EndpointConstruction, NameIsCopiedAndTruncated) {
  char name[64];
  std::snprintf(name, sizeof name, "%s", "client-7");
  EndpointConfig config;
  config.name = name;
  Peer peer(config);
  std::snprintf(name, sizeof name, "%s", "overwritten");
  EXPECT_STREQ(peer.endpoint.config().name, "client-7");
  EXPECT_NE(peer.endpoint.config().name, name);

  const std::string long_name(100, 'n');
  config.name = long_name.c_str();
  Peer long_peer(config);
  EXPECT_EQ(std::string(long_peer.endpoint.config().name), std::string(kEndpointNameBytes - 1, 'n'));

  config.name = nullptr;
  Peer unnamed(config);
  EXPECT_TRUE(unnamed.endpoint.ok());
  EXPECT_STREQ(unnamed.endpoint.config().name, "endpoint");
}

// ---- Time ----

// Two endpoints exchanging a packet each way every tick on a lossless, instant link. `poison` runs on
// endpoint a after tick 30 (at time `at`); the run goes on to tick 120.
template <typename Poison>
void run_with_bad_time(Poison poison, Peer& a, Peer& b) {
  for (int tick = 0; tick < 120; ++tick) {
    const double now = 10.0 + tick / 60.0;
    a.endpoint.update(now);
    b.endpoint.update(now);
    if (tick == 30) poison(a.endpoint, now);
    a.send(std::vector<uint8_t>(40, 1));
    b.send(std::vector<uint8_t>(40, 2));
    for (const auto& datagram : a.take_outbox()) b.endpoint.receive_packet(bitwire::test::view(datagram));
    for (const auto& datagram : b.take_outbox()) a.endpoint.receive_packet(bitwire::test::view(datagram));
  }
}

void expect_healthy(const Endpoint& endpoint) {
  EXPECT_TRUE(std::isfinite(endpoint.rtt_ms()));
  EXPECT_LT(endpoint.rtt_ms(), 100.0);
  EXPECT_TRUE(std::isfinite(endpoint.jitter_ms()));
  EXPECT_LT(endpoint.jitter_ms(), 100.0);
  EXPECT_TRUE(std::isfinite(endpoint.sent_kbps()));
  EXPECT_GT(endpoint.sent_kbps(), 0.0);
  EXPECT_EQ(endpoint.packet_loss_percent(), 0.0);
  EXPECT_GT(endpoint.time(), 11.9);
}

// A NaN time used to be stored: every later RTT sample, jitter and bandwidth figure was NaN for good.
TEST(EndpointTime, NaNUpdateIsIgnoredAndCounted) {
  EndpointConfig config;
  Peer a(config, 10.0), b(config, 10.0);
  run_with_bad_time([](Endpoint& e, double) { e.update(std::numeric_limits<double>::quiet_NaN()); }, a, b);
  expect_healthy(a.endpoint);
  EXPECT_EQ(a.endpoint.counters().time_invalid, 1u);
}

TEST(EndpointTime, InfiniteAndHugeUpdatesAreIgnored) {
  EndpointConfig config;
  Peer a(config, 10.0), b(config, 10.0);
  run_with_bad_time(
      [](Endpoint& e, double) {
        e.update(std::numeric_limits<double>::infinity());
        e.update(-std::numeric_limits<double>::infinity());
        e.update(1e300);
        e.update(kMaxTimeSeconds * 2.0);
      },
      a, b);
  expect_healthy(a.endpoint);
  EXPECT_EQ(a.endpoint.counters().time_invalid, 4u);
}

// A step back used to abort (an assertion); in release it moved the clock back.
TEST(EndpointTime, BackwardStepIsClampedAndCounted) {
  EndpointConfig config;
  Peer a(config, 10.0), b(config, 10.0);
  run_with_bad_time(
      [](Endpoint& e, double now) {
        e.update(now - 5.0);
        EXPECT_EQ(e.time(), now);
      },
      a, b);
  expect_healthy(a.endpoint);
  EXPECT_EQ(a.endpoint.counters().time_backwards, 1u);
  EXPECT_EQ(a.endpoint.counters().time_invalid, 0u);
}

TEST(EndpointTime, InvalidConstructionTimeStartsAtZero) {
  Peer peer(EndpointConfig{}, std::numeric_limits<double>::quiet_NaN());
  EXPECT_TRUE(peer.endpoint.ok());
  EXPECT_EQ(peer.endpoint.time(), 0.0);
  EXPECT_EQ(peer.endpoint.counters().time_invalid, 1u);
  peer.endpoint.update(0.5);
  EXPECT_EQ(peer.endpoint.time(), 0.5);
}

}  // namespace
}  // namespace bitwire
