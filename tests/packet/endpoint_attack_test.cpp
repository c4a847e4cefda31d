// Hostile and malformed input: every case is dropped cleanly, with the right ReceiveResult and exactly one
// increment of the right counter, and nothing delivered that should not be. Each test runs with the
// integrity envelope off (raw reliable 1.0) and on (the crafted packet sealed with the right crc, so the
// parser itself is exercised).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <random>
#include <vector>

#include "bitwire/packet/endpoint.hpp"
#include "bitwire/packet/envelope.hpp"
#include "support/endpoint_harness.hpp"
#include "support/seed.hpp"
#include "support/bytes.hpp"

namespace bitwire {
namespace {

using test::pattern_payload;
using test::Peer;
using Bytes = std::vector<uint8_t>;

constexpr uint64_t kProtocolId = 0xB17'3141'5926ull;
constexpr int kFragmentSize = 100;
constexpr int kMaxFragments = 8;

class EndpointAttack : public ::testing::TestWithParam<bool> {
 protected:
  bool envelope() const { return GetParam(); }

  EndpointConfig config() const {
    EndpointConfig config;
    config.envelope = envelope();
    config.protocol_id = kProtocolId;
    config.fragment_size = kFragmentSize;
    config.fragment_above = kFragmentSize;
    config.max_fragments = kMaxFragments;
    config.max_packet_size = kFragmentSize * kMaxFragments;
    return config;
  }

  // The datagram carrying `packet`: sealed when the envelope is on.
  Bytes datagram(const Bytes& packet) const {
    if (!envelope()) return packet;
    Bytes out(Envelope::kBytes);
    out.insert(out.end(), packet.begin(), packet.end());
    Envelope(kProtocolId).seal(bitwire::test::writable(out), packet.size());
    return out;
  }

  // The packet inside a datagram the endpoint produced.
  Bytes packet_of(const Bytes& datagram) const {
    return envelope() ? Bytes(datagram.begin() + Envelope::kBytes, datagram.end()) : datagram;
  }

  ReceiveResult feed(Peer& peer, const Bytes& packet) const {
    const Bytes d = datagram(packet);
    return peer.endpoint.receive_packet(bitwire::test::view(d));
  }

  static Bytes header(uint16_t sequence, uint16_t ack, uint32_t ack_bits) {
    uint8_t out[kMaxPacketHeaderBytes];
    return Bytes(out, out + write_packet_header(PacketHeader{sequence, ack, ack_bits}, bitwire::test::writable(out)));
  }

  static Bytes regular(uint16_t sequence, const Bytes& payload, uint16_t ack = 0xFFFF,
                       uint32_t ack_bits = 0) {
    Bytes packet = header(sequence, ack, ack_bits);
    packet.insert(packet.end(), payload.begin(), payload.end());
    return packet;
  }

  // A fragment; `embedded` is the header fragment 0 carries (defaults to a valid one for `sequence`).
  static Bytes fragment(uint16_t sequence, int id, int count, const Bytes& data,
                        std::optional<Bytes> embedded = std::nullopt) {
    Bytes packet(kFragmentHeaderBytes);
    packet[0] = 1;
    packet[1] = static_cast<uint8_t>(sequence);
    packet[2] = static_cast<uint8_t>(sequence >> 8);
    packet[3] = static_cast<uint8_t>(id);
    packet[4] = static_cast<uint8_t>(count - 1);
    if (id == 0) {
      const Bytes h = embedded ? *embedded : header(sequence, 0xFFFF, 0);
      packet.insert(packet.end(), h.begin(), h.end());
    }
    packet.insert(packet.end(), data.begin(), data.end());
    return packet;
  }

