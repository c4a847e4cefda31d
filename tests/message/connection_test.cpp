// Connection and message layer: what send refuses and why, pools and handles (nothing leaks on reset or
// destruction with messages in flight), config validation, the protocol id fold, and generated types
// from generated/game.hpp plugging in through describe_message without glue.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <span>
#include <string>

#include <vector>

#include "../generated/game.hpp"
#include "bitwire/message/channel.hpp"
#include "bitwire/message/connection.hpp"
#include "bitwire/message/connection_packet.hpp"
#include "support/connection_pair.hpp"
#include "support/test_messages.hpp"

namespace bitwire {
namespace {

using test::Numbered;
using test::Small;

constexpr double kTick = 1.0 / 60.0;

// ---- send refusals ----

TEST(ConnectionSend, RefusesOutOfRangeValueWithReason) {
  Connection connection(MessageFactory(test::kAllTypes), ConnectionConfig{});
  MessageHandle m = connection.create<Numbered>();
  m.as<Numbered>()->level = 101;  // [0, 100]
  const SendStatus status = connection.send(0, std::move(m));
  EXPECT_EQ(status.result, SendResult::kInvalidMessage);
  EXPECT_EQ(status.write_error, WriteError::kValueOutOfRange);
  EXPECT_TRUE(m);  // still the caller's
  EXPECT_EQ(connection.send_queue_depth(0), 0);
  EXPECT_EQ(connection.counters().sends_refused, 1u);
  m.as<Numbered>()->level = 100;
  EXPECT_TRUE(connection.send(0, std::move(m)));
  EXPECT_FALSE(m);
}

TEST(ConnectionSend, RefusesInvalidUtf8) {
  Connection connection(MessageFactory(test::kAllTypes), ConnectionConfig{});
  MessageHandle m = connection.create<Numbered>();
  ASSERT_TRUE(m.as<Numbered>()->label.assign("\xC3\x28"));  // a lead byte without its continuation
  EXPECT_EQ(connection.send(0, std::move(m)).write_error, WriteError::kInvalidUtf8);
}

TEST(ConnectionSend, RefusesAStringWhoseStoredLengthCoversAZeroByte) {
  Connection connection(MessageFactory(test::kAllTypes), ConnectionConfig{});
  MessageHandle m = connection.create<Numbered>();
  // Code that fills the raw storage itself and gives a length that takes in a zero byte.
  auto& label = m.as<Numbered>()->label;
  char* storage = label.storage();
  for (size_t i = 0; i < label.kMaxLength; ++i) storage[i] = 'x';
  storage[3] = '\0';
  label.set_length(label.kMaxLength);
  EXPECT_EQ(connection.send(0, std::move(m)).write_error, WriteError::kInteriorNul);
}

TEST(ConnectionSend, RefusesGeneratedMessagesThatBreakTheirSchema) {
  static constexpr MessageTypeInfo kGame[] = {
      describe_message<game::PlayerInput>("PlayerInput"), describe_message<game::Snapshot>("Snapshot"),
      describe_message<game::Events>("Events"),           describe_message<game::ScoreUpdate>("ScoreUpdate"),
      describe_message<game::Chat>("Chat"),               describe_message<game::LevelLoad>("LevelLoad")};
  Connection connection(MessageFactory(kGame), ConnectionConfig{});

  MessageHandle events = connection.create<game::Events>();
  events.as<game::Events>()->events.clear();  // the schema says [1, 16]
  EXPECT_EQ(connection.send(0, std::move(events)).write_error, WriteError::kInvalidCount);

  MessageHandle input = connection.create<game::PlayerInput>();
  input.as<game::PlayerInput>()->buttons = static_cast<game::InputButtons>(1u << 12);  // 10-bit flags
  EXPECT_EQ(connection.send(0, std::move(input)).write_error, WriteError::kValueTooWide);

  MessageHandle aim = connection.create<game::PlayerInput>();
  aim.as<game::PlayerInput>()->yaw = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(connection.send(0, std::move(aim)).write_error, WriteError::kNotFinite);

  MessageHandle chat = connection.create<game::Chat>();
  chat.as<game::Chat>()->channel = static_cast<game::ChatChannel>(3);
  EXPECT_EQ(connection.send(0, std::move(chat)).write_error, WriteError::kInvalidEnum);

  MessageHandle snapshot = connection.create<game::Snapshot>();
  (void)snapshot.as<game::Snapshot>()->entities.resize(2);
  snapshot.as<game::Snapshot>()->entities[1].health = 101;  // [0, 100] for a Player
  EXPECT_EQ(connection.send(0, std::move(snapshot)).write_error, WriteError::kValueOutOfRange);
  EXPECT_EQ(connection.send_queue_depth(0), 0);
}

TEST(ConnectionSend, RefusesMessageThatCanNeverFitThePacket) {
  ConnectionConfig config;
  config.max_packet_size = 32;  // 256 bits; a Numbered with 64 payload bytes is over 600
  Connection connection(MessageFactory(test::kAllTypes), config);
  MessageHandle m = connection.create<Numbered>();
  for (int i = 0; i < 64; ++i) ASSERT_TRUE(m.as<Numbered>()->payload.push_back(1));
  const SendStatus status = connection.send(0, std::move(m));
  EXPECT_EQ(status.result, SendResult::kTooLarge);
  EXPECT_GT(status.bits, 256u);
  (void)m.as<Numbered>()->payload.resize(4);
  EXPECT_TRUE(connection.send(0, std::move(m)));
}

TEST(ConnectionSend, RefusesWhenTheChannelBudgetCanNeverHoldIt) {
  ConnectionConfig config;
  config.channels[0].packet_budget_bytes = 8;
  Connection connection(MessageFactory(test::kAllTypes), config);
  MessageHandle m = connection.create<Numbered>();
  EXPECT_EQ(connection.send(0, std::move(m)).result, SendResult::kTooLarge);
}

TEST(ConnectionSend, QueueFullRefusesAndLeavesTheMessage) {
  ConnectionConfig config;
  config.channels[0].send_queue_size = 4;
  Connection connection(MessageFactory(test::kAllTypes), config);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(connection.send(0, connection.create<Small>()));
  MessageHandle extra = connection.create<Small>();
  EXPECT_EQ(connection.send(0, std::move(extra)).result, SendResult::kQueueFull);
  EXPECT_TRUE(extra);
  EXPECT_EQ(connection.send_queue_depth(0), 4);
}

TEST(ConnectionSend, UnreliableQueueFull) {
  ConnectionConfig config;
  config.channels[0].type = ChannelType::kUnreliableUnordered;
  config.channels[0].send_queue_size = 2;
  Connection connection(MessageFactory(test::kAllTypes), config);
  ASSERT_TRUE(connection.send(0, connection.create<Small>()));
  ASSERT_TRUE(connection.send(0, connection.create<Small>()));
  EXPECT_EQ(connection.send(0, connection.create<Small>()).result, SendResult::kQueueFull);
}

TEST(ConnectionSend, RefusesEmptyForeignAndMisaddressedMessages) {
  Connection connection(MessageFactory(test::kAllTypes), ConnectionConfig{});
  Connection other(MessageFactory(test::kAllTypes), ConnectionConfig{});
  EXPECT_EQ(connection.send(0, MessageHandle{}).result, SendResult::kEmptyMessage);
  MessageHandle foreign = other.create<Small>();
  EXPECT_EQ(connection.send(0, std::move(foreign)).result, SendResult::kWrongPool);
  EXPECT_EQ(connection.send(1, connection.create<Small>()).result, SendResult::kBadChannel);
  EXPECT_EQ(connection.send(-1, connection.create<Small>()).result, SendResult::kBadChannel);
}

TEST(ConnectionSend, BlockRules) {
  ConnectionConfig config;
  config.channel_count = 3;
  config.channels[0].type = ChannelType::kUnreliableUnordered;
  config.channels[0].max_block_size = 1024;
  config.channels[0].block_fragment_size = 1024;
  config.channels[1].type = ChannelType::kUnreliableUnordered;
  config.channels[1].disable_blocks = true;
  Connection connection(MessageFactory(test::kAllTypes), config);
  EXPECT_EQ(connection.send(0, connection.create<test::WithBlock>()).result, SendResult::kBlockMissing);
  EXPECT_EQ(connection.send(1, connection.create<test::WithBlock>()).result, SendResult::kBlocksDisabled);
  MessageHandle reliable = connection.create<test::WithBlock>();
  ASSERT_TRUE(reliable.attach_block(std::vector<std::byte>(10)));
  EXPECT_EQ(connection.send(2, std::move(reliable)).result, SendResult::kQueued);  // sent as fragments
  // A block larger than the channel's max block size.
  MessageHandle big = connection.create<test::WithBlock>();
  ASSERT_TRUE(big.attach_block(std::vector<std::byte>(2000)));  // the pool's buffers hold 256 KiB
  EXPECT_EQ(connection.send(0, std::move(big)).result, SendResult::kTooLarge);
  // A message type without a block cannot take one.
  MessageHandle small = connection.create<Small>();
  EXPECT_FALSE(small.attach_block(std::vector<std::byte>(10)));
}

// ---- pools and handles ----

TEST(MessagePool, ExhaustionGivesEmptyHandleAndCounts) {
  MessagePool pool(MessageFactory(test::kAllTypes), MessagePoolConfig{2, 0, 1});
  MessageHandle a = pool.create<Small>();
  MessageHandle b = pool.create<Numbered>();
  MessageHandle c = pool.create<Small>();
  EXPECT_TRUE(a);
  EXPECT_TRUE(b);
  EXPECT_FALSE(c);
  EXPECT_EQ(pool.exhausted(), 1u);
  EXPECT_EQ(pool.live(), 2);
  a.reset();
  EXPECT_EQ(pool.live(), 1);
  c = pool.create<Small>();
  EXPECT_TRUE(c);
  EXPECT_FALSE(pool.create(99));  // unknown type
}

TEST(MessagePool, HandlesAreMoveOnlyAndTyped) {
  MessagePool pool(MessageFactory(test::kAllTypes), MessagePoolConfig{4, 0, 1});
  MessageHandle a = pool.create<Numbered>();
  a.as<Numbered>()->serial = 77;
  EXPECT_EQ(a.as<Small>(), nullptr);  // not a Small
  MessageHandle b = std::move(a);
  EXPECT_FALSE(a);
  EXPECT_EQ(b.as<Numbered>()->serial, 77u);
  EXPECT_EQ(b.type(), Numbered::kTypeId);
  EXPECT_STREQ(b.info().name, "Numbered");
  b = pool.create<Small>();  // the Numbered is released by the assignment
  EXPECT_EQ(pool.live(), 1);
  static_assert(!std::is_copy_constructible_v<MessageHandle>);
}

TEST(MessagePool, BlockBuffersAreFixedAndReleased) {
  MessagePool pool(MessageFactory(test::kAllTypes), MessagePoolConfig{8, 1, 100});
  MessageHandle a = pool.create<test::WithBlock>();
  MessageHandle b = pool.create<test::WithBlock>();
  EXPECT_TRUE(a.attach_block(std::vector<std::byte>(100)));
  EXPECT_FALSE(b.attach_block(std::vector<std::byte>(10)));   // the one buffer is taken
  EXPECT_FALSE(a.attach_block(std::vector<std::byte>(101)));  // larger than a buffer
  EXPECT_EQ(pool.blocks_exhausted(), 1u);
  a.reset();
  EXPECT_EQ(pool.blocks_live(), 0);
  EXPECT_TRUE(b.attach_block(std::vector<std::byte>(10)));
}

TEST(MessageFactory, CheckNamesTheProblem) {
  EXPECT_TRUE(MessageFactory(test::kAllTypes).check().ok());
  static constexpr MessageTypeInfo kOutOfOrder[] = {describe_message<test::Tiny>("Tiny")};
  EXPECT_FALSE(MessageFactory(kOutOfOrder).check().ok());
  EXPECT_FALSE(MessageFactory().check().ok());
}

// A message type that counts its live instances (constructed and not yet destroyed).
struct Counted {
  static constexpr uint32_t kTypeId = 0;
  static inline int live = 0;
  uint16_t value = 0;
  Counted() { ++live; }
  Counted(const Counted& other) : value(other.value) { ++live; }
  Counted& operator=(const Counted&) = default;
  ~Counted() { --live; }
  template <typename Stream>
  bool serialize(Stream& stream) {
    return serialize_bits(stream, value, 16);
  }
};
inline constexpr MessageTypeInfo kCountedTypes[] = {describe_message<Counted>("Counted")};

// Every message the connections held -- queued, in flight, received and unread -- is destroyed when the
// connection is reset or destroyed.
TEST(ConnectionLifetime, ResetAndDestructionDestroyEveryMessage) {
  NetworkConditions lossy;
  lossy.loss_percent = 40;
  lossy.latency_ms = 80;
  ConnectionConfig config;
  config.channel_count = 2;
  config.channels[1].type = ChannelType::kUnreliableUnordered;
  {
    test::ConnectionPair pair(MessageFactory(kCountedTypes), config, lossy, 5);
    for (int tick = 0; tick < 40; ++tick) {
      for (int i = 0; i < 12; ++i) {
        ASSERT_TRUE(pair.a.send(0, pair.a.create<Counted>()));
        ASSERT_TRUE(pair.b.send(1, pair.b.create<Counted>()));
        ASSERT_TRUE(pair.b.send(0, pair.b.create<Counted>()));
      }
      pair.tick(tick * kTick);
    }
    ASSERT_GT(Counted::live, 100);
    EXPECT_EQ(Counted::live, pair.a.pool().live() + pair.b.pool().live());
    pair.a.reset();
    EXPECT_EQ(pair.a.pool().live(), 0);
    EXPECT_EQ(Counted::live, pair.b.pool().live());
    ASSERT_GT(pair.b.pool().live(), 0);
  }
  EXPECT_EQ(Counted::live, 0);  // b was destroyed holding queued and received messages
}

// Messages queued, in flight, received and unread: reset and destruction release every one.
TEST(ConnectionLifetime, NothingLeaksOnResetOrDestructionWithMessagesInFlight) {
  NetworkConditions lossy;
  lossy.loss_percent = 50;
  lossy.latency_ms = 100;
  ConnectionConfig config;
  config.channel_count = 2;
  config.channels[1].type = ChannelType::kUnreliableUnordered;
  auto pair = std::make_unique<test::ConnectionPair>(MessageFactory(test::kAllTypes), config, lossy, 3);
  for (int tick = 0; tick < 30; ++tick) {
    for (int i = 0; i < 10; ++i) {
      ASSERT_TRUE(pair->a.send(0, pair->a.create<Numbered>()));
      ASSERT_TRUE(pair->b.send(1, pair->b.create<Small>()));
    }
    pair->tick(tick * kTick);
  }
  EXPECT_GT(pair->a.pool().live(), 0);
  EXPECT_GT(pair->b.pool().live(), 0);  // received and unread, and queued
  pair->a.reset();
  EXPECT_EQ(pair->a.pool().live(), 0);
  EXPECT_EQ(pair->a.send_queue_depth(0), 0);
  // Destroying b with messages queued and received must release them (the pool asserts in debug builds
  // that nothing is live when it goes; under ASan a leak would be reported).
  pair.reset();
}

// ---- config ----

TEST(ConnectionConfigCheck, NamesTheFirstProblem) {
  ConnectionConfig config;
  EXPECT_TRUE(config.check().ok());
  config.channels[0].receive_queue_size = 1000;
  EXPECT_STREQ(config.check().reason(),
               "ConnectionConfig.channels[0]: ChannelConfig.receive_queue_size = 1000 must be a power of two "
               "in [1, 32768]");
  EXPECT_EQ(config.sanitized().channels[0].receive_queue_size, 1024);
  config = ConnectionConfig{};
  config.channels[0].block_fragment_size = 1000;
  EXPECT_STREQ(config.check().reason(),
               "ConnectionConfig.channels[0]: ChannelConfig.max_block_size = 262144 must be a multiple of "
               "1000 (block_fragment_size)");
  EXPECT_EQ(config.sanitized().channels[0].max_block_size % 1000, 0);
  EXPECT_TRUE(config.sanitized().check().ok());
  config = ConnectionConfig{};
  config.channel_count = 0;
  EXPECT_STREQ(config.check().reason(), "ConnectionConfig.channel_count = 0 is outside [1, 64]");
  config = ConnectionConfig{};
  config.channels[0].message_resend_time = -1;
  EXPECT_FALSE(config.check().ok());
  EXPECT_EQ(config.sanitized().channels[0].message_resend_time, 0.0);  // clamped into [0, 3600]
  config.channels[0].message_resend_time = std::nan("");
  EXPECT_FALSE(config.check().ok());
  EXPECT_EQ(config.sanitized().channels[0].message_resend_time, 0.1);  // NaN: the default
}

// A bad config is a failed state with its reason, not an abort (debug builds asserted), and the reason is
// the connection's own copy: a later check of another config does not change it.
// A connection packet larger than the endpoint's raises the endpoint's max_packet_size and with it
// max_fragments (exactly the count the packet needs): 300,000 bytes in 1 KiB fragments is 293 fragments,
// above the endpoint's 256. check() accepted it (it checked the endpoint as given) and the endpoint the
// connection built was refused. Now check() names it and sanitized() lowers the packet.
TEST(ConnectionConfigCheck, APacketTooLargeForTheEndpointsFragmentsIsRefusedAndLowered) {
  ConnectionConfig config;
  config.max_packet_size = 300000;
  ASSERT_FALSE(config.check().ok());
  ASSERT_NE(config.check().reason(), nullptr);
  EXPECT_NE(
      std::string(config.check().reason()).find("ConnectionConfig.endpoint raised to hold max_packet_size"),
      std::string::npos)
      << config.check().reason();
  const ConnectionConfig fitted = config.sanitized();
  EXPECT_TRUE(fitted.check().ok()) << fitted.check().reason();
  EXPECT_LT(fitted.max_packet_size, 300000);
  EXPECT_GE(fitted.max_packet_size, config.endpoint.max_packet_size);
  EXPECT_TRUE(Connection::endpoint_config(fitted).check().ok());
  Connection connection(MessageFactory(test::kAllTypes), fitted);
  EXPECT_EQ(connection.error(), ConnectionError::kNone) << connection.error_reason();
}

TEST(ConnectionConfigCheck, RefusedAtConstructionWithItsOwnReason) {
  ConnectionConfig config;
  config.channels[0].receive_queue_size = 1000;
  Connection connection(MessageFactory(test::kAllTypes), config);
  EXPECT_EQ(connection.error(), ConnectionError::kConfigInvalid);
  ConnectionConfig other;
  other.channel_count = 0;
  ASSERT_FALSE(other.check().ok());  // another reason, elsewhere
  EXPECT_STREQ(connection.error_reason(),
               "ConnectionConfig.channels[0]: ChannelConfig.receive_queue_size = 1000 must be a power of two in "
               "[1, 32768]");
  EXPECT_EQ(connection.config().channels[0].receive_queue_size, 1024) << "the sanitized config runs";
  connection.reset();
  EXPECT_EQ(connection.error(), ConnectionError::kConfigInvalid) << "reset() keeps a config error";
}

// The block transfer fields of a reliable channel are checked by BlockConfig's own table (block.hpp), so
// the channel and its BlockSender / BlockReceiver can never disagree.
TEST(ConnectionConfigCheck, BlockFieldsUseTheBlockConfigTable) {
  ConnectionConfig config;
  config.channels[0].block_max_budget_bytes = 100;  // cannot pay for one 1 KiB fragment + 40
  EXPECT_STREQ(config.check().reason(),
               "ConnectionConfig.channels[0]: BlockConfig.max_budget_bytes = 100 is outside [1064, "
               "1073741824] (min: fragment_size + fragment_overhead_bytes)");
  EXPECT_EQ(config.sanitized().channels[0].block_max_budget_bytes, 1024 + 40);
  EXPECT_TRUE(config.sanitized().check().ok());
  config = ConnectionConfig{};
  config.channels[0].block_bandwidth_bytes_per_second = 0;
  EXPECT_STREQ(config.check().reason(),
               "ConnectionConfig.channels[0]: BlockConfig.bandwidth_bytes_per_second = 0 is outside [1, "
               "1000000000000]");
  config = ConnectionConfig{};
  config.channels[0].max_block_size = 128 * 1024 * 1024;  // above BlockConfig's 64 MiB
  EXPECT_STREQ(config.check().reason(),
               "ConnectionConfig.channels[0]: BlockConfig.max_block_size = 134217728 is outside [1, "
               "67108864] (max: fragment_size * 65536)");
  EXPECT_TRUE(config.sanitized().check().ok());
  config = ConnectionConfig{};
  config.channels[0].max_block_size = 1 << 17;
  config.channels[0].block_fragment_size = 1;  // 131072 fragments: more than 16-bit ids allow
  EXPECT_STREQ(config.check().reason(),
               "ConnectionConfig.channels[0]: BlockConfig.max_block_size = 131072 is outside [1, 65536] "
               "(max: fragment_size * 65536)");
  EXPECT_TRUE(config.sanitized().check().ok());
  // On an unreliable channel (blocks inline) or with blocks disabled, the block transfer fields are unused.
  config = ConnectionConfig{};
  config.channels[0].block_max_budget_bytes = 100;
  config.channels[0].disable_blocks = true;
  EXPECT_TRUE(config.check().ok());
  config.max_packets_per_update = 0;
  EXPECT_STREQ(config.check().reason(), "ConnectionConfig.max_packets_per_update = 0 is outside [1, 256]");
}

// ---- the protocol id fold ----

TEST(ConnectionProtocolId, EveryWireSettingChangesIt) {
  const MessageFactory factory(test::kAllTypes);
  ConnectionConfig base;
  base.protocol_id = 42;
  const uint64_t id = Connection::protocol_id(factory, base);
  std::vector<ConnectionConfig> variants(8, base);
  variants[0].protocol_id = 43;
  variants[1].channel_count = 2;
  variants[2].channels[0].type = ChannelType::kUnreliableUnordered;
  variants[3].channels[0].max_messages_per_packet = 128;
  variants[4].channels[0].max_block_size = 128 * 1024;
  variants[5].channels[0].block_fragment_size = 512;
  variants[6].channels[0].disable_blocks = true;
  variants[7].channels[0].receive_queue_size = 512;
  for (const ConnectionConfig& v : variants) EXPECT_NE(Connection::protocol_id(factory, v), id);
  EXPECT_NE(Connection::protocol_id(MessageFactory(test::kTwoTypes), base), id);
  // Local settings do not change it.
  ConnectionConfig local = base;
  local.channels[0].send_queue_size = 64;
  local.channels[0].message_resend_time = 0.5;
  local.channels[0].priority = 3;
  EXPECT_EQ(Connection::protocol_id(factory, local), id);
}

TEST(ConnectionProtocolId, PeersWithDifferentLayoutsRefuseEveryPacket) {
  ConnectionConfig a_config;
  ConnectionConfig b_config;
  b_config.channels[0].max_messages_per_packet = 64;  // changes the width of numMessages
  Link link(LinkConfig::symmetric(NetworkConditions{}, 1));
  Connection a(MessageFactory(test::kAllTypes), a_config);
  Connection b(MessageFactory(test::kAllTypes), b_config);
  a.endpoint().set_callbacks(link.callbacks(LinkSide::kA, a.endpoint_callbacks()));
  b.endpoint().set_callbacks(link.callbacks(LinkSide::kB, b.endpoint_callbacks()));
  link.connect(a.endpoint(), b.endpoint());
  ASSERT_TRUE(a.send(0, a.create<Small>()));
  for (int tick = 0; tick < 10; ++tick) {
    a.update(tick * kTick);
    b.update(tick * kTick);
    link.update(tick * kTick);
    a.send_packet();
    b.send_packet();
  }
  EXPECT_FALSE(b.receive(0));
  EXPECT_EQ(b.endpoint().counters().envelope_failures, 9u);
  EXPECT_EQ(b.counters().packets_processed, 0u);
  EXPECT_EQ(b.error(), ConnectionError::kNone);  // dropped before parsing: never misread
}

// ---- generated types plug in ----

TEST(ConnectionGenerated, GameMessagesTravelThroughAConnection) {
  static constexpr MessageTypeInfo kGame[] = {
      describe_message<game::PlayerInput>("PlayerInput"), describe_message<game::Snapshot>("Snapshot"),
      describe_message<game::Events>("Events"),           describe_message<game::ScoreUpdate>("ScoreUpdate"),
      describe_message<game::Chat>("Chat"),               describe_message<game::LevelLoad>("LevelLoad")};
  static_assert(kGame[1].max_bits == game::Snapshot::MaxBits);
  ConnectionConfig config;
  config.channel_count = 2;
  config.channels[1].type = ChannelType::kUnreliableUnordered;
  test::ConnectionPair pair(MessageFactory(kGame), config, NetworkConditions{}, 1);

  game::Chat chat;
  chat.sender = 3;
  chat.channel = game::ChatChannel::Whisper;
  chat.recipient = 9;
  chat.text = "rotate \xF0\x9F\x9A\x80";
  MessageHandle m = pair.a.create<game::Chat>();
  *m.as<game::Chat>() = chat;
  ASSERT_TRUE(pair.a.send(0, std::move(m)));

  game::Snapshot snapshot;
  snapshot.tick = 1234;
  (void)snapshot.entities.resize(3);
  snapshot.entities[2].kind = game::EntityKind::Vehicle;
  snapshot.entities[2].fuel = 55;
  MessageHandle s = pair.a.create<game::Snapshot>();
  *s.as<game::Snapshot>() = snapshot;
  ASSERT_TRUE(pair.a.send(1, std::move(s)));

  pair.tick(0.0);
  pair.tick(kTick);
  MessageHandle got_chat = pair.b.receive(0);
  ASSERT_TRUE(got_chat);
  ASSERT_NE(got_chat.as<game::Chat>(), nullptr);
  EXPECT_EQ(*got_chat.as<game::Chat>(), chat);
  MessageHandle got_snapshot = pair.b.receive(1);
  ASSERT_TRUE(got_snapshot);
  EXPECT_EQ(*got_snapshot.as<game::Snapshot>(), snapshot);
}

}  // namespace
}  // namespace bitwire

