// receive_payload_view: a payload popped without a copy, as a view into netcode's queue. The views come in
// the order the payloads arrived, with the bytes, sizes and sequences receive_payload() copies out, and a
// view stays readable until the next update() (sends do not touch the receive queue).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "support/bytes.hpp"
#include "support/netcode_harness.hpp"

namespace bitwire::netcode {
namespace {

using testing::Harness;
using testing::TokenOptions;

TEST(NetcodePayloadView, ViewsComeInOrderAndMatchTheCopies) {
  Harness h;
  Client& client = h.add_client();
  h.connect(0, TokenOptions().id(5));
  ASSERT_TRUE(h.run_until([&] { return client.is_connected() && h.server->is_connected(0); }, 100));
  for (int i = 0; i < 6; ++i) {
    const std::vector<uint8_t> up(static_cast<size_t>(i) + 1, static_cast<uint8_t>(0x40 + i));
    ASSERT_TRUE(client.send_payload(bitwire::test::view(up)));
    ASSERT_TRUE(h.server->send_payload(0, bitwire::test::view(up)));
  }
  h.step();
  h.step();

  // Server: the first three as views, held across sends to every slot, then the rest as copies.
  std::vector<std::span<const std::byte>> views;
  uint64_t previous = 0;
  for (int i = 0; i < 3; ++i) {
    std::span<const std::byte> payload;
    uint64_t sequence = 0;
    double arrival = -1.0;
    ASSERT_TRUE(h.server->receive_payload_view(0, payload, sequence, arrival)) << i;
    EXPECT_GT(sequence, previous);
    previous = sequence;
    EXPECT_LE(arrival, h.now);
    views.push_back(payload);
  }
  const uint8_t keep[1] = {0};
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(h.server->send_payload(0, bitwire::test::view(keep)));
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(views[static_cast<size_t>(i)].size(), static_cast<size_t>(i) + 1);
    for (std::byte b : views[static_cast<size_t>(i)]) EXPECT_EQ(b, std::byte(0x40 + i)) << i;
  }
  std::array<uint8_t, kMaxPayloadBytes> buffer{};
  size_t size = 0;
  uint64_t sequence = 0;
  for (int i = 3; i < 6; ++i) {
    ASSERT_TRUE(h.server->receive_payload(0, bitwire::test::writable(buffer), size, sequence)) << i;
    ASSERT_EQ(size, static_cast<size_t>(i) + 1);
    EXPECT_EQ(buffer[0], 0x40 + i);
    EXPECT_GT(sequence, previous);
    previous = sequence;
  }
  std::span<const std::byte> none;
  double arrival = 0.0;
  EXPECT_FALSE(h.server->receive_payload_view(0, none, sequence, arrival)) << "the queue is empty";
  EXPECT_FALSE(h.server->receive_payload_view(1, none, sequence, arrival)) << "a free slot has nothing";

  // Client: the same six, as views.
  for (int i = 0; i < 6; ++i) {
    std::span<const std::byte> payload;
    ASSERT_TRUE(client.receive_payload_view(payload, sequence, arrival)) << i;
    ASSERT_EQ(payload.size(), static_cast<size_t>(i) + 1);
    EXPECT_EQ(payload[0], std::byte(0x40 + i));
  }
  EXPECT_FALSE(client.receive_payload_view(none, sequence, arrival));
}

}  // namespace
}  // namespace bitwire::netcode
