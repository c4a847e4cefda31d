// Windows a single datagram must not move: forged far-away sequences and fragments, predicted-sequence
// fragments, delayed datagrams after reset(), and every sequence buffer at its smallest and largest legal
// capacity. Each case measures what the genuine peer loses, with numbers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
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

constexpr uint64_t kProtocolId = 0x5EC0'4D00ull;
constexpr int kFragmentSize = 100;

EndpointConfig window_config() {
  EndpointConfig config;
  config.protocol_id = kProtocolId;
  config.fragment_size = kFragmentSize;
  config.fragment_above = kFragmentSize;
  config.max_fragments = 8;
  config.max_packet_size = kFragmentSize * 8;
  return config;
}

// A datagram forged by someone who knows the protocol id (or on a raw link): the packet sealed.
Bytes sealed(const Bytes& packet) {
  // Sized once and filled by index: g++ 12 -O3 reports a false -Warray-bounds for vector::insert here.
  Bytes out(Envelope::kBytes + packet.size());
  for (size_t i = 0; i < packet.size(); ++i) out[Envelope::kBytes + i] = packet[i];
  Envelope(kProtocolId).seal(bitwire::test::writable(out), packet.size());
  return out;
}

Bytes regular_packet(uint16_t sequence, const Bytes& payload) {
  uint8_t header[kMaxPacketHeaderBytes];
  const size_t n = write_packet_header(PacketHeader{sequence, 0xFFFF, 0}, bitwire::test::writable(header));
  Bytes packet(header, header + n);
  packet.insert(packet.end(), payload.begin(), payload.end());
  return packet;
}

Bytes fragment_packet(uint16_t sequence, int id, int count, const Bytes& data) {
  Bytes packet(kFragmentHeaderBytes);
  write_fragment_header(FragmentHeader{sequence, static_cast<uint8_t>(id), count}, bitwire::test::writable(packet));
  if (id == 0) {
    uint8_t header[kMaxPacketHeaderBytes];
    const size_t n = write_packet_header(PacketHeader{sequence, 0xFFFF, 0}, bitwire::test::writable(header));
    packet.insert(packet.end(), header, header + n);
  }
  packet.insert(packet.end(), data.begin(), data.end());
  return packet;
}

// a sends to b, b answers every packet; `tamper` sees each datagram from a before b does and may inject
// datagrams of its own (it returns the datagrams b receives, in order).
struct Pair {
  explicit Pair(const EndpointConfig& config = window_config())
      : a(Peer::make(config)), b(Peer::make(config)) {}

  // a sends one payload of `size` bytes (fragmented above kFragmentSize); returns whether b delivered it.
  bool exchange(size_t size, const std::function<void(std::vector<Bytes>&)>& tamper = nullptr) {
    const uint32_t serial = next_serial++;
    const Bytes payload = pattern_payload(size, serial);
    const size_t delivered_before = b->delivered.size();
    std::vector<Bytes> datagrams = a->send(payload);
    a->take_outbox();
    if (tamper) tamper(datagrams);
    for (const Bytes& d : datagrams) b->endpoint.receive_packet(bitwire::test::view(d));
    bool got = false;
    for (size_t i = delivered_before; i < b->delivered.size(); ++i) {
      if (b->delivered[i].payload == payload) got = true;
    }
    b->send({1});
    for (const Bytes& d : b->take_outbox()) a->endpoint.receive_packet(bitwire::test::view(d));
    return got;
  }

  // Runs `count` exchanges; returns how many payloads b delivered.
  int run(int count, size_t size, const std::function<void(int, std::vector<Bytes>&)>& tamper = nullptr) {
    int delivered = 0;
    for (int i = 0; i < count; ++i) {
      const bool got = tamper ? exchange(size, [&](std::vector<Bytes>& d) { tamper(i, d); }) : exchange(size);
      delivered += got ? 1 : 0;
    }
    return delivered;
  }

  std::unique_ptr<Peer> a, b;
  uint32_t next_serial = 1;
};

// ---- Regular packets far ahead ----

