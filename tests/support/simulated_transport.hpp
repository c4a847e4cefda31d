// A Transport that sends through a NetworkSimulator (latency, jitter, loss, duplicates, reordering,
// corruption) before handing datagrams to another Transport. Each end wraps its own transport, so each
// direction has its own simulated link. Receiving is the inner transport's (the peer's wrapper delayed it).
// Call pump(now) every tick to deliver what is due.
#pragma once

#include <array>
#include <cstring>
#include <type_traits>

#include "bitwire/simulator.hpp"
#include "bitwire/transport.hpp"

namespace bitwire::test {

class SimulatedTransport final : public Transport {
 public:
  static_assert(std::is_trivially_copyable_v<Address>);
  // The destination travels twice in front of the datagram: a corrupted copy shows as a mismatch and the
  // datagram is dropped (a corrupted destination would otherwise address nobody).
  static constexpr size_t kHeader = 2 * sizeof(Address);

  SimulatedTransport(Transport& inner, NetworkSimulatorConfig config)
      : inner_(inner), simulator_(widen(config)) {}

  void send(const Address& to, std::span<const uint8_t> datagram) override {
    if (datagram.size() > buffer_.size() - kHeader) return;
    std::memcpy(buffer_.data(), &to, sizeof(Address));
    std::memcpy(buffer_.data() + sizeof(Address), &to, sizeof(Address));
    std::memcpy(buffer_.data() + kHeader, datagram.data(), datagram.size());
    simulator_.send(now_, std::as_bytes(std::span(buffer_)).first(kHeader + datagram.size()));
  }
  bool receive(std::span<uint8_t> buffer, Address& from, size_t& size) override {
    return inner_.receive(buffer, from, size);
  }
  Address local_address() const override { return inner_.local_address(); }

  // Sets the time later sends are stamped with, and hands every datagram due by `now` to the inner transport.
  void pump(double now) {
    now_ = now;
    simulator_.deliver(now, [&](std::span<const std::byte> packet) {
      if (packet.size() < kHeader) return;
      if (std::memcmp(packet.data(), packet.data() + sizeof(Address), sizeof(Address)) != 0) return;
      Address to;
      std::memcpy(&to, packet.data(), sizeof(Address));
      inner_.send(to, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(packet.data()) + kHeader,
                                               packet.size() - kHeader));
    });
  }
  NetworkSimulator& simulator() { return simulator_; }

 private:
  static NetworkSimulatorConfig widen(NetworkSimulatorConfig config) {
    config.mtu = static_cast<int>(kHeader) + 1500;
    return config;
  }

  Transport& inner_;
  NetworkSimulator simulator_;
  double now_ = 0.0;
  std::array<uint8_t, kHeader + 1500> buffer_{};
};

}  // namespace bitwire::test
