// SimulatedTransport: a client's UDP socket with a NetworkSimulator in each direction, so the stack above
// it sees a bad network while the datagrams still cross the real loopback interface.
//
//   send()    -> outgoing simulator -> (pump: when due) socket.send(server)
//   socket    -> (pump: dated when it reached the host) incoming simulator -> (when due) receive()
//
// Contracts:
// - Time is passed in: pump(now) moves every packet due at `now` and stamps send() with `now`.
// - Arrival times: a datagram enters the incoming simulator at the time it reached the client's socket on the
//   demo's clock (TickClock::at_realtime of its kernel stamp: the tick the server sent it in), not at the
//   pump that read it; receive() reports the time the simulator delivered it. Both ends of a link then see
//   the simulated delay and nothing of the ticks that read it.
// - Fixed memory: both simulators and the receive ring are allocated in the constructor; a full ring drops
//   the datagram and counts it (ring_dropped), as a full socket buffer would.
// - One peer: every datagram goes to the server address given at construction; any other destination is
//   dropped and counted (wrong_destination). Datagrams from another source are delivered as they came.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "bitwire/sim/simulator.hpp"
#include "bitwire/transport/transport.hpp"
#include "bitwire/transport/udp_socket.hpp"
#include "tick_clock.hpp"

namespace demo {

class SimulatedTransport final : public bitwire::Transport {
 public:
  static constexpr size_t kMaxDatagram = 1500;
  static constexpr int kRingSize = 1024;

  // `socket` is open; it and `clock` outlive the transport. `up` / `down` configure the outgoing / incoming
  // simulators.
  SimulatedTransport(bitwire::UdpSocket& socket, const bitwire::Address& peer,
                     const bitwire::NetworkSimulatorConfig& up, const bitwire::NetworkSimulatorConfig& down,
                     const TickClock& clock);

  // Sends the outgoing packets due at `now`, reads the socket into the incoming simulator and queues the
  // incoming packets due at `now` for receive().
  void pump(double now);
  // New conditions for both directions (packets in flight keep their fate). False when refused.
  bool set_conditions(const bitwire::NetworkConditions& conditions);

  void send(const bitwire::Address& to, std::span<const std::byte> datagram) override;
  // The arrival time is when the incoming simulator delivered the datagram (the `now` of pump() or earlier:
  // the time a datagram waits in the ring for the caller's tick is not part of the link).
  bool receive(std::span<std::byte> buffer, bitwire::Address& from, size_t& size, double& arrival_time) override;
  bitwire::Address local_address() const override { return socket_.local_address(); }

  const bitwire::NetworkSimulator& up() const { return up_; }
  const bitwire::NetworkSimulator& down() const { return down_; }
  uint64_t ring_dropped() const { return ring_dropped_; }
  uint64_t wrong_destination() const { return wrong_destination_; }
  uint64_t socket_failures() const { return socket_failures_; }

 private:
  struct Entry {
    size_t size = 0;
    double arrival = 0.0;
    std::byte bytes[kMaxDatagram];
  };

  bitwire::UdpSocket& socket_;
  const TickClock& clock_;
  bitwire::Address peer_;
  bitwire::NetworkSimulator up_;
  bitwire::NetworkSimulator down_;
  double now_ = 0.0;
  std::unique_ptr<Entry[]> ring_;
  int ring_head_ = 0;
  int ring_count_ = 0;
  std::unique_ptr<std::byte[]> scratch_;
  uint64_t ring_dropped_ = 0;
  uint64_t wrong_destination_ = 0;
  uint64_t socket_failures_ = 0;
};

}  // namespace demo
