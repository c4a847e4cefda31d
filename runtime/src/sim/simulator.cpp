#include "bitwire/sim/simulator.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "bitwire/core/config.hpp"
#include "bitwire/core/log.hpp"

namespace bitwire {

namespace {

// Stream seeds are spread apart so that the streams never overlap in practice.
constexpr uint64_t kStreamSalt = 0xD1B54A32D192ED03ull;

}  // namespace

ConfigCheck NetworkConditions::check() const {
  return check_config("NetworkConditions", *this, kNetworkConditionsLimits);
}
NetworkConditions NetworkConditions::sanitized() const {
  return sanitize_config(*this, kNetworkConditionsLimits);
}

ConfigCheck NetworkSimulatorConfig::check() const {
  const ConfigCheck own = check_config("NetworkSimulatorConfig", *this, kNetworkSimulatorConfigLimits);
  return !own ? own : conditions.check();
}
NetworkSimulatorConfig NetworkSimulatorConfig::sanitized() const {
  NetworkSimulatorConfig c = sanitize_config(*this, kNetworkSimulatorConfigLimits);
  c.conditions = conditions.sanitized();
  return c;
}

NetworkSimulator::NetworkSimulator(const NetworkSimulatorConfig& requested)
    : capacity_(requested.sanitized().capacity),
      mtu_(requested.sanitized().mtu),
      conditions_(requested.conditions.sanitized()) {
  if (const ConfigCheck problem = requested.check(); !problem) {
    failed_ = true;
    keep_config_reason(error_reason_, problem);
    BITWIRE_LOG(LogLevel::kError, "network simulator refuses every packet: %s", error_reason_);
    // Refusing every packet needs no room: a one-byte placeholder, not the sanitized config's memory.
    capacity_ = 1;
    mtu_ = 1;
  }
  bytes_.resize(static_cast<size_t>(capacity_) * static_cast<size_t>(mtu_));
  slots_.resize(static_cast<size_t>(capacity_));
  free_.resize(static_cast<size_t>(capacity_));
  heap_.resize(static_cast<size_t>(capacity_));
  queue_.resize(static_cast<size_t>(capacity_));
  seed_streams(requested.seed);
  clear();
}

bool NetworkSimulator::take_time(MonotonicTime& clock, double now) {
  const uint64_t backwards = clock.backwards();
  if (!clock.advance(now)) {
    ++stats_.time_invalid;
    return false;
  }
  if (clock.backwards() != backwards) ++stats_.time_backwards;
  return true;
}

void NetworkSimulator::seed_streams(uint64_t seed) {
  for (int i = 0; i < kStreamCount; ++i) {
    streams_[i].reseed(seed + kStreamSalt * static_cast<uint64_t>(i));
  }
  burst_bad_ = false;
}

void NetworkSimulator::clear() {
  // Free slots are popped from the back: slot 0 first.
  for (int i = 0; i < capacity_; ++i) free_[static_cast<size_t>(i)] = capacity_ - 1 - i;
  free_count_ = capacity_;
  in_flight_ = 0;
  queue_head_ = 0;
  queue_count_ = 0;
  queue_bytes_ = 0;
  link_free_at_ = 0.0;
}

void NetworkSimulator::reset(uint64_t seed) {
  clear();
  send_clock_ = MonotonicTime();
  deliver_clock_ = MonotonicTime();
  seed_streams(seed);
  next_serial_ = 0;
  stats_ = {};
}

bool NetworkSimulator::set_conditions(const NetworkConditions& conditions) {
  if (const ConfigCheck problem = conditions.check(); !problem) {
    BITWIRE_LOG(LogLevel::kError, "network simulator keeps its conditions: %s", problem.reason());
    return false;
  }
  conditions_ = conditions;
  return true;
}

std::optional<double> NetworkSimulator::next_due() const {
  if (in_flight_ == 0) return std::nullopt;
  return slots_[static_cast<size_t>(heap_[0])].due;
}

int NetworkSimulator::queued_bytes(double now) {
  if (take_time(send_clock_, now)) drain_queue(send_clock_.now());
  return queue_bytes_;
}

void NetworkSimulator::drain_queue(double now) {
  while (queue_count_ > 0 && queue_[static_cast<size_t>(queue_head_)].departure <= now) {
    queue_bytes_ -= queue_[static_cast<size_t>(queue_head_)].size;
    queue_head_ = (queue_head_ + 1) % capacity_;
    --queue_count_;
  }
}

double NetworkSimulator::draw_delay() {
  double delay_ms = conditions_.latency_ms;
  if (conditions_.jitter_ms > 0.0) {
    delay_ms += streams_[kDelay].uniform(-conditions_.jitter_ms, conditions_.jitter_ms);
  }
  return std::max(delay_ms, 0.0) / 1000.0;
}

void NetworkSimulator::send(double now, std::span<const std::byte> packet) {
  ++stats_.sent;
  if (failed_) {
    ++stats_.refused;
    return;
  }
  take_time(send_clock_, now);  // an invalid time sends at the latest valid one
  now = send_clock_.now();
  if (packet.size() > static_cast<size_t>(mtu_)) {
    ++stats_.too_large;
    return;
  }
  const int size = static_cast<int>(packet.size());

  // Loss: step the burst chain once per packet, then decide in the state it is in.
  Random& loss = streams_[kLoss];
  if (conditions_.burst_enter_percent > 0.0) {
    burst_bad_ = burst_bad_ ? !loss.chance_percent(conditions_.burst_exit_percent)
                            : loss.chance_percent(conditions_.burst_enter_percent);
  } else {
    burst_bad_ = false;
  }
  if (burst_bad_) {
    if (loss.chance_percent(conditions_.burst_loss_percent)) {
      ++stats_.burst_lost;
      return;
    }
  } else if (conditions_.loss_percent > 0.0 && loss.chance_percent(conditions_.loss_percent)) {
    ++stats_.lost;
    return;
  }

  if (free_count_ == 0) {
    ++stats_.overflow;
    return;
  }

  // The link: FIFO, one packet after the other. Without a cap a packet still leaves after those queued
  // before it (the queue built under an earlier cap drains on its old schedule).
  double departure = std::max(now, link_free_at_);
  if (conditions_.bandwidth_kbps > 0.0) {
    drain_queue(now);
    if (queue_bytes_ + size > conditions_.queue_bytes || queue_count_ == capacity_) {
      ++stats_.queue_full;
      return;
    }
    departure += static_cast<double>(size) * 8.0 / (conditions_.bandwidth_kbps * 1000.0);
    link_free_at_ = departure;
    queue_[static_cast<size_t>((queue_head_ + queue_count_) % capacity_)] = {departure, size};
    ++queue_count_;
    queue_bytes_ += size;
  }

  const bool duplicate = conditions_.duplicate_percent > 0.0 &&
                         streams_[kDuplicate].chance_percent(conditions_.duplicate_percent);
  for (int copy = 0; copy < (duplicate ? 2 : 1); ++copy) {
    double due = departure + draw_delay();
    if (conditions_.reorder_percent > 0.0 && streams_[kReorder].chance_percent(conditions_.reorder_percent)) {
      due += conditions_.reorder_delay_ms / 1000.0;
      ++stats_.reordered;
    }
    if (!enqueue(due, packet)) {
      ++stats_.overflow;  // only a duplicate can get here: the original's slot was checked above
      break;
    }
    if (copy == 1) ++stats_.duplicated;
  }
}

bool NetworkSimulator::enqueue(double due, std::span<const std::byte> packet) {
  if (free_count_ == 0) return false;
  const int slot = free_[static_cast<size_t>(--free_count_)];
  Slot& entry = slots_[static_cast<size_t>(slot)];
  entry.due = due;
  entry.serial = next_serial_++;
  entry.size = static_cast<int>(packet.size());
  std::byte* bytes = slot_bytes(slot);
  if (!packet.empty()) std::copy(packet.begin(), packet.end(), bytes);

  if (conditions_.corrupt_percent > 0.0 && !packet.empty() &&
      streams_[kCorrupt].chance_percent(conditions_.corrupt_percent)) {
    Random& random = streams_[kCorrupt];
    const uint64_t bit_count = packet.size() * 8;
    // Bounded by the array whatever the conditions say (they are checked, but this write must not depend
    // on it).
    const int max_bits = std::clamp(conditions_.corrupt_max_bits, 1, kMaxCorruptBits);
    const int flips =
        static_cast<int>(std::min<uint64_t>(static_cast<uint64_t>(random.range(1, max_bits)), bit_count));
    // Distinct positions, so exactly `flips` bits differ from what was sent.
    uint64_t positions[kMaxCorruptBits];
    for (int i = 0; i < flips; ++i) {
      uint64_t position;
      do {
        position = random.below(bit_count);
      } while (std::find(positions, positions + i, position) != positions + i);
      positions[i] = position;
      bytes[position / 8] ^= static_cast<std::byte>(1u << (position % 8));
    }
    ++stats_.corrupted;
  }

  heap_[static_cast<size_t>(in_flight_)] = slot;
  sift_up(in_flight_);
  ++in_flight_;
  return true;
}

bool NetworkSimulator::earlier(int a, int b) const {
  const Slot& x = slots_[static_cast<size_t>(a)];
  const Slot& y = slots_[static_cast<size_t>(b)];
  return x.due < y.due || (x.due == y.due && x.serial < y.serial);
}

void NetworkSimulator::sift_up(int position) {
  while (position > 0) {
    const int parent = (position - 1) / 2;
    if (!earlier(heap_[static_cast<size_t>(position)], heap_[static_cast<size_t>(parent)])) break;
    std::swap(heap_[static_cast<size_t>(position)], heap_[static_cast<size_t>(parent)]);
    position = parent;
  }
}

void NetworkSimulator::sift_down(int position) {
  for (;;) {
    const int left = 2 * position + 1;
    if (left >= in_flight_) break;
    int child = left;
    if (left + 1 < in_flight_ &&
        earlier(heap_[static_cast<size_t>(left + 1)], heap_[static_cast<size_t>(left)])) {
      child = left + 1;
    }
    if (!earlier(heap_[static_cast<size_t>(child)], heap_[static_cast<size_t>(position)])) break;
    std::swap(heap_[static_cast<size_t>(position)], heap_[static_cast<size_t>(child)]);
    position = child;
  }
}

int NetworkSimulator::pop_due(double now, uint64_t serial_limit) {
  if (in_flight_ == 0) return -1;
  const int top = heap_[0];
  const Slot& entry = slots_[static_cast<size_t>(top)];
  // Packets sent during this deliver() call are never earlier than those already due, so once one is on
  // top, everything due has been handed out.
  if (entry.due > now || entry.serial >= serial_limit) return -1;
  --in_flight_;
  heap_[0] = heap_[static_cast<size_t>(in_flight_)];
  sift_down(0);
  ++stats_.delivered;
  stats_.delivered_bytes += static_cast<uint64_t>(entry.size);
  return top;
}

void NetworkSimulator::release(int slot) {
  free_[static_cast<size_t>(free_count_++)] = slot;
}

}  // namespace bitwire
