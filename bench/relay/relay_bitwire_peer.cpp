// relay_bitwire_peer: bitwire's Client and Server (netcode over UdpTransport, default StackConfig) in one
// process, connected through udp_relay, with resend_bench's reliable workload in real time: the client sends
// one 100-byte reliable message every 6 ticks of a 60 Hz loop for --seconds, then runs on until every
// message is delivered (at most 20 s more). Prints message copies put in packets (first sends and resends)
// per delivered message and the latency from send() to the server's receive(), in whole ticks like the
// simulated bench. Wire bytes come from the relay's counts.
//
//   relay_bitwire_peer --relay PORT --server PORT [--seconds S] [--factor F] [--latencies 1]
//
// --factor sets message_resend_rtt_factor on channel 0 (0: the fixed message_resend_time, 0.1 s).
// --latencies 1 also prints every message's latency (ms, in delivery order) on a line "latencies_ms ...",
// so runs of several seeds can be pooled.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bitwire/netcode/token.hpp"
#include "bitwire/serialize/serialize.hpp"
#include "bitwire/stack/client.hpp"
#include "bitwire/stack/server.hpp"
#include "bitwire/transport/udp_socket.hpp"

namespace {

using namespace bitwire;

struct Event {
  static constexpr uint32_t kTypeId = 0;
  uint8_t bytes[100] = {};
  template <typename Stream>
  bool serialize(Stream& stream) {
    return serialize_bytes(stream, bytes, sizeof(bytes));
  }
};

constexpr MessageTypeInfo kTypes[] = {describe_message<Event>("Event")};

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const auto index = static_cast<size_t>(p * static_cast<double>(values.size() - 1) + 0.5);
  return values[std::min(index, values.size() - 1)];
}

