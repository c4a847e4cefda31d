// NetworkSimulator: one direction of a bad network, for tests, benchmarks and demos. Packets handed to
// send() come out of deliver() later, or never, after latency, jitter, random and burst loss, duplication,
// reordering, bit corruption, a bandwidth cap with a bounded queue, and an MTU have had their way with them.
//
// Contracts:
// - Time is passed in (seconds, any origin); the simulator never reads a clock.
// - Reproducible: the same seed, conditions and calls give the same deliveries, byte for byte, on every
//   platform (own generator, no <random> distributions). Each impairment draws from its own stream, so
//   turning one on or off leaves the others' decisions unchanged.
// - Fixed memory: `capacity` packets of up to `mtu` bytes are allocated at construction; nothing grows
//   afterwards. A packet that finds no free slot is dropped and counted (`overflow`).
// - Configs: kNetworkSimulatorConfigLimits and kNetworkConditionsLimits (docs/simulator.md prints them).
//   A config check() refuses leaves the simulator refused (!ok()): error_reason() says why, it allocates one
//   one-byte slot, and every send() is dropped (`refused`). set_conditions() refuses bad
//   conditions (returns false, keeps the old ones). Nothing aborts or writes out of bounds in any build.
// - Time: send() and deliver() ignore a non-finite or out-of-range time (`time_invalid`: send uses the
//   last valid send time, deliver delivers nothing) and treat a step back as no time passing
//   (`time_backwards`). Sends and deliveries each keep their own clock: a test may send a whole schedule
//   first and deliver it afterwards.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "bitwire/core/config_table.hpp"
#include "bitwire/core/datagram.hpp"
#include "bitwire/core/monotonic_time.hpp"
#include "bitwire/core/random.hpp"

namespace bitwire {

// What the network does to packets. May change at any time (set_conditions); packets already in flight
// keep the fate they were given when they were sent.
struct NetworkConditions {
  double latency_ms = 0.0;    // one-way delay added to every packet
  double jitter_ms = 0.0;     // each packet's delay varies uniformly within +-jitter_ms (never below zero)
  double loss_percent = 0.0;  // chance each packet is lost, independently of the others

  // Burst loss, a Gilbert-Elliott two-state chain stepped once per packet. In the good state packets are
  // lost at loss_percent; in the bad state at burst_loss_percent. burst_enter_percent = 0 disables bursts.
  double burst_enter_percent = 0.0;   // chance per packet of entering the bad state
  double burst_exit_percent = 25.0;   // chance per packet of leaving it (mean burst: 100 / this packets)
  double burst_loss_percent = 100.0;  // loss while in the bad state

  double duplicate_percent = 0.0;  // chance a packet arrives twice; the copy gets its own delay
  double reorder_percent = 0.0;    // chance a packet is held back reorder_delay_ms, so later ones overtake it
  double reorder_delay_ms = 50.0;  // the hold-back of a reordered packet
  double corrupt_percent = 0.0;    // chance a packet arrives with 1..corrupt_max_bits random bits flipped
  int corrupt_max_bits = 3;        // CRC32 (the envelope) catches every error of up to 3 bits in an MTU

  // Bandwidth cap: packets cross the link one after the other at this rate (kilobits per second,
  // 1 kbit = 1000 bits, counting the packet's bytes only); 0 = unlimited. Packets wait in a FIFO queue
  // of at most queue_bytes; a packet that does not fit is dropped (tail drop, counted `queue_full`).
  double bandwidth_kbps = 0.0;
  int queue_bytes = 64 * 1024;

