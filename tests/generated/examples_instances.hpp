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

}  // namespace examples
