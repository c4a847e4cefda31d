// Two Connections joined by a Link (a NetworkSimulator each way), ticked together: the harness of the
// delivery, soak and fuzz-session tests.
#pragma once

#include <memory>

#include "bitwire/message/connection.hpp"
#include "bitwire/sim/link.hpp"

namespace bitwire::test {

class ConnectionPair {
 public:
  ConnectionPair(const MessageFactory& factory, const ConnectionConfig& config, const NetworkConditions& conditions,
                 uint64_t seed, int simulator_capacity = 4096)
      : link(LinkConfig::symmetric(conditions, seed, simulator_capacity, 1500)),
        a(factory, config),
        b(factory, config) {
    a.endpoint().set_callbacks(link.callbacks(LinkSide::kA, a.endpoint_callbacks()));
    b.endpoint().set_callbacks(link.callbacks(LinkSide::kB, b.endpoint_callbacks()));
    link.connect(a.endpoint(), b.endpoint());
  }
  // The same with each side's block buffers taken from a BlockArena (nullptr: its own): a received block is
  // then copied into an arena buffer once complete, where a pool of its own lends the channel's buffer.
  ConnectionPair(const MessageFactory& factory, const ConnectionConfig& config,
                 const NetworkConditions& conditions, uint64_t seed, BlockArena* arena_a, BlockArena* arena_b,
                 int simulator_capacity = 4096)
      : link(LinkConfig::symmetric(conditions, seed, simulator_capacity, 1500)),
        a(factory, config, {}, 0.0, arena_a),
        b(factory, config, {}, 0.0, arena_b) {
    a.endpoint().set_callbacks(link.callbacks(LinkSide::kA, a.endpoint_callbacks()));
    b.endpoint().set_callbacks(link.callbacks(LinkSide::kB, b.endpoint_callbacks()));
    link.connect(a.endpoint(), b.endpoint());
  }

  // One tick: both sides take the time, the link delivers what is due, each side sends its packets (one,
  // plus one per block fragment its budget allows: Connection::send_packets).
  void tick(double now) {
    a.update(now);
    b.update(now);
    link.update(now);
    a.send_packets();
    b.send_packets();
  }

  Link link;
  Connection a;
  Connection b;
};

}  // namespace bitwire::test
