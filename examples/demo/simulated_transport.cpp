#include "simulated_transport.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace demo {

SimulatedTransport::SimulatedTransport(bitwire::UdpSocket& socket, const bitwire::Address& peer,
                                       const bitwire::NetworkSimulatorConfig& up,
                                       const bitwire::NetworkSimulatorConfig& down, const TickClock& clock)
    : socket_(socket),
      clock_(clock),
      peer_(peer),
      up_(up),
      down_(down),
      ring_(std::make_unique<Entry[]>(kRingSize)),
      scratch_(std::make_unique<std::byte[]>(kMaxDatagram)) {}

bool SimulatedTransport::set_conditions(const bitwire::NetworkConditions& conditions) {
  return up_.set_conditions(conditions) && down_.set_conditions(conditions);
}

void SimulatedTransport::send(const bitwire::Address& to, std::span<const std::byte> datagram) {
  if (!(to == peer_)) {
    ++wrong_destination_;
    return;
  }
  up_.send(now_, datagram);
}

void SimulatedTransport::pump(double now) {
  now_ = now;
  up_.deliver(now, [this](std::span<const std::byte> bytes) {
    if (socket_.send(peer_, bytes) != bitwire::SocketStatus::kOk) ++socket_failures_;
  });
  const std::span<std::byte> scratch(scratch_.get(), kMaxDatagram);
  bitwire::Address from;
  size_t size = 0;
  for (;;) {
    double kernel_time = 0.0;
    const bitwire::SocketStatus status = socket_.receive(scratch, from, size, kernel_time);
    if (status == bitwire::SocketStatus::kNothingToRead) break;
    if (status != bitwire::SocketStatus::kOk) {
      ++socket_failures_;
      if (status != bitwire::SocketStatus::kTruncated) break;
      continue;
    }
    // Only the server talks to a client; the simulator keeps bytes, not sources. The link starts where the
    // datagram reached the host, not at this read (up to a tick later).
    const double reached = clock_.at_realtime(kernel_time);
    if (from == peer_) down_.send(std::isfinite(reached) ? std::min(reached, now) : now, scratch.first(size));
  }
  down_.deliver(now, [this](std::span<const std::byte> bytes, double arrival) {
    if (ring_count_ == kRingSize || bytes.size() > kMaxDatagram) {
      ++ring_dropped_;
      return;
    }
    Entry& entry = ring_[(ring_head_ + ring_count_) % kRingSize];
    entry.size = bytes.size();
    entry.arrival = arrival;
    std::memcpy(entry.bytes, bytes.data(), bytes.size());
    ++ring_count_;
  });
}

bool SimulatedTransport::receive(std::span<std::byte> buffer, bitwire::Address& from, size_t& size,
                                 double& arrival_time) {
  if (ring_count_ == 0) return false;
  const Entry& entry = ring_[ring_head_];
  arrival_time = entry.arrival;
  ring_head_ = (ring_head_ + 1) % kRingSize;
  --ring_count_;
  from = peer_;
  if (entry.size > buffer.size()) {
    size = 0;  // the Transport contract: oversized datagrams are reported with size 0, never cut short
    return true;
  }
  std::memcpy(buffer.data(), entry.bytes, entry.size);
  size = entry.size;
  return true;
}

}  // namespace demo
