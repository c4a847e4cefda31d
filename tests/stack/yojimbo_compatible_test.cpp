// StackConfig::yojimbo_compatible(): the wire of yojimbo's default ClientServerConfig (docs/interop.md).
// Pinned here: netcode's protocol id is the given one, the endpoint's packets carry no ack delay extension
// (reliable.c would read it as payload), the packet sizes and fragments are yojimbo's, the channel layout is
// yojimbo's two default channels, and a Client and Server built from it talk and measure RTT.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "bitwire/message/connection.hpp"
#include "bitwire/packet/endpoint.hpp"
#include "bitwire/stack/stack_config.hpp"
#include "support/bytes.hpp"
#include "support/stack_harness.hpp"

namespace bitwire::test {
namespace {

using Bytes = std::vector<uint8_t>;

constexpr uint64_t kYojimboProtocolId = 0x11223344556677ull;

TEST(YojimboCompatible, NetcodeProtocolIdIsTheGivenOne) {
  const StackConfig config = StackConfig::yojimbo_compatible(kYojimboProtocolId);
  EXPECT_TRUE(config.netcode_protocol_id_as_is);
  EXPECT_EQ(stack_protocol_id(kStackFactory, config), kYojimboProtocolId);
  constexpr MessageTypeInfo kOneType[] = {describe_message<Small>("Small")};
  EXPECT_EQ(stack_protocol_id(MessageFactory{kOneType}, config), kYojimboProtocolId);
  // The stack's own mode folds the layout in: the same id and layout give another netcode id.
  StackConfig folded = config;
  folded.netcode_protocol_id_as_is = false;
  EXPECT_NE(stack_protocol_id(kStackFactory, folded), kYojimboProtocolId);
}

TEST(YojimboCompatible, LayoutAndPacketSizesAreYojimbosDefaults) {
  const StackConfig config = StackConfig::yojimbo_compatible(kYojimboProtocolId);
  EXPECT_EQ(config.check().reason(), nullptr);
  EXPECT_EQ(config.check(kStackFactory).reason(), nullptr);
  const StackConfig used = config.sanitized(kStackFactory);  // what Client and Server run
  EXPECT_EQ(used.protocol_id, kYojimboProtocolId);
  EXPECT_TRUE(used.netcode_protocol_id_as_is);
  const ConnectionConfig& connection = used.connection;
  EXPECT_EQ(connection.max_packet_size, 8 * 1024);
  ASSERT_EQ(connection.channel_count, 2);
  for (int i = 0; i < 2; ++i) {
    const ChannelConfig& channel = connection.channels[static_cast<size_t>(i)];
    EXPECT_EQ(channel.type, ChannelType::kReliableOrdered) << i;
    EXPECT_FALSE(channel.disable_blocks) << i;
    EXPECT_EQ(channel.max_messages_per_packet, 256) << i;
    EXPECT_EQ(channel.max_block_size, 256 * 1024) << i;
    EXPECT_EQ(channel.block_fragment_size, 1024) << i;
    EXPECT_EQ(channel.receive_queue_size, 1024) << i;
    EXPECT_EQ(channel.packet_budget_bytes, 0) << i;
  }
  EXPECT_EQ(connection.endpoint.ack_delay, AckDelayMode::kOff);
  EXPECT_FALSE(connection.endpoint.envelope);
  const EndpointConfig endpoint = Connection::endpoint_config(connection);
  EXPECT_EQ(endpoint.check().reason(), nullptr);
  EXPECT_EQ(endpoint.max_packet_size, 8 * 1024);
  EXPECT_EQ(endpoint.fragment_above, 1024);
  EXPECT_EQ(endpoint.fragment_size, 1024);
  EXPECT_EQ(endpoint.max_fragments, 8);
}

// Two Connections built the way Client and Server build theirs from a StackConfig, every datagram kept.
struct CapturedPair {
  explicit CapturedPair(const StackConfig& config)
      : used(config.sanitized(kStackFactory)),
        a(kStackFactory, used.connection, ConnectionCallbacks{&to_b, &keep}),
        b(kStackFactory, used.connection, ConnectionCallbacks{&to_a, &keep}) {}

  static void keep(void* context, std::span<const std::byte> datagram) {
    static_cast<std::vector<Bytes>*>(context)->push_back(to_vector(datagram));
  }

  // Every datagram each way, oldest first; delivered one tick later (the first of every 5 dropped).
  void run(int ticks) {
    for (int tick = 0; tick < ticks; ++tick) {
      const double now = tick / 60.0;
      a.update(now);
      b.update(now);
      std::vector<Bytes> ab, ba;
      ab.swap(to_b);
      ba.swap(to_a);
      for (size_t i = 0; i < ab.size(); ++i) {
        if ((sent_ab + i) % 5 != 0) b.receive_packet(view(ab[i]));
      }
      for (size_t i = 0; i < ba.size(); ++i) {
        if ((sent_ba + i) % 5 != 0) a.receive_packet(view(ba[i]));
      }
      sent_ab += ab.size();
      sent_ba += ba.size();
      all.insert(all.end(), ab.begin(), ab.end());
      all.insert(all.end(), ba.begin(), ba.end());
      a.send_packets();
      b.send_packets();
    }
  }

