// Instances of the corpus examples messages (bench/generated/corpus/examples.net) for the golden test:
// each message at its defaults, at its largest values and at a fixed pattern. The bytes they write are
// pinned in corpus_golden_test.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "examples.hpp"

namespace examples {

inline Test test_instance(int which) {
  Test m;
  if (which == 1) {
    m.test_a = 65535;
    m.test_b = 1000;
    m.test_c = 1000;
    m.test_d = 1000;
  } else if (which == 2) {
    m.test_a = 0x1234;
    m.test_b = 1;
    m.test_c = 500;
    m.test_d = 999;
  }
  return m;
}

inline Block block_instance(int which) {
  Block m;
  const std::size_t length = which == 1 ? MaxBlockSize : which == 2 ? 5 : 0;
  for (std::size_t i = 0; i < length; ++i) m.data.push_back(static_cast<std::uint8_t>(i * 7 + 3));
  return m;
}

inline Chat chat_instance(int which) {
  Chat m;
  if (which == 1) {
    const std::string full(MaxChatLength, 'z');
    (void)m.text.assign(full);
  } else if (which == 2) {
    (void)m.text.assign("h\xc3\xa9llo w\xc3\xb6rld \xe2\x9c\x93");
  }
  return m;
}

inline Synchronize synchronize_instance(int which) {
  Synchronize m;
  if (which == 1) {
    m.sync_frame = UINT64_MAX;
    m.sync_sequence = 65535;
  } else if (which == 2) {
    m.sync_frame = 0x0123456789abcdefull;
    m.sync_sequence = 0xbeef;
  }
  return m;
}

inline Timescale timescale_instance(int which) {
  Timescale m;
  if (which == 1) {
    m.scale = -1.7976931348623157e308;
    m.frame_a = UINT32_MAX;
    m.frame_b = UINT32_MAX;
  } else if (which == 2) {
    m.scale = 0.75;
    m.frame_a = 60;
    m.frame_b = 0x80000001u;
  }
  return m;
}

inline ProbeHeader probe_header_instance(int which) {
  ProbeHeader m;
  if (which == 1) {
    m.version = 7;
    m.probe_id = UINT64_MAX;
  } else if (which == 2) {
    m.version = 5;
    m.probe_id = 0xDEADBEEFCAFEull;
  }
  return m;
}

inline ProbeBits probe_bits_instance(int which) {
  ProbeBits m;
  if (which == 1) {
    m.small = 0x1ff;
    m.boundary = 0x1ffffffffull;
    m.wide = UINT64_MAX;
    m.sensor = UINT32_MAX;
    m.nonce = UINT64_MAX;
  } else if (which == 2) {
    m.small = 0x155;
    m.boundary = 0x100000001ull;
    m.wide = 0x8000000000000001ull;
    m.sensor = 0xcafef00du;
    m.nonce = 0x0123456789abcdefull;
  }
  return m;
}

// RigidBody: (0) defaults (moving, every component 0.0), (1) moving with every component at the largest
// magnitude or a special value (-DBL_MAX, DBL_MAX, -0.0, infinity, the smallest subnormal), (2) schema's
// own bench pin `pin_rigidbody_moving`, (3) the same at rest (the velocities are not on the wire).
inline RigidBody rigid_body_instance(int which) {
  RigidBody m;
  if (which == 1) {
    m.position = {-1.7976931348623157e308, 1.7976931348623157e308, -0.0};
    m.orientation = {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                     std::numeric_limits<double>::denorm_min(), -1.7976931348623157e308};
    m.linear_velocity = {1.7976931348623157e308, -1.7976931348623157e308, 1.7976931348623157e308};
    m.angular_velocity = {-0.0, std::numeric_limits<double>::denorm_min(), -1.7976931348623157e308};
  } else if (which >= 2) {
    m.position = {1.5, -2.5, 3.25};
    m.orientation = {0.1, 0.2, 0.3, 0.9};
    m.at_rest = which == 3;
    if (which == 2) {
      m.linear_velocity = {10.0, 20.0, -3.0};
      m.angular_velocity = {0.25, 0.5, 0.75};
    }
  }
  return m;
}

// InputPacket: (0) defaults (no inputs), (1) every count and value at its largest (16 inputs, every bool
// set, floats at -FLT_MAX, FLT_MAX, infinity and the smallest subnormal), (2) schema's own bench pin
// `pin_inputpacket` (two inputs).
inline InputPacket input_packet_instance(int which) {
  InputPacket m;
  if (which == 1) {
    m.synchronize_sequence = 65535;
    m.current_frame = UINT64_MAX;
    m.start_frame = UINT64_MAX - 1;
    for (int i = 0; i < MaxInputsPerPacket; ++i) {
      Input in;
      in.stick_x = -std::numeric_limits<float>::max();
      in.stick_y = std::numeric_limits<float>::max();
      in.throttle = std::numeric_limits<float>::infinity();
      in.yaw = std::numeric_limits<float>::denorm_min();
      in.pitch = static_cast<float>(i) * 0.25f;
      in.fire = in.alt_fire = in.boost = in.brake = in.aim = in.lock_on = in.zoom = in.ping = true;
      (void)m.inputs.push_back(in);
    }
  } else if (which == 2) {
    m.synchronize_sequence = 7;
    m.current_frame = 123456789u;
    m.start_frame = 123456780u;
    Input first;
    first.throttle = 0.5f;
    first.fire = true;
    Input second;
    second.stick_x = -0.25f;
    second.boost = true;
    (void)m.inputs.push_back(first);
    (void)m.inputs.push_back(second);
  }
  return m;
}

// ShipCreate: (0) defaults, (1) every field at its largest (Carrier, every axis at its maximum, all four
// flags, Blue, full health and thrust), (2) schema's own bench pin `pin_shipcreate`, (3) every field at its
// smallest with the flags gate closed.
inline ShipCreate ship_create_instance(int which) {
  ShipCreate m;
  if (which == 1) {
    m.ship_type = ShipType::Carrier;
    m.position = {MaxPositionUnits, MaxPositionUnits, MaxPositionUnits};
    m.rotation = {RotationUnits, RotationUnits, RotationUnits, RotationUnits};
    m.linear_velocity = {MaxVelocityUnits, MaxVelocityUnits, MaxVelocityUnits};
    m.has_flags = true;
    m.flags = ShipFlags::FiringLaser | ShipFlags::Boosting | ShipFlags::Braking | ShipFlags::Aiming;
    m.team = Team::Blue;
    m.health = MaxHealth;
    m.thrust = 100;
  } else if (which == 2) {
    m.ship_type = ShipType::Bomber;
    m.position = {1000, -2000, 3000};
    m.has_flags = true;
    m.flags = ShipFlags::Boosting | ShipFlags::Aiming;
    m.team = Team::Blue;
    m.health = 750;
    m.thrust = 55;
  } else if (which == 3) {
    m.position = {-MaxPositionUnits, -MaxPositionUnits, -MaxPositionUnits};
    m.rotation = {-RotationUnits, -RotationUnits, -RotationUnits, -RotationUnits};
    m.linear_velocity = {-MaxVelocityUnits, -MaxVelocityUnits, -MaxVelocityUnits};
  }
  return m;
}

// ProbeArray: (0) defaults, (1) schema's own bench pin `pin_probearray` (one sample on each side of the
// `active` gate), (2) both samples active with a target, eight samples each, every value at its largest.
inline ProbeArray probe_array_instance(int which) {
  ProbeArray m;
  if (which == 1) {
    ProbeSample& first = m.samples[0];
    first.orientation = 90.0f;
    first.raw_delta = -5;
    first.big_delta = -1234567890123ll;
    first.weapon = Weapon::Laser;
    first.has_target = true;
    first.target_id = 777;
    first.samples.clear();
    (void)first.samples.push_back(42);
    ProbeSample& second = m.samples[1];
    second.active = false;
    second.orientation = -45.5f;
    second.raw_delta = 7;
    second.big_delta = 99;
    second.idle_ticks = 1000;
    second.samples.clear();
    (void)second.samples.push_back(7);
    (void)second.samples.push_back(8);
    m.config.retries = 3;
    m.config.preferred = Weapon::Missile;
  } else if (which == 2) {
    for (ProbeSample& sample : m.samples) {
      sample.orientation = 180.0f;
      sample.raw_delta = INT32_MAX;
      sample.big_delta = INT64_MIN;
      sample.weapon = static_cast<Weapon>(15);  // headroom: a value past the last enumerator
      sample.has_target = true;
      sample.target_id = 65535;
      sample.samples.clear();
      for (int i = 0; i < 8; ++i) (void)sample.samples.push_back(static_cast<std::uint16_t>(65535 - i));
    }
    m.config.retries = INT32_MIN;
    m.config.preferred = static_cast<Weapon>(15);
  }
  return m;
}

// ProbeReport: (0) defaults, (1) every value at its largest (every flag bit, the reserved ones too).
inline ProbeReport probe_report_instance(int which) {
  ProbeReport m;
  if (which == 1) {
    m.header = probe_header_instance(1);
    m.flags = static_cast<ProbeFlags>(0xff);
    m.echo = test_instance(1);
  }
  return m;
}

// TestData: (0) defaults, (1) schema's own bench pin `pin_testdata`, (2) every value and length at its
// largest (16 items, 255 bytes of text).
inline TestData test_data_instance(int which) {
  TestData m;
  if (which == 1) {
    m.a = -100;
    m.b = 100;
    m.c = 149;
    m.d = 0x11;
    m.e = 0x22;
    m.f = 0x33;
    m.g = true;
    (void)m.items.push_back(0);
    (void)m.items.push_back(128);
    (void)m.items.push_back(255);
    m.float_value = 3.1415926f;
    m.compressed_float_value = 2.5f;
    m.double_value = 1.0 / 3.0;
    m.int8_value = -128;
    m.int16_value = -32768;
    m.uint8_value = 255;
    m.uint16_value = 65535;
    m.uint32_value = 4294967295u;
    m.uint64_value = UINT64_MAX;
    m.int64_full = INT64_MIN;
    m.int64_range = -999999999999ll;
    for (std::size_t i = 0; i < 17; ++i) m.fixed_bytes[i] = static_cast<std::uint8_t>(i * 3);
    (void)m.text.assign("the quick brown fox");
  } else if (which == 2) {
    m.a = 100;
    m.b = 100;
    m.c = 150;
    m.d = m.e = m.f = 255;
    m.g = true;
    for (int i = 0; i < 16; ++i) (void)m.items.push_back(255);
    m.float_value = -std::numeric_limits<float>::max();
    m.compressed_float_value = 10.0f;
    m.double_value = std::numeric_limits<double>::infinity();
    m.int8_value = 127;
    m.int16_value = 32767;
    m.uint8_value = 255;
    m.uint16_value = 65535;
    m.uint32_value = UINT32_MAX;
    m.uint64_value = UINT64_MAX;
    m.int64_full = INT64_MAX;
    m.int64_range = 1000000000000ll;
    for (std::size_t i = 0; i < 17; ++i) m.fixed_bytes[i] = 0xff;
    const std::string full(255, 'w');
    (void)m.text.assign(full);
  }
  return m;
}

// CompressedProbe: (0) defaults, (1) both at their maxima, (2) both at their minima, (3) values between
// quanta (rounded as schema rounds them).
inline CompressedProbe compressed_probe_instance(int which) {
  CompressedProbe m;
  if (which == 1) {
    m.boundary = 10.0f;
    m.offset = 5.0f;
  } else if (which == 2) {
    m.boundary = 0.0f;
    m.offset = -5.0f;
  } else if (which == 3) {
    m.boundary = 3.14159f;
    m.offset = -1.23456f;
  }
  return m;
}

// Handle: (0) defaults, (1) both at their maxima, (2) values between.
inline Handle handle_instance(int which) {
  Handle m;
  if (which == 1) {
    m.object_id = MaxObjects - 1;
    m.object_sequence = 255;
  } else if (which == 2) {
    m.object_id = 1234;
    m.object_sequence = 0x5A;
  }
  return m;
}

// ExpressionProbe: (0) defaults (spin_rate at its minimum, 1024), (1) both at their maxima, (2) between.
inline ExpressionProbe expression_probe_instance(int which) {
  ExpressionProbe m;
  if (which == 1) {
    m.hardpoint_index = 31;
    m.spin_rate = 2048;
  } else if (which == 2) {
    m.hardpoint_index = 17;
    m.spin_rate = 1500;
  }
  return m;
}

// ExtremeProbe: (0) defaults, (1) the ranged fields at their minima, the raw ones at the opposite extremes,
// (2) the ranged fields at their maxima, (3) values between.
inline ExtremeProbe extreme_probe_instance(int which) {
  ExtremeProbe m;
  if (which == 1) {
    m.floor_bound = std::numeric_limits<int64_t>::min();
    m.doubled_floor = std::numeric_limits<int64_t>::min();
    m.ceiling_range = 1;
    m.floor_default = std::numeric_limits<int64_t>::max();
    m.ceiling_default = 0;
  } else if (which == 2) {
    m.floor_bound = 100;
    m.doubled_floor = 100;
    m.ceiling_range = UINT64_MAX;
  } else if (which == 3) {
    m.floor_bound = -1;
    m.doubled_floor = 0;
    m.ceiling_range = uint64_t{1} << 63;
    m.floor_default = 42;
    m.ceiling_default = 7;
  }
  return m;
}

// ExtremeRow: (0) defaults, (1) the ranged fields at their minima, (2) at their maxima with the raw ones at
// the opposite extremes.
inline ExtremeRow extreme_row_instance(int which) {
  ExtremeRow m;
  if (which == 1) {
    m.clamped_floor = std::numeric_limits<int64_t>::min();
    m.clamped_ceiling = 1;
  } else if (which == 2) {
    m.clamped_floor = 100;
    m.clamped_ceiling = UINT64_MAX - 1;
    m.floor_def = std::numeric_limits<int64_t>::max();
    m.ceiling_def = 0;
  }
  return m;
}

// RenderBlock: (0) no sprites, (1) 64 sprites at the extremes, (2) three sprites between.
inline RenderBlock render_block_instance(int which) {
  RenderBlock m;
  if (which == 1) {
    m.worker_index = UINT32_MAX;
    m.sprite_count_hint = UINT32_MAX;
    for (int i = 0; i < RenderBlockMaxSprites; ++i) {
      RenderSprite sprite;
      sprite.sort_key = UINT64_MAX;
      sprite.mesh_id = UINT32_MAX;
      sprite.material_id = UINT32_MAX;
      sprite.layer = 255;
      sprite.team = Team::Blue;
      (void)m.sprites.push_back(sprite);
    }
  } else if (which == 2) {
    m.worker_index = 3;
    m.sprite_count_hint = 3;
    for (int i = 0; i < 3; ++i) {
      RenderSprite sprite;
      sprite.sort_key = 0x0123456789ABCDEFull + static_cast<uint64_t>(i);
      sprite.mesh_id = 1000u + static_cast<uint32_t>(i);
      sprite.material_id = 77u * static_cast<uint32_t>(i + 1);
      sprite.layer = static_cast<uint8_t>(i * 40);
      sprite.team = static_cast<Team>(i);
      (void)m.sprites.push_back(sprite);
    }
  }
  return m;
}

// FixedProbe (raw values: whole units times 2^16, ticks whole): (0) defaults, (1) every field at its minimum,
// (2) at its maximum, (3) values between that are not whole units.
inline FixedProbe fixed_probe_instance(int which) {
  FixedProbe m;
  if (which == 1) {
    m.angle = -180 * 65536;
    m.position = -MaxWorldUnits * 65536;
    m.reach = int64_t{-1000000} * 65536;
    m.ticks = 0;
    m.samples = {-8 * 65536, -8 * 65536};
  } else if (which == 2) {
    m.angle = 180 * 65536;
    m.position = MaxWorldUnits * 65536;
    m.reach = int64_t{1000000} * 65536;
    m.ticks = 1000000;
    m.samples = {8 * 65536, 8 * 65536};
  } else if (which == 3) {
    m.angle = -12345;
    m.position = 1966079999;
    m.reach = -65536000000 + 65535;
    m.ticks = 123456;
    m.samples = {1, -524287};
  }
  return m;
}

// DegenerateProbe: the locked fields carry no bits; (0) defaults, (1) tail 255, (2) tail 0x5A.
inline DegenerateProbe degenerate_probe_instance(int which) {
  DegenerateProbe m;
  m.tail = which == 1 ? 255 : which == 2 ? 0x5A : 0;
  return m;
}

// UnsignedProbe (raw values: whole units times 2^16, ticks whole): (0) defaults, (1) every field at its
// minimum, (2) at its maximum (span's raw 2^64 - 2^16 fills uint64's high half), (3) values between, span
// past int64.
inline UnsignedProbe unsigned_probe_instance(int which) {
  UnsignedProbe m;
  if (which == 2) {
    m.angle = 360u * 65536u;
    m.span = 18446744073709486080ull;
    m.reach = 2000000ull * 65536ull;
    m.ticks = 1000000;
    m.samples = {16u * 65536u, 16u * 65536u};
    m.tail = 255;
  } else if (which == 3) {
    m.angle = 12345;
    m.span = 9223372036854775809ull;
    m.reach = 123456789;
    m.ticks = 777;
    m.samples = {1, 1048575};
    m.tail = 0x5A;
  }
  return m;
}

// A 128-bit value from its halves.
inline bitwire::uint128_t u128(uint64_t high, uint64_t low) {
  return (static_cast<bitwire::uint128_t>(high) << 64) | low;
}

// WideProbe: (0) defaults (bias -250, seed 2^65), (1) every field at its minimum (flux -2^100), (2) at its
// maximum, (3) values between, past 64 bits where the field allows.
inline WideProbe wide_probe_instance(int which) {
  WideProbe m;
  const auto two_to_100 = static_cast<bitwire::int128_t>(u128(uint64_t{1} << 36, 0));
  if (which == 1) {
    m.entity_id = 0;
    m.energy = -5000000000;
    m.flux = -two_to_100;
    m.bias = -1000;
    m.seed = 0;
  } else if (which == 2) {
    m.entity_id = ~bitwire::uint128_t{0};
    m.energy = 5000000000;
    m.flux = two_to_100;
    m.bias = 1000;
    m.seed = ~bitwire::uint128_t{0};
  } else if (which == 3) {
    m.entity_id = u128(0x0123456789ABCDEFull, 0xFEDCBA9876543210ull);
    m.energy = -1;
    m.flux = two_to_100 - 12345;
    m.bias = 0;
    m.seed = u128(0x8000000000000000ull, 5);
  }
  return m;
}

// LudicrousState: (0) defaults, (1) four keys and a target past 64 bits, (2) one key and no target.
inline LudicrousState ludicrous_state_instance(int which) {
  LudicrousState m;
  if (which == 1) {
    m.mode = DriveMode::Ludicrous;
    m.probe = fixed_probe_instance(2);
    m.wide = wide_probe_instance(3);
    for (bitwire::uint128_t key :
         {bitwire::uint128_t{0}, ~bitwire::uint128_t{0}, u128(1, 0), bitwire::uint128_t{1}}) {
      (void)m.keys.push_back(key);
    }
    m.has_target = true;
    m.target_id = u128(uint64_t{1} << 36, 7);
  } else if (which == 2) {
    m.mode = DriveMode::Warp;
    m.probe = fixed_probe_instance(1);
    m.wide = wide_probe_instance(1);
    (void)m.keys.push_back(42);
  }
  return m;
}

}  // namespace examples
