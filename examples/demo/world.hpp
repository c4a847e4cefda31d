// The demo's world: where each of the 64 entities of a Snapshot is at a tick, and how fast it moves.
// Deterministic from the tick and the tick length alone, so a client rebuilds what the server sent and
// checks every decoded field against it.
//
// The motion is consistent: each moving entity's position is its path at time tick x tick_seconds, on the
// schema's 1/8 m grid, and the velocity it sends is that path's derivative on the 1/32 m/s grid (so a
// position advances by velocity x tick length, within the rounding of the grids). Speeds are an action
// game's: players run 6-8 m/s around rectangles and stop at each corner, vehicles drive 20-28 m/s around
// oval tracks (some parked), rockets fly straight at 25-30 m/s and grenades 15 m/s across under gravity,
// each fired again when its flight ends, and pickups lie still.
#pragma once

#include <cstdint>

#include "game.hpp"

namespace demo {

// Fills `snapshot.entities` with the 64 entities at `tick` (time tick x tick_seconds); leaves the
// snapshot's other fields alone.
void fill_world(game::Snapshot& snapshot, uint32_t tick, double tick_seconds);

// The flight number of projectile entity `id` at `tick`: it changes when the projectile is fired again
// (a new projectile in the same entity slot, whose position jumps back to its launcher). 0 for an id that
// is not a projectile.
uint32_t projectile_flight(uint32_t id, uint32_t tick, double tick_seconds);

}  // namespace demo