int usage() {
  std::fprintf(
      stderr,
      "usage: relay_bitwire_peer --relay PORT --server PORT [--seconds S] [--factor F] [--latencies 1]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  long relay_port = 0;
  long server_port = 0;
  double seconds = 30.0;
  double factor = -1.0;
  bool print_latencies = false;
  for (int i = 1; i < argc; i += 2) {
    if (i + 1 >= argc) return usage();
    const std::string flag = argv[i];
    const double value = std::atof(argv[i + 1]);
    if (flag == "--relay")
      relay_port = static_cast<long>(value);
    else if (flag == "--server")
      server_port = static_cast<long>(value);
    else if (flag == "--seconds")
      seconds = value;
    else if (flag == "--factor")
      factor = value;
    else if (flag == "--latencies")
      print_latencies = value != 0.0;
    else
      return usage();
  }
  if (relay_port <= 0 || relay_port > 65535 || server_port <= 0 || server_port > 65535) return usage();

  const MessageFactory factory(kTypes);
  StackConfig config;
  config.max_clients = 1;
  if (factor >= 0.0) config.connection.channels[0].message_resend_rtt_factor = factor;
  const Address server_address = Address::ipv4(127, 0, 0, 1, static_cast<uint16_t>(server_port));
  const Address relay_address = Address::ipv4(127, 0, 0, 1, static_cast<uint16_t>(relay_port));

  UdpSocket server_socket;
  UdpSocket client_socket;
  if (server_socket.open(server_address) != SocketStatus::kOk ||
      client_socket.open(Address::ipv4(127, 0, 0, 1, 0)) != SocketStatus::kOk) {
    std::fprintf(stderr, "socket: %s %s\n", server_socket.system_error(), client_socket.system_error());
    return 1;
  }
  UdpTransport server_transport(server_socket);
  UdpTransport client_transport(client_socket);
  const netcode::Key key = netcode::random_key();
  const auto start = std::chrono::steady_clock::now();
  auto clock = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  // Arrivals are dated on the loop's clock (1.0 + wall seconds), as UdpTransport's contract asks.
  server_transport.set_clock([&] { return 1.0 + clock(); });
  client_transport.set_clock([&] { return 1.0 + clock(); });
  double now = 1.0;
  Server server(config, factory, key, server_transport, server_address, now);
  Client client(config, factory, client_transport, now);
  if (!server.ok()) {
    std::fprintf(stderr, "server: %s\n", server.error_reason());
    return 1;
  }
  // The client tries the relay first; the server finds its own address in the token's list.
  netcode::ConnectTokenParams params;
  params.protocol_id = server.protocol_id();
  params.client_id = 1;
  const auto unix_now = static_cast<uint64_t>(std::time(nullptr));
  params.create_timestamp = unix_now;
  params.timeout_seconds = 10;
  params.server_addresses.count = 2;
  params.server_addresses.items[0] = relay_address;
  params.server_addresses.items[1] = server_address;
  netcode::ConnectToken token;
  std::array<std::byte, netcode::kConnectTokenBytes> bytes{};
  if (!netcode::generate_connect_token(params, key, token) || !netcode::write_connect_token(token, bytes) ||
      !client.connect(bytes, now)) {
    std::fprintf(stderr, "connect token refused\n");
    return 1;
  }

  constexpr double kTick = 1.0 / 60.0;
  const int send_ticks = static_cast<int>(seconds * 60.0);
  std::vector<double> send_time;
  std::vector<double> latencies;
  int tick = 0;
  int connected_tick = -1;
  uint64_t delivered = 0;
  for (;;) {
    ++tick;
    now = 1.0 + tick * kTick;
    std::this_thread::sleep_for(std::chrono::duration<double>(std::max(0.0, now - 1.0 - clock())));
    client.update(now);
    server.update(now, unix_now + static_cast<uint64_t>(now));
    if (client.is_connected() && connected_tick < 0) connected_tick = tick;
    if (connected_tick < 0 && tick > 60 * 10) {
      std::fprintf(stderr, "no connection after 10 s (state %d)\n", static_cast<int>(client.state()));
      return 1;
    }
    const int sending = connected_tick < 0 ? -1 : tick - connected_tick;
    if (sending >= 0 && sending < send_ticks && sending % 6 == 0) {
      MessageHandle m = client.create<Event>();
      const auto serial = static_cast<uint32_t>(send_time.size());
      std::copy_n(reinterpret_cast<const uint8_t*>(&serial), 4, m.as<Event>()->bytes);
      if (client.send(0, std::move(m))) send_time.push_back(now);
    }
    const int slot = client.client_index();
    if (slot >= 0 && server.is_connected(slot)) {
      while (MessageHandle got = server.receive(slot, 0)) {
        uint32_t serial = 0;
        std::copy_n(got.as<Event>()->bytes, 4, reinterpret_cast<uint8_t*>(&serial));
        if (serial < send_time.size()) latencies.push_back((now - send_time[serial]) * 1000.0);
        ++delivered;
      }
    }
    client.send_packets();
    server.send_packets();
    if (sending >= send_ticks && (delivered == send_time.size() || sending > send_ticks + 20 * 60)) break;
  }
  const uint64_t copies = client.connection().channel_counters(0).messages_sent;
  std::printf(
      "bitwire factor %.2f: sent %zu delivered %llu copies %llu per_delivered %.3f p50 %.0f p99 %.0f max "
      "%.0f "
      "ms late %.1f\n",
      config.connection.channels[0].message_resend_rtt_factor, send_time.size(),
      static_cast<unsigned long long>(delivered), static_cast<unsigned long long>(copies),
      static_cast<double>(copies) / static_cast<double>(std::max<uint64_t>(delivered, 1)),
      percentile(latencies, 0.5), percentile(latencies, 0.99),
      latencies.empty() ? 0.0 : *std::max_element(latencies.begin(), latencies.end()),
      (clock() - (now - 1.0)) * 1000.0);
  if (print_latencies) {
    std::printf("latencies_ms");
    for (const double l : latencies) std::printf(" %.0f", l);
    std::printf("\n");
  }
  return 0;
}