// One forged packet ~32,500 ahead used to move the received window: the genuine peer's next 32,256
// packets were dropped as stale and their acks ignored. Now it is refused and costs nothing.
TEST(EndpointWindow, OneForgedFarAheadPacketCostsTheGenuinePeerNothing) {
  Pair pair;
  ASSERT_EQ(pair.run(20, 10), 20);
  const uint16_t forged = static_cast<uint16_t>(pair.a->endpoint.next_sequence() + 32500);
  EXPECT_EQ(pair.b->endpoint.receive_packet(bitwire::test::view(sealed(regular_packet(forged, {6, 6, 6})))),
            ReceiveResult::kTooFarAhead);
  EXPECT_EQ(pair.b->endpoint.counters().packets_too_far_ahead, 1u);
  const uint64_t acked_before = pair.a->endpoint.counters().packets_acked;
  EXPECT_EQ(pair.run(1000, 10), 1000);
  EXPECT_EQ(pair.a->endpoint.counters().packets_acked - acked_before, 1000u);
  EXPECT_EQ(pair.b->endpoint.counters().sequence_resyncs, 0u);
}

// The worst a burst can do: sequence_resync_packets forged packets in increasing order make b resync to
// them; the genuine stream then looks out of range and wins b back after sequence_resync_packets - 1
// lost packets. Measured for every distance and a range of burst sizes.
TEST(EndpointWindow, ForgedBurstCostsAtMostResyncPacketsMinusOne) {
  const int resync = window_config().sequence_resync_packets;
  for (const int distance : {300, 1000, 20000, 32767, 40000, 65000}) {
    for (int burst = 1; burst <= resync + 2; ++burst) {
      Pair pair;
      ASSERT_EQ(pair.run(50, 10), 50);
      const uint16_t start = static_cast<uint16_t>(pair.a->endpoint.next_sequence() + distance);
      for (int i = 0; i < burst; ++i) {
        pair.b->endpoint.receive_packet(bitwire::test::view(sealed(regular_packet(static_cast<uint16_t>(start + i), {6}))));
      }
      const int delivered = pair.run(200, 10);
      const int lost = 200 - delivered;
      if (burst < resync) {
        EXPECT_EQ(lost, 0) << "distance " << distance << " burst " << burst;
      } else {
        EXPECT_LE(lost, resync - 1) << "distance " << distance << " burst " << burst;
      }
    }
  }
}

// One forged packet every 10 genuine ones, at random sequences. Most are out of range and cost nothing; one
// that lands in range (1 in ~128) is delivered like any forged packet and can take the sequence of one
// genuine packet still to come, which is then a duplicate: at most one genuine packet per forgery that was
// delivered.
TEST(EndpointWindow, RandomFarPacketsInterleavedCostAtMostTheOnesDelivered) {
  BITWIRE_SEEDED_TEST_SEED(0xfa7);
  std::mt19937_64 rng(seed);
  Pair pair;
  const int delivered = pair.run(3000, 10, [&](int i, std::vector<Bytes>& datagrams) {
    if (i % 10 == 0)
      datagrams.insert(datagrams.begin(), sealed(regular_packet(static_cast<uint16_t>(rng()), {9})));
  });
  const auto forged_delivered = std::count_if(pair.b->delivered.begin(), pair.b->delivered.end(),
                                              [](const test::Delivery& d) { return d.payload == Bytes{9}; });
  EXPECT_GE(delivered, 3000 - forged_delivered);
  EXPECT_LE(forged_delivered, 10);
  EXPECT_GE(pair.b->endpoint.counters().packets_too_far_ahead + pair.b->endpoint.counters().packets_stale,
            280u);
  EXPECT_EQ(pair.b->endpoint.counters().sequence_resyncs, 0u);
}

