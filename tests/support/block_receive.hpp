// What the tests of lent and borrowed block buffers
// (tests/message/connection_block_{lend,hold,stall}_test.cpp) share: comparing a received block with what was
// sent, channel 0 as the reliable-ordered channel, and ticking a pair until one side receives.
#pragma once

#include <cstring>
#include <span>
#include <vector>

#include "bitwire/message/channel.hpp"
#include "bitwire/message/connection.hpp"
#include "support/connection_pair.hpp"

namespace bitwire::test {

// True when `got` holds exactly the bytes of `want`.
inline bool same(std::span<const std::byte> got, const std::vector<std::byte>& want) {
  return got.size() == want.size() && std::memcmp(got.data(), want.data(), want.size()) == 0;
}

// Channel 0 of `c`, which these tests configure as reliable-ordered.
inline const ReliableOrderedChannel& reliable(Connection& c) {
  return static_cast<const ReliableOrderedChannel&>(c.channel(0));
}

// Ticks the pair at 60 Hz from `tick` until `side` receives a message on channel 0, or `limit` ticks pass;
// `tick` is left after the last tick run.
inline MessageHandle receive_within(ConnectionPair& pair, Connection& side, int& tick, int limit) {
  for (const int end = tick + limit; tick < end; ++tick) {
    pair.tick(tick * (1.0 / 60.0));
    if (MessageHandle m = side.receive(0)) {
      ++tick;
      return m;
    }
  }
  return {};
}

}  // namespace bitwire::test
