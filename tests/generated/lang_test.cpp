// Language features end to end through generated code (tests/generated/lang/lang.net): a message declared
// `message X block { ... }` goes through a Connection pair with its block byte-exact; wire constants and
// reserved bits against hand-packed bytes, and refused on read with their reasons.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "bitwire/message/connection.hpp"
#include "lang.hpp"
#include "support/bit_pack.hpp"
#include "support/connection_pair.hpp"

namespace {

using bitwire::MessageHandle;

static_assert(lang::LevelData::kHasBlock, "`message LevelData block` carries a block");
template <typename T>
concept DeclaresBlock = requires { T::kHasBlock; };
static_assert(!DeclaresBlock<lang::Ready>, "an ordinary message declares nothing about blocks");

std::vector<std::byte> pattern(std::size_t size) {
  std::vector<std::byte> bytes(size);
  std::uint32_t x = 0x1234567u;
  for (std::byte& b : bytes) {
    x = x * 1664525u + 1013904223u;
    b = static_cast<std::byte>(x >> 24);
  }
  return bytes;
}

TEST(LangBlock, FactoryMarksOnlyTheBlockMessage) {
  const bitwire::MessageFactory& factory = lang::message_factory();
  EXPECT_TRUE(factory.find(lang::LevelData::kTypeId)->has_block);
  EXPECT_FALSE(factory.find(lang::Ready::kTypeId)->has_block);
  EXPECT_TRUE(factory.any_block_type());
}

// A 40,000-byte block (40 fragments at the default 1 KiB) and the message behind it, both ways in order.
TEST(LangBlock, BlockMessageCrossesAConnectionPairByteExact) {
  bitwire::test::ConnectionPair pair(lang::message_factory(), bitwire::ConnectionConfig{},
                                     bitwire::NetworkConditions{}, 11);
  const std::vector<std::byte> level = pattern(40000);
  MessageHandle data = pair.a.create<lang::LevelData>();
  ASSERT_TRUE(data);
  data.as<lang::LevelData>()->level_id = 0xC0FFEEu;
  data.as<lang::LevelData>()->version = 999;
  ASSERT_TRUE(data.attach_block(level));
  const lang::LevelData sent = *data.as<lang::LevelData>();
  ASSERT_EQ(pair.a.send(0, std::move(data)).result, bitwire::SendResult::kQueued);
  MessageHandle ready = pair.a.create<lang::Ready>();
  ready.as<lang::Ready>()->tick = 77;
  ASSERT_EQ(pair.a.send(0, std::move(ready)).result, bitwire::SendResult::kQueued);

  std::vector<MessageHandle> received;
  for (int tick = 1; tick <= 600 && received.size() < 2; ++tick) {
    pair.tick(tick / 60.0);
    while (MessageHandle m = pair.b.receive(0)) received.push_back(std::move(m));
  }
  ASSERT_EQ(received.size(), 2u);
  ASSERT_NE(received[0].as<lang::LevelData>(), nullptr);
  EXPECT_EQ(*received[0].as<lang::LevelData>(), sent);
  ASSERT_EQ(received[0].block().size(), level.size());
  EXPECT_TRUE(std::equal(level.begin(), level.end(), received[0].block().begin()));
  ASSERT_NE(received[1].as<lang::Ready>(), nullptr);
  EXPECT_EQ(received[1].as<lang::Ready>()->tick, 77u);
  EXPECT_EQ(pair.a.channel_counters(0).blocks_sent, 1u);
  EXPECT_EQ(pair.b.channel_counters(0).blocks_received, 1u);
}

// The runtime refuses a block on a message type that does not declare one.
TEST(LangBlock, OrdinaryMessageTakesNoBlock) {
  bitwire::MessagePool pool(lang::message_factory(), bitwire::MessagePoolConfig{2, 1, 1024});
  MessageHandle ready = pool.create<lang::Ready>();
  ASSERT_TRUE(ready);
  const std::vector<std::byte> bytes = pattern(16);
  EXPECT_FALSE(ready.attach_block(bytes));
  MessageHandle data = pool.create<lang::LevelData>();
  EXPECT_TRUE(data.attach_block(bytes));
}

// ---- wire constants and reserved bits ----

using bitwire::test::bits;
using bitwire::test::pack;

std::vector<std::uint8_t> write_header(const lang::Header& header) {
  std::vector<std::byte> buffer(lang::Header::MaxBytes + 8);
  bitwire::WriteStream stream(buffer);
  EXPECT_TRUE(header.serialize(stream));
  stream.flush();
  std::vector<std::uint8_t> out(stream.bytes_processed());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<std::uint8_t>(buffer[i]);
  return out;
}

bitwire::ReadStream reader_of(const std::vector<std::uint8_t>& bytes) {
  return bitwire::ReadStream(std::span<const std::byte>(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()));
}

static_assert(sizeof(lang::Header) == 4, "constants and reserved bits are stored nowhere");
static_assert(lang::Header::MaxBits == 8 + 4 + 3 + 1 + 16 + 16, "constants and reserved bits count in MaxBits");

// Hand-packed: 0xB1 in 8 bits, version in 4, three zero bits, compressed, then 0x5A5A and the size.
TEST(LangWireConstant, WrittenAsDeclaredAndReadBack) {
  lang::Header header;
  header.version = 5;
  header.compressed = true;
  header.original_size = 0x1234;
  const std::vector<std::uint8_t> expected =
      pack({bits(0xB1, 8), bits(5, 4), bits(0, 3), bits(1, 1), bits(0x5A5A, 16), bits(0x1234, 16)});
  EXPECT_EQ(write_header(header), expected);
  bitwire::MeasureStream measure;
  ASSERT_TRUE(header.serialize(measure));
  EXPECT_EQ(measure.bits_processed(), 48u);

  lang::Header read;
  bitwire::ReadStream stream = reader_of(expected);
  ASSERT_TRUE(read.serialize(stream));
  EXPECT_EQ(read, header);

  lang::Header plain;
  plain.version = 15;
  EXPECT_EQ(write_header(plain), pack({bits(0xB1, 8), bits(15, 4), bits(0, 3), bits(0, 1)}));
}

TEST(LangWireConstant, ReadRefusesAnotherMagicValueAtItsFirstBit) {
  for (std::uint64_t wrong : {0xB0u, 0x31u, 0x00u, 0xFFu}) {
    const std::vector<std::uint8_t> bytes = pack({bits(wrong, 8), bits(5, 4), bits(0, 3), bits(0, 1)});
    lang::Header read;
    bitwire::ReadStream stream = reader_of(bytes);
    EXPECT_FALSE(read.serialize(stream)) << wrong;
    EXPECT_EQ(stream.error(), bitwire::ReadError::kConstantMismatch) << wrong;
    EXPECT_EQ(stream.error_bit(), 0u);
  }
}

TEST(LangWireConstant, ReadRefusesTheConstantUnderAnIf) {
  const std::vector<std::uint8_t> bytes =
      pack({bits(0xB1, 8), bits(5, 4), bits(0, 3), bits(1, 1), bits(0x5A5B, 16), bits(0x1234, 16)});
  lang::Header read;
  bitwire::ReadStream stream = reader_of(bytes);
  EXPECT_FALSE(read.serialize(stream));
  EXPECT_EQ(stream.error(), bitwire::ReadError::kConstantMismatch);
  EXPECT_EQ(stream.error_bit(), 16u);
}

TEST(LangReservedBits, ReadRefusesEveryNonZeroPattern) {
  for (std::uint64_t pattern_bits = 1; pattern_bits < 8; ++pattern_bits) {
    const std::vector<std::uint8_t> bytes = pack({bits(0xB1, 8), bits(5, 4), bits(pattern_bits, 3), bits(0, 1)});
    lang::Header read;
    bitwire::ReadStream stream = reader_of(bytes);
    EXPECT_FALSE(read.serialize(stream)) << pattern_bits;
    EXPECT_EQ(stream.error(), bitwire::ReadError::kNonZeroReserved) << pattern_bits;
    EXPECT_EQ(stream.error_bit(), 12u);
  }
  EXPECT_STREQ(bitwire::to_string(bitwire::ReadError::kNonZeroReserved), "reserved bits are not zero");
}

// A validating stream (what Connection::send runs) accepts any header: constants and reserved bits come
// from the schema, never from the object.
TEST(LangWireConstant, ValidateAcceptsEveryHeader) {
  lang::Header header;
  header.version = 9;
  EXPECT_TRUE(static_cast<bool>(bitwire::validate_object(header)));
}

// ---- contextual keywords ----

template <typename T>
T round_trip(const T& value) {
  std::vector<std::byte> buffer(T::MaxBytes + 8);
  bitwire::WriteStream writer(buffer);
  EXPECT_TRUE(value.serialize(writer));
  writer.flush();
  T read;
  bitwire::ReadStream reader(std::span<const std::byte>(buffer.data(), writer.bytes_processed()));
  EXPECT_TRUE(read.serialize(reader));
  return read;
}

static_assert(lang::budget::kHasBlock, "message budget block budget 16");
static_assert(std::is_same_v<decltype(lang::budget::flags), lang::option>);
static_assert(std::is_same_v<decltype(lang::budget::package), lang::message>);
static_assert(std::is_same_v<decltype(lang::budget::check), lang::reserved>);

// Every name here is a keyword of the language somewhere else (lang.net's last declarations).
TEST(LangKeywords, NamesSpeltLikeKeywordsRoundTrip) {
  lang::budget value;
  EXPECT_EQ(value.flags, lang::option::message) << "the default names an enumerator called message";
  value.package = lang::message::align | lang::message::package;
  value.check.block = true;
  value.align = 1;
  value.sparse = {2, 3};
  value.res = 4;
  value.frac = 5;
  value.block = 6;
  EXPECT_EQ(round_trip(value), value);
  value.flags = lang::option::frac;  // the if is not taken: block reads back as its initial value
  lang::budget read = round_trip(value);
  EXPECT_EQ(read.block, 0);
  read.block = 6;
  EXPECT_EQ(read, value);
  EXPECT_STREQ(lang::to_string(lang::option::reserved), "reserved");
  EXPECT_EQ(lang::frac_count, 2);
}

// Enumerators at 2^63 and 2^64 - 1 cross the wire exactly, as does a value of the headroom range that has
// no enumerator (a newer peer's).
TEST(LangWideEnum, ValuesPast2To63RoundTrip) {
  static_assert(std::is_same_v<std::underlying_type_t<lang::wide>, std::uint64_t>);
  static_assert(static_cast<std::uint64_t>(lang::wide::top) == 18446744073709551615ull);
  static_assert(static_cast<std::uint64_t>(lang::wide::half) == 9223372036854775808ull);
  lang::wide_values value;
  EXPECT_EQ(value.first, lang::wide::top);
  value.second = lang::wide::half;
  value.room = static_cast<lang::wide_room>(18446744073709551615ull);
  EXPECT_EQ(round_trip(value), value);
  value.first = lang::wide::half;
  value.extra = 7;
  EXPECT_EQ(round_trip(value), value);
  EXPECT_EQ(lang::wide_values::MaxBits, 64u + 64u + 64u + 8u);
  EXPECT_STREQ(lang::to_string(lang::wide::top), "top");
}

}  // namespace
