// UdpRelay: its decisions are a pure function of (config, direction, index); over real loopback sockets it
// forwards both ways after the configured latency, drops exactly the datagrams relay_decide drops, and counts
// what it saw, dropped and forwarded (markers included).
#include "udp_relay.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <thread>

namespace bitwire::bench {
namespace {

TEST(RelayDecide, SameSeedSameDecisionsAndTheRatesAreTheConfigured) {
  RelayConfig config;
  config.latency_ms = 50.0;
  config.jitter_ms = 10.0;
  config.loss_percent = 25.0;
  config.seed = 7;
  RelayConfig other = config;
  other.seed = 8;
  int drops[2] = {0, 0};
  int differ_seed = 0;
  int differ_direction = 0;
  constexpr int kCount = 20000;
  for (uint64_t i = 0; i < kCount; ++i) {
    for (const auto direction : {RelayDirection::kUp, RelayDirection::kDown}) {
      const RelayDecision a = relay_decide(config, direction, i);
      const RelayDecision b = relay_decide(config, direction, i);
      EXPECT_EQ(a.drop, b.drop);
      EXPECT_EQ(a.delay_seconds, b.delay_seconds);
      EXPECT_GE(a.delay_seconds, 0.040);
      EXPECT_LE(a.delay_seconds, 0.060);
      drops[static_cast<int>(direction)] += a.drop ? 1 : 0;
      if (relay_decide(other, direction, i).drop != a.drop) ++differ_seed;
    }
    if (relay_decide(config, RelayDirection::kUp, i).drop !=
        relay_decide(config, RelayDirection::kDown, i).drop)
      ++differ_direction;
  }
  for (const int d : drops) {
    EXPECT_GT(d, kCount * 23 / 100);
    EXPECT_LT(d, kCount * 27 / 100);
  }
  // Independent decisions differ in 2 x 0.25 x 0.75 = 37.5% of cases.
  EXPECT_GT(differ_seed, 2 * kCount * 30 / 100);
  EXPECT_GT(differ_direction, kCount * 30 / 100);
}

TEST(RelayDecide, NoLossNeverDropsFullLossAlwaysDropsNoJitterIsExact) {
  RelayConfig config;
  config.latency_ms = 30.0;
  for (uint64_t i = 0; i < 1000; ++i) {
    const RelayDecision d = relay_decide(config, RelayDirection::kUp, i);
    EXPECT_FALSE(d.drop);
    EXPECT_DOUBLE_EQ(d.delay_seconds, 0.030);
  }
  config.loss_percent = 100.0;
  for (uint64_t i = 0; i < 1000; ++i) EXPECT_TRUE(relay_decide(config, RelayDirection::kDown, i).drop);
}

int bound_socket(uint16_t& port) {
  const int fd = socket(AF_INET, SOCK_DGRAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) return -1;
  socklen_t size = sizeof(address);
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size);
  port = ntohs(address.sin_port);
  return fd;
}

void send_to(int fd, uint16_t port, const std::string& text) {
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  to.sin_port = htons(port);
  sendto(fd, text.data(), text.size(), 0, reinterpret_cast<const sockaddr*>(&to), sizeof(to));
}

// Reads one datagram within `seconds`; empty when none came. `from_port` gets its source port.
std::string receive(int fd, double seconds, uint16_t& from_port) {
  pollfd p{fd, POLLIN, 0};
  if (poll(&p, 1, static_cast<int>(seconds * 1000)) <= 0) return {};
  char buffer[2048];
  sockaddr_in from{};
  socklen_t size = sizeof(from);
  const ssize_t got = recvfrom(fd, buffer, sizeof(buffer), 0, reinterpret_cast<sockaddr*>(&from), &size);
  from_port = ntohs(from.sin_port);
  return got > 0 ? std::string(buffer, static_cast<size_t>(got)) : std::string();
}

TEST(UdpRelay, ForwardsBothWaysAfterTheLatencyDropsWhatDecideDropsAndCounts) {
  RelayConfig config;
  config.latency_ms = 40.0;
  config.loss_percent = 30.0;
  config.seed = 3;
  config.marker = "MK";
  uint16_t server_port = 0;
  uint16_t client_port = 0;
  const int server = bound_socket(server_port);
  const int client = bound_socket(client_port);
  ASSERT_GE(server, 0);
  ASSERT_GE(client, 0);
  UdpRelay relay(config);
  ASSERT_TRUE(relay.open(0, server_port)) << relay.error();
  std::atomic<bool> stop{false};
  std::thread thread([&] {
    while (!stop) relay.run_for(0.02);
  });

  // Up: 40 datagrams, each "MK<i>MK" (two markers); the server gets exactly those relay_decide keeps, in
  // order, each no sooner than the latency after it was sent.
  constexpr int kCount = 40;
  std::set<int> expected_up;
  for (int i = 0; i < kCount; ++i) {
    if (!relay_decide(config, RelayDirection::kUp, static_cast<uint64_t>(i)).drop) expected_up.insert(i);
  }
  ASSERT_GT(expected_up.size(), 10u);
  ASSERT_LT(expected_up.size(), static_cast<size_t>(kCount));
  std::set<int> got_up;
  uint16_t relay_back_port = 0;
  for (int i = 0; i < kCount; ++i) {
    const auto sent = std::chrono::steady_clock::now();
    send_to(client, relay.listen_port(), "MK" + std::to_string(i) + "MK");
    if (!expected_up.count(i)) continue;
    const std::string got = receive(server, 1.0, relay_back_port);
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
    ASSERT_EQ(got, "MK" + std::to_string(i) + "MK");
    EXPECT_GE(waited, 0.040);
    EXPECT_LT(waited, 0.500);
    got_up.insert(i);
  }
  EXPECT_EQ(got_up, expected_up);

  // Down: the server answers the relay's back socket; the client receives what relay_decide keeps.
  int expected_down = 0;
  for (int i = 0; i < 10; ++i) {
    send_to(server, relay_back_port, "down" + std::to_string(i));
    if (relay_decide(config, RelayDirection::kDown, static_cast<uint64_t>(i)).drop) continue;
    ++expected_down;
    uint16_t from = 0;
    EXPECT_EQ(receive(client, 1.0, from), "down" + std::to_string(i));
    EXPECT_EQ(from, relay.listen_port());
  }
  // A stranger writing to the back socket is not forwarded.
  uint16_t stranger_port = 0;
  const int stranger = bound_socket(stranger_port);
  send_to(stranger, relay_back_port, "foreign");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // a loopback datagram needs far less
  stop = true;
  thread.join();

  const RelayStats& up = relay.stats(RelayDirection::kUp);
  EXPECT_EQ(up.datagrams_seen, static_cast<uint64_t>(kCount));
  EXPECT_EQ(up.datagrams_dropped, static_cast<uint64_t>(kCount) - expected_up.size());
  EXPECT_EQ(up.datagrams_forwarded, expected_up.size());
  EXPECT_EQ(up.markers_seen, 2u * kCount);
  uint64_t bytes = 0;
  uint64_t forwarded_bytes = 0;
  for (int i = 0; i < kCount; ++i) {
    const uint64_t size = 4 + std::to_string(i).size();
    bytes += size;
    if (expected_up.count(i)) forwarded_bytes += size;
  }
  EXPECT_EQ(up.bytes_seen, bytes);
  EXPECT_EQ(up.bytes_forwarded, forwarded_bytes);
  const RelayStats& down = relay.stats(RelayDirection::kDown);
  EXPECT_EQ(down.datagrams_seen, 10u);
  EXPECT_EQ(down.datagrams_forwarded, static_cast<uint64_t>(expected_down));
  EXPECT_EQ(down.markers_seen, 0u);
  EXPECT_EQ(relay.foreign(), 1u);
  close(stranger);
  close(server);
  close(client);
}

TEST(UdpRelay, JitterReordersByDueTime) {
  RelayConfig config;
  config.latency_ms = 30.0;
  config.jitter_ms = 25.0;
  config.seed = 11;
  uint16_t server_port = 0;
  uint16_t client_port = 0;
  const int server = bound_socket(server_port);
  const int client = bound_socket(client_port);
  UdpRelay relay(config);
  ASSERT_TRUE(relay.open(0, server_port)) << relay.error();
  std::atomic<bool> stop{false};
  std::thread thread([&] {
    while (!stop) relay.run_for(0.02);
  });
  // Sent together, they leave in the order of their drawn delays.
  for (int i = 0; i < 8; ++i) send_to(client, relay.listen_port(), std::to_string(i));
  std::multimap<double, std::string> by_delay;
  for (int i = 0; i < 8; ++i) {
    by_delay.emplace(relay_decide(config, RelayDirection::kUp, static_cast<uint64_t>(i)).delay_seconds,
                     std::to_string(i));
  }
  std::string expected;
  std::string got;
  uint16_t from = 0;
  for (const auto& [delay, text] : by_delay) expected += text;
  for (int i = 0; i < 8; ++i) got += receive(server, 1.0, from);
  stop = true;
  thread.join();
  EXPECT_EQ(got, expected);
  EXPECT_NE(expected, "01234567") << "seed 11 draws delays out of order";
  close(server);
  close(client);
}

}  // namespace
}  // namespace bitwire::bench