namespace bitwire {
namespace {

// Property: whatever mix is queued, a packet never exceeds the budget, and a peer reads every packet.
TEST(ConnectionPackets, NeverExceedTheBudgetAndAlwaysReadBack) {
  ConnectionConfig config;
  config.max_packet_size = 200;
  config.channel_count = 3;
  config.channels[1].type = ChannelType::kUnreliableUnordered;
  config.channels[1].max_messages_per_packet = 5;
  config.channels[2].max_messages_per_packet = 3;
  config.channels[2].packet_budget_bytes = 60;
  config.channels[2].priority = 2;
  Connection sender(MessageFactory(test::kAllTypes), config);
  Connection receiver(MessageFactory(test::kAllTypes), config);
  std::vector<std::byte> buffer(512);
  uint32_t state = 12345;
  const auto next = [&state] {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  };
  for (uint16_t sequence = 0; sequence < 2000; ++sequence) {
    for (int k = 0; k < 3; ++k) {
      const int channel = static_cast<int>(next() % 3);
      MessageHandle m = sender.create<Numbered>();
      Numbered& n = *m.as<Numbered>();
      n.serial = next();
      n.level = static_cast<int32_t>(next() % 101);
      const size_t length = next() % 65;
      for (size_t i = 0; i < length; ++i) (void)n.payload.push_back(static_cast<uint8_t>(next()));
      (void)n.label.assign_truncated("label with some length");
      const SendStatus status = sender.send(channel, std::move(m));
      ASSERT_TRUE(status || status.result == SendResult::kQueueFull || status.result == SendResult::kTooLarge)
          << to_string(status.result);
    }
    sender.update(sequence * 0.05);
    const size_t size = sender.generate_packet(sequence, buffer);
    ASSERT_LE(size, 200u);
    ASSERT_TRUE(receiver.process_packet(sequence, std::span<const std::byte>(buffer.data(), size)))
        << to_string(receiver.packet_error());
    if (sequence % 3 == 0) sender.on_packet_acked(sequence);
    for (int c = 0; c < 3; ++c) {
      while (receiver.receive(c)) {
      }
    }
  }
  EXPECT_GT(sender.channel_counters(0).messages_acked, 0u);
  EXPECT_GT(sender.channel_counters(1).messages_dropped, 0u);
  EXPECT_EQ(sender.generate_packet(0, {}), 0u);  // no room at all: nothing written
}

}  // namespace
}  // namespace bitwire