  // Passes when every field is within kNetworkConditionsLimits, else the reason (see config_table.hpp).
  ConfigCheck check() const;
  NetworkConditions sanitized() const;
};

inline constexpr int kMaxCorruptBits = 64;  // bits the simulator can flip in one packet

inline constexpr auto kNetworkConditionsLimits = config_table(
    Field<NetworkConditions, double>{.name = "latency_ms",
                                     .member = &NetworkConditions::latency_ms,
                                     .min = 0.0,
                                     .max = 60000.0,
                                     .unit = "ms"},
    Field<NetworkConditions, double>{.name = "jitter_ms",
                                     .member = &NetworkConditions::jitter_ms,
                                     .min = 0.0,
                                     .max = 60000.0,
                                     .unit = "ms"},
    Field<NetworkConditions, double>{
        .name = "loss_percent", .member = &NetworkConditions::loss_percent, .min = 0.0, .max = 100.0},
    Field<NetworkConditions, double>{.name = "burst_enter_percent",
                                     .member = &NetworkConditions::burst_enter_percent,
                                     .min = 0.0,
                                     .max = 100.0},
    Field<NetworkConditions, double>{.name = "burst_exit_percent",
                                     .member = &NetworkConditions::burst_exit_percent,
                                     .min = 0.0,
                                     .max = 100.0},
    Field<NetworkConditions, double>{.name = "burst_loss_percent",
                                     .member = &NetworkConditions::burst_loss_percent,
                                     .min = 0.0,
                                     .max = 100.0},
    Field<NetworkConditions, double>{.name = "duplicate_percent",
                                     .member = &NetworkConditions::duplicate_percent,
                                     .min = 0.0,
                                     .max = 100.0},
    Field<NetworkConditions, double>{
        .name = "reorder_percent", .member = &NetworkConditions::reorder_percent, .min = 0.0, .max = 100.0},
    Field<NetworkConditions, double>{.name = "reorder_delay_ms",
                                     .member = &NetworkConditions::reorder_delay_ms,
                                     .min = 0.0,
                                     .max = 60000.0,
                                     .unit = "ms"},
    Field<NetworkConditions, double>{
        .name = "corrupt_percent", .member = &NetworkConditions::corrupt_percent, .min = 0.0, .max = 100.0},
    Field<NetworkConditions, int>{.name = "corrupt_max_bits",
                                  .member = &NetworkConditions::corrupt_max_bits,
                                  .min = 1,
                                  .max = kMaxCorruptBits},
    Field<NetworkConditions, double>{.name = "bandwidth_kbps",
                                     .member = &NetworkConditions::bandwidth_kbps,
                                     .min = 1.0,
                                     .max = 1e9,
                                     .zero_allowed = true},
    Field<NetworkConditions, int>{.name = "queue_bytes",
                                  .member = &NetworkConditions::queue_bytes,
                                  .min = 0,
                                  .max = 1 << 30,
                                  .unit = "bytes"});

struct NetworkSimulatorConfig {
  uint64_t seed = 1;             // same seed + same calls = same deliveries
  int capacity = 1024;           // packets held at once (queued or in flight, duplicates included); fixed
  int mtu = 1200;                // largest packet in bytes; larger ones are dropped (`too_large`); fixed
  NetworkConditions conditions;  // initial conditions

  // Passes when capacity, mtu and the conditions are within their limits, else the reason.
  ConfigCheck check() const;
  NetworkSimulatorConfig sanitized() const;
};

// The packet bytes one simulator may hold (capacity * mtu).
inline constexpr int64_t kMaxSimulatorBytes = int64_t{1} << 30;

inline constexpr auto kNetworkSimulatorConfigLimits = config_table(
    Field<NetworkSimulatorConfig, int>{.name = "mtu",
                                       .member = &NetworkSimulatorConfig::mtu,
                                       .min = 1,
                                       .max = static_cast<int>(kMaxUdpPayloadBytes),
                                       .unit = "bytes"},
    Field<NetworkSimulatorConfig, int>{
        .name = "capacity",
        .member = &NetworkSimulatorConfig::capacity,
        .min = 1,
        .max = 1 << 20,
        .upper = [](const NetworkSimulatorConfig& c) { return static_cast<int>(kMaxSimulatorBytes / c.mtu); },
        .upper_text = "2^30 / mtu"});

struct NetworkSimulatorStats {
  uint64_t sent = 0;             // packets offered to send()
  uint64_t delivered = 0;        // packets handed out by deliver(), duplicates included
  uint64_t delivered_bytes = 0;  // their bytes
  uint64_t lost = 0;             // dropped by independent loss
  uint64_t burst_lost = 0;       // dropped in the burst (bad) state
  uint64_t too_large = 0;        // dropped: larger than the MTU
  uint64_t queue_full = 0;       // dropped: the bandwidth queue had no room
  uint64_t overflow = 0;         // dropped (or duplicate not made): no free slot
  uint64_t duplicated = 0;       // extra copies made
  uint64_t reordered = 0;        // copies held back
  uint64_t corrupted = 0;        // copies with flipped bits
  uint64_t refused = 0;          // dropped: the simulator was refused at construction (!ok())
  uint64_t time_invalid = 0;     // send / deliver times ignored: non-finite or out of range
  uint64_t time_backwards = 0;   // send / deliver times earlier than the latest one (clamped)
};

class NetworkSimulator {
 public:
  explicit NetworkSimulator(const NetworkSimulatorConfig& config = {});

  NetworkSimulator(const NetworkSimulator&) = delete;
  NetworkSimulator& operator=(const NetworkSimulator&) = delete;
  NetworkSimulator(NetworkSimulator&&) = default;
  NetworkSimulator& operator=(NetworkSimulator&&) = default;

  // Offers a packet to the network at time `now`. The bytes are copied; the packet's fate (loss, delay,
  // copies, corruption) is decided here.
  void send(double now, std::span<const std::byte> packet);

