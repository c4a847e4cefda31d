// UdpSocket over the POSIX socket API (Linux: recvmmsg / sendmmsg for batches).
#include "bitwire/transport/udp_socket.hpp"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <utility>

namespace bitwire {

const char* to_string(SocketStatus status) {
  switch (status) {
    case SocketStatus::kOk: return "ok";
    case SocketStatus::kNothingToRead: return "nothing to read";
    case SocketStatus::kWouldBlock: return "send buffer full";
    case SocketStatus::kTruncated: return "datagram larger than the buffer (dropped)";
    case SocketStatus::kNotOpen: return "socket not open";
    case SocketStatus::kInvalidAddress: return "invalid address";
    case SocketStatus::kFamilyMismatch: return "address family does not match the socket";
    case SocketStatus::kAddressInUse: return "address in use";
    case SocketStatus::kAddressNotAvailable: return "address not available";
    case SocketStatus::kPermissionDenied: return "permission denied";
    case SocketStatus::kMessageTooLarge: return "message too large";
    case SocketStatus::kUnreachable: return "unreachable";
    case SocketStatus::kSystemError: return "system error";
    case SocketStatus::kInvalidConfig: return "invalid socket config";
  }
  return "unknown";
}

ConfigCheck UdpSocketConfig::check() const {
  return check_config("UdpSocketConfig", *this, kUdpSocketConfigLimits);
}

UdpSocketConfig UdpSocketConfig::sanitized() const {
  return sanitize_config(*this, kUdpSocketConfigLimits);
}

// Room for one SO_TIMESTAMPNS control message (the only one asked for; others are cut and ignored).
constexpr size_t kControlBytes = CMSG_SPACE(sizeof(timespec));

struct UdpSocket::Batch {
  mmsghdr headers[kMaxSocketBatch];
  iovec vectors[kMaxSocketBatch];
  sockaddr_storage addresses[kMaxSocketBatch];
  alignas(cmsghdr) unsigned char controls[kMaxSocketBatch][kControlBytes];

  // receive_rooms' headers, kept between calls: they point at the rooms they were prepared for, and the
  // kernel rewrites only the name and control lengths of the entries it fills, so a call with the same
  // rooms restores those (`dirty` entries) instead of preparing every header again.
  mmsghdr room_headers[kMaxSocketBatch];
  iovec room_vectors[kMaxSocketBatch];
  sockaddr_storage room_addresses[kMaxSocketBatch];
  alignas(cmsghdr) unsigned char room_controls[kMaxSocketBatch][kControlBytes];
  const std::byte* room_base = nullptr;
  size_t room_stride = 0;
  size_t room_count = 0;
  size_t dirty = 0;

