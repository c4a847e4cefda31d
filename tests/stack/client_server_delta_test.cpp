// A type with the delta form through bitwire::Server and Client, with
// StackConfig::connection.delta_baselines on: the server sends one Board per tick per client with
// Server::send as it sends anything, the client receives whole Boards from Client::receive, equal to
// what was sent, through 10% datagram loss and a reconnect (which starts again from a whole Board).
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <map>

#include "bitwire/core/random.hpp"
#include "support/stack_harness.hpp"

namespace bitwire::test {
namespace {

// A hand-written delta type (what idlc generates for `delta message Board { uint32 tick; uint16
// cells[32]; }`, in a simpler form): the tick always, then per cell a changed bit and the new value.
struct Board {
  static constexpr uint32_t kTypeId = 0;
  static constexpr size_t MaxBits = 32 + 32 * 16;
  static constexpr size_t MaxDeltaBits = 32 + 32 * 17;
  uint32_t tick = 0;
  std::array<uint16_t, 32> cells{};

  template <typename Stream>
  bool serialize(Stream& stream) {
    if (!serialize_bits(stream, tick, 32)) return false;
    for (uint16_t& cell : cells) {
      if (!serialize_bits(stream, cell, 16)) return false;
    }
    return true;
  }
  template <typename Stream>
  bool serialize_delta(Stream& stream, const Board& baseline) {
    if (!serialize_bits(stream, tick, 32)) return false;
    for (size_t i = 0; i < cells.size(); ++i) {
      bool changed = false;
      if constexpr (!Stream::kIsReading) changed = cells[i] != baseline.cells[i];
      if (!serialize_bool(stream, changed)) return false;
      if (!changed) {
        if constexpr (Stream::kIsReading) cells[i] = baseline.cells[i];
        continue;
      }
      if (!serialize_bits(stream, cells[i], 16)) return false;
    }
    return true;
  }
  template <typename Stream>
  requires(!Stream::kIsReading) bool serialize_delta(Stream& stream, const Board& baseline) const {
    return const_cast<Board*>(this)->serialize_delta(stream, baseline);
  }
  friend bool operator==(const Board&, const Board&) = default;
};

inline constexpr MessageTypeInfo kBoardTypes[] = {describe_message<Board>("Board")};
inline constexpr MessageFactory kBoardFactory{kBoardTypes};

TEST(ClientServerDelta, EveryBoardReceivedIsWhatTheServerSent) {
  StackConfig config = stack_test_config(2);
  config.connection.delta_baselines = 16;
  StackHarness h(config, 16384, kBoardFactory);
  h.add_client();
  h.connect(0);
  ASSERT_TRUE(h.run_until([&] { return h.all_connected(); }));

  Random rng(5);
  int dropped = 0;
  h.network.on_send = [&](LoopbackNetwork::Datagram&) {
    if (rng.below(10) != 0) return true;
    ++dropped;
    return false;
  };
  Board board;
  std::map<uint32_t, Board> sent;
  int received = 0;
  int mismatched = 0;
  h.on_server = [&] {
    if (!h.server->is_connected(0)) return;
    board.tick += 1;
    board.cells[rng.below(32)] = static_cast<uint16_t>(rng.below(65536));
    MessageHandle message = h.server->create<Board>(0);
    ASSERT_TRUE(message);
    *message.as<Board>() = board;
    sent[board.tick] = board;
    ASSERT_TRUE(h.server->send(0, kUnreliable, std::move(message)));
  };
  const auto drain = [&] {
    while (MessageHandle message = h.clients[0]->receive(kUnreliable)) {
      const Board* got = message.as<Board>();
      ASSERT_NE(got, nullptr);
      ++received;
      const auto it = sent.find(got->tick);
      if (it == sent.end() || !(it->second == *got)) ++mismatched;
    }
  };
  for (int i = 0; i < 300; ++i) {
    h.step();
    drain();
  }
  EXPECT_GT(dropped, 0);
  EXPECT_GT(received, 200);
  EXPECT_EQ(mismatched, 0);
  const DeltaBaselineCounters server_side = h.server->connection(0).delta_baselines().counters();
  const DeltaBaselineCounters client_side = h.clients[0]->connection().delta_baselines().counters();
  EXPECT_GT(server_side.sent_delta, server_side.sent_whole * 10);
  EXPECT_GT(client_side.received_delta, 0u);
  EXPECT_EQ(h.clients[0]->connection().counters().packets_invalid, 0u);

  // A new session shares no baseline with the last: it starts whole, and every Board still matches.
  h.network.on_send = nullptr;
  h.clients[0]->disconnect(h.now);
  ASSERT_TRUE(h.run_until([&] { return h.server->connected_count() == 0; }));
  const uint64_t whole_before = h.server->connection(0).delta_baselines().counters().sent_whole;
  h.connect(0);
  ASSERT_TRUE(h.run_until([&] { return h.all_connected(); }));
  for (int i = 0; i < 60; ++i) {
    h.step();
    drain();
  }
  EXPECT_EQ(mismatched, 0);
  EXPECT_GT(h.server->connection(0).delta_baselines().counters().sent_whole, whole_before);
  EXPECT_GT(h.server->connection(0).delta_baselines().counters().sent_delta, 0u);
}

}  // namespace
}  // namespace bitwire::test
