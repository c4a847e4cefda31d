// bitwire's generated code on the two shapes the fastest published schema compiler reports for its C++
// output (bench/generated/ship.net): a 28-byte ShipState (19 fields, 11 compressed floats) and a 204-byte,
// 88-field FleetPacket. Write, read and measure, one message per iteration over 256 distinct values;
// the *_OneValue rows write a single value over and over (the friendliest case for branch prediction).
// Figures and the published reference points: bench/RESULTS.md.
#include <benchmark/benchmark.h>

#include "bench_harness.hpp"
#include "bench_values.hpp"
#include "ship.hpp"

namespace {

using bench_harness::Generated;
using ShipCodec = Generated<ship::ShipState>;
using FleetCodec = Generated<ship::FleetPacket>;

std::vector<ship::ShipState>& ships() {
  static std::vector<ship::ShipState> values = bench_values::ship_states();
  return values;
}

std::vector<ship::ShipState>& one_ship() {
  static std::vector<ship::ShipState> values(1, bench_values::ship_states()[0]);
  return values;
}

std::vector<ship::FleetPacket>& fleets() {
  static std::vector<ship::FleetPacket> values = bench_values::fleet_packets();
  return values;
}

std::vector<ship::FleetPacket>& one_fleet() {
  static std::vector<ship::FleetPacket> values(1, bench_values::fleet_packets()[0]);
  return values;
}

void BM_ShipState_Write(benchmark::State& state) {
  bench_harness::write_loop<ShipCodec>(state, ships());
}
void BM_ShipState_Write_OneValue(benchmark::State& state) {
  bench_harness::write_loop<ShipCodec>(state, one_ship());
}
void BM_ShipState_Read(benchmark::State& state) {
  bench_harness::read_loop<ShipCodec>(state, ships());
}
void BM_ShipState_Measure(benchmark::State& state) {
  bench_harness::measure_loop<ShipCodec>(state, ships());
}

void BM_FleetPacket_Write(benchmark::State& state) {
  bench_harness::write_loop<FleetCodec>(state, fleets());
}
void BM_FleetPacket_Write_OneValue(benchmark::State& state) {
  bench_harness::write_loop<FleetCodec>(state, one_fleet());
}
void BM_FleetPacket_Read(benchmark::State& state) {
  bench_harness::read_loop<FleetCodec>(state, fleets());
}
void BM_FleetPacket_Measure(benchmark::State& state) {
  bench_harness::measure_loop<FleetCodec>(state, fleets());
}

BENCHMARK(BM_ShipState_Write);
BENCHMARK(BM_ShipState_Write_OneValue);
BENCHMARK(BM_ShipState_Read);
BENCHMARK(BM_ShipState_Measure);
BENCHMARK(BM_FleetPacket_Write);
BENCHMARK(BM_FleetPacket_Write_OneValue);
BENCHMARK(BM_FleetPacket_Read);
BENCHMARK(BM_FleetPacket_Measure);

}  // namespace

BENCHMARK_MAIN();