  StackConfig used;
  std::vector<Bytes> to_a, to_b, all;
  size_t sent_ab = 0, sent_ba = 0;
  Connection a;
  Connection b;
};

// Queues `count` Numbered messages of 64 payload bytes on channel 0 of `from`: ~80 bytes each, so a packet
// carrying 30 of them (2.4 KB) is fragmented.
void queue_numbered(Connection& from, int count, uint32_t first_serial) {
  for (int i = 0; i < count; ++i) {
    MessageHandle message = from.create(Numbered::kTypeId);
    auto* numbered = message.as<Numbered>();
    numbered->serial = first_serial + static_cast<uint32_t>(i);
    numbered->level = 50;
    numbered->payload.resize(64);
    ASSERT_TRUE(from.send(0, std::move(message)));
  }
}

// What the endpoint of each mode puts on the wire, read as reliable 1.0 reads it. Returns the number of
// datagrams with the extension bit (prefix bit 6, in the header or in the one fragment 0 embeds).
int datagrams_with_extension(const std::vector<Bytes>& datagrams) {
  int with = 0;
  for (const Bytes& d : datagrams) {
    if (d.empty()) continue;
    if ((d[0] & 0x01) == 0) {
      with += (d[0] & 0x40) != 0;
    } else if (d.size() > 5 && d[3] == 0) {
      with += (d[5] & 0x40) != 0;
    }
  }
  return with;
}

TEST(YojimboCompatible, PacketsAreRawReliableWithYojimbosFragments) {
  CapturedPair pair(StackConfig::yojimbo_compatible(kYojimboProtocolId));
  queue_numbered(pair.a, 30, 0);
  queue_numbered(pair.b, 5, 1000);
  pair.run(60);
  int received = 0;
  while (MessageHandle m = pair.b.receive(0)) {
    EXPECT_EQ(m.as<Numbered>()->serial, static_cast<uint32_t>(received));
    ++received;
  }
  EXPECT_EQ(received, 30);
  EXPECT_GT(pair.a.endpoint().rtt_ms(), 0.0);
  EXPECT_EQ(pair.a.endpoint().counters().packets_invalid, 0u);
  EXPECT_EQ(pair.b.endpoint().counters().packets_invalid, 0u);

  int fragments = 0;
  for (const Bytes& d : pair.all) {
    ASSERT_FALSE(d.empty());
    if ((d[0] & 0x01) == 0) {
      // A whole packet: a reliable 1.0 header (read with the extension refused) and at most 1024 bytes.
      PacketHeader header;
      const size_t header_bytes = read_packet_header(view(d), header, nullptr, false);
      ASSERT_NE(header_bytes, 0u);
      EXPECT_LE(d.size() - header_bytes, 1024u);
      continue;
    }
    // A fragment: 5-byte header, count - 1 <= 7, 1024 data bytes but in the last one; fragment 0 embeds
    // a reliable 1.0 header.
    ++fragments;
    ASSERT_GE(d.size(), 6u);
    const int id = d[3];
    const int count = d[4] + 1;
    EXPECT_LE(count, 8);
    size_t header_bytes = 0;
    if (id == 0) {
      PacketHeader header;
      header_bytes =
          read_packet_header(std::span<const std::byte>(view(d)).subspan(5), header, nullptr, false);
      ASSERT_NE(header_bytes, 0u);
    }
    if (id + 1 < count) {
      EXPECT_EQ(d.size(), 5 + header_bytes + 1024) << id;
    }
  }
  EXPECT_GE(fragments, 3) << "a 2.4 KB packet is sent as 1024-byte fragments";
  EXPECT_EQ(datagrams_with_extension(pair.all), 0);
}

// The contrast that makes the check above mean something: the stack's default sends the extension.
TEST(YojimboCompatible, TheStacksDefaultCarriesTheExtension) {
  StackConfig config;
  config.protocol_id = kYojimboProtocolId;
  CapturedPair pair(config);
  queue_numbered(pair.a, 5, 0);
  queue_numbered(pair.b, 5, 1000);
  pair.run(30);
  EXPECT_GT(datagrams_with_extension(pair.all), 10);
}

TEST(YojimboCompatible, ClientAndServerTalkWithTheGivenProtocolId) {
  StackConfig config = StackConfig::yojimbo_compatible(kYojimboProtocolId);
  config.max_clients = 2;
  StackHarness h(config, 16384);
  Client& client = h.add_client();
  // The harness mints tokens for stack_protocol_id(), here the given id itself.
  ASSERT_EQ(stack_protocol_id(h.factory, h.config), kYojimboProtocolId);
  h.connect(0);
  ASSERT_TRUE(h.run_until([&] { return h.all_connected(); }, 300));
  for (int i = 0; i < 20; ++i) {
    auto message = client.create<Small>();
    message.as<Small>()->value = static_cast<uint8_t>(i);
    ASSERT_TRUE(client.send(1, std::move(message)));  // channel 1: reliable-ordered too
  }
  int received = 0;
  h.on_server = [&] {
    while (MessageHandle m = h.server->receive(0, 1)) {
      EXPECT_EQ(m.as<Small>()->value, received);
      ++received;
    }
  };
  h.run_until([&] { return received == 20 && client.stats().rtt_ms > 0.0; }, 600);
  EXPECT_EQ(received, 20);
  EXPECT_GT(client.stats().rtt_ms, 0.0);

  // A token minted for the folded id is refused by a client that uses the given id as is.
  const StackToken folded = h.token(2000, 5, kYojimboProtocolId ^ 1);
  Client& other = h.add_client();
  const char* reason = nullptr;
  EXPECT_FALSE(other.connect(folded, h.now, &reason));
  EXPECT_NE(reason, nullptr);
}

}  // namespace
}  // namespace bitwire::test
