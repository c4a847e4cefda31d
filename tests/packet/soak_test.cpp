// Soak: two endpoints exchange packets of random sizes (up to 16 KiB, so most are fragmented) through the
// worst network the simulator makes, tick after tick, while a ledger checks every promise of the endpoint
// (see support/session.hpp): every delivered payload intact and the one sent with its sequence, nothing
// delivered twice, no packet acked that the peer did not accept (the receiver also refuses a few), every
// ack reported once. Memory must stay constant: this file replaces the global operator new and the runs
// require zero allocations once the endpoints exist.
//
// Default length: 20,000 ticks of 10 ms (200 simulated seconds). Longer runs:
//   BITWIRE_SOAK_TICKS=2000000 build/release/tests/soak_test
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>

#include "bitwire/sim/link.hpp"
#include "support/seed.hpp"
#include "support/session.hpp"

namespace {

std::atomic<uint64_t> g_allocations{0};

}  // namespace

// Not inlined, so the compiler never pairs a malloc it saw with a delete it did not
// (-Wmismatched-new-delete).
[[gnu::noinline]] void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
[[gnu::noinline]] void* operator new[](std::size_t size) {
  return ::operator new(size);
}
[[gnu::noinline]] void operator delete(void* p) noexcept {
  std::free(p);
}
[[gnu::noinline]] void operator delete[](void* p) noexcept {
  std::free(p);
}
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
[[gnu::noinline]] void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}

