// UdpRelay: a UDP link emulator between one client and one server on this machine, so that any UDP library
// (bitwire's Client/Server over UdpTransport, ENet, yojimbo) runs through the same link conditions. Plain
// POSIX sockets, IPv4 only; it does not use bitwire.
//
// Usage:
//   RelayConfig config;                 // one-way latency, jitter, loss (each direction), seed
//   UdpRelay relay(config);
//   relay.open(listen_port, server_port);   // the client sends to 127.0.0.1:listen_port
//   while (running) relay.run_for(0.1);     // receives, holds each datagram for its delay, forwards it
//   relay.stats(RelayDirection::kUp);       // datagrams and bytes seen, dropped and forwarded
//
// Contracts:
// - The client is whoever last sent to the listen port; datagrams from the server (the only source the back
//   socket accepts) go to it. Datagrams from any other source on the back socket are counted as foreign and
//   dropped.
// - Every decision comes from relay_decide(config, direction, index): the index-th datagram (from 0) seen in
//   a direction is dropped with probability loss_percent / 100, else held for latency + a jitter drawn
//   uniformly in [-jitter, +jitter] (at least 0). The same seed and config give the same decisions, whatever
//   the timing of the run; only which datagram gets which index depends on the peers.
// - A datagram larger than kMaxRelayDatagram is dropped and counted (oversize). At most kMaxRelayHeld are
// held
//   at once; more are dropped and counted (overflow).
// - Counts are of UDP payload bytes (no IP or UDP header). "Seen" counts before loss, "forwarded" after.
// - An optional marker (a byte string) is counted in every datagram seen per direction: a peer whose messages
//   carry it in the clear can count message copies on the wire (encrypted peers cannot).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bitwire::bench {

inline constexpr size_t kMaxRelayDatagram = 2048;
inline constexpr size_t kMaxRelayHeld = 65536;

struct RelayConfig {
  double latency_ms = 50.0;   // one way, each direction (RTT = 2 x latency)
  double jitter_ms = 0.0;     // each datagram's delay is latency +- up to this much (uniform)
  double loss_percent = 0.0;  // each direction, per datagram
  uint64_t seed = 1;          // drop and jitter decisions
  std::string marker;         // counted in each datagram seen (empty: not counted)
};

enum class RelayDirection : uint8_t { kUp = 0, kDown = 1 };  // up: client to server

struct RelayDecision {
  bool drop = false;
  double delay_seconds = 0.0;
};

// The fate of the index-th datagram seen in a direction: a pure function of its arguments.
RelayDecision relay_decide(const RelayConfig& config, RelayDirection direction, uint64_t index);

struct RelayStats {
  uint64_t datagrams_seen = 0;
  uint64_t bytes_seen = 0;
  uint64_t datagrams_dropped = 0;  // by the loss decision
  uint64_t datagrams_forwarded = 0;
  uint64_t bytes_forwarded = 0;
  uint64_t markers_seen = 0;  // occurrences of the marker in datagrams seen
  uint64_t oversize = 0;
  uint64_t overflow = 0;
  uint64_t send_failures = 0;  // sendto failed (the datagram is lost)
};

class UdpRelay {
 public:
  explicit UdpRelay(RelayConfig config);
  ~UdpRelay();
  UdpRelay(const UdpRelay&) = delete;
  UdpRelay& operator=(const UdpRelay&) = delete;

  // Binds 127.0.0.1:listen_port (0: any free port; see listen_port()) and an ephemeral back socket that
  // talks to 127.0.0.1:server_port. False with error() on failure.
  bool open(uint16_t listen_port, uint16_t server_port);
  uint16_t listen_port() const { return listen_port_; }
  const std::string& error() const { return error_; }

  // Receives, schedules and forwards for `seconds` of wall time (CLOCK_MONOTONIC), sleeping in poll() until
  // the next datagram arrives or the next held one is due.
  void run_for(double seconds);

  const RelayStats& stats(RelayDirection direction) const { return stats_[static_cast<int>(direction)]; }
  uint64_t foreign() const { return foreign_; }

 private:
  struct Held {
    double due = 0.0;
    uint64_t order = 0;  // ties keep arrival order
    RelayDirection direction = RelayDirection::kUp;
    std::vector<unsigned char> bytes;
  };
  void receive(int socket, RelayDirection direction, double now);
  void deliver_due(double now);

  RelayConfig config_;
  int front_ = -1;  // the client's side
  int back_ = -1;   // the server's side
  uint16_t listen_port_ = 0;
  uint16_t server_port_ = 0;
  bool have_client_ = false;
  uint32_t client_ip_ = 0;  // network order
  uint16_t client_port_ = 0;
  std::vector<Held> held_;  // a min-heap on (due, order)
  uint64_t order_ = 0;
  uint64_t index_[2] = {0, 0};
  RelayStats stats_[2];
  uint64_t foreign_ = 0;
  std::string error_;
};

}  // namespace bitwire::bench