// A genuine peer that really jumped comes back within sequence_resync_packets packets: a 10 s outage at
// 60 Hz (600 sequences this side never heard), or 40,000 packets all lost.
TEST(EndpointWindow, GenuinePeerThatJumpedRecoversWithinResyncPackets) {
  const int resync = window_config().sequence_resync_packets;
  for (const int gap : {600, 5000, 40000}) {
    for (const size_t size : {size_t{10}, size_t{350}}) {  // regular and fragmented
      Pair pair;
      ASSERT_EQ(pair.run(30, size), 30);
      for (int i = 0; i < gap; ++i) pair.a->send({1});
      pair.a->take_outbox();
      int first_delivered = -1;
      for (int i = 0; i < 100; ++i) {
        if (pair.exchange(size) && first_delivered < 0) first_delivered = i;
      }
      EXPECT_EQ(first_delivered, resync - 1) << "gap " << gap << " size " << size;
      EXPECT_EQ(pair.b->endpoint.counters().sequence_resyncs, 1u);
      EXPECT_EQ(pair.b->endpoint.counters().packets_received, 30u + 100u - static_cast<unsigned>(resync - 1));
    }
  }
}

// A link that delays or duplicates datagrams can hand b three of a's old datagrams, in increasing order,
// from behind the received window. They used to complete a backward resync: the window restarted at them,
// the third was delivered a second time, and the genuine stream, now 500 ahead, was refused until it won
// the window back. A backward run must ack something new (a stale datagram never does): all refused.
TEST(EndpointWindow, StaleRunFromBehindTheWindowNeverResyncsOrIsDeliveredTwice) {
  for (const size_t size : {size_t{10}, size_t{350}}) {  // regular and fragmented
    Pair pair;
    std::vector<Bytes> delayed;
    ASSERT_EQ(pair.run(600, size, [&](int i, std::vector<Bytes>& datagrams) {
      if (i >= 100 && i < 110) delayed.insert(delayed.end(), datagrams.begin(), datagrams.end());
    }), 600);
    const size_t delivered_before = pair.b->delivered.size();
    for (const Bytes& d : delayed) {
      const ReceiveResult result = pair.b->endpoint.receive_packet(bitwire::test::view(d));
      EXPECT_TRUE(result == ReceiveResult::kStale || result == ReceiveResult::kFragmentStale)
          << size << ": " << to_string(result);
    }
    EXPECT_EQ(pair.b->delivered.size(), delivered_before) << size;
    EXPECT_EQ(pair.b->endpoint.counters().sequence_resyncs, 0u) << size;
    EXPECT_EQ(pair.run(100, size), 100) << size;
  }
}

// After a backward resync the window restarts empty; a delayed copy of a packet delivered before it (here
// the last genuine one before a forged burst moved the window forward) used to land in the new window and
// be delivered a second time. Everything up to the resync point is refused until the window has moved on.
TEST(EndpointWindow, BackwardResyncNeverRedeliversWhatCameBeforeIt) {
  const int resync = window_config().sequence_resync_packets;
  for (const size_t size : {size_t{10}, size_t{350}}) {
    Pair pair;
    std::vector<Bytes> last_before;
    ASSERT_EQ(pair.run(50, size, [&](int i, std::vector<Bytes>& datagrams) {
      if (i == 49) last_before = datagrams;
    }), 50);
    const uint16_t start = static_cast<uint16_t>(pair.a->endpoint.next_sequence() + 300);
    for (int i = 0; i < resync; ++i) {
      pair.b->endpoint.receive_packet(bitwire::test::view(sealed(regular_packet(static_cast<uint16_t>(start + i), {6}))));
    }
    EXPECT_GE(pair.run(20, size), 20 - (resync - 1)) << size;
    EXPECT_EQ(pair.b->endpoint.counters().sequence_resyncs, 2u) << size;  // forward to the burst, and back
    const size_t delivered_before = pair.b->delivered.size();
    for (const Bytes& d : last_before) pair.b->endpoint.receive_packet(bitwire::test::view(d));
    EXPECT_EQ(pair.b->delivered.size(), delivered_before) << size;
    EXPECT_EQ(pair.run(300, size), 300) << size;  // and the floor does not outlive the window
  }
}

// ---- Fragments far ahead ----

