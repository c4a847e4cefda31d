// Which connection a server slot holds, under bursts of connects and disconnects far above netcode's event
// ring: nothing sent in one connection may reach another, and the game hears of every connection it could
// see. The attackers are forged identities (support/forged_client.hpp) replaying whole connections.
#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <vector>

#include "support/forged_client.hpp"
#include "support/stack_harness.hpp"

namespace bitwire::test {
namespace {

using Datagram = LoopbackNetwork::Datagram;

// Forged identities with long-lived tokens for `h`'s server at 10.9.<k / 250>.<1 + k % 250>:60000. Every
// datagram the server sends to one of them is kept off the network (offered to `on_reply` first); the first
// challenge to each one completes its response and disconnect.
struct Forgery {
  explicit Forgery(StackHarness& harness, int count, uint64_t first_id)
      : Forgery(harness, consecutive(count, first_id)) {}
  // One identity per entry of `client_ids` (equal ids: separate tokens for the same client id).
  Forgery(StackHarness& harness, const std::vector<uint64_t>& client_ids) : h(harness) {
    for (size_t n = 0; n < client_ids.size(); ++n) {
      const int k = static_cast<int>(n);
      netcode::ConnectTokenParams params;
      params.protocol_id = h.server->protocol_id();
      params.client_id = client_ids[n];
      params.create_timestamp = h.unix_now();
      params.expire_seconds = 600;
      params.timeout_seconds = 300;
      params.server_addresses.count = 1;
      params.server_addresses.items[0] = h.server_address;
      const Address address =
          Address::ipv4(10, 9, static_cast<uint8_t>(k / 250), static_cast<uint8_t>(1 + k % 250), 60000);
      clients.emplace_back(address, params, h.private_key);
    }
    h.network.on_send = [this](Datagram& d) {
      for (size_t i = 0; i < clients.size(); ++i) {
        if (d.to != clients[i].address) continue;
        if (clients[i].response.empty()) clients[i].take_challenge(std::span(d.bytes.data(), d.size));
        if (on_reply) on_reply(i, d);
        return false;
      }
      return true;
    };
    for (const ForgedClient& c : clients) inject(c.request, c.address);
    h.step();
    for (const ForgedClient& c : clients) EXPECT_FALSE(c.response.empty()) << "no challenge was captured";
  }
  // The network's hook points at this object: the harness (and its server, whose destructor still sends
  // disconnect packets) may outlive it.
  ~Forgery() { h.network.on_send = nullptr; }
  Forgery(const Forgery&) = delete;
  Forgery& operator=(const Forgery&) = delete;

  static std::vector<uint64_t> consecutive(int count, uint64_t first_id) {
    std::vector<uint64_t> ids;
    for (int k = 0; k < count; ++k) ids.push_back(first_id + static_cast<uint64_t>(k));
    return ids;
  }

  void inject(const ForgedDatagram& d, const Address& from) {
    ASSERT_TRUE(h.network.inject(from, h.server_address, bytes_of(d)));
  }
  // Queues a whole connection of identity k: request, response, then (unless `stay`) disconnect.
  void session(size_t k, bool stay = false) {
    inject(clients[k].request, clients[k].address);
    inject(clients[k].response, clients[k].address);
    if (!stay) inject(clients[k].disconnect, clients[k].address);
  }

