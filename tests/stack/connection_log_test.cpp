// The log lines of a session's life (docs/client-server.md, "Logs"): every connect, denial, refused request,
// timeout, disconnect and protocol error names the connection and the reason; the congestion line names its
// connection and never appears for a client that never connected; send refusals say what is wrong.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include "bitwire/core/log.hpp"
#include "bitwire/packet/endpoint.hpp"
#include "support/bytes.hpp"
#include "support/stack_harness.hpp"

namespace bitwire::test {
namespace {

// Captures every line at kInfo and above for the test's lifetime (no rate limit), then restores the log.
class LogCapture {
 public:
  LogCapture() : saved_(log_level()) {
    set_log_sink(&LogCapture::sink, this);
    set_log_level(LogLevel::kInfo);
    set_log_rate_limit(0.0, 1);
  }
  ~LogCapture() {
    set_log_level(saved_);
    set_log_sink(nullptr);
    set_log_rate_limit(20.0, 100);
  }
  // The first captured line containing every one of `parts`, or "" when none does.
  std::string find(std::initializer_list<const char*> parts) const {
    for (const std::string& line : lines) {
      bool all = true;
      for (const char* part : parts) all = all && line.find(part) != std::string::npos;
      if (all) return line;
    }
    return "";
  }
  int count(const char* part) const {
    int n = 0;
    for (const std::string& line : lines) n += line.find(part) != std::string::npos ? 1 : 0;
    return n;
  }
  std::string all() const {
    std::string text;
    for (const std::string& line : lines) text += line + "\n";
    return text;
  }
  std::vector<std::string> lines;