  void prepare_rooms(std::byte* base, size_t stride, size_t count) {
    for (size_t i = 0; i < count; ++i) {
      room_vectors[i] = iovec{base + i * stride, stride};
      room_headers[i] = mmsghdr{};
      msghdr& h = room_headers[i].msg_hdr;
      h.msg_name = &room_addresses[i];
      h.msg_namelen = sizeof(sockaddr_storage);
      h.msg_iov = &room_vectors[i];
      h.msg_iovlen = 1;
      h.msg_control = room_controls[i];
      h.msg_controllen = kControlBytes;
    }
    room_base = base;
    room_stride = stride;
    room_count = count;
    dirty = 0;
  }
};

double realtime_seconds() {
  timespec t{};
  clock_gettime(CLOCK_REALTIME, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

UdpSocket::UdpSocket() = default;

UdpSocket::~UdpSocket() {
  close();
}

UdpSocket::UdpSocket(UdpSocket&& other) noexcept {
  *this = std::move(other);
}

UdpSocket& UdpSocket::operator=(UdpSocket&& other) noexcept {
  if (this != &other) {
    close();
    fd_ = std::exchange(other.fd_, -1);
    ipv6_only_ = other.ipv6_only_;
    local_ = other.local_;
    granted_send_ = other.granted_send_;
    granted_receive_ = other.granted_receive_;
    std::memcpy(system_error_, other.system_error_, sizeof system_error_);
    batch_ = std::move(other.batch_);
  }
  return *this;
}

void UdpSocket::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  local_ = Address();
}

SocketStatus UdpSocket::fail(int error_number) {
  const char* text = strerror_r(error_number, system_error_, sizeof system_error_);
  if (text != system_error_) {
    std::snprintf(system_error_, sizeof system_error_, "%s", text);
  }
  switch (error_number) {
    case EAGAIN:
#if EAGAIN != EWOULDBLOCK
    case EWOULDBLOCK:
#endif
    case ENOBUFS:
      return SocketStatus::kWouldBlock;
    case EADDRINUSE: return SocketStatus::kAddressInUse;
    case EADDRNOTAVAIL:
    case EAFNOSUPPORT: return SocketStatus::kAddressNotAvailable;
    case EACCES:
    case EPERM: return SocketStatus::kPermissionDenied;
    case EMSGSIZE: return SocketStatus::kMessageTooLarge;
    case ENETUNREACH:
    case EHOSTUNREACH:
    case ECONNREFUSED: return SocketStatus::kUnreachable;
    default: return SocketStatus::kSystemError;
  }
}

namespace {

// The SO_TIMESTAMPNS time of a received message, NaN when it carries none.
double kernel_time_of(msghdr& header) {
  for (cmsghdr* c = CMSG_FIRSTHDR(&header); c != nullptr; c = CMSG_NXTHDR(&header, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS && c->cmsg_len >= CMSG_LEN(sizeof(timespec))) {
      timespec t{};
      std::memcpy(&t, CMSG_DATA(c), sizeof t);
      return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
    }
  }
  return std::numeric_limits<double>::quiet_NaN();
}

// The reinterpret_casts below are the sockets API's own idiom: sockaddr_storage is specified to be viewed as
// the sockaddr_in / sockaddr_in6 that ss_family names.
Address from_native(const sockaddr_storage& storage) {
  if (storage.ss_family == AF_INET) {
    const auto& in = reinterpret_cast<const sockaddr_in&>(storage);
    std::array<uint8_t, 4> bytes;
    std::memcpy(bytes.data(), &in.sin_addr, 4);
    return Address::ipv4(bytes, ntohs(in.sin_port));
  }
  if (storage.ss_family == AF_INET6) {
    const auto& in6 = reinterpret_cast<const sockaddr_in6&>(storage);
    std::array<uint8_t, 16> bytes;
    std::memcpy(bytes.data(), &in6.sin6_addr, 16);
    static constexpr uint8_t kMappedPrefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
    if (std::memcmp(bytes.data(), kMappedPrefix, 12) == 0) {
      return Address::ipv4({bytes[12], bytes[13], bytes[14], bytes[15]}, ntohs(in6.sin6_port));
    }
    return Address::ipv6_bytes(bytes, ntohs(in6.sin6_port));
  }
  return Address();
}

}  // namespace

bool UdpSocket::to_native(const Address& address, void* storage, unsigned& length, SocketStatus& status) const {
  const bool socket_v6 = local_.is_ipv6();
  if (address.is_none()) {
    status = SocketStatus::kInvalidAddress;
    return false;
  }
  if (address.is_ipv4() && !socket_v6) {
    sockaddr_in in{};
    in.sin_family = AF_INET;
    in.sin_port = htons(address.port());
    std::memcpy(&in.sin_addr, address.bytes().data(), 4);
    std::memcpy(storage, &in, sizeof in);
    length = sizeof in;
    return true;
  }
  if (socket_v6 && (address.is_ipv6() || !ipv6_only_)) {
    sockaddr_in6 in6{};
    in6.sin6_family = AF_INET6;
    in6.sin6_port = htons(address.port());
    if (address.is_ipv6()) {
      std::memcpy(&in6.sin6_addr, address.bytes().data(), 16);
    } else {
      uint8_t mapped[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
      std::memcpy(mapped + 12, address.bytes().data(), 4);
      std::memcpy(&in6.sin6_addr, mapped, 16);
    }
    std::memcpy(storage, &in6, sizeof in6);
    length = sizeof in6;
    return true;
  }
  status = SocketStatus::kFamilyMismatch;
  return false;
}

SocketStatus UdpSocket::open(const Address& bind_address, const UdpSocketConfig& requested) {
  close();
  system_error_[0] = '\0';
  if (const ConfigCheck problem = requested.check(); !problem) {
    keep_config_reason(system_error_, problem);
    return SocketStatus::kInvalidConfig;
  }
  if (bind_address.is_none()) return SocketStatus::kInvalidAddress;
  const UdpSocketConfig config = requested.sanitized();
  const bool v6 = bind_address.is_ipv6();
  const int fd = ::socket(v6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return fail(errno);
  auto give_up = [&](int error_number) {
    ::close(fd);
    return fail(error_number);
  };
  if (v6) {
    const int only = config.dual_stack ? 0 : 1;
    if (setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &only, sizeof only) != 0) return give_up(errno);
  }
  if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &config.send_buffer_size, sizeof(int)) != 0) return give_up(errno);
  if (setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &config.receive_buffer_size, sizeof(int)) != 0) {
    return give_up(errno);
  }
  // Kernel receive times; without them (an OS that refuses) receives report NaN and callers use their clock.
  const int stamp = 1;
  setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &stamp, sizeof stamp);
  fd_ = fd;
  ipv6_only_ = !config.dual_stack;
  local_ = bind_address;
  sockaddr_storage storage{};
  unsigned length = 0;
  SocketStatus status = SocketStatus::kOk;
  if (!to_native(bind_address, &storage, length, status)) {
    close();
    return status;
  }
  // bind and getsockname take a sockaddr*: the sockets API demands these casts from sockaddr_storage.
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&storage), length) != 0) {
    const int error_number = errno;
    close();
    return fail(error_number);
  }
  socklen_t got = sizeof storage;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&storage), &got) != 0) {
    const int error_number = errno;
    close();
    return fail(error_number);
  }
  // getsockname filled a sockaddr_in6 for a v6 socket: viewing the storage as one is the API's idiom.
  local_ = v6 ? Address::ipv6_bytes(
                    [&] {
                      std::array<uint8_t, 16> b;
                      std::memcpy(b.data(), &reinterpret_cast<const sockaddr_in6&>(storage).sin6_addr, 16);
                      return b;
                    }(),
                    ntohs(reinterpret_cast<const sockaddr_in6&>(storage).sin6_port))
              : from_native(storage);
  socklen_t size_length = sizeof(int);
  getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &granted_send_, &size_length);
  size_length = sizeof(int);
  getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &granted_receive_, &size_length);
  if (!batch_) batch_ = std::make_unique<Batch>();
  return SocketStatus::kOk;
}