  static Bytes data(size_t size, uint32_t seed = 1) { return pattern_payload(size, seed); }
};

INSTANTIATE_TEST_SUITE_P(Envelope, EndpointAttack, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "on" : "off";
                         });

// Every field of the counters except the named one must be unchanged.
#define EXPECT_ONLY_COUNTER_ROSE(before, after, field)                   \
  do {                                                                   \
    EndpointCounters expected_ = (before);                               \
    ++expected_.field;                                                   \
    EXPECT_EQ((after), expected_) << "expected only " #field " to rise"; \
  } while (0)

// ---- Headers ----

TEST_P(EndpointAttack, TruncatedHeaderAtEveryLength) {
  auto peer = Peer::make(config());
  // One header of every length 4..9.
  const std::vector<Bytes> headers = {header(10, 10, 0xFFFFFFFF), header(10, 9, 0xFFFFFF00),
                                      header(10, 9, 0xFFFF0000),  header(10, 9, 0xFF000000),
                                      header(10, 9, 0x00000000),  header(100, 9000, 0x00000000)};
  for (size_t i = 0; i < headers.size(); ++i) ASSERT_EQ(headers[i].size(), 4 + i);
  for (const Bytes& full : headers) {
    for (size_t length = 0; length < full.size(); ++length) {
      const EndpointCounters before = peer->endpoint.counters();
      EXPECT_EQ(feed(*peer, Bytes(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(length))),
                ReceiveResult::kHeaderInvalid)
          << "length " << length << " of " << full.size();
      EXPECT_ONLY_COUNTER_ROSE(before, peer->endpoint.counters(), packets_invalid);
    }
  }
  EXPECT_TRUE(peer->delivered.empty());
  EXPECT_EQ(feed(*peer, headers[5]), ReceiveResult::kDelivered);  // the whole header is fine
}

EndpointConfig enveloped_config() {
  EndpointConfig config;
  config.protocol_id = kProtocolId;
  return config;
}

TEST(EndpointAttackEnvelope, DatagramShorterThanEnvelope) {
  auto peer = Peer::make(enveloped_config());
  const uint8_t bytes[3] = {0, 0, 0};
  for (size_t size = 0; size < 4; ++size) {
    const EndpointCounters before = peer->endpoint.counters();
    EXPECT_EQ(peer->endpoint.receive_packet(bitwire::test::view(bytes, size)), ReceiveResult::kEnvelopeMismatch);
    EXPECT_ONLY_COUNTER_ROSE(before, peer->endpoint.counters(), envelope_failures);
  }
  EXPECT_EQ(peer->endpoint.receive_packet({}), ReceiveResult::kEnvelopeMismatch);
}

TEST_P(EndpointAttack, NullAndEmptyDatagrams) {
  auto peer = Peer::make(config());
  const ReceiveResult expected =
      envelope() ? ReceiveResult::kEnvelopeMismatch : ReceiveResult::kHeaderInvalid;
  EXPECT_EQ(peer->endpoint.receive_packet({}), expected);
  const uint8_t byte = 0;
  EXPECT_EQ(peer->endpoint.receive_packet(test::view(&byte, 0)), expected);
  EXPECT_TRUE(peer->delivered.empty());
}

TEST_P(EndpointAttack, NonCanonicalHeaders) {
  auto peer = Peer::make(config());
  const std::vector<std::pair<const char*, Bytes>> cases = {
      {"ack_bits byte 0xFF sent", {0x22, 0x0A, 0x00, 0x01, 0xFF}},
      {"all ack_bits bytes sent as 0xFF", {0x3E, 0x0A, 0x00, 0x01, 0xFF, 0xFF, 0xFF, 0xFF}},
      {"two-byte ack with difference 0", {0x00, 0x0A, 0x00, 0x0A, 0x00}},
      {"two-byte ack with difference 255", {0x00, 0x0A, 0x01, 0x0B, 0x00}},
      {"reserved prefix bit 6", {0x60, 0x0A, 0x00, 0x00}},
      {"reserved prefix bit 7", {0xA0, 0x0A, 0x00, 0x00}},
  };
  for (const auto& [what, packet] : cases) {
    const EndpointCounters before = peer->endpoint.counters();
    EXPECT_EQ(feed(*peer, packet), ReceiveResult::kHeaderInvalid) << what;
    EXPECT_ONLY_COUNTER_ROSE(before, peer->endpoint.counters(), packets_invalid);
  }
  EXPECT_TRUE(peer->delivered.empty());
  // The canonical spelling of the same first case is accepted.
  EXPECT_EQ(feed(*peer, Bytes{0x20, 0x0A, 0x00, 0x01}), ReceiveResult::kDelivered);
}

// ---- Fragments ----

// A fragment id equal to the count is refused before the sequence is looked at: far ahead, such fragments
// neither count as "too far ahead" nor, sequence_resync_packets of them in a row, move the receive window.
TEST_P(EndpointAttack, FragmentIdEqualToCountIsInvalidWhereverItsSequenceIs) {
  auto peer = Peer::make(config());
  ASSERT_EQ(feed(*peer, regular(10, data(20))), ReceiveResult::kDelivered);
  const int resync = config().sequence_resync_packets;
  for (int i = 0; i < resync; ++i) {
    const EndpointCounters before = peer->endpoint.counters();
    EXPECT_EQ(feed(*peer, fragment(static_cast<uint16_t>(1000 + i), 2, 2, data(kFragmentSize))),
              ReceiveResult::kFragmentInvalid);
    EXPECT_ONLY_COUNTER_ROSE(before, peer->endpoint.counters(), fragments_invalid);
  }
  EXPECT_EQ(peer->endpoint.counters().sequence_resyncs, 0u);
}

TEST_P(EndpointAttack, TruncatedFragmentsAtEveryLength) {
  auto peer = Peer::make(config());
  const Bytes first = fragment(5, 0, 3, data(kFragmentSize));
  const Bytes middle = fragment(5, 1, 3, data(kFragmentSize));
  for (const Bytes* full : {&first, &middle}) {
    for (size_t length = 1; length < full->size(); ++length) {
      const EndpointCounters before = peer->endpoint.counters();
      EXPECT_EQ(feed(*peer, Bytes(full->begin(), full->begin() + static_cast<std::ptrdiff_t>(length))),
                ReceiveResult::kFragmentInvalid)
          << "length " << length;
      EXPECT_ONLY_COUNTER_ROSE(before, peer->endpoint.counters(), fragments_invalid);
    }
  }
  // A last fragment cut down to its 5-byte header carries nothing.
  const EndpointCounters before = peer->endpoint.counters();
  EXPECT_EQ(feed(*peer, Bytes(middle.begin(), middle.begin() + 5)), ReceiveResult::kFragmentInvalid);
  EXPECT_ONLY_COUNTER_ROSE(before, peer->endpoint.counters(), fragments_invalid);
  EXPECT_TRUE(peer->delivered.empty());
}

TEST_P(EndpointAttack, FragmentPrefixMustBeExactlyOne) {
  auto peer = Peer::make(config());
  for (uint8_t prefix : {0x03, 0x21, 0x41, 0x81, 0xFF}) {
    Bytes packet = fragment(5, 1, 3, data(kFragmentSize));
    packet[0] = prefix;
    const EndpointCounters before = peer->endpoint.counters();
    EXPECT_EQ(feed(*peer, packet), ReceiveResult::kFragmentInvalid) << int{prefix};
    EXPECT_ONLY_COUNTER_ROSE(before, peer->endpoint.counters(), fragments_invalid);
  }
}

TEST_P(EndpointAttack, FragmentIdAtOrAboveCount) {
  auto peer = Peer::make(config());
  for (const auto& [id, count] : std::vector<std::pair<int, int>>{{2, 2}, {3, 2}, {255, 2}, {1, 1}, {8, 8}}) {
    Bytes packet = fragment(5, 1, count, data(kFragmentSize));
    packet[3] = static_cast<uint8_t>(id);
    const EndpointCounters before = peer->endpoint.counters();
    EXPECT_EQ(feed(*peer, packet), ReceiveResult::kFragmentInvalid) << id << "/" << count;
    EXPECT_ONLY_COUNTER_ROSE(before, peer->endpoint.counters(), fragments_invalid);
  }
}

TEST_P(EndpointAttack, FragmentCountAboveMax) {
  auto peer = Peer::make(config());
  for (int count : {kMaxFragments + 1, 100, 256}) {
    const EndpointCounters before = peer->endpoint.counters();
    EXPECT_EQ(feed(*peer, fragment(5, 1, count, data(kFragmentSize))), ReceiveResult::kFragmentInvalid)
        << count;
    EXPECT_ONLY_COUNTER_ROSE(before, peer->endpoint.counters(), fragments_invalid);
  }
}

// A fragment whose count disagrees with the stored ones is a conflict: that one reassembly is dropped (the
// bytes already stored can no longer be trusted), never widened (the articles' memory-trashing attack)
// nor narrowed, and no other packet is touched.
TEST_P(EndpointAttack, FragmentCountChangesBetweenFragmentsOfOnePacket) {
  auto peer = Peer::make(config());
  EXPECT_EQ(feed(*peer, fragment(5, 0, 2, data(kFragmentSize))), ReceiveResult::kFragmentStored);
  EXPECT_EQ(feed(*peer, fragment(7, 0, 2, data(kFragmentSize, 7))), ReceiveResult::kFragmentStored);
  // Widening the count after the first fragment...
  EndpointCounters before = peer->endpoint.counters();
  EXPECT_EQ(feed(*peer, fragment(5, 7, 8, data(50))), ReceiveResult::kFragmentConflict);
  EXPECT_ONLY_COUNTER_ROSE(before, peer->endpoint.counters(), fragments_conflicting);
  // ...and narrowing it.
  EXPECT_EQ(feed(*peer, fragment(6, 2, 3, data(40))), ReceiveResult::kFragmentStored);
  before = peer->endpoint.counters();
  EXPECT_EQ(feed(*peer, fragment(6, 0, 1, data(40))), ReceiveResult::kFragmentConflict);
  EXPECT_ONLY_COUNTER_ROSE(before, peer->endpoint.counters(), fragments_conflicting);
  // Packets 5 and 6 lost what they had: their remaining honest fragments start over and cannot complete.
  EXPECT_EQ(feed(*peer, fragment(5, 1, 2, data(30))), ReceiveResult::kFragmentStored);
  EXPECT_EQ(feed(*peer, fragment(6, 0, 3, data(kFragmentSize))), ReceiveResult::kFragmentStored);
  EXPECT_EQ(feed(*peer, fragment(6, 1, 3, data(kFragmentSize))), ReceiveResult::kFragmentStored);
  // Packet 7 was never touched.
  EXPECT_EQ(feed(*peer, fragment(7, 1, 2, data(30, 8))), ReceiveResult::kDelivered);
  ASSERT_EQ(peer->delivered.size(), 1u);
  EXPECT_EQ(peer->delivered[0].sequence, 7);
  EXPECT_EQ(peer->delivered[0].payload.size(), 130u);
  EXPECT_TRUE(std::equal(peer->delivered[0].payload.begin(),
                         peer->delivered[0].payload.begin() + kFragmentSize, data(kFragmentSize, 7).begin()));
}

TEST_P(EndpointAttack, OversizedFragmentData) {
  auto peer = Peer::make(config());
  for (int id : {0, 1, 2}) {
    const EndpointCounters before = peer->endpoint.counters();
    EXPECT_EQ(feed(*peer, fragment(5, id, 3, data(kFragmentSize + 1))), ReceiveResult::kFragmentInvalid)
        << id;
    EXPECT_ONLY_COUNTER_ROSE(before, peer->endpoint.counters(), fragments_invalid);
  }
  const EndpointCounters before = peer->endpoint.counters();
  EXPECT_EQ(feed(*peer, fragment(5, 1, 3, data(60000))), ReceiveResult::kTooLarge);
  EXPECT_ONLY_COUNTER_ROSE(before, peer->endpoint.counters(), packets_too_large_to_receive);
}

TEST_P(EndpointAttack, UndersizedNonFinalFragmentData) {
  auto peer = Peer::make(config());
  for (size_t size : {size_t{0}, size_t{1}, size_t{kFragmentSize - 1}}) {
    for (int id : {0, 1}) {
      const EndpointCounters before = peer->endpoint.counters();
      EXPECT_EQ(feed(*peer, fragment(5, id, 3, data(size))), ReceiveResult::kFragmentInvalid)
          << id << " " << size;
      EXPECT_ONLY_COUNTER_ROSE(before, peer->endpoint.counters(), fragments_invalid);
    }
  }
}

TEST_P(EndpointAttack, EmptyFinalFragment) {
  auto peer = Peer::make(config());
  for (const auto& [id, count] : std::vector<std::pair<int, int>>{{2, 3}, {0, 1}}) {
    const EndpointCounters before = peer->endpoint.counters();
    EXPECT_EQ(feed(*peer, fragment(5, id, count, Bytes{})), ReceiveResult::kFragmentInvalid);
    EXPECT_ONLY_COUNTER_ROSE(before, peer->endpoint.counters(), fragments_invalid);
  }
  // A short (non-empty) final fragment is legal.
  EXPECT_EQ(feed(*peer, fragment(5, 2, 3, data(1))), ReceiveResult::kFragmentStored);
}

TEST_P(EndpointAttack, FragmentZeroWhoseEmbeddedHeaderDisagrees) {
  auto peer = Peer::make(config());
  const std::vector<std::pair<const char*, Bytes>> cases = {
      {"sequence differs", header(6, 0xFFFF, 0)},
      {"sequence byte-swapped", header(0x0500, 0xFFFF, 0)},
      {"non-canonical: 0xFF ack_bits byte", Bytes{0x22, 0x05, 0x00, 0x01, 0xFF}},
      {"non-canonical: two-byte ack, small difference", Bytes{0x00, 0x05, 0x00, 0x04, 0x00}},
      {"a fragment prefix instead of a header", Bytes{0x01, 0x05, 0x00, 0x00, 0x00}},
      {"reserved prefix bits", Bytes{0xE0, 0x05, 0x00, 0x00}},
  };
  for (const auto& [what, embedded] : cases) {
    const EndpointCounters before = peer->endpoint.counters();
    EXPECT_EQ(feed(*peer, fragment(5, 0, 2, data(kFragmentSize), embedded)), ReceiveResult::kFragmentInvalid)
        << what;
    EXPECT_ONLY_COUNTER_ROSE(before, peer->endpoint.counters(), fragments_invalid);
  }
  EXPECT_EQ(feed(*peer, fragment(5, 0, 2, data(kFragmentSize), header(5, 3, 0x0F))),
            ReceiveResult::kFragmentStored);
}

TEST_P(EndpointAttack, DuplicateFragments) {
  auto peer = Peer::make(config());
  const Bytes f0 = fragment(9, 0, 3, data(kFragmentSize, 1));
  const Bytes f1 = fragment(9, 1, 3, data(kFragmentSize, 2));
  const Bytes f2 = fragment(9, 2, 3, data(33, 3));
  EXPECT_EQ(feed(*peer, f1), ReceiveResult::kFragmentStored);
  for (int i = 0; i < 5; ++i) {
    const EndpointCounters before = peer->endpoint.counters();
    EXPECT_EQ(feed(*peer, f1), ReceiveResult::kFragmentDuplicate);
    EXPECT_ONLY_COUNTER_ROSE(before, peer->endpoint.counters(), fragments_duplicate);
  }
  EXPECT_EQ(feed(*peer, f0), ReceiveResult::kFragmentStored);
  EXPECT_EQ(feed(*peer, f0), ReceiveResult::kFragmentDuplicate);
  EXPECT_EQ(feed(*peer, f2), ReceiveResult::kDelivered);
  ASSERT_EQ(peer->delivered.size(), 1u);
  Bytes expected = data(kFragmentSize, 1);
  for (const Bytes& part : {data(kFragmentSize, 2), data(33, 3)})
    expected.insert(expected.end(), part.begin(), part.end());
  EXPECT_EQ(peer->delivered[0].payload, expected);
}

TEST_P(EndpointAttack, FragmentsOfAPacketAlreadyDelivered) {
  auto sender = Peer::make(config());
  auto peer = Peer::make(config());
  sender->send(data(250));
  const auto fragments = sender->take_outbox();
  ASSERT_EQ(fragments.size(), 3u);
  for (const Bytes& d : fragments) peer->endpoint.receive_packet(bitwire::test::view(d));
  ASSERT_EQ(peer->delivered.size(), 1u);
  for (int round = 0; round < 3; ++round) {
    for (const Bytes& d : fragments) {
      const EndpointCounters before = peer->endpoint.counters();
      EXPECT_EQ(peer->endpoint.receive_packet(bitwire::test::view(d)), ReceiveResult::kFragmentDuplicate);
      EXPECT_ONLY_COUNTER_ROSE(before, peer->endpoint.counters(), fragments_duplicate);
    }
  }
  EXPECT_EQ(peer->delivered.size(), 1u);
  // The whole packet replayed as a regular packet is a duplicate too.
  const EndpointCounters before = peer->endpoint.counters();
  EXPECT_EQ(feed(*peer, regular(0, data(10))), ReceiveResult::kDuplicate);
  EXPECT_ONLY_COUNTER_ROSE(before, peer->endpoint.counters(), packets_duplicate);
}

TEST_P(EndpointAttack, FloodOfNeverCompletedReassembliesStaysWithinTheConfiguredMemory) {
  BITWIRE_SEEDED_TEST_SEED(0xf100d);
  std::mt19937_64 rng(seed);
  const auto before_construction = test::counting_allocations;
  auto peer = Peer::make(config());
  const uint64_t construction_bytes = test::counting_allocations.bytes - before_construction.bytes;
  EXPECT_GE(construction_bytes, Endpoint::memory_required(config()));
  EXPECT_LE(construction_bytes, Endpoint::memory_required(config()) + sizeof(Peer) + 256);

  // Pre-build the attack datagrams so the flood itself runs without the test allocating.
  std::vector<Bytes> attack;
#ifdef BITWIRE_SANITIZED
  const int kFlood = 20000;
#else
  const int kFlood = 200000;
#endif
  for (int i = 0; i < kFlood; ++i) {
    // Mostly new sequences, some a little ahead, some far behind (stale for the reassembly window).
    const int64_t offset = i % 3 == 0   ? -static_cast<int64_t>(rng() % 2000)
                           : i % 3 == 1 ? static_cast<int64_t>(rng() % 40)
                                        : 0;
    const uint16_t sequence = static_cast<uint16_t>(i + offset);
    attack.push_back(datagram(fragment(sequence, 1 + static_cast<int>(rng() % 7), 8, data(kFragmentSize))));
  }
  const auto before = test::counting_allocations;
  for (const Bytes& d : attack) peer->endpoint.receive_packet(bitwire::test::view(d));
  const auto after = test::counting_allocations;
  EXPECT_EQ(after.count, before.count) << "the flood made the endpoint allocate";
  EXPECT_EQ(peer->endpoint.memory_bytes(), Endpoint::memory_required(config()));
  const EndpointCounters& counters = peer->endpoint.counters();
  EXPECT_GT(counters.reassemblies_evicted, 1000u);
  EXPECT_EQ(counters.reassemblies_completed, 0u);
  EXPECT_TRUE(peer->delivered.empty());
  EXPECT_EQ(counters.fragments_received + counters.fragments_duplicate + counters.fragments_stale +
                counters.fragments_too_far_ahead + counters.fragments_conflicting,
            uint64_t(kFlood));

  // After the flood, an honest stream of fragmented packets (newer than the flood) gets through: the
  // receive side resynchronizes to it within sequence_resync_packets packets.
  const Bytes payload = data(333, 5);
  for (int packet = 0; packet < 5; ++packet) {
    const uint16_t next = static_cast<uint16_t>(kFlood + 1000 + packet);
    for (int id = 0; id < 4; ++id) {
      const size_t offset = static_cast<size_t>(id) * kFragmentSize;
      const size_t size = std::min<size_t>(kFragmentSize, payload.size() - offset);
      feed(*peer, fragment(next, id, 4,
                           Bytes(payload.begin() + static_cast<std::ptrdiff_t>(offset),
                                 payload.begin() + static_cast<std::ptrdiff_t>(offset + size))));
    }
  }
  ASSERT_GE(peer->delivered.size(), 5u - static_cast<size_t>(config().sequence_resync_packets - 1));
  EXPECT_EQ(peer->delivered.back().payload, payload);
}

TEST_P(EndpointAttack, ReassemblyAboveMaxPacketSize) {
  EndpointConfig c = config();
  c.max_packet_size = kFragmentSize * kMaxFragments - 50;  // 750: eight full fragments (800) exceed it
  auto peer = Peer::make(c);
  for (int id = 0; id < 7; ++id) {
    EXPECT_EQ(feed(*peer, fragment(3, id, 8, data(kFragmentSize))), ReceiveResult::kFragmentStored);
  }
  const EndpointCounters before = peer->endpoint.counters();
  const ReceiveResult result = feed(*peer, fragment(3, 7, 8, data(kFragmentSize)));
  EXPECT_EQ(result, ReceiveResult::kReassembledTooLarge);
  EXPECT_EQ(peer->endpoint.counters().packets_too_large_to_receive, before.packets_too_large_to_receive + 1);
  EXPECT_TRUE(peer->delivered.empty());
}

// ---- Sizes ----

TEST_P(EndpointAttack, PacketsExactlyAtAndAboveMaxSize) {
  auto peer = Peer::make(config());
  const size_t max = static_cast<size_t>(config().max_packet_size);
  // Exactly at the limit with the longest header: accepted (even though an honest sender would fragment it).
  EndpointCounters before = peer->endpoint.counters();
  EXPECT_EQ(feed(*peer, regular(2, data(max), 9, 0x01020304)), ReceiveResult::kDelivered);
  EXPECT_EQ(peer->delivered.back().payload.size(), max);
  // One byte more, with a short header so the datagram itself is still within the largest legal size.
  before = peer->endpoint.counters();
  EXPECT_EQ(feed(*peer, regular(3, data(max + 1), 3, 0xFFFFFFFF)), ReceiveResult::kTooLarge);
  EXPECT_ONLY_COUNTER_ROSE(before, peer->endpoint.counters(), packets_too_large_to_receive);
  // Far above: rejected before anything is read (not even the envelope).
  before = peer->endpoint.counters();
  EXPECT_EQ(feed(*peer, regular(4, data(max + 100))), ReceiveResult::kTooLarge);
  EXPECT_ONLY_COUNTER_ROSE(before, peer->endpoint.counters(), packets_too_large_to_receive);
}

TEST_P(EndpointAttack, SendAboveMaxSizeIsRefusedAndAtMaxIsSent) {
  auto sender = Peer::make(config());
  auto peer = Peer::make(config());
  const size_t max = static_cast<size_t>(config().max_packet_size);
  const EndpointCounters before = sender->endpoint.counters();
  EXPECT_FALSE(sender->endpoint.send_packet(test::view(data(max + 1))));
  EXPECT_ONLY_COUNTER_ROSE(before, sender->endpoint.counters(), packets_too_large_to_send);
  EXPECT_TRUE(sender->outbox.empty());
  EXPECT_EQ(sender->endpoint.next_sequence(), 0);  // no sequence used
  const Bytes payload = data(max, 8);
  EXPECT_TRUE(sender->endpoint.send_packet(bitwire::test::view(payload)));
  EXPECT_EQ(sender->outbox.size(), static_cast<size_t>(kMaxFragments));
  for (const Bytes& d : sender->take_outbox()) peer->endpoint.receive_packet(bitwire::test::view(d));
  ASSERT_EQ(peer->delivered.size(), 1u);
  EXPECT_EQ(peer->delivered[0].payload, payload);
}

// ---- Sequences and acks ----

TEST_P(EndpointAttack, AckBitsFarInTheFuture) {
  auto peer = Peer::make(config());
  for (int i = 0; i < 10; ++i) peer->send({1});  // sequences 0..9 sent
  uint16_t next = 0;
  for (uint16_t ack : {uint16_t{10}, uint16_t{1010}, uint16_t{32000}}) {
    const EndpointCounters before = peer->endpoint.counters();
    EXPECT_EQ(feed(*peer, regular(next++, {7}, ack, 0xFFFFFFFF)), ReceiveResult::kDelivered);
    const EndpointCounters& after = peer->endpoint.counters();
    EXPECT_EQ(after.acks_ahead, before.acks_ahead + 1) << ack;
    EXPECT_EQ(after.packets_acked, before.packets_acked);
  }
  EXPECT_TRUE(peer->endpoint.acks().empty());
  EXPECT_TRUE(peer->acked_by_callback.empty());
  // An ack inside what was sent is honoured, once.
  feed(*peer, regular(next++, {7}, 9, 0x3FF));
  EXPECT_EQ(peer->endpoint.acks().size(), 10u);
  feed(*peer, regular(next++, {7}, 9, 0x3FF));
  EXPECT_EQ(peer->endpoint.acks().size(), 10u);
}

TEST_P(EndpointAttack, MoreThan32768PacketsBetweenTwoAcks) {
  auto a = Peer::make(config());
  auto b = Peer::make(config());
  // a and b talk normally for a while.
  for (int i = 0; i < 10; ++i) {
    a->send({1});
    for (const Bytes& d : a->take_outbox()) b->endpoint.receive_packet(bitwire::test::view(d));
    b->send({2});
    for (const Bytes& d : b->take_outbox()) a->endpoint.receive_packet(bitwire::test::view(d));
  }
  const uint64_t acked_before = a->endpoint.counters().packets_acked;
  // Then a sends 40000 packets that all vanish, and hears nothing.
  for (int i = 0; i < 40000; ++i) a->send({3});
  a->take_outbox();
  // b's next packet acks a's old sequence 9, which from where a is now (40009) reads as 25536 ahead: a
  // ignores the acks (none of those packets is in its sent window anyway) but takes the payload.
  b->send({4});
  auto from_b = b->take_outbox();
  EXPECT_EQ(a->endpoint.receive_packet(bitwire::test::view(from_b[0])), ReceiveResult::kDelivered);
  EXPECT_EQ(a->endpoint.counters().packets_acked, acked_before);
  EXPECT_EQ(a->endpoint.counters().acks_ahead, 1u);
  // From b's side a's sequence jumped by more than half the sequence space, so a's new packets look older
  // than b's received window. One such packet could be a replay and is dropped as stale; a run of
  // sequence_resync_packets of them in increasing order is the peer itself, and b resynchronizes.
  const int resync = config().sequence_resync_packets;
  for (int i = 0; i < resync - 1; ++i) {
    a->send({5});
    auto from_a = a->take_outbox();
    const EndpointCounters before = b->endpoint.counters();
    EXPECT_EQ(b->endpoint.receive_packet(bitwire::test::view(from_a[0])), ReceiveResult::kStale);
    EXPECT_ONLY_COUNTER_ROSE(before, b->endpoint.counters(), packets_stale);
  }
  a->send({6});
  auto from_a = a->take_outbox();
  EXPECT_EQ(b->endpoint.receive_packet(bitwire::test::view(from_a[0])), ReceiveResult::kDelivered);
  EXPECT_EQ(b->endpoint.counters().sequence_resyncs, 1u);
  // From then on every packet is delivered and acked, and none was acked falsely.
  const EndpointCounters b_before = b->endpoint.counters();
  for (int i = 0; i < 300; ++i) {
    a->send({7});
    for (const Bytes& d : a->take_outbox()) b->endpoint.receive_packet(bitwire::test::view(d));
    b->send({8});
    for (const Bytes& d : b->take_outbox()) a->endpoint.receive_packet(bitwire::test::view(d));
  }
  EXPECT_EQ(b->endpoint.counters().packets_stale, b_before.packets_stale);
  EXPECT_EQ(b->endpoint.counters().packets_duplicate, 0u);
  EXPECT_EQ(b->endpoint.counters().packets_received, b_before.packets_received + 300u);
  const uint64_t acked_now = a->endpoint.counters().packets_acked - acked_before;
  EXPECT_GE(acked_now, 300u);
  EXPECT_LE(acked_now, 301u);
}

TEST_P(EndpointAttack, SequenceWrapTwiceOver) {
  BITWIRE_SEEDED_TEST_SEED(0x3a9);
  std::mt19937_64 rng(seed);
  auto a = Peer::make(config());
  auto b = Peer::make(config());
  // Per sequence: the tick a last sent it on, whether that send has been acked, and the tick b last
  // received it on. An ack is right only if it is the first for that send and b received that very send.
  std::vector<int64_t> sent_tick(65536, -1), received_tick(65536, -1);
  std::vector<bool> acked(65536, false);
  uint64_t acks = 0;
  const int64_t ticks = 2 * 65536 + 3000;
  for (int64_t tick = 0; tick < ticks; ++tick) {
    const uint16_t s = a->endpoint.next_sequence();
    Bytes payload(8);
    std::memcpy(payload.data(), &tick, sizeof tick);
    a->send(payload);
    sent_tick[s] = tick;
    acked[s] = false;
    for (const Bytes& d : a->take_outbox()) {
      if (rng() % 100 < 20) continue;  // 20% loss a -> b
      b->endpoint.receive_packet(bitwire::test::view(d));
    }
    for (const auto& delivery : b->delivered) {
      int64_t t;
      std::memcpy(&t, delivery.payload.data(), sizeof t);
      received_tick[delivery.sequence] = t;
    }
    b->delivered.clear();
    b->send({});
    for (const Bytes& d : b->take_outbox()) {
      if (rng() % 100 < 20) continue;  // 20% loss b -> a
      a->endpoint.receive_packet(bitwire::test::view(d));
    }
    for (uint16_t x : a->endpoint.acks()) {
      ASSERT_FALSE(acked[x]) << "sequence " << x << " acked twice, tick " << tick;
      ASSERT_EQ(received_tick[x], sent_tick[x]) << "sequence " << x << " acked but that send never arrived";
      acked[x] = true;
      ++acks;
    }
    a->endpoint.clear_acks();
  }
  const EndpointCounters& b_counters = b->endpoint.counters();
  EXPECT_EQ(b_counters.packets_stale, 0u);
  EXPECT_EQ(b_counters.packets_duplicate, 0u);
  EXPECT_EQ(b_counters.packets_invalid, 0u);
  EXPECT_GT(acks, static_cast<uint64_t>(ticks) * 75 / 100);  // ~80% arrive; nearly all of those get acked
  EXPECT_EQ(acks, a->endpoint.counters().packets_acked);
}

TEST_P(EndpointAttack, StaleAndDuplicatePackets) {
  auto peer = Peer::make(config());
  EXPECT_EQ(feed(*peer, regular(200, {1})), ReceiveResult::kDelivered);
  EndpointCounters before = peer->endpoint.counters();
  EXPECT_EQ(feed(*peer, regular(200, {1})), ReceiveResult::kDuplicate);
  EXPECT_ONLY_COUNTER_ROSE(before, peer->endpoint.counters(), packets_duplicate);
  // 256 behind the newest no longer fits the received window (256): stale. 255 behind still fits.
  before = peer->endpoint.counters();
  EXPECT_EQ(feed(*peer, regular(200 - 256, {1})), ReceiveResult::kStale);
  EXPECT_ONLY_COUNTER_ROSE(before, peer->endpoint.counters(), packets_stale);
  EXPECT_EQ(feed(*peer, regular(200 - 255, {1})), ReceiveResult::kDelivered);
  // A fragment of a stale packet is stale too.
  before = peer->endpoint.counters();
  EXPECT_EQ(feed(*peer, fragment(200 - 300, 1, 3, data(kFragmentSize))), ReceiveResult::kFragmentStale);
  EXPECT_ONLY_COUNTER_ROSE(before, peer->endpoint.counters(), fragments_stale);
}

TEST(EndpointAttackEnvelope, WrongProtocolIdAndCorruption) {
  auto peer = Peer::make(enveloped_config());
  EndpointConfig other = enveloped_config();
  other.protocol_id = kProtocolId + 1;
  auto stranger = Peer::make(other);
  stranger->send({1, 2, 3});
  EndpointCounters before = peer->endpoint.counters();
  EXPECT_EQ(peer->endpoint.receive_packet(bitwire::test::view(stranger->outbox[0])),
            ReceiveResult::kEnvelopeMismatch);
  EXPECT_ONLY_COUNTER_ROSE(before, peer->endpoint.counters(), envelope_failures);
  auto friendly = Peer::make(enveloped_config());
  friendly->send({1, 2, 3});
  Bytes corrupted = friendly->outbox[0];
  for (size_t bit = 0; bit < corrupted.size() * 8; ++bit) {
    corrupted[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
    before = peer->endpoint.counters();
    ASSERT_EQ(peer->endpoint.receive_packet(bitwire::test::view(corrupted)),
              ReceiveResult::kEnvelopeMismatch);
    EXPECT_ONLY_COUNTER_ROSE(before, peer->endpoint.counters(), envelope_failures);
    corrupted[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
  }
  EXPECT_EQ(peer->endpoint.receive_packet(bitwire::test::view(corrupted)), ReceiveResult::kDelivered);
}

TEST_P(EndpointAttack, RandomBytesNeverDeliverOrAck) {
  BITWIRE_SEEDED_TEST_SEED(0x6a7b);
  std::mt19937_64 rng(seed);
  auto peer = Peer::make(config());
  for (int i = 0; i < 20; ++i) peer->send({1});
  for (int i = 0; i < 50000; ++i) {
    Bytes bytes(rng() % 40);
    for (auto& b : bytes) b = static_cast<uint8_t>(rng());
    if (!bytes.empty() && rng() % 2) bytes[0] &= 0x3F;  // mostly plausible prefixes
    peer->endpoint.receive_packet(bitwire::test::view(bytes));
  }
  if (envelope()) {
    EXPECT_TRUE(peer->delivered.empty());  // 2^-32 per try to pass the crc
    EXPECT_EQ(peer->endpoint.counters().envelope_failures, 50000u);
  } else {
    EXPECT_GT(peer->endpoint.counters().packets_invalid, 0u);
  }
  // Whatever got through raw, only sequences 0..19 can ever have been acked, each once.
  std::vector<int> seen(20, 0);
  for (uint16_t s : peer->acked_by_callback) {
    ASSERT_LT(s, 20);
    ASSERT_EQ(++seen[s], 1);
  }
}

}  // namespace
}  // namespace bitwire
