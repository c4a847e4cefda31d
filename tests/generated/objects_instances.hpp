// Instances of the object wire forms (bench/generated/corpus/objects.net) for the golden test: each form at
// its defaults (0), with every field at its smallest value (1) and at its largest (2). Raw float32 and
// float64 fields take the smallest and largest finite values. The bytes they write are pinned in
// corpus_objects_golden_test.cpp.
#pragma once

#include <cstdint>
#include <limits>

#include "objects.hpp"

namespace objects {
namespace instances {

inline constexpr float kFloatMin = std::numeric_limits<float>::lowest();
inline constexpr float kFloatMax = std::numeric_limits<float>::max();
inline constexpr double kDoubleMin = std::numeric_limits<double>::lowest();
inline constexpr double kDoubleMax = std::numeric_limits<double>::max();

inline void set(examples::Vec3& v, int which) {
  const double d = which == 1 ? kDoubleMin : kDoubleMax;
  v = {d, d, d};
}

inline void set(examples::Quat& q, int which) {
  const double d = which == 1 ? kDoubleMin : kDoubleMax;
  q = {d, d, d, d};
}

inline void set(examples::Handle& h, int which) {
  h.object_id = static_cast<std::int32_t>(which == 1 ? 0 : examples::MaxObjects - 1);
  h.object_sequence = which == 1 ? std::uint8_t{0} : std::uint8_t{255};
}

// The rotation components every shallow form with a quantized Quat holds, [-RotationUnits, RotationUnits].
template <typename M>
void set_quantized_rotation(M& m, int which) {
  const auto r = static_cast<std::int16_t>(which == 1 ? -examples::RotationUnits : examples::RotationUnits);
  m.rotation_x = r;
  m.rotation_y = r;
  m.rotation_z = r;
  m.rotation_w = r;
}

// Position, rotation and linear velocity of the Ship, Missile and DynamicProp shallow forms.
template <typename M>
void set_quantized_motion(M& m, int which) {
  const auto p =
      static_cast<std::int32_t>(which == 1 ? -examples::MaxPositionUnits : examples::MaxPositionUnits);
  const auto v =
      static_cast<std::int32_t>(which == 1 ? -examples::MaxVelocityUnits : examples::MaxVelocityUnits);
  m.position_x = m.position_y = m.position_z = p;
  set_quantized_rotation(m, which);
  m.linear_velocity_x = m.linear_velocity_y = m.linear_velocity_z = v;
}

inline std::uint64_t raw64(int which) {
  return which == 1 ? 0 : UINT64_MAX;
}

inline examples::Team team(int which) {
  return which == 1 ? examples::Team::None : examples::Team::Blue;
}

inline void set(FixedVec& v, int which) {
  const std::int64_t raw = (which == 1 ? -100000 : 100000) * std::int64_t{65536};
  v = {raw, raw, raw};
}

inline void set(FixedQuat& q, int which) {
  const std::int32_t raw = which == 1 ? -(std::int32_t{1} << 30) : std::int32_t{1} << 30;
  q = {raw, raw, raw, raw};
}

}  // namespace instances

inline ShipDeep ship_deep_instance(int which) {
  using namespace instances;
  ShipDeep m;
  if (which == 0) return m;
  const float f = which == 1 ? kFloatMin : kFloatMax;
  m.ship_type = which == 1 ? examples::ShipType::None : examples::ShipType::Carrier;
  set(m.position, which);
  set(m.rotation, which);
  set(m.linear_velocity, which);
  m.flags = which == 1 ? examples::ShipFlags::None
                       : examples::ShipFlags::FiringLaser | examples::ShipFlags::Boosting |
                             examples::ShipFlags::Braking | examples::ShipFlags::Aiming;
  m.team = team(which);
  m.health = m.thrust = f;
  set(m.angular_velocity, which);
  m.laser_cooldown = m.missile_cooldown = m.speed_current = m.speed_velocity = f;
  set(m.stick_current, which);
  set(m.stick_velocity, which);
  m.sensitivity_current = m.sensitivity_velocity = m.roll_current = m.roll_velocity = f;
  m.aim_current = m.aim_velocity = f;
  m.laser_index = static_cast<std::int8_t>(which == 1 ? 0 : examples::ShipMaxLasers - 1);
  m.missile_index = static_cast<std::int8_t>(which == 1 ? 0 : examples::ShipMaxMissiles - 1);
  set(m.target, which);
  m.lock_start_time = which == 1 ? kDoubleMin : kDoubleMax;
  return m;
}

inline ShipShallow ship_shallow_instance(int which) {
  using namespace instances;
  ShipShallow m;
  if (which == 0) return m;
  m.ship_type = which == 1 ? examples::ShipType::None : examples::ShipType::Carrier;
  set_quantized_motion(m, which);
  m.flags = which == 1 ? examples::ShipFlags::None
                       : examples::ShipFlags::FiringLaser | examples::ShipFlags::Boosting |
                             examples::ShipFlags::Braking | examples::ShipFlags::Aiming;
  m.team = team(which);
  m.health = static_cast<std::uint16_t>(which == 1 ? 0 : examples::MaxHealth);
  m.thrust = static_cast<std::uint8_t>(which == 1 ? 0 : 100);
  return m;
}

inline MissileDeep missile_deep_instance(int which) {
  using namespace instances;
  MissileDeep m;
  if (which == 0) return m;
  m.missile_type = which == 1 ? MissileType::None : MissileType::Nuke;
  set(m.position, which);
  set(m.rotation, which);
  set(m.linear_velocity, which);
  m.team = team(which);
  m.flags = raw64(which);
  return m;
}

inline MissileShallow missile_shallow_instance(int which) {
  using namespace instances;
  MissileShallow m;
  if (which == 0) return m;
  m.missile_type = which == 1 ? MissileType::None : MissileType::Nuke;
  set_quantized_motion(m, which);
  m.team = team(which);
  m.flags = raw64(which);
  return m;
}

inline DynamicPropDeep dynamic_prop_deep_instance(int which) {
  using namespace instances;
  DynamicPropDeep m;
  if (which == 0) return m;
  m.prop_type = which == 1 ? PropType::None : PropType::DysonPanel;
  set(m.position, which);
  set(m.rotation, which);
  set(m.linear_velocity, which);
  m.flags = raw64(which);
  m.team = team(which);
  return m;
}

inline DynamicPropShallow dynamic_prop_shallow_instance(int which) {
  using namespace instances;
  DynamicPropShallow m;
  if (which == 0) return m;
  m.prop_type = which == 1 ? PropType::None : PropType::DysonPanel;
  set_quantized_motion(m, which);
  m.flags = raw64(which);
  m.team = team(which);
  return m;
}

inline TurretDeep turret_deep_instance(int which) {
  using namespace instances;
  TurretDeep m;
  if (which == 0) return m;
  set(m.parent, which);
  m.turret_index = static_cast<std::int32_t>(which == 1 ? 0 : MaxTurretsPerShip - 1);
  set(m.rotation, which);
  m.flags = raw64(which);
  return m;
}

inline TurretShallow turret_shallow_instance(int which) {
  using namespace instances;
  TurretShallow m;
  if (which == 0) return m;
  set(m.parent, which);
  m.turret_index = static_cast<std::int32_t>(which == 1 ? 0 : MaxTurretsPerShip - 1);
  set_quantized_rotation(m, which);
  m.flags = raw64(which);
  return m;
}

// BodyDeep, BodyShallow and NarrowBodyDeep: the same fields (FixedVec, FixedQuat, FixedVec).
template <typename M>
M body_instance(int which) {
  using namespace instances;
  M m;
  if (which == 0) return m;
  set(m.position, which);
  set(m.rotation, which);
  set(m.velocity, which);
  return m;
}

inline NarrowBodyShallow narrow_body_shallow_instance(int which) {
  using namespace instances;
  NarrowBodyShallow m;
  if (which == 0) return m;
  const std::int32_t p = which == 1 ? -25600000 : 25600000;
  m.position_x = m.position_y = m.position_z = p;
  set_quantized_rotation(m, which);
  set(m.velocity, which);
  return m;
}

}  // namespace objects
