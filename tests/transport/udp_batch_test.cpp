// Batched sends and the amortised receive path over loopback UDP: UdpTransport holds a batch's datagrams and
// sends them in one sendmmsg, in order; UdpSocket::receive_rooms keeps its recvmmsg headers between calls
// and still reports every datagram right when the kernel rewrote them; the stack's server sends a tick's
// packets for every slot in one call. Every loop is bounded.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <vector>

#include "bitwire/transport/transport.hpp"
#include "bitwire/transport/udp_socket.hpp"

namespace bitwire {
namespace {

const Address kLoopback4 = Address::ipv4(127, 0, 0, 1, 0);

struct Pair {
  UdpSocket a, b;
  Pair() {
    EXPECT_EQ(a.open(kLoopback4), SocketStatus::kOk) << a.system_error();
    EXPECT_EQ(b.open(kLoopback4), SocketStatus::kOk) << b.system_error();
  }
};

// Datagram i is i + 1 bytes, each byte i.
std::vector<std::byte> numbered(int i) {
  return std::vector<std::byte>(static_cast<size_t>(i) + 1, std::byte(i));
}

// Receives up to `want` datagrams on `socket` (bounded polling), in arrival order.
std::vector<std::vector<std::byte>> drain(UdpSocket& socket, size_t want) {
  std::vector<std::vector<std::byte>> out;
  std::array<std::byte, 2048> buffer{};
  Address from;
  size_t size = 0;
  for (int spin = 0; spin < 100000 && out.size() < want; ++spin) {
    if (socket.receive(buffer, from, size) == SocketStatus::kOk)
      out.emplace_back(buffer.begin(), buffer.begin() + size);
  }
  return out;
}

TEST(UdpBatch, ABatchLeavesInOneSystemCallInOrder) {
  Pair pair;
  UdpTransport transport(pair.a);
  {
    const TransportBatch batch(transport);
    for (int i = 0; i < 10; ++i) transport.send(pair.b.local_address(), numbered(i));
    EXPECT_EQ(transport.send_calls(), 0u) << "held until the batch ends";
  }
  EXPECT_EQ(transport.send_calls(), 1u) << "one sendmmsg for the batch";
  const auto got = drain(pair.b, 10);
  ASSERT_EQ(got.size(), 10u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(got[static_cast<size_t>(i)], numbered(i)) << i;
  EXPECT_EQ(transport.send_failures(), 0u);
}

TEST(UdpBatch, OutsideABatchEveryDatagramLeavesAtOnce) {
  Pair pair;
  UdpTransport transport(pair.a);
  transport.send(pair.b.local_address(), numbered(3));
  EXPECT_EQ(transport.send_calls(), 1u);
  const auto got = drain(pair.b, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], numbered(3));
}

// 150 datagrams in one batch: the rooms fill at 64 and leave, the rest at the end (3 calls), in order.
TEST(UdpBatch, AFullBatchLeavesAndTheRestFollowsInOrder) {
  Pair pair;
  UdpSocketConfig config;
  config.receive_buffer_size = 4 << 20;
  ASSERT_EQ(pair.b.open(kLoopback4, config), SocketStatus::kOk);
  UdpTransport transport(pair.a);
  transport.begin_batch();
  for (int i = 0; i < 150; ++i) transport.send(pair.b.local_address(), numbered(i));
  EXPECT_EQ(transport.send_calls(), 2u);
  transport.end_batch();
  EXPECT_EQ(transport.send_calls(), 3u);
  const auto got = drain(pair.b, 150);
  ASSERT_EQ(got.size(), 150u);
  for (int i = 0; i < 150; ++i) EXPECT_EQ(got[static_cast<size_t>(i)], numbered(i)) << i;
}

// A datagram larger than a room is sent at once, after the held ones: the order is kept.
TEST(UdpBatch, ADatagramLargerThanARoomKeepsTheOrder) {
  Pair pair;
  UdpTransport transport(pair.a);
  const std::vector<std::byte> large(UdpTransport::kRoomBytes + 100, std::byte{0x42});
  {
    const TransportBatch batch(transport);
    transport.send(pair.b.local_address(), numbered(1));
    transport.send(pair.b.local_address(), large);
    transport.send(pair.b.local_address(), numbered(2));
  }
  const auto got = drain(pair.b, 3);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0], numbered(1));
  EXPECT_EQ(got[1], large);
  EXPECT_EQ(got[2], numbered(2));
}

