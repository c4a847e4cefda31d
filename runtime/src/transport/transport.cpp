// UdpTransport and the in-process LoopbackNetwork.
#include "bitwire/transport/transport.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace bitwire {

namespace {

// The arrival on the caller's clock: its time at the read minus the datagram's age in the kernel (its
// SO_TIMESTAMPNS time against CLOCK_REALTIME at the read). An age that is not finite, negative or above
// kMaxKernelAgeSeconds (no stamp, or CLOCK_REALTIME stepped) is not believed: the read's time is used.
double arrival_on_clock(double clock_time, double realtime_now, double kernel_time) {
  const double age = realtime_now - kernel_time;
  if (!std::isfinite(clock_time) || !(age >= 0.0) || !(age <= UdpTransport::kMaxKernelAgeSeconds)) {
    return clock_time;
  }
  return clock_time - age;
}

}  // namespace

UdpTransport::UdpTransport(UdpSocket& socket)
    : socket_(socket), rooms_(std::make_unique<std::byte[]>(kMaxSocketBatch * kRoomBytes)) {}

UdpTransport::~UdpTransport() {
  flush();
}

void UdpTransport::count_send(SocketStatus status) {
  if (status != SocketStatus::kOk) {
    ++send_failures_;
    last_failure_ = status;
  }
}

void UdpTransport::send(const Address& to, std::span<const std::byte> datagram) {
  if (batch_depth_ > 0 && datagram.size() <= kRoomBytes) {
    const std::span<std::byte> room = send_room();
    if (!datagram.empty()) std::memcpy(room.data(), datagram.data(), datagram.size());
    send_written(to, datagram.size());
    return;
  }
  flush();  // anything held leaves first: datagrams keep their order
  ++send_calls_;
  count_send(socket_.send(to, datagram));
}

std::span<std::byte> UdpTransport::send_room() {
  return std::span<std::byte>(rooms_.get() + held_count_ * kRoomBytes, kRoomBytes);
}

void UdpTransport::send_written(const Address& to, size_t size) {
  bitwire::Datagram& d = held_[held_count_];
  d.buffer = send_room();
  d.size = std::min(size, kRoomBytes);
  d.address = to;
  ++held_count_;
  if (batch_depth_ == 0 || held_count_ == held_.size()) flush();
}

void UdpTransport::end_batch() {
  if (batch_depth_ > 0 && --batch_depth_ == 0) flush();
}

void UdpTransport::flush() {
  if (held_count_ == 0) return;
  const std::span<bitwire::Datagram> held(held_.data(), held_count_);
  held_count_ = 0;
  if (held.size() == 1) {  // one datagram: sendto, without sendmmsg's headers
    ++send_calls_;
    count_send(socket_.send(held[0].address, held[0].buffer.first(held[0].size)));
    return;
  }
  ++send_calls_;
  socket_.send_batch(held);
  for (const bitwire::Datagram& d : held) count_send(d.status);
}

bool UdpTransport::receive(std::span<std::byte> buffer, Address& from, size_t& size, double& arrival_time) {
  while (true) {
    double kernel_time = 0.0;
    ++receive_calls_;
    const SocketStatus status = socket_.receive(buffer, from, size, kernel_time);
    if (status == SocketStatus::kNothingToRead) return false;
    if (status == SocketStatus::kOk || status == SocketStatus::kTruncated) {
      // Read right after the recv that returned it, less the time it waited in the kernel.
      arrival_time = arrival_on_clock(clock_now(), realtime_seconds(), kernel_time);
      if (status == SocketStatus::kTruncated) size = 0;
      return true;
    }
    // An ICMP error reported on the socket (a peer's port closed) is not a datagram; skip it.
    ++receive_failures_;
    last_failure_ = status;
    if (status == SocketStatus::kNotOpen) return false;
  }
}

size_t Transport::receive_many(std::span<std::byte> buffers, size_t stride, size_t count, size_t* sizes,
                               Address* from, double* arrival_times) {
  count = std::min(count, stride == 0 ? 0 : buffers.size() / stride);
  size_t got = 0;
  while (got < count) {
    // A receive() that does not date its datagram leaves it unknown (NaN), not the previous batch's time.
    double arrival = std::numeric_limits<double>::quiet_NaN();
    if (!receive(buffers.subspan(got * stride, stride), from[got], sizes[got], arrival)) break;
    arrival_times[got] = arrival;
    ++got;
  }
  return got;
}

