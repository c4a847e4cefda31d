// The demo's transports date each datagram on the demo's stepped clock by when it reached the host
// (examples/demo/tick_clock.hpp), so the RTT the demo reports leaves out the ticks that read the sockets.
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cmath>
#include <thread>

#include "simulated_transport.hpp"
#include "socket_transport.hpp"
#include "tick_clock.hpp"

namespace {

using bitwire::Address;
using bitwire::SocketStatus;
using bitwire::UdpSocket;

// Long enough for the kernel's receive stamp to fall clearly inside the tick the datagram was sent in.
void pause() { std::this_thread::sleep_for(std::chrono::milliseconds(20)); }

TEST(DemoTickClock, DatesARealtimeStampByTheTickRunningThen) {
  demo::TickClock clock;
  EXPECT_TRUE(std::isnan(clock.at_realtime(100.0)));
  clock.begin_tick(1.0, 100.0);
  clock.begin_tick(2.0, 100.5);
  clock.begin_tick(3.0, 101.0);
  EXPECT_EQ(clock.now(), 3.0);
  EXPECT_EQ(clock.at_realtime(100.2), 1.0);
  EXPECT_EQ(clock.at_realtime(100.5), 2.0);
  EXPECT_EQ(clock.at_realtime(105.0), 3.0);
  EXPECT_EQ(clock.at_realtime(50.0), 1.0) << "older than every tick kept: the oldest";
  EXPECT_EQ(clock.at_realtime(std::nan("")), 3.0) << "no stamp: the current tick";
}

TEST(DemoTickClock, KeepsABoundedHistory) {
  demo::TickClock clock;
  for (int i = 0; i < 3 * demo::TickClock::kHistory; ++i) clock.begin_tick(i, 1000.0 + i);
  const double oldest_kept = 3 * demo::TickClock::kHistory - demo::TickClock::kHistory;
  EXPECT_EQ(clock.at_realtime(0.0), oldest_kept);
  EXPECT_EQ(clock.at_realtime(1000.0 + oldest_kept + 1.5), oldest_kept + 1.0);
}

TEST(DemoTransport, ServerDatesADatagramByTheTickItArrivedIn) {
  UdpSocket server_socket, client_socket;
  ASSERT_EQ(server_socket.open(Address::ipv4(127, 0, 0, 1, 0)), SocketStatus::kOk);
  ASSERT_EQ(client_socket.open(Address::ipv4(127, 0, 0, 1, 0)), SocketStatus::kOk);
  demo::TickClock clock;
  demo::SocketTransport server(server_socket, clock);
  clock.begin_tick(1.0);
  pause();
  const std::array<std::byte, 8> payload{};
  ASSERT_EQ(client_socket.send(server_socket.local_address(), payload), SocketStatus::kOk);
  pause();
  clock.begin_tick(2.0);  // the server reads its socket a tick later
  std::array<std::byte, 64> buffer{};
  Address from;
  size_t size = 0;
  double arrival = 0.0;
  bool got = false;
  for (int spin = 0; spin < 10000 && !got; ++spin) got = server.receive(buffer, from, size, arrival);
  ASSERT_TRUE(got);
  EXPECT_EQ(size, payload.size());
  EXPECT_EQ(arrival, 1.0);
}

TEST(DemoTransport, ClientLinkStartsWhenTheDatagramReachedTheHost) {
  UdpSocket server_socket, client_socket;
  ASSERT_EQ(server_socket.open(Address::ipv4(127, 0, 0, 1, 0)), SocketStatus::kOk);
  ASSERT_EQ(client_socket.open(Address::ipv4(127, 0, 0, 1, 0)), SocketStatus::kOk);
  bitwire::NetworkSimulatorConfig link;
  link.mtu = static_cast<int>(demo::SimulatedTransport::kMaxDatagram);
  link.conditions.latency_ms = 100.0;
  link.conditions.jitter_ms = 0.0;
  link.conditions.loss_percent = 0.0;
  link.conditions.duplicate_percent = 0.0;
  ASSERT_TRUE(link.check().ok());
  demo::TickClock clock;
  demo::SimulatedTransport client(client_socket, server_socket.local_address(), link, link, clock);
  // The server sends during the tick at 1.0; the client reads its socket at the next tick, 1.05.
  clock.begin_tick(1.0);
  client.pump(1.0);
  pause();
  const std::array<std::byte, 8> payload{};
  ASSERT_EQ(server_socket.send(client_socket.local_address(), payload), SocketStatus::kOk);
  pause();
  clock.begin_tick(1.05);
  client.pump(1.05);
  // Due 100 ms after it reached the client's host: at 1.1, not 1.15.
  clock.begin_tick(1.1);
  client.pump(1.1);
  std::array<std::byte, 64> buffer{};
  Address from;
  size_t size = 0;
  double arrival = 0.0;
  ASSERT_TRUE(client.receive(buffer, from, size, arrival));
  EXPECT_EQ(size, payload.size());
  EXPECT_NEAR(arrival, 1.1, 1e-9);
}

}  // namespace
