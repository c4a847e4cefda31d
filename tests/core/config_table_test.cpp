// Every config table (config_table.hpp), driven field by field: each field at and past both ends of its
// range, check() and sanitized() agreeing on every probe, the reason naming the field, the value and the
// range, and each docs table printing exactly the code's limits.
#include "bitwire/core/config_table.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "bitwire/message/block.hpp"
#include "bitwire/message/chunk.hpp"
#include "bitwire/packet/congestion.hpp"
#include "bitwire/message/connection.hpp"
#include "bitwire/packet/endpoint.hpp"
#include "bitwire/netcode/client.hpp"
#include "bitwire/netcode/server.hpp"
#include "bitwire/sim/simulator.hpp"
#include "bitwire/stack/stack_config.hpp"
#include "bitwire/transport/udp_socket.hpp"
#include "support/config_table_probe.hpp"

namespace bitwire::test {
namespace {

// The text of a check's reason, whatever check() returns (a pointer or a ConfigCheck).
template <typename Check>
const char* reason_text(const Check& check) {
  if constexpr (std::is_pointer_v<Check>) {
    return check;
  } else {
    return check.reason();
  }
}

// check() used to return a per-thread buffer: a second check on the same thread rewrote the first reason
// (here the nested EndpointConfig reason of the StackConfig check landed in the first check's text).
TEST(ConfigCheck, ASecondCheckKeepsTheFirstReason) {
  EndpointConfig endpoint;
  endpoint.sent_packets_buffer_size = 1;
  StackConfig stack;
  stack.connection.endpoint.fragment_size = 0;
  const auto first = endpoint.check();
  const auto second = stack.check();
  EXPECT_STREQ(reason_text(first), "EndpointConfig.sent_packets_buffer_size = 1 is outside [2, 32768]");
  EXPECT_STREQ(
      reason_text(second),
      "StackConfig.connection: ConnectionConfig.endpoint: EndpointConfig.fragment_size = 0 is outside "
      "[1, 65487]");
}

// The value a check returns: a pass has no reason and converts to true; a failure converts to false and
// keeps its reason, also through copies and a nested part's prefix.
TEST(ConfigCheck, PassHasNoReasonAndFailureOwnsIt) {
  const ConfigCheck pass = EndpointConfig{}.check();
  EXPECT_TRUE(pass.ok());
  EXPECT_TRUE(static_cast<bool>(pass));
  EXPECT_EQ(pass.reason(), nullptr);
  EXPECT_TRUE(config_part_check("Outer.part", pass).ok()) << "a pass stays a pass";
  EXPECT_TRUE(ConfigCheck::failure(nullptr).ok());

  EndpointConfig bad;
  bad.sent_packets_buffer_size = 1;
  ConfigCheck failure = bad.check();
  EXPECT_FALSE(failure.ok());
  EXPECT_FALSE(static_cast<bool>(failure));
  const ConfigCheck copy = failure;
  failure = pass;
  EXPECT_STREQ(copy.reason(), "EndpointConfig.sent_packets_buffer_size = 1 is outside [2, 32768]");
  EXPECT_STREQ(config_part_check("Outer.part", copy).reason(),
               "Outer.part: EndpointConfig.sent_packets_buffer_size = 1 is outside [2, 32768]");
  const std::string long_part(400, 'x');
  const ConfigCheck cut = config_part_check(long_part.c_str(), copy);
  EXPECT_EQ(std::strlen(cut.reason()), kConfigReasonBytes - 1) << "a long reason is cut, not overrun";
}

TEST(ConfigTable, EndpointConfigEveryFieldAtAndPastBothEnds) {
  exercise_table("EndpointConfig", kEndpointConfigLimits, EndpointConfig{});
  EndpointConfig small;
  small.max_packet_size = 100;
  small.fragment_size = 32;
  small.max_fragments = 4;
  small.fragment_above = 32;
  exercise_table("EndpointConfig", kEndpointConfigLimits, small);
}

TEST(ConfigTable, NetworkConditionsEveryFieldAtAndPastBothEnds) {
  exercise_table("NetworkConditions", kNetworkConditionsLimits, NetworkConditions{});
}

TEST(ConfigTable, NetworkSimulatorConfigEveryFieldAtAndPastBothEnds) {
  exercise_table("NetworkSimulatorConfig", kNetworkSimulatorConfigLimits, NetworkSimulatorConfig{});
}

TEST(ConfigTable, BinaryCongestionConfigEveryFieldAtAndPastBothEnds) {
  exercise_table("BinaryCongestionConfig", kBinaryCongestionConfigLimits, BinaryCongestionConfig{});
}

TEST(ConfigTable, BlockConfigEveryFieldAtAndPastBothEnds) {
  exercise_table("BlockConfig", kBlockConfigLimits, BlockConfig{});
  BlockConfig small;
  small.fragment_size = 1;
  small.max_block_size = 65536;
  small.fragment_overhead_bytes = 0;
  small.max_budget_bytes = 1;
  exercise_table("BlockConfig", kBlockConfigLimits, small);
}

TEST(ConfigTable, ChunkConfigEveryFieldAtAndPastBothEnds) {
  exercise_table("ChunkConfig", kChunkConfigLimits, ChunkConfig{});
  ChunkConfig many_slices;  // the ack of 65536 slices, not the slice, sets the smallest datagram
  many_slices.block.fragment_size = 1;
  many_slices.block.max_block_size = 65536;
  many_slices.max_packet_size = 8192 + 5;
  exercise_table("ChunkConfig", kChunkConfigLimits, many_slices);
}

TEST(ConfigTable, ChannelConfigEveryFieldAtAndPastBothEnds) {
  exercise_table("ChannelConfig", kChannelConfigLimits, ChannelConfig{});
  ChannelConfig odd;  // a fragment size that is not a power of two: multiples are sparse
  odd.block_fragment_size = 1000;
  odd.max_block_size = 250000;
  odd.send_queue_size = 1;
  odd.receive_queue_size = 32768;
  odd.max_messages_per_packet = 4096;
  odd.sent_message_ids = 4096;
  exercise_table("ChannelConfig", kChannelConfigLimits, odd);
}

TEST(ConfigTable, StackConfigEveryFieldAtAndPastBothEnds) {
  exercise_table("StackConfig", kStackConfigLimits, StackConfig{});
}

TEST(ConfigTable, ConnectionConfigEveryFieldAtAndPastBothEnds) {
  exercise_table("ConnectionConfig", kConnectionConfigLimits, ConnectionConfig{});
}

TEST(ConfigTable, MessagePoolConfigEveryFieldAtAndPastBothEnds) {
  exercise_table("MessagePoolConfig", kMessagePoolConfigLimits, MessagePoolConfig{});
  MessagePoolConfig largest_blocks;  // one buffer of the largest block: block_count's bound is 1
  largest_blocks.max_block_size = 1 << 30;
  largest_blocks.block_count = 1;
  exercise_table("MessagePoolConfig", kMessagePoolConfigLimits, largest_blocks);
  MessagePoolConfig odd;  // a block size that does not divide 1 GiB
  odd.capacity = 1 << 24;
  odd.max_block_size = 1000000;
  odd.block_count = 1073;
  exercise_table("MessagePoolConfig", kMessagePoolConfigLimits, odd);
}

TEST(ConfigTable, NetcodeServerConfigEveryFieldAtAndPastBothEnds) {
  exercise_table("ServerConfig", netcode::kServerConfigLimits, netcode::ServerConfig{});
  netcode::ServerConfig crowded;  // every slot count at its maximum: the memory cap bounds the queue
  crowded.max_clients = 4096;
  crowded.pending_per_slot = 64;
  crowded.token_history_per_slot = 64;
  crowded.payload_queue_per_slot = 8;
  exercise_table("ServerConfig", netcode::kServerConfigLimits, crowded);
}

TEST(ConfigTable, NetcodeClientConfigEveryFieldAtAndPastBothEnds) {
  exercise_table("ClientConfig", netcode::kClientConfigLimits, netcode::ClientConfig{});
}

TEST(ConfigTable, UdpSocketConfigEveryFieldAtAndPastBothEnds) {
  exercise_table("UdpSocketConfig", kUdpSocketConfigLimits, UdpSocketConfig{});
}

// A netcode server whose slots would pass kMaxServerMemoryBytes is refused (4096 slots of 1024 queued
// payloads is 5 GB), and sanitized() shrinks the queue to what fits.
TEST(ConfigTable, NetcodeServerMemoryAboveTheCapIsRefused) {
  netcode::ServerConfig config;
  config.max_clients = 4096;
  config.payload_queue_per_slot = 1024;
  ASSERT_FALSE(config.check().ok());
  ASSERT_NE(config.check().reason(), nullptr);
  EXPECT_NE(
      std::string(config.check().reason()).find("ServerConfig.payload_queue_per_slot = 1024 is outside [1, "),
      std::string::npos)
      << config.check().reason();
  EXPECT_NE(std::string(config.check().reason()).find("512 MiB"), std::string::npos)
      << config.check().reason();
  const netcode::ServerConfig fitted = config.sanitized();
  EXPECT_TRUE(fitted.check().ok());
  EXPECT_LT(fitted.payload_queue_per_slot, 1024);
  EXPECT_LE(4096 * netcode::Server::memory_per_slot(fitted), netcode::kMaxServerMemoryBytes);
  netcode::ServerConfig one_more = fitted;
  one_more.payload_queue_per_slot += 1;
  EXPECT_FALSE(one_more.check().ok()) << "the bound is the largest queue that fits";
  // (memory_per_slot sanitizes its argument, so one more queue entry is added by hand.)
  const size_t entry = netcode::kMaxPayloadBytes + sizeof(uint16_t) + sizeof(uint64_t);
  EXPECT_GT(4096 * (netcode::Server::memory_per_slot(fitted) + entry), netcode::kMaxServerMemoryBytes);
  config.max_clients = 64;  // the same queue on 64 slots fits
  EXPECT_TRUE(config.check().ok());
}

// A composite config names the part that failed, at every level, and the nested reason keeps its field,
// value and range.
TEST(ConfigTable, CompositeReasonsNameThePart) {
  StackConfig stack;
  stack.connection.endpoint.fragment_size = 0;
  EXPECT_STREQ(
      stack.check().reason(),
      "StackConfig.connection: ConnectionConfig.endpoint: EndpointConfig.fragment_size = 0 is outside "
      "[1, 65487]");
  stack = StackConfig{};
  stack.connection.channel_count = 3;
  stack.connection.channels[2].receive_queue_size = 3;
  EXPECT_STREQ(
      stack.check().reason(),
      "StackConfig.connection: ConnectionConfig.channels[2]: ChannelConfig.receive_queue_size = 3 must "
      "be a power of two in [1, 32768]");
  stack = StackConfig{};
  stack.server.keep_alive_interval = std::numeric_limits<double>::quiet_NaN();
  EXPECT_STREQ(stack.check().reason(),
               "StackConfig.server: ServerConfig.keep_alive_interval = nan is outside [0.001, 10]");
  EXPECT_EQ(stack.sanitized().server.keep_alive_interval, 0.1);
  stack = StackConfig{};
  stack.client.send_interval = std::numeric_limits<double>::infinity();
  EXPECT_STREQ(stack.check().reason(),
               "StackConfig.client: ClientConfig.send_interval = inf is outside [0.001, 10]");
  EXPECT_EQ(stack.sanitized().client.send_interval, 10.0);
  EXPECT_TRUE(config_part_check("Any.part", ConfigCheck{}).ok());
}

// The stack checks the congestion controller it builds for every slot (it was neither checked nor
// sanitized: a halving_period of 0 reached each slot's controller).
TEST(ConfigTable, StackConfigChecksItsCongestionConfig) {
  StackConfig stack;
  stack.congestion.halving_period = 0.0;
  EXPECT_STREQ(stack.check().reason(),
               "StackConfig.congestion: BinaryCongestionConfig.halving_period = 0 is outside [0.001, 3600]");
  EXPECT_EQ(stack.sanitized().congestion.halving_period, 0.001);
  EXPECT_TRUE(stack.sanitized().check().ok());
}

// max_clients x stack_slot_memory (connection + netcode slot) above kMaxStackServerMemoryBytes is refused;
// sanitized() keeps the slot and lowers the slot count.
TEST(ConfigTable, StackConfigMemoryAboveTheCapIsRefused) {
  StackConfig stack;
  stack.max_clients = 4096;
  // 2^18 pooled messages per connection: over 1 MiB a slot. (Not the endpoint's reassembly: the stack
  // sizes it to its whole connection packets, whatever the config asks.)
  stack.connection.message_pool_size = 1 << 18;
  const size_t slot = stack_slot_memory(stack);  // for the smallest factory: what check() counts
  netcode::ServerConfig server;
  static_cast<netcode::ServerSettings&>(server) = stack.server;
  EXPECT_GT(slot,
            Endpoint::memory_required(stack.connection.endpoint) + netcode::Server::memory_per_slot(server))
      << "the connection's pool and channels count too";
  ASSERT_GT(4096 * slot, kMaxStackServerMemoryBytes) << "the probe must pass the cap";
  ASSERT_FALSE(stack.check().ok());
  ASSERT_NE(stack.check().reason(), nullptr);
  EXPECT_NE(std::string(stack.check().reason()).find("StackConfig.max_clients = 4096"), std::string::npos)
      << stack.check().reason();
  EXPECT_NE(std::string(stack.check().reason()).find("4096 MiB"), std::string::npos)
      << stack.check().reason();
  const StackConfig fitted = stack.sanitized();
  EXPECT_TRUE(fitted.check().ok());
  EXPECT_EQ(static_cast<size_t>(fitted.max_clients), kMaxStackServerMemoryBytes / slot);
  EXPECT_EQ(fitted.connection.message_pool_size, 1 << 18) << "the slot itself is kept";
  stack.max_clients = static_cast<int>(kMaxStackServerMemoryBytes / slot);
  EXPECT_TRUE(stack.check().ok()) << "the largest count that fits";
}

// A connection's block buffers x its largest block above kMaxBlockPoolBytes is refused (65536 buffers of
// 64 MiB, 4 TiB, was accepted); sanitized() keeps the block size and lowers the buffer count.
TEST(ConfigTable, ConnectionBlockPoolAboveTheCapIsRefused) {
  ConnectionConfig config;
  config.channels[0].max_block_size = 64 << 20;
  config.block_pool_size = 65536;
  ASSERT_EQ(check_config("ConnectionConfig", config, kConnectionConfigLimits).reason(), nullptr)
      << "each field is legal";
  EXPECT_STREQ(
      config.check().reason(),
      "ConnectionConfig.messages: MessagePoolConfig.block_count = 65536 is outside [0, 16] (max: 1 GiB "
      "/ max_block_size)");
  const ConnectionConfig fitted = config.sanitized();
  EXPECT_TRUE(fitted.check().ok());
  EXPECT_EQ(fitted.block_pool_size, 16);
  EXPECT_EQ(fitted.channels[0].max_block_size, 64 << 20);
  config.block_pool_size = 16;
  EXPECT_TRUE(config.check().ok()) << "the largest count that fits";
  config.block_pool_size = 17;
  EXPECT_FALSE(config.check().ok());
  config.channels[0].disable_blocks = true;  // no channel carries blocks: no block memory
  EXPECT_TRUE(config.check().ok());
}

// sanitized() lowers block_pool_size to the block memory cap after the table clamped block_receive_reserve
// against the old count: the reserve must follow, or the repaired config fails check() (a reserve of 6 with
// 16 buffers of 64 MiB was returned).
TEST(ConfigTable, SanitizedBlockReserveFollowsTheLoweredBlockPool) {
  ConnectionConfig config;
  config.channels[0].max_block_size = 64 << 20;
  config.block_pool_size = 32;
  config.block_receive_reserve = 20;
  ASSERT_FALSE(config.check().ok()) << "32 buffers of 64 MiB pass the 1 GiB cap";
  const ConnectionConfig fitted = config.sanitized();
  EXPECT_EQ(fitted.block_pool_size, 16);
  EXPECT_EQ(fitted.block_receive_reserve, 15);
  EXPECT_TRUE(fitted.check().ok());
  config.block_receive_reserve = -1;  // derived stays derived
  EXPECT_EQ(config.sanitized().block_receive_reserve, -1);
}

// The members check() and sanitized() are the table's: the same answers as the generic functions.
TEST(ConfigTable, MemberFunctionsAreTheTables) {
  EndpointConfig endpoint;
  endpoint.rtt_smoothing_factor = 2.0f;
  EXPECT_STREQ(endpoint.check().reason(),
               check_config("EndpointConfig", endpoint, kEndpointConfigLimits).reason());
  EXPECT_EQ(endpoint.sanitized().rtt_smoothing_factor, 1.0f);
  NetworkConditions conditions;
  conditions.corrupt_max_bits = 65;
  EXPECT_STREQ(conditions.check().reason(), "NetworkConditions.corrupt_max_bits = 65 is outside [1, 64]");
  EXPECT_EQ(conditions.sanitized().corrupt_max_bits, 64);
  NetworkSimulatorConfig simulator;
  simulator.conditions.loss_percent = -1.0;
  EXPECT_STREQ(simulator.check().reason(), "NetworkConditions.loss_percent = -1 is outside [0, 100]");
  EXPECT_EQ(simulator.sanitized().conditions.loss_percent, 0.0);
  BinaryCongestionConfig congestion;
  congestion.halving_period = 0.0;
  EXPECT_STREQ(congestion.check().reason(),
               "BinaryCongestionConfig.halving_period = 0 is outside [0.001, 3600]");
  EXPECT_EQ(congestion.sanitized().halving_period, 0.001);
  netcode::ServerConfig server;
  server.max_clients = 0;
  EXPECT_STREQ(server.check().reason(), "ServerConfig.max_clients = 0 is outside [1, 4096]");
  EXPECT_EQ(server.sanitized().max_clients, 1);
  netcode::ClientConfig client;
  client.payload_queue_size = 0;
  EXPECT_STREQ(client.check().reason(), "ClientConfig.payload_queue_size = 0 is outside [1, 4096]");
  EXPECT_EQ(client.sanitized().payload_queue_size, 1);
  UdpSocketConfig socket;
  socket.send_buffer_size = 1 << 30;
  EXPECT_STREQ(socket.check().reason(),
               "UdpSocketConfig.send_buffer_size = 1073741824 is outside [4096, 268435456]");
  EXPECT_EQ(socket.sanitized().send_buffer_size, 1 << 28);
}

TEST(ConfigTable, ReasonShowsComputedBoundAndHowItIsComputed) {
  BinaryCongestionConfig config;
  config.initial_recover_time = 100.0;  // above max_recover_time (60)
  EXPECT_STREQ(config.check().reason(),
               "BinaryCongestionConfig.initial_recover_time = 100 is outside [1, 60] (min: min_recover_time) "
               "(max: max_recover_time)");
  NetworkConditions conditions;
  conditions.bandwidth_kbps = 0.5;
  EXPECT_STREQ(conditions.check().reason(),
               "NetworkConditions.bandwidth_kbps = 0.5 is outside 0 or [1, 1000000000]");
  EXPECT_EQ(conditions.sanitized().bandwidth_kbps, 1.0);
  conditions.bandwidth_kbps = 0.0;  // "0 = unlimited"
  EXPECT_TRUE(conditions.check().ok());
}

// ---- The docs print the code's limits ----

TEST(ConfigTableDocs, PacketsDocPrintsEndpointLimits) {
  // Section 3 only: section 5.1 prints ReassemblerConfig, whose max_fragments and fragment_size share names.
  expect_doc_matches("docs/packets.md", "3. Configuration", kEndpointConfigLimits);
}

TEST(ConfigTableDocs, SimulatorDocPrintsSimulatorLimits) {
  expect_doc_matches("docs/simulator.md", "", kNetworkConditionsLimits);
  expect_doc_matches("docs/simulator.md", "", kNetworkSimulatorConfigLimits);
}

TEST(ConfigTableDocs, BlocksDocPrintsBlockAndChunkLimits) {
  expect_doc_matches("docs/blocks.md", "", kBlockConfigLimits);
  expect_doc_matches("docs/blocks.md", "", kChunkConfigLimits);
}

TEST(ConfigTableDocs, ChannelsDocPrintsChannelAndConnectionLimits) {
  expect_doc_matches("docs/channels.md", "", kChannelConfigLimits);
  expect_doc_matches("docs/channels.md", "", kConnectionConfigLimits);
  // Its own section: max_block_size is also a ChannelConfig field.
  expect_doc_matches("docs/channels.md", "2. Pools and handles", kMessagePoolConfigLimits);
}

TEST(ConfigTableDocs, ClientServerDocPrintsStackLimits) {
  expect_doc_matches("docs/client-server.md", "", kStackConfigLimits);
}

TEST(ConfigTableDocs, TransportDocPrintsSocketAndNetcodeLimits) {
  expect_doc_matches("docs/transport.md", "UdpSocket", kUdpSocketConfigLimits);
  expect_doc_matches("docs/transport.md", "### Server", netcode::kServerConfigLimits);
  expect_doc_matches("docs/transport.md", "### Client", netcode::kClientConfigLimits);
}

TEST(ConfigTableDocs, CongestionDocPrintsCongestionLimits) {
  expect_doc_matches("docs/congestion.md", "", kBinaryCongestionConfigLimits);
}

}  // namespace
}  // namespace bitwire::test
