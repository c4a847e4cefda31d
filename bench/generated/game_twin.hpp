// A hand-written twin of the generated serialize functions of game.PlayerInput and game.Snapshot (with
// the common and game structs they use), written directly against bitwire::serialize_* the way a
// programmer would without idlc. It works on the generated structs, so a benchmark compares only the
// serialize code: same data layout, same runtime, same wire bytes (generated_bench checks the bytes match
// before it times anything), same read semantics (ranges and enums validated, the untaken side of an `if`
// reset to its defaults). Like the runtime's primitives and the generated members, the functions are
// declared inline, which is what lets g++ inline them into the caller that owns the stream.
#pragma once

#include <cstdint>

#include "bitwire/serialize/serialize.hpp"
#include "game.hpp"

namespace twin {

template <typename Stream>
inline bool serialize_position(Stream& stream, common::Position& p) {
  BITWIRE_TRY(bitwire::serialize_compressed_float(stream, p.x, -1024.0f, 1024.0f, 0.125f));
  BITWIRE_TRY(bitwire::serialize_compressed_float(stream, p.y, -1024.0f, 1024.0f, 0.125f));
  BITWIRE_TRY(bitwire::serialize_compressed_float(stream, p.z, -1024.0f, 1024.0f, 0.125f));
  return true;
}

template <typename Stream>
inline bool serialize_velocity(Stream& stream, common::Velocity& v) {
  BITWIRE_TRY(bitwire::serialize_compressed_float(stream, v.x, -32.0f, 32.0f, 0.03125f));
  BITWIRE_TRY(bitwire::serialize_compressed_float(stream, v.y, -32.0f, 32.0f, 0.03125f));
  BITWIRE_TRY(bitwire::serialize_compressed_float(stream, v.z, -32.0f, 32.0f, 0.03125f));
  return true;
}

template <typename Stream>
inline bool serialize_orientation(Stream& stream, common::Orientation& q) {
  BITWIRE_TRY(bitwire::serialize_bits(stream, q.largest, 2));
  BITWIRE_TRY(bitwire::serialize_int(stream, q.a, -511, 511));
  BITWIRE_TRY(bitwire::serialize_int(stream, q.b, -511, 511));
  BITWIRE_TRY(bitwire::serialize_int(stream, q.c, -511, 511));
  return true;
}

template <typename Stream>
inline bool serialize_entity(Stream& stream, game::EntityState& e) {
  using game::EntityKind;
  using game::Weapon;
  BITWIRE_TRY(bitwire::serialize_int(stream, e.id, 0, 63));
  BITWIRE_TRY(bitwire::serialize_enum(stream, e.kind, EntityKind::Player, EntityKind::Vehicle));
  BITWIRE_TRY(serialize_position(stream, e.position));
  BITWIRE_TRY(serialize_orientation(stream, e.orientation));
  BITWIRE_TRY(bitwire::serialize_bool(stream, e.at_rest));
  if (!e.at_rest) {
    BITWIRE_TRY(serialize_velocity(stream, e.velocity));
  } else if constexpr (Stream::kIsReading) {
    e.velocity = {};
  }
  if (e.kind == EntityKind::Player) {
    BITWIRE_TRY(bitwire::serialize_int(stream, e.health, 0, 100));
    BITWIRE_TRY(bitwire::serialize_enum(stream, e.weapon, Weapon::Fists, Weapon::RocketLauncher));
    BITWIRE_TRY(bitwire::serialize_int(stream, e.clips, 0, 7));
  } else if (e.kind == EntityKind::Vehicle) {
    BITWIRE_TRY(bitwire::serialize_int(stream, e.fuel, 0, 100));
    BITWIRE_TRY(bitwire::serialize_int(stream, e.occupants, 0, 3));
  }
  if constexpr (Stream::kIsReading) {
    if (e.kind != EntityKind::Player) {
      e.health = 100;
      e.weapon = Weapon::Pistol;
      e.clips = 0;
    }
    if (e.kind != EntityKind::Vehicle) {
      e.fuel = 100;
      e.occupants = 0;
    }
  }
  return true;
}

template <typename Stream>
inline bool serialize_player_input(Stream& stream, game::PlayerInput& input) {
  BITWIRE_TRY(bitwire::serialize_uint32(stream, input.tick));
  auto buttons = static_cast<uint16_t>(input.buttons);
  BITWIRE_TRY(bitwire::serialize_bits(stream, buttons, 10));
  if constexpr (Stream::kIsReading) input.buttons = static_cast<game::InputButtons>(buttons);
  BITWIRE_TRY(bitwire::serialize_compressed_float(stream, input.yaw, -180.0f, 180.0f, 0.01f));
  BITWIRE_TRY(bitwire::serialize_compressed_float(stream, input.pitch, -90.0f, 90.0f, 0.01f));
  BITWIRE_TRY(bitwire::serialize_bool(stream, input.has_switch_to));
  if (input.has_switch_to) {
    BITWIRE_TRY(
        bitwire::serialize_enum(stream, input.switch_to, game::Weapon::Fists, game::Weapon::RocketLauncher));
  } else if constexpr (Stream::kIsReading) {
    input.switch_to = {};
  }
  return true;
}

template <typename Stream>
inline bool serialize_snapshot(Stream& stream, game::Snapshot& snapshot) {
  BITWIRE_TRY(bitwire::serialize_uint32(stream, snapshot.tick));
  BITWIRE_TRY(bitwire::serialize_uint32(stream, snapshot.last_input_tick));
  auto count = static_cast<uint32_t>(snapshot.entities.size());
  BITWIRE_TRY(bitwire::serialize_count(stream, count, 0, 64));
  if constexpr (Stream::kIsReading) snapshot.entities.resize(count);
  for (uint32_t i = 0; i < count; ++i) {
    BITWIRE_TRY(serialize_entity(stream, snapshot.entities[i]));
  }
  return true;
}

}  // namespace twin
