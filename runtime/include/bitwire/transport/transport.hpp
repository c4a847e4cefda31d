// Transport: where netcode's datagrams go. UdpTransport puts them on a UdpSocket; LoopbackNetwork carries
// them between in-process endpoints (no sockets) for tests, with hooks to drop, change, duplicate or reorder
// them.
//
// Contracts:
// - send() hands over one datagram and may drop it (as UDP may); it never blocks.
// - receive() copies the next datagram for this endpoint into the caller's buffer and returns true, or
// returns
//   false when none waits. A datagram larger than the buffer is dropped and reported with size 0 and true
//   (so the caller counts it) -- never cut short.
// - Arrival times: every receive reports when the datagram was taken from the socket / queue, read from the
//   transport's clock (set_clock) at the moment of the read. That clock must be the one the caller passes to
//   update() (netcode, Client, Server, Endpoint): seconds, any monotonic origin. receive_many reads the clock
//   once per system call (recvmmsg) and stamps every datagram that call returned. Without a clock the time is
//   NaN, which the netcode layers read as the `now` of the update() that received it. UdpTransport takes off
//   the time each datagram waited in the kernel (SO_TIMESTAMPNS); the loopback network reports instead the
//   time a datagram was injected with, when it has one (a simulated link's delivery time, as a kernel
//   receive timestamp would be), and never a time later than its clock.
// - LoopbackNetwork allocates its queue at construction (capacity fixed); a full queue drops and counts.
// - Batches: between begin_batch() and end_batch() a transport may hold the datagrams send() and
//   send_written() are given and send them together at end_batch() (UdpTransport: one sendmmsg per
//   kMaxSocketBatch datagrams), in the order they were given. Outside a batch every datagram leaves at once.
//   Batches nest (the outermost end_batch() sends); TransportBatch is the scoped form. netcode's update()
//   and the stack's send_packets() each run in one batch. A transport without batches (the default, and
//   decorators that do not forward them) sends at once.
// - send_room() / send_written(): room inside the transport for the next datagram (empty when it has none);
//   a sender that writes its datagram there and calls send_written(to, size) saves send()'s copy.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <vector>

#include "bitwire/transport/address.hpp"
#include "bitwire/transport/udp_socket.hpp"

namespace bitwire {

// The time every receive is stamped with: seconds on the caller's update() clock.
using TransportClock = std::function<double()>;

class Transport {
 public:
  virtual ~Transport() = default;
  virtual void send(const Address& to, std::span<const std::byte> datagram) = 0;
  // `arrival_time`: when the datagram was taken from the socket / queue (clock(); NaN without a clock).
  virtual bool receive(std::span<std::byte> buffer, Address& from, size_t& size, double& arrival_time) = 0;
  virtual Address local_address() const = 0;
  // Receives up to `count` datagrams, datagram i into buffers[i * stride, i * stride + stride), its size in
  // sizes[i] (0: oversized, dropped), its source in from[i] and its arrival time in arrival_times[i]. Returns
  // how many were received. `buffers` holds at least count * stride bytes. The default calls receive() per
  // datagram (an entry its receive() leaves undated reads NaN); UdpTransport uses one recvmmsg per batch.
  virtual size_t receive_many(std::span<std::byte> buffers, size_t stride, size_t count, size_t* sizes,
                              Address* from, double* arrival_times);

  // See "Batches" above. The default holds nothing.
  virtual void begin_batch() {}
  virtual void end_batch() {}
  // Room for one datagram inside the transport, valid until the next call on this transport; empty when
  // the transport has none (then build the datagram elsewhere and send() it). send_written(to, size) sends
  // the first `size` bytes of the room last returned (size <= its length).
  virtual std::span<std::byte> send_room() { return {}; }
  virtual void send_written(const Address& to, size_t size) { (void)to, (void)size; }

  // The clock arrivals are read from (the caller's update() clock); an empty function removes it. Read live
  // (each call the time at that moment). A clock stepped once per tick dates kernel-stamped datagrams early
  // by the time from the step to the read, and others late by up to a tick (docs/transport.md).
  void set_clock(TransportClock clock) { clock_ = std::move(clock); }
  bool has_clock() const { return static_cast<bool>(clock_); }
  // The clock's time now, NaN without a clock.
  double clock_now() const { return clock_ ? clock_() : std::numeric_limits<double>::quiet_NaN(); }

