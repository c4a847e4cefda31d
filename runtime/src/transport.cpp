// UdpTransport and the in-process LoopbackNetwork.
#include "bitwire/transport.hpp"

#include <cstring>

namespace bitwire {

void UdpTransport::send(const Address& to, std::span<const uint8_t> datagram) {
  const SocketStatus status = socket_.send(to, std::as_bytes(datagram));
  if (status != SocketStatus::kOk) {
    ++send_failures_;
    last_failure_ = status;
  }
}

bool UdpTransport::receive(std::span<uint8_t> buffer, Address& from, size_t& size) {
  while (true) {
    const SocketStatus status = socket_.receive(std::as_writable_bytes(buffer), from, size);
    if (status == SocketStatus::kOk) return true;
    if (status == SocketStatus::kNothingToRead) return false;
    if (status == SocketStatus::kTruncated) {
      size = 0;
      return true;
    }
    // An ICMP error reported on the socket (a peer's port closed) is not a datagram; skip it.
    ++receive_failures_;
    last_failure_ = status;
    if (status == SocketStatus::kNotOpen) return false;
  }
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

bool LoopbackNetwork::inject(const Address& from, const Address& to, std::span<const uint8_t> bytes) {
  if (queue_.size() >= capacity_) compact();
  if (queue_.size() >= capacity_ || bytes.size() > kMaxDatagram) {
    ++dropped_full_;
    return false;
  }
  Datagram& d = queue_.emplace_back();
  d.from = from;
  d.to = to;
  d.size = bytes.size();
  if (!bytes.empty()) std::memcpy(d.bytes.data(), bytes.data(), bytes.size());
  return true;
}

void LoopbackNetwork::send(const Address& from, const Address& to, std::span<const uint8_t> bytes) {
  ++sent_;
  if (!inject(from, to, bytes)) return;
  if (on_send && !on_send(queue_.back())) queue_.pop_back();
}

bool LoopbackNetwork::receive(const Address& to, std::span<uint8_t> buffer, Address& from, size_t& size) {
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

}  // namespace bitwire
