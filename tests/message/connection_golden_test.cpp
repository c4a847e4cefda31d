// Golden vectors of the yojimbo 1.0 connection packet, derived by hand. Each test lists the fields in
// wire order with their values and widths (widths from wire-format.md sections 1 and 3), packs them with
// the tiny reference packer below (LSB first, as section 1 says), checks that against the hex written in
// the test, then checks that the codec writes exactly those bytes and reads them back.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "bitwire/message/connection.hpp"
#include "bitwire/message/connection_packet.hpp"
#include "support/bit_pack.hpp"
#include "support/test_messages.hpp"

namespace bitwire {
namespace {

using test::Blocky;
using test::Small;
using test::Tiny;

using test::as_bytes;
using test::bits;
using test::Field;
using test::pack;
using test::raw;

std::vector<uint8_t> write(const PacketLayout& layout, const std::vector<OutgoingEntry>& entries) {
  std::vector<std::byte> buffer(256);
  const size_t size = write_connection_packet(layout, entries, buffer);
  std::vector<uint8_t> out(size);
  for (size_t i = 0; i < size; ++i) out[i] = static_cast<uint8_t>(buffer[i]);
  return out;
}

ChannelConfig reliable(int max_messages = 256) {
  ChannelConfig c;
  c.max_messages_per_packet = max_messages;
  return c;
}
ChannelConfig unreliable(int max_messages) {
  ChannelConfig c;
  c.type = ChannelType::kUnreliableUnordered;
  c.max_messages_per_packet = max_messages;
  return c;
}

// Three channels (reliable 256, unreliable 4, reliable 256), two message types (type: 1 bit). Channel 0
// carries ids 65535, 0, 2 (a wrap and a gap), channel 1 one unreliable message.
TEST(ConnectionGolden, SeveralChannelsRelativeIdsAcrossWrap) {
  const std::vector<Field> fields = {
      bits(2, 2),                  // numEntries: int(2, 0, 3)
      bits(0, 2),                  // channel 0: int(0, 0, 2)
      bits(0, 1),                  // blockMessage = 0
      bits(1, 1),                  // hasMessages = 1
      bits(2, 8),                  // numMessages: int(3, 1, 256) -> 3 - 1 in 8 bits
      bits(65535, 16),             // first id
      bits(1, 1),                  // 65535 -> 0: lifted to 65536, difference 1: "1"
      bits(0, 1), bits(1, 1), bits(0, 3),  // 0 -> 2: "0", "1", int(2, 2, 6) = 0 in 3 bits
      bits(0, 1), bits(0xA1, 8),   // type Small, value
      bits(1, 1), bits(1, 1),      // type Tiny, flag
      bits(0, 1), bits(0x5C, 8),   // type Small, value
      bits(1, 2),                  // channel 1: int(1, 0, 2)
      bits(0, 1),                  // blockMessage = 0
      bits(1, 1),                  // hasMessages = 1
      bits(0, 2),                  // numMessages: int(1, 1, 4)
      bits(1, 1), bits(0, 1),      // type Tiny, flag = 0 (unreliable: type and body interleaved, no id)
  };
  const std::vector<uint8_t> golden = {0xA2, 0xC0, 0xFF, 0x7F, 0x21, 0x74, 0x5C, 0x49};
  ASSERT_EQ(pack(fields), golden);

  const ChannelConfig channels[] = {reliable(), unreliable(4), reliable()};
  const PacketLayout layout{MessageFactory(test::kTwoTypes), channels};
  MessagePool pool(layout.factory, {});
  MessageHandle a = pool.create<Small>();
  a.as<Small>()->value = 0xA1;
  MessageHandle b = pool.create<Tiny>();
  b.as<Tiny>()->flag = true;
  MessageHandle c = pool.create<Small>();
  c.as<Small>()->value = 0x5C;
  MessageHandle d = pool.create<Tiny>();
  const OutgoingMessage reliable_messages[] = {{65535, &a}, {0, &b}, {2, &c}};
  const OutgoingMessage unreliable_messages[] = {{0, &d}};
  std::vector<OutgoingEntry> entries(2);
  entries[0].channel = 0;
  entries[0].messages = reliable_messages;
  entries[1].channel = 1;
  entries[1].messages = unreliable_messages;
  EXPECT_EQ(write(layout, entries), golden);

  IncomingPacket packet(layout);
  ASSERT_EQ(read_connection_packet(layout, pool, as_bytes(golden), packet), ConnectionPacketError::kNone);
  ASSERT_EQ(packet.entry_count(), 2);
  EXPECT_EQ(packet.entry(0).channel, 0);
  ASSERT_EQ(packet.entry(0).message_count, 3);
  EXPECT_EQ(packet.message(0).id, 65535);
  EXPECT_EQ(packet.message(1).id, 0);
  EXPECT_EQ(packet.message(2).id, 2);
  EXPECT_EQ(packet.message(0).message.as<Small>()->value, 0xA1);
  EXPECT_TRUE(packet.message(1).message.as<Tiny>()->flag);
  EXPECT_EQ(packet.message(2).message.as<Small>()->value, 0x5C);
  EXPECT_EQ(packet.entry(1).channel, 1);
  ASSERT_EQ(packet.entry(1).message_count, 1);
  EXPECT_FALSE(packet.message(3).message.as<Tiny>()->flag);
  packet.clear();
}

// One channel: no channel index at all. Written by a Connection from its queue.
TEST(ConnectionGolden, SingleChannelHasNoChannelIndex) {
  const std::vector<Field> fields = {
      bits(1, 1),       // numEntries: int(1, 0, 1)
      bits(0, 1),       // blockMessage (no channel index: one channel)
      bits(1, 1),       // hasMessages
      bits(0, 8),       // numMessages: int(1, 1, 256)
      bits(0, 16),      // id 0: the connection's first message
      bits(0, 1),       // type Small: int(0, 0, 1)
      bits(0x7F, 8),    // value
  };
  const std::vector<uint8_t> golden = {0x05, 0x00, 0x00, 0xF0, 0x07};
  ASSERT_EQ(pack(fields), golden);

  ConnectionConfig config;
  Connection connection(MessageFactory(test::kTwoTypes), config);
  MessageHandle m = connection.create<Small>();
  m.as<Small>()->value = 0x7F;
  ASSERT_TRUE(connection.send(0, std::move(m)));
  std::vector<std::byte> buffer(64);
  const size_t size = connection.generate_packet(0, buffer);
  std::vector<uint8_t> written(size);
  for (size_t i = 0; i < size; ++i) written[i] = static_cast<uint8_t>(buffer[i]);
  EXPECT_EQ(written, golden);

  Connection peer(MessageFactory(test::kTwoTypes), config);
  ASSERT_TRUE(peer.process_packet(0, as_bytes(golden)));
  MessageHandle received = peer.receive(0);
  ASSERT_TRUE(received);
  EXPECT_EQ(received.as<Small>()->value, 0x7F);
}

// One message type: no type field at all.
TEST(ConnectionGolden, SingleMessageTypeHasNoTypeField) {
  const std::vector<Field> fields = {
      bits(1, 1),      // numEntries
      bits(0, 1),      // blockMessage
      bits(1, 1),      // hasMessages
      bits(1, 8),      // numMessages: int(2, 1, 256)
      bits(10, 16),    // first id
      bits(1, 1),      // 10 -> 11: "1"
      bits(0x11, 8),   // body (no type: one type)
      bits(0x22, 8),   // body
  };
  const std::vector<uint8_t> golden = {0x0D, 0x50, 0x00, 0x18, 0x21, 0x02};
  ASSERT_EQ(pack(fields), golden);

  const ChannelConfig channels[] = {reliable()};
  const PacketLayout layout{MessageFactory(test::kOneType), channels};
  EXPECT_EQ(layout.type_bits(), 0);
  MessagePool pool(layout.factory, {});
  MessageHandle a = pool.create<Small>();
  a.as<Small>()->value = 0x11;
  MessageHandle b = pool.create<Small>();
  b.as<Small>()->value = 0x22;
  const OutgoingMessage messages[] = {{10, &a}, {11, &b}};
  std::vector<OutgoingEntry> entries(1);
  entries[0].messages = messages;
  EXPECT_EQ(write(layout, entries), golden);

  IncomingPacket packet(layout);
  ASSERT_EQ(read_connection_packet(layout, pool, as_bytes(golden), packet), ConnectionPacketError::kNone);
  ASSERT_EQ(packet.entry(0).message_count, 2);
  EXPECT_EQ(packet.message(1).id, 11);
  EXPECT_EQ(packet.message(1).message.as<Small>()->value, 0x22);
  packet.clear();
  EXPECT_EQ(pool.live(), 2);  // only a and b
}

// Block fragments: one reliable channel, max block 8192 in fragments of 1024 (so maxFragmentsPerBlock 8:
// the count takes int(n, 1, 8) = 3 bits), two types (Small, Blocky).
PacketLayout block_layout(const ChannelConfig (&channels)[1]) { return PacketLayout{MessageFactory(test::kBlockTypes), channels}; }

ChannelConfig block_channel() {
  ChannelConfig c;
  c.max_block_size = 8192;
  c.block_fragment_size = 1024;
  return c;
}

TEST(ConnectionGolden, BlockFragmentZeroCarriesTypeAndBody) {
  const std::vector<Field> fields = {
      bits(1, 1),    // numEntries
      bits(1, 1),    // blockMessage = 1
      bits(7, 16),   // message id
      bits(2, 3),    // numFragments: int(3, 1, 8)
      bits(0, 2),    // fragmentId: int(0, 0, 2)
      bits(2, 10),   // fragmentSize: int(3, 1, 1024) -> 10 bits
      raw({0xDE, 0xAD, 0xBE}),  // align (33 bits -> 40), then the bytes
      bits(1, 1),    // type Blocky: int(1, 0, 1)
      bits(0x42, 8), // its body
  };
  const std::vector<uint8_t> golden = {0x1F, 0x00, 0x08, 0x01, 0x00, 0xDE, 0xAD, 0xBE, 0x85, 0x00};
  ASSERT_EQ(pack(fields), golden);

  const ChannelConfig channels[] = {block_channel()};
  const PacketLayout layout = block_layout(channels);
  MessagePool pool(layout.factory, {});
  MessageHandle message = pool.create<Blocky>();
  message.as<Blocky>()->tag = 0x42;
  const std::byte data[] = {std::byte{0xDE}, std::byte{0xAD}, std::byte{0xBE}};
  std::vector<OutgoingEntry> entries(1);
  entries[0].block = true;
  entries[0].fragment = OutgoingFragment{7, 3, 0, data, &message};
  EXPECT_EQ(write(layout, entries), golden);

  IncomingPacket packet(layout);
  ASSERT_EQ(read_connection_packet(layout, pool, as_bytes(golden), packet), ConnectionPacketError::kNone);
  IncomingPacket::Fragment& fragment = packet.entry(0).fragment;
  EXPECT_TRUE(packet.entry(0).block);
  EXPECT_EQ(fragment.message_id, 7);
  EXPECT_EQ(fragment.fragment_count, 3);
  EXPECT_EQ(fragment.fragment_id, 0);
  ASSERT_EQ(fragment.data.size(), 3u);
  EXPECT_EQ(fragment.data[2], std::byte{0xBE});
  ASSERT_TRUE(fragment.message);
  EXPECT_EQ(fragment.message.as<Blocky>()->tag, 0x42);
  packet.clear();
}

TEST(ConnectionGolden, LaterBlockFragmentIsRawPayloadOnly) {
  const std::vector<Field> fields = {
      bits(1, 1),    // numEntries
      bits(1, 1),    // blockMessage = 1
      bits(7, 16),   // message id
      bits(2, 3),    // numFragments: int(3, 1, 8)
      bits(2, 2),    // fragmentId: int(2, 0, 2)
      bits(1, 10),   // fragmentSize: int(2, 1, 1024)
      raw({0x01, 0x02}),  // align, bytes; no type, no body after fragment 0
  };
  const std::vector<uint8_t> golden = {0x1F, 0x00, 0xC8, 0x00, 0x00, 0x01, 0x02};
  ASSERT_EQ(pack(fields), golden);

  const ChannelConfig channels[] = {block_channel()};
  const PacketLayout layout = block_layout(channels);
  MessagePool pool(layout.factory, {});
  const std::byte data[] = {std::byte{0x01}, std::byte{0x02}};
  std::vector<OutgoingEntry> entries(1);
  entries[0].block = true;
  entries[0].fragment = OutgoingFragment{7, 3, 2, data, nullptr};
  EXPECT_EQ(write(layout, entries), golden);

  IncomingPacket packet(layout);
  ASSERT_EQ(read_connection_packet(layout, pool, as_bytes(golden), packet), ConnectionPacketError::kNone);
  const IncomingPacket::Fragment& fragment = packet.entry(0).fragment;
  EXPECT_EQ(fragment.fragment_id, 2);
  EXPECT_EQ(fragment.data.size(), 2u);
  EXPECT_FALSE(fragment.message);
  EXPECT_EQ(pool.live(), 0);
}

// An empty packet is legal: numEntries = 0 (the acks travel in the packet header).
TEST(ConnectionGolden, EmptyPacketIsOneCountField) {
  const ChannelConfig channels[] = {reliable(), unreliable(4), reliable()};
  const PacketLayout layout{MessageFactory(test::kTwoTypes), channels};
  EXPECT_EQ(write(layout, {}), std::vector<uint8_t>{0x00});  // int(0, 0, 3): 2 zero bits
}

}  // namespace
}  // namespace bitwire
