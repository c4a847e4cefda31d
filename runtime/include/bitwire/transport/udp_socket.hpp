// UdpSocket: one non-blocking UDP socket, IPv4 or IPv6. The only bitwire type that calls the OS; it has no
// thread and no clock.
//
// Usage:
//   bitwire::UdpSocketConfig config;                       // buffer sizes, dual stack; defaults are fine
//   bitwire::UdpSocket socket;
//   if (auto status = socket.open(bind_address, config); status != bitwire::SocketStatus::kOk) {
//     log(bitwire::to_string(status), socket.system_error());   // e.g. kAddressInUse, "Address already in use"
//   }
//   socket.local_address();                                // the bound address (the real port when 0 was asked)
//   socket.send(to, bytes);                                // one datagram
//   bitwire::Address from; size_t size;
//   while (socket.receive(buffer, from, size) == bitwire::SocketStatus::kOk) { ... }   // kNothingToRead ends it
//
// Contracts:
// - Non-blocking: receive() returns kNothingToRead when no datagram waits (EAGAIN is not an error), send()
//   returns kWouldBlock when the OS send buffer is full (the datagram is dropped, as UDP may drop anything).
// - Caller buffers only: receive writes into the span it is given; a datagram longer than the span is dropped
//   and reported as kTruncated (never silently cut). No allocation after open().
// - Dual stack: an IPv6 socket is IPv6-only by default (config.dual_stack = false), so an IPv4 and an IPv6
//   socket can share a port number and every peer has exactly one Address. With dual_stack = true an IPv6
//   socket also talks to IPv4 peers: IPv4-mapped sources are reported as IPv4 Addresses and IPv4
//   destinations are mapped on send.
// - Kernel timestamps: open() asks for SO_TIMESTAMPNS; receives report when the kernel took each datagram
//   (CLOCK_REALTIME, kernel_time), which UdpTransport turns into an arrival time on the caller's clock.
// - Batches: receive_batch / send_batch use recvmmsg / sendmmsg (one system call for up to kMaxSocketBatch
//   datagrams); larger spans are split. They report per datagram like the single calls.
// - Errors: a SocketStatus with to_string(); system_error() keeps the OS text of the last failure.
//   No exceptions. A moved-from socket is closed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>

#include "bitwire/transport/address.hpp"
#include "bitwire/core/config_table.hpp"

namespace bitwire {

enum class SocketStatus : uint8_t {
  kOk,                 // done
  kNothingToRead,      // receive: no datagram waiting (not an error)
  kWouldBlock,         // send: the OS buffer is full; the datagram was not sent
  kTruncated,          // receive: the datagram was larger than the buffer and was dropped
  kNotOpen,            // the socket is not open
  kInvalidAddress,     // the empty address, or port 0 as a destination
  kFamilyMismatch,     // an IPv6 destination on an IPv4 socket, or IPv4 on an IPv6-only socket
  kAddressInUse,       // bind: the address and port are taken
  kAddressNotAvailable,// bind: the address is not local (or IPv6 is disabled)
  kPermissionDenied,   // bind or send refused by the OS
  kMessageTooLarge,    // send: larger than the OS accepts for one datagram
  kUnreachable,        // send: no route, or an ICMP error reported on this socket
  kSystemError,        // any other OS failure; see system_error()
  kInvalidConfig,      // open: the UdpSocketConfig failed check(); system_error() holds the reason
};

const char* to_string(SocketStatus status);

// Largest datagram batch one system call handles; larger batches are split.
inline constexpr int kMaxSocketBatch = 64;

struct UdpSocketConfig {
  int send_buffer_size = 1 << 20;     // SO_SNDBUF request in bytes (the OS may grant less; see granted sizes)
  int receive_buffer_size = 1 << 20;  // SO_RCVBUF request in bytes (the OS may grant less)
  bool dual_stack = false;            // IPv6 sockets also carry IPv4 (mapped) traffic when true

