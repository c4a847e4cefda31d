// Session: the demo's game session -- one bitwire::Server and N bitwire::Clients over loopback UDP, each
// client behind a SimulatedTransport -- and the traffic of schemas/game.net with what each end verifies.
//
// Channels (the same StackConfig on both ends):
//   0 reliable-ordered    Events and Chat, both ways; each carries a per-direction sequence number
//   1 unreliable          PlayerInput up every tick; Snapshot of 64 entities down at the rate the server's
//                         congestion controller advises (every tick while good, one in four while bad)
//   2 reliable-ordered    the level: one LevelLoad with a block of about 256 KiB, sent at connect
// Every reliable message is checked on arrival against the next sequence number expected; the level block
// is checked byte for byte against the pattern its seed gives and against the CRC32 in the message.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bitwire/sim/simulated_transport.hpp"
#include "bitwire/sim/simulator.hpp"
#include "bitwire/stack/client.hpp"
#include "bitwire/stack/server.hpp"
#include "bitwire/transport/udp_socket.hpp"
#include "game.hpp"
#include "options.hpp"
#include "socket_transport.hpp"
#include "tick_clock.hpp"

namespace demo {

// Size of the level block: 253 fragments of 1 KiB and a short last one.
inline constexpr size_t kLevelBytes = 256 * 1024 - 3000;

// What one connection looks like now (for the status view and the per-second samples).
struct ConnectionView {
  bool connected = false;
  double rtt_ms = 0.0;  // NaN until the client's endpoint has an RTT sample (0 ms is a measurement)
  double jitter_ms = 0.0;
  double loss_percent = 0.0;
  double up_kbps = 0.0;
  double down_kbps = 0.0;
  uint64_t messages_sent = 0;      // both ends of the connection, every channel (copies, resends included)
  uint64_t messages_received = 0;  // both ends, accepted from packets
  uint64_t messages_resent = 0;    // both ends, reliable copies after the first
  double block_percent = 0.0;      // fragments of the level block acked by the client
  bool congestion_good = false;
};

// What one connection delivered, for the checks at the end.
struct ConnectionTally {
  uint64_t client_id = 0;
  int slot = -1;                 // server slot, -1 before it connected
  bool connected_once = false;
  int disconnects = 0;           // any disconnect event on either end
  std::string failure;           // the first protocol error, disconnect or refused send, if any
  uint32_t up_sent = 0;          // reliable messages client -> server (sequence numbers 0..up_sent-1)
  uint32_t up_received = 0;      // the next sequence number the server expects
  uint32_t up_out_of_order = 0;  // arrivals with another sequence number than expected
  uint32_t down_sent = 0;
  uint32_t down_received = 0;
  uint32_t down_out_of_order = 0;
  uint64_t inputs_received = 0;     // by the server
  uint64_t snapshots_sent = 0;      // by the server, at the congestion controller's advised rate
  uint64_t snapshots_received = 0;  // by the client
  uint64_t snapshots_bad = 0;       // snapshots without the 64 entities or with a future input tick
  int blocks_received = 0;
  bool block_exact = false;
  double block_done_s = -1.0;       // when the client had the whole level
  uint64_t refused_sends = 0;       // send() calls the stack refused, both ends
};

class Session {
 public:
  explicit Session(const Options& options);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Opens the sockets, creates the server and the clients and starts every client connecting with a fresh
  // connect token. False with `error` when anything cannot start.
  bool start(double now, uint64_t unix_now, std::string& error);
  // One tick: every client then the server receive, verify, send (reliable messages only while
  // `send_reliable`) and flush their packets.
  void tick(double now, uint64_t unix_now, bool send_reliable);
  // New simulated conditions, both directions of every client's link.
  void set_conditions(const bitwire::NetworkConditions& conditions);

  int clients() const { return static_cast<int>(clients_.size()); }
  ConnectionView view(int client) const;
  const ConnectionTally& tally(int client) const { return tallies_[static_cast<size_t>(client)]; }
  // True when every reliable message sent so far has arrived and every level block is complete.
  bool settled() const;
  // Connection-level refusals on either end (packets the stack refused as invalid): must stay 0.
  uint64_t invalid_packets(int client) const;
  // Packets the connection built that netcode would not send (both ends of the client's connection).
  uint64_t payloads_refused(int client) const;
  const bitwire::SimulatedTransport& link(int client) const;
  const bitwire::StackConfig& config() const { return config_; }
  size_t server_memory_bytes() const;
  size_t client_memory_bytes() const;

 private:
  struct ClientEnd;
  void client_tick(int c, double now, bool send_reliable);
  void server_tick(double now, uint64_t unix_now, bool send_reliable);
  void fail(int c, const std::string& reason);
  // True when `status` is kQueued; else counts the refusal and records the first reason. A message that
  // could not be created is sent as an empty handle and refused as kEmptyMessage.
  bool refused(int c, const char* what, const bitwire::SendStatus& status);

  Options options_;
  bitwire::StackConfig config_;
  bitwire::SimulatedTransportConfig simulator_config_;
  bitwire::UdpSocket server_socket_;
  TickClock clock_;  // the demo's clock, stepped per tick; dates what the sockets receive
  std::unique_ptr<SocketTransport> server_transport_;
  std::unique_ptr<bitwire::Server> server_;
  std::vector<std::unique_ptr<ClientEnd>> clients_;
  std::vector<ConnectionTally> tallies_;
  std::vector<double> snapshot_credit_;  // per client: snapshots the advised send rate allows now
  std::vector<int> slot_client_;   // server slot -> client index, -1 when empty
  std::vector<uint8_t> level_;     // scratch: the expected level bytes of the client being checked
  game::Snapshot expected_snapshot_;  // scratch: the snapshot the server sent for a received tick
  uint64_t tick_ = 0;
  double start_ = 0.0;
};

// The level bytes for client `client_id` under `seed` (what the server sends and the client expects).
void fill_level(uint64_t seed, uint64_t client_id, uint8_t* out, size_t size);

}  // namespace demo