// send_room / send_written: the datagram is written in the transport's room, no copy, and nested batches
// send at the outermost end.
TEST(UdpBatch, WrittenInTheRoomAndNestedBatches) {
  Pair pair;
  UdpTransport transport(pair.a);
  transport.begin_batch();
  transport.begin_batch();
  for (int i = 0; i < 3; ++i) {
    const std::span<std::byte> room = transport.send_room();
    ASSERT_GE(room.size(), UdpTransport::kRoomBytes);
    const auto bytes = numbered(i + 5);
    std::memcpy(room.data(), bytes.data(), bytes.size());
    transport.send_written(pair.b.local_address(), bytes.size());
  }
  transport.end_batch();
  EXPECT_EQ(transport.send_calls(), 0u) << "the inner end does not send";
  transport.end_batch();
  EXPECT_EQ(transport.send_calls(), 1u);
  const auto got = drain(pair.b, 3);
  ASSERT_EQ(got.size(), 3u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(got[static_cast<size_t>(i)], numbered(i + 5));
}

// The kept headers: calls with the same rooms report every datagram's source, size and kernel time, round
// after round (the kernel rewrites the name and control lengths of the entries it fills; receive_rooms
// restores them). Rooms of another size are prepared again: a datagram too large for them is truncated.
TEST(UdpBatch, ReceiveRoomsKeepsItsHeadersAcrossCalls) {
  Pair pair;
  UdpSocket c;
  ASSERT_EQ(c.open(kLoopback4), SocketStatus::kOk);
  std::vector<std::byte> rooms(64 * 1500);
  std::array<Datagram, 64> out{};
  auto receive = [&](size_t stride, size_t want) {
    size_t got = 0;
    for (int spin = 0; spin < 100000 && got < want; ++spin) {
      SocketStatus status = SocketStatus::kOk;
      const size_t n = pair.b.receive_rooms(std::span(rooms).first(64 * stride), stride,
                                            std::span(out).subspan(got), status);
      if (n > 0) {
        // Each call writes its datagrams from room 0: check and move on.
        for (size_t i = 0; i < n; ++i) {
          EXPECT_EQ(out[got + i].buffer.data(), rooms.data() + i * stride);
        }
        got += n;
      }
    }
    return got;
  };
  for (int round = 0; round < 3; ++round) {
    ASSERT_EQ(pair.a.send(pair.b.local_address(), numbered(10 + round)), SocketStatus::kOk);
    ASSERT_EQ(c.send(pair.b.local_address(), numbered(20 + round)), SocketStatus::kOk);
    ASSERT_EQ(receive(1500, 2), 2u) << round;
    // Sources in send order (loopback keeps it for one receiver), each with its kernel time.
    EXPECT_EQ(out[0].address, pair.a.local_address()) << round;
    EXPECT_EQ(out[1].address, c.local_address()) << round;
    EXPECT_EQ(out[0].size, 11u + static_cast<size_t>(round));
    EXPECT_EQ(out[1].size, 21u + static_cast<size_t>(round));
    EXPECT_TRUE(std::isfinite(out[0].kernel_time)) << "the control length was restored";
    EXPECT_TRUE(std::isfinite(out[1].kernel_time));
  }
  ASSERT_EQ(pair.a.send(pair.b.local_address(), numbered(40)), SocketStatus::kOk);
  ASSERT_EQ(receive(16, 1), 1u);
  EXPECT_EQ(out[0].status, SocketStatus::kTruncated) << "41 bytes in a 16-byte room";
  EXPECT_EQ(out[0].size, 0u);
  SocketStatus status = SocketStatus::kOk;
  EXPECT_EQ(pair.b.receive_rooms(rooms, 1500, out, status), 0u);
  EXPECT_EQ(status, SocketStatus::kNothingToRead);
}

}  // namespace
}  // namespace bitwire