size_t UdpTransport::receive_many(std::span<std::byte> buffers, size_t stride, size_t count, size_t* sizes,
                                  Address* from, double* arrival_times) {
  count = std::min(count, stride == 0 ? 0 : buffers.size() / stride);
  size_t got = 0;
  while (got < count) {
    const size_t want = std::min<size_t>(count - got, batch_.size());
    SocketStatus status = SocketStatus::kOk;
    ++receive_calls_;
    const size_t n = socket_.receive_rooms(buffers.subspan(got * stride, want * stride), stride,
                                           std::span<bitwire::Datagram>(batch_.data(), want), status);
    if (n == 0) {
      if (status != SocketStatus::kNothingToRead && status != SocketStatus::kOk) {
        ++receive_failures_;
        last_failure_ = status;
      }
      break;
    }
    // The moment this recvmmsg returned its datagrams, less each one's wait in the kernel.
    const double stamp = clock_now();
    const double realtime = realtime_seconds();
    for (size_t i = 0; i < n; ++i) {
      arrival_times[got + i] = arrival_on_clock(stamp, realtime, batch_[i].kernel_time);
      from[got + i] = batch_[i].address;
      sizes[got + i] = batch_[i].status == SocketStatus::kOk ? batch_[i].size : 0;
    }
    got += n;
    if (n < want) break;
  }
  return got;
}

LoopbackNetwork::LoopbackNetwork(size_t capacity) : capacity_(capacity) {
  queue_.reserve(capacity);
}

void LoopbackNetwork::compact() {
  size_t kept = 0;
  for (size_t i = head_; i < queue_.size(); ++i) {
    if (queue_[i].delivered) continue;
    if (kept != i) queue_[kept] = queue_[i];
    ++kept;
  }
  queue_.resize(kept);
  head_ = 0;
}

bool LoopbackNetwork::inject(const Address& from, const Address& to, std::span<const std::byte> bytes,
                             double arrival_time) {
  if (queue_.size() >= capacity_) compact();
  if (queue_.size() >= capacity_ || bytes.size() > kMaxDatagram) {
    ++dropped_full_;
    return false;
  }
  Datagram& d = queue_.emplace_back();
  d.from = from;
  d.to = to;
  d.size = bytes.size();
  d.arrival_time = arrival_time;
  if (!bytes.empty()) std::memcpy(d.bytes.data(), bytes.data(), bytes.size());
  return true;
}

void LoopbackNetwork::send(const Address& from, const Address& to, std::span<const std::byte> bytes) {
  ++sent_;
  if (!inject(from, to, bytes)) return;
  if (on_send && !on_send(queue_.back())) queue_.pop_back();
}

bool LoopbackNetwork::receive(const Address& to, std::span<std::byte> buffer, Address& from, size_t& size,
                              double& arrival_time) {
  while (head_ < queue_.size() && queue_[head_].delivered) ++head_;
  if (head_ == queue_.size()) {
    queue_.clear();
    head_ = 0;
    return false;
  }
  for (size_t i = head_; i < queue_.size(); ++i) {
    if (queue_[i].delivered || queue_[i].to != to) continue;
    Datagram& d = queue_[i];
    from = d.from;
    arrival_time = d.arrival_time;
    if (d.size > buffer.size()) {
      size = 0;
    } else {
      size = d.size;
      if (d.size > 0) std::memcpy(buffer.data(), d.bytes.data(), d.size);
    }
    d.delivered = true;
    return true;
  }
  return false;
}

bool LoopbackTransport::receive(std::span<std::byte> buffer, Address& from, size_t& size, double& arrival_time) {
  double injected = 0.0;
  if (!network_.receive(address_, buffer, from, size, injected)) return false;
  const double now = clock_now();
  // An injected time is kept unless it is later than the clock (NaN > anything is false: no clock keeps it).
  arrival_time = std::isfinite(injected) && !(injected > now) ? injected : now;
  return true;
}

}  // namespace bitwire
