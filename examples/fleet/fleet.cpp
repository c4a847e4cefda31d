// fleet: a game's fleet on one machine, as docs/deployment.md lays it out -- a backend that mints connect
// tokens, N server processes on their own ports that report their free slots to it, and clients that ask
// the backend for a token and land on a server with a free slot.
//
//   fleet --servers 3 --slots 2 --clients 6     run the whole fleet as processes; exit 0 when every client
//                                               connected, none was denied, and one more was told "full"
//   fleet backend --port P                      the token backend (the private key: BITWIRE_PRIVATE_KEY)
//   fleet server --backend ADDRESS --slots N    one game server on 127.0.0.1 (a port the OS picks)
//   fleet client --backend ADDRESS --id N       one client; exit 0 connected, 3 the fleet is full, 1 failed
//
// The backend and the servers share the private key through the environment, as a deployment shares a
// secret; clients never see it. The backend <-> server and backend <-> client messages are a toy text
// protocol over UDP (a real backend speaks HTTPS): "LOAD <port> <used> <max>" from each server every
// 0.25 s, "TOKEN <client id>" from a client, answered with "TOKEN" and the 2048 token bytes, or "FULL".
// Every process has a deadline, so a broken fleet ends instead of hanging.
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "bitwire/bitwire.hpp"
#include "hello.hpp"

namespace {

constexpr double kTick = 1.0 / 60.0;
constexpr double kDeadlineSeconds = 20.0;     // no process of the fleet runs longer
constexpr double kReservationSeconds = 10.0;  // a token holds its slot this long (the token's timeout)

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
void sleep_tick() {
  std::this_thread::sleep_for(std::chrono::duration<double>(kTick));
}
uint64_t unix_now() {
  return static_cast<uint64_t>(std::time(nullptr));
}

// [config]
// Every server and the backend use the same config: the backend mints tokens for its stack protocol id.
bitwire::StackConfig make_config(int slots) {
  bitwire::StackConfig config;
  config.protocol_id = hello::ProtocolId;
  config.max_clients = slots;
  config.connection.channel_count = 1;
  config.connection.channels[0].type = bitwire::ChannelType::kReliableOrdered;
  config.connection.channels[0].disable_blocks = true;
  return config;
}
// [config]

bool key_from_environment(bitwire::netcode::Key& key) {
  const char* hex = std::getenv("BITWIRE_PRIVATE_KEY");
  if (hex == nullptr || std::strlen(hex) != 2 * key.size()) return false;
  for (size_t i = 0; i < key.size(); ++i) {
    unsigned value = 0;
    if (std::sscanf(hex + 2 * i, "%2x", &value) != 1) return false;
    key[i] = static_cast<std::byte>(value);
  }
  return true;
}

std::span<const std::byte> bytes_of(std::string_view text) {
  return {reinterpret_cast<const std::byte*>(text.data()), text.size()};
}

const char* flag(int argc, char** argv, const char* name, const char* fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
  }
  return fallback;
}

// ---- the backend ----

struct ServerEntry {
  bitwire::Address address;  // the game server's address (what tokens list)
  int used = 0;              // connected clients, as last reported
  int max = 0;
  std::vector<double> reserved;  // when each recent token for it was minted
};

