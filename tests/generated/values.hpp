// Values for every struct and message of schemas/*.net, drawn to order for the generated-code tests:
//
//   Fill::kRandom    a random value inside every declared range, in canonical form: fields on the untaken
//                    side of an `if`, absent optionals and unsent sparse elements hold their defaults, so
//                    a read into a new object gives back exactly this value;
//   Fill::kWorst     the largest encoding the schema allows (the worst `if` side, every optional present,
//                    every count, string and byte block at its maximum, sparse patterns that cost most);
//   Fill::kScribble  every member set, on both sides of every `if`, optionals' values included: the dirty
//                    object a read must fully overwrite or reset.
//
// Compressed floats are drawn as exact quanta (values a read can return), so round trips compare with
// operator==; `any_floats` draws them anywhere in and slightly beyond their range instead (the writer
// quantizes and clamps). Raw float and double fields never hold NaN here (NaN != NaN would defeat
// operator==); NaN payloads are tested separately, by bytes.
#pragma once

#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>

#include "bitwire/core/random.hpp"
#include "bitwire/serialize/serialize.hpp"
#include "common.hpp"
#include "constructs.hpp"
#include "game.hpp"
#include "support/serialize_reference.hpp"

namespace bitwire::test::gen {

enum class Fill { kRandom, kWorst, kScribble };

class Draws {
 public:
  explicit Draws(uint64_t seed, Fill mode = Fill::kRandom) : rng_(seed), mode_(mode) {}

  Fill mode() const { return mode_; }
  void set_mode(Fill mode) { mode_ = mode; }
  bool worst() const { return mode_ == Fill::kWorst; }
  bool scribble() const { return mode_ == Fill::kScribble; }
  void set_any_floats(bool any) { any_floats_ = any; }
  Random& rng() { return rng_; }

  // In [min, max]; a quarter of the draws are exactly min or max.
  int64_t range(int64_t min, int64_t max) {
    switch (rng_.below(8)) {
      case 0:
        return min;
      case 1:
        return max;
      default:
        return rng_.range(min, max);
    }
  }
  template <typename T>
  T value(int64_t min, int64_t max) {
    return static_cast<T>(range(min, max));
  }
  template <typename E>
  E one_of(std::initializer_list<E> values) {
    return values.begin()[rng_.below(values.size())];
  }
  bool coin() { return rng_.below(2) == 0; }

  // Any `bits`-bit pattern (1..64), all-zero and all-one favoured.
  uint64_t raw(int bits) {
    const uint64_t mask = ~uint64_t{0} >> (64 - bits);
    switch (rng_.below(8)) {
      case 0:
        return 0;
      case 1:
        return mask;
      default:
        return rng_.next() & mask;
    }
  }
  template <typename T>
  T raw_as(int bits) {
    return static_cast<T>(raw(bits));
  }
  // A two's-complement value of a signed `bits`-bit field.
  template <typename T>
  T raw_signed(int bits) {
    const uint64_t sign = uint64_t{1} << (bits - 1);
    return static_cast<T>(static_cast<int64_t>((raw(bits) ^ sign) - sign));
  }

  // Element counts and lengths: the maximum in kWorst mode.
  size_t count(size_t min, size_t max) {
    return worst() ? max : static_cast<size_t>(range(static_cast<int64_t>(min), static_cast<int64_t>(max)));
  }
  // An optional field's presence: always present when worst or scribbling.
  bool present() { return mode_ != Fill::kRandom || coin(); }
  // Whether the fields of an `if` side are filled: the taken side, or every side when scribbling.
  bool side(bool taken) const { return taken || scribble(); }

  float compressed(float min, float max, float resolution) {
    const CompressedFloatParams params = compressed_float_params(min, max, resolution);
    if (any_floats_) {
      const float margin = (max - min) / 16.0f;
      return static_cast<float>(
          rng_.uniform(static_cast<double>(min - margin), static_cast<double>(max + margin)));
    }
    return dequantize_compressed_float(static_cast<uint32_t>(range(0, params.max_integer)), params);
  }

