// hello_session: the smallest complete game session on bitwire, the program docs/walkthrough.md walks
// through. One server and one client on loopback UDP: the client connects with a connect token, sends a
// reliable chat line now and then and an unreliable input every tick; the server prints what arrives and
// answers each chat line; then the client disconnects cleanly. Exit code 0 when every chat line arrived
// once and in order both ways and inputs arrived; 1 otherwise (with the reason on stderr).
//
// Only the public API: the installed bitwire headers, the runtime library and the header idlc generates
// from schemas/hello.net at build time (idlc_generate in examples/CMakeLists.txt).
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <thread>

#include "bitwire/bitwire.hpp"
#include "hello.hpp"

namespace {

constexpr double kTickSeconds = 1.0 / 60.0;
constexpr uint32_t kChatLines = 5;       // the client sends this many chat lines, one every 6 ticks
constexpr double kGiveUpSeconds = 5.0;   // a session that has not finished by then is a failure

// The game's clocks: `now` for the stack (any monotonic origin), unix time for connect tokens.
double now() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}
uint64_t unix_now() { return static_cast<uint64_t>(std::time(nullptr)); }

// [config]
// Both ends use the same config: channel 0 reliable-ordered (chat), channel 1 unreliable (input).
constexpr int kReliable = 0;
constexpr int kUnreliable = 1;

bitwire::StackConfig make_config() {
  bitwire::StackConfig config;
  config.protocol_id = hello::ProtocolId;  // the schema's fingerprint: another schema cannot connect
  config.max_clients = 4;
  config.connection.channel_count = 2;
  config.connection.channels[kReliable].type = bitwire::ChannelType::kReliableOrdered;
  config.connection.channels[kUnreliable].type = bitwire::ChannelType::kUnreliableUnordered;
  for (int c = 0; c < 2; ++c) {  // size the queues for the traffic (the defaults hold 1024 messages)
    config.connection.channels[c].send_queue_size = 64;
    config.connection.channels[c].receive_queue_size = 64;
    config.connection.channels[c].sent_packets_buffer_size = 64;
    config.connection.channels[c].sent_message_ids = 1024;
    config.connection.channels[c].disable_blocks = true;
  }
  config.connection.endpoint.reassembly_slots = 4;  // packets of up to 16 KiB reassembled at once
  return config;
}
// [config]

}  // namespace

