// Link: two endpoints joined by a NetworkSimulator in each direction, in one process. It is the transport
// the tests, benchmarks and the demo use in place of sockets.
//
//   bitwire::Link link(bitwire::LinkConfig::symmetric(conditions, seed));
//   bitwire::Endpoint a(config, link.callbacks(bitwire::LinkSide::kA, a_callbacks), now);
//   bitwire::Endpoint b(config, link.callbacks(bitwire::LinkSide::kB, b_callbacks), now);
//   link.connect(a, b);
//   each tick:  a.update(now); b.update(now); link.update(now);   // then a/b.send_packet(...)
//
// Contracts:
// - The endpoints' transmit goes into the link; their process and on_ack run the caller's callbacks with
//   the caller's context. A caller's transmit, when given, is called as well (after the datagram is on
//   the link) to observe what was sent.
// - Time: update(now) sets the link's clock; datagrams sent afterwards leave at that time. Update the
//   endpoints first: the link hands each datagram over with the time it arrived (its due time, <= now),
//   as a transport that timestamps arrivals does, so the endpoints' RTT does not include the wait for
//   the tick.
// - The link must outlive the endpoints whose callbacks it made; it cannot move (they point into it).
// - Memory is fixed at construction (the two simulators); nothing allocates afterwards.
// - Config: LinkConfig::check() names the direction that fails; the constructor keeps it in
//   ok() false and error_reason() (a failed direction refuses every datagram and counts it in its `refused`).
#pragma once

#include <cstddef>
#include <cstdint>

#include "bitwire/packet/endpoint.hpp"
#include "bitwire/sim/simulator.hpp"

namespace bitwire {

enum class LinkSide : uint8_t { kA = 0, kB = 1 };

struct LinkConfig {
  NetworkSimulatorConfig a_to_b;  // what A sends and B receives
  NetworkSimulatorConfig b_to_a;  // what B sends and A receives

  // The same conditions both ways; the directions get different generator streams from `seed`.
  static LinkConfig symmetric(const NetworkConditions& conditions, uint64_t seed = 1, int capacity = 1024,
                              int mtu = 1200);

  // Passes when both directions pass NetworkSimulatorConfig::check(), else the first reason prefixed with
  // its direction: "LinkConfig.a_to_b: NetworkSimulatorConfig.capacity = 0 is outside [1, 894784]" (held in
  // the ConfigCheck; see config_table.hpp).
  ConfigCheck check() const;
  // Both directions sanitized.
  LinkConfig sanitized() const;
};

class Link {
 public:
  // A config that fails check() is flagged: ok() is false, error_reason() names the direction, and that
  // direction's
  // simulator is refused (!ok()) and refuses every datagram (NetworkSimulator's contract). Pass
  // config.sanitized() to run the nearest legal link instead.
  explicit Link(const LinkConfig& config = {});

  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;
  Link(Link&&) = delete;
  Link& operator=(Link&&) = delete;

  // Callbacks for the endpoint on `side`: transmit feeds this link, the rest forward to `user`.
  EndpointCallbacks callbacks(LinkSide side, const EndpointCallbacks& user = {});
  // The endpoints that receive what the link delivers (either may be null: its datagrams are discarded).
  void connect(Endpoint* a, Endpoint* b);
  void connect(Endpoint& a, Endpoint& b) { connect(&a, &b); }

  // Sets the clock and hands every datagram due by `now` to its endpoint, A to B first, then B to A.
  // Returns the number of datagrams delivered.
  int update(double now);

  // Puts a datagram on the wire leaving `from`, at the link's current time. This is what the transmit
  // callback does; call it directly to inject raw bytes that then travel the simulated network.
  void send(LinkSide from, std::span<const std::byte> datagram);

  // The simulator of the direction leaving `from` (conditions, statistics).
  NetworkSimulator& leaving(LinkSide from) { return from == LinkSide::kA ? a_to_b_ : b_to_a_; }
  const NetworkSimulator& leaving(LinkSide from) const { return from == LinkSide::kA ? a_to_b_ : b_to_a_; }
  // Sets the conditions of both directions; false (nothing changed) when conditions.check() refuses them.
  bool set_conditions(const NetworkConditions& conditions);

  double time() const { return now_; }
  // nullptr, or why the config given to the constructor was refused (the direction named).
  bool ok() const { return error_reason_[0] == '\0'; }
  // nullptr when ok(), else why the config was refused, naming the direction (owned by the link).
  const char* error_reason() const { return ok() ? nullptr : error_reason_; }

 private:
  struct Port {
    Link* link = nullptr;
    LinkSide side = LinkSide::kA;
    EndpointCallbacks user;
  };
  static void transmit_trampoline(void* context, uint16_t sequence, std::span<const std::byte> datagram);
  static bool process_trampoline(void* context, uint16_t sequence, std::span<const std::byte> payload);
  static void on_ack_trampoline(void* context, uint16_t sequence);

  NetworkSimulator a_to_b_;
  NetworkSimulator b_to_a_;
  Port ports_[2];
  Endpoint* endpoints_[2] = {nullptr, nullptr};
  double now_ = 0.0;
  char error_reason_[kConfigReasonBytes] = {};
};

}  // namespace bitwire