  // Hands every packet due at `now` to `fn(std::span<const std::byte>)`, or to
  // `fn(std::span<const std::byte>, double arrival)` with the time it arrived (its due time, <= now),
  // earliest due first (ties in the order they were sent). The span is valid during the call only. `fn`
  // may call send() on this simulator; packets sent during the call are not delivered by it, so a
  // zero-latency echo terminates. Returns the number of packets delivered.
  template <typename Fn>
  int deliver(double now, Fn&& fn) {
    return deliver(now, std::numeric_limits<int>::max(), std::forward<Fn>(fn));
  }
  // The same, at most `max_count` packets: the others stay in flight, due, for a later call (a receiver
  // with room for only so many).
  template <typename Fn>
  int deliver(double now, int max_count, Fn&& fn) {
    if (!take_time(deliver_clock_, now)) return 0;
    now = deliver_clock_.now();
    const uint64_t serial_limit = next_serial_;
    int count = 0;
    while (count < max_count) {
      const int slot = pop_due(now, serial_limit);
      if (slot < 0) break;
      const SlotRelease release{this, slot};
      const std::span<const std::byte> bytes(slot_bytes(slot), static_cast<size_t>(slots_[slot].size));
      if constexpr (std::is_invocable_v<Fn&, std::span<const std::byte>, double>) {
        fn(bytes, slots_[slot].due);
      } else {
        fn(bytes);
      }
      ++count;
    }
    return count;
  }

  // Time at which the next packet becomes due; empty when nothing is in flight.
  std::optional<double> next_due() const;

  // Replaces the conditions for packets sent from now on. Returns false and keeps the old conditions when
  // conditions.check() refuses them.
  bool set_conditions(const NetworkConditions& conditions);
  const NetworkConditions& conditions() const { return conditions_; }

  // Forgets every packet in flight and the bandwidth queue; statistics and the generators are kept.
  void clear();
  // clear(), zeroed statistics, and the generators restarted from `seed`.
  void reset(uint64_t seed);

  // False when the config was refused at construction (sticky).
  bool ok() const { return !failed_; }
  // nullptr when ok(), else why the config was refused (owned by the simulator).
  const char* error_reason() const { return failed_ ? error_reason_ : nullptr; }

  int in_flight() const { return in_flight_; }
  int capacity() const { return capacity_; }
  int mtu() const { return mtu_; }
  // Bytes waiting for (or crossing) the capped link at `now`.
  int queued_bytes(double now);
  const NetworkSimulatorStats& stats() const { return stats_; }

 private:
  struct Slot {
    double due = 0.0;
    uint64_t serial = 0;
    int size = 0;
  };
  struct QueueEntry {
    double departure = 0.0;  // the packet has left the queue (fully serialized) at this time
    int size = 0;
  };
  struct SlotRelease {
    NetworkSimulator* simulator;
    int slot;
    ~SlotRelease() { simulator->release(slot); }
  };
  // Independent generator streams, one per impairment.
  enum Stream { kLoss, kDelay, kDuplicate, kReorder, kCorrupt, kStreamCount };

  void seed_streams(uint64_t seed);
  bool take_time(MonotonicTime& clock, double now);             // false: ignore the call (invalid time)
  bool enqueue(double due, std::span<const std::byte> packet);  // false: no free slot
  int pop_due(double now, uint64_t serial_limit);               // slot index or -1
  void release(int slot);
  std::byte* slot_bytes(int slot) {
    return bytes_.data() + static_cast<size_t>(slot) * static_cast<size_t>(mtu_);
  }
  bool earlier(int a, int b) const;
  void sift_up(int position);
  void sift_down(int position);
  double draw_delay();
  void drain_queue(double now);

  bool failed_ = false;
  char error_reason_[kConfigReasonBytes] = {};
  MonotonicTime send_clock_;
  MonotonicTime deliver_clock_;
  int capacity_;
  int mtu_;
  NetworkConditions conditions_;
  Random streams_[kStreamCount];
  bool burst_bad_ = false;

  std::vector<std::byte> bytes_;  // capacity * mtu, slot i at i * mtu
  std::vector<Slot> slots_;
  std::vector<int> free_;  // stack of free slot indices
  int free_count_ = 0;
  std::vector<int> heap_;  // min-heap of busy slots by (due, serial)
  int in_flight_ = 0;
  uint64_t next_serial_ = 0;

  // Bandwidth queue: a ring of the packets still being serialized, oldest first.
  std::vector<QueueEntry> queue_;
  int queue_head_ = 0;
  int queue_count_ = 0;
  int queue_bytes_ = 0;
  double link_free_at_ = 0.0;  // when the link finishes the last queued packet

  NetworkSimulatorStats stats_;
};

}  // namespace bitwire