// One fragment of a packet that never completes, 1,000 ahead, used to move the reassembly window and cost
// 938 genuine fragmented packets.
TEST(EndpointWindow, OneFarAheadFragmentCostsNoFragmentedPacket) {
  Pair pair;
  ASSERT_EQ(pair.run(20, 350), 20);
  const uint16_t far = static_cast<uint16_t>(pair.a->endpoint.next_sequence() + 1000);
  EXPECT_EQ(pair.b->endpoint.receive_packet(bitwire::test::view(sealed(fragment_packet(far, 1, 4, Bytes(kFragmentSize, 7))))),
            ReceiveResult::kFragmentTooFarAhead);
  EXPECT_EQ(pair.b->endpoint.counters().fragments_too_far_ahead, 1u);
  EXPECT_EQ(pair.run(1000, 350), 1000);
}

// One random fragment per 100 genuine packets let only 2.5% of fragmented packets through.
TEST(EndpointWindow, RandomFragmentEveryHundredPacketsKeepsDeliveryNearComplete) {
  BITWIRE_SEEDED_TEST_SEED(0xf4a9);
  std::mt19937_64 rng(seed);
  Pair pair;
  const int kPackets = 5000;
  const int delivered = pair.run(kPackets, 350, [&](int i, std::vector<Bytes>& datagrams) {
    if (i % 100 != 50) return;
    const int count = 2 + static_cast<int>(rng() % 7);
    const int id = 1 + static_cast<int>(rng() % static_cast<unsigned>(count - 1));
    const size_t size = id == count - 1 ? 1 + rng() % kFragmentSize : kFragmentSize;
    datagrams.insert(datagrams.begin(),
                     sealed(fragment_packet(static_cast<uint16_t>(rng()), id, count, Bytes(size, 3))));
  });
  std::printf("random fragments: %d of %d fragmented packets delivered\n", delivered, kPackets);
  EXPECT_GE(delivered, kPackets * 995 / 1000);
}

// ---- A first fragment wins ----

// A forged fragment with the genuine packet's predicted sequence, arriving first: with a different count,
// or the same count and different bytes. Before, the genuine packet was refused or delivered with the
// forged bytes. Now the one packet it names is dropped, nothing forged is delivered, and the packets
// around it are untouched.
TEST(EndpointWindow, PredictedSequenceFragmentCostsOnePacketAndIsNeverDelivered) {
  struct Case {
    const char* what;
    int count;  // the genuine packet has 4 fragments (350 bytes)
    int id;
    size_t size;
    bool detected;  // the genuine fragment with the same index arrives before the packet completes
  };
  for (const Case& c :
       {Case{"wider count", 8, 5, kFragmentSize, true}, Case{"narrower count", 2, 1, 40, true},
        Case{"same count, forged middle bytes", 4, 1, kFragmentSize, true},
        Case{"same count, forged final bytes", 4, 3, 50, false}}) {
    Pair pair;
    ASSERT_EQ(pair.run(10, 350), 10);
    const uint16_t predicted = pair.a->endpoint.next_sequence();
    const bool got = pair.exchange(350, [&](std::vector<Bytes>& datagrams) {
      datagrams.insert(datagrams.begin(),
                       sealed(fragment_packet(predicted, c.id, c.count, Bytes(c.size, 0xEE))));
    });
    EXPECT_FALSE(got) << c.what;
    const auto with_predicted =
        std::count_if(pair.b->delivered.begin(), pair.b->delivered.end(),
                      [&](const test::Delivery& d) { return d.sequence == predicted; });
    if (c.detected) {
      EXPECT_EQ(with_predicted, 0) << c.what << ": a packet mixing forged bytes was delivered";
      EXPECT_EQ(pair.b->endpoint.counters().fragments_conflicting, 1u) << c.what;
    } else {
      // The forged final fragment completed the packet before the genuine one came: like a forged whole
      // packet, it is delivered (the genuine final fragment is then a duplicate). Only on an authenticated
      // transport can this be told apart.
      EXPECT_EQ(with_predicted, 1) << c.what;
    }
    EXPECT_EQ(pair.run(100, 350), 100) << c.what;
  }
}

