// session_changes(): moves at every connect and every disconnect (whatever ends it) and at nothing else,
// so a caller that compares session(slot) for every slot may skip the walk while it stands still.
#include <gtest/gtest.h>

#include <vector>

#include "support/bytes.hpp"
#include "support/netcode_harness.hpp"

namespace bitwire::netcode {
namespace {

using testing::Harness;
using testing::TokenOptions;

TEST(NetcodeSessionChanges, CountsConnectsAndDisconnectsOnly) {
  Harness h;
  Client& first = h.add_client();
  Client& second = h.add_client();
  EXPECT_EQ(h.server->session_changes(), 0u);
  h.connect(0, TokenOptions().id(1));
  ASSERT_TRUE(h.run_until([&] { return first.is_connected() && h.server->is_connected(0); }, 100));
  EXPECT_EQ(h.server->session_changes(), 1u);
  h.connect(1, TokenOptions().id(2));
  ASSERT_TRUE(h.run_until([&] { return second.is_connected() && h.server->connected_count() == 2; }, 100));
  EXPECT_EQ(h.server->session_changes(), 2u);

  // Payloads, keep-alives and updates change no session.
  const std::vector<uint8_t> bytes(40, 7);
  for (int i = 0; i < 30; ++i) {
    ASSERT_TRUE(first.send_payload(bitwire::test::view(bytes)));
    ASSERT_TRUE(h.server->send_payload(1, bitwire::test::view(bytes)));
    h.step();
  }
  EXPECT_EQ(h.server->session_changes(), 2u);

  // The server's disconnect, then the client's own.
  h.server->disconnect(0);
  EXPECT_EQ(h.server->session_changes(), 3u);
  EXPECT_EQ(h.server->session(0), 0u);
  second.disconnect(h.now);
  ASSERT_TRUE(h.run_until([&] { return h.server->connected_count() == 0; }, 100));
  EXPECT_EQ(h.server->session_changes(), 4u);
  h.server->disconnect(1);  // already free: nothing changes
  EXPECT_EQ(h.server->session_changes(), 4u);
}

}  // namespace
}  // namespace bitwire::netcode
