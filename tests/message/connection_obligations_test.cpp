// Every receiver obligation of the connection packet (yojimbo 1.0 STANDARD.md, "Receiver Obligations";
// wire-format.md section 3), one test each, plus the ones bitwire adds. Each hostile packet is written
// field by field (support/bit_pack.hpp) and handed to a Connection's process_packet, which must refuse it
// whole: the named error, the sticky connection error, nothing delivered, nothing left in the pool.
#include <gtest/gtest.h>

#include <initializer_list>
#include <memory>
#include <vector>

#include "bitwire/message/connection.hpp"
#include "support/bit_pack.hpp"
#include "support/test_messages.hpp"

namespace bitwire {
namespace {

using test::bits;
using test::raw;

inline constexpr MessageTypeInfo kThreeTypes[] = {describe_message<test::Small>("Small"),
                                                  describe_message<test::Tiny>("Tiny"),
                                                  describe_message<test::Numbered>("Numbered")};

ChannelConfig reliable(int max_messages = 256) {
  ChannelConfig c;
  c.max_messages_per_packet = max_messages;
  return c;
}
ChannelConfig with_blocks(int max_block, int fragment) {
  ChannelConfig c;
  c.max_block_size = max_block;
  c.block_fragment_size = fragment;
  return c;
}

struct Receiver {
  std::unique_ptr<Connection> connection;

  Receiver(std::span<const MessageTypeInfo> types, std::initializer_list<ChannelConfig> channels) {
    ConnectionConfig config;
    config.channel_count = static_cast<int>(channels.size());
    int i = 0;
    for (const ChannelConfig& c : channels) config.channels[static_cast<size_t>(i++)] = c;
    connection = std::make_unique<Connection>(MessageFactory(types), config);
  }

  // Processes the packet; returns whether it was accepted.
  bool process(const std::vector<test::Field>& fields) {
    return connection->process_packet(0, test::as_bytes(test::pack(fields)));
  }

