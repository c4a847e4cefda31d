// The endpoint's defaults hold at the stated target: 60 Hz, 16 KiB packets (16 fragments of 1 KiB), +-100 ms
// of jitter on 100 ms of latency, loss and duplication. Measured: every packet whose datagrams all arrived
// is delivered (zero fully-arrived packets dropped), over the network simulator.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "bitwire/packet/endpoint.hpp"
#include "bitwire/sim/simulator.hpp"
#include "support/endpoint_harness.hpp"
#include "support/seed.hpp"
#include "support/bytes.hpp"

namespace bitwire {
namespace {

struct Outcome {
  uint64_t sent = 0;
  uint64_t fully_arrived = 0;          // every datagram of the packet came out of the network
  uint64_t fully_arrived_dropped = 0;  // ... and the endpoint did not deliver it
  uint64_t delivered = 0;
  uint64_t evicted = 0;
  uint64_t refused_ahead = 0;  // fragments beyond the reassembly margin
  uint64_t stale = 0;          // fragments older than the reassembly window
};

// One direction, sender -> receiver, at `hz` for `seconds`, every payload `size` bytes; the receiver
// answers each tick with a small packet so acks flow. Packets sent in the last second are not judged.
Outcome run(const EndpointConfig& config, const NetworkConditions& conditions, uint64_t seed, double hz,
            double seconds, size_t size) {
  struct Side {
    NetworkSimulator* out = nullptr;
    double now = 0.0;
    std::vector<uint8_t>* delivered = nullptr;
  };
  NetworkSimulatorConfig network;
  network.seed = seed;
  network.capacity = 8192;
  network.conditions = conditions;
  NetworkSimulator to_receiver(network);
  network.seed = seed + 1;
  NetworkSimulator to_sender(network);

  std::vector<uint8_t> delivered(65536, 0);
  Side sender_side{&to_receiver, 0.0, nullptr};
  Side receiver_side{&to_sender, 0.0, &delivered};
  auto transmit = [](void* context, uint16_t, std::span<const std::byte> datagram) {
    auto* side = static_cast<Side*>(context);
    side->out->send(side->now, datagram);
  };
  auto process = [](void* context, uint16_t sequence, std::span<const std::byte>) {
    auto* side = static_cast<Side*>(context);
    if (side->delivered != nullptr) side->delivered[0][sequence] = 1;
    return true;
  };
  Endpoint sender(config, EndpointCallbacks{&sender_side, transmit, process, nullptr});
  Endpoint receiver(config, EndpointCallbacks{&receiver_side, transmit, process, nullptr});

  // Per sequence: the datagram count expected and the distinct ones that arrived (bit per fragment id).
  std::vector<uint32_t> expected(65536, 0), arrived_count(65536, 0);
  std::vector<std::vector<uint64_t>> arrived(65536, std::vector<uint64_t>(4, 0));
  const size_t envelope = config.envelope ? Envelope::kBytes : 0;

  const std::vector<uint8_t> payload(size, 0x5A);
  const std::vector<uint8_t> ack_only(8, 1);
  const int ticks = static_cast<int>(seconds * hz);
  const int judged_ticks = ticks - static_cast<int>(hz);
  Outcome outcome;
  for (int tick = 0; tick < ticks + static_cast<int>(hz); ++tick) {
    const double now = tick / hz;
    sender_side.now = receiver_side.now = now;
    sender.update(now);
    receiver.update(now);
    to_receiver.deliver(now, [&](std::span<const std::byte> d) {
      if (d.size() > envelope) {
        const auto packet = [&](size_t i) { return std::to_integer<uint32_t>(d[envelope + i]); };
        if (packet(0) & 1) {
          const uint16_t sequence = static_cast<uint16_t>(packet(1) | (packet(2) << 8));
          const uint32_t id = packet(3);
          uint64_t& word = arrived[sequence][id >> 6];
          if (!(word & (uint64_t{1} << (id & 63)))) {
            word |= uint64_t{1} << (id & 63);
            ++arrived_count[sequence];
          }
        } else {
          const uint16_t sequence = static_cast<uint16_t>(packet(1) | (packet(2) << 8));
          arrived_count[sequence] = 1;
        }
      }
      receiver.receive_packet(d);
    });
    to_sender.deliver(now, [&](std::span<const std::byte> d) {
      sender.receive_packet(d);
    });
    if (tick < judged_ticks) {
      const uint16_t sequence = sender.next_sequence();
      expected[sequence] =
          size <= static_cast<size_t>(config.fragment_above)
              ? 1u
              : static_cast<uint32_t>((size + config.fragment_size - 1) / config.fragment_size);
      sender.send_packet(bitwire::test::view(payload));
      ++outcome.sent;
    }
    receiver.send_packet(bitwire::test::view(ack_only));
  }
  for (uint32_t s = 0; s < outcome.sent; ++s) {
    if (expected[s] != 0 && arrived_count[s] == expected[s]) {
      ++outcome.fully_arrived;
      if (!delivered[s]) ++outcome.fully_arrived_dropped;
    }
    if (delivered[s]) ++outcome.delivered;
  }
  outcome.evicted = receiver.counters().reassemblies_evicted;
  outcome.refused_ahead = receiver.counters().fragments_too_far_ahead;
  outcome.stale = receiver.counters().fragments_stale;
  EXPECT_EQ(to_receiver.stats().overflow, 0u);
  return outcome;
}

NetworkConditions target_conditions(double loss_percent) {
  NetworkConditions conditions;
  conditions.latency_ms = 100.0;
  conditions.jitter_ms = 100.0;
  conditions.loss_percent = loss_percent;
  conditions.duplicate_percent = 5.0;
  conditions.reorder_percent = 5.0;
  conditions.reorder_delay_ms = 100.0;
  return conditions;
}

// The target the defaults are chosen from. Fails with the former default of 8 reassembly slots.
TEST(EndpointDefaults, HoldAtSixtyHertzSixteenKiBAndHundredMsJitter) {
  BITWIRE_SEEDED_TEST_SEED(0xdef);
  const EndpointConfig defaults;
  ASSERT_EQ(defaults.max_packet_size, 16 * 1024);
  std::printf("memory_required(defaults) = %zu bytes\n", Endpoint::memory_required(defaults));
  for (const double loss : {0.0, 2.0, 10.0}) {
    const Outcome o = run(defaults, target_conditions(loss), seed, 60.0, 120.0, 16 * 1024);
    std::printf(
        "defaults, loss %.0f%%: sent %llu, fully arrived %llu, delivered %llu, dropped %llu, evicted %llu, "
        "fragments too far ahead %llu, stale %llu\n",
        loss, static_cast<unsigned long long>(o.sent), static_cast<unsigned long long>(o.fully_arrived),
        static_cast<unsigned long long>(o.delivered),
        static_cast<unsigned long long>(o.fully_arrived_dropped), static_cast<unsigned long long>(o.evicted),
        static_cast<unsigned long long>(o.refused_ahead), static_cast<unsigned long long>(o.stale));
    EXPECT_GT(o.fully_arrived, o.sent / 10) << "loss " << loss;
    EXPECT_EQ(o.fully_arrived_dropped, 0u) << "loss " << loss;
  }
}

// How the slot count was chosen: the fewest slots that drop nothing at the target, with the jitter doubled
// for margin. Prints the table; asserts only that too few slots do drop packets (so the measure is live).
TEST(EndpointDefaults, SlotTable) {
  BITWIRE_SEEDED_TEST_SEED(0x510);
  uint64_t dropped_at_four = 0;
  for (const int slots : {4, 8, 16, 24, 32}) {
    EndpointConfig config;
    config.reassembly_slots = slots;
    for (const double jitter : {100.0, 200.0}) {
      NetworkConditions conditions = target_conditions(2.0);
      conditions.jitter_ms = jitter;
      const Outcome o = run(config, conditions, seed, 60.0, 60.0, 16 * 1024);
      std::printf("slots %2d, jitter +-%3.0f ms: fully arrived %llu, dropped %llu\n", slots, jitter,
                  static_cast<unsigned long long>(o.fully_arrived),
                  static_cast<unsigned long long>(o.fully_arrived_dropped));
      if (slots == 4) dropped_at_four += o.fully_arrived_dropped;
    }
  }
  EXPECT_GT(dropped_at_four, 0u);
}

}  // namespace
}  // namespace bitwire