 private:
  static void sink(void* context, LogLevel level, const char* message) {
    static_cast<LogCapture*>(context)->lines.push_back(std::string(to_string(level)) + ": " + message);
  }
  LogLevel saved_;
};

TEST(ConnectionLog, ConnectAndDisconnectNameTheConnection) {
  LogCapture log;
  StackHarness h(2);
  Client& client = h.add_client();
  h.connect(0);
  ASSERT_TRUE(h.run_until([&] { return h.all_connected(); }, 300));
  EXPECT_NE(log.find({"info: netcode client: connected to 10.0.0.1:40000 as client index 0 of 2"}), "")
      << log.all();
  EXPECT_NE(log.find({"info: netcode server: slot 0 (client id 1000, 10.0.1.1:50000): connected"}), "")
      << log.all();
  client.disconnect(h.now);
  h.step();
  EXPECT_NE(log.find({"netcode client: disconnecting from 10.0.0.1:40000 (client index 0)"}), "")
      << log.all();
  EXPECT_NE(log.find({"netcode server: slot 0 (client id 1000, 10.0.1.1:50000): client disconnected"}), "")
      << log.all();
}

TEST(ConnectionLog, ServerStartSaysWhichProtocolIdTokensNeed) {
  LogCapture log;
  StackHarness h(2);
  char expected[160];
  std::snprintf(expected, sizeof expected,
                "info: server 10.0.0.1:40000: 2 slots, protocol id 0x%016llx: connect tokens "
                "must carry this id",
                static_cast<unsigned long long>(h.server->protocol_id()));
  EXPECT_NE(log.find({expected}), "") << log.all();
  EXPECT_EQ(h.server->protocol_id(), stack_protocol_id(h.factory, h.config));
}

TEST(ConnectionLog, TimeoutsNameTheSlotAndTheServer) {
  LogCapture log;
  StackHarness h(2);
  h.add_client();
  h.connect(0, /*timeout_seconds=*/2);
  ASSERT_TRUE(h.run_until([&] { return h.all_connected(); }, 300));
  h.paused = {true};  // the client goes silent: the server times it out
  ASSERT_TRUE(h.run_until([&] { return h.server->connected_count() == 0; }, 400));
  EXPECT_NE(log.find({"warning: netcode server: slot 0 (client id 1000, 10.0.1.1:50000): timed out"}), "")
      << log.all();
  h.paused = {false};  // the client comes back to the server's disconnect packets
  ASSERT_TRUE(h.run_until([&] { return !h.clients[0]->is_connected(); }, 400));
  EXPECT_NE(log.find({"info: netcode client: disconnected by the server 10.0.0.1:40000"}), "") << log.all();

  h.connect(0, /*timeout_seconds=*/2);
  ASSERT_TRUE(h.run_until([&] { return h.all_connected(); }, 300));
  h.server_running = false;  // the server goes silent: the client times it out
  ASSERT_TRUE(h.run_until([&] { return !h.clients[0]->is_connected(); }, 400));
  EXPECT_NE(
      log.find({"warning: netcode client: connection to 10.0.0.1:40000 timed out: nothing received for 2 s"}),
      "")
      << log.all();
}

// A token minted for another protocol id (another schema or config, or the schema's id where the stack's is
// needed): the server says why it refuses each request, and the client, which hears nothing, names the
// likely causes when it gives up.
TEST(ConnectionLog, RequestForAnotherProtocolIdIsNamedOnBothEnds) {
  LogCapture log;
  StackHarness h(2);
  StackConfig other = h.config;
  other.protocol_id = kStackProtocolId + 1;  // the client's stack: another protocol id
  Client& client = h.add_client(&other);
  const char* reason = nullptr;
  ASSERT_TRUE(client.connect(h.token(1000, 2, stack_protocol_id(h.factory, other)), h.now, &reason))
      << reason;
  ASSERT_TRUE(h.run_until([&] { return client.state() <= netcode::ClientState::kDisconnected; }, 400));
  EXPECT_EQ(client.state(), netcode::ClientState::kConnectionRequestTimedOut);
  const std::string server_line = log.find(
      {"warning: netcode server: refused a connection request from 10.0.1.1:50000: request for another "
       "protocol id"});
  EXPECT_NE(server_line, "") << log.all();
  char ids[64];
  std::snprintf(ids, sizeof ids, "0x%016llx",
                static_cast<unsigned long long>(stack_protocol_id(h.factory, other)));
  EXPECT_NE(server_line.find(ids), std::string::npos) << server_line;
  EXPECT_NE(log.find({"warning: netcode client: connection request to 10.0.0.1:40000 timed out",
                      "protocol id", "expired", "no server listens at that address"}),
            "")
      << log.all();
}

TEST(ConnectionLog, ClientRefusesATokenMadeWithTheSchemasId) {
  LogCapture log;
  StackHarness h(2);
  Client& client = h.add_client();
  const char* reason = nullptr;
  EXPECT_FALSE(client.connect(h.token(1000, 5, kStackProtocolId), h.now, &reason));
  char line[200];
  std::snprintf(line, sizeof line,
                "warning: client: connect token refused: it is for protocol id 0x%016llx, this client's "
                "stack_protocol_id is 0x%016llx",
                static_cast<unsigned long long>(kStackProtocolId),
                static_cast<unsigned long long>(stack_protocol_id(h.factory, h.config)));
  EXPECT_NE(log.find({line}), "") << log.all();
}

TEST(ConnectionLog, ExpiredTokenIsNamedByTheServer) {
  LogCapture log;
  StackHarness h(2);
  Client& client = h.add_client();
  StackToken bytes = h.token(1000);
  h.now += 400.0;  // the server's unix time moves past the token's 300 s expiry; the client has no clock
  const char* reason = nullptr;
  ASSERT_TRUE(client.connect(bytes, h.now, &reason)) << reason;
  h.run_until([&] { return client.state() <= netcode::ClientState::kDisconnected; }, 60);
  EXPECT_NE(
      log.find({"warning: netcode server: refused a connection request from 10.0.1.1:50000: token expired"}),
      "")
      << log.all();
}

TEST(ConnectionLog, DenialNamesTheFullServerOnBothEnds) {
  LogCapture log;
  StackHarness h(1);
  h.add_client();
  h.connect(0);
  ASSERT_TRUE(h.run_until([&] { return h.server->connected_count() == 1; }, 300));
  Client& late = h.add_client();
  h.connect(1);
  ASSERT_TRUE(h.run_until([&] { return late.state() == netcode::ClientState::kConnectionDenied; }, 300));
  EXPECT_NE(
      log.find(
          {"warning: netcode server: denied client id 1001 from 10.0.1.2:50000: all 1 slots are in use"}),
      "")
      << log.all();
  EXPECT_NE(
      log.find({"warning: netcode client: connection denied by 10.0.0.1:40000: the server has no free slot"}),
      "")
      << log.all();
}

TEST(ConnectionLog, ProtocolErrorNamesTheSlot) {
  LogCapture log;
  StackHarness h(2);
  LoopbackTransport rogue_transport(h.network, Address::ipv4(10, 0, 7, 7, 50000));
  netcode::Client rogue(netcode::ClientConfig{}, rogue_transport);
  rogue.connect(h.token(66), h.now);
  ASSERT_TRUE(h.run_until(
      [&] {
        rogue.update(h.now);
        return rogue.is_connected() && h.server->connected_count() == 1;
      },
      300));
  std::array<uint8_t, 64> payload{};
  const size_t header = write_packet_header(PacketHeader{0, 0xFFFF, 0}, test::writable(payload));
  for (size_t i = header; i < payload.size(); ++i) payload[i] = 0xFF;
  ASSERT_TRUE(rogue.send_payload(test::view(payload)));
  h.step();
  EXPECT_NE(log.find({"warning: server slot 0 (client id 66, 10.0.7.7:50000): protocol error: "}), "")
      << log.all();
}

TEST(ConnectionLog, CongestionLineNamesItsConnectionAndNeedsOne) {
  LogCapture log;
  StackHarness h(2);
  h.add_client();  // never connects: no server answers a client that has no token
  for (int i = 0; i < 600; ++i) h.step();
  EXPECT_EQ(log.count("congestion"), 0) << log.all();
  h.connect(0);
  ASSERT_TRUE(h.run_until([&] { return h.all_connected(); }, 300));
  for (int i = 0; i < 600; ++i) h.step();  // good conditions: both ends leave bad mode
  EXPECT_NE(log.find({"congestion [client index 0, server 10.0.0.1:40000]: good mode"}), "") << log.all();
  EXPECT_NE(log.find({"congestion [server slot 0, client id 1000, 10.0.1.1:50000]: good mode"}), "")
      << log.all();
}

TEST(SendRefusal, BeforeConnectingSaysNotConnected) {
  StackHarness h(2);
  Client& client = h.add_client();
  MessageHandle message = client.create(Small::kTypeId);
  const SendStatus status = client.send(kReliable, std::move(message));
  EXPECT_EQ(status.result, SendResult::kNotConnected);
  EXPECT_STREQ(to_string(status.result), "not connected: send after the session is connected");
  const SendStatus server_status = h.server->send(0, kReliable, MessageHandle{});
  EXPECT_EQ(server_status.result, SendResult::kNotConnected);
}

TEST(SendRefusal, TooLargeNamesTheLimitingField) {
  StackConfig config = stack_test_config(2);
  config.connection.channels[kUnreliable].packet_budget_bytes = 12;
  StackHarness h(config, 16384);
  Client& client = h.add_client();
  h.connect(0);
  ASSERT_TRUE(h.run_until([&] { return h.all_connected(); }, 300));
  MessageHandle message = client.create(Numbered::kTypeId);
  ASSERT_TRUE(message);
  auto* numbered = message.as<Numbered>();
  ASSERT_NE(numbered, nullptr);
  for (int i = 0; i < 60; ++i) numbered->payload.push_back(static_cast<uint8_t>(i));
  SendStatus status = client.send(kUnreliable, std::move(message));
  EXPECT_EQ(status.result, SendResult::kTooLarge);
  ASSERT_NE(status.limit, nullptr);
  EXPECT_STREQ(status.limit, "ChannelConfig.packet_budget_bytes");
  MessageHandle again = client.create(Numbered::kTypeId);
  for (int i = 0; i < 60; ++i) again.as<Numbered>()->payload.push_back(1);
  status = client.send(kReliable, std::move(again));
  EXPECT_EQ(status.result, SendResult::kQueued) << "the other channel has the packet's budget";
  EXPECT_EQ(status.limit, nullptr);
}

}  // namespace
}  // namespace bitwire::test