// A forged fragment 0 whose embedded ack header differs from the genuine one is a conflict too.
TEST(EndpointWindow, ConflictingFragmentZeroHeaderDropsOnlyItsPacket) {
  Pair pair;
  ASSERT_EQ(pair.run(10, 350), 10);
  const uint16_t predicted = pair.a->endpoint.next_sequence();
  const bool got = pair.exchange(350, [&](std::vector<Bytes>& datagrams) {
    Bytes forged = pattern_payload(kFragmentSize, 0);
    Bytes packet(kFragmentHeaderBytes);
    write_fragment_header(FragmentHeader{predicted, 0, 4}, bitwire::test::writable(packet));
    uint8_t header[kMaxPacketHeaderBytes];
    const size_t n = write_packet_header(PacketHeader{predicted, 0x1234, 0xFFFFFFFF}, bitwire::test::writable(header));
    packet.insert(packet.end(), header, header + n);
    // The genuine fragment 0's payload, so only the header differs.
    const Bytes& genuine = datagrams[0];
    const size_t genuine_header = genuine.size() - Envelope::kBytes - kFragmentHeaderBytes - kFragmentSize;
    packet.insert(packet.end(), genuine.end() - kFragmentSize, genuine.end());
    ASSERT_GT(genuine_header, 0u);
    datagrams.insert(datagrams.begin(), sealed(packet));
  });
  EXPECT_FALSE(got);
  EXPECT_EQ(pair.b->endpoint.counters().fragments_conflicting, 1u);
  EXPECT_EQ(pair.run(50, 350), 50);
}

// ---- reset() ----

// After both sides reset(), one delayed pre-reset datagram arriving first used to blackhole the new
// session (1,000 ahead: 12 s; 30,000 ahead: 8 minutes at 60 Hz).
TEST(EndpointWindow, DelayedPreResetDatagramDoesNotBlackholeTheNewSession) {
  for (const int old_sequence : {1000, 30000}) {
    for (const size_t size : {size_t{10}, size_t{350}}) {
      Pair pair;
      const Bytes old_payload = pattern_payload(size, 0xDEAD);
      for (int i = 0; i < old_sequence; ++i) {
        pair.a->take_outbox();
        pair.a->send(old_payload);
      }
      const std::vector<Bytes> delayed = pair.a->take_outbox();  // the last packet sent before the reset
      pair.a->endpoint.reset();
      pair.b->endpoint.reset();
      for (const Bytes& d : delayed) pair.b->endpoint.receive_packet(bitwire::test::view(d));
      EXPECT_EQ(pair.run(1000, size), 1000) << old_sequence << " " << size;
      EXPECT_TRUE(std::none_of(pair.b->delivered.begin(), pair.b->delivered.end(),
                               [&](const test::Delivery& d) { return d.payload == old_payload; }));
    }
  }
}

// reset() empties reassembly: 200 bytes of fragments stored before it never end up inside a packet after.
TEST(EndpointWindow, ResetClearsReassembly) {
  auto b = Peer::make(window_config());
  const Bytes old_bytes(kFragmentSize, 0xAA);
  EXPECT_EQ(b->endpoint.receive_packet(bitwire::test::view(sealed(fragment_packet(5, 0, 3, old_bytes)))),
            ReceiveResult::kFragmentStored);
  EXPECT_EQ(b->endpoint.receive_packet(bitwire::test::view(sealed(fragment_packet(5, 1, 3, old_bytes)))),
            ReceiveResult::kFragmentStored);
  b->endpoint.reset();
  // The final fragment of a new packet 5: alone it cannot complete anything.
  const Bytes new_tail(30, 0x55);
  EXPECT_EQ(b->endpoint.receive_packet(bitwire::test::view(sealed(fragment_packet(5, 2, 3, new_tail)))),
            ReceiveResult::kFragmentStored);
  EXPECT_TRUE(b->delivered.empty());
  const Bytes new_bytes(kFragmentSize, 0x11);
  b->endpoint.receive_packet(bitwire::test::view(sealed(fragment_packet(5, 0, 3, new_bytes))));
  EXPECT_EQ(b->endpoint.receive_packet(bitwire::test::view(sealed(fragment_packet(5, 1, 3, new_bytes)))),
            ReceiveResult::kDelivered);
  ASSERT_EQ(b->delivered.size(), 1u);
  EXPECT_EQ(std::count(b->delivered[0].payload.begin(), b->delivered[0].payload.end(), 0xAA), 0);
  EXPECT_EQ(b->delivered[0].payload.size(), 230u);
}

