#include "world.hpp"

#include <algorithm>
#include <cmath>

namespace demo {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kGravity = 9.81;          // m/s^2, on grenades
constexpr double kPositionStep = 0.125;    // common.Position's resolution
constexpr double kVelocityStep = 0.03125;  // common.Velocity's resolution
constexpr double kGrenadeFlight = 1.4;     // s: a grenade thrown up at 7 m/s lands at its launcher's height
constexpr double kGrenadeUp = 7.0;         // m/s
constexpr double kGrenadeAcross = 15.0;    // m/s

struct Vec {
  double x = 0.0, y = 0.0, z = 0.0;
};
Vec operator+(Vec a, Vec b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
Vec operator*(Vec a, double s) {
  return {a.x * s, a.y * s, a.z * s};
}

// The entity's path at one time: where it is, how fast it moves (its derivative), where it faces.
struct Motion {
  Vec position;
  Vec velocity;
  double yaw = 0.0;  // radians about +y, 0 facing +z
  bool at_rest = false;
};

uint64_t mix(uint64_t x) {  // splitmix64's finalizer: a fixed, well-spread value per key
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
// A fixed value in [0, 1) per key.
double unit(uint64_t key) {
  return static_cast<double>(mix(key) >> 11) * 0x1.0p-53;
}

double on_grid(double value, double step) {
  return std::round(value / step) * step;
}
Vec on_grid(Vec v, double step) {
  return {on_grid(v.x, step), on_grid(v.y, step), on_grid(v.z, step)};
}

// Where entity i sits or starts: spread over the middle 1,400 m of the world, on the ground.
Vec home(uint32_t i) {
  return on_grid(Vec{-700.0 + 1400.0 * unit(i * 4 + 1), 2.0 + static_cast<double>(i % 3),
                     -700.0 + 1400.0 * unit(i * 4 + 2)},
                 kPositionStep);
}

double heading(Vec velocity) {
  return std::atan2(velocity.x, velocity.z);
}

// A player runs its rectangle: four legs at 6, 7 or 8 m/s, each followed by a stop.
Motion player(uint32_t i, double t) {
  const double speed = 6.0 + static_cast<double>(i / 4 % 3);
  const double angle = 2.0 * kPi * unit(i * 4 + 3);
  // The legs' velocities lie on the Velocity grid, so the sent velocity is the path's exact derivative.
  const Vec a = on_grid(Vec{speed * std::sin(angle), 0.0, speed * std::cos(angle)}, kVelocityStep);
  const Vec b{-a.z, 0.0, a.x};
  // Seconds each leg and each stop lasts.
  const double long_leg = 3.0 + static_cast<double>(i % 3);
  const double short_leg = 2.0 + 0.5 * static_cast<double>(i % 5);
  const double stop = 0.75;
  const Vec legs[4] = {a, b, a * -1.0, b * -1.0};
  const double durations[4] = {long_leg, short_leg, long_leg, short_leg};
  const double period = 2.0 * (long_leg + short_leg) + 4.0 * stop;
  double left = std::fmod(t + 1.37 * static_cast<double>(i), period);
  Motion m;
  m.position = home(i);
  for (int leg = 0; leg < 4; ++leg) {
    m.yaw = heading(legs[leg]);
    if (left < durations[leg]) {
      m.position = m.position + legs[leg] * left;
      m.velocity = legs[leg];
      return m;
    }
    m.position = m.position + legs[leg] * durations[leg];
    left -= durations[leg];
    if (left < stop) {
      m.at_rest = true;
      return m;
    }
    left -= stop;
  }
  m.at_rest = true;  // only by rounding at the period's end: back at home, at the last stop
  return m;
}

// A vehicle drives an oval (two straights joined by half circles) at 20-28 m/s; every fifth is parked.
Motion vehicle(uint32_t i, double t) {
  Motion m;
  const double angle = 2.0 * kPi * unit(i * 4 + 3);
  if (i % 5 == 0) {
    m.position = home(i);
    m.yaw = angle;
    m.at_rest = true;
    return m;
  }
  const double speed = 20.0 + 2.0 * static_cast<double>(i / 4 % 5);
  const double straight = 120.0 + 40.0 * static_cast<double>(i % 3);
  const double radius = 30.0 + 10.0 * static_cast<double>(i / 4 % 3);
  const double turn = kPi * radius;
  const double s = std::fmod(speed * t + 37.0 * static_cast<double>(i), 2.0 * (straight + turn));
  // On the track's own axes: the first straight runs +x at z = -radius.
  double x = 0.0, z = 0.0, vx = 0.0, vz = 0.0;
  if (s < straight) {
    x = -straight / 2 + s, z = -radius, vx = speed;
  } else if (s < straight + turn) {
    const double phi = -kPi / 2 + (s - straight) / radius;
    x = straight / 2 + radius * std::cos(phi), z = radius * std::sin(phi);
    vx = -speed * std::sin(phi), vz = speed * std::cos(phi);
  } else if (s < 2 * straight + turn) {
    x = straight / 2 - (s - straight - turn), z = radius, vx = -speed;
  } else {
    const double phi = kPi / 2 + (s - 2 * straight - turn) / radius;
    x = -straight / 2 + radius * std::cos(phi), z = radius * std::sin(phi);
    vx = -speed * std::sin(phi), vz = speed * std::cos(phi);
  }
  const double c = std::cos(angle), sn = std::sin(angle);
  const Vec base = home(i);
  m.position = {base.x + c * x - sn * z, base.y, base.z + sn * x + c * z};
  m.velocity = {c * vx - sn * vz, 0.0, sn * vx + c * vz};
  m.yaw = heading(m.velocity);
  return m;
}

uint32_t flight(uint32_t i, double t, double& since) {
  const bool grenade = i / 4 % 2 == 1;
  const double lifetime = grenade ? kGrenadeFlight : 1.5 + 0.5 * static_cast<double>(i % 3);
  const double at = t + 0.29 * static_cast<double>(i);
  const double k = std::floor(at / lifetime);
  since = at - k * lifetime;
  return static_cast<uint32_t>(k);
}

// A projectile flies from its launcher in a new direction each flight: rockets straight at 25-30 m/s,
// grenades at 15 m/s across and 7 m/s up, falling under gravity until they land.
Motion projectile(uint32_t i, double t) {
  double since = 0.0;
  const uint32_t k = flight(i, t, since);
  const double angle = 2.0 * kPi * unit((static_cast<uint64_t>(i) << 32) | k);
  const bool grenade = i / 4 % 2 == 1;
  Motion m;
  const Vec launcher = home(i) + Vec{0.0, 1.5, 0.0};
  if (grenade) {
    const Vec across{kGrenadeAcross * std::sin(angle), 0.0, kGrenadeAcross * std::cos(angle)};
    m.position = launcher + across * since + Vec{0.0, kGrenadeUp * since - kGravity * since * since / 2, 0.0};
    m.velocity = across + Vec{0.0, kGrenadeUp - kGravity * since, 0.0};
  } else {
    const double speed = 25.0 + 2.5 * static_cast<double>(i / 8 % 3);
    m.velocity = on_grid(Vec{speed * std::sin(angle), 0.0, speed * std::cos(angle)}, kVelocityStep);
    m.position = launcher + m.velocity * since;
  }
  m.yaw = angle;
  return m;
}

// A rotation by `yaw` about +y in the schema's "smallest three" form: quaternion (0, sin(yaw/2), 0,
// cos(yaw/2)) with the largest component left out and made positive, the others scaled to [-511, 511].
common::Orientation orientation(double yaw) {
  double q[4] = {0.0, std::sin(yaw / 2), 0.0, std::cos(yaw / 2)};
  int largest = 0;
  for (int k = 1; k < 4; ++k) largest = std::abs(q[k]) > std::abs(q[largest]) ? k : largest;
  if (q[largest] < 0) {
    for (double& v : q) v = -v;
  }
  int16_t rest[3] = {};
  for (int k = 0, r = 0; k < 4; ++k) {
    if (k == largest) continue;
    rest[r++] = static_cast<int16_t>(std::clamp(std::round(q[k] * 511.0 * std::sqrt(2.0)), -511.0, 511.0));
  }
  return {static_cast<uint8_t>(largest), rest[0], rest[1], rest[2]};
}

}  // namespace

uint32_t projectile_flight(uint32_t id, uint32_t tick, double tick_seconds) {
  if (id % 4 != static_cast<uint32_t>(game::EntityKind::Projectile)) return 0;
  double since = 0.0;
  return flight(id, static_cast<double>(tick) * tick_seconds, since);
}

void fill_world(game::Snapshot& snapshot, uint32_t tick, double tick_seconds) {
  const double t = static_cast<double>(tick) * tick_seconds;
  snapshot.entities.clear();
  for (uint32_t i = 0; i < 64; ++i) {
    game::EntityState e;
    e.id = static_cast<uint8_t>(i);
    e.kind = static_cast<game::EntityKind>(i % 4);
    Motion m;
    switch (e.kind) {
      case game::EntityKind::Player:
        m = player(i, t);
        break;
      case game::EntityKind::Projectile:
        m = projectile(i, t);
        break;
      case game::EntityKind::Vehicle:
        m = vehicle(i, t);
        break;
      case game::EntityKind::Pickup:
        m.position = home(i);
        m.yaw = 0.5 * static_cast<double>(i);
        m.at_rest = true;
        break;
    }
    const Vec p = on_grid(m.position, kPositionStep);
    e.position = {static_cast<float>(p.x), static_cast<float>(p.y), static_cast<float>(p.z)};
    e.orientation = orientation(m.yaw);
    e.at_rest = m.at_rest;
    if (!e.at_rest) {
      const Vec v = on_grid(m.velocity, kVelocityStep);
      e.velocity = {static_cast<float>(v.x), static_cast<float>(v.y), static_cast<float>(v.z)};
    }
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
}

}  // namespace demo
