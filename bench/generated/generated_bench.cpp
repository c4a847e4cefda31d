// idlc's generated serialize code against a hand-written twin over the same runtime (game_twin.hpp), for
// one small message (game.PlayerInput, 256 distinct values) and a batch (game.Snapshot with 64 entities,
// 8 distinct snapshots): write, read and measure. The twin works on the generated structs, so only the
// serialize code differs. Before timing, each benchmark checks that its codec round-trips every value,
// and main() checks that the generated code and the twin write identical bytes.
//
// The target (issue 3): generated within 5% of hand-written. Figures: bench/RESULTS.md.
#include <benchmark/benchmark.h>

#include <cstdio>

#include "bench_harness.hpp"
#include "bench_values.hpp"
#include "game.hpp"
#include "game_twin.hpp"

namespace {

using bench_harness::Generated;

struct TwinInput {
  using Message = game::PlayerInput;
  template <typename Stream>
  static bool serialize(Stream& stream, Message& message) {
    return twin::serialize_player_input(stream, message);
  }
};

struct TwinSnapshot {
  using Message = game::Snapshot;
  template <typename Stream>
  static bool serialize(Stream& stream, Message& message) {
    return twin::serialize_snapshot(stream, message);
  }
};

std::vector<game::PlayerInput>& inputs() {
  static std::vector<game::PlayerInput> values = bench_values::player_inputs();
  return values;
}

std::vector<game::Snapshot>& snapshots() {
  static std::vector<game::Snapshot> values = bench_values::snapshots();
  return values;
}

// The twin is only a fair reference if it produces the generated code's bytes.
template <typename GeneratedCodec, typename TwinCodec>
bool same_bytes(std::vector<typename GeneratedCodec::Message>& messages, const char* name) {
  for (size_t i = 0; i < messages.size(); ++i) {
    std::vector<std::byte> a;
    std::vector<std::byte> b;
    bench_harness::encode<GeneratedCodec>(messages[i], a);
    bench_harness::encode<TwinCodec>(messages[i], b);
    if (a != b) {
      std::fprintf(stderr,
                   "generated_bench: %s value %zu: the twin writes other bytes than the generated code\n",
                   name, i);
      return false;
    }
  }
  return true;
}

void BM_PlayerInput_Write_Generated(benchmark::State& state) {
  bench_harness::write_loop<Generated<game::PlayerInput>>(state, inputs());
}
void BM_PlayerInput_Write_Twin(benchmark::State& state) {
  bench_harness::write_loop<TwinInput>(state, inputs());
}
void BM_PlayerInput_Read_Generated(benchmark::State& state) {
  bench_harness::read_loop<Generated<game::PlayerInput>>(state, inputs());
}
void BM_PlayerInput_Read_Twin(benchmark::State& state) {
  bench_harness::read_loop<TwinInput>(state, inputs());
}
void BM_PlayerInput_Measure_Generated(benchmark::State& state) {
  bench_harness::measure_loop<Generated<game::PlayerInput>>(state, inputs());
}
void BM_PlayerInput_Measure_Twin(benchmark::State& state) {
  bench_harness::measure_loop<TwinInput>(state, inputs());
}

void BM_Snapshot64_Write_Generated(benchmark::State& state) {
  bench_harness::write_loop<Generated<game::Snapshot>>(state, snapshots());
}
void BM_Snapshot64_Write_Twin(benchmark::State& state) {
  bench_harness::write_loop<TwinSnapshot>(state, snapshots());
}
void BM_Snapshot64_Read_Generated(benchmark::State& state) {
  bench_harness::read_loop<Generated<game::Snapshot>>(state, snapshots());
}
void BM_Snapshot64_Read_Twin(benchmark::State& state) {
  bench_harness::read_loop<TwinSnapshot>(state, snapshots());
}
void BM_Snapshot64_Measure_Generated(benchmark::State& state) {
  bench_harness::measure_loop<Generated<game::Snapshot>>(state, snapshots());
}
void BM_Snapshot64_Measure_Twin(benchmark::State& state) {
  bench_harness::measure_loop<TwinSnapshot>(state, snapshots());
}

BENCHMARK(BM_PlayerInput_Write_Generated);
BENCHMARK(BM_PlayerInput_Write_Twin);
BENCHMARK(BM_PlayerInput_Read_Generated);
BENCHMARK(BM_PlayerInput_Read_Twin);
BENCHMARK(BM_PlayerInput_Measure_Generated);
BENCHMARK(BM_PlayerInput_Measure_Twin);
BENCHMARK(BM_Snapshot64_Write_Generated);
BENCHMARK(BM_Snapshot64_Write_Twin);
BENCHMARK(BM_Snapshot64_Read_Generated);
BENCHMARK(BM_Snapshot64_Read_Twin);
BENCHMARK(BM_Snapshot64_Measure_Generated);
BENCHMARK(BM_Snapshot64_Measure_Twin);

}  // namespace

int main(int argc, char** argv) {
  if (!same_bytes<Generated<game::PlayerInput>, TwinInput>(inputs(), "PlayerInput") ||
      !same_bytes<Generated<game::Snapshot>, TwinSnapshot>(snapshots(), "Snapshot")) {
    return 1;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
