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

bool LoopbackNetwork::inject(const Address& from, const Address& to, std::span<const uint8_t> bytes) {
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
  for (size_t i = 0; i < queue_.size(); ++i) {
    if (queue_[i].to != to) continue;
    const Datagram& d = queue_[i];
    from = d.from;
    if (d.size > buffer.size()) {
      size = 0;
    } else {
      size = d.size;
      if (d.size > 0) std::memcpy(buffer.data(), d.bytes.data(), d.size);
    }
    queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(i));
    return true;
  }
  return false;
}

}  // namespace bitwire