 private:
  TransportClock clock_;
};

// begin_batch() ... end_batch() as one scope.
class TransportBatch {
 public:
  explicit TransportBatch(Transport& transport) : transport_(transport) { transport_.begin_batch(); }
  ~TransportBatch() { transport_.end_batch(); }
  TransportBatch(const TransportBatch&) = delete;
  TransportBatch& operator=(const TransportBatch&) = delete;

 private:
  Transport& transport_;
};

// Over a UdpSocket the caller owns (it must outlive the transport). Socket failures are counted, not fatal.
// Sends inside a batch are held in kMaxSocketBatch rooms of kRoomBytes (allocated at construction) and
// leave in one sendmmsg when the batch ends or the rooms are full; a datagram larger than a room leaves at
// once with sendto (after the held ones, keeping the order).
// Arrival times: the clock's time at the read minus the datagram's wait in the kernel buffer (its
// SO_TIMESTAMPNS time against CLOCK_REALTIME at the read), so a datagram that waited for a slow tick is dated
// when it reached the host. A wait that is negative or above kMaxKernelAgeSeconds (CLOCK_REALTIME stepped,
// or no kernel time) is not believed: the time at the read is used. Without a clock: NaN.
class UdpTransport final : public Transport {
 public:
  static constexpr double kMaxKernelAgeSeconds = 1.0;
  static constexpr size_t kRoomBytes = 1500;
  explicit UdpTransport(UdpSocket& socket);
  ~UdpTransport() override;  // sends what a batch still holds
  UdpTransport(const UdpTransport&) = delete;
  UdpTransport& operator=(const UdpTransport&) = delete;
  void send(const Address& to, std::span<const std::byte> datagram) override;
  void begin_batch() override { ++batch_depth_; }
  void end_batch() override;
  std::span<std::byte> send_room() override;
  void send_written(const Address& to, size_t size) override;
  bool receive(std::span<std::byte> buffer, Address& from, size_t& size, double& arrival_time) override;
  Address local_address() const override { return socket_.local_address(); }
  size_t receive_many(std::span<std::byte> buffers, size_t stride, size_t count, size_t* sizes, Address* from,
                      double* arrival_times) override;
  uint64_t send_failures() const { return send_failures_; }
  uint64_t receive_failures() const { return receive_failures_; }
  SocketStatus last_failure() const { return last_failure_; }
  // System calls made to send (sendto and sendmmsg), for tests and benchmarks.
  uint64_t send_calls() const { return send_calls_; }
  // System calls made to receive (recvmsg and recvmmsg, the empty last one included), for tests and
  // benchmarks.
  uint64_t receive_calls() const { return receive_calls_; }

 private:
  void flush();  // sends the held datagrams
  void count_send(SocketStatus status);

  UdpSocket& socket_;
  std::array<bitwire::Datagram, kMaxSocketBatch> batch_{};
  std::array<bitwire::Datagram, kMaxSocketBatch> held_{};
  std::unique_ptr<std::byte[]> rooms_;  // kMaxSocketBatch x kRoomBytes
  size_t held_count_ = 0;
  int batch_depth_ = 0;
  uint64_t send_calls_ = 0;
  uint64_t receive_calls_ = 0;
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
    std::array<std::byte, kMaxDatagram> bytes{};
    // When the datagram reached its destination host, if the sender knows (inject with a time); NaN: the
    // receiving transport's clock at the receive.
    double arrival_time = std::numeric_limits<double>::quiet_NaN();
    bool delivered = false;  // received already; removed at the next compaction
  };
  explicit LoopbackNetwork(size_t capacity = 4096);

  // Called for each datagram as it is sent; return false to drop it. It may change the bytes or size.
  std::function<bool(Datagram&)> on_send;

  // Puts a datagram on the network as if `from` had sent it (bypasses on_send). `arrival_time`, when finite,
  // is the time (the receiver's clock) it reached the destination host: a simulated link's delivery time.
  bool inject(const Address& from, const Address& to, std::span<const std::byte> bytes,
              double arrival_time = std::numeric_limits<double>::quiet_NaN());
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
  void send(const Address& from, const Address& to, std::span<const std::byte> bytes);
  bool receive(const Address& to, std::span<std::byte> buffer, Address& from, size_t& size, double& arrival_time);
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
  void send(const Address& to, std::span<const std::byte> datagram) override { network_.send(address_, to, datagram); }
  // The arrival time is the clock's at this call, or the datagram's injected one when that is earlier.
  bool receive(std::span<std::byte> buffer, Address& from, size_t& size, double& arrival_time) override;
  Address local_address() const override { return address_; }
  LoopbackNetwork& network() const { return network_; }

 private:
  LoopbackNetwork& network_;
  Address address_;
};

}  // namespace bitwire