SocketStatus UdpSocket::send(const Address& to, std::span<const std::byte> data) {
  if (fd_ < 0) return SocketStatus::kNotOpen;
  if (to.port() == 0) return SocketStatus::kInvalidAddress;
  sockaddr_storage storage{};
  unsigned length = 0;
  SocketStatus status = SocketStatus::kOk;
  if (!to_native(to, &storage, length, status)) return status;
  // sendto takes a sockaddr*: the sockets API demands this cast from sockaddr_storage.
  const ssize_t sent = ::sendto(fd_, data.data(), data.size(), 0, reinterpret_cast<const sockaddr*>(&storage),
                                length);
  if (sent < 0) return fail(errno);
  return SocketStatus::kOk;
}

SocketStatus UdpSocket::receive(std::span<std::byte> buffer, Address& from, size_t& size) {
  double kernel_time = 0.0;
  return receive(buffer, from, size, kernel_time);
}

SocketStatus UdpSocket::receive(std::span<std::byte> buffer, Address& from, size_t& size, double& kernel_time) {
  if (fd_ < 0) return SocketStatus::kNotOpen;
  sockaddr_storage storage{};
  iovec vector{buffer.data(), buffer.size()};
  alignas(cmsghdr) unsigned char control[kControlBytes];
  msghdr header{};
  header.msg_name = &storage;
  header.msg_namelen = sizeof storage;
  header.msg_iov = &vector;
  header.msg_iovlen = 1;
  header.msg_control = control;
  header.msg_controllen = sizeof control;
  const ssize_t got = ::recvmsg(fd_, &header, 0);
  if (got < 0) {
    const int error_number = errno;
    if (error_number == EAGAIN || error_number == EWOULDBLOCK) return SocketStatus::kNothingToRead;
    return fail(error_number);
  }
  from = from_native(storage);
  kernel_time = kernel_time_of(header);
  if (header.msg_flags & MSG_TRUNC) {
    size = 0;
    return SocketStatus::kTruncated;
  }
  size = static_cast<size_t>(got);
  return SocketStatus::kOk;
}

size_t UdpSocket::receive_batch(std::span<Datagram> datagrams, SocketStatus& status) {
  status = SocketStatus::kNothingToRead;
  if (fd_ < 0) {
    status = SocketStatus::kNotOpen;
    return 0;
  }
  size_t total = 0;
  while (total < datagrams.size()) {
    const size_t count = std::min<size_t>(kMaxSocketBatch, datagrams.size() - total);
    Batch& b = *batch_;
    for (size_t i = 0; i < count; ++i) {
      Datagram& d = datagrams[total + i];
      b.vectors[i] = iovec{d.buffer.data(), d.buffer.size()};
      b.headers[i] = mmsghdr{};
      b.headers[i].msg_hdr.msg_name = &b.addresses[i];
      b.headers[i].msg_hdr.msg_namelen = sizeof(sockaddr_storage);
      b.headers[i].msg_hdr.msg_iov = &b.vectors[i];
      b.headers[i].msg_hdr.msg_iovlen = 1;
      b.headers[i].msg_hdr.msg_control = b.controls[i];
      b.headers[i].msg_hdr.msg_controllen = kControlBytes;
    }
    const int got = ::recvmmsg(fd_, b.headers, static_cast<unsigned>(count), MSG_DONTWAIT, nullptr);
    if (got < 0) {
      const int error_number = errno;
      if (error_number != EAGAIN && error_number != EWOULDBLOCK && total == 0) status = fail(error_number);
      break;
    }
    for (int i = 0; i < got; ++i) {
      Datagram& d = datagrams[total + static_cast<size_t>(i)];
      d.address = from_native(b.addresses[i]);
      d.kernel_time = kernel_time_of(b.headers[i].msg_hdr);
      if (b.headers[i].msg_hdr.msg_flags & MSG_TRUNC) {
        d.size = 0;
        d.status = SocketStatus::kTruncated;
      } else {
        d.size = b.headers[i].msg_len;
        d.status = SocketStatus::kOk;
      }
    }
    total += static_cast<size_t>(got);
    status = SocketStatus::kOk;
    if (static_cast<size_t>(got) < count) break;
  }
  return total;
}