  // The packet was refused for `expected`, the connection is in its error state, nothing was delivered
  // and no message is left in the pool.
  void expect_refused(ConnectionPacketError expected) {
    EXPECT_EQ(connection->packet_error(), expected) << to_string(connection->packet_error());
    EXPECT_EQ(connection->error(), ConnectionError::kPacketInvalid);
    EXPECT_STREQ(connection->error_reason(), to_string(expected));
    for (int c = 0; c < connection->channel_count(); ++c) EXPECT_FALSE(connection->receive(c));
    EXPECT_EQ(connection->pool().live(), 0);
    EXPECT_EQ(connection->counters().packets_invalid, 1u);
  }
};

// ---- The published obligations ----

TEST(ConnectionObligations, RejectsMoreEntriesThanChannels) {
  Receiver r(test::kTwoTypes, {reliable(), reliable()});
  EXPECT_FALSE(r.process({bits(3, 2)}));  // numEntries: int(3, 0, 2)
  r.expect_refused(ConnectionPacketError::kTooManyEntries);
}

TEST(ConnectionObligations, RejectsChannelIndexOutOfRange) {
  Receiver r(test::kTwoTypes, {reliable(), reliable(), reliable()});
  EXPECT_FALSE(r.process({bits(1, 2), bits(3, 2)}));  // one entry, channel index 3 of [0, 2]
  r.expect_refused(ConnectionPacketError::kChannelIndexOutOfRange);
}

TEST(ConnectionObligations, RejectsMessageCountAboveMaxMessagesPerPacket) {
  Receiver r(test::kTwoTypes, {reliable(3)});
  // numEntries 1, blockMessage 0, hasMessages 1, numMessages: offset 3 in 2 bits = 4 > 3.
  EXPECT_FALSE(r.process({bits(1, 1), bits(0, 1), bits(1, 1), bits(3, 2)}));
  r.expect_refused(ConnectionPacketError::kMessageCountOutOfRange);
}

TEST(ConnectionObligations, RejectsBlockFragmentOnChannelWithBlocksDisabled) {
  ChannelConfig c = reliable();
  c.disable_blocks = true;
  Receiver r(test::kBlockTypes, {c});
  EXPECT_FALSE(r.process({bits(1, 1), bits(1, 1), bits(7, 16), bits(0, 8), bits(0, 10), raw({1})}));
  r.expect_refused(ConnectionPacketError::kBlocksDisabled);
}

TEST(ConnectionObligations, RejectsFragmentIdNotBelowFragmentCount) {
  Receiver r(test::kBlockTypes, {with_blocks(8192, 1024)});
  // id 7, numFragments int(3, 1, 8) -> 2 in 3 bits, fragmentId 3 of int(., 0, 2).
  EXPECT_FALSE(r.process({bits(1, 1), bits(1, 1), bits(7, 16), bits(2, 3), bits(3, 2)}));
  r.expect_refused(ConnectionPacketError::kFragmentIdOutOfRange);
}

TEST(ConnectionObligations, RejectsFragmentCountAboveMaxFragmentsPerBlock) {
  Receiver r(test::kBlockTypes, {with_blocks(6144, 1024)});
  // maxFragmentsPerBlock 6: int(n, 1, 6) in 3 bits; offset 6 -> 7 fragments.
  EXPECT_FALSE(r.process({bits(1, 1), bits(1, 1), bits(7, 16), bits(6, 3)}));
  r.expect_refused(ConnectionPacketError::kFragmentCountOutOfRange);
}

TEST(ConnectionObligations, RejectsFragmentZeroWhoseTypeIsNotABlockMessage) {
  Receiver r(test::kBlockTypes, {with_blocks(8192, 1024)});
  // One fragment (count offset 0, no fragment id), size 1, one byte, then type 0 = Small (no block).
  EXPECT_FALSE(r.process({bits(1, 1), bits(1, 1), bits(7, 16), bits(0, 3), bits(0, 10), raw({0xAA}), bits(0, 1),
                          bits(0x11, 8)}));
  r.expect_refused(ConnectionPacketError::kFragmentNotBlockType);
}

TEST(ConnectionObligations, FailsTheWholePacketWhenAMessageBodyFailsToRead) {
  Receiver r(test::kAllTypes, {reliable(), reliable()});
  EXPECT_FALSE(r.process({
      bits(2, 2),                                                       // two entries
      bits(0, 1), bits(0, 1), bits(1, 1), bits(0, 8), bits(0, 16),      // channel 0: one message, id 0
      bits(0, 2), bits(0x33, 8),                                        // a good Small
      bits(1, 1), bits(0, 1), bits(1, 1), bits(0, 8), bits(0, 16),      // channel 1: one message, id 0
      bits(2, 2), bits(5, 32), bits(127, 7),                            // Numbered: level 127 > 100
  }));
  r.expect_refused(ConnectionPacketError::kMessageBodyInvalid);
  EXPECT_EQ(r.connection->packet_read_error(), ReadError::kValueOutOfRange);
  EXPECT_EQ(r.connection->channel_counters(0).messages_received, 0u);  // channel 0 got nothing either
}

// ---- bitwire's own ----

TEST(ConnectionObligations, RejectsEntriesOutOfChannelOrder) {
  Receiver r(test::kTwoTypes, {reliable(), reliable()});
  EXPECT_FALSE(r.process({bits(2, 2), bits(1, 1), bits(0, 1), bits(0, 1), bits(0, 1), bits(0, 1), bits(0, 1)}));
  r.expect_refused(ConnectionPacketError::kChannelOrder);
}

TEST(ConnectionObligations, RejectsAChannelTwiceInOnePacket) {
  Receiver r(test::kTwoTypes, {reliable(), reliable()});
  EXPECT_FALSE(r.process({bits(2, 2), bits(0, 1), bits(0, 1), bits(0, 1), bits(0, 1), bits(0, 1), bits(0, 1)}));
  r.expect_refused(ConnectionPacketError::kChannelOrder);
}

TEST(ConnectionObligations, RejectsMessageTypeOutsideTheFactory) {
  Receiver r(kThreeTypes, {reliable()});
  EXPECT_FALSE(r.process({bits(1, 1), bits(0, 1), bits(1, 1), bits(0, 8), bits(0, 16), bits(3, 2)}));
  r.expect_refused(ConnectionPacketError::kMessageTypeOutOfRange);
}

TEST(ConnectionObligations, RejectsTruncatedPacket) {
  Receiver r(test::kTwoTypes, {reliable()});
  // A valid one-message packet (see the goldens) without its last byte.
  std::vector<uint8_t> bytes = test::pack({bits(1, 1), bits(0, 1), bits(1, 1), bits(0, 8), bits(0, 16), bits(0, 1),
                                           bits(0x7F, 8)});
  bytes.pop_back();
  EXPECT_FALSE(r.connection->process_packet(0, test::as_bytes(bytes)));
  r.expect_refused(ConnectionPacketError::kMessageBodyInvalid);
  EXPECT_EQ(r.connection->packet_read_error(), ReadError::kPastEnd);
}

TEST(ConnectionObligations, RejectsEmptyDatagram) {
  Receiver r(test::kTwoTypes, {reliable()});
  EXPECT_FALSE(r.connection->process_packet(0, {}));
  r.expect_refused(ConnectionPacketError::kReadFailed);
}

TEST(ConnectionObligations, RejectsFragmentSizeAboveBlockFragmentSize) {
  Receiver r(test::kBlockTypes, {with_blocks(8000, 1000)});
  // One fragment, fragmentSize: int(., 1, 1000) in 10 bits, offset 1000 -> 1001.
  EXPECT_FALSE(r.process({bits(1, 1), bits(1, 1), bits(7, 16), bits(0, 3), bits(1000, 10)}));
  r.expect_refused(ConnectionPacketError::kFragmentSizeOutOfRange);
}

TEST(ConnectionObligations, RejectsBlockMessageInlineOnReliableChannel) {
  Receiver r(test::kBlockTypes, {reliable()});
  EXPECT_FALSE(r.process({bits(1, 1), bits(0, 1), bits(1, 1), bits(0, 8), bits(0, 16), bits(1, 1), bits(0, 8)}));
  r.expect_refused(ConnectionPacketError::kBlockMessageInline);
}

TEST(ConnectionObligations, RejectsBlockFragmentOnUnreliableChannel) {
  ChannelConfig c;
  c.type = ChannelType::kUnreliableUnordered;
  Receiver r(test::kBlockTypes, {c});
  EXPECT_FALSE(r.process({bits(1, 1), bits(1, 1), bits(7, 16)}));
  r.expect_refused(ConnectionPacketError::kFragmentOnUnreliable);
}

TEST(ConnectionObligations, RejectsUnreliableBlockSizeAboveMaxBlockSize) {
  ChannelConfig c;
  c.type = ChannelType::kUnreliableUnordered;
  c.max_messages_per_packet = 4;
  c.max_block_size = 1000;
  c.block_fragment_size = 1000;
  Receiver r(test::kBlockTypes, {c});
  // One message of type Blocky, its body, then blockSize: int(., 1, 1000) in 10 bits, offset 1000.
  EXPECT_FALSE(r.process({bits(1, 1), bits(0, 1), bits(1, 1), bits(0, 2), bits(1, 1), bits(0x42, 8), bits(1000, 10)}));
  r.expect_refused(ConnectionPacketError::kBlockSizeOutOfRange);
}

TEST(ConnectionObligations, RejectsUnreliableBlockOnChannelWithBlocksDisabled) {
  ChannelConfig c;
  c.type = ChannelType::kUnreliableUnordered;
  c.max_messages_per_packet = 4;
  c.disable_blocks = true;
  Receiver r(test::kBlockTypes, {c});
  EXPECT_FALSE(r.process({bits(1, 1), bits(0, 1), bits(1, 1), bits(0, 2), bits(1, 1), bits(0x42, 8), bits(0, 18)}));
  r.expect_refused(ConnectionPacketError::kBlocksDisabled);
}

TEST(ConnectionObligations, RejectsRelativeIdThatNoWriterProduces) {
  Receiver r(test::kOneType, {reliable()});
  // Two messages: id 5, then the int_relative escape (six 0 flags) with 32 raw bits 70005: a
  // difference of 70000, which no 16-bit id sequence produces.
  EXPECT_FALSE(r.process({bits(1, 1), bits(0, 1), bits(1, 1), bits(1, 8), bits(5, 16), bits(0, 6), bits(70005, 32),
                          bits(1, 8), bits(2, 8)}));
  r.expect_refused(ConnectionPacketError::kMessageIdInvalid);
}

// A correct sender writes a packet's reliable ids ascending from its oldest unacked id and never reaches
// that id + receive_queue_size (1024 here), so every id of a packet is within 1023 of its first. A step
// back (9 after 10: int_relative lifts it across the wrap to a difference of 65535) is refused.
TEST(ConnectionObligations, RejectsReliableIdsThatStepBack) {
  Receiver r(test::kOneType, {reliable()});
  // 10, then "0" (not +1), four tiers not taken, the fifth (4378..69914) taken: 65535 - 4378 in 17 bits.
  EXPECT_FALSE(r.process({bits(1, 1), bits(0, 1), bits(1, 1), bits(1, 8), bits(10, 16), bits(0, 5),
                          bits(1, 1), bits(65535 - 4378, 17), bits(1, 8), bits(2, 8)}));
  r.expect_refused(ConnectionPacketError::kMessageIdInvalid);
}

// The ids of one packet span less than the receive window: a step of 1024, or two of 600, is refused;
// ids 0 and 1023 (the widest span a correct sender writes) are taken.
TEST(ConnectionObligations, RejectsReliableIdsSpanningTheReceiveWindow) {
  // The fourth tier (281..4377): "0", three tiers not taken, "1", then the difference - 281 in 13 bits.
  const auto step = [](uint32_t difference) {
    return std::vector<test::Field>{bits(0, 4), bits(1, 1), bits(difference - 281, 13)};
  };
  // First id 0, the next expected: 0 and 1023 are both within the receiver's window.
  const auto packet = [&](std::initializer_list<uint32_t> steps) {
    std::vector<test::Field> fields = {bits(1, 1), bits(0, 1), bits(1, 1),
                                       bits(static_cast<uint32_t>(steps.size()), 8), bits(0, 16)};
    for (const uint32_t s : steps) {
      for (const test::Field& f : step(s)) fields.push_back(f);
    }
    for (size_t i = 0; i <= steps.size(); ++i) fields.push_back(bits(7, 8));
    return fields;
  };

  Receiver one_step(test::kOneType, {reliable()});
  EXPECT_FALSE(one_step.process(packet({1024})));
  one_step.expect_refused(ConnectionPacketError::kMessageIdInvalid);

  Receiver two_steps(test::kOneType, {reliable()});
  EXPECT_FALSE(two_steps.process(packet({600, 600})));
  two_steps.expect_refused(ConnectionPacketError::kMessageIdInvalid);

  Receiver widest(test::kOneType, {reliable()});
  EXPECT_TRUE(widest.process(packet({600, 423})));
  EXPECT_EQ(widest.connection->error(), ConnectionError::kNone);
  EXPECT_EQ(widest.connection->counters().packets_invalid, 0u);
  EXPECT_EQ(widest.connection->receive_queue_depth(0), 3);
}

TEST(ConnectionObligations, RejectsReliableIdBeyondTheReceiveWindow) {
  // Window 1024 from the next expected id (0): 1023 is the last id buffered. A correct sender can reach
  // up to 2047 when its acks ran ahead of what this side released (a block waiting for a buffer, or the
  // application not receiving): refused unacked, not an error. 2048 and beyond no correct sender writes.
  Receiver ok(test::kOneType, {reliable()});
  EXPECT_TRUE(ok.process({bits(1, 1), bits(0, 1), bits(1, 1), bits(0, 8), bits(1023, 16), bits(9, 8)}));
  EXPECT_EQ(ok.connection->error(), ConnectionError::kNone);
  EXPECT_EQ(ok.connection->receive_queue_depth(0), 1);

  for (const uint32_t held : {1024u, 2047u}) {
    Receiver busy(test::kOneType, {reliable()});
    EXPECT_FALSE(busy.process({bits(1, 1), bits(0, 1), bits(1, 1), bits(0, 8), bits(held, 16), bits(9, 8)}));
    EXPECT_EQ(busy.connection->error(), ConnectionError::kNone) << held;
    EXPECT_EQ(busy.connection->counters().packets_window_busy, 1u) << held;
    EXPECT_EQ(busy.connection->receive_queue_depth(0), 0) << held;
    EXPECT_EQ(busy.connection->pool().live(), 0) << held;
  }

  Receiver r(test::kOneType, {reliable()});
  EXPECT_FALSE(r.process({bits(1, 1), bits(0, 1), bits(1, 1), bits(0, 8), bits(2048, 16), bits(9, 8)}));
  EXPECT_EQ(r.connection->error(), ConnectionError::kMessageIdOutsideWindow);
  EXPECT_FALSE(r.connection->receive(0));
  EXPECT_EQ(r.connection->pool().live(), 0);
}

TEST(ConnectionObligations, IgnoresIdsAlreadyDelivered) {
  Receiver r(test::kOneType, {reliable()});
  const std::vector<test::Field> first = {bits(1, 1), bits(0, 1), bits(1, 1), bits(0, 8), bits(0, 16), bits(9, 8)};
  ASSERT_TRUE(r.process(first));
  ASSERT_TRUE(r.connection->receive(0));
  // The same id again (its ack was lost), and 65535 (one before): both already delivered, no error.
  EXPECT_TRUE(r.process(first));
  EXPECT_TRUE(r.process({bits(1, 1), bits(0, 1), bits(1, 1), bits(0, 8), bits(65535, 16), bits(9, 8)}));
  EXPECT_FALSE(r.connection->receive(0));
  EXPECT_EQ(r.connection->error(), ConnectionError::kNone);
  EXPECT_EQ(r.connection->channel_counters(0).messages_duplicate, 2u);
  EXPECT_EQ(r.connection->pool().live(), 0);
}

TEST(ConnectionObligations, PoolExhaustedRefusesThePacketWithoutAnError) {
  ConnectionConfig config;
  config.message_pool_size = 1;
  Connection connection(MessageFactory(test::kOneType), config);
  MessageHandle held = connection.create<test::Small>();
  ASSERT_TRUE(held);
  const auto packet = test::pack({bits(1, 1), bits(0, 1), bits(1, 1), bits(0, 8), bits(0, 16), bits(9, 8)});
  EXPECT_FALSE(connection.process_packet(0, test::as_bytes(packet)));
  EXPECT_EQ(connection.error(), ConnectionError::kNone);
  EXPECT_EQ(connection.counters().packets_pool_exhausted, 1u);
  EXPECT_EQ(connection.pool().exhausted(), 1u);
  held.reset();
  EXPECT_TRUE(connection.process_packet(0, test::as_bytes(packet)));  // the resend gets in
  EXPECT_TRUE(connection.receive(0));
}

TEST(ConnectionObligations, ErrorIsStickyAndRefusesLaterPackets) {
  Receiver r(test::kTwoTypes, {reliable(), reliable()});
  EXPECT_FALSE(r.process({bits(3, 2)}));
  EXPECT_FALSE(r.process({bits(0, 2)}));  // a perfectly good empty packet
  EXPECT_EQ(r.connection->error(), ConnectionError::kPacketInvalid);
  EXPECT_EQ(r.connection->counters().packets_after_error, 1u);
  MessageHandle m = r.connection->create<test::Small>();
  EXPECT_EQ(r.connection->send(0, std::move(m)).result, SendResult::kConnectionError);
  EXPECT_TRUE(m);  // a refused send leaves the message with the caller
  m.reset();
  r.connection->reset();
  EXPECT_EQ(r.connection->error(), ConnectionError::kNone);
  EXPECT_TRUE(r.process({bits(0, 2)}));
}

}  // namespace
}  // namespace bitwire
