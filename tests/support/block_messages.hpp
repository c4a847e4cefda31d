// Block payloads and the two message kinds the connection block tests send (tests/message/connection_block_test.cpp,
// connection_inflight_test.cpp, connection_block_share_test.cpp): a block message of test::WithBlock and a
// small reliable test::Small.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "bitwire/message/connection.hpp"
#include "support/test_messages.hpp"

namespace bitwire::test {

// `size` bytes from a linear congruential generator seeded with `seed` (each seed its own bytes).
inline std::vector<std::byte> pattern(size_t size, uint32_t seed) {
  std::vector<std::byte> bytes(size);
  uint32_t x = seed * 2654435761u + 1;
  for (size_t i = 0; i < size; ++i) {
    x = x * 1664525u + 1013904223u;
    bytes[i] = static_cast<std::byte>(x >> 24);
  }
  return bytes;
}

// A WithBlock message tagged `tag` carrying `block`; empty when the pool or the block refuses.
inline MessageHandle block_message(Connection& c, uint8_t tag, const std::vector<std::byte>& block) {
  MessageHandle m = c.create<WithBlock>();
  if (!m) return m;
  m.as<WithBlock>()->tag = tag;
  if (!m.attach_block(block)) m.reset();
  return m;
}

// A Small message of `value`; empty when the pool refuses.
inline MessageHandle small_message(Connection& c, uint8_t value) {
  MessageHandle m = c.create<Small>();
  if (m) m.as<Small>()->value = value;
  return m;
}

}  // namespace bitwire::test