size_t UdpSocket::receive_rooms(std::span<std::byte> rooms, size_t stride, std::span<Datagram> out,
                                SocketStatus& status) {
  status = SocketStatus::kNothingToRead;
  if (fd_ < 0) {
    status = SocketStatus::kNotOpen;
    return 0;
  }
  const size_t count =
      std::min({out.size(), static_cast<size_t>(kMaxSocketBatch), stride == 0 ? 0 : rooms.size() / stride});
  if (count == 0) return 0;
  Batch& b = *batch_;
  if (b.room_base != rooms.data() || b.room_stride != stride || b.room_count < count) {
    b.prepare_rooms(rooms.data(), stride, count);
  } else {
    for (size_t i = 0; i < b.dirty; ++i) {
      b.room_headers[i].msg_hdr.msg_namelen = sizeof(sockaddr_storage);
      b.room_headers[i].msg_hdr.msg_controllen = kControlBytes;
    }
    b.dirty = 0;
  }
  const int got = ::recvmmsg(fd_, b.room_headers, static_cast<unsigned>(count), MSG_DONTWAIT, nullptr);
  if (got < 0) {
    const int error_number = errno;
    if (error_number != EAGAIN && error_number != EWOULDBLOCK) status = fail(error_number);
    return 0;
  }
  b.dirty = static_cast<size_t>(got);
  for (size_t i = 0; i < b.dirty; ++i) {
    Datagram& d = out[i];
    msghdr& h = b.room_headers[i].msg_hdr;
    d.buffer = rooms.subspan(i * stride, stride);
    d.address = from_native(b.room_addresses[i]);
    d.kernel_time = kernel_time_of(h);
    if (h.msg_flags & MSG_TRUNC) {
      d.size = 0;
      d.status = SocketStatus::kTruncated;
    } else {
      d.size = b.room_headers[i].msg_len;
      d.status = SocketStatus::kOk;
    }
  }
  status = SocketStatus::kOk;
  return b.dirty;
}

size_t UdpSocket::send_batch(std::span<Datagram> datagrams) {
  if (fd_ < 0) {
    for (Datagram& d : datagrams) d.status = SocketStatus::kNotOpen;
    return 0;
  }
  size_t sent_total = 0;
  size_t next = 0;
  while (next < datagrams.size()) {
    Batch& b = *batch_;
    // Gather up to a batch of sendable datagrams; ones with a bad address are marked and skipped.
    size_t index[kMaxSocketBatch];
    size_t count = 0;
    while (next < datagrams.size() && count < kMaxSocketBatch) {
      Datagram& d = datagrams[next];
      unsigned length = 0;
      SocketStatus status = SocketStatus::kOk;
      if (d.address.port() == 0) {
        d.status = SocketStatus::kInvalidAddress;
      } else if (!to_native(d.address, &b.addresses[count], length, status)) {
        d.status = status;
      } else {
        b.vectors[count] = iovec{d.buffer.data(), d.size};
        b.headers[count] = mmsghdr{};
        b.headers[count].msg_hdr.msg_name = &b.addresses[count];
        b.headers[count].msg_hdr.msg_namelen = length;
        b.headers[count].msg_hdr.msg_iov = &b.vectors[count];
        b.headers[count].msg_hdr.msg_iovlen = 1;
        index[count++] = next;
      }
      ++next;
    }
    size_t done = 0;
    while (done < count) {
      const int sent = ::sendmmsg(fd_, b.headers + done, static_cast<unsigned>(count - done), MSG_DONTWAIT);
      if (sent < 0) {
        // The first datagram of the rest failed: mark it and carry on with the next.
        datagrams[index[done]].status = fail(errno);
        ++done;
        continue;
      }
      for (int i = 0; i < sent; ++i) datagrams[index[done + static_cast<size_t>(i)]].status = SocketStatus::kOk;
      done += static_cast<size_t>(sent);
      sent_total += static_cast<size_t>(sent);
    }
  }
  return sent_total;
}

}  // namespace bitwire
