// A message pool built directly from a bad config, and memory caps that depend on more than one config: a
// factory whose largest type makes the slots too big, the stack's per-slot memory.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "bitwire/message/channel.hpp"
#include "bitwire/message/connection.hpp"
#include "bitwire/message/message.hpp"
#include "bitwire/stack/client.hpp"
#include "bitwire/stack/server.hpp"
#include "bitwire/stack/stack_config.hpp"
#include "bitwire/transport/transport.hpp"
#include "support/test_messages.hpp"

namespace bitwire::test {
namespace {

// A message of 1 MiB with its 16-byte pool header (MessagePool::message_bytes): 1,024 of it fill
// kMaxMessageSlotBytes.
struct Huge {
  static constexpr uint32_t kTypeId = 0;
  uint8_t bytes[(1 << 20) - 16] = {};
  template <typename Stream>
  bool serialize(Stream& stream) {
    return serialize_bits(stream, bytes[0], 8);
  }
};

inline constexpr MessageTypeInfo kHugeTypes[] = {describe_message<Huge>("Huge")};

// 65,536 block buffers of 1 GiB (64 TiB) was clamped field by field and allocated: the pool is flagged and
// keeps its block memory within kMaxBlockPoolBytes.
TEST(MessagePoolMemory, DirectlyBuiltPoolWithTooManyBlockBuffersIsFlaggedAndCapped) {
  const MessageFactory factory(kAllTypes);
  MessagePoolConfig config;
  config.capacity = 8;
  config.block_count = 1 << 16;
  config.max_block_size = 1 << 30;
  const MessagePool pool(factory, config);
  ASSERT_NE(pool.error_reason(), nullptr);
  EXPECT_STREQ(pool.error_reason(),
               "MessagePoolConfig.block_count = 65536 is outside [0, 1] (max: 1 GiB / max_block_size)");
  EXPECT_EQ(pool.block_count(), 1);
  EXPECT_EQ(pool.max_block_size(), size_t{1} << 30) << "fewer buffers, never smaller blocks";
  EXPECT_EQ(pool.memory_bytes(), MessagePool::memory_required(factory, config));
  EXPECT_LE(pool.memory_bytes(), kMaxBlockPoolBytes + 8 * 1024);
}

// Every field of a directly built pool is taken through the table: out of range is flagged and clamped.
TEST(MessagePoolMemory, DirectlyBuiltPoolClampsEveryField) {
  const MessageFactory factory(kAllTypes);
  MessagePoolConfig config;
  config.capacity = 0;
  config.block_count = -5;
  config.max_block_size = 0;
  const MessagePool pool(factory, config);
  ASSERT_NE(pool.error_reason(), nullptr);
  EXPECT_STREQ(pool.error_reason(), "MessagePoolConfig.capacity = 0 is outside [1, 16777216]");
  EXPECT_EQ(pool.capacity(), 1);
  EXPECT_EQ(pool.block_count(), 0);
  EXPECT_EQ(pool.max_block_size(), 1u);
  const MessagePool good(factory, MessagePoolConfig{});
  EXPECT_EQ(good.error_reason(), nullptr);
  EXPECT_EQ(good.capacity(), MessagePoolConfig{}.capacity);
}

// 2,048 slots of a 1 MiB type (2 GiB) pass kMaxMessageSlotBytes: check(factory) refuses it, the pool is
// flagged and holds the 1,024 that fit.
TEST(MessagePoolMemory, SlotsAboveTheCapForTheFactoryAreFlagged) {
  const MessageFactory factory(kHugeTypes);
  MessagePoolConfig config;
  config.capacity = 2048;
  EXPECT_TRUE(config.check().ok()) << "the table alone does not know the message size";
  ASSERT_FALSE(config.check(factory).ok());
  EXPECT_NE(std::string(config.check(factory).reason())
                .find("MessagePoolConfig.capacity = 2048: messages of 1048576 to 1048576 bytes"),
            std::string::npos)
      << config.check(factory).reason();
  EXPECT_EQ(config.sanitized(factory).capacity, 1024);
  EXPECT_TRUE(config.sanitized(factory).check(factory).ok());
  const MessagePool pool(factory, config);
  EXPECT_NE(pool.error_reason(), nullptr);
  EXPECT_EQ(pool.capacity(), 1024);
  config.capacity = 1024;
  EXPECT_TRUE(config.check(factory).ok()) << "the largest count that fits";
}

// The connection reports a pool whose slots pass the cap for its factory (the config alone passes).
TEST(MessagePoolMemory, ConnectionReportsPoolSlotsAboveTheCap) {
  ConnectionConfig config;
  config.message_pool_size = 4096;
  ASSERT_TRUE(config.check().ok());
  Connection connection(MessageFactory(kHugeTypes), config);
  EXPECT_EQ(connection.error(), ConnectionError::kConfigInvalid);
  EXPECT_NE(std::string(connection.error_reason()).find("ConnectionConfig.messages: MessagePoolConfig.capacity = 4096"),
            std::string::npos)
      << connection.error_reason();
  EXPECT_EQ(connection.pool().capacity(), 1024);
}

// A client whose connection's message pool passes the cap for its factory (the config alone passes) is
// refused at construction with the connection's reason, not disconnected at its first update.
TEST(MessagePoolMemory, ClientRefusesAConnectionWhosePoolPassesTheCap) {
  StackConfig config;
  config.connection.message_pool_size = 4096;
  ASSERT_TRUE(config.check().ok());
  LoopbackNetwork network(16);
  LoopbackTransport transport(network, Address::ipv4(10, 0, 0, 2, 50000));
  const Client client(config, MessageFactory(kHugeTypes), transport, 0.0);
  EXPECT_FALSE(client.ok());
  ASSERT_NE(client.error_reason(), nullptr);
  EXPECT_NE(
      std::string(client.error_reason()).find("ConnectionConfig.messages: MessagePoolConfig.capacity = 4096"),
      std::string::npos)
      << client.error_reason();
}

// One slot whose pool (2,048 messages of 1 MiB) passes the 1 GiB pool cap while the server's total (2 GiB)
// is under its own cap: check(factory) runs the pool's own check for the factory and refuses it with the
// pool's reason, and so does the server, before it allocates a slot.
TEST(StackMemory, ServerRefusesASlotConnectionWhosePoolPassesTheCap) {
  StackConfig config;
  config.max_clients = 1;
  config.connection.message_pool_size = 2048;
  const MessageFactory factory(kHugeTypes);
  ASSERT_FALSE(config.check(factory).ok());
  EXPECT_NE(std::string(config.check(factory).reason()).find("MessagePoolConfig.capacity = 2048"),
            std::string::npos)
      << config.check(factory).reason();
  LoopbackNetwork network(16);
  const Address address = Address::ipv4(10, 0, 0, 1, 40000);
  LoopbackTransport transport(network, address);
  const Server server(config, factory, netcode::random_key(), transport, address, 0.0);
  EXPECT_FALSE(server.ok());
  ASSERT_NE(server.error_reason(), nullptr);
  EXPECT_NE(std::string(server.error_reason()).find("MessagePoolConfig.capacity = 2048"), std::string::npos)
      << server.error_reason();
}

// A message_pool_bytes below the receive reserve and one more message of the largest type is refused by
// StackConfig::check(factory) with the pool's reason, so the server refuses it before it builds a slot.
TEST(StackMemory, CheckWithTheFactoryRefusesAPoolBudgetBelowTheReceiveReserve) {
  StackConfig config;
  config.max_clients = 4;
  config.connection.message_pool_bytes = 4096;  // the default reserve is 256 messages
  const MessageFactory factory(kAllTypes);
  ASSERT_TRUE(config.check().ok()) << "the table alone does not know the message sizes";
  const ConfigCheck refused = config.check(factory);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(std::string(refused.reason()).find("receive reserve"), std::string::npos) << refused.reason();
  EXPECT_NE(std::string(refused.reason()).find("ConnectionConfig.messages"), std::string::npos)
      << refused.reason();
}

// ConnectionConfig's pool part is checked through MessagePoolConfig's table, its reason prefixed.
TEST(MessagePoolMemory, ConnectionConfigNamesItsPoolPart) {
  ConnectionConfig config;
  config.channels[0].type = ChannelType::kUnreliableUnordered;
  config.channels[0].max_block_size = 1 << 30;  // 4 default buffers of 1 GiB
  EXPECT_STREQ(config.check().reason(),
               "ConnectionConfig.messages: MessagePoolConfig.block_count = 4 is outside [0, 1] (max: 1 GiB / "
               "max_block_size)");
  const ConnectionConfig fitted = config.sanitized();
  EXPECT_EQ(fitted.block_pool_size, 1);
  EXPECT_TRUE(fitted.check().ok());
  EXPECT_TRUE(fitted.message_pool_config(true).check().ok());
}

// Connection::memory_required(factory, config) is what a connection built from them reports, for a range
// of layouts (blocks on and off, both channel kinds, many channels, an endpoint the connection enlarges).
TEST(StackMemory, ConnectionMemoryRequiredIsWhatItAllocates) {
  std::vector<ConnectionConfig> configs(5);
  configs[1].channel_count = 2;
  configs[1].channels[1].type = ChannelType::kUnreliableUnordered;
  configs[1].channels[1].max_block_size = 4096;
  configs[1].block_pool_size = 3;
  configs[2].channel_count = 64;
  for (ChannelConfig& channel : configs[2].channels) {
    channel.send_queue_size = 8;
    channel.receive_queue_size = 8;
    channel.sent_packets_buffer_size = 7;  // rounded up by the sequence buffer
    channel.sent_message_ids = 300;
    channel.max_messages_per_packet = 5;
    channel.disable_blocks = true;
  }
  configs[3].max_packet_size = 8000;  // above the endpoint's max_packet_size: the connection raises it
  configs[3].message_pool_size = 5000;
  configs[4].channels[0].block_fragment_size = 1000;
  configs[4].channels[0].max_block_size = 250000;
  for (const MessageFactory& factory : {MessageFactory(kAllTypes), MessageFactory(kTwoTypes)}) {
    for (size_t i = 0; i < configs.size(); ++i) {
      SCOPED_TRACE("config " + std::to_string(i) + (factory.any_block_type() ? ", block types" : ""));
      ASSERT_TRUE(configs[i].check().ok()) << configs[i].check().reason();
      const Connection connection(factory, configs[i]);
      ASSERT_EQ(connection.error(), ConnectionError::kNone) << connection.error_reason();
      EXPECT_EQ(Connection::memory_required(factory, configs[i]), connection.memory_bytes());
    }
  }
}

// A server slot is its connection and its netcode slot; the figures docs/client-server.md prints come from
// this test (run: build/release/tests/config_memory_test --gtest_filter=StackMemory.DefaultSlotBytes).
TEST(StackMemory, DefaultSlotBytes) {
  const MessageFactory factory(kAllTypes);  // 4 types, one carrying a block
  struct Case {
    const char* name;
    StackConfig config;
  };
  std::vector<Case> cases = {{"default StackConfig (each slot owning its block buffers)", StackConfig{}}};
  StackConfig shared;
  shared.block_buffers = 0;
  cases.push_back({"a shared arena (block_buffers = 0)", shared});
  StackConfig most = shared;
  most.max_clients = 4096;
  cases.push_back({"4096 slots sharing an arena", most});
  StackConfig no_blocks;
  no_blocks.connection.channels[0].disable_blocks = true;
  cases.push_back({"blocks disabled", no_blocks});
  StackConfig small;
  small.connection.channels[0].send_queue_size = 256;
  small.connection.channels[0].receive_queue_size = 256;
  small.connection.channels[0].sent_message_ids = 4096;
  small.connection.channels[0].disable_blocks = true;
  small.connection.endpoint.reassembly_slots = 4;
  cases.push_back({"256-message queues, no blocks, 4 reassembly slots", small});
  for (const Case& c : cases) {
    ASSERT_TRUE(c.config.check(factory).ok()) << c.name << ": " << c.config.check(factory).reason();
    const StackConfig stacked = c.config.sanitized(factory);
    ConnectionConfig run = stacked.connection;  // as the server builds it: on the shared arena if declared
    BlockArena arena(stack_block_buffers(c.config, factory),
                     static_cast<size_t>(run.message_pool_config(true).max_block_size));
    Connection connection(factory, run, {}, 0.0, arena.buffer_count() > 0 ? &arena : nullptr);
    netcode::ServerConfig server;  // as the server builds it: the settings, the stack's slot count
    static_cast<netcode::ServerSettings&>(server) = stacked.server;
    server.max_clients = stacked.max_clients;
    const size_t netcode_slot = netcode::Server::memory_per_slot(server);
    const size_t slot = stack_slot_memory(c.config, factory);
    EXPECT_EQ(slot, connection.memory_bytes() + netcode_slot) << c.name;
    EXPECT_GE(slot, stack_slot_memory(c.config)) << "without a factory: a lower bound";
    EXPECT_EQ(arena.memory_bytes(), stack_block_arena_memory(c.config, factory)) << c.name;
    std::printf(
        "%s: %zu bytes per slot (connection %zu of which message pool %zu, endpoint as built %zu; netcode "
        "%zu); shared block buffers %d, %zu bytes\n",
        c.name, slot, connection.memory_bytes(), connection.pool().memory_bytes(),
        connection.endpoint().memory_bytes(), netcode_slot, arena.buffer_count(), arena.memory_bytes());
  }
}

// The goal: with the default StackConfig and a factory with a block type, each slot owning all its
// buffers (no shared arena), a slot is at most 1,000,000 bytes (decimal MB) everything counted, and 4,096
// slots pass the server's check. Its block buffers: one of the pool's own for what the application sends,
// and the reliable channel's reassembly buffer, lent to a received block (no second buffer, no copy).
// Prints the slot field by field (docs/client-server.md section 2).
TEST(StackMemory, TheDefaultSlotWithBlocksOwnsItsBuffersInAMegabyte) {
  const MessageFactory factory(kAllTypes);
  const StackConfig config;
  ASSERT_EQ(config.block_buffers, -1) << "no shared arena";
  EXPECT_EQ(stack_block_arena_memory(config, factory), 0u);
  const size_t slot = stack_slot_memory(config, factory);
  EXPECT_LE(slot, 1'000'000u);
  StackConfig most = config;
  most.max_clients = 4096;
  EXPECT_TRUE(most.check(factory).ok()) << most.check(factory).reason();
  EXPECT_EQ(most.sanitized(factory).max_clients, 4096);
  EXPECT_LE(4096 * stack_slot_memory(most, factory), kMaxStackServerMemoryBytes);

  LoopbackNetwork network(16);
  const Address address = Address::ipv4(10, 0, 0, 1, 40000);
  LoopbackTransport transport(network, address);
  const Server server(config, factory, netcode::random_key(), transport, address, 0.0);
  ASSERT_TRUE(server.ok()) << server.error_reason();
  EXPECT_EQ(server.block_arena(), nullptr);
  // The Server's figure adds the Slot object (its congestion controller) and its two event records.
  EXPECT_GE(server.memory_per_slot(), slot);
  EXPECT_LE(server.memory_per_slot(), 1'000'000u);
  const Connection& connection = server.connection(0);
  const MessagePool& pool = connection.pool();
  EXPECT_EQ(pool.shared_blocks(), nullptr);
  EXPECT_EQ(pool.block_count(), 1) << "one buffer of its own for outgoing blocks";
  EXPECT_EQ(pool.block_receive_reserve(), 0) << "received blocks take no pool buffer";
  const auto& channel = static_cast<const ReliableOrderedChannel&>(connection.channel(0));
  ASSERT_NE(channel.block_receiver(), nullptr);
  const size_t buffers = static_cast<size_t>(pool.block_count()) * (pool.max_block_size() + sizeof(int32_t));
  EXPECT_EQ(Connection::lending_channels(factory, config.connection), 1);
  const size_t receiver = sizeof(BlockReceiver) + channel.block_receiver()->memory_bytes();
  const size_t sender = sizeof(BlockSender) + channel.block_sender()->memory_bytes();
  const size_t endpoint = connection.endpoint().memory_bytes();
  const size_t netcode_slot = slot - connection.memory_bytes();
  const size_t rest = connection.memory_bytes() - pool.memory_bytes() - channel.memory_bytes() - endpoint;
  std::printf(
      "default slot, kAllTypes: %zu bytes = message pool %zu (%d message slots and 1 lender %zu, %d block "
      "buffer %zu) + "
      "reliable channel %zu (block receiver %zu, block sender %zu, queues, records and ids %zu) + endpoint "
      "%zu "
      "+ incoming packet and packet buffer %zu + netcode slot %zu; 4096 slots: %zu bytes; "
      "Server::memory_per_slot() %zu\n",
      slot, pool.memory_bytes(), pool.capacity(), pool.memory_bytes() - buffers, pool.block_count(), buffers,
      channel.memory_bytes(), receiver, sender, channel.memory_bytes() - receiver - sender, endpoint, rest,
      netcode_slot, 4096 * slot, server.memory_per_slot());
}

// By default each slot owns its block buffers, so no peer can hold a buffer another slot needs (a shared
// arena can be held by peers the game sends blocks to, for as long as they keep acking: StackConfig::
// block_buffers). block_buffers = 0 shares one arena of a buffer per slot and one slot's block_pool_size
// more, at most 512 MiB of buffers (kDefaultBlockArenaBytes): a slot with a block-carrying type is then at
// most 1,000,000 bytes (decimal MB), and 4,096 such slots with their 2,048 buffers fit the server's 4 GiB
// with at most 1,000,000 bytes a slot even with its share of the arena counted in.
TEST(StackMemory, DefaultSlotsOwnTheirBuffersAndZeroSizesASharedArena) {
  const MessageFactory factory(kAllTypes);  // one type carries a block
  {
    const StackConfig defaults;
    EXPECT_EQ(defaults.block_buffers, -1);
    EXPECT_EQ(stack_block_buffers(defaults, factory), 0);
    EXPECT_EQ(stack_block_arena_memory(defaults, factory), 0u);
  }
  StackConfig config;
  config.block_buffers = 0;
  constexpr size_t kBuffer = 256 * 1024 + sizeof(int32_t);
  EXPECT_EQ(stack_block_buffers(config, factory), 68) << "64 slots: one each, and one slot's 4";
  EXPECT_EQ(stack_block_arena_memory(config, factory), 68 * kBuffer);
  EXPECT_LE(stack_slot_memory(config, factory), 1'000'000u);
  LoopbackNetwork network(16);
  const Address address = Address::ipv4(10, 0, 0, 1, 40000);
  LoopbackTransport transport(network, address);
  const Server server(config, factory, netcode::random_key(), transport, address, 0.0);
  ASSERT_TRUE(server.ok()) << server.error_reason();
  ASSERT_NE(server.block_arena(), nullptr);
  EXPECT_EQ(server.block_arena()->buffer_count(), 68);
  EXPECT_LE(server.memory_per_slot(), 1'000'000u);
  EXPECT_GE(server.memory_bytes(), 64 * server.memory_per_slot() + server.block_arena()->memory_bytes());

  StackConfig most;
  most.block_buffers = 0;
  most.max_clients = 4096;
  EXPECT_TRUE(most.check(factory).ok()) << most.check(factory).reason();
  EXPECT_EQ(most.sanitized(factory).max_clients, 4096);
  EXPECT_EQ(stack_block_buffers(most, factory), 2048) << "512 MiB of buffers at most";
  EXPECT_LE(4096 * stack_slot_memory(most, factory) + stack_block_arena_memory(most, factory),
            kMaxStackServerMemoryBytes);
  EXPECT_LE(stack_slot_memory(most, factory) + stack_block_arena_memory(most, factory) / 4096, 1'000'000u)
      << "with its share of the arena";
  StackConfig one;
  one.block_buffers = 0;
  one.max_clients = 1;
  EXPECT_EQ(stack_block_buffers(one, factory), 5);
  StackConfig big_blocks;  // 16 MiB blocks: the 512 MiB cap holds 32 of them
  big_blocks.block_buffers = 0;
  big_blocks.connection.channels[0].max_block_size = 16 << 20;
  EXPECT_EQ(stack_block_buffers(big_blocks, factory), 32);

  const StackConfig own;  // the default
  EXPECT_EQ(stack_block_buffers(own, factory), 0);
  EXPECT_EQ(stack_block_arena_memory(own, factory), 0u);
  EXPECT_EQ(stack_slot_memory(own, factory),
            stack_slot_memory(config, factory) + kBuffer + MessagePool::lender_bytes(1))
      << "a slot counts its own block buffer of 256 KiB and the pool's entry for the channel lending it "
         "received "
         "blocks (the channel's reassembly buffer an arena slot holds too)";
  const Server owning(own, factory, netcode::random_key(), transport, address, 0.0);
  ASSERT_TRUE(owning.ok()) << owning.error_reason();
  EXPECT_EQ(owning.block_arena(), nullptr);
}

// A declared count is the arena's size; fewer than one slot's block_pool_size is raised to it.
TEST(StackMemory, DeclaredBlockBuffersSizeTheArena) {
  const MessageFactory factory(kAllTypes);
  StackConfig config;
  config.block_buffers = 200;
  EXPECT_EQ(stack_block_buffers(config, factory), 200);
  config.block_buffers = 2;
  EXPECT_EQ(stack_block_buffers(config, factory), 4);
  config.connection.channels[0].disable_blocks = true;
  EXPECT_EQ(stack_block_buffers(config, factory), 0);
  EXPECT_EQ(stack_block_arena_memory(config, factory), 0u);
  config.block_buffers = 70000;
  EXPECT_FALSE(config.check(factory).ok());
  // 8,192 buffers of 256 KiB are 2 GiB: refused with the reason, lowered to 4,096 by sanitized().
  StackConfig big;
  big.block_buffers = 8192;
  EXPECT_STREQ(
      big.check(factory).reason(),
      "StackConfig.block_buffers = 8192: buffers of 262144 bytes pass the 1024 MiB cap (kMaxBlockPoolBytes)");
  EXPECT_EQ(big.sanitized(factory).block_buffers, 4096);
  EXPECT_TRUE(big.sanitized(factory).check(factory).ok());
}

// Connection packets of at most 1200 bytes are sent whole by both ends, so the stack sizes the endpoint's
// packet and reassembly buffers to that packet: the endpoint's 16 KiB default and its 32 reassembly slots
// (512 KiB of a 540 KiB endpoint) made the default slot without block types 1,085,677 bytes, and 4,096 of
// them did not fit the server's 4 GiB (sanitized to 3,956 slots).
TEST(StackMemory, WholePacketsSizeTheEndpointAndTheDefaultFits4096Slots) {
  const MessageFactory factory(kTwoTypes);  // no block types
  ASSERT_FALSE(factory.any_block_type());
  StackConfig config;
  config.max_clients = 4096;
  EXPECT_TRUE(config.check(factory).ok()) << config.check(factory).reason();
  EXPECT_EQ(config.sanitized(factory).max_clients, 4096);
  EXPECT_LE(stack_slot_memory(config, factory), kMaxStackServerMemoryBytes / 4096);

  const ConnectionConfig run = config.sanitized(factory).connection;
  EXPECT_EQ(run.endpoint.max_packet_size, run.max_packet_size);
  EXPECT_EQ(run.endpoint.reassembly_slots, 1);
  EXPECT_TRUE(run.endpoint.check().ok()) << run.endpoint.check().reason();
  EXPECT_LT(Endpoint::memory_required(Connection::endpoint_config(run)), 32u * 1024);
  EXPECT_EQ(stack_protocol_id(factory, config), stack_protocol_id(factory, config.sanitized(factory)))
      << "the endpoint is not in the protocol id";

  // Packets larger than netcode's payload are the endpoint's to fragment: its buffers are left as asked.
  StackConfig large;
  large.connection.max_packet_size = 8 * 1024;
  const EndpointConfig endpoint = large.sanitized(factory).connection.endpoint;
  EXPECT_EQ(endpoint.reassembly_slots, EndpointConfig{}.reassembly_slots);
  EXPECT_EQ(endpoint.max_packet_size, EndpointConfig{}.max_packet_size);
}

// A 1 MiB message type and 1,024 pool slots: each server slot holds 1 GiB of message pool, which the cap
// did not count (endpoint + netcode only), so 8 slots (8 GiB) were accepted. check(factory) refuses it
// with a reason, sanitized(factory) lowers max_clients, and the Server refuses the config.
TEST(StackMemory, MessagePoolsAloneAboveTheCapAreRefused) {
  const MessageFactory factory(kHugeTypes);
  StackConfig config;
  config.max_clients = 8;
  config.connection.message_pool_size = 1024;
  EXPECT_TRUE(config.check().ok()) << "without the factory the slots are small";
  const size_t slot = stack_slot_memory(config, factory);
  EXPECT_GT(slot, kMaxMessageSlotBytes) << "the pool alone is 1 GiB";
  ASSERT_FALSE(config.check(factory).ok());
  EXPECT_NE(std::string(config.check(factory).reason())
                .find("StackConfig.max_clients = 8: 8 slots of " + std::to_string(slot) +
                      " bytes (connection: message pool"),
            std::string::npos)
      << config.check(factory).reason();
  EXPECT_NE(std::string(config.check(factory).reason()).find("4096 MiB cap"), std::string::npos)
      << config.check(factory).reason();
  std::printf("%s\n", config.check(factory).reason());  // the reason docs/client-server.md quotes
  const StackConfig fitted = config.sanitized(factory);
  EXPECT_EQ(fitted.max_clients, 3);
  EXPECT_TRUE(fitted.check(factory).ok());
  EXPECT_EQ(fitted.connection.message_pool_size, 1024) << "fewer slots, never smaller ones";

  LoopbackNetwork network(16);
  const Address address = Address::ipv4(10, 0, 0, 1, 40000);
  LoopbackTransport transport(network, address);
  const Server server(config, factory, netcode::random_key(), transport, address, 0.0);
  EXPECT_FALSE(server.ok());
  EXPECT_NE(std::string(server.error_reason()).find("StackConfig.max_clients = 8"), std::string::npos)
      << server.error_reason();
}

// 64 reliable channels at their largest legal fields: 16 Mi message ids each (64 MiB), 64 MiB blocks in
// 65,536 fragments, the largest queues. Every field passes its table, and the connection asked for more
// than 8 GiB of channel state alone: check() accepted it and a Client built it.
ConnectionConfig largest_channels() {
  ConnectionConfig config;
  config.channel_count = kMaxChannels;
  for (ChannelConfig& c : config.channels) {
    c.type = ChannelType::kReliableOrdered;
    c.send_queue_size = 65536;
    c.receive_queue_size = 32768;
    c.sent_packets_buffer_size = 32768;
    c.sent_message_ids = 1 << 24;
    c.block_fragment_size = 1024;
    c.max_block_size = 64 << 20;
  }
  return config;
}

TEST(ConnectionMemory, ChannelsAboveTheCapAreRefusedAndLowered) {
  const ConnectionConfig config = largest_channels();
  for (const ChannelConfig& c : config.channels) ASSERT_TRUE(c.check().ok()) << c.check().reason();
  EXPECT_GT(config.channels_memory(), kMaxConnectionChannelBytes);
  ASSERT_FALSE(config.check().ok());
  EXPECT_NE(std::string(config.check().reason()).find("ConnectionConfig.channels: 64 channels need"),
            std::string::npos)
      << config.check().reason();
  std::printf("%s\n", config.check().reason());
  const ConnectionConfig fitted = config.sanitized();
  EXPECT_TRUE(fitted.check().ok()) << fitted.check().reason();
  EXPECT_LE(fitted.channels_memory(), kMaxConnectionChannelBytes);
  EXPECT_EQ(fitted.channel_count, kMaxChannels) << "never fewer channels: the layout is the wire's";
  EXPECT_EQ(fitted.sanitized().channels_memory(), fitted.channels_memory()) << "sanitized() is idempotent";

  // 1 MiB blocks: the message id rings (64 x 64 MiB) are what is too large, and they give way first.
  ConnectionConfig ids = config;
  for (ChannelConfig& c : ids.channels) c.max_block_size = 1 << 20;
  ASSERT_FALSE(ids.check().ok());
  const ConnectionConfig fitted_ids = ids.sanitized();
  EXPECT_TRUE(fitted_ids.check().ok()) << fitted_ids.check().reason();
  EXPECT_EQ(fitted_ids.channels[0].max_block_size, 1 << 20) << "the local fields give way first";
  EXPECT_LT(fitted_ids.channels[0].sent_message_ids, 1 << 24);

  // Local fields at their smallest still leave 64 x 64 MiB of block receivers: the blocks come down next.
  ConnectionConfig blocks_only = config;
  for (ChannelConfig& c : blocks_only.channels) {
    c.send_queue_size = c.receive_queue_size = 1;
    c.sent_packets_buffer_size = 2;
    c.sent_message_ids = c.max_messages_per_packet;
  }
  ASSERT_FALSE(blocks_only.check().ok());
  const ConnectionConfig fitted_blocks = blocks_only.sanitized();
  EXPECT_TRUE(fitted_blocks.check().ok()) << fitted_blocks.check().reason();
  EXPECT_LT(fitted_blocks.channels[0].max_block_size, 64 << 20);
  EXPECT_EQ(fitted_blocks.channels[0].max_block_size % fitted_blocks.channels[0].block_fragment_size, 0);
  // Both ends sanitize the same config the same way: the layout (and so the protocol id) agrees.
  EXPECT_EQ(Connection::protocol_id(MessageFactory(kAllTypes), blocks_only),
            Connection::protocol_id(MessageFactory(kAllTypes), fitted_blocks));
}

// 16 channels of 64 MiB blocks pass the cap by their block state alone: sanitized() lowers the largest
// contributor (one channel's blocks) and leaves every queue as the game asked. Halving every channel's
// queues to their minimums first left channels that hold one message, and still lowered a block.
TEST(ConnectionMemory, BlocksOverTheCapLowerTheBlocksNotTheQueues) {
  ConnectionConfig config;
  config.channel_count = 16;
  for (ChannelConfig& c : config.channels) c.max_block_size = 64 << 20;
  ASSERT_FALSE(config.check().ok());
  const ConnectionConfig fitted = config.sanitized();
  EXPECT_TRUE(fitted.check().ok()) << fitted.check().reason();
  const ChannelConfig defaults;
  int lowered = 0;
  for (int i = 0; i < 16; ++i) {
    const ChannelConfig& c = fitted.channels[static_cast<size_t>(i)];
    EXPECT_EQ(c.send_queue_size, defaults.send_queue_size) << i;
    EXPECT_EQ(c.receive_queue_size, defaults.receive_queue_size) << i;
    EXPECT_EQ(c.sent_packets_buffer_size, defaults.sent_packets_buffer_size) << i;
    EXPECT_EQ(c.sent_message_ids, defaults.sent_message_ids) << i;
    lowered += c.max_block_size < (64 << 20) ? 1 : 0;
  }
  EXPECT_EQ(lowered, 1) << "one 32 MiB halving closes the gap";
}

// The default config is far below the cap (and unchanged by it).
TEST(ConnectionMemory, TheDefaultConfigIsUnchanged) {
  const ConnectionConfig config;
  EXPECT_LT(config.channels_memory(), kMaxConnectionChannelBytes / 64);
  const ConnectionConfig fitted = config.sanitized();
  EXPECT_EQ(fitted.channels[0].sent_message_ids, config.channels[0].sent_message_ids);
  EXPECT_EQ(fitted.channels[0].send_queue_size, config.channels[0].send_queue_size);
}

// One server slot above the server's 4 GiB could not be repaired: sanitized() only lowers max_clients, to 1,
// and check(sanitized(c)) still failed. With the connection's own caps one slot always fits.
TEST(StackMemory, ASingleSlotAboveTheServerCapIsSanitizedIntoRange) {
  StackConfig config;
  config.max_clients = 1;
  config.connection = largest_channels();
  ASSERT_FALSE(config.check().ok());
  const StackConfig fitted = config.sanitized();
  EXPECT_TRUE(fitted.check().ok()) << fitted.check().reason();
  EXPECT_EQ(fitted.max_clients, 1);
  EXPECT_LT(stack_slot_memory(fitted), kMaxStackServerMemoryBytes);
}

}  // namespace
}  // namespace bitwire::test
