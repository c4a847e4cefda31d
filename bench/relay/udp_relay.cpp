#include "udp_relay.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <utility>

namespace bitwire::bench {
namespace {

uint64_t mix(uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

double unit(uint64_t bits) {
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}  // [0, 1)

double monotonic_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

bool later(const auto& a, const auto& b) {
  return a.due != b.due ? a.due > b.due : a.order > b.order;
}

int open_socket(uint16_t port, std::string& error) {
  const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    error = std::string("socket: ") + std::strerror(errno);
    return -1;
  }
  const int buffer = 4 << 20;
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buffer, sizeof(buffer));
  setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buffer, sizeof(buffer));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(port);
  if (bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    error = "bind 127.0.0.1:" + std::to_string(port) + ": " + std::strerror(errno);
    close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

RelayDecision relay_decide(const RelayConfig& config, RelayDirection direction, uint64_t index) {
  const uint64_t key = mix(config.seed ^ mix(index * 2 + static_cast<uint64_t>(direction)));
  RelayDecision decision;
  decision.drop = unit(key) * 100.0 < config.loss_percent;
  const double jitter = config.jitter_ms * (2.0 * unit(mix(key)) - 1.0);
  decision.delay_seconds = std::max(0.0, config.latency_ms + jitter) / 1000.0;
  return decision;
}

UdpRelay::UdpRelay(RelayConfig config) : config_(std::move(config)) {}

UdpRelay::~UdpRelay() {
  if (front_ >= 0) close(front_);
  if (back_ >= 0) close(back_);
}

bool UdpRelay::open(uint16_t listen_port, uint16_t server_port) {
  front_ = open_socket(listen_port, error_);
  if (front_ < 0) return false;
  back_ = open_socket(0, error_);
  if (back_ < 0) return false;
  sockaddr_in bound{};
  socklen_t size = sizeof(bound);
  getsockname(front_, reinterpret_cast<sockaddr*>(&bound), &size);
  listen_port_ = ntohs(bound.sin_port);
  server_port_ = server_port;
  held_.reserve(1024);
  return true;
}

void UdpRelay::receive(int socket, RelayDirection direction, double now) {
  unsigned char buffer[kMaxRelayDatagram + 1];
  for (;;) {
    sockaddr_in from{};
    socklen_t from_size = sizeof(from);
    const ssize_t got =
        recvfrom(socket, buffer, sizeof(buffer), 0, reinterpret_cast<sockaddr*>(&from), &from_size);
    if (got < 0) return;  // EAGAIN: nothing more to read (any other error: try again on the next poll)
    const auto size = static_cast<size_t>(got);
    if (direction == RelayDirection::kUp) {
      have_client_ = true;
      client_ip_ = from.sin_addr.s_addr;
      client_port_ = from.sin_port;
    } else if (from.sin_addr.s_addr != htonl(INADDR_LOOPBACK) || ntohs(from.sin_port) != server_port_) {
      ++foreign_;
      continue;
    }
    RelayStats& stats = stats_[static_cast<int>(direction)];
    if (size > kMaxRelayDatagram) {
      ++stats.oversize;
      continue;
    }
    ++stats.datagrams_seen;
    stats.bytes_seen += size;
    if (!config_.marker.empty() && size >= config_.marker.size()) {
      const auto* end = buffer + size;
      for (const auto* at = buffer;
           (at = std::search(at, end, config_.marker.begin(), config_.marker.end())) != end; ++at) {
        ++stats.markers_seen;
      }
    }
    const RelayDecision decision = relay_decide(config_, direction, index_[static_cast<int>(direction)]++);
    if (decision.drop) {
      ++stats.datagrams_dropped;
      continue;
    }
    if (held_.size() >= kMaxRelayHeld) {
      ++stats.overflow;
      continue;
    }
    held_.push_back(Held{now + decision.delay_seconds, order_++, direction, {buffer, buffer + size}});
    std::push_heap(held_.begin(), held_.end(), [](const Held& a, const Held& b) { return later(a, b); });
  }
}

void UdpRelay::deliver_due(double now) {
  const auto cmp = [](const Held& a, const Held& b) { return later(a, b); };
  while (!held_.empty() && held_.front().due <= now) {
    std::pop_heap(held_.begin(), held_.end(), cmp);
    Held datagram = std::move(held_.back());
    held_.pop_back();
    RelayStats& stats = stats_[static_cast<int>(datagram.direction)];
    sockaddr_in to{};
    to.sin_family = AF_INET;
    int socket = back_;
    if (datagram.direction == RelayDirection::kUp) {
      to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      to.sin_port = htons(server_port_);
    } else {
      if (!have_client_) continue;
      socket = front_;
      to.sin_addr.s_addr = client_ip_;
      to.sin_port = client_port_;
    }
    if (sendto(socket, datagram.bytes.data(), datagram.bytes.size(), 0,
               reinterpret_cast<const sockaddr*>(&to),
               sizeof(to)) == static_cast<ssize_t>(datagram.bytes.size())) {
      ++stats.datagrams_forwarded;
      stats.bytes_forwarded += datagram.bytes.size();
    } else {
      ++stats.send_failures;
    }
  }
}

void UdpRelay::run_for(double seconds) {
  const double end = monotonic_seconds() + seconds;
  for (;;) {
    double now = monotonic_seconds();
    deliver_due(now);
    if (now >= end) return;
    double wait = end - now;
    if (!held_.empty()) wait = std::min(wait, held_.front().due - now);
    pollfd fds[2] = {{front_, POLLIN, 0}, {back_, POLLIN, 0}};
    wait = std::max(0.0, wait);
    timespec timeout{};
    timeout.tv_sec = static_cast<time_t>(wait);
    timeout.tv_nsec = static_cast<long>((wait - static_cast<double>(timeout.tv_sec)) * 1e9);
    if (ppoll(fds, 2, &timeout, nullptr) > 0) {
      now = monotonic_seconds();
      if (fds[0].revents & POLLIN) receive(front_, RelayDirection::kUp, now);
      if (fds[1].revents & POLLIN) receive(back_, RelayDirection::kDown, now);
    }
  }
}

}  // namespace bitwire::bench
