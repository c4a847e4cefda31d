// A Transport that sends through a NetworkSimulator (latency, jitter, loss, duplicates, reordering,
// corruption) before handing datagrams to the destination on the inner transport's LoopbackNetwork. Each end
// wraps its own transport, so each direction has its own simulated link. Receiving is the inner transport's
// (the peer's wrapper delayed it). Call pump(now) every tick to deliver what is due: each datagram is put on
// the network with the time the simulator delivered it (its arrival at the host, as a kernel receive
// timestamp would report it), which the receiving end reads as its arrival time.
#pragma once

#include <array>
#include <cstring>
#include <type_traits>

#include "bitwire/sim/simulator.hpp"
#include "bitwire/transport/transport.hpp"

namespace bitwire::test {

class SimulatedTransport final : public Transport {
 public:
  static_assert(std::is_trivially_copyable_v<Address>);
  // The destination travels twice in front of the datagram: a corrupted copy shows as a mismatch and the
  // datagram is dropped (a corrupted destination would otherwise address nobody).
  static constexpr size_t kHeader = 2 * sizeof(Address);

  SimulatedTransport(LoopbackTransport& inner, NetworkSimulatorConfig config)
      : inner_(inner), simulator_(widen(config)) {}

  void send(const Address& to, std::span<const std::byte> datagram) override {
    if (datagram.size() > buffer_.size() - kHeader) return;
    std::memcpy(buffer_.data(), &to, sizeof(Address));
    std::memcpy(buffer_.data() + sizeof(Address), &to, sizeof(Address));
    std::memcpy(buffer_.data() + kHeader, datagram.data(), datagram.size());
    simulator_.send(now_, std::span(buffer_).first(kHeader + datagram.size()));
  }
  bool receive(std::span<std::byte> buffer, Address& from, size_t& size, double& arrival_time) override {
    return inner_.receive(buffer, from, size, arrival_time);
  }
  Address local_address() const override { return inner_.local_address(); }

  // Sets the time later sends are stamped with, and puts every datagram due by `now` on the network with
  // the time it arrived.
  void pump(double now) {
    now_ = now;
    simulator_.deliver(now, [&](std::span<const std::byte> packet, double arrival) {
      if (packet.size() < kHeader) return;
      if (std::memcmp(packet.data(), packet.data() + sizeof(Address), sizeof(Address)) != 0) return;
      Address to;
      std::memcpy(&to, packet.data(), sizeof(Address));
      inner_.network().inject(inner_.local_address(), to, packet.subspan(kHeader), arrival);
    });
  }
  NetworkSimulator& simulator() { return simulator_; }

 private:
  static NetworkSimulatorConfig widen(NetworkSimulatorConfig config) {
    config.mtu = static_cast<int>(kHeader) + 1500;
    return config;
  }

  LoopbackTransport& inner_;
  NetworkSimulator simulator_;
  double now_ = 0.0;
  std::array<std::byte, kHeader + 1500> buffer_{};
};

}  // namespace bitwire::test
