// SocketTransport: the demo server's UDP socket, with each datagram dated on the demo's clock by when it
// reached the host (TickClock::at_realtime of its kernel receive stamp), not when the server read it.
//
// Contracts: the Transport contract (an oversized datagram is reported with size 0); socket failures are
// counted, an ICMP error reported on the socket is skipped; `socket` and `clock` outlive the transport.
#pragma once

#include <cstdint>
#include <span>

#include "bitwire/transport/transport.hpp"
#include "bitwire/transport/udp_socket.hpp"
#include "tick_clock.hpp"

namespace demo {

class SocketTransport final : public bitwire::Transport {
 public:
  SocketTransport(bitwire::UdpSocket& socket, const TickClock& clock) : socket_(socket), clock_(clock) {}

  void send(const bitwire::Address& to, std::span<const std::byte> datagram) override {
    if (socket_.send(to, datagram) != bitwire::SocketStatus::kOk) ++failures_;
  }
  bool receive(std::span<std::byte> buffer, bitwire::Address& from, size_t& size, double& arrival_time) override {
    for (;;) {
      double kernel_time = 0.0;
      const bitwire::SocketStatus status = socket_.receive(buffer, from, size, kernel_time);
      if (status == bitwire::SocketStatus::kNothingToRead) return false;
      if (status == bitwire::SocketStatus::kOk || status == bitwire::SocketStatus::kTruncated) {
        arrival_time = clock_.at_realtime(kernel_time);
        if (status == bitwire::SocketStatus::kTruncated) size = 0;
        return true;
      }
      ++failures_;
      if (status == bitwire::SocketStatus::kNotOpen) return false;
    }
  }
  bitwire::Address local_address() const override { return socket_.local_address(); }
  uint64_t failures() const { return failures_; }

 private:
  bitwire::UdpSocket& socket_;
  const TickClock& clock_;
  uint64_t failures_ = 0;
};

}  // namespace demo
