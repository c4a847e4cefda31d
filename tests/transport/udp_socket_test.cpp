// UdpSocket on loopback: bind with ephemeral ports, send/receive over IPv4 and IPv6, dual stack, truncation,
// batches, buffer sizes and the error statuses. Every test is bounded: it polls a fixed number of times.
#include "bitwire/transport/udp_socket.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <vector>

namespace bitwire {
namespace {

const Address kLoopback4 = Address::ipv4(127, 0, 0, 1, 0);
const Address kLoopback6 = Address::ipv6({0, 0, 0, 0, 0, 0, 0, 1}, 0);

bool ipv6_available() {
  UdpSocket probe;
  return probe.open(kLoopback6) == SocketStatus::kOk;
}

// Polls until one datagram arrives (bounded: loopback delivery is immediate, the loop only absorbs scheduling).
SocketStatus receive_one(UdpSocket& socket, std::span<std::byte> buffer, Address& from, size_t& size) {
  SocketStatus status = SocketStatus::kNothingToRead;
  for (int i = 0; i < 10000 && status == SocketStatus::kNothingToRead; ++i) status = socket.receive(buffer, from, size);
  return status;
}

std::vector<std::byte> bytes_of(const char* text) {
  std::vector<std::byte> out(std::strlen(text));
  std::memcpy(out.data(), text, out.size());
  return out;
}

void exchange(const Address& bind) {
  UdpSocket a, b;
  ASSERT_EQ(a.open(bind), SocketStatus::kOk) << a.system_error();
  ASSERT_EQ(b.open(bind), SocketStatus::kOk) << b.system_error();
  EXPECT_NE(a.local_address().port(), 0) << "port 0 must report the ephemeral port the OS chose";
  EXPECT_NE(a.local_address().port(), b.local_address().port());
  const auto hello = bytes_of("hello over loopback");
  ASSERT_EQ(a.send(b.local_address(), hello), SocketStatus::kOk);
  std::array<std::byte, 64> buffer{};
  Address from;
  size_t size = 0;
  ASSERT_EQ(receive_one(b, buffer, from, size), SocketStatus::kOk);
  EXPECT_EQ(from, a.local_address());
  ASSERT_EQ(size, hello.size());
  EXPECT_EQ(std::memcmp(buffer.data(), hello.data(), size), 0);
  EXPECT_EQ(b.receive(buffer, from, size), SocketStatus::kNothingToRead) << "EAGAIN is nothing to read";
}

TEST(UdpSocket, ExchangesOverIPv4Loopback) {
  exchange(kLoopback4);
}

TEST(UdpSocket, ExchangesOverIPv6Loopback) {
  if (!ipv6_available()) GTEST_SKIP() << "no IPv6 loopback on this machine";
  exchange(kLoopback6);
}

TEST(UdpSocket, IPv6OnlyByDefaultRefusesIPv4Destinations) {
  if (!ipv6_available()) GTEST_SKIP() << "no IPv6 loopback on this machine";
  UdpSocket v6, v4;
  ASSERT_EQ(v6.open(kLoopback6), SocketStatus::kOk);
  ASSERT_EQ(v4.open(kLoopback4), SocketStatus::kOk);
  const auto data = bytes_of("x");
  EXPECT_EQ(v6.send(v4.local_address(), data), SocketStatus::kFamilyMismatch);
  EXPECT_EQ(v4.send(v6.local_address(), data), SocketStatus::kFamilyMismatch);
}

TEST(UdpSocket, DualStackReportsIPv4PeersAsIPv4) {
  if (!ipv6_available()) GTEST_SKIP() << "no IPv6 loopback on this machine";
  UdpSocketConfig config;
  config.dual_stack = true;
  UdpSocket server, client;
  ASSERT_EQ(server.open(Address::ipv6({}, 0), config), SocketStatus::kOk) << server.system_error();
  ASSERT_EQ(client.open(kLoopback4), SocketStatus::kOk);
  ASSERT_EQ(client.send(Address::ipv4(127, 0, 0, 1, server.local_address().port()), bytes_of("ping")),
            SocketStatus::kOk);
  std::array<std::byte, 16> buffer{};
  Address from;
  size_t size = 0;
  ASSERT_EQ(receive_one(server, buffer, from, size), SocketStatus::kOk);
  EXPECT_EQ(from, client.local_address()) << from.to_string();
  ASSERT_EQ(server.send(from, bytes_of("pong")), SocketStatus::kOk) << "IPv4 destinations are mapped on send";
  ASSERT_EQ(receive_one(client, buffer, from, size), SocketStatus::kOk);
  EXPECT_EQ(size, 4u);
}

TEST(UdpSocket, OversizedDatagramIsReportedTruncatedNotCut) {
  UdpSocket a, b;
  ASSERT_EQ(a.open(kLoopback4), SocketStatus::kOk);
  ASSERT_EQ(b.open(kLoopback4), SocketStatus::kOk);
  std::vector<std::byte> big(100, std::byte{7});
  ASSERT_EQ(a.send(b.local_address(), big), SocketStatus::kOk);
  std::array<std::byte, 10> small{};
  Address from;
  size_t size = 99;
  EXPECT_EQ(receive_one(b, small, from, size), SocketStatus::kTruncated);
  EXPECT_EQ(size, 0u);
  EXPECT_EQ(b.receive(small, from, size), SocketStatus::kNothingToRead) << "the truncated datagram is consumed";
}

TEST(UdpSocket, BindErrorsAreStatusesWithReasons) {
  UdpSocket a, b;
  ASSERT_EQ(a.open(kLoopback4), SocketStatus::kOk);
  EXPECT_EQ(b.open(a.local_address()), SocketStatus::kAddressInUse);
  EXPECT_STRNE(b.system_error(), "");
  EXPECT_FALSE(b.is_open());
  EXPECT_EQ(b.open(Address::ipv4(192, 0, 2, 1, 0)), SocketStatus::kAddressNotAvailable);
  EXPECT_EQ(b.open(Address()), SocketStatus::kInvalidAddress);
  UdpSocketConfig bad;
  bad.receive_buffer_size = 1;
  EXPECT_EQ(b.open(kLoopback4, bad), SocketStatus::kInvalidConfig);
  EXPECT_STREQ(b.system_error(), "UdpSocketConfig.receive_buffer_size = 1 is outside [4096, 268435456]");
  EXPECT_FALSE(b.is_open());
  bad = {};
  bad.send_buffer_size = 1 << 29;  // above 256 MiB
  EXPECT_EQ(b.open(kLoopback4, bad), SocketStatus::kInvalidConfig);
  EXPECT_STREQ(b.system_error(), "UdpSocketConfig.send_buffer_size = 536870912 is outside [4096, 268435456]");
  EXPECT_STREQ(to_string(SocketStatus::kInvalidConfig), "invalid socket config");
  EXPECT_TRUE(bad.sanitized().check().ok());
  UdpSocket closed;
  const auto data = bytes_of("x");
  EXPECT_EQ(closed.send(a.local_address(), data), SocketStatus::kNotOpen);
  EXPECT_EQ(a.send(Address::ipv4(127, 0, 0, 1, 0), data), SocketStatus::kInvalidAddress) << "port 0 destination";
}

TEST(UdpSocket, BufferSizesAreApplied) {
  UdpSocketConfig small, large;
  small.receive_buffer_size = small.send_buffer_size = 8192;
  large.receive_buffer_size = large.send_buffer_size = 65536;
  UdpSocket a, b;
  ASSERT_EQ(a.open(kLoopback4, small), SocketStatus::kOk);
  ASSERT_EQ(b.open(kLoopback4, large), SocketStatus::kOk);
  EXPECT_GT(a.receive_buffer_size(), 0);
  EXPECT_LT(a.receive_buffer_size(), b.receive_buffer_size());
  EXPECT_LT(a.send_buffer_size(), b.send_buffer_size());
}

TEST(UdpSocket, BatchesSendAndReceiveEveryDatagramInOrder) {
  UdpSocket a, b;
  ASSERT_EQ(a.open(kLoopback4), SocketStatus::kOk);
  ASSERT_EQ(b.open(kLoopback4), SocketStatus::kOk);
  constexpr int kCount = 150;  // more than two system-call batches
  std::vector<std::array<std::byte, 32>> out(kCount), in(kCount);
  std::vector<Datagram> sends(kCount), receives(kCount);
  for (int i = 0; i < kCount; ++i) {
    out[i].fill(std::byte(i));
    sends[i].buffer = out[i];
    sends[i].size = 1 + static_cast<size_t>(i % 32);
    sends[i].address = b.local_address();
    receives[i].buffer = in[i];
  }
  sends[3].address = Address::ipv4(127, 0, 0, 1, 0);  // refused without stopping the batch
  EXPECT_EQ(a.send_batch(sends), static_cast<size_t>(kCount - 1));
  EXPECT_EQ(sends[3].status, SocketStatus::kInvalidAddress);
  size_t got = 0;
  for (int spin = 0; spin < 10000 && got < kCount - 1; ++spin) {
    SocketStatus status;
    got += b.receive_batch(std::span(receives).subspan(got), status);
    ASSERT_TRUE(status == SocketStatus::kOk || status == SocketStatus::kNothingToRead) << to_string(status);
  }
  ASSERT_EQ(got, static_cast<size_t>(kCount - 1));
  int expected = 0;
  for (size_t i = 0; i < got; ++i, ++expected) {
    if (expected == 3) ++expected;
    EXPECT_EQ(receives[i].status, SocketStatus::kOk);
    EXPECT_EQ(receives[i].address, a.local_address());
    ASSERT_EQ(receives[i].size, 1 + static_cast<size_t>(expected % 32));
    EXPECT_EQ(receives[i].buffer[0], std::byte(expected));
  }
  SocketStatus status;
  EXPECT_EQ(b.receive_batch(receives, status), 0u);
  EXPECT_EQ(status, SocketStatus::kNothingToRead);
}

TEST(UdpSocket, MoveTransfersTheOpenSocket) {
  UdpSocket a;
  ASSERT_EQ(a.open(kLoopback4), SocketStatus::kOk);
  const Address bound = a.local_address();
  UdpSocket b = std::move(a);
  EXPECT_FALSE(a.is_open());
  EXPECT_TRUE(b.is_open());
  EXPECT_EQ(b.local_address(), bound);
}

}  // namespace
}  // namespace bitwire
