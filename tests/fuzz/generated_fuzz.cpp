// Fuzz target: untrusted bytes read by the generated game protocol (the checked-in generated/game.hpp,
// which the generated_golden test keeps equal to idlc's output for schemas/game.net).
//
// Input layout: byte 0 picks the reader: (byte 0) % 7 in 0..5 reads that message type's struct directly,
// 6 reads through game::serialize_message into a handle of game::message_factory()'s pool (type, then
// the body through the factory's table). The remaining bytes are the stream.
//
// Checked (any violation aborts, so the fuzzer reports it and the replay test fails):
// - a read never consumes bits beyond the buffer; a failed read names a reason and a bit inside it;
// - reading the same bytes into a dirty object (every member set, every optional present) gives the same
//   verdict, error and bit, and on success the same value (a sparse array's unsent elements excepted:
//   they keep what the destination held);
// - a successful read, written again, is never longer than what was read, reads back to an equal object
//   consuming exactly the bits written, and that object writes identical bytes.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <vector>

#include "../../generated/game.hpp"
// The package's message factory (idlc's source file next to the header): this target builds it itself.
#include "../../generated/game.cpp"

namespace {

[[noreturn]] void fail(const char* what, int line) {
  std::fprintf(stderr, "generated_fuzz: check failed (line %d): %s\n", line, what);
  std::abort();
}

#define FUZZ_CHECK(condition)                     \
  do {                                            \
    if (!(condition)) fail(#condition, __LINE__); \
  } while (0)

// ---- dirty destinations: every member away from its default ----

void scribble(common::Position& v) {
  v = {1.0f, -2.0f, 3.0f};
}
void scribble(common::Velocity& v) {
  v = {-1.0f, 2.0f, -3.0f};
}

void scribble(game::EntityState& v) {
  v.id = 63;
  v.kind = game::EntityKind::Vehicle;
  scribble(v.position);
  v.orientation = {3, 511, -511, 7};
  v.at_rest = true;
  scribble(v.velocity);
  v.health = 3;
  v.weapon = game::Weapon::RocketLauncher;
  v.clips = 7;
  v.fuel = 9;
  v.occupants = 3;
}

void scribble(game::GameEvent& v) {
  v.kind = game::EventKind::Sound;
  v.subject = 5;
  v.attacker = 6;
  v.damage = 250;
  v.killer = 7;
  v.weapon = game::Weapon::Rifle;
  scribble(v.where);
}

void scribble(game::PlayerInput& v) {
  v.tick = 0xFFFFFFFFu;
  v.buttons = static_cast<game::InputButtons>(0x3FF);
  v.yaw = 90.0f;
  v.pitch = -45.0f;
  v.has_switch_to = true;
  v.switch_to = game::Weapon::Shotgun;
}

void scribble(game::Snapshot& v) {
  v.tick = 1;
  v.last_input_tick = 2;
  v.entities.resize(64);
  for (auto& entity : v.entities) scribble(entity);
}

void scribble(game::Events& v) {
  v.tick = 3;
  v.events.resize(16);
  for (auto& event : v.events) scribble(event);
}

void scribble(game::ScoreUpdate& v) {
  for (size_t i = 0; i < v.scores.size(); ++i) {
    v.scores[i] = static_cast<int32_t>(i) * 1000 - 1000;
    v.scores_changed[i] = i % 3 != 0;
  }
}

void scribble(game::Chat& v) {
  v.sender = 1;
  v.channel = game::ChatChannel::Whisper;
  v.recipient = 2;
  v.text = "dirty";
}

void scribble(game::LevelLoad& v) {
  v.level = "dirty level";
  v.checksum = 0xDEADBEEF;
  v.max_players = 64;
  v.player_names.resize(8);
  for (auto& name : v.player_names) name = "someone";
  v.has_settings = true;
  v.settings.resize(512);
  for (auto& byte : v.settings) byte = 0xAA;
}

// What a read into `dirty` must equal, given what a read into a new object gave.
template <typename T>
T expected_in_dirty(const T& fresh, const T&) {
  return fresh;
}

game::ScoreUpdate expected_in_dirty(const game::ScoreUpdate& fresh, const game::ScoreUpdate& dirty) {
  game::ScoreUpdate expected = fresh;
  for (size_t i = 0; i < expected.scores.size(); ++i) {
    if (!expected.scores_changed[i]) expected.scores[i] = dirty.scores[i];
  }
  return expected;
}

// ---- reading, writing ----

struct Outcome {
  bool ok = false;
  bitwire::ReadError error = bitwire::ReadError::kNone;
  size_t error_bit = 0;
  size_t bits = 0;
};

template <typename T>
bool serialize_any(bitwire::ReadStream& stream, T& value) {
  return value.serialize(stream);
}
template <typename T>
bool serialize_any(bitwire::WriteStream& stream, T& value) {
  return value.serialize(stream);
}

template <typename T>
Outcome read(std::span<const std::byte> bytes, T& value) {
  bitwire::ReadStream stream(bytes);
  Outcome outcome;
  outcome.ok = serialize_any(stream, value);
  outcome.error = stream.error();
  outcome.error_bit = stream.error_bit();
  outcome.bits = stream.bits_processed();
  FUZZ_CHECK(outcome.bits <= bytes.size() * 8);
  if (outcome.ok) {
    FUZZ_CHECK(outcome.error == bitwire::ReadError::kNone);
  } else {
    FUZZ_CHECK(outcome.error != bitwire::ReadError::kNone);
    FUZZ_CHECK(outcome.error_bit <= bytes.size() * 8);
  }
  return outcome;
}

template <typename T>
std::vector<std::byte> write(const T& value, size_t& bits) {
  T copy = value;
  std::vector<std::byte> buffer((game::kMaxMessageBits + 7) / 8 + 8);
  bitwire::WriteStream stream(buffer);
  serialize_any(stream, copy);
  stream.flush();
  bits = stream.bits_processed();
  buffer.resize(stream.bytes_processed());
  return buffer;
}

template <typename T>
void check(std::span<const std::byte> bytes, T fresh, T dirty) {
  const Outcome first = read(bytes, fresh);
  const T dirty_before = dirty;
  const Outcome again = read(bytes, dirty);
  FUZZ_CHECK(again.ok == first.ok);
  FUZZ_CHECK(again.error == first.error);
  FUZZ_CHECK(again.error_bit == first.error_bit);
  if (!first.ok) return;
  FUZZ_CHECK(again.bits == first.bits);
  FUZZ_CHECK(dirty == expected_in_dirty(fresh, dirty_before));

  size_t written_bits = 0;
  const std::vector<std::byte> written = write(fresh, written_bits);
  FUZZ_CHECK(written_bits <= first.bits);
  T reread{};
  const Outcome second = read(std::span<const std::byte>(written), reread);
  FUZZ_CHECK(second.ok);
  FUZZ_CHECK(second.bits == written_bits);
  FUZZ_CHECK(reread == fresh);
  size_t rewritten_bits = 0;
  FUZZ_CHECK(write(reread, rewritten_bits) == written);
  FUZZ_CHECK(rewritten_bits == written_bits);
}

template <typename T>
void check_message(std::span<const std::byte> bytes) {
  T dirty{};
  scribble(dirty);
  check<T>(bytes, T{}, dirty);
}

// Through the message layer: the type, then the body through the factory's table, read into a handle
// (empty, or holding a dirty message of each type in turn: a read replaces it with a new message).
void check_through_factory(std::span<const std::byte> bytes) {
  static bitwire::MessagePool pool(game::message_factory(), bitwire::MessagePoolConfig{8, 0, 1});
  const auto read_any = [&](std::span<const std::byte> in, bitwire::MessageHandle& message) {
    bitwire::ReadStream stream(in);
    Outcome outcome;
    outcome.ok = game::serialize_message(stream, pool, message);
    outcome.error = stream.error();
    outcome.error_bit = stream.error_bit();
    outcome.bits = stream.bits_processed();
    FUZZ_CHECK(outcome.bits <= in.size() * 8);
    FUZZ_CHECK(outcome.ok == (outcome.error == bitwire::ReadError::kNone));
    FUZZ_CHECK(!outcome.ok || message);
    return outcome;
  };
  const auto write_any = [&](bitwire::MessageHandle& message, size_t& bits) {
    std::vector<std::byte> buffer((game::kMaxMessageBits + 7) / 8 + 8);
    bitwire::WriteStream stream(buffer);
    game::serialize_message(stream, pool, message);
    stream.flush();
    bits = stream.bits_processed();
    buffer.resize(stream.bytes_processed());
    return buffer;
  };

  bitwire::MessageHandle fresh;
  const Outcome first = read_any(bytes, fresh);
  size_t written_bits = 0;
  std::vector<std::byte> written;
  if (first.ok) {
    written = write_any(fresh, written_bits);
    FUZZ_CHECK(written_bits <= first.bits);
    bitwire::MessageHandle reread;
    const Outcome second = read_any(written, reread);
    FUZZ_CHECK(second.ok);
    FUZZ_CHECK(second.bits == written_bits);
    FUZZ_CHECK(reread.type() == fresh.type());
    size_t rewritten_bits = 0;
    FUZZ_CHECK(write_any(reread, rewritten_bits) == written);
    FUZZ_CHECK(rewritten_bits == written_bits);
  }
  for (uint32_t type = 0; type < game::kMessageTypeCount; ++type) {
    bitwire::MessageHandle dirty = pool.create(type);
    FUZZ_CHECK(dirty);
    if (auto* m = dirty.as<game::PlayerInput>()) scribble(*m);
    if (auto* m = dirty.as<game::Snapshot>()) scribble(*m);
    if (auto* m = dirty.as<game::Events>()) scribble(*m);
    if (auto* m = dirty.as<game::ScoreUpdate>()) scribble(*m);
    if (auto* m = dirty.as<game::Chat>()) scribble(*m);
    if (auto* m = dirty.as<game::LevelLoad>()) scribble(*m);
    const Outcome again = read_any(bytes, dirty);
    FUZZ_CHECK(again.ok == first.ok);
    FUZZ_CHECK(again.error == first.error);
    FUZZ_CHECK(again.error_bit == first.error_bit);
    if (!first.ok) continue;
    FUZZ_CHECK(again.bits == first.bits);
    size_t bits = 0;
    FUZZ_CHECK(write_any(dirty, bits) == written);
  }
  FUZZ_CHECK(pool.live() == (first.ok ? 1 : 0));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data) + 1, size - 1);
  switch (data[0] % 7) {
    case 0:
      check_message<game::PlayerInput>(bytes);
      break;
    case 1:
      check_message<game::Snapshot>(bytes);
      break;
    case 2:
      check_message<game::Events>(bytes);
      break;
    case 3:
      check_message<game::ScoreUpdate>(bytes);
      break;
    case 4:
      check_message<game::Chat>(bytes);
      break;
    case 5:
      check_message<game::LevelLoad>(bytes);
      break;
    default:
      check_through_factory(bytes);
      break;
  }
  return 0;
}
