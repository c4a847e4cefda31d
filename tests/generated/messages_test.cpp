// The per-package message layer: MessageType, kMessageTypeBits, message_name, the message factory,
// serialize_message (the type in the fewest bits, then the body; one overload per known type and one for a
// handle of any type) and kMaxMessageBits.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "codec_checks.hpp"
#include "support/seed.hpp"
#include "values.hpp"

namespace {

using namespace bitwire::test::gen;
using bitwire::MessageHandle;
using bitwire::MessagePool;
using bitwire::ReadError;
namespace dc = demo::constructs;

// One package's message layer, as a type the tests below are written against. `Types` lists the messages
// in type-id order (checked below against kTypeId and kMessageTypeCount, so the list cannot drift).
struct Game {
  using Types = std::tuple<game::PlayerInput, game::Snapshot, game::Events, game::ScoreUpdate, game::Chat,
                           game::LevelLoad>;
  using MessageType = game::MessageType;
  static constexpr int kTypeBits = game::kMessageTypeBits;
  static constexpr uint32_t kTypeCount = game::kMessageTypeCount;
  static constexpr size_t kMaxMessageBits = game::kMaxMessageBits;
  static constexpr uint64_t kBudgetBytes = 1200;  // `option budget` in game.net
  static const char* name(MessageType type) { return game::message_name(type); }
  static const bitwire::MessageFactory& factory() { return game::message_factory(); }
  template <typename Stream, typename T>
  static bool serialize(Stream& stream, T& message) {
    return game::serialize_message(stream, message);
  }
  template <typename Stream>
  static bool serialize(Stream& stream, MessagePool& pool, MessageHandle& message) {
    return game::serialize_message(stream, pool, message);
  }
};

struct Constructs {
  using Types = std::tuple<dc::Conditions, dc::Directives, dc::Ping, dc::Everything>;
  using MessageType = dc::MessageType;
  static constexpr int kTypeBits = dc::kMessageTypeBits;
  static constexpr uint32_t kTypeCount = dc::kMessageTypeCount;
  static constexpr size_t kMaxMessageBits = dc::kMaxMessageBits;
  static constexpr uint64_t kBudgetBytes = 4096;
  static const char* name(MessageType type) { return dc::message_name(type); }
  static const bitwire::MessageFactory& factory() { return dc::message_factory(); }
  template <typename Stream, typename T>
  static bool serialize(Stream& stream, T& message) {
    return dc::serialize_message(stream, message);
  }
  template <typename Stream>
  static bool serialize(Stream& stream, MessagePool& pool, MessageHandle& message) {
    return dc::serialize_message(stream, pool, message);
  }
};

template <typename P>
class MessageLayer : public ::testing::Test {};

struct PackageNames {
  template <typename P>
  static std::string GetName(int) {
    return std::is_same_v<P, Game> ? "game" : "constructs";
  }
};

using Packages = ::testing::Types<Game, Constructs>;
TYPED_TEST_SUITE(MessageLayer, Packages, PackageNames);

// Calls f(std::integral_constant<size_t, I>) for every message I of the package.
template <typename P, typename F>
void for_each_message(F&& f) {
  [&]<size_t... I>(std::index_sequence<I...>) {
    (f(std::integral_constant<size_t, I>{}), ...);
  }
  (std::make_index_sequence<std::tuple_size_v<typename P::Types>>{});
}

template <typename P, typename T>
std::vector<std::byte> write_message(T message, size_t& bits) {
  std::vector<std::byte> buffer((P::kMaxMessageBits + 7) / 8 + 8);
  bitwire::WriteStream stream(buffer);
  P::serialize(stream, message);
  stream.flush();
  bits = stream.bits_processed();
  buffer.resize(stream.bytes_processed());
  return buffer;
}

TYPED_TEST(MessageLayer, TypesIdsNamesAndTheFactoryAgree) {
  using P = TypeParam;
  EXPECT_EQ(P::kTypeCount, std::tuple_size_v<typename P::Types>);
  EXPECT_EQ(P::kTypeBits, bitwire::bits_required<int64_t>(0, P::kTypeCount - 1));
  const bitwire::MessageFactory& factory = P::factory();
  ASSERT_TRUE(factory.check().ok());
  ASSERT_EQ(factory.type_count(), static_cast<int>(P::kTypeCount));
  MessagePool pool(factory, bitwire::MessagePoolConfig{2, 0, 1});
  size_t largest = 0;
  for_each_message<P>([&](auto index) {
    using T = std::tuple_element_t<index.value, typename P::Types>;
    EXPECT_EQ(T::kTypeId, index.value);
    EXPECT_EQ(static_cast<size_t>(T::kType), index.value);
    const std::string name = P::name(T::kType);
    EXPECT_EQ(describe(T{}).rfind(name + "{", 0), 0u) << "message_name matches the struct: " << name;
    const bitwire::MessageTypeInfo& info = factory.types()[index.value];
    EXPECT_EQ(info.type_id, index.value);
    EXPECT_EQ(name, info.name);
    EXPECT_EQ(info.size, sizeof(T));
    EXPECT_EQ(info.max_bits, T::MaxBits);
    MessageHandle message = pool.create(static_cast<uint32_t>(index.value));
    ASSERT_NE(message.template as<T>(), nullptr) << name;
    EXPECT_TRUE(*message.template as<T>() == T{});
    largest = T::MaxBits > largest ? T::MaxBits : largest;
    EXPECT_LE(T::MaxBytes, P::kBudgetBytes) << name << " is over the package budget";
  });
  EXPECT_EQ(P::kMaxMessageBits, static_cast<size_t>(P::kTypeBits) + largest);
  // Values past the last type have no name and no factory entry.
  const auto unknown = static_cast<typename P::MessageType>(P::kTypeCount);
  EXPECT_EQ(P::name(unknown), nullptr);
  EXPECT_EQ(factory.find(P::kTypeCount), nullptr);
  EXPECT_FALSE(pool.create(P::kTypeCount));
}

TYPED_TEST(MessageLayer, EveryMessageRoundTripsWithItsTypeFirst) {
  using P = TypeParam;
  BITWIRE_SEEDED_TEST_SEED(0x3e55'0001);
  Draws draws(seed);
  for (int round = 0; round < scaled(300); ++round) {
    for_each_message<P>([&](auto index) {
      using T = std::tuple_element_t<index.value, typename P::Types>;
      const T body = draw<T>(draws, round % 10 == 0 ? Fill::kWorst : Fill::kRandom);
      size_t bits = 0;
      const std::vector<std::byte> bytes = write_message<P>(body, bits);
      ASSERT_LE(bits, P::kMaxMessageBits);
      EXPECT_EQ(bits,
                static_cast<size_t>(P::kTypeBits) + encode(body, static_cast<size_t>(P::kTypeBits)).bits);

      // The type id in the first kMessageTypeBits bits.
      bitwire::ReadStream head(bytes);
      uint64_t type = 0;
      if (P::kTypeBits > 0) {
        ASSERT_TRUE(head.read_bits(type, P::kTypeBits));
      }
      EXPECT_EQ(type, index.value);

      // Read as a message of any type: a handle holding another message becomes this one.
      MessagePool pool(P::factory(), bitwire::MessagePoolConfig{4, 0, 1});
      MessageHandle other = pool.create(static_cast<uint32_t>((index.value + 1) % P::kTypeCount));
      bitwire::ReadStream stream(bytes);
      ASSERT_TRUE(P::serialize(stream, pool, other)) << to_string(stream.error());
      EXPECT_EQ(stream.bits_processed(), bits);
      ASSERT_NE(other.template as<T>(), nullptr);
      EXPECT_TRUE(*other.template as<T>() == body) << describe(body);
      EXPECT_EQ(pool.live(), 1);  // the old message was released

      // Written back through the handle: the same bits.
      size_t again_bits = 0;
      std::vector<std::byte> again_bytes((P::kMaxMessageBits + 7) / 8 + 8);
      {
        bitwire::WriteStream writer(again_bytes);
        ASSERT_TRUE(P::serialize(writer, pool, other));
        writer.flush();
        again_bits = writer.bits_processed();
        again_bytes.resize(writer.bytes_processed());
      }
      EXPECT_EQ(again_bits, bits);
      EXPECT_EQ(again_bytes, bytes);

      // Read into a dirty message of the same type: fully overwritten (unsent sparse elements aside).
      const T dirty = draw<T>(draws, Fill::kScribble);
      T same = dirty;
      bitwire::ReadStream again(bytes);
      ASSERT_TRUE(P::serialize(again, same));
      T expected = body;
      keep_unsent(expected, dirty);
      EXPECT_TRUE(same == expected) << describe(body);

      // Every shorter buffer fails past the end.
      if (round < 3) {
        for (size_t size = 0; size < bytes.size(); ++size) {
          T target;
          bitwire::ReadStream cut(std::span<const std::byte>(bytes.data(), size));
          EXPECT_FALSE(P::serialize(cut, target));
          EXPECT_EQ(cut.error(), ReadError::kPastEnd) << size;
        }
      }
    });
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(GameMessages, UnknownTypesAreRefusedAndLeaveTheMessageAlone) {
  ASSERT_EQ(game::kMessageTypeBits, 3);
  ASSERT_EQ(game::kMessageTypeCount, 6u);
  MessagePool pool(game::message_factory(), bitwire::MessagePoolConfig{2, 0, 1});
  for (uint64_t type : {6u, 7u}) {
    std::byte bytes[16] = {};
    bytes[0] = static_cast<std::byte>(type);
    MessageHandle message = pool.create<game::Chat>();
    ASSERT_TRUE(message.as<game::Chat>()->text.assign("kept"));
    bitwire::ReadStream stream(bytes);
    EXPECT_FALSE(game::serialize_message(stream, pool, message));
    EXPECT_EQ(stream.error(), ReadError::kValueOutOfRange);
    EXPECT_EQ(stream.error_bit(), 0u);
    ASSERT_NE(message.as<game::Chat>(), nullptr);
    EXPECT_EQ(message.as<game::Chat>()->text, "kept");

    game::Chat typed;
    bitwire::ReadStream typed_stream(bytes);
    EXPECT_FALSE(game::serialize_message(typed_stream, typed));
    EXPECT_EQ(typed_stream.error(), ReadError::kValueOutOfRange);
  }
}

TEST(ConstructsMessages, EveryTwoBitTypeIsAMessage) {
  ASSERT_EQ(dc::kMessageTypeBits, 2);
  for (uint32_t type = 0; type < 4; ++type) {
    EXPECT_NE(dc::message_name(static_cast<dc::MessageType>(type)), nullptr) << type;
  }
}

TEST(GameMessages, MessagesMeetTheirOwnBudgets) {
  EXPECT_LE(game::PlayerInput::MaxBytes, 32u);  // `message PlayerInput budget 32`
  EXPECT_LE(dc::Ping::MaxBytes, 8u);            // `message Ping budget 8`
  // A full snapshot of 64 entities in motion fits one UDP payload with its type.
  EXPECT_LE((game::kMaxMessageBits + 7) / 8, 1200u);
}

}  // namespace