// ---- Buffer capacities ----

// Every sequence buffer of the endpoint at its smallest and largest legal capacity, with real traffic on
// a lossless link: everything is delivered, whole and fragmented, and acked. (Windows of 16,385..32,768
// used to deliver 1 packet in 3,000, or no fragmented packet at all.)
TEST(EndpointWindow, EveryBufferAtItsSmallestAndLargestCapacityDeliversEverything) {
  struct Field {
    const char* name;
    int EndpointConfig::*member;
    int smallest;
    int largest;
  };
  const Field fields[] = {
      // 2: kEndpointConfigLimits refuses 1 (each send would evict the previous packet before its ack).
      {"sent_packets_buffer_size", &EndpointConfig::sent_packets_buffer_size, 2, 32768},
      {"received_packets_buffer_size", &EndpointConfig::received_packets_buffer_size, 1, 32768},
      {"fragment_reassembly_buffer_size", &EndpointConfig::fragment_reassembly_buffer_size, 1, 32768},
      {"reassembly_slots", &EndpointConfig::reassembly_slots, 1, 1024},
  };
  for (const Field& field : fields) {
    for (const int capacity : {field.smallest, field.smallest + 1, 16385, field.largest}) {
      if (capacity > field.largest) continue;
      EndpointConfig config = window_config();
      config.*field.member = capacity;
      ASSERT_TRUE(config.check().ok()) << field.name << " " << capacity;
      Pair pair(config);
      for (int i = 0; i < 700; ++i) {
        const size_t size = i % 2 ? 10 : 350;
        EXPECT_TRUE(pair.exchange(size)) << field.name << " = " << capacity << ", packet " << i;
        if (::testing::Test::HasFailure()) break;
      }
      EXPECT_EQ(pair.a->endpoint.counters().packets_acked, 700u) << field.name << " = " << capacity;
    }
  }
}

}  // namespace
}  // namespace bitwire

namespace bitwire {
namespace {

// The endpoint's other rings (the acks() list, the RTT history, the loss window) at their smallest and
// largest legal capacity, with real traffic on a lossless link: everything is delivered and acked, the
// acks() list never holds more than its capacity, the RTT history's min <= average <= max, and the loss
// window reads 0.
TEST(EndpointWindow, EveryRingAtItsSmallestAndLargestCapacityKeepsItsContract) {
  struct Field {
    const char* name;
    int EndpointConfig::*member;
  };
  const Field fields[] = {
      {"ack_buffer_size", &EndpointConfig::ack_buffer_size},
      {"rtt_history_size", &EndpointConfig::rtt_history_size},
      {"packet_loss_window", &EndpointConfig::packet_loss_window},
  };
  for (const Field& field : fields) {
    for (const int capacity : {1, 2, 65536}) {
      EndpointConfig config = window_config();
      config.*field.member = capacity;
      ASSERT_TRUE(config.check().ok()) << field.name << " " << capacity;
      Pair pair(config);
      double now = 0.0;
      for (int i = 0; i < 700; ++i) {
        now += 1.0 / 60.0;
        pair.a->endpoint.update(now);
        pair.b->endpoint.update(now);
        EXPECT_TRUE(pair.exchange(i % 2 ? 10 : 350)) << field.name << " = " << capacity << ", packet " << i;
        EXPECT_LE(pair.a->endpoint.acks().size(), static_cast<size_t>(config.ack_buffer_size));
        if (i % 10 == 9) pair.a->endpoint.clear_acks();
        if (::testing::Test::HasFailure()) break;
      }
      const Endpoint& a = pair.a->endpoint;
      EXPECT_EQ(a.counters().packets_acked, 700u) << field.name << " = " << capacity;
      EXPECT_LE(a.rtt_min_ms(), a.rtt_avg_ms()) << field.name << " = " << capacity;
      EXPECT_LE(a.rtt_avg_ms(), a.rtt_max_ms()) << field.name << " = " << capacity;
      EXPECT_EQ(a.packet_loss_percent(), 0.0) << field.name << " = " << capacity;
    }
  }
}

}  // namespace
}  // namespace bitwire
