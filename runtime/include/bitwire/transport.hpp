// Transport: where netcode's datagrams go. UdpTransport puts them on a UdpSocket; LoopbackNetwork carries them
// between in-process endpoints (no sockets) for tests, with hooks to drop, change, duplicate or reorder them.
//
// Contracts:
// - send() hands over one datagram and may drop it (as UDP may); it never blocks.
// - receive() copies the next datagram for this endpoint into the caller's buffer and returns true, or returns
//   false when none waits. A datagram larger than the buffer is dropped and reported with size 0 and true
//   (so the caller counts it) -- never cut short.
// - LoopbackNetwork allocates its queue at construction (capacity fixed); a full queue drops and counts.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "bitwire/address.hpp"
#include "bitwire/udp_socket.hpp"

namespace bitwire {

class Transport {
 public:
  virtual ~Transport() = default;
  virtual void send(const Address& to, std::span<const uint8_t> datagram) = 0;
  virtual bool receive(std::span<uint8_t> buffer, Address& from, size_t& size) = 0;
  virtual Address local_address() const = 0;
  // Receives up to `count` datagrams, datagram i into buffers[i * stride, i * stride + stride), its size in
  // sizes[i] (0: oversized, dropped) and its source in from[i]. Returns how many were received. The default
  // calls receive() per datagram; UdpTransport uses one recvmmsg per batch.
  virtual size_t receive_many(uint8_t* buffers, size_t stride, size_t count, size_t* sizes, Address* from);
};

// Over a UdpSocket the caller owns (it must outlive the transport). Socket failures are counted, not fatal.
class UdpTransport final : public Transport {
 public:
  explicit UdpTransport(UdpSocket& socket) : socket_(socket) {}
  void send(const Address& to, std::span<const uint8_t> datagram) override;
  bool receive(std::span<uint8_t> buffer, Address& from, size_t& size) override;
  Address local_address() const override { return socket_.local_address(); }
  size_t receive_many(uint8_t* buffers, size_t stride, size_t count, size_t* sizes, Address* from) override;
  uint64_t send_failures() const { return send_failures_; }
  uint64_t receive_failures() const { return receive_failures_; }
  SocketStatus last_failure() const { return last_failure_; }

 private:
  UdpSocket& socket_;
  std::array<bitwire::Datagram, kMaxSocketBatch> batch_{};
  uint64_t send_failures_ = 0;
  uint64_t receive_failures_ = 0;
  SocketStatus last_failure_ = SocketStatus::kOk;
};

// An in-process network: every LoopbackTransport attached to it has an address; datagrams wait in one FIFO
// queue until their destination receives them.
class LoopbackNetwork {
 public:
  static constexpr size_t kMaxDatagram = 1500;
  struct Datagram {
    Address from;
    Address to;
    size_t size = 0;
    std::array<uint8_t, kMaxDatagram> bytes{};
    bool delivered = false;  // received already; removed at the next compaction
  };
  explicit LoopbackNetwork(size_t capacity = 4096);

  // Called for each datagram as it is sent; return false to drop it. It may change the bytes or size.
  std::function<bool(Datagram&)> on_send;

  // Puts a datagram on the network as if `from` had sent it (bypasses on_send).
  bool inject(const Address& from, const Address& to, std::span<const uint8_t> bytes);
  // The queued datagrams, in delivery order; tests may reorder, duplicate (within capacity) or edit them.
  std::vector<Datagram>& queue() {
    compact();
    return queue_;
  }
  size_t capacity() const { return capacity_; }
  uint64_t dropped_full() const { return dropped_full_; }
  uint64_t sent() const { return sent_; }

 private:
  friend class LoopbackTransport;
  void send(const Address& from, const Address& to, std::span<const uint8_t> bytes);
  bool receive(const Address& to, std::span<uint8_t> buffer, Address& from, size_t& size);
  void compact();  // drops delivered datagrams (keeps the order of the rest)

  size_t capacity_;
  std::vector<Datagram> queue_;
  size_t head_ = 0;  // every datagram before head_ has been delivered
  uint64_t dropped_full_ = 0;
  uint64_t sent_ = 0;
};

class LoopbackTransport final : public Transport {
 public:
  LoopbackTransport(LoopbackNetwork& network, const Address& address) : network_(network), address_(address) {}
  void send(const Address& to, std::span<const uint8_t> datagram) override { network_.send(address_, to, datagram); }
  bool receive(std::span<uint8_t> buffer, Address& from, size_t& size) override {
    return network_.receive(address_, buffer, from, size);
  }
  Address local_address() const override { return address_; }

 private:
  LoopbackNetwork& network_;
  Address address_;
};

}  // namespace bitwire