int backend(int argc, char** argv) {
  bitwire::netcode::Key key;
  if (!key_from_environment(key)) {
    std::fprintf(stderr, "fleet backend: set BITWIRE_PRIVATE_KEY to 64 hex digits\n");
    return 1;
  }
  bitwire::UdpSocket socket;
  const auto port = static_cast<uint16_t>(std::atoi(flag(argc, argv, "--port", "0")));
  if (socket.open(bitwire::Address::ipv4(127, 0, 0, 1, port)) != bitwire::SocketStatus::kOk) {
    std::fprintf(stderr, "fleet backend: cannot open port %u\n", port);
    return 1;
  }
  // [mint]
  // The id tokens must carry: the servers' stack protocol id, from the same schema and config.
  const uint64_t protocol_id = bitwire::stack_protocol_id(hello::message_factory(), make_config(1));
  // [mint]
  std::vector<ServerEntry> servers;
  std::array<std::byte, 4096> buffer{};
  const double start = now();
  while (now() - start < kDeadlineSeconds) {
    bitwire::Address from;
    size_t size = 0;
    if (socket.receive(buffer, from, size) != bitwire::SocketStatus::kOk) {
      sleep_tick();
      continue;
    }
    const std::string message(reinterpret_cast<const char*>(buffer.data()), size);
    unsigned game_port = 0;
    int used = 0, max = 0;
    unsigned long long client_id = 0;
    if (std::sscanf(message.c_str(), "LOAD %u %d %d", &game_port, &used, &max) == 3) {
      const bitwire::Address game = from.with_port(static_cast<uint16_t>(game_port));
      ServerEntry* entry = nullptr;
      for (ServerEntry& s : servers) entry = s.address == game ? &s : entry;
      if (entry == nullptr) entry = &servers.emplace_back(ServerEntry{game, 0, 0, {}});
      entry->used = used;
      entry->max = max;
    } else if (std::sscanf(message.c_str(), "TOKEN %llu", &client_id) == 1) {
      // [place]
      // The server with the most free slots; a token reserves its slot until the server's report could
      // include it (the reservation lasts the token's timeout).
      ServerEntry* best = nullptr;
      int best_free = 0;
      for (ServerEntry& s : servers) {
        std::erase_if(s.reserved, [&](double t) { return now() - t > kReservationSeconds; });
        const int taken = std::max(s.used, static_cast<int>(s.reserved.size()));
        if (s.max - taken > best_free) {
          best = &s;
          best_free = s.max - taken;
        }
      }
      if (best == nullptr) {
        socket.send(from, bytes_of("FULL"));
        continue;
      }
      best->reserved.push_back(now());
      bitwire::netcode::ConnectTokenParams params;
      params.protocol_id = protocol_id;
      params.client_id = client_id;
      params.create_timestamp = unix_now();
      params.expire_seconds = 30;
      params.timeout_seconds = static_cast<int32_t>(kReservationSeconds);
      params.server_addresses.count = 1;
      params.server_addresses.items[0] = best->address;
      // [place]
      bitwire::netcode::ConnectToken token;
      std::array<std::byte, 5 + bitwire::netcode::kConnectTokenBytes> reply{};
      std::memcpy(reply.data(), "TOKEN", 5);
      const char* reason = nullptr;
      if (!bitwire::netcode::generate_connect_token(params, key, token, &reason) ||
          !bitwire::netcode::write_connect_token(token, std::span(reply).subspan(5), &reason)) {
        std::fprintf(stderr, "fleet backend: %s\n", reason);
        return 1;
      }
      socket.send(from, reply);
    } else if (message == "QUIT") {
      return 0;
    }
  }
  return 0;
}

// ---- a game server ----

int server(int argc, char** argv) {
  bitwire::netcode::Key key;
  bitwire::Address backend_address;
  if (!key_from_environment(key) ||
      bitwire::parse_address(flag(argc, argv, "--backend", ""), backend_address)) {
    std::fprintf(stderr, "fleet server: needs BITWIRE_PRIVATE_KEY and --backend ADDRESS\n");
    return 1;
  }
  const int slots = std::atoi(flag(argc, argv, "--slots", "2"));
  bitwire::UdpSocket game_socket, report_socket;
  if (game_socket.open(bitwire::Address::ipv4(127, 0, 0, 1, 0)) != bitwire::SocketStatus::kOk ||
      report_socket.open(bitwire::Address::ipv4(127, 0, 0, 1, 0)) != bitwire::SocketStatus::kOk) {
    std::fprintf(stderr, "fleet server: cannot open its sockets\n");
    return 1;
  }
  bitwire::UdpTransport transport(game_socket);
  double t = now();
  transport.set_clock([&t] { return t; });
  bitwire::Server game(make_config(slots), hello::message_factory(), key, transport,
                       game_socket.local_address(), t);
  if (!game.ok()) {
    std::fprintf(stderr, "fleet server: %s\n", game.error_reason());
    return 1;
  }
  const double start = t;
  double next_report = t;
  while (t - start < kDeadlineSeconds) {
    t = now();
    game.update(t, unix_now());
    bitwire::ServerEvent event;
    while (game.next_event(event)) {
      std::printf("fleet server :%u: client %llu %s (slot %d, %d of %d used)\n",
                  game_socket.local_address().port(), static_cast<unsigned long long>(event.client_id),
                  event.kind == bitwire::ServerEvent::Kind::kConnected ? "connected" : "left",
                  event.client_index, game.connected_count(), slots);
      std::fflush(stdout);
    }
    game.send_packets();
    if (t >= next_report) {
      // [report]
      // The server's load, four times a second: its game port, connected clients and slots.
      char report[64];
      std::snprintf(report, sizeof report, "LOAD %u %d %d", game_socket.local_address().port(),
                    game.connected_count(), slots);
      report_socket.send(backend_address, bytes_of(report));
      // [report]
      next_report = t + 0.25;
    }
    sleep_tick();
  }
  return 0;
}