  // Passes when every field is within kUdpSocketConfigLimits, else the reason naming the field, its value
  // and its legal range (held in the ConfigCheck; see config_table.hpp).
  ConfigCheck check() const;
  // This config with every field clamped into kUdpSocketConfigLimits.
  UdpSocketConfig sanitized() const;
};

// The limits of the buffer sizes (the flag has no range): at least one page, at most 256 MiB (Linux doubles
// the request for its bookkeeping, and an int must hold that). check() and sanitized() are derived from it.
inline constexpr auto kUdpSocketConfigLimits = config_table(
    Field<UdpSocketConfig, int>{.name = "send_buffer_size",
                                .member = &UdpSocketConfig::send_buffer_size,
                                .min = 4096,
                                .max = 1 << 28,
                                .unit = "bytes"},
    Field<UdpSocketConfig, int>{.name = "receive_buffer_size",
                                .member = &UdpSocketConfig::receive_buffer_size,
                                .min = 4096,
                                .max = 1 << 28,
                                .unit = "bytes"});

// One datagram of a batch. For receive: `buffer` is the caller's room (in), `size` and `from` are set (out).
// For send: `buffer` holds the bytes and `address` the destination. `status` is per datagram.
struct Datagram {
  std::span<std::byte> buffer;
  size_t size = 0;
  Address address;
  SocketStatus status = SocketStatus::kOk;
  // receive: when the kernel received it (SO_TIMESTAMPNS: CLOCK_REALTIME seconds), NaN when the OS gave none.
  double kernel_time = std::numeric_limits<double>::quiet_NaN();
};

// CLOCK_REALTIME in seconds: the clock of kernel_time (a caller turns a kernel time into an age with it).
double realtime_seconds();

class UdpSocket {
 public:
  UdpSocket();
  ~UdpSocket();
  UdpSocket(UdpSocket&& other) noexcept;
  UdpSocket& operator=(UdpSocket&& other) noexcept;
  UdpSocket(const UdpSocket&) = delete;
  UdpSocket& operator=(const UdpSocket&) = delete;

  // Creates the socket for bind_address's family and binds it (port 0: an ephemeral port). Closes any socket
  // this object held first. A config that fails check() is refused with kInvalidConfig and the reason in
  // system_error(); nothing is opened.
  SocketStatus open(const Address& bind_address, const UdpSocketConfig& config = {});
  void close();
  bool is_open() const { return fd_ >= 0; }

  const Address& local_address() const { return local_; }  // with the port the OS chose
  int send_buffer_size() const { return granted_send_; }   // what the OS granted (Linux reports 2x request)
  int receive_buffer_size() const { return granted_receive_; }
  const char* system_error() const { return system_error_; }  // the OS text of the last failure

  SocketStatus send(const Address& to, std::span<const std::byte> data);
  // kOk: one datagram of `size` bytes from `from` is in buffer[0, size).
  SocketStatus receive(std::span<std::byte> buffer, Address& from, size_t& size);
  // The same, with the kernel's receive time (Datagram::kernel_time; NaN when the OS gave none).
  SocketStatus receive(std::span<std::byte> buffer, Address& from, size_t& size, double& kernel_time);

  // Receives up to datagrams.size() datagrams; returns how many were received (0 when nothing waits or on
  // an error, which `status` reports; kNothingToRead otherwise). A truncated datagram is counted and marked
  // kTruncated in its slot.
  size_t receive_batch(std::span<Datagram> datagrams, SocketStatus& status);
  // One recvmmsg into up to min(out.size(), kMaxSocketBatch) rooms of `stride` bytes at `rooms` (room i at
  // i * stride); out[i] reports datagram i (its buffer is room i). Returns how many were received, with
  // `status` as receive_batch's. The system call's headers are kept between calls with the same rooms, so
  // a call costs the datagrams it returns, not the rooms it offers: the receive path of a server that
  // polls every tick and usually finds a few datagrams.
  size_t receive_rooms(std::span<std::byte> rooms, size_t stride, std::span<Datagram> out,
                       SocketStatus& status);
  // Sends every datagram (each status set); returns how many the OS took.
  size_t send_batch(std::span<Datagram> datagrams);

 private:
  struct Batch;
  SocketStatus fail(int error_number);
  bool to_native(const Address& address, void* storage, unsigned& length, SocketStatus& status) const;

  int fd_ = -1;
  bool ipv6_only_ = true;
  Address local_;
  int granted_send_ = 0;
  int granted_receive_ = 0;
  char system_error_[kConfigReasonBytes] = {};  // the OS text, or a config reason
  std::unique_ptr<Batch> batch_;  // recvmmsg/sendmmsg headers, allocated by open()
};

}  // namespace bitwire
