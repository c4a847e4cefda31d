// The gap rule's packets applied in order only (docs/channels.md section 2) and the send path's moves out
// of the receive reserve: unreliable messages in such packets are applied once, a block that such a packet
// completes is delivered, the copy of a received message for a type without a nothrow move has a buffer
// of its own, and a send refused keeps a lent block lent.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "bitwire/message/channel.hpp"
#include "bitwire/message/connection.hpp"
#include "bitwire/message/detail/sequence_marks.hpp"
#include "bitwire/message/message.hpp"
#include "bitwire/serialize/fixed_vector.hpp"
#include "support/connection_pair.hpp"
#include "support/test_messages.hpp"

namespace bitwire {
namespace {

using test::ConnectionPair;
using test::kAllTypes;
using test::Numbered;
using test::Small;
using test::WithBlock;

constexpr double kTick = 1.0 / 60.0;

// Holds every message the application's room gives (a greedy application), so that what waits past a
// reliable gap finds no room and the packet is applied in order only.
std::vector<MessageHandle> fill_room(Connection& connection) {
  std::vector<MessageHandle> room;
  for (MessageHandle h = connection.create<Numbered>(); h; h = connection.create<Numbered>()) {
    room.push_back(std::move(h));
  }
  // Then the smallest type, so that no message of any type has room left (by count or by bytes).
  for (MessageHandle h = connection.create<test::Tiny>(); h; h = connection.create<test::Tiny>()) {
    room.push_back(std::move(h));
  }
  return room;
}

// A reliable stream through b's full room (a Numbered every fourth message, Smalls between) with an
// unreliable message every tick: `ratio` is the share of the unreliable messages sent that arrived, each
// serial checked to arrive at most once; the reliable stream checked whole and in order.
struct GapRun {
  double ratio = 0.0;
  bool reliable_in_order = true;
  uint64_t sent = 0;
  uint64_t in_order_only = 0;
  uint64_t repeats_released = 0;
  bool unreliable_twice = false;
};

GapRun run_held_gap(double duplicate_percent) {
  const MessageFactory factory(kAllTypes);
  const size_t numbered = MessagePool::message_bytes(factory, factory.types()[Numbered::kTypeId]);
  ConnectionConfig config;
  config.channel_count = 2;
  config.channels[0].max_messages_per_packet = 8;
  config.channels[1].type = ChannelType::kUnreliableUnordered;
  config.channels[1].max_messages_per_packet = 8;
  config.message_pool_bytes = static_cast<int>(32 * numbered);  // a reserve of 16 and a room of 16
  NetworkConditions conditions;
  conditions.loss_percent = 20;
  conditions.duplicate_percent = duplicate_percent;
  conditions.latency_ms = 50;
  GapRun run;
  uint64_t sent = 0;
  uint64_t arrived = 0;
  for (int seed = 1; seed <= 4; ++seed) {
    SCOPED_TRACE(seed);
    ConnectionPair pair(factory, config, conditions, static_cast<uint64_t>(seed));
    EXPECT_TRUE(pair.b.ok()) << pair.b.error_reason();
    std::vector<MessageHandle> room = fill_room(pair.b);
    std::set<uint32_t> seen;
    uint32_t queued = 0;
    uint32_t received = 0;
    uint32_t serial = 0;
    uint64_t seed_arrived = 0;
    // The unreliable message is created first each tick, so the reliable stream (which takes what the
    // pool has left) never crowds it out; after the stream, a few ticks let those in flight land.
    int after = 0;
    for (int tick = 0; tick < 20'000 && after < 30; ++tick) {
      if (received < 300) {
        if (MessageHandle u = pair.a.create<Numbered>()) {
          u.as<Numbered>()->serial = serial;
          if (pair.a.send(1, std::move(u)).result == SendResult::kQueued) {
            ++serial;
            ++sent;
          }
        }
      } else {
        ++after;
      }
      while (queued < 300) {
        MessageHandle m = queued % 4 == 1 ? pair.a.create<Numbered>() : pair.a.create<Small>();
        if (!m) break;
        if (Numbered* n = m.as<Numbered>()) n->serial = queued;
        if (Small* small = m.as<Small>()) small->value = static_cast<uint8_t>(queued);
        if (pair.a.send(0, std::move(m)).result != SendResult::kQueued) break;
        ++queued;
      }
      pair.tick(tick * kTick);
      while (MessageHandle m = pair.b.receive(0)) {
        run.reliable_in_order &=
            received % 4 == 1
                ? m.as<Numbered>() != nullptr && m.as<Numbered>()->serial == received
                : m.as<Small>() != nullptr && m.as<Small>()->value == static_cast<uint8_t>(received);
        ++received;
      }
      while (MessageHandle m = pair.b.receive(1)) {
        ++arrived;
        ++seed_arrived;
        run.unreliable_twice |= !seen.insert(m.as<Numbered>()->serial).second;
      }
    }
    EXPECT_EQ(received, 300u);
    EXPECT_EQ(pair.b.error(), ConnectionError::kNone) << pair.b.error_reason();
    const ConnectionCounters& c = pair.b.counters();
    EXPECT_LE(seed_arrived + c.unreliable_dropped_in_order_only, serial)
        << "every unreliable message sent arrives or is released as a repeat, once";
    run.in_order_only += c.packets_in_order_only;
    run.repeats_released += c.unreliable_dropped_in_order_only;
  }
  run.sent = sent;
  run.ratio = sent == 0 ? 0.0 : static_cast<double>(arrived) / static_cast<double>(sent);
  return run;
}

// While a reliable gap is held open and the application's room is full, most packets are applied in order
// only; their unreliable messages (snapshots, inputs) are applied all the same, so the share that arrives
// is the link's (20% loss), not what the gap leaves.
TEST(PoolGap, UnreliableMessagesKeepArrivingWhileAGapIsHeldWithTheRoomFull) {
  const GapRun run = run_held_gap(0.0);
  std::printf("in order only %llu packets, unreliable delivered %.3f of %llu\n",
              static_cast<unsigned long long>(run.in_order_only), run.ratio,
              static_cast<unsigned long long>(run.sent));
  EXPECT_GT(run.in_order_only, 0u) << "packets past a gap came while the application's room was full";
  EXPECT_GE(run.ratio, 0.75) << "the unreliable messages of packets applied in order only were dropped";
  EXPECT_FALSE(run.unreliable_twice);
  EXPECT_EQ(run.repeats_released, 0u)
      << "no packet was duplicated, so each one's unreliable messages were applied";
  EXPECT_TRUE(run.reliable_in_order);
}

// A duplicated packet applied in order only: its first copy applied the unreliable messages, the second
// releases them (counted), so none arrives twice.
TEST(PoolGap, ADuplicateOfAPacketAppliedInOrderOnlyAppliesItsUnreliableMessagesOnce) {
  const GapRun run = run_held_gap(30.0);
  std::printf("in order only %llu packets, unreliable delivered %.3f of %llu, %llu released as repeats\n",
              static_cast<unsigned long long>(run.in_order_only), run.ratio,
              static_cast<unsigned long long>(run.sent),
              static_cast<unsigned long long>(run.repeats_released));
  EXPECT_GT(run.in_order_only, 0u);
  EXPECT_GT(run.repeats_released, 0u) << "some packet applied in order only came twice";
  EXPECT_FALSE(run.unreliable_twice) << "an unreliable message was applied by both copies of its packet";
  EXPECT_GE(run.ratio, 0.75);
  EXPECT_TRUE(run.reliable_in_order);
}

// The marks behind the connection's rule: within the window a mark is remembered, across the sequence's
// wrap too; a window past it forgets it, and a jump of half the space or more clears them.
TEST(SequenceMarks, MarksWithinTheWindowAcrossTheWrapAndForgetsPastIt) {
  detail::SequenceMarks marks(256);
  EXPECT_EQ(marks.memory_bytes(), 32u);
  EXPECT_EQ(detail::SequenceMarks::memory_required(256), 32u);
  EXPECT_EQ(detail::SequenceMarks::memory_required(1), 8u) << "at least 64 sequences";
  EXPECT_FALSE(marks.marked(65530));
  marks.mark(65530);
  marks.mark(65534);
  EXPECT_TRUE(marks.marked(65530));
  EXPECT_FALSE(marks.marked(65531));
  EXPECT_FALSE(marks.marked(3)) << "a newer sequence is not marked";
  EXPECT_TRUE(marks.marked(65534)) << "the front moved across the wrap";
  EXPECT_TRUE(marks.marked(65530));
  marks.mark(2);
  EXPECT_TRUE(marks.marked(2));
  EXPECT_FALSE(marks.marked(302)) << "300 on: a whole window past every mark";
  EXPECT_FALSE(marks.marked(2));

  marks.mark(1000);
  EXPECT_FALSE(marks.marked(1255));
  EXPECT_TRUE(marks.marked(1000)) << "255 behind the front: still in the window";
  EXPECT_FALSE(marks.marked(1256));
  EXPECT_FALSE(marks.marked(1000)) << "256 behind: its bit is the front's now";

  marks.mark(5000);
  marks.mark(4000);  // 1000 behind the front: a resync, the window starts again there
  EXPECT_TRUE(marks.marked(4000));
  EXPECT_FALSE(marks.marked(5000));
  marks.clear();
  EXPECT_FALSE(marks.marked(4000));
}

// Two connections joined by hand: each side's datagrams are kept until the test delivers them, and a hook
// may run inside a transmit (as a game's transport callback may call back into the connection).
struct Wire {
  std::vector<std::vector<std::byte>> datagrams;
  void (*hook)(Wire&) = nullptr;
  void* context = nullptr;
  int transmits = 0;
  static void transmit(void* self, std::span<const std::byte> datagram) {
    auto& wire = *static_cast<Wire*>(self);
    wire.datagrams.emplace_back(datagram.begin(), datagram.end());
    ++wire.transmits;
    if (wire.hook != nullptr) wire.hook(wire);
  }
  ConnectionCallbacks callbacks() { return ConnectionCallbacks{this, &Wire::transmit}; }
  void deliver(Connection& to) {
    for (const std::vector<std::byte>& d : datagrams) to.receive_packet(d);
    datagrams.clear();
  }
};

// One lockstep tick of two connections joined by Wires: both update, a's packet goes to b, then b's to a.
void exchange(Connection& a, Connection& b, Wire& to_a, Wire& to_b, double time) {
  a.update(time);
  b.update(time);
  a.send_packet();
  to_b.deliver(b);
  b.send_packet();
  to_a.deliver(a);
}

// Ticks from `tick` until b holds the two blocks queued on a's channel 1 (they fill b's block message
// slots) and a has nothing left to send there; returns them, `tick` at the next tick (at most 60 ticks).
std::vector<MessageHandle> hold_two_blocks(Connection& a, Connection& b, Wire& to_a, Wire& to_b, int& tick) {
  std::vector<MessageHandle> held;
  for (; tick < 60 && (held.size() < 2 || a.send_queue_depth(1) > 0); ++tick) {
    exchange(a, b, to_a, to_b, tick * kTick);
    while (MessageHandle m = b.receive(1)) held.push_back(std::move(m));
  }
  return held;
}

// Whether `datagram` carries channel 0's reliable id 0: a connection that has received nothing delivers
// that id from the datagram alone, and from no datagram without it. (Its endpoint takes any first
// sequence: a fresh one otherwise refuses those past max_sequence_jump.) Not for packets with block
// fragments: one past its channel's first id makes the probe defer the whole packet.
bool carries_first_id(const MessageFactory& factory, ConnectionConfig config,
                      std::span<const std::byte> datagram) {
  config.endpoint.max_sequence_jump = 32767;
  Connection probe(factory, config);
  const ReceiveResult result = probe.receive_packet(datagram);
  EXPECT_TRUE(result == ReceiveResult::kDelivered || result == ReceiveResult::kDeferred) << to_string(result);
  return static_cast<bool>(probe.receive(0));
}

struct Replay {
  bool copy_kept = false;
  int copy_serials = 0;           // unreliable messages the copy applied when it first came
  int id0_dropped = 0;            // datagrams dropped for carrying channel 0's id 0
  uint64_t processed_during = 0;  // packets b accepted whole while the gap was held
  bool reliable_arrived = false;  // something on channel 0 came through the gap
  bool twice = false;             // an unreliable serial arrived twice
  // The replayed copy: what b's endpoint said, and the rise of b's packets_stale and of its
  // unreliable_dropped_in_order_only.
  ReceiveResult result = ReceiveResult::kDelivered;
  uint64_t stale = 0;
  uint64_t released = 0;
};

// b's application room is full and every datagram carrying channel 0's reliable id 0 is dropped; a sends a
// new reliable message (and two unreliable ones) every tick, so every packet b gets past the gap is
// applied in order only and none is recorded. A copy of the first such packet is kept and replayed to b
// `late` sequences after it.
Replay replay_in_order_only_copy(int late) {
  const MessageFactory factory(kAllTypes);
  const size_t numbered = MessagePool::message_bytes(factory, factory.types()[Numbered::kTypeId]);
  ConnectionConfig config;
  config.channel_count = 2;
  config.channels[0].max_messages_per_packet = 8;
  config.channels[1].type = ChannelType::kUnreliableUnordered;
  config.channels[1].max_messages_per_packet = 8;
  config.message_pool_bytes = static_cast<int>(32 * numbered);  // b: a reserve of 16 and a room of 16
  ConnectionConfig sender = config;
  sender.message_pool_bytes = 0;  // a keeps every reliable message unacked: the derived budget holds them
  Wire to_b;
  Wire to_a;
  Connection a(factory, sender, to_b.callbacks());
  Connection b(factory, config, to_a.callbacks());
  Replay run;
  EXPECT_TRUE(a.ok()) << a.error_reason();
  EXPECT_TRUE(b.ok()) << b.error_reason();
  std::vector<MessageHandle> room = fill_room(b);
  std::set<uint32_t> seen;
  uint32_t serial = 0;
  uint32_t reliable = 0;
  std::vector<std::byte> copy;
  int since_copy = 0;
  const auto drain = [&] {
    int count = 0;
    while (MessageHandle m = b.receive(1)) {
      run.twice |= !seen.insert(m.as<Numbered>()->serial).second;
      ++count;
    }
    while (MessageHandle m = b.receive(0)) run.reliable_arrived = true;
    return count;
  };
  uint64_t processed = 0;
  for (int tick = 0; tick < 1000 && (copy.empty() || since_copy < late); ++tick) {
    // The first ticks carry unreliable messages only, which b accepts whole: its received window has a
    // newest recorded packet before the gap.
    if (tick >= 3) {
      MessageHandle m = a.create<Numbered>();
      m.as<Numbered>()->serial = reliable++;
      EXPECT_EQ(a.send(0, std::move(m)).result, SendResult::kQueued);
    }
    for (int i = 0; i < 2; ++i) {
      MessageHandle u = a.create<Numbered>();
      u.as<Numbered>()->serial = serial++;
      EXPECT_EQ(a.send(1, std::move(u)).result, SendResult::kQueued);
    }
    a.update(tick * kTick);
    b.update(tick * kTick);
    EXPECT_TRUE(a.send_packet());
    if (tick == 3) processed = b.counters().packets_processed;
    for (const std::vector<std::byte>& d : to_b.datagrams) {
      if (!copy.empty()) ++since_copy;
      if (carries_first_id(factory, config, d)) {
        ++run.id0_dropped;
        continue;
      }
      const uint64_t in_order_only = b.counters().packets_in_order_only;
      b.receive_packet(d);
      const bool first = copy.empty() && b.counters().packets_in_order_only > in_order_only;
      const int count = drain();
      if (first) {
        copy = d;
        run.copy_serials = count;
      }
    }
    to_b.datagrams.clear();
    b.send_packet();
    to_a.deliver(a);
  }
  run.processed_during = b.counters().packets_processed - processed;
  run.copy_kept = !copy.empty();
  if (copy.empty()) return run;
  const uint64_t stale = b.endpoint().counters().packets_stale;
  const uint64_t released = b.counters().unreliable_dropped_in_order_only;
  run.result = b.receive_packet(copy);
  drain();
  run.stale = b.endpoint().counters().packets_stale - stale;
  run.released = b.counters().unreliable_dropped_in_order_only - released;
  EXPECT_TRUE(b.ok()) << b.error_reason();
  return run;
}

// The reviewer's case: a copy of a packet applied in order only comes back after more packets than the
// received window (256) has room for, all of them applied in order only too (the gap is held, the room is
// full), so none was recorded and the connection's mark of the copy is gone. The endpoint refuses it as
// stale (a whole window behind the newest packet taken): its unreliable messages are not applied again.
TEST(PoolGap, ACopyOfAPacketAppliedInOrderOnlyReplayedAWindowLateIsStale) {
  const Replay run = replay_in_order_only_copy(300);
  std::printf("%d datagrams carrying id 0 dropped, the copy applied %d unreliable messages, replay: %s\n",
              run.id0_dropped, run.copy_serials, to_string(run.result));
  ASSERT_TRUE(run.copy_kept) << "no packet was applied in order only";
  EXPECT_GT(run.copy_serials, 0) << "the copy carries unreliable messages, applied when it first came";
  EXPECT_GT(run.id0_dropped, 1) << "id 0 was resent while the gap was held";
  EXPECT_EQ(run.processed_during, 0u) << "every packet past the gap was applied in order only";
  EXPECT_FALSE(run.reliable_arrived) << "the gap was held";
  EXPECT_STREQ(to_string(run.result), to_string(ReceiveResult::kStale));
  EXPECT_EQ(run.stale, 1u);
  EXPECT_EQ(run.released, 0u) << "the copy never reached the connection";
  EXPECT_FALSE(run.twice) << "an unreliable message of the copy was applied twice";
}

// Within the window the connection still marks the copy: it is taken (applied in order only again, the
// gap still held) and its unreliable messages are released unapplied, counted.
TEST(PoolGap, ACopyOfAPacketAppliedInOrderOnlyReplayedWithinTheWindowAppliesItsUnreliableOnce) {
  const Replay run = replay_in_order_only_copy(100);
  ASSERT_TRUE(run.copy_kept) << "no packet was applied in order only";
  EXPECT_GT(run.copy_serials, 0);
  EXPECT_EQ(run.processed_during, 0u);
  EXPECT_STREQ(to_string(run.result), to_string(ReceiveResult::kDeferred));
  EXPECT_EQ(run.stale, 0u);
  EXPECT_EQ(run.released, static_cast<uint64_t>(run.copy_serials)) << "the duplicate's unreliable messages";
  EXPECT_FALSE(run.twice) << "an unreliable message of the copy was applied twice";
}

// A type without a nothrow move, as large as a few fragments: a received one is sent on by copy.
struct Bulky {
  static constexpr uint32_t kTypeId = 0;
  FixedVector<uint8_t, 3000> bytes;
  Bulky() = default;
  Bulky(const Bulky&) = default;
  Bulky(Bulky&& other) noexcept(false) : bytes(other.bytes) {}
  Bulky& operator=(const Bulky&) = default;
  template <typename Stream>
  bool serialize(Stream& stream) {
    auto count = static_cast<uint32_t>(bytes.size());
    BITWIRE_TRY(serialize_count(stream, count, 0u, 3000u));
    if constexpr (Stream::kIsReading) bytes.resize(count);
    return serialize_bytes(stream, bytes.data(), count);
  }
};
constexpr MessageTypeInfo kBulkyTypes[] = {describe_message<Bulky>("Bulky")};

MessageHandle bulky(Connection& from, size_t size, uint8_t seed) {
  MessageHandle m = from.create<Bulky>();
  if (!m) return m;
  m.as<Bulky>()->bytes.resize(size);
  for (size_t i = 0; i < size; ++i) m.as<Bulky>()->bytes[i] = static_cast<uint8_t>(seed + i * 7);
  return m;
}

bool bulky_is(const MessageHandle& m, size_t size, uint8_t seed) {
  const Bulky* b = m.as<Bulky>();
  if (b == nullptr || b->bytes.size() != size) return false;
  for (size_t i = 0; i < size; ++i) {
    if (b->bytes[i] != static_cast<uint8_t>(seed + i * 7)) return false;
  }
  return true;
}

// The copy of a received message (a type without a nothrow move) leaving the receive reserve needs
// scratch; a send() from a transmit callback runs while the endpoint still reads the packet it is
// fragmenting, so the copy must not be made in that packet's buffer: the fragments after the first would
// carry the copy's bytes.
TEST(PoolCopy, ASendFromATransmitCallbackLeavesTheFragmentsOfThePacketBeingSentIntact) {
  const MessageFactory factory(kBulkyTypes);
  ConnectionConfig config;
  config.max_packet_size = 4000;  // above 1200: sent in 1024-byte fragments
  config.channels[0].max_messages_per_packet = 4;
  config.channels[0].send_queue_size = 16;
  config.channels[0].receive_queue_size = 16;
  Wire to_b;
  Wire to_a;
  Connection a(factory, config, to_b.callbacks());
  Connection b(factory, config, to_a.callbacks());
  ASSERT_TRUE(a.ok()) << a.error_reason();
  ASSERT_TRUE(b.ok()) << b.error_reason();
  EXPECT_EQ(Connection::copy_buffer_bytes(factory, config), 4008u);

  ASSERT_EQ(a.send(0, bulky(a, 2500, 1)).result, SendResult::kQueued);
  a.update(0.0);
  ASSERT_TRUE(a.send_packet());
  to_b.deliver(b);
  MessageHandle got = b.receive(0);
  ASSERT_TRUE(got);
  ASSERT_TRUE(b.pool().in_receive_reserve(got));

  // b's next packet carries a 2,900-byte message in 3 fragments; after the first is handed to the
  // transport, the game sends the received message on.
  ASSERT_EQ(b.send(0, bulky(b, 2900, 2)).result, SendResult::kQueued);
  struct Echo {
    Connection* b;
    MessageHandle* got;
    SendResult result = SendResult::kEmptyMessage;
  } echo{&b, &got};
  to_a.context = &echo;
  to_a.hook = [](Wire& wire) {
    auto& e = *static_cast<Echo*>(wire.context);
    if (wire.transmits == 1) e.result = e.b->send(0, std::move(*e.got)).result;
  };
  b.update(0.0);
  ASSERT_TRUE(b.send_packet());
  EXPECT_EQ(to_a.transmits, 3) << "the packet was sent in fragments";
  EXPECT_EQ(echo.result, SendResult::kQueued);
  to_a.hook = nullptr;
  to_a.deliver(a);
  EXPECT_TRUE(a.ok()) << a.error_reason();
  MessageHandle first = a.receive(0);
  ASSERT_TRUE(first) << "the fragmented packet was refused: packets_invalid " << a.counters().packets_invalid;
  EXPECT_TRUE(bulky_is(first, 2900, 2)) << "a fragment carried the copy's bytes";

  // And the copy itself arrives as it was received.
  MessageHandle second;
  for (int tick = 1; tick < 60 && !second; ++tick) {
    exchange(a, b, to_a, to_b, tick * kTick);
    second = a.receive(0);
  }
  ASSERT_TRUE(second);
  EXPECT_TRUE(bulky_is(second, 2500, 1));
  EXPECT_TRUE(a.ok()) << a.error_reason();
}

// The copy's failures leave the message where it was: with the application's room full, a received
// message of a type without a nothrow move is refused (kReservedForReceiving) and stays in the reserve,
// unchanged; once the room has space, the same handle is copied out and sent.
TEST(PoolCopy, ACopyWithNoRoomIsRefusedAndTheMessageStaysInTheReserve) {
  const MessageFactory factory(kBulkyTypes);
  ConnectionConfig config;
  config.channels[0].max_messages_per_packet = 4;
  config.channels[0].send_queue_size = 16;
  config.channels[0].receive_queue_size = 16;
  ConnectionPair pair(factory, config, NetworkConditions{}, 5);
  ASSERT_TRUE(pair.b.ok()) << pair.b.error_reason();
  ASSERT_EQ(pair.a.send(0, bulky(pair.a, 300, 9)).result, SendResult::kQueued);
  MessageHandle got;
  for (int tick = 0; tick < 60 && !got; ++tick) {
    pair.tick(tick * kTick);
    got = pair.b.receive(0);
  }
  ASSERT_TRUE(got);
  ASSERT_TRUE(pair.b.pool().in_receive_reserve(got));
  std::vector<MessageHandle> room;
  for (MessageHandle h = pair.b.create<Bulky>(); h; h = pair.b.create<Bulky>()) room.push_back(std::move(h));
  ASSERT_FALSE(room.empty());
  const Bulky* before = got.as<Bulky>();
  const SendStatus refused = pair.b.send(0, std::move(got));
  EXPECT_EQ(refused.result, SendResult::kReservedForReceiving);
  ASSERT_TRUE(got);
  EXPECT_TRUE(pair.b.pool().in_receive_reserve(got));
  EXPECT_EQ(got.as<Bulky>(), before);
  EXPECT_TRUE(bulky_is(got, 300, 9));
  room.pop_back();
  EXPECT_EQ(pair.b.send(0, std::move(got)).result, SendResult::kQueued);
  EXPECT_FALSE(got);
  EXPECT_EQ(pair.b.pool().receive_reserve_free(), pair.b.pool().receive_reserve_bytes());
  room.clear();
}

// A factory whose types all move without throwing needs no copy buffer.
TEST(PoolCopy, NoCopyBufferWithoutATypeThatIsCopied) {
  const MessageFactory factory(kAllTypes);
  const ConnectionConfig config;
  EXPECT_EQ(Connection::copy_buffer_bytes(factory, config), 0u);
  EXPECT_EQ(Connection::copy_buffer_bytes(MessageFactory(kBulkyTypes), config), 1208u);
  const Connection with(MessageFactory(kBulkyTypes), config);
  EXPECT_EQ(with.memory_bytes(), Connection::memory_required(MessageFactory(kBulkyTypes), config));
}

// A received block lent by its channel is copied into a pool buffer only once the send will be
// accepted: a send refused for want of room to move the message to keeps the block lent (its bytes where
// they were), and the pool's buffers untouched.
TEST(PoolLent, ASendRefusedForRoomKeepsTheBlockLent) {
  const MessageFactory factory(kAllTypes);
  ConnectionConfig config;
  ConnectionPair pair(factory, config, NetworkConditions{}, 3);
  ASSERT_TRUE(pair.b.ok()) << pair.b.error_reason();
  MessageHandle m = pair.a.create<WithBlock>();
  std::vector<std::byte> block(3000);
  for (size_t i = 0; i < block.size(); ++i) block[i] = static_cast<std::byte>(i * 13);
  ASSERT_TRUE(m.attach_block(block));
  ASSERT_EQ(pair.a.send(0, std::move(m)).result, SendResult::kQueued);
  MessageHandle got;
  for (int tick = 0; tick < 120 && !got; ++tick) {
    pair.tick(tick * kTick);
    got = pair.b.receive(0);
  }
  ASSERT_TRUE(got);
  ASSERT_TRUE(got.block_lent());
  std::vector<MessageHandle> room = fill_room(pair.b);
  const std::byte* bytes = got.block().data();
  const uint64_t exhausted = pair.b.pool().blocks_exhausted();
  const SendStatus refused = pair.b.send(0, std::move(got));
  EXPECT_EQ(refused.result, SendResult::kReservedForReceiving);
  ASSERT_TRUE(got);
  EXPECT_TRUE(got.block_lent()) << "the block was moved into a pool buffer for a send that was refused";
  EXPECT_EQ(got.block().data(), bytes);
  EXPECT_EQ(pair.b.pool().blocks_exhausted(), exhausted);
  room.clear();
  EXPECT_EQ(pair.b.send(0, std::move(got)).result, SendResult::kQueued);
  MessageHandle echo;
  for (int tick = 120; tick < 300 && !echo; ++tick) {
    pair.tick(tick * kTick);
    echo = pair.a.receive(0);
  }
  ASSERT_TRUE(echo);
  ASSERT_EQ(echo.block().size(), block.size());
  EXPECT_TRUE(std::equal(block.begin(), block.end(), echo.block().begin()));
}

// A packet applied in order only (a message past a reliable gap, the application's room full) that also
// brings the only fragment of the block at another channel's head, whose message lands in the receive
// reserve (the application holds the received blocks that fill the block message slots): the block is
// complete, so deliverable at once, and is delivered rather than dropped.
TEST(PoolGap, ABlockThatAPacketAppliedInOrderOnlyCompletesIsDelivered) {
  const MessageFactory factory(kAllTypes);
  ConnectionConfig config;
  config.channel_count = 2;
  config.channels[0].disable_blocks = true;
  config.block_pool_size = 4;
  Wire to_b;
  Wire to_a;
  Connection a(factory, config, to_b.callbacks());
  Connection b(factory, config, to_a.callbacks());
  ASSERT_TRUE(a.ok()) << a.error_reason();
  ASSERT_TRUE(b.ok()) << b.error_reason();
  std::vector<std::byte> block(200);
  for (size_t i = 0; i < block.size(); ++i) block[i] = static_cast<std::byte>(i * 3);
  const auto send_block = [&](uint8_t tag) {
    MessageHandle m = a.create<WithBlock>();
    m.as<WithBlock>()->tag = tag;
    return m.attach_block(block) && a.send(1, std::move(m)).result == SendResult::kQueued;
  };
  // Two blocks the application holds: they fill the channel's block message slots.
  ASSERT_TRUE(send_block(1));
  ASSERT_TRUE(send_block(2));
  int tick = 0;
  std::vector<MessageHandle> held = hold_two_blocks(a, b, to_a, to_b, tick);
  ASSERT_EQ(held.size(), 2u);
  std::vector<MessageHandle> room = fill_room(b);

  MessageHandle first = a.create<Numbered>();
  first.as<Numbered>()->serial = 0;
  ASSERT_EQ(a.send(0, std::move(first)).result, SendResult::kQueued);
  a.update(tick * kTick);
  ASSERT_TRUE(a.send_packet());
  to_b.datagrams.clear();  // lost: channel 0's id 0 is the gap

  MessageHandle second = a.create<Numbered>();
  second.as<Numbered>()->serial = 1;
  ASSERT_EQ(a.send(0, std::move(second)).result, SendResult::kQueued);
  ASSERT_TRUE(send_block(42));
  a.update((tick + 1) * kTick);
  ASSERT_TRUE(a.send_packet());  // channel 0's id 1 (id 0 is not due again yet) and the block's fragment
  ASSERT_EQ(to_b.datagrams.size(), 1u);
  to_b.deliver(b);
  EXPECT_EQ(b.counters().packets_in_order_only, 1u) << "id 1 waits past the gap and the room is full";
  EXPECT_TRUE(b.ok()) << b.error_reason();
  MessageHandle got = b.receive(1);
  ASSERT_TRUE(got) << "the completed block was dropped: fragments dropped "
                   << b.channel_counters(1).block_fragments_dropped;
  EXPECT_TRUE(b.pool().in_receive_reserve(got)) << "the block message slots were taken";
  EXPECT_EQ(got.as<WithBlock>()->tag, 42);
  ASSERT_EQ(got.block().size(), block.size());
  EXPECT_TRUE(std::equal(block.begin(), block.end(), got.block().begin()));
  EXPECT_FALSE(b.receive(0)) << "id 1 waits for id 0";
  EXPECT_EQ(b.channel_counters(1).block_fragments_dropped, 0u);
}

// The drop branch of a fragment 0 that would wait in the receive reserve: the application holds the
// received blocks that fill the block message slots, so fragment 0's message of a 79-fragment block is
// created in the reserve; with the application's room full and a reliable gap held on the other channel, it
// would wait there for the other fragments, so it is dropped unstored (counted) and the packet is not
// acked. The peer resends it; the room frees and the gap fills before the other fragments have all come
// (one a packet), and the block arrives whole, fragment 0 then moved to the application's room.
TEST(PoolGap, ABlocksFirstFragmentThatWouldWaitInTheReserveIsDroppedAndTheBlockArrivesWhole) {
  const MessageFactory factory(kAllTypes);
  ConnectionConfig config;
  config.channel_count = 2;
  config.channels[0].disable_blocks = true;
  config.block_pool_size = 4;
  // The sender resends channel 0's messages after a second, so the gap (id 0, lost once) is held that long.
  ConnectionConfig sender = config;
  sender.channels[0].message_resend_time = 1.0;
  Wire to_b;
  Wire to_a;
  Connection a(factory, sender, to_b.callbacks());
  Connection b(factory, config, to_a.callbacks());
  ASSERT_TRUE(a.ok()) << a.error_reason();
  ASSERT_TRUE(b.ok()) << b.error_reason();
  std::vector<std::byte> small(200);
  for (size_t i = 0; i < small.size(); ++i) small[i] = static_cast<std::byte>(i * 3);
  std::vector<std::byte> large(80'000);  // 79 fragments of 1024 bytes (the last 128)
  for (size_t i = 0; i < large.size(); ++i) large[i] = static_cast<std::byte>(i * 11 + 1);
  const auto send_block = [&](uint8_t tag, const std::vector<std::byte>& block) {
    MessageHandle m = a.create<WithBlock>();
    m.as<WithBlock>()->tag = tag;
    return m.attach_block(block) && a.send(1, std::move(m)).result == SendResult::kQueued;
  };
  ASSERT_TRUE(send_block(1, small));
  ASSERT_TRUE(send_block(2, small));
  int tick = 0;
  std::vector<MessageHandle> held = hold_two_blocks(a, b, to_a, to_b, tick);
  ASSERT_EQ(held.size(), 2u);
  std::vector<MessageHandle> room = fill_room(b);

  const auto send_numbered = [&](uint32_t serial) {
    MessageHandle m = a.create<Numbered>();
    m.as<Numbered>()->serial = serial;
    return a.send(0, std::move(m)).result == SendResult::kQueued;
  };
  ASSERT_TRUE(send_numbered(0));
  const int gap_at = tick;
  a.update(tick * kTick);
  ASSERT_TRUE(a.send_packet());
  ASSERT_EQ(to_b.datagrams.size(), 1u);
  to_b.datagrams.clear();  // lost: channel 0's id 0 is the gap

  ASSERT_TRUE(send_numbered(1));
  ASSERT_TRUE(send_block(42, large));
  ++tick;
  a.update(tick * kTick);
  b.update(tick * kTick);
  ASSERT_TRUE(a.send_packet());  // channel 0's id 1 and the block's fragment 0
  ASSERT_EQ(to_b.datagrams.size(), 1u);
  const auto& numbers = static_cast<const ReliableOrderedChannel&>(b.channel(0));
  const auto& blocks = static_cast<const ReliableOrderedChannel&>(b.channel(1));
  to_b.deliver(b);
  EXPECT_TRUE(b.ok()) << b.error_reason();
  EXPECT_EQ(b.counters().packets_in_order_only, 1u);
  EXPECT_EQ(b.channel_counters(1).block_fragments_dropped, 1u)
      << "fragment 0 would have waited in the reserve";
  EXPECT_FALSE(blocks.block_receiver()->receiving()) << "fragment 0 was stored";
  EXPECT_EQ(b.pool().receive_reserve_free(), b.pool().receive_reserve_bytes())
      << "fragment 0's message was kept in the reserve";
  EXPECT_FALSE(b.receive(0)) << "id 1 waits for id 0";
  EXPECT_FALSE(b.receive(1));

  // The room stays full for 50 ticks while the gap is held (id 0 is resent a second after it was lost);
  // fragment 0 may be resent meanwhile and dropped again. Then the room frees.
  const int release = gap_at + 50;
  std::vector<uint32_t> serials;
  MessageHandle got;
  int got_at = -1;
  int gap_filled_at = -1;
  uint64_t dropped_in_hold = 0;
  for (++tick; tick < release + 300 && (!got || serials.size() < 2); ++tick) {
    if (tick == release) {
      dropped_in_hold = b.channel_counters(1).block_fragments_dropped;
      EXPECT_EQ(numbers.receive_head_id(), 0) << "the gap was held";
      EXPECT_FALSE(got) << "the block completed while the room was full";
      room.clear();
    }
    exchange(a, b, to_a, to_b, tick * kTick);
    while (MessageHandle m = b.receive(0)) {
      if (gap_filled_at < 0) gap_filled_at = tick;
      serials.push_back(m.as<Numbered>()->serial);
    }
    if (MessageHandle m = b.receive(1)) {
      EXPECT_FALSE(got) << "one block was sent";
      got = std::move(m);
      got_at = tick;
    }
  }
  std::printf(
      "fragments dropped %llu by the room's release (%d ticks after the gap), %llu in all; gap filled "
      "%d and the block arrived %d ticks after the release\n",
      static_cast<unsigned long long>(dropped_in_hold), release - gap_at,
      static_cast<unsigned long long>(b.channel_counters(1).block_fragments_dropped), gap_filled_at - release,
      got_at - release);
  EXPECT_TRUE(b.ok()) << b.error_reason();
  EXPECT_GE(dropped_in_hold, 1u);
  ASSERT_TRUE(got) << "the block never arrived";
  EXPECT_GT(got_at, release);
  EXPECT_GT(got_at, gap_filled_at) << "the block came after both the room freed and the gap filled";
  EXPECT_EQ(got.as<WithBlock>()->tag, 42);
  ASSERT_EQ(got.block().size(), large.size());
  EXPECT_TRUE(std::equal(large.begin(), large.end(), got.block().begin()));
  EXPECT_EQ(serials, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(b.counters().packets_invalid, 0u);
}

// A block whose fragment 0 arrives in a packet applied in order only, with more fragments to come: its
// message would wait on the peer in the reserve, so the fragment is dropped unstored (counted); the
// peer resends it and the block arrives whole once the room has space.
TEST(PoolGap, ABlocksFirstFragmentInAPacketAppliedInOrderOnlyIsResentAndTheBlockArrives) {
  const MessageFactory factory(kAllTypes);
  ConnectionConfig config;
  config.channel_count = 2;
  config.channels[0].disable_blocks = true;
  config.channels[0].max_messages_per_packet = 8;  // the stream spans many packets, so losses leave gaps
  NetworkConditions conditions;
  conditions.loss_percent = 20;
  ConnectionPair pair(factory, config, conditions, 11);
  ASSERT_TRUE(pair.b.ok()) << pair.b.error_reason();
  std::vector<MessageHandle> room = fill_room(pair.b);
  std::vector<std::byte> block(5000);
  for (size_t i = 0; i < block.size(); ++i) block[i] = static_cast<std::byte>(i * 5);
  uint32_t queued = 0;
  uint32_t received = 0;
  int blocks = 0;
  bool intact = true;
  for (int tick = 0; tick < 6000 && (received < 200 || blocks < 4); ++tick) {
    while (queued < 200) {
      MessageHandle n = pair.a.create<Numbered>();
      if (!n) break;
      n.as<Numbered>()->serial = queued;
      if (pair.a.send(0, std::move(n)).result != SendResult::kQueued) break;
      ++queued;
    }
    if (tick % 30 == 0 && blocks + pair.a.send_queue_depth(1) < 4) {
      MessageHandle m = pair.a.create<WithBlock>();
      if (m && m.attach_block(block)) pair.a.send(1, std::move(m));
    }
    pair.tick(tick * kTick);
    // The room is given back only after a while: until then every packet past a gap is applied in order
    // only.
    if (tick == 600) room.clear();
    while (MessageHandle n = pair.b.receive(0)) {
      intact &= n.as<Numbered>()->serial == received;
      ++received;
    }
    while (MessageHandle m = pair.b.receive(1)) {
      intact &= m.block().size() == block.size() && std::equal(block.begin(), block.end(), m.block().begin());
      ++blocks;
    }
  }
  EXPECT_TRUE(intact);
  EXPECT_EQ(received, 200u);
  EXPECT_EQ(blocks, 4);
  EXPECT_GT(pair.b.counters().packets_in_order_only, 0u)
      << "pool exhausted " << pair.b.counters().packets_pool_exhausted << ", processed "
      << pair.b.counters().packets_processed;
  EXPECT_TRUE(pair.b.ok()) << pair.b.error_reason();
}

}  // namespace
}  // namespace bitwire
