// The full stack's packet sizes against netcode's 1200-byte payload: every connection packet the stack
// builds reaches the peer, whatever its size up to ConnectionConfig::max_packet_size. A packet sent whole
// whose datagram (packet + endpoint header) passed netcode's payload was refused by netcode and silently
// dropped: a reliable message that made every packet it rode in that large never arrived.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include "bitwire/serialize/fixed_vector.hpp"
#include "support/stack_harness.hpp"

namespace bitwire::test {
namespace {

// One message of up to 1,200 bytes: its size sets the size of the packet it rides in alone.
struct Wide {
  static constexpr uint32_t kTypeId = 0;
  FixedVector<uint8_t, 1200> bytes;
  template <typename Stream>
  bool serialize(Stream& stream) {
    auto count = static_cast<uint32_t>(bytes.size());
    BITWIRE_TRY(serialize_count(stream, count, 0u, 1200u));
    if constexpr (Stream::kIsReading) bytes.resize(count);
    BITWIRE_TRY(serialize_bytes(stream, bytes.data(), count));
    return true;
  }
};
inline constexpr MessageTypeInfo kWideTypes[] = {describe_message<Wide>("Wide")};
inline constexpr MessageFactory kWideFactory{kWideTypes};

StackConfig wide_config() {
  StackConfig config;
  config.protocol_id = kStackProtocolId;
  config.max_clients = 2;
  config.connection.channel_count = 1;
  config.connection.channels[0].type = ChannelType::kReliableOrdered;
  config.connection.channels[0].disable_blocks = true;
  return config;
}

// Each size of message, alone in its packet, from a packet well under the payload to the largest the
// connection accepts: every message send() takes arrives, in a few ticks on a lossless link, and netcode
// refuses none of the stack's payloads.
TEST(ClientServerPacketFit, EveryPacketSizeTheConnectionBuildsCrossesNetcode) {
  StackHarness h(wide_config(), 16384, kWideFactory);
  Client& client = h.add_client();
  h.connect(0);
  ASSERT_TRUE(h.run_until([&] { return h.all_connected(); }, 300));

  int accepted = 0;
  int largest_accepted = 0;
  for (int size = 1100; size <= 1200; ++size) {
    auto message = client.create<Wide>();
    message.as<Wide>()->bytes.resize(static_cast<size_t>(size));
    for (int i = 0; i < size; ++i)
      message.as<Wide>()->bytes[static_cast<size_t>(i)] = static_cast<uint8_t>(i + size);
    if (!client.send(0, std::move(message))) continue;  // larger than a packet: the caller is told
    ++accepted;
    largest_accepted = size;
    int received_size = -1;
    for (int tick = 0; tick < 30 && received_size < 0; ++tick) {
      h.step();
      if (auto m = h.server->receive(0, 0)) {
        const Wide& wide = *m.as<Wide>();
        received_size = static_cast<int>(wide.bytes.size());
        for (int i = 0; i < received_size; ++i) {
          ASSERT_EQ(wide.bytes[static_cast<size_t>(i)], static_cast<uint8_t>(i + received_size));
        }
      }
    }
    ASSERT_EQ(received_size, size) << "a " << size << "-byte message, alone in its packet, never arrived";
  }
  // The sizes tried reach the largest packet the connection builds: the test covers the edge.
  EXPECT_GT(accepted, 50);
  EXPECT_LT(largest_accepted, 1200);
  EXPECT_EQ(client.stats().payloads_refused, 0u);
  EXPECT_EQ(h.server->stats(0).payloads_refused, 0u);
}

// What the stack runs: a packet sent whole is lowered to what netcode's payload holds behind the endpoint's
// header (with and without the ack delay); smaller packets and packets the endpoint fragments are kept; and
// every datagram of the endpoint the Connection builds fits the payload.
TEST(ClientServerPacketFit, TheStackLowersAWholePacketToNetcodesPayload) {
  struct Case {
    int max_packet_size;
    AckDelayMode ack_delay;
    int expected;
  };
  const Case cases[] = {{1200, AckDelayMode::kWithEnvelope, 1189}, {1200, AckDelayMode::kOff, 1191},
                        {1190, AckDelayMode::kOn, 1189},           {1189, AckDelayMode::kOn, 1189},
                        {1000, AckDelayMode::kOn, 1000},           {4000, AckDelayMode::kOn, 4000}};
  for (const Case& c : cases) {
    StackConfig config = wide_config();
    config.connection.max_packet_size = c.max_packet_size;
    config.connection.endpoint.ack_delay = c.ack_delay;
    EXPECT_TRUE(config.check().ok()) << config.check().reason();
    const StackConfig stacked = config.sanitized();
    EXPECT_EQ(stacked.connection.max_packet_size, c.expected) << c.max_packet_size;
    const EndpointConfig endpoint = Connection::endpoint_config(stacked.connection);
    const size_t header = kMaxPacketHeaderBytes + (c.ack_delay == AckDelayMode::kOff ? 0 : kAckDelayBytes);
    EXPECT_LE(header + static_cast<size_t>(std::min(endpoint.fragment_above, endpoint.max_packet_size)),
              netcode::kMaxPayloadBytes)
        << c.max_packet_size;
    EXPECT_LE(kFragmentHeaderBytes + header + static_cast<size_t>(endpoint.fragment_size),
              netcode::kMaxPayloadBytes);
    EXPECT_TRUE(stacked.check().ok()) << stacked.check().reason();
  }
}

}  // namespace
}  // namespace bitwire::test
