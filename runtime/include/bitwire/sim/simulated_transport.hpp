// SimulatedTransport: a Transport decorator that puts a NetworkSimulator in each direction between the
// stack (netcode, Client, Server) and the transport that really carries the datagrams (a UdpTransport, a
// LoopbackTransport, a transport of the game's own). One line on either end:
//
//   bitwire::UdpTransport udp(socket);
//   bitwire::SimulatedTransport sim(udp, conditions, seed);   // then pass `sim` where a Transport goes
//   sim.set_clock(now_fn);                                      // the clock update() is given, as for udp
//
//   send()  -> outgoing simulator -> (when due) inner.send()
//   inner.receive() -> incoming simulator -> (when due) receive()
//
// Contracts:
// - Time: the decorator's clock (set_clock), else the inner transport's clock when it has one, else the
//   steady clock. Packets move whenever the owner calls send() or receive() (every update() does): send()
//   hands the inner transport what is due, receive() also reads the inner transport dry into the incoming
//   simulator. A datagram enters the incoming simulator at the arrival time the inner transport reported
//   (when finite and not later than now), so the simulated delay adds to the real one and not to the wait
//   for the reading tick. receive() reports the time the simulator delivered it: its arrival on the clock,
//   or NaN when neither the decorator nor the inner transport has a clock (the caller reads NaN as the
//   `now` of its update, per the Transport contract).
// - Any number of peers: each datagram carries its destination (outgoing) or source (incoming) through the
//   simulator, written twice; a corruption that hits it (the copies differ) drops the datagram and counts it
//   (`misaddressed`), as a corrupted IP header would be dropped by the network.
// - Fixed memory: both simulators and the receive ring are allocated in the constructor; nothing grows. A
// full
//   ring drops the datagram and counts it (`ring_dropped`), as a full socket buffer would; a datagram larger
//   than `max_datagram` is dropped and counted (`too_large`).
// - Config: SimulatedTransportConfig::check() names the refused field; a refused config leaves the
//   transport not ok() (error_reason() says why): it allocates the nearest legal sizes and drops every
//   datagram both ways (counted `refused`), as a network that is down.
// - Reproducible: the same seed, conditions and sequence of calls and times give the same network.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "bitwire/core/config_table.hpp"
#include "bitwire/sim/simulator.hpp"
#include "bitwire/transport/transport.hpp"

namespace bitwire {

struct SimulatedTransportConfig {
  NetworkSimulatorConfig outgoing;  // what this end sends; its mtu is set from max_datagram
  NetworkSimulatorConfig incoming;  // what this end receives; its mtu is set from max_datagram
  int max_datagram = 1500;          // largest datagram carried, in bytes (larger: dropped, `too_large`)
  int ring_size = 1024;  // delivered datagrams waiting for receive(); ring_size * max_datagram <= 2^30

  // The same conditions both ways; the directions get different generator streams from `seed`.
  static SimulatedTransportConfig symmetric(const NetworkConditions& conditions, uint64_t seed = 1);

  // ok() when every field is within its limits, else the reason ("SimulatedTransportConfig.ring_size = 0
  // is outside [1, 65536]", or a direction's NetworkSimulatorConfig reason prefixed with its name).
  ConfigCheck check() const;
};

struct SimulatedTransportStats {
  uint64_t misaddressed = 0;     // dropped: the carried address was corrupted in the simulator
  uint64_t ring_dropped = 0;     // dropped: the receive ring was full
  uint64_t too_large = 0;        // dropped: larger than max_datagram
  uint64_t inner_oversized = 0;  // datagrams the inner transport reported with size 0 (passed on as such)
  uint64_t refused = 0;          // dropped: the config was refused (not ok())
};

class SimulatedTransport final : public Transport {
 public:
  // `inner` outlives the decorator. `conditions` apply to both directions.
  SimulatedTransport(Transport& inner, const NetworkConditions& conditions, uint64_t seed = 1);
  SimulatedTransport(Transport& inner, const SimulatedTransportConfig& config);
  ~SimulatedTransport() override;

  SimulatedTransport(const SimulatedTransport&) = delete;
  SimulatedTransport& operator=(const SimulatedTransport&) = delete;

  void send(const Address& to, std::span<const std::byte> datagram) override;
  bool receive(std::span<std::byte> buffer, Address& from, size_t& size, double& arrival_time) override;
  Address local_address() const override { return inner_.local_address(); }

  // Moves every packet due now both ways (send() and receive() do this; a caller that only sends may call
  // it to let delayed datagrams leave).
  void pump();

  // New conditions for both directions (packets in flight keep their fate). False when refused: the old
  // conditions stay.
  bool set_conditions(const NetworkConditions& conditions);

  bool ok() const { return error_reason_[0] == '\0'; }
  const char* error_reason() const { return ok() ? nullptr : error_reason_; }

  const NetworkSimulator& outgoing() const { return outgoing_; }
  const NetworkSimulator& incoming() const { return incoming_; }
  const SimulatedTransportStats& stats() const { return stats_; }
  Transport& inner() const { return inner_; }

 private:
  struct Entry;
  double now() const;
  bool dated() const;  // arrival times mean something: a clock (own or the inner's) exists
  void flush_outgoing(double now);
  void read_inner(double now);
  void flush_incoming(double now);

  Transport& inner_;
  int max_datagram_;
  NetworkSimulator outgoing_;
  NetworkSimulator incoming_;
  std::unique_ptr<std::byte[]> scratch_;  // header + max_datagram: one datagram on its way in or out
  std::unique_ptr<std::byte[]> ring_bytes_;
  std::unique_ptr<Entry[]> ring_;
  int ring_size_;
  int ring_head_ = 0;
  int ring_count_ = 0;
  double steady_origin_;
  SimulatedTransportStats stats_;
  char error_reason_[kConfigReasonBytes] = {};
};

}  // namespace bitwire
