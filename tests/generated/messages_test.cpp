// The per-package message layer: MessageType, kMessageTypeBits, the Message variant, create_message,
// message_name, serialize_message (the type in the fewest bits, then the body) and kMaxMessageBits.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "codec_checks.hpp"
#include "support/seed.hpp"
#include "values.hpp"

namespace {

using namespace bitwire::test::gen;
using bitwire::ReadError;
namespace dc = demo::constructs;

// One package's message layer, as a type the tests below are written against.
struct Game {
  using Message = game::Message;
  using MessageType = game::MessageType;
  static constexpr int kTypeBits = game::kMessageTypeBits;
  static constexpr uint32_t kTypeCount = game::kMessageTypeCount;
  static constexpr size_t kMaxMessageBits = game::kMaxMessageBits;
  static constexpr uint64_t kBudgetBytes = 1200;  // `option budget` in game.net
  static bool create(MessageType type, Message& message) { return game::create_message(type, message); }
  static const char* name(MessageType type) { return game::message_name(type); }
  template <typename Stream>
  static bool serialize(Stream& stream, Message& message) {
    return game::serialize_message(stream, message);
  }
};

struct Constructs {
  using Message = dc::Message;
  using MessageType = dc::MessageType;
  static constexpr int kTypeBits = dc::kMessageTypeBits;
  static constexpr uint32_t kTypeCount = dc::kMessageTypeCount;
  static constexpr size_t kMaxMessageBits = dc::kMaxMessageBits;
  static constexpr uint64_t kBudgetBytes = 4096;
  static bool create(MessageType type, Message& message) { return dc::create_message(type, message); }
  static const char* name(MessageType type) { return dc::message_name(type); }
  template <typename Stream>
  static bool serialize(Stream& stream, Message& message) {
    return dc::serialize_message(stream, message);
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

// Calls f(std::integral_constant<size_t, I>) for every alternative I of the package's Message.
template <typename P, typename F>
void for_each_message(F&& f) {
  [&]<size_t... I>(std::index_sequence<I...>) {
    (f(std::integral_constant<size_t, I>{}), ...);
  }
  (std::make_index_sequence<std::variant_size_v<typename P::Message>>{});
}

template <typename P>
std::vector<std::byte> write_message(typename P::Message message, size_t& bits) {
  std::vector<std::byte> buffer((P::kMaxMessageBits + 7) / 8 + 8);
  bitwire::WriteStream stream(buffer);
  P::serialize(stream, message);
  stream.flush();
  bits = stream.bits_processed();
  buffer.resize(stream.bytes_processed());
  return buffer;
}

TYPED_TEST(MessageLayer, TypesIdsNamesAndTheVariantAgree) {
  using P = TypeParam;
  EXPECT_EQ(P::kTypeCount, std::variant_size_v<typename P::Message>);
  EXPECT_EQ(P::kTypeBits, bitwire::bits_required<int64_t>(0, P::kTypeCount - 1));
  size_t largest = 0;
  for_each_message<P>([&](auto index) {
    using T = std::variant_alternative_t<index.value, typename P::Message>;
    EXPECT_EQ(T::kTypeId, index.value);
    EXPECT_EQ(static_cast<size_t>(T::kType), index.value);
    const std::string name = P::name(T::kType);
    EXPECT_EQ(describe(T{}).rfind(name + "{", 0), 0u) << "message_name matches the struct: " << name;
    typename P::Message message;  // holds another message first (the last for 0, else the first)
    ASSERT_TRUE(
        P::create(static_cast<typename P::MessageType>(index.value == 0 ? P::kTypeCount - 1 : 0), message));
    ASSERT_TRUE(P::create(T::kType, message));
    EXPECT_EQ(message.index(), index.value);
    EXPECT_TRUE(std::get<T>(message) == T{});
    largest = T::MaxBits > largest ? T::MaxBits : largest;
    EXPECT_LE(T::MaxBytes, P::kBudgetBytes) << name << " is over the package budget";
  });
  EXPECT_EQ(P::kMaxMessageBits, static_cast<size_t>(P::kTypeBits) + largest);
  // Values past the last type have no name and no message.
  const auto unknown = static_cast<typename P::MessageType>(P::kTypeCount);
  EXPECT_EQ(P::name(unknown), nullptr);
  typename P::Message message;
  EXPECT_FALSE(P::create(unknown, message));
  EXPECT_EQ(message.index(), 0u);
}

TYPED_TEST(MessageLayer, EveryMessageRoundTripsWithItsTypeFirst) {
  using P = TypeParam;
  BITWIRE_SEEDED_TEST_SEED(0x3e55'0001);
  Draws draws(seed);
  for (int round = 0; round < scaled(300); ++round) {
    for_each_message<P>([&](auto index) {
      using T = std::variant_alternative_t<index.value, typename P::Message>;
      const T body = draw<T>(draws, round % 10 == 0 ? Fill::kWorst : Fill::kRandom);
      size_t bits = 0;
      const std::vector<std::byte> bytes = write_message<P>(typename P::Message(body), bits);
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

      // Read into a variant holding another message: it becomes this one.
      typename P::Message other;
      const size_t other_index = (index.value + 1) % P::kTypeCount;
      P::create(static_cast<typename P::MessageType>(other_index), other);
      bitwire::ReadStream stream(bytes);
      ASSERT_TRUE(P::serialize(stream, other)) << to_string(stream.error());
      EXPECT_EQ(stream.bits_processed(), bits);
      ASSERT_EQ(other.index(), index.value);
      EXPECT_TRUE(std::get<T>(other) == body) << describe(body);

      // Read into a dirty message of the same type: fully overwritten (unsent sparse elements aside).
      const T dirty = draw<T>(draws, Fill::kScribble);
      typename P::Message same(dirty);
      bitwire::ReadStream again(bytes);
      ASSERT_TRUE(P::serialize(again, same));
      T expected = body;
      keep_unsent(expected, dirty);
      EXPECT_TRUE(std::get<T>(same) == expected) << describe(body);

      // Every shorter buffer fails past the end.
      if (round < 3) {
        for (size_t size = 0; size < bytes.size(); ++size) {
          typename P::Message target;
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
  for (uint64_t type : {6u, 7u}) {
    std::byte bytes[16] = {};
    bytes[0] = static_cast<std::byte>(type);
    game::Message message = game::Chat{};
    std::get<game::Chat>(message).text = "kept";
    bitwire::ReadStream stream(bytes);
    EXPECT_FALSE(game::serialize_message(stream, message));
    EXPECT_EQ(stream.error(), ReadError::kValueOutOfRange);
    EXPECT_EQ(stream.error_bit(), 0u);
    ASSERT_EQ(message.index(), static_cast<size_t>(game::MessageType::Chat));
    EXPECT_EQ(std::get<game::Chat>(message).text, "kept");
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
