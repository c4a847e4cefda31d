// A deterministic cube scene like the one of Glenn Fiedler's "Snapshot Compression": 900 cubes on a plane
// in a 30 x 30 grid and one player cube that drives through them along a fixed path, pushing the cubes it
// touches, which hop, slide, spin and come to rest under friction. No physics library: a few lines of
// integration per cube, one seeded generator, so one seed gives one sequence of states everywhere.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "bitwire/core/random.hpp"
#include "cubes.hpp"

namespace cube_scene {

inline constexpr int kCubes = cubes::CubeCount;  // 901: the player is cube 0
inline constexpr double kDt = 1.0 / 60.0;

struct Body {
  double x = 0, y = 0, z = 0.5;   // metres; z of the centre (a 1 m cube resting on the plane: 0.5)
  double vx = 0, vy = 0, vz = 0;  // m/s
  double yaw = 0, roll = 0;       // radians
  double spin_yaw = 0, spin_roll = 0;
  bool interacting = false;
};

class Scene {
 public:
  // `kicks_per_tick`: besides the player's pushes, this many random cubes per tick (on average) get an
  // impulse of 2..5 m/s with a hop and a spin: 0 is the player alone, 1 a busier scene.
  explicit Scene(std::uint64_t seed, double kicks_per_tick = 0)
      : rng_(seed), kicks_per_tick_(kicks_per_tick) {
    for (int i = 1; i < kCubes; ++i) {
      const int row = (i - 1) / 30;
      const int column = (i - 1) % 30;
      bodies_[i].x = (column - 14.5) * 1.5;
      bodies_[i].y = (row - 14.5) * 1.5;
      bodies_[i].yaw = rng_.uniform(-3.14159, 3.14159);
    }
    place_player();
  }

  void step() {
    time_ += kDt;
    place_player();
    const Body& player = bodies_[0];
    const double player_speed = std::hypot(player.vx, player.vy);
    for (double k = rng_.uniform(); k < kicks_per_tick_; k += 1.0) {
      Body& b = bodies_[1 + rng_.below(kCubes - 1)];
      const double heading = rng_.uniform(-3.14159, 3.14159);
      const double speed = rng_.uniform(2.0, 5.0);
      b.vx = std::cos(heading) * speed;
      b.vy = std::sin(heading) * speed;
      if (b.z <= 0.5 + 1e-9) b.vz = 2.0;
      b.spin_yaw = rng_.uniform(-4.0, 4.0);
      b.spin_roll = rng_.uniform(-6.0, 6.0);
      b.interacting = true;
    }
    for (int i = 1; i < kCubes; ++i) {
      Body& b = bodies_[i];
      const double dx = b.x - player.x;
      const double dy = b.y - player.y;
      const double d = std::hypot(dx, dy);
      if (d < 1.4 && d > 1e-9) {
        // Pushed: away from the player, a little faster than it, with a hop and a spin.
        b.vx = dx / d * (player_speed + 1.0);
        b.vy = dy / d * (player_speed + 1.0);
        if (b.z <= 0.5 + 1e-9) b.vz = 2.0;
        b.spin_yaw = rng_.uniform(-4.0, 4.0);
        b.spin_roll = rng_.uniform(-6.0, 6.0);
        b.interacting = true;
      }
      if (!b.interacting) continue;
      b.x = std::clamp(b.x + b.vx * kDt, -250.0, 250.0);
      b.y = std::clamp(b.y + b.vy * kDt, -250.0, 250.0);
      b.vz -= 9.8 * kDt;
      b.z += b.vz * kDt;
      b.yaw += b.spin_yaw * kDt;
      b.roll += b.spin_roll * kDt;
      if (b.z <= 0.5) {
        b.z = 0.5;
        b.vz = 0;
        b.vx *= 0.95;
        b.vy *= 0.95;
        b.spin_yaw *= 0.93;
        b.spin_roll *= 0.85;
        if (std::hypot(b.vx, b.vy) < 0.05 && std::fabs(b.spin_yaw) < 0.05) {
          // At rest: flat on a face (roll back to a multiple of a quarter turn), nothing moving.
          b.vx = b.vy = 0;
          b.spin_yaw = b.spin_roll = 0;
          b.roll = std::round(b.roll / 1.5707963267948966) * 1.5707963267948966;
          b.interacting = false;
        }
      }
    }
  }

  const std::array<Body, kCubes>& bodies() const { return bodies_; }

 private:
  // The player drives a slow figure-of-eight through the grid, about 4 m/s.
  void place_player() {
    Body& p = bodies_[0];
    const double t = time_;
    const double x = 16 * std::sin(0.2 * t);
    const double y = 12 * std::sin(0.4 * t);
    p.vx = 16 * 0.2 * std::cos(0.2 * t);
    p.vy = 12 * 0.4 * std::cos(0.4 * t);
    p.x = x;
    p.y = y;
    p.yaw = std::atan2(p.vy, p.vx);
    p.interacting = true;
  }

  bitwire::Random rng_;
  double kicks_per_tick_ = 0;
  std::array<Body, kCubes> bodies_{};
  double time_ = 0;
};

// The orientation of a body as a quaternion (w, x, y, z): yaw about z, then roll about x.
inline std::array<double, 4> orientation(const Body& b) {
  const double cy = std::cos(b.yaw / 2), sy = std::sin(b.yaw / 2);
  const double cr = std::cos(b.roll / 2), sr = std::sin(b.roll / 2);
  return {cy * cr, cy * sr, sy * sr, sy * cr};
}

// "Smallest three" at 9 bits per component.
inline cubes::Quat smallest_three(std::array<double, 4> q) {
  int largest = 0;
  for (int i = 1; i < 4; ++i) {
    if (std::fabs(q[i]) > std::fabs(q[largest])) largest = i;
  }
  if (q[largest] < 0) {
    for (double& c : q) c = -c;
  }
  constexpr double kBound = 0.7071067811865476;
  std::array<std::uint16_t, 3> out{};
  for (int i = 0, j = 0; i < 4; ++i) {
    if (i == largest) continue;
    const double normalized = (std::clamp(q[i], -kBound, kBound) + kBound) / (2 * kBound);
    out[j++] = static_cast<std::uint16_t>(std::lround(normalized * 511));
  }
  cubes::Quat quat;
  quat.largest = static_cast<std::uint8_t>(largest);
  quat.a = out[0];
  quat.b = out[1];
  quat.c = out[2];
  return quat;
}

// The quantized snapshot of the scene: positions at 1/512 m, orientations as smallest three.
inline void quantize(const Scene& scene, cubes::CubeSnapshot& out) {
  for (int i = 0; i < kCubes; ++i) {
    const Body& b = scene.bodies()[i];
    cubes::Cube& c = out.cubes[static_cast<std::size_t>(i)];
    c.x = static_cast<std::int32_t>(std::clamp<long>(std::lround(b.x * 512), -131072, 131071));
    c.y = static_cast<std::int32_t>(std::clamp<long>(std::lround(b.y * 512), -131072, 131071));
    c.z = static_cast<std::uint16_t>(std::clamp<long>(std::lround(b.z * 512), 0, 16383));
    c.orientation = smallest_three(orientation(b));
    c.interacting = b.interacting;
  }
}

}  // namespace cube_scene