int main() {
  // [server]
  // The private key is shared by the game's backend (which makes connect tokens) and its servers.
  const bitwire::netcode::Key private_key = bitwire::netcode::random_key();
  const bitwire::StackConfig config = make_config();

  bitwire::UdpSocket server_socket;
  if (server_socket.open(bitwire::Address::ipv4(127, 0, 0, 1, 0)) != bitwire::SocketStatus::kOk) {
    std::fprintf(stderr, "hello_session: cannot open the server socket\n");
    return 1;
  }
  bitwire::UdpTransport server_transport(server_socket);
  server_transport.set_clock(now);  // arrival times on the clock update() gets: honest RTT at any tick rate
  const bitwire::Address server_address = server_socket.local_address();  // the port the OS chose
  bitwire::Server server(config, hello::message_factory(), private_key, server_transport, server_address, now());
  if (!server.ok()) {
    std::fprintf(stderr, "hello_session: server refused: %s\n", server.error_reason());
    return 1;
  }
  // [server]

  // [token]
  // What the backend does for a player who logged in: a connect token naming the server, sealed with
  // the private key. The client gets these 2048 bytes over HTTPS; here we just pass them over.
  bitwire::netcode::ConnectTokenParams params;
  params.protocol_id = server.protocol_id();  // == bitwire::stack_protocol_id(factory, config)
  params.client_id = 42;                       // the authenticated player
  params.create_timestamp = unix_now();
  params.server_addresses.count = 1;
  params.server_addresses.items[0] = server_address;
  bitwire::netcode::ConnectToken token;
  std::array<std::byte, bitwire::netcode::kConnectTokenBytes> token_bytes{};
  const char* reason = nullptr;
  if (!bitwire::netcode::generate_connect_token(params, private_key, token, &reason) ||
      !bitwire::netcode::write_connect_token(token, token_bytes, &reason)) {
    std::fprintf(stderr, "hello_session: no token: %s\n", reason);
    return 1;
  }
  // [token]

  // [client]
  bitwire::UdpSocket client_socket;
  if (client_socket.open(bitwire::Address::ipv4(127, 0, 0, 1, 0)) != bitwire::SocketStatus::kOk) {
    std::fprintf(stderr, "hello_session: cannot open the client socket\n");
    return 1;
  }
  bitwire::UdpTransport client_transport(client_socket);
  client_transport.set_clock(now);
  bitwire::Client client(config, hello::message_factory(), client_transport, now());
  if (!client.connect(token_bytes, now(), &reason)) {
    std::fprintf(stderr, "hello_session: connect refused: %s\n", reason);
    return 1;
  }
  // [client]
  std::printf("server on port %u, client 42 connecting\n", static_cast<unsigned>(server_address.port()));

  uint32_t tick = 0;
  uint32_t chat_sent = 0;
  uint32_t server_chat_next = 1;   // the chat line the server expects next
  uint32_t client_reply_next = 1;  // the reply the client expects next
  uint32_t inputs_received = 0;
  bool ok = true;
  const double start = now();
  while (client_reply_next <= kChatLines || inputs_received == 0) {
    if (now() - start > kGiveUpSeconds) {
      std::fprintf(stderr, "hello_session: the session did not finish in %.0f s\n", kGiveUpSeconds);
      return 1;
    }
    // [client loop]
    client.update(now());
    bitwire::ClientEvent client_event;
    while (client.next_event(client_event)) {
      if (client_event.kind == bitwire::ClientEvent::Kind::kConnected) {
        std::printf("client: connected to slot %d\n", client.client_index());
      }
    }
    if (client.is_connected()) {
      ++tick;
      bitwire::MessageHandle input = client.create<hello::Input>();
      input.as<hello::Input>()->tick = tick;
      input.as<hello::Input>()->yaw = static_cast<float>(tick % 360) - 180.0f;
      input.as<hello::Input>()->jump = tick % 30 == 0;
      client.send(kUnreliable, std::move(input));  // lost now and then: the next tick's input replaces it

      if (chat_sent < kChatLines && tick % 6 == 0) {
        bitwire::MessageHandle chat = client.create<hello::Chat>();
        chat.as<hello::Chat>()->line = ++chat_sent;
        chat.as<hello::Chat>()->text.assign_truncated("hello from the client");
        const bitwire::SendStatus status = client.send(kReliable, std::move(chat));
        if (!status) std::fprintf(stderr, "client: chat refused: %s\n", bitwire::to_string(status.result));
      }
      while (bitwire::MessageHandle message = client.receive(kReliable)) {
        const hello::Chat* reply = message.as<hello::Chat>();
        std::printf("client: reply %u: \"%.*s\"\n", reply->line, static_cast<int>(reply->text.size()),
                    reply->text.view().data());
        ok = ok && reply->line == client_reply_next++;
      }
    }
    client.send_packets();
    // [client loop]

    // [server loop]
    server.update(now(), unix_now());
    bitwire::ServerEvent server_event;
    while (server.next_event(server_event)) {
      if (server_event.kind == bitwire::ServerEvent::Kind::kConnected) {
        std::printf("server: client %llu connected in slot %d\n",
                    static_cast<unsigned long long>(server_event.client_id), server_event.client_index);
      }
    }
    for (int slot = 0; slot < server.max_clients(); ++slot) {
      if (!server.is_connected(slot)) continue;
      while (bitwire::MessageHandle message = server.receive(slot, kReliable)) {
        const hello::Chat* chat = message.as<hello::Chat>();
        std::printf("server: chat %u from slot %d: \"%.*s\"\n", chat->line, slot,
                    static_cast<int>(chat->text.size()), chat->text.view().data());
        ok = ok && chat->line == server_chat_next++;
        bitwire::MessageHandle reply = server.create<hello::Chat>(slot);  // from this slot's pool
        reply.as<hello::Chat>()->line = chat->line;
        reply.as<hello::Chat>()->text.assign_truncated("hello from the server");
        server.send(slot, kReliable, std::move(reply));
      }
      while (bitwire::MessageHandle message = server.receive(slot, kUnreliable)) {
        const hello::Input* input = message.as<hello::Input>();
        if (++inputs_received % 10 == 1) {
          std::printf("server: input tick %u yaw %.2f%s\n", input->tick, static_cast<double>(input->yaw),
                      input->jump ? " jump" : "");
        }
      }
    }
    server.send_packets();
    // [server loop]

    std::this_thread::sleep_for(std::chrono::duration<double>(kTickSeconds));  // a game waits for its next tick
  }

  // [statistics]
  const bitwire::StackStats stats = client.stats();
  std::printf("client: rtt %.2f ms, jitter %.2f ms, loss %.1f%%, sent %.1f kbps, received %.1f kbps, "
              "%llu packets sent, congestion %s\n",
              stats.rtt_ms, stats.jitter_ms, stats.packet_loss_percent, stats.sent_kbps, stats.received_kbps,
              static_cast<unsigned long long>(stats.packets_sent),
              stats.congestion_mode == bitwire::CongestionMode::kGood ? "good" : "bad");
  std::printf("server: %zu bytes per client slot, %zu bytes in all\n", server.memory_per_slot(),
              server.memory_bytes());
  // [statistics]

  // [disconnect]
  client.disconnect(now());
  bool server_saw_it = false;
  for (int i = 0; i < 60 && !server_saw_it; ++i) {
    server.update(now(), unix_now());
    bitwire::ServerEvent event;
    while (server.next_event(event)) {
      if (event.kind == bitwire::ServerEvent::Kind::kDisconnected) {
        std::printf("server: client %llu left (%s)\n", static_cast<unsigned long long>(event.client_id),
                    bitwire::netcode::to_string(event.reason));
        server_saw_it = true;
      }
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(kTickSeconds));
  }
  // [disconnect]

  if (!ok || server_chat_next != kChatLines + 1 || !server_saw_it) {
    std::fprintf(stderr, "hello_session: FAILED (chat in order: %s, chat lines at the server: %u of %u, "
                 "disconnect seen: %s)\n", ok ? "yes" : "no", server_chat_next - 1, kChatLines,
                 server_saw_it ? "yes" : "no");
    return 1;
  }
  std::printf("ok: %u chat lines each way in order, %u inputs, clean disconnect\n", kChatLines, inputs_received);
  return 0;
}
