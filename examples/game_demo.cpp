// The bitwire demo: the game protocol of schemas/game.net, compiled to C++ by idlc at build time. It fills
// a snapshot of 64 entities and one of every other message in a MessagePool built on the package's
// message factory, writes each with its type, prints its size against its MaxBytes and one message's wire
// layout (from idlc's own library), reads everything back into the pool and checks that it matches. Run it with `cmake/quickstart.sh demo`.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "check.hpp"
#include "game.hpp"
#include "layout.hpp"

namespace {

// Values on the schema's quanta (1/8 m, 1/32 m/s, 0.01 degree), so the round trip is exact.
float on_grid(float value, float step) { return std::round(value / step) * step; }

game::Snapshot make_snapshot() {
  game::Snapshot snapshot;
  snapshot.tick = 90210;
  snapshot.last_input_tick = 90207;
  for (uint32_t i = 0; i < 64; ++i) {
    game::EntityState e;
    e.id = static_cast<uint8_t>(i);
    e.kind = static_cast<game::EntityKind>(i % 4);
    const float angle = static_cast<float>(i) * 0.1f;
    e.position = {on_grid(300.0f * std::cos(angle), 0.125f), on_grid(12.5f + static_cast<float>(i), 0.125f),
                  on_grid(-300.0f * std::sin(angle), 0.125f)};
    e.orientation = {static_cast<uint8_t>(i % 4), static_cast<int16_t>(i * 7 - 200), -35, 480};
    e.at_rest = i % 5 == 0;
    if (!e.at_rest) e.velocity = {on_grid(std::sin(angle) * 8.0f, 0.03125f), 0.0f, on_grid(std::cos(angle) * 8.0f, 0.03125f)};
    if (e.kind == game::EntityKind::Player) {
      e.health = static_cast<int8_t>(100 - i);
      e.weapon = game::Weapon::Rifle;
      e.clips = 3;
    } else if (e.kind == game::EntityKind::Vehicle) {
      e.fuel = 60;
      e.occupants = 2;
    }
    snapshot.entities.push_back(e);
  }
  return snapshot;
}

// Adds a new message of type T to `messages` (from `pool`) and returns it to fill in.
template <typename T>
T& add(bitwire::MessagePool& pool, std::vector<bitwire::MessageHandle>& messages) {
  messages.push_back(pool.create<T>());
  return *messages.back().as<T>();
}

std::vector<bitwire::MessageHandle> make_messages(bitwire::MessagePool& pool) {
  std::vector<bitwire::MessageHandle> messages;

  game::PlayerInput& input = add<game::PlayerInput>(pool, messages);
  input.tick = 90207;
  input.buttons = game::InputButtons::Forward | game::InputButtons::Fire;
  input.yaw = on_grid(-42.5f, 0.01f);
  input.pitch = on_grid(12.25f, 0.01f);
  input.has_switch_to = true;
  input.switch_to = game::Weapon::Shotgun;

  add<game::Snapshot>(pool, messages) = make_snapshot();

  game::Events& events = add<game::Events>(pool, messages);
  events.tick = 90210;
  game::GameEvent hit;
  hit.kind = game::EventKind::Hit;
  hit.subject = 4;
  hit.attacker = 9;
  hit.damage = 35;
  game::GameEvent death;
  death.kind = game::EventKind::Death;
  death.subject = 4;
  death.killer = 9;
  death.weapon = game::Weapon::Rifle;
  events.events.push_back(hit);
  events.events.push_back(death);

  game::ScoreUpdate& scores = add<game::ScoreUpdate>(pool, messages);
  scores.scores[9] = 1250;
  scores.scores_changed[9] = true;
  scores.scores[4] = -30;
  scores.scores_changed[4] = true;

  game::Chat& chat = add<game::Chat>(pool, messages);
  chat.sender = 9;
  chat.channel = game::ChatChannel::Team;
  chat.text = "rotate to B, they're all mid \xF0\x9F\x9A\x80";

  game::LevelLoad& level = add<game::LevelLoad>(pool, messages);
  level.level = "harbor_night";
  level.checksum = 0xC0FFEE11;
  level.max_players = 24;
  level.player_names.push_back(bitwire::FixedString<24>("ada"));
  level.player_names.push_back(bitwire::FixedString<24>("grace"));
  return messages;
}

// The `--layout` table of one message, from idlc's own library.
void print_layout(const char* message_name) {
  idlc::Diagnostics diagnostics;
  idlc::DiskFileSystem files;
  auto schema = idlc::compile({BITWIRE_GAME_SCHEMA}, files, diagnostics);
  if (!schema) {
    diagnostics.print(std::cerr);
    return;
  }
  const std::string text = idlc::layout_text(*schema->roots.front());
  const std::string header = std::string("message ") + message_name + " ";
  const size_t start = text.find(header);
  const size_t end = text.find("\n\n", start);
  std::printf("\nidlc --layout, message %s:\n%s\n\n", message_name, text.substr(start, end - start).c_str());
}

}  // namespace

int main() {
  std::printf("game protocol: ProtocolId 0x%016llx, %u message types (type in %d bits)\n\n",
              static_cast<unsigned long long>(game::ProtocolId), game::kMessageTypeCount, game::kMessageTypeBits);
  // Room for what is sent and what is read back; no allocation after this.
  bitwire::MessagePool pool(game::message_factory(), bitwire::MessagePoolConfig{16, 0, 1});
  std::vector<bitwire::MessageHandle> sent = make_messages(pool);

  std::array<std::byte, game::kMaxMessageBits / 8 + 1> buffer{};
  std::array<std::byte, game::kMaxMessageBits / 8 + 1> again{};
  bool all_match = true;
  for (bitwire::MessageHandle& message : sent) {
    bitwire::WriteStream writer(buffer);
    game::serialize_message(writer, pool, message);
    writer.flush();
    const size_t size = writer.bytes_processed();

    bitwire::MessageHandle received;
    bitwire::ReadStream reader(std::span<const std::byte>(buffer.data(), size));
    const bool ok = game::serialize_message(reader, pool, received);
    // Equal messages write equal bytes: write what was read and compare.
    bool match = ok && received.type() == message.type();
    if (match) {
      bitwire::WriteStream rewriter(again);
      game::serialize_message(rewriter, pool, received);
      rewriter.flush();
      match = rewriter.bytes_processed() == size && std::equal(buffer.begin(), buffer.begin() + size, again.begin());
    }
    all_match = all_match && match;
    std::printf("%-12s %5zu bytes  (MaxBytes %4zu + type)  read back: %s\n", message.info().name, size,
                (message.info().max_bits + 7) / 8,
                !ok ? bitwire::to_string(reader.error()) : (match ? "match" : "MISMATCH"));
  }

  const game::Snapshot& snapshot = *sent[1].as<game::Snapshot>();
  std::printf("\nsnapshot entity 3: %s\n", game::to_string(snapshot.entities[3]).c_str());
  print_layout("PlayerInput");

  std::printf("%s\n", all_match ? "every message read back equal to what was sent"
                                 : "SOME MESSAGES DID NOT ROUND-TRIP");
  return all_match ? 0 : 1;
}
