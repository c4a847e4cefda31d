// Arrival times at the transport: every receive reports when the datagram was taken from the socket or
// queue, read from the transport's clock (set_clock) at the read -- one read per recvmmsg batch -- so the
// layers above can leave the wait for the caller's tick out of their RTT samples.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

#include "bitwire/transport.hpp"
#include "bitwire/udp_socket.hpp"

namespace bitwire {
namespace {

// A clock that advances by one second at every read, so each read is told apart.
struct CountingClock {
  double time = 100.0;
  int reads = 0;
  TransportClock function() {
    return [this] {
      ++reads;
      return time += 1.0;
    };
  }
};

TEST(Transport, UdpReceiveManyStampsEachDatagramWithTheClockReadAtItsRecv) {
  UdpSocket sender, receiver;
  ASSERT_EQ(sender.open(Address::ipv4(127, 0, 0, 1, 0)), SocketStatus::kOk);
  ASSERT_EQ(receiver.open(Address::ipv4(127, 0, 0, 1, 0)), SocketStatus::kOk);
  UdpTransport in(receiver);
  CountingClock clock;
  in.set_clock(clock.function());
  constexpr size_t kCount = 5;
  const std::array<std::byte, 8> payload{};
  for (size_t i = 0; i < kCount; ++i) ASSERT_EQ(sender.send(receiver.local_address(), payload), SocketStatus::kOk);
  constexpr size_t kStride = 64;
  std::vector<std::byte> buffers(kCount * kStride);
  std::array<size_t, kCount> sizes{};
  std::array<Address, kCount> from{};
  std::array<double, kCount> arrivals{};
  arrivals.fill(-1.0);
  size_t got = 0;
  for (int spin = 0; spin < 10000 && got < kCount; ++spin) {
    got += in.receive_many(std::span(buffers).subspan(got * kStride), kStride, kCount - got, sizes.data() + got,
                           from.data() + got, arrivals.data() + got);
  }
  ASSERT_EQ(got, kCount);
  // Each datagram carries a time the clock returned (read after its recvmmsg, never before any datagram).
  ASSERT_GE(clock.reads, 1);
  for (size_t i = 0; i < kCount; ++i) {
    EXPECT_EQ(sizes[i], payload.size());
    EXPECT_GT(arrivals[i], 100.0) << i;
    EXPECT_LE(arrivals[i], clock.time) << i;
    EXPECT_EQ(arrivals[i], std::floor(arrivals[i])) << "a clock reading, not a made-up time";
    if (i > 0) {
      EXPECT_GE(arrivals[i], arrivals[i - 1]) << "later reads, later times";
    }
  }
  // One read per recvmmsg that returned datagrams: not one per datagram of a batch.
  EXPECT_LE(clock.reads, static_cast<int>(kCount));

  // The single receive reads the clock after its recv.
  ASSERT_EQ(sender.send(receiver.local_address(), payload), SocketStatus::kOk);
  std::array<std::byte, 64> buffer{};
  Address source;
  size_t size = 0;
  double arrival = -1.0;
  bool received = false;
  for (int spin = 0; spin < 10000 && !received; ++spin) received = in.receive(buffer, source, size, arrival);
  ASSERT_TRUE(received);
  EXPECT_EQ(arrival, clock.time);

  // Without a clock the time is unknown (NaN): the layers above read it as their update's now.
  in.set_clock({});
  ASSERT_EQ(sender.send(receiver.local_address(), payload), SocketStatus::kOk);
  received = false;
  for (int spin = 0; spin < 10000 && !received; ++spin) received = in.receive(buffer, source, size, arrival);
  ASSERT_TRUE(received);
  EXPECT_TRUE(std::isnan(arrival));
}

TEST(Transport, LoopbackStampsTheClockAtTheReceiveOrTheInjectedArrival) {
  LoopbackNetwork network(16);
  const Address a = Address::ipv4(10, 0, 0, 1, 1000);
  const Address b = Address::ipv4(10, 0, 0, 2, 1000);
  LoopbackTransport ta(network, a), tb(network, b);
  double now = 5.0;
  tb.set_clock([&] { return now; });
  const std::array<std::byte, 4> bytes{};
  ta.send(b, bytes);                        // sent at 5, taken at 7: the clock at the receive
  ASSERT_TRUE(network.inject(a, b, bytes, 6.25));  // reached the host at 6.25 (a simulated link's delivery)
  ASSERT_TRUE(network.inject(a, b, bytes, 9.0));   // a time later than the clock is not believed
  now = 7.0;
  std::array<std::byte, 16> buffer{};
  std::array<size_t, 4> sizes{};
  std::array<Address, 4> from{};
  std::array<double, 4> arrivals{};
  ASSERT_EQ(tb.receive_many(buffer, 4, 4, sizes.data(), from.data(), arrivals.data()), 3u);
  EXPECT_EQ(arrivals[0], 7.0);
  EXPECT_EQ(arrivals[1], 6.25);
  EXPECT_EQ(arrivals[2], 7.0);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(from[i], a);

  // Without a clock: the injected time when there is one, else unknown (NaN).
  LoopbackTransport tc(network, Address::ipv4(10, 0, 0, 3, 1000));
  ASSERT_TRUE(network.inject(a, tc.local_address(), bytes, 3.5));
  ta.send(tc.local_address(), bytes);
  size_t size = 0;
  Address source;
  double arrival = 0.0;
  ASSERT_TRUE(tc.receive(buffer, source, size, arrival));
  EXPECT_EQ(arrival, 3.5);
  ASSERT_TRUE(tc.receive(buffer, source, size, arrival));
  EXPECT_TRUE(std::isnan(arrival));
}

}  // namespace
}  // namespace bitwire
