// The message factory idlc emits per package (message_factory()): a table indexed by type id that
// bitwire::Connection and bitwire::MessagePool take directly, with no hand-written adapter; the
// serialize_message overloads that replace the old variant API; and sparse enums refused at send.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <vector>

#include "bitwire/message/connection.hpp"
#include "constructs.hpp"
#include "game.hpp"
#include "many.hpp"
#include "support/connection_pair.hpp"

namespace {

using bitwire::MessageHandle;
using bitwire::MessagePool;
using bitwire::MessagePoolConfig;
namespace dc = demo::constructs;

// Constant-time dispatch: entry i of the table is type id i, so find(id) is one bounds check and one index.
TEST(GeneratedFactory, TableIsIndexedByTypeId) {
  const bitwire::MessageFactory& factory = game::message_factory();
  EXPECT_TRUE(factory.check().ok());
  ASSERT_EQ(factory.type_count(), static_cast<int>(game::kMessageTypeCount));
  for (std::uint32_t id = 0; id < game::kMessageTypeCount; ++id) {
    const bitwire::MessageTypeInfo* info = factory.find(id);
    ASSERT_NE(info, nullptr);
    EXPECT_EQ(info, &factory.types()[id]);
    EXPECT_EQ(info->type_id, id);
    EXPECT_STREQ(info->name, game::message_name(static_cast<game::MessageType>(id)));
  }
  EXPECT_EQ(factory.find(game::kMessageTypeCount), nullptr);
  EXPECT_EQ(factory.find(game::Chat::kTypeId)->size, sizeof(game::Chat));
  EXPECT_EQ(factory.find(game::Snapshot::kTypeId)->max_bits, game::Snapshot::MaxBits);
  // The same table wherever it is asked for (one static per package).
  EXPECT_EQ(&game::message_factory(), &factory);
  EXPECT_EQ(dc::message_factory().type_count(), static_cast<int>(dc::kMessageTypeCount));
}

TEST(GeneratedFactory, PoolCreatesEachTypeById) {
  MessagePool pool(game::message_factory(), MessagePoolConfig{4, 0, 1});
  MessageHandle chat = pool.create(game::Chat::kTypeId);
  ASSERT_TRUE(chat);
  EXPECT_NE(chat.as<game::Chat>(), nullptr);
  EXPECT_EQ(chat.as<game::Snapshot>(), nullptr);
  MessageHandle input = pool.create<game::PlayerInput>();
  ASSERT_TRUE(input);
  EXPECT_EQ(input.type(), game::PlayerInput::kTypeId);
  EXPECT_FALSE(pool.create(game::kMessageTypeCount));
}

// A generated package through a pair of Connections built on the emitted factory.
TEST(GeneratedFactory, ConnectionPairDeliversGeneratedMessages) {
  bitwire::test::ConnectionPair pair(game::message_factory(), bitwire::ConnectionConfig{},
                                     bitwire::NetworkConditions{}, 7);
  MessageHandle chat = pair.a.create<game::Chat>();
  game::Chat* chat_body = chat.as<game::Chat>();
  ASSERT_NE(chat_body, nullptr);
  chat_body->sender = 12;
  chat_body->channel = game::ChatChannel::Whisper;
  chat_body->recipient = 40;
  ASSERT_TRUE(chat_body->text.assign("hello"));
  const game::Chat sent_chat = *chat_body;
  ASSERT_EQ(pair.a.send(0, std::move(chat)).result, bitwire::SendResult::kQueued);

  MessageHandle snapshot = pair.a.create<game::Snapshot>();
  snapshot.as<game::Snapshot>()->tick = 1234;
  const game::Snapshot sent_snapshot = *snapshot.as<game::Snapshot>();
  ASSERT_EQ(pair.a.send(0, std::move(snapshot)).result, bitwire::SendResult::kQueued);

  std::vector<MessageHandle> received;
  for (int tick = 1; tick <= 30 && received.size() < 2; ++tick) {
    pair.tick(tick / 60.0);
    while (MessageHandle m = pair.b.receive(0)) received.push_back(std::move(m));
  }
  ASSERT_EQ(received.size(), 2u);
  ASSERT_NE(received[0].as<game::Chat>(), nullptr);
  EXPECT_EQ(*received[0].as<game::Chat>(), sent_chat)
      << game::to_string(*received[0].as<game::Chat>()) << " vs " << game::to_string(sent_chat);
  ASSERT_NE(received[1].as<game::Snapshot>(), nullptr);
  EXPECT_EQ(*received[1].as<game::Snapshot>(), sent_snapshot);
}

// A factory spread over several source files (idlc_generate's default of 16 files: many.net's 80 messages
// fill three of them, 26, 27 and 27 messages): one table, every entry complete, and every message, from
// each file's share, written, measured, validated and read back through its entry points.
TEST(GeneratedFactory, FactorySpreadOverSourceFilesServesEveryMessage) {
  const bitwire::MessageFactory& factory = many::message_factory();
  ASSERT_TRUE(factory.check().ok());
  ASSERT_EQ(factory.type_count(), 80);
  MessagePool pool(factory, MessagePoolConfig{2, 0, 1});
  for (std::uint32_t id = 0; id < many::kMessageTypeCount; ++id) {
    SCOPED_TRACE(factory.types()[id].name);
    MessageHandle out = pool.create(id);
    ASSERT_TRUE(out);
    std::array<std::byte, (many::kMaxMessageBits + 7) / 8 + 8> buffer{};
    bitwire::WriteStream writer(buffer);
    ASSERT_TRUE(many::serialize_message(writer, pool, out));
    writer.flush();
    bitwire::MeasureStream measure;
    ASSERT_TRUE(many::serialize_message(measure, pool, out));
    EXPECT_GE(measure.bits_processed(), writer.bits_processed());
    bitwire::ValidateStream validate;
    EXPECT_TRUE(many::serialize_message(validate, pool, out));
    MessageHandle in;
    bitwire::ReadStream reader(std::span<const std::byte>(buffer.data(), writer.bytes_processed()));
    ASSERT_TRUE(many::serialize_message(reader, pool, in));
    EXPECT_EQ(in.type(), id);
  }
  // Values survive the round trip, and validation refuses an out-of-range one, in the first, a middle
  // and the last share.
  auto round_trip = [&](auto message, std::uint16_t value) {
    using Message = decltype(message);
    MessageHandle out = pool.create<Message>();
    out.as<Message>()->value = value;
    std::array<std::byte, (many::kMaxMessageBits + 7) / 8 + 8> buffer{};
    bitwire::WriteStream writer(buffer);
    EXPECT_TRUE(many::serialize_message(writer, pool, out));
    writer.flush();
    MessageHandle in;
    bitwire::ReadStream reader(std::span<const std::byte>(buffer.data(), writer.bytes_processed()));
    EXPECT_TRUE(many::serialize_message(reader, pool, in));
    EXPECT_TRUE(in.as<Message>() != nullptr && in.as<Message>()->value == value) << in.type();
    out.as<Message>()->value = 5000;
    bitwire::ValidateStream validate;
    EXPECT_FALSE(many::serialize_message(validate, pool, out));
  };
  round_trip(many::M00{}, 1000);
  round_trip(many::M40{}, 777);
  round_trip(many::M79{}, 1079);
}

// ---- serialize_message outside a connection ----

TEST(GeneratedSerializeMessage, KnownTypeRoundTripsAndRefusesAnotherType) {
  game::Chat chat;
  chat.sender = 5;
  ASSERT_TRUE(chat.text.assign("gg"));
  std::array<std::byte, (game::kMaxMessageBits + 7) / 8 + 8> buffer{};
  bitwire::WriteStream writer(buffer);
  ASSERT_TRUE(game::serialize_message(writer, chat));
  writer.flush();

  game::Chat back;
  bitwire::ReadStream reader(std::span<const std::byte>(buffer.data(), writer.bytes_processed()));
  ASSERT_TRUE(game::serialize_message(reader, back));
  EXPECT_EQ(back, chat);

  game::Snapshot other;
  bitwire::ReadStream wrong(std::span<const std::byte>(buffer.data(), writer.bytes_processed()));
  EXPECT_FALSE(game::serialize_message(wrong, other));
  EXPECT_EQ(wrong.error(), bitwire::ReadError::kInvalidEnum);
}

TEST(GeneratedSerializeMessage, AnyTypeThroughHandlesAndThePool) {
  MessagePool pool(game::message_factory(), MessagePoolConfig{4, 0, 1});
  MessageHandle out = pool.create<game::ScoreUpdate>();
  ASSERT_TRUE(out);
  const game::ScoreUpdate original = *out.as<game::ScoreUpdate>();
  std::array<std::byte, (game::kMaxMessageBits + 7) / 8 + 8> buffer{};
  bitwire::WriteStream writer(buffer);
  ASSERT_TRUE(game::serialize_message(writer, pool, out));
  writer.flush();
  bitwire::MeasureStream measure;
  ASSERT_TRUE(game::serialize_message(measure, pool, out));
  EXPECT_EQ((measure.bits_processed() + 7) / 8, writer.bytes_processed());

  MessageHandle in;
  bitwire::ReadStream reader(std::span<const std::byte>(buffer.data(), writer.bytes_processed()));
  ASSERT_TRUE(game::serialize_message(reader, pool, in));
  ASSERT_NE(in.as<game::ScoreUpdate>(), nullptr);
  EXPECT_EQ(*in.as<game::ScoreUpdate>(), original);

  // An exhausted pool is a clear refusal, not a crash.
  MessagePool tiny(game::message_factory(), MessagePoolConfig{1, 0, 1});
  MessageHandle hold = tiny.create<game::Chat>();
  MessageHandle none;
  bitwire::ReadStream again(std::span<const std::byte>(buffer.data(), writer.bytes_processed()));
  EXPECT_FALSE(game::serialize_message(again, tiny, none));
  EXPECT_EQ(again.error(), bitwire::ReadError::kInvalidData);
  EXPECT_FALSE(none);
}

// ---- sparse enums: a value in a gap is refused at send, not by the peer ----

TEST(GeneratedSparseEnum, ValidateRefusesGapValue) {
  dc::Conditions message;
  message.mode = static_cast<dc::Mode>(5);  // Mode is 0, 1, 10, 11: 5 is in the range but not a member
  EXPECT_EQ(bitwire::validate_object(message).error, bitwire::WriteError::kInvalidEnum);
  message.mode = dc::Mode::Run;
  EXPECT_TRUE(bitwire::validate_object(message));
}

TEST(GeneratedSparseEnum, ConnectionSendRefusesGapValue) {
  bitwire::Connection connection(dc::message_factory(), bitwire::ConnectionConfig{});
  MessageHandle message = connection.create<dc::Conditions>();
  message.as<dc::Conditions>()->mode = static_cast<dc::Mode>(9);
  const bitwire::SendStatus status = connection.send(0, std::move(message));
  EXPECT_EQ(status.result, bitwire::SendResult::kInvalidMessage);
  EXPECT_EQ(status.write_error, bitwire::WriteError::kInvalidEnum);
}

}  // namespace