  float any_float() {
    float value = std::bit_cast<float>(raw_as<uint32_t>(32));
    return std::isnan(value) ? -0.0f : value;
  }
  double any_double() {
    double value = std::bit_cast<double>(raw(64));
    return std::isnan(value) ? std::numeric_limits<double>::infinity() : value;
  }

  // UTF-8 text of at most N bytes; exactly N in kWorst mode.
  template <size_t N>
  void text(FixedString<N>& out) {
    if (worst()) {
      std::string text;
      while (text.size() < N) text += static_cast<char>('a' + rng_.below(26));
      (void)out.assign(text);
    } else {
      (void)out.assign(random_utf8(rng_, N));
    }
  }
  // A byte block of any octets, its length in [0, N]; N in kWorst mode.
  template <size_t N>
  void bytes(FixedVector<uint8_t, N>& out) {
    out.resize(count(0, N));
    for (uint8_t& byte : out) byte = raw_as<uint8_t>(8);
  }

 private:
  Random rng_;
  Fill mode_;
  bool any_floats_ = false;
};

// ---- common ----

inline void fill(Draws& d, common::Position& v) {
  v.x = d.compressed(-1024.0f, 1024.0f, 0.125f);
  v.y = d.compressed(-1024.0f, 1024.0f, 0.125f);
  v.z = d.compressed(-1024.0f, 1024.0f, 0.125f);
}

inline void fill(Draws& d, common::Velocity& v) {
  v.x = d.compressed(-32.0f, 32.0f, 0.03125f);
  v.y = d.compressed(-32.0f, 32.0f, 0.03125f);
  v.z = d.compressed(-32.0f, 32.0f, 0.03125f);
}

inline void fill(Draws& d, common::Orientation& v) {
  v.largest = d.raw_as<uint8_t>(2);
  v.a = d.value<int16_t>(-511, 511);
  v.b = d.value<int16_t>(-511, 511);
  v.c = d.value<int16_t>(-511, 511);
}

// ---- game ----

inline void fill(Draws& d, game::EntityState& v) {
  using game::EntityKind;
  v = {};
  v.id = d.value<uint8_t>(0, 63);
  v.kind =
      d.worst()
          ? EntityKind::Player
          : d.one_of({EntityKind::Player, EntityKind::Projectile, EntityKind::Pickup, EntityKind::Vehicle});
  fill(d, v.position);
  fill(d, v.orientation);
  v.at_rest = d.worst() ? false : d.coin();
  if (d.side(!v.at_rest)) fill(d, v.velocity);
  if (d.side(v.kind == EntityKind::Player)) {
    v.health = d.value<int8_t>(0, 100);
    v.weapon = static_cast<game::Weapon>(d.range(0, 4));
    v.clips = d.value<uint8_t>(0, 7);
  }
  if (d.side(v.kind == EntityKind::Vehicle)) {
    v.fuel = d.value<int8_t>(0, 100);
    v.occupants = d.value<uint8_t>(0, 3);
  }
}

inline void fill(Draws& d, game::GameEvent& v) {
  using game::EventKind;
  v = {};
  v.kind = d.worst() ? EventKind::Spawn
                     : d.one_of({EventKind::Hit, EventKind::Death, EventKind::Spawn, EventKind::Sound});
  v.subject = d.value<uint8_t>(0, 63);
  if (d.side(v.kind == EventKind::Hit)) {
    v.attacker = d.value<uint8_t>(0, 63);
    v.damage = d.value<int16_t>(1, 250);
  }
  if (d.side(v.kind == EventKind::Death)) {
    v.killer = d.value<uint8_t>(0, 63);
    v.weapon = static_cast<game::Weapon>(d.range(0, 4));
  }
  if (d.side(v.kind != EventKind::Hit && v.kind != EventKind::Death)) fill(d, v.where);
}

inline void fill(Draws& d, game::PlayerInput& v) {
  v = {};
  v.tick = d.raw_as<uint32_t>(32);
  v.buttons = static_cast<game::InputButtons>(d.raw(10));
  v.yaw = d.compressed(-180.0f, 180.0f, 0.01f);
  v.pitch = d.compressed(-90.0f, 90.0f, 0.01f);
  v.has_switch_to = d.present();
  if (d.side(v.has_switch_to)) v.switch_to = static_cast<game::Weapon>(d.range(0, 4));
}

inline void fill(Draws& d, game::Snapshot& v) {
  v = {};
  v.tick = d.raw_as<uint32_t>(32);
  v.last_input_tick = d.raw_as<uint32_t>(32);
  v.entities.resize(d.count(0, 64));
  for (auto& entity : v.entities) fill(d, entity);
}

inline void fill(Draws& d, game::Events& v) {
  v = {};
  v.tick = d.raw_as<uint32_t>(32);
  v.events.resize(d.count(1, 16));
  for (auto& event : v.events) fill(d, event);
}

inline void fill(Draws& d, game::ScoreUpdate& v) {
  v = {};
  // Density varies per object: none, a few, half, all changed.
  const uint64_t percent = d.worst() || d.scribble() ? 100 : d.one_of<uint64_t>({0, 5, 50, 100});
  for (size_t i = 0; i < v.scores.size(); ++i) {
    v.scores_changed[i] = d.rng().below(100) < percent;
    if (d.side(v.scores_changed[i])) v.scores[i] = d.value<int32_t>(-1000, 100000);
  }
  if (d.scribble()) {
    for (bool& changed : v.scores_changed) changed = d.coin();
  }
}

inline void fill(Draws& d, game::Chat& v) {
  using game::ChatChannel;
  v = {};
  v.sender = d.value<uint8_t>(0, 63);
  v.channel = d.worst() ? ChatChannel::Whisper
                        : d.one_of({ChatChannel::All, ChatChannel::Team, ChatChannel::Whisper});
  if (d.side(v.channel == ChatChannel::Whisper)) v.recipient = d.value<uint8_t>(0, 63);
  d.text(v.text);
}

inline void fill(Draws& d, game::LevelLoad& v) {
  v = {};
  d.text(v.level);
  v.checksum = d.raw_as<uint32_t>(32);
  v.max_players = d.value<uint8_t>(1, 64);
  v.player_names.resize(d.count(0, 8));
  for (auto& name : v.player_names) d.text(name);
  v.has_settings = d.present();
  if (d.side(v.has_settings)) d.bytes(v.settings);
}

// ---- demo.constructs ----

inline void fill(Draws& d, demo::constructs::Scalars& v) {
  using namespace demo::constructs;
  v = {};
  v.flag = d.coin();
  v.i8 = d.raw_signed<int8_t>(8);
  v.i16 = d.raw_signed<int16_t>(16);
  v.i32 = d.raw_signed<int32_t>(32);
  v.i64 = d.raw_signed<int64_t>(64);
  v.u8 = d.raw_as<uint8_t>(8);
  v.u16 = d.raw_as<uint16_t>(16);
  v.u32 = d.raw_as<uint32_t>(32);
  v.u64 = d.raw(64);
  v.ranged = d.value<int8_t>(-100, 100);
  v.small_range = d.value<uint8_t>(0, 12);
  v.ranged_in_storage = d.value<uint16_t>(0, 1000);
  v.constant_value = 7;
  v.five_bits = d.raw_as<uint8_t>(5);
  v.twelve_signed_bits = d.raw_signed<int16_t>(12);
  v.twenty_bits_in_uint32 = d.raw_as<uint32_t>(20);
  v.raw_float = d.any_float();
  v.raw_double = d.any_double();
  v.compressed = d.compressed(-1000.0f, 1000.0f, 0.01f);
  v.compressed_from_constants = d.compressed(0.0f, 512.0f, 1.0f);
  v.q8 = d.value<int16_t>(-128 * 256, 127 * 256);
  v.wide_signed = static_cast<int128_t>(random128(d.rng()));
  v.wide_unsigned = random128(d.rng());
  d.text(v.name);
  d.bytes(v.blob);
  v.mode = d.one_of({Mode::Idle, Mode::Walk, Mode::Run, Mode::Sprint});
  v.offset = d.one_of({Offset::Back, Offset::Still, Offset::Ahead});
  v.code = d.one_of({Code::Ok, Code::NotFound});
  v.only = Only::One;
  v.toggles = static_cast<Toggles>(d.raw(3));
}

inline void fill(Draws& d, demo::constructs::Ping& v) {
  v.sent_tick = d.raw_as<uint32_t>(32);
}

inline void fill(Draws& d, demo::constructs::Shapes& v) {
  v = {};
  for (uint8_t& item : v.fixed_array) item = d.raw_as<uint8_t>(8);
  v.variable_array.resize(d.count(0, 12));
  for (uint8_t& item : v.variable_array) item = d.raw_as<uint8_t>(8);
  v.path.resize(d.count(1, 8));
  for (auto& position : v.path) fill(d, position);
  const uint64_t percent = d.worst() || d.scribble() ? 100 : d.one_of<uint64_t>({0, 10, 50, 100});
  for (size_t i = 0; i < v.health.size(); ++i) {
    v.health_changed[i] = d.rng().below(100) < percent;
    if (d.side(v.health_changed[i])) v.health[i] = d.value<int8_t>(0, 100);
  }
  for (size_t i = 0; i < v.tiny.size(); ++i) {
    // The costliest pattern of three: positions 2 and 3 (a 2-step then a 1-step), 10 bits.
    v.tiny_changed[i] = d.worst() ? i != 0 : d.coin();
    if (d.side(v.tiny_changed[i])) v.tiny[i] = d.worst() || d.coin();
  }
  if (d.scribble()) {
    for (bool& changed : v.health_changed) changed = d.coin();
  }
  v.has_spawn = d.present();
  if (d.side(v.has_spawn)) fill(d, v.spawn);
  v.has_maybe_list = d.present();
  if (d.side(v.has_maybe_list)) {
    v.maybe_list.resize(d.count(0, 4));
    for (uint16_t& item : v.maybe_list) item = d.raw_as<uint16_t>(16);
  }
  fill(d, v.nested);
  fill(d, v.last_ping);
}

inline void fill(Draws& d, demo::constructs::Conditions& v) {
  using demo::constructs::Mode;
  v = {};
  v.moving = d.worst() || d.coin();
  v.mode = d.worst() ? Mode::Sprint : d.one_of({Mode::Idle, Mode::Walk, Mode::Run, Mode::Sprint});
  if (d.side(v.moving)) {
    fill(d, v.velocity);
    v.boosted = d.worst() || d.coin();
    if (d.side(v.boosted)) v.boost = d.raw_as<uint8_t>(8);
  }
  if (d.side(!v.moving)) {
    v.rest_ticks = d.raw_as<uint16_t>(16);
    v.parked = d.coin() || d.scribble();
  }
  if (d.side(v.mode == Mode::Run)) v.speed = d.compressed(0.0f, 20.0f, 0.1f);
  if (d.side(v.mode == Mode::Sprint)) v.sprint_speed = d.compressed(0.0f, 40.0f, 0.1f);
  if (d.side(v.mode == Mode::Walk)) v.walk_step = d.raw_as<uint8_t>(8);
}

inline void fill(Draws& d, demo::constructs::Directives& v) {
  v = {};
  v.before = d.coin();
  v.aligned_byte = d.raw_as<uint8_t>(8);
  d.text(v.after);
}

inline void fill(Draws& d, demo::constructs::Everything& v) {
  fill(d, v.scalars);
  fill(d, v.shapes);
  fill(d, v.conditions);
  fill(d, v.directives);
}

template <typename T>
T draw(Draws& d) {
  T value{};
  fill(d, value);
  return value;
}

template <typename T>
T draw(Draws& d, Fill mode) {
  const Fill saved = d.mode();
  d.set_mode(mode);
  T value = draw<T>(d);
  d.set_mode(saved);
  return value;
}

// ---- per type: the name tests print, and what check_worst_case expects ----

// kSlack: MaxBits minus the worst encoding's measure (see check_worst_case); kAligns: aligning operations
// in the worst-case object; kObjects: random objects per round-trip test.
template <typename T>
struct Profile;

#define BITWIRE_GENERATED_PROFILE(Type, Slack, Aligns, Objects) \
  template <>                                                   \
  struct Profile<Type> {                                        \
    static constexpr const char* kName = #Type;                 \
    static constexpr size_t kSlack = Slack;                     \
    static constexpr size_t kAligns = Aligns;                   \
    static constexpr int kObjects = Objects;                    \
  }

BITWIRE_GENERATED_PROFILE(common::Position, 0, 0, 3000);
BITWIRE_GENERATED_PROFILE(common::Velocity, 0, 0, 3000);
BITWIRE_GENERATED_PROFILE(common::Orientation, 0, 0, 3000);
BITWIRE_GENERATED_PROFILE(game::EntityState, 0, 0, 3000);
BITWIRE_GENERATED_PROFILE(game::GameEvent, 0, 0, 3000);
BITWIRE_GENERATED_PROFILE(game::PlayerInput, 0, 0, 3000);
BITWIRE_GENERATED_PROFILE(game::Snapshot, 0, 0, 1000);
BITWIRE_GENERATED_PROFILE(game::Events, 0, 0, 2000);
BITWIRE_GENERATED_PROFILE(game::ScoreUpdate, 0, 0, 2000);
BITWIRE_GENERATED_PROFILE(game::Chat, 0, 1, 2000);                 // the text
BITWIRE_GENERATED_PROFILE(game::LevelLoad, 0, 10, 1000);           // level, 8 names, settings
BITWIRE_GENERATED_PROFILE(demo::constructs::Scalars, 0, 2, 2000);  // name, blob
BITWIRE_GENERATED_PROFILE(demo::constructs::Ping, 0, 0, 2000);
BITWIRE_GENERATED_PROFILE(demo::constructs::Shapes, 0, 2, 1000);  // nested Scalars
// `if (moving)` and `if (!moving)` exclude each other: MaxBits adds the larger side of each (45 + 1),
// the worst encoding has 45 + 0.
BITWIRE_GENERATED_PROFILE(demo::constructs::Conditions, 1, 0, 3000);
BITWIRE_GENERATED_PROFILE(demo::constructs::Directives, 0, 2, 2000);  // align, string (check is off)
BITWIRE_GENERATED_PROFILE(demo::constructs::Everything, 1, 6, 1000);

#undef BITWIRE_GENERATED_PROFILE

// Names typed tests print instead of indexes.
struct ProfileNames {
  template <typename T>
  static std::string GetName(int) {
    const std::string name = Profile<T>::kName;
    return name.substr(name.rfind(':') + 1);
  }
};

// ---- what a read into a dirty object must leave ----

// Elements of a sparse array that a message does not carry keep what the destination held (a sparse
// message is a delta); everything else comes from the message. `expected` is the value that was written.
template <typename T>
void keep_unsent(T&, const T&) {}

template <typename Value, size_t N>
void keep_unsent_elements(std::array<Value, N>& expected, const std::array<bool, N>& changed,
                          const std::array<Value, N>& dirty) {
  for (size_t i = 0; i < N; ++i) {
    if (!changed[i]) expected[i] = dirty[i];
  }
}

inline void keep_unsent(game::ScoreUpdate& expected, const game::ScoreUpdate& dirty) {
  keep_unsent_elements(expected.scores, expected.scores_changed, dirty.scores);
}

inline void keep_unsent(demo::constructs::Shapes& expected, const demo::constructs::Shapes& dirty) {
  keep_unsent_elements(expected.health, expected.health_changed, dirty.health);
  keep_unsent_elements(expected.tiny, expected.tiny_changed, dirty.tiny);
}

inline void keep_unsent(demo::constructs::Everything& expected, const demo::constructs::Everything& dirty) {
  keep_unsent(expected.shapes, dirty.shapes);
}

}  // namespace bitwire::test::gen