namespace bitwire {
namespace {

using test::Session;
using test::SessionOptions;

long soak_ticks() {
  const char* env = std::getenv("BITWIRE_SOAK_TICKS");
  if (env != nullptr && *env != '\0') {
    const long ticks = std::strtol(env, nullptr, 10);
    if (ticks > 0) return ticks;
  }
  return 20000;
}

struct SoakPlan {
  NetworkConditions conditions;
  long ticks = 20000;
  double tick_seconds = 0.01;
  int simulator_capacity = 4096;
  double refuse_percent = 2.0;
  int reassembly_slots = 64;
  int sequence_buffers = 256;    // sent and received packets remembered (the endpoint's default)
  bool alternate_small = false;  // every other packet at most 1 KiB (one fragment)
};

// Runs the plan and checks everything that must hold at the end. Returns the session for extra checks.
std::unique_ptr<Session> soak(const SoakPlan& plan, uint64_t seed) {
  SessionOptions options;
  options.endpoint.max_packet_size = 16 * 1024;
  // At 100 packets per second, +-100 ms of jitter interleaves the fragments of some 20-40 packets; the
  // 8 reassembly slots would evict most of them before they complete.
  options.endpoint.reassembly_slots = plan.reassembly_slots;
  options.endpoint.sent_packets_buffer_size = plan.sequence_buffers;
  options.endpoint.received_packets_buffer_size = plan.sequence_buffers;
  options.link = LinkConfig::symmetric(plan.conditions, seed, plan.simulator_capacity);
  options.seed = seed;
  options.refuse_percent = plan.refuse_percent;
  auto session = std::make_unique<Session>(options);
  const size_t memory_a = session->endpoint(LinkSide::kA).memory_bytes();
  const size_t memory_b = session->endpoint(LinkSide::kB).memory_bytes();

  const uint64_t allocations_before = g_allocations.load();
  for (long tick = 0; tick < plan.ticks; ++tick) {
    session->advance(static_cast<double>(tick) * plan.tick_seconds);
    const size_t max = plan.alternate_small && (tick & 1) ? 1024 : 16 * 1024;
    session->send(LinkSide::kA, session->random_size(max));
    session->send(LinkSide::kB, session->random_size(max));
  }
  const uint64_t allocations = g_allocations.load() - allocations_before;

  EXPECT_EQ(allocations, 0u) << "allocations during the run";
  EXPECT_EQ(session->violations(), 0u) << session->report();
  EXPECT_EQ(session->endpoint(LinkSide::kA).memory_bytes(), memory_a);
  EXPECT_EQ(session->endpoint(LinkSide::kB).memory_bytes(), memory_b);
  for (const LinkSide side : {LinkSide::kA, LinkSide::kB}) {
    const LinkSide other = side == LinkSide::kA ? LinkSide::kB : LinkSide::kA;
    // The endpoint's own counters agree with what the ledger saw.
    EXPECT_EQ(session->endpoint(other).counters().packets_received, session->ledger(side).delivered);
    EXPECT_EQ(session->endpoint(side).counters().packets_acked, session->ledger(side).acks);
    EXPECT_EQ(session->endpoint(side).counters().packets_sent, session->ledger(side).sent);
    // The simulator never ran out of room, so every loss was the network's, not the test's.
    EXPECT_EQ(session->link().leaving(side).stats().overflow, 0u);
  }
  return session;
}

void print_summary(const char* name, Session& session) {
  for (const LinkSide side : {LinkSide::kA, LinkSide::kB}) {
    const auto& ledger = session.ledger(side);
    const auto& receiver = session.endpoint(side == LinkSide::kA ? LinkSide::kB : LinkSide::kA).counters();
    const auto& network = session.link().leaving(side).stats();
    std::printf(
        "%s %s: sent %llu, delivered %llu (%llu bytes), refused %llu, acked %llu; datagrams %llu -> %llu; "
        "reassembled %llu, evicted %llu, duplicates %llu, fragment duplicates %llu, stale %llu, envelope "
        "failures %llu\n",
        name, side == LinkSide::kA ? "A->B" : "B->A", static_cast<unsigned long long>(ledger.sent),
        static_cast<unsigned long long>(ledger.delivered),
        static_cast<unsigned long long>(ledger.delivered_bytes),
        static_cast<unsigned long long>(ledger.refused), static_cast<unsigned long long>(ledger.acks),
        static_cast<unsigned long long>(network.sent), static_cast<unsigned long long>(network.delivered),
        static_cast<unsigned long long>(receiver.reassemblies_completed),
        static_cast<unsigned long long>(receiver.reassemblies_evicted),
        static_cast<unsigned long long>(receiver.packets_duplicate),
        static_cast<unsigned long long>(receiver.fragments_duplicate),
        static_cast<unsigned long long>(receiver.packets_stale + receiver.fragments_stale),
        static_cast<unsigned long long>(receiver.envelope_failures));
  }
}

TEST(Soak, LatencyJitterLossDuplicatesReorderingAndRandomSizes) {
  BITWIRE_SEEDED_TEST_SEED(0x50a6);
  SoakPlan plan;
  plan.ticks = soak_ticks();
  plan.conditions.latency_ms = 1000.0;
  plan.conditions.jitter_ms = 100.0;
  plan.conditions.loss_percent = 25.0;
  plan.conditions.duplicate_percent = 25.0;
  plan.conditions.reorder_percent = 5.0;
  plan.conditions.reorder_delay_ms = 250.0;
  plan.conditions.corrupt_percent = 1.0;  // at most 3 bits: the envelope's CRC32 catches every one
  auto session = soak(plan, seed);
  print_summary("soak", *session);

  // The run did real work: plenty of packets, whole and fragmented, delivered and acked both ways.
  for (const LinkSide side : {LinkSide::kA, LinkSide::kB}) {
    const auto& ledger = session->ledger(side);
    const auto& receiver = session->endpoint(side == LinkSide::kA ? LinkSide::kB : LinkSide::kA).counters();
    EXPECT_GT(ledger.delivered, static_cast<uint64_t>(plan.ticks) / 20) << session->report();
    EXPECT_GT(ledger.acks, ledger.delivered / 2) << session->report();
    EXPECT_GT(receiver.reassemblies_completed, static_cast<uint64_t>(plan.ticks) / 200) << session->report();
    EXPECT_GT(receiver.packets_duplicate + receiver.fragments_duplicate, 0u);
    EXPECT_GT(receiver.envelope_failures, 0u);
  }
}

TEST(Soak, NinetyNinePercentLossAndTenSecondsOfLatency) {
  BITWIRE_SEEDED_TEST_SEED(0x99);
  SoakPlan plan;
  plan.ticks = soak_ticks();
  plan.conditions.latency_ms = 10000.0;
  plan.conditions.jitter_ms = 2000.0;
  plan.conditions.loss_percent = 99.0;
  plan.conditions.duplicate_percent = 25.0;
  // An ack needs a packet through each way (1% each): it comes back some 20 s after the send, so the
  // endpoints remember 4096 packets (40 s at 100 per second) to be able to report it at all. Every
  // other packet is small, so single datagrams (1 in 100 arrives) carry payloads and acks.
  plan.sequence_buffers = 4096;
  plan.alternate_small = true;
  auto session = soak(plan, seed);
  print_summary("99% loss", *session);
  // Something still gets through, acks included, and nothing grew or broke doing it. Expected per
  // direction at the default length: ~100 deliveries, ~80 acks.
  for (const LinkSide side : {LinkSide::kA, LinkSide::kB}) {
    EXPECT_GT(session->link().leaving(side).stats().delivered, 0u);
    EXPECT_GT(session->ledger(side).delivered, static_cast<uint64_t>(plan.ticks) / 1000) << session->report();
    EXPECT_GT(session->ledger(side).acks, static_cast<uint64_t>(plan.ticks) / 2000) << session->report();
  }
}

}  // namespace
}  // namespace bitwire
