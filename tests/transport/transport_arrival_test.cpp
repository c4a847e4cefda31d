// Arrival times at the transport: every receive reports, on the transport's clock (set_clock), when the
// datagram reached the host -- the clock at the read (one read per recvmmsg batch), less the kernel's hold
// for UDP -- so the layers above can leave the wait for the caller's tick out of their RTT samples.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

#include "bitwire/transport/transport.hpp"
#include "bitwire/transport/udp_socket.hpp"

namespace bitwire {
namespace {

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The kernel starts dating received datagrams asynchronously the first time any socket on the host asks for
// SO_TIMESTAMPNS (Linux defers it to a work queue), so in a process that is alone on the host the first
// datagrams can come undated and get the documented fallback, the time of the read. Returns once a probe
// left 20 ms in the socket comes back dated before the read; false if none does within about two seconds.
bool kernel_dates_datagrams(UdpSocket& sender, UdpSocket& receiver, UdpTransport& in) {
  const std::array<std::byte, 8> probe{};
  for (int attempt = 0; attempt < 100; ++attempt) {
    if (sender.send(receiver.local_address(), probe) != SocketStatus::kOk) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const double read = steady_seconds();
    std::array<std::byte, 64> buffer{};
    Address source;
    size_t size = 0;
    double arrival = read;
    bool received = false;
    for (int spin = 0; spin < 10000 && !received; ++spin) received = in.receive(buffer, source, size, arrival);
    if (received && arrival <= read - 0.010) return true;
  }
  return false;
}

// UdpTransport dates each datagram on the caller's clock when it reached the host: the clock at the read,
// less the time the kernel held it (SO_TIMESTAMPNS). Datagrams left 200 ms in the socket buffer -- a slow
// tick -- come out dated at their send, not at the read.
TEST(Transport, UdpReceiveManyDatesEachDatagramWhenItReachedTheHost) {
  UdpSocket sender, receiver;
  ASSERT_EQ(sender.open(Address::ipv4(127, 0, 0, 1, 0)), SocketStatus::kOk);
  ASSERT_EQ(receiver.open(Address::ipv4(127, 0, 0, 1, 0)), SocketStatus::kOk);
  UdpTransport in(receiver);
  int reads = 0;
  in.set_clock([&] {
    ++reads;
    return steady_seconds();
  });
  ASSERT_TRUE(kernel_dates_datagrams(sender, receiver, in)) << "the kernel never dated a datagram";
  reads = 0;
  constexpr size_t kCount = 5;
  const std::array<std::byte, 8> payload{};
  const double sent = steady_seconds();
  for (size_t i = 0; i < kCount; ++i) ASSERT_EQ(sender.send(receiver.local_address(), payload), SocketStatus::kOk);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  constexpr size_t kStride = 64;
  std::vector<std::byte> buffers(kCount * kStride);
  std::array<size_t, kCount> sizes{};
  std::array<Address, kCount> from{};
  std::array<double, kCount> arrivals{};
  const double read = steady_seconds();
  size_t got = 0;
  for (int spin = 0; spin < 10000 && got < kCount; ++spin) {
    got += in.receive_many(std::span(buffers).subspan(got * kStride), kStride, kCount - got, sizes.data() + got,
                           from.data() + got, arrivals.data() + got);
  }
  ASSERT_EQ(got, kCount);
  ASSERT_GE(reads, 1);
  EXPECT_LE(reads, static_cast<int>(kCount)) << "one clock read per recvmmsg, not per datagram";
  for (size_t i = 0; i < kCount; ++i) {
    EXPECT_EQ(sizes[i], payload.size());
    EXPECT_GE(arrivals[i], sent - 0.005) << i << ": not before it was sent";
    EXPECT_LE(arrivals[i], read - 0.1) << i << ": dated when it arrived, not 200 ms later at the read";
  }

  // The single receive does the same.
  const double sent_one = steady_seconds();
  ASSERT_EQ(sender.send(receiver.local_address(), payload), SocketStatus::kOk);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const double read_one = steady_seconds();
  std::array<std::byte, 64> buffer{};
  Address source;
  size_t size = 0;
  double arrival = -1.0;
  bool received = false;
  for (int spin = 0; spin < 10000 && !received; ++spin) received = in.receive(buffer, source, size, arrival);
  ASSERT_TRUE(received);
  EXPECT_GE(arrival, sent_one - 0.005);
  EXPECT_LE(arrival, read_one - 0.1);

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

// A custom transport whose receive() does not date its datagrams: the default receive_many hands back each
// entry as unknown (NaN), whatever the caller's array held before, so no datagram inherits the time of an
// earlier batch's datagram in the same entry (which netcode would then believe).
class UndatedTransport final : public Transport {
 public:
  void send(const Address&, std::span<const std::byte>) override {}
  bool receive(std::span<std::byte> buffer, Address& from, size_t& size, double&) override {
    if (pending == 0) return false;
    --pending;
    from = Address::ipv4(10, 0, 0, 9, 9000);
    size = std::min<size_t>(buffer.size(), 3);
    return true;
  }
  Address local_address() const override { return Address::ipv4(10, 0, 0, 8, 8000); }
  int pending = 0;
};

TEST(Transport, DefaultReceiveManyLeavesNoStaleArrivalTime) {
  UndatedTransport transport;
  transport.pending = 2;
  std::array<std::byte, 32> buffer{};
  std::array<size_t, 4> sizes{};
  std::array<Address, 4> from{};
  std::array<double, 4> arrivals{};
  arrivals.fill(123.5);  // the previous batch's times
  ASSERT_EQ(transport.receive_many(buffer, 8, 4, sizes.data(), from.data(), arrivals.data()), 2u);
  EXPECT_TRUE(std::isnan(arrivals[0])) << arrivals[0];
  EXPECT_TRUE(std::isnan(arrivals[1])) << arrivals[1];
  EXPECT_EQ(sizes[0], 3u);
  EXPECT_EQ(arrivals[2], 123.5);  // entries past the datagrams received are not touched
}

}  // namespace
}  // namespace bitwire