// ---- a client ----

int client(int argc, char** argv) {
  bitwire::Address backend_address;
  if (bitwire::parse_address(flag(argc, argv, "--backend", ""), backend_address)) {
    std::fprintf(stderr, "fleet client: needs --backend ADDRESS\n");
    return 1;
  }
  const unsigned long long id = std::strtoull(flag(argc, argv, "--id", "1"), nullptr, 10);
  const double hold = std::atof(flag(argc, argv, "--hold", "3"));
  bitwire::UdpSocket socket;
  if (socket.open(bitwire::Address::ipv4(127, 0, 0, 1, 0)) != bitwire::SocketStatus::kOk) return 1;
  // Ask the backend for a token (again every 0.2 s: UDP, and the backend may not know a server yet).
  std::array<std::byte, 4096> reply{};
  size_t size = 0;
  const double asked = now();
  for (double next = asked; now() - asked < 5.0;) {
    if (now() >= next) {
      char request[64];
      std::snprintf(request, sizeof request, "TOKEN %llu", id);
      socket.send(backend_address, bytes_of(request));
      next = now() + 0.2;
    }
    bitwire::Address from;
    if (socket.receive(reply, from, size) == bitwire::SocketStatus::kOk && from == backend_address) {
      if (size == 4 && std::memcmp(reply.data(), "FULL", 4) == 0) {
        // An empty fleet answers FULL until its servers report: ask again until the deadline.
        if (now() - asked > 2.0) {
          std::printf("fleet client %llu: the fleet is full\n", id);
          return 3;
        }
        continue;
      }
      if (size == 5 + bitwire::netcode::kConnectTokenBytes) break;
    }
    sleep_tick();
  }
  if (size != 5 + bitwire::netcode::kConnectTokenBytes) {
    std::fprintf(stderr, "fleet client %llu: no token from the backend\n", id);
    return 1;
  }
  bitwire::UdpTransport transport(socket);
  double t = now();
  transport.set_clock([&t] { return t; });
  bitwire::Client game(make_config(1), hello::message_factory(), transport, t);
  const char* reason = nullptr;
  if (!game.connect(std::span(reply).subspan(5, bitwire::netcode::kConnectTokenBytes), t, &reason)) {
    std::fprintf(stderr, "fleet client %llu: %s\n", id, reason);
    return 1;
  }
  const double start = t;
  double connected_at = -1.0;
  while (t - start < 5.0 + hold) {
    t = now();
    game.update(t);
    game.send_packets();
    if (game.state() <= bitwire::netcode::ClientState::kDisconnected) break;
    if (connected_at < 0 && game.is_connected()) {
      connected_at = t;
      std::printf("fleet client %llu: connected as client index %d\n", id, game.client_index());
      std::fflush(stdout);
    }
    if (connected_at >= 0 && t - connected_at >= hold) return 0;
    sleep_tick();
  }
  std::fprintf(stderr, "fleet client %llu: %s\n", id,
               connected_at >= 0 ? "lost its server" : bitwire::netcode::to_string(game.state()));
  return 1;
}

// ---- the whole fleet as processes ----

pid_t spawn(const char* self, const std::vector<std::string>& args) {
  const pid_t pid = fork();
  if (pid != 0) return pid;
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(self));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execv(self, argv.data());
  std::_Exit(127);
}