namespace bitwire {
namespace {

// ---- the reliable sender's window ----

// Reads the reliable message ids of channel 0 in one connection packet.
std::vector<int> reliable_ids(const PacketLayout& layout, MessagePool& pool, IncomingPacket& packet,
                              std::span<const std::byte> bytes) {
  std::vector<int> ids;
  EXPECT_EQ(read_connection_packet(layout, pool, bytes, packet), ConnectionPacketError::kNone);
  for (int e = 0; e < packet.entry_count(); ++e) {
    const IncomingPacket::Entry& entry = packet.entry(e);
    for (int m = 0; m < entry.message_count; ++m) ids.push_back(packet.message(entry.first_message + m).id);
  }
  packet.clear();
  return ids;
}

// However much is queued and however long nothing is acked, a packet carries only ids from the oldest
// unacked to oldest unacked + receive_queue_size - 1: the ids the peer's receive window can buffer (an id
// past it would be a connection error at the peer). 600 small messages queued, a window of 64, a packet
// room for 256 of them.
TEST(ConnectionWindow, SenderNeverSendsAnIdTheReceiverCannotBuffer) {
  ConnectionConfig config;
  config.channels[0].receive_queue_size = 64;
  Connection sender(MessageFactory(test::kAllTypes), config);
  for (int i = 0; i < 600; ++i) {
    MessageHandle m = sender.create<Small>();
    m.as<Small>()->value = static_cast<uint8_t>(i);
    ASSERT_TRUE(sender.send(0, std::move(m)));
  }
  const PacketLayout layout{MessageFactory(test::kAllTypes), std::span<const ChannelConfig>(config.channels.data(), 1)};
  MessagePool pool(layout.factory, {});
  IncomingPacket packet(layout);
  std::vector<std::byte> buffer(static_cast<size_t>(config.max_packet_size));
  uint16_t sequence = 0;
  double now = 0.0;
  int oldest_unacked = 0;
  int highest_sent = -1;
  for (int round = 0; round < 12; ++round) {
    // Five packets with nothing acked, each when every unacked message is due again.
    std::vector<uint16_t> sent;
    for (int k = 0; k < 5; ++k) {
      now += 0.2;
      sender.update(now);
      const size_t size = sender.generate_packet(sequence, buffer);
      for (const int id : reliable_ids(layout, pool, packet, std::span<const std::byte>(buffer.data(), size))) {
        EXPECT_GE(id, oldest_unacked) << "round " << round;
        EXPECT_LT(id, oldest_unacked + 64) << "round " << round;
        highest_sent = std::max(highest_sent, id);
      }
      sent.push_back(sequence++);
    }
    // Then every packet of the round is acked: every id sent so far leaves the queue.
    for (const uint16_t s : sent) sender.on_packet_acked(s);
    oldest_unacked = highest_sent + 1;
  }
  EXPECT_EQ(highest_sent, 599);
  EXPECT_EQ(sender.send_queue_depth(0), 0);
  EXPECT_EQ(sender.channel_counters(0).messages_acked, 600u);
}

// A packet build visits only what is due: with every message of the window sent just now (nothing due),
// it visits no message id at all, whether 1,000 or 30,000 messages wait and whatever the window (a walk
// over the window visited receive_queue_size ids); once everything is due again it fills the packet from
// the oldest id. bench/resend_bench.cpp nothingdue counts the instructions under callgrind.
TEST(ConnectionWindow, BuildWithNothingDueVisitsNoMessage) {
  for (const int window : {1024, 32768}) {
    for (const int queued : {1000, 30000}) {
      ConnectionConfig config;
      config.channels[0].send_queue_size = 32768;
      config.channels[0].receive_queue_size = window;
      config.message_pool_size = 33000;
      Connection connection(MessageFactory(test::kAllTypes), config);
      for (int i = 0; i < queued; ++i) ASSERT_TRUE(connection.send(0, connection.create<Small>())) << i;
      auto& channel = static_cast<ReliableOrderedChannel&>(connection.channel(0));
      std::vector<std::byte> buffer(static_cast<size_t>(config.max_packet_size));
      connection.update(0.0);
      const int window_packets = std::min(queued, window) / 256 + 2;  // 256 messages a packet
      uint16_t sequence = 0;
      for (; sequence < window_packets; ++sequence) connection.generate_packet(sequence, buffer);
      const uint64_t sent = channel.counters().messages_sent;
      EXPECT_EQ(sent, static_cast<uint64_t>(std::min(queued, window))) << "the window is sent once";
      connection.generate_packet(sequence++, buffer);
      EXPECT_EQ(channel.last_walk_length(), 0) << window << " window, " << queued << " queued: nothing due";
      EXPECT_EQ(channel.counters().messages_sent, sent);
      // Everything due again: the oldest 256 go, oldest first.
      connection.update(1.0);
      connection.generate_packet(sequence++, buffer);
      EXPECT_EQ(channel.counters().messages_sent, sent + 256);
      EXPECT_EQ(channel.counters().messages_resent, 256u);
      EXPECT_LE(channel.last_walk_length(), std::min(queued, window));
    }
  }
}

}  // namespace
}  // namespace bitwire