  StackHarness& h;
  std::vector<ForgedClient> clients;
  std::function<void(size_t, const Datagram&)> on_reply;
};

// The scenario on an 8-slot server (netcode's ring: 2 * 8 + 16 = 32 events): in one update client
// A leaves slot 0, an attacker takes it, and 16 more connections come and go. A had 40 reliable messages in
// flight; the attacker, now on slot 0, must receive none of them, and the game must hear both changes.
TEST(StackSession, BurstAboveTheEventRingCarriesNothingAcross) {
  StackHarness h(8);
  Forgery forgery(h, 17, 5000);
  Client& a = h.add_client();
  h.connect(0);
  ASSERT_TRUE(h.run_until([&] { return h.all_connected(); }, 300));
  ASSERT_EQ(h.server->client_id(0), 1000u);
  drain_events(*h.server);

  h.paused = {true};  // A stops reading: nothing is acked, all 40 stay in flight
  for (uint32_t n = 0; n < 40; ++n) {
    MessageHandle message = h.server->create<Numbered>(0);
    ASSERT_NE(message.as<Numbered>(), nullptr);
    message.as<Numbered>()->serial = 0xA0000000u + n;
    ASSERT_TRUE(h.server->send(0, kReliable, std::move(message)));
  }
  for (int i = 0; i < 3; ++i) h.step();

  std::vector<Datagram> to_attacker;
  forgery.on_reply = [&](size_t k, const Datagram& d) {
    if (k == 0) to_attacker.push_back(d);
  };
  a.disconnect(h.now);
  forgery.session(0, /*stay=*/true);
  for (size_t k = 1; k < 17; ++k) forgery.session(k);
  h.step();

  ASSERT_GT(h.server->netcode().events_dropped(), 0u) << "the burst must overflow netcode's ring";
  ASSERT_EQ(h.server->client_id(0), 5000u) << "the attacker holds slot 0";
  bool heard_leave = false, heard_join = false;
  for (const ServerEvent& e : drain_events(*h.server)) {
    if (e.client_index != 0) continue;
    if (e.kind == ServerEvent::Kind::kDisconnected && e.client_id == 1000) {
      heard_leave = true;
      EXPECT_EQ(e.reason, netcode::DisconnectReason::kClientDisconnected);
    }
    if (e.kind == ServerEvent::Kind::kConnected && e.client_id == 5000) heard_join = heard_leave;
  }
  EXPECT_TRUE(heard_leave) << "the game must hear that A left";
  EXPECT_TRUE(heard_join) << "the game must hear, after A left, that the attacker came";
  EXPECT_EQ(h.server->events_dropped(), 0u);

  for (int i = 0; i < 60; ++i) h.step();
  // Decode what slot 0 sent the attacker as a fresh peer would.
  Connection peer(h.factory, h.server->config().connection, {}, h.now);
  int payloads = 0, leaked = 0, messages = 0;
  for (const Datagram& d : to_attacker) {
    netcode::PacketType type{};
    ForgedDatagram body;
    if (!forgery.clients[0].open(std::span(d.bytes.data(), d.size), type, body)) continue;
    if (type != netcode::PacketType::kPayload) continue;
    ++payloads;
    peer.receive_packet(bytes_of(body), h.now);
    for (int channel = 0; channel < peer.channel_count(); ++channel) {
      while (MessageHandle m = peer.receive(channel)) {
        ++messages;
        if (const Numbered* numbered = m.as<Numbered>(); numbered && (numbered->serial >> 16) == 0xA000u)
          ++leaked;
      }
    }
  }
  EXPECT_GT(payloads, 30) << "slot 0 kept sending to the attacker";
  EXPECT_EQ(leaked, 0) << messages << " messages reached the attacker";
  EXPECT_EQ(h.server->connection(0).send_queue_depth(kReliable), 0);
}

// 16 forged identities each make a whole connection every tick (48 datagrams a tick) for 60 s while two
// genuine clients connect and leave over and over: the game hears every genuine connect and disconnect.
TEST(StackSession, FloodOfReplayedConnectionsHidesNoGenuineEvent) {
  StackHarness h(8);
  Forgery forgery(h, 16, 7000);
  h.add_client();
  h.add_client();
  int genuine_connects = 0, genuine_disconnects = 0;  // as the genuine clients saw them
  int heard_connects = 0, heard_disconnects = 0;      // as the game heard them
  std::vector<bool> was_connected(2, false);
  std::vector<double> next_change = {h.now, h.now + 0.5};
  // One tick with the flood queued after the genuine clients' datagrams, so that in netcode's ring the
  // genuine events are the oldest when it overflows.
  const auto tick = [&] {
    h.now += 1.0 / 60.0;
    for (auto& c : h.clients) {
      c->update(h.now);
      c->send_packets();
    }
    for (size_t k = 0; k < forgery.clients.size(); ++k) forgery.session(k);
    h.server->update(h.now, h.unix_now());
    for (const ServerEvent& e : drain_events(*h.server)) {
      if (e.client_id != 1000 && e.client_id != 1001) continue;
      if (e.kind == ServerEvent::Kind::kConnected) ++heard_connects;
      if (e.kind == ServerEvent::Kind::kDisconnected) ++heard_disconnects;
    }
    h.server->send_packets();
  };
  const double end = h.now + 60.0;
  while (h.now < end) {
    for (size_t i = 0; i < 2; ++i) {
      Client& c = *h.clients[i];
      if (c.is_connected() != was_connected[i]) {
        (c.is_connected() ? genuine_connects : genuine_disconnects) += 1;
        was_connected[i] = c.is_connected();
      }
      if (h.now < next_change[i]) continue;
      if (c.is_connected()) {
        c.disconnect(h.now);
        was_connected[i] = false;
        ++genuine_disconnects;
        next_change[i] = h.now + 0.5;
      } else {
        h.connect(i);
        next_change[i] = h.now + 2.0;
      }
    }
    tick();
  }
  for (int i = 0; i < 30; ++i) tick();  // the last disconnects arrive
  // Every tick the flood alone fills netcode's ring (32 events), so each genuine event overflows it.
  EXPECT_GE(h.server->netcode().events_dropped(), static_cast<uint64_t>(genuine_connects))
      << "the flood must overflow netcode's ring";
  EXPECT_GE(genuine_connects, 30);
  EXPECT_EQ(heard_connects, genuine_connects) << genuine_disconnects << " genuine disconnects";
  EXPECT_EQ(heard_disconnects, genuine_disconnects);
  EXPECT_EQ(h.server->events_dropped(), 0u);
}

// A game tracking its players by client id, fed the events of one update. Client id 777 holds slot 5 from
// address A; in one update A disconnects and the same client id, with a second token, connects from
// address B into the lower slot 2. The game must still count 777 as connected: every disconnect of an
// update comes before every connect.
TEST(StackSession, SameClientIdMovingToALowerSlotStaysConnected) {
  StackHarness h(6);
  Forgery forgery(h, {10, 11, 12, 13, 14, 777, 777});  // identities 5 (A) and 6 (B) are both client 777
  std::set<uint64_t> players;
  const auto track = [&] {
    for (const ServerEvent& e : drain_events(*h.server)) {
      if (e.kind == ServerEvent::Kind::kConnected) players.insert(e.client_id);
      if (e.kind == ServerEvent::Kind::kDisconnected) players.erase(e.client_id);
    }
  };
  for (size_t k = 0; k < 6; ++k) forgery.session(k, /*stay=*/true);
  h.step();
  track();
  ASSERT_EQ(h.server->client_id(5), 777u) << "A holds slot 5";
  forgery.inject(forgery.clients[2].disconnect, forgery.clients[2].address);
  h.step();
  track();
  ASSERT_FALSE(h.server->is_connected(2)) << "slot 2 is free";

  forgery.inject(forgery.clients[5].disconnect, forgery.clients[5].address);
  forgery.session(6, /*stay=*/true);
  h.step();
  ASSERT_TRUE(h.server->is_connected(2));
  ASSERT_EQ(h.server->client_id(2), 777u) << "B holds slot 2";
  ASSERT_FALSE(h.server->is_connected(5)) << "A left slot 5";
  track();
  EXPECT_EQ(players.count(777), 1u) << "the game dropped client 777 although B is connected";
  EXPECT_EQ(players.size(), 5u);
}

// Every event names its connection's session id and Server::session(i) the slot's: a reconnect of the
// same client into the same slot is a new session, so a game keying its state by session id drops the old
// connection's state and starts afresh. A free slot has session 0.
TEST(StackSession, EventsAndSlotsCarryTheSessionId) {
  StackHarness h(1);
  Client& client = h.add_client();
  EXPECT_EQ(h.server->session(0), 0u);
  EXPECT_EQ(h.server->session(-1), 0u);
  EXPECT_EQ(h.server->session(1), 0u);
  h.connect(0);
  ASSERT_TRUE(h.run_until([&] { return h.all_connected(); }, 300));
  std::vector<ServerEvent> events = drain_events(*h.server);
  ASSERT_EQ(events.size(), 1u);
  const uint64_t first = events[0].session;
  EXPECT_NE(first, 0u);
  EXPECT_EQ(h.server->session(0), first);
  EXPECT_EQ(h.server->session(0), h.server->netcode().session(0));

  client.disconnect(h.now);
  ASSERT_TRUE(h.run_until([&] { return !h.server->is_connected(0); }, 300));
  EXPECT_EQ(h.server->session(0), 0u);
  h.connect(0);
  ASSERT_TRUE(h.run_until([&] { return h.all_connected(); }, 300));
  events = drain_events(*h.server);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].kind, ServerEvent::Kind::kDisconnected);
  EXPECT_EQ(events[0].session, first) << "the disconnect names the connection that ended";
  EXPECT_EQ(events[1].kind, ServerEvent::Kind::kConnected);
  EXPECT_NE(events[1].session, 0u);
  EXPECT_NE(events[1].session, first) << "a reconnect of the same client id is a new session";
  EXPECT_EQ(events[1].client_id, events[0].client_id);
  EXPECT_EQ(h.server->session(0), events[1].session);
}

}  // namespace
}  // namespace bitwire::test