int exit_code(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int fleet(const char* self, int argc, char** argv) {
  const int servers = std::atoi(flag(argc, argv, "--servers", "3"));
  const int slots = std::atoi(flag(argc, argv, "--slots", "2"));
  const int clients = std::atoi(flag(argc, argv, "--clients", "6"));
  if (servers < 1 || servers > 16 || slots < 1 || slots > 64 || clients < 0 || clients > servers * slots) {
    std::fprintf(stderr, "fleet: --servers 1..16, --slots 1..64, --clients 0..servers*slots\n");
    return 2;
  }
  // The shared secret, for the backend and the servers only (children inherit the environment).
  const bitwire::netcode::Key key = bitwire::netcode::random_key();
  std::string hex;
  for (const std::byte b : key) {
    char two[3];
    std::snprintf(two, sizeof two, "%02x", std::to_integer<unsigned>(b));
    hex += two;
  }
  setenv("BITWIRE_PRIVATE_KEY", hex.c_str(), 1);
  // A free port for the backend (the OS picks one, the probe lets it go).
  uint16_t port = 0;
  {
    bitwire::UdpSocket probe;
    if (probe.open(bitwire::Address::ipv4(127, 0, 0, 1, 0)) != bitwire::SocketStatus::kOk) return 1;
    port = probe.local_address().port();
  }
  const std::string backend_address = "127.0.0.1:" + std::to_string(port);
  const pid_t backend_pid = spawn(self, {"backend", "--port", std::to_string(port)});
  std::vector<pid_t> server_pids;
  for (int s = 0; s < servers; ++s) {
    server_pids.push_back(
        spawn(self, {"server", "--backend", backend_address, "--slots", std::to_string(slots)}));
  }
  unsetenv("BITWIRE_PRIVATE_KEY");  // the clients never see it
  // Every client holds its slot (8 s) until the last one has connected and the extra one has been turned
  // away.
  std::vector<pid_t> client_pids;
  for (int c = 0; c < clients; ++c) {
    client_pids.push_back(spawn(
        self, {"client", "--backend", backend_address, "--id", std::to_string(1000 + c), "--hold", "8"}));
  }
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const bool full_fleet = clients == servers * slots;
  const pid_t extra =
      full_fleet ? spawn(self, {"client", "--backend", backend_address, "--id", "9999", "--hold", "1"}) : -1;
  int connected = 0;
  for (const pid_t pid : client_pids) connected += exit_code(pid) == 0 ? 1 : 0;
  const int extra_code = extra > 0 ? exit_code(extra) : 3;
  // Stop the fleet.
  bitwire::UdpSocket control;
  bitwire::Address backend;
  if (control.open(bitwire::Address::ipv4(127, 0, 0, 1, 0)) == bitwire::SocketStatus::kOk &&
      bitwire::parse_address(backend_address, backend) == nullptr) {
    control.send(backend, bytes_of("QUIT"));
  }
  for (const pid_t pid : server_pids) kill(pid, SIGTERM);
  for (const pid_t pid : server_pids) exit_code(pid);
  kill(backend_pid, SIGTERM);
  exit_code(backend_pid);
  std::printf(
      "fleet: %d/%d clients connected across %d servers of %d slots%s\n", connected, clients, servers, slots,
      full_fleet
          ? (extra_code == 3 ? "; one more was told the fleet is full" : "; one more was NOT turned away")
          : "");
  return connected == clients && extra_code == 3 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "--help") == 0) {
    std::printf(
        "usage: fleet [--servers N] [--slots N] [--clients N]   the whole fleet on 127.0.0.1 "
        "(docs/deployment.md)\n"
        "       fleet backend --port P                        the token backend (key: BITWIRE_PRIVATE_KEY)\n"
        "       fleet server --backend ADDRESS [--slots N]    one game server\n"
        "       fleet client --backend ADDRESS [--id N] [--hold S]\n");
    return 0;
  }
  if (argc >= 2 && std::strcmp(argv[1], "backend") == 0) return backend(argc, argv);
  if (argc >= 2 && std::strcmp(argv[1], "server") == 0) return server(argc, argv);
  if (argc >= 2 && std::strcmp(argv[1], "client") == 0) return client(argc, argv);
  return fleet("/proc/self/exe", argc, argv);
}
