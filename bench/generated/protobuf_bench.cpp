// Wire size and speed against Protobuf (the real encoder: Debian's libprotobuf + protoc) for the same
// values: game.PlayerInput (256 distinct values) and game.Snapshot with 64 entities (8 distinct
// snapshots), from bench_values.hpp. Protobuf messages are in game_bench.proto, in two spellings of the
// compressed floats: F (float fields) and Q (sint32 in the schema's quanta).
//
// Rows, one message per iteration:
//   Bitwire_*_Write / _Read          generated code, game struct <-> bytes (reads validate every range);
//   Protobuf*_Encode / _Decode       a prefilled protobuf object <-> bytes (SerializeToArray, which
//                                    computes the size first; ParseFromArray into a reused object);
//   Protobuf*_FillEncode / _DecodeExtract
//                                    the same plus copying the game struct into the protobuf object (or
//                                    back), which is what a game keeping its state in its own structs pays.
// The `bytes` counter is the mean encoded size. Each Protobuf run first checks that every value decodes
// and re-encodes to the same bytes.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "bench_harness.hpp"
#include "bench_values.hpp"
#include "game.hpp"
#include "game_bench.pb.h"

namespace {

namespace pb = bitwire_bench;

// ---- values ----

std::vector<game::PlayerInput>& inputs() {
  static std::vector<game::PlayerInput> values = bench_values::player_inputs();
  return values;
}

std::vector<game::Snapshot>& snapshots() {
  static std::vector<game::Snapshot> values = bench_values::snapshots();
  return values;
}

// ---- game struct <-> protobuf ----

// How each spelling carries a compressed float: as the float, or as a count of quanta.
struct FloatFields {
  using Input = pb::PlayerInputF;
  using Snapshot = pb::SnapshotF;
  static float put(float value, float) { return value; }
  static float get(float value, float) { return value; }
};

struct QuantizedFields {
  using Input = pb::PlayerInputQ;
  using Snapshot = pb::SnapshotQ;
  static int32_t put(float value, float resolution) {
    return static_cast<int32_t>(std::lround(value / resolution));
  }
  static float get(int32_t value, float resolution) { return static_cast<float>(value) * resolution; }
};

constexpr float kAngleResolution = 0.01f;
constexpr float kPositionResolution = 0.125f;
constexpr float kVelocityResolution = 0.03125f;

template <typename Fields>
void fill(const game::PlayerInput& in, typename Fields::Input& out) {
  out.set_tick(in.tick);
  out.set_buttons(static_cast<uint16_t>(in.buttons));
  out.set_yaw(Fields::put(in.yaw, kAngleResolution));
  out.set_pitch(Fields::put(in.pitch, kAngleResolution));
  if (in.has_switch_to) {
    out.set_switch_to(static_cast<pb::Weapon>(in.switch_to));
  } else {
    out.clear_switch_to();
  }
}

template <typename Fields>
void extract(const typename Fields::Input& in, game::PlayerInput& out) {
  out.tick = in.tick();
  out.buttons = static_cast<game::InputButtons>(in.buttons());
  out.yaw = Fields::get(in.yaw(), kAngleResolution);
  out.pitch = Fields::get(in.pitch(), kAngleResolution);
  out.has_switch_to = in.has_switch_to();
  out.switch_to = in.has_switch_to() ? static_cast<game::Weapon>(in.switch_to()) : game::Weapon{};
}

template <typename Fields, typename Vec>
void fill_vec3(float x, float y, float z, float resolution, Vec& out) {
  out.set_x(Fields::put(x, resolution));
  out.set_y(Fields::put(y, resolution));
  out.set_z(Fields::put(z, resolution));
}

template <typename Fields>
void fill(const game::Snapshot& in, typename Fields::Snapshot& out) {
  out.set_tick(in.tick);
  out.set_last_input_tick(in.last_input_tick);
  out.clear_entities();  // keeps the element objects for reuse
  for (const game::EntityState& e : in.entities) {
    auto* entity = out.add_entities();
    entity->set_id(e.id);
    entity->set_kind(static_cast<pb::EntityKind>(e.kind));
    fill_vec3<Fields>(e.position.x, e.position.y, e.position.z, kPositionResolution,
                      *entity->mutable_position());
    pb::Orientation* q = entity->mutable_orientation();
    q->set_largest(e.orientation.largest);
    q->set_a(e.orientation.a);
    q->set_b(e.orientation.b);
    q->set_c(e.orientation.c);
    if (e.at_rest) {
      entity->clear_velocity();
    } else {
      fill_vec3<Fields>(e.velocity.x, e.velocity.y, e.velocity.z, kVelocityResolution,
                        *entity->mutable_velocity());
    }
    if (e.kind == game::EntityKind::Player) {
      pb::PlayerDetails* player = entity->mutable_player();
      player->set_health(static_cast<uint32_t>(e.health));
      player->set_weapon(static_cast<pb::Weapon>(e.weapon));
      player->set_clips(e.clips);
    } else if (e.kind == game::EntityKind::Vehicle) {
      pb::VehicleDetails* vehicle = entity->mutable_vehicle();
      vehicle->set_fuel(static_cast<uint32_t>(e.fuel));
      vehicle->set_occupants(e.occupants);
    } else {
      entity->clear_details();
    }
  }
}

template <typename Fields>
void extract(const typename Fields::Snapshot& in, game::Snapshot& out) {
  out.tick = in.tick();
  out.last_input_tick = in.last_input_tick();
  out.entities.clear();
  for (const auto& entity : in.entities()) {
    if (out.entities.size() == out.entities.capacity()) break;  // a game would refuse the packet
    game::EntityState e;
    e.id = static_cast<uint8_t>(entity.id());
    e.kind = static_cast<game::EntityKind>(entity.kind());
    e.position = {Fields::get(entity.position().x(), kPositionResolution),
                  Fields::get(entity.position().y(), kPositionResolution),
                  Fields::get(entity.position().z(), kPositionResolution)};
    e.orientation.largest = static_cast<uint8_t>(entity.orientation().largest());
    e.orientation.a = static_cast<int16_t>(entity.orientation().a());
    e.orientation.b = static_cast<int16_t>(entity.orientation().b());
    e.orientation.c = static_cast<int16_t>(entity.orientation().c());
    e.at_rest = !entity.has_velocity();
    if (!e.at_rest) {
      e.velocity = {Fields::get(entity.velocity().x(), kVelocityResolution),
                    Fields::get(entity.velocity().y(), kVelocityResolution),
                    Fields::get(entity.velocity().z(), kVelocityResolution)};
    }
    if (entity.has_player()) {
      e.health = static_cast<int8_t>(entity.player().health());
      e.weapon = static_cast<game::Weapon>(entity.player().weapon());
      e.clips = static_cast<uint8_t>(entity.player().clips());
    } else if (entity.has_vehicle()) {
      e.fuel = static_cast<int8_t>(entity.vehicle().fuel());
      e.occupants = static_cast<uint8_t>(entity.vehicle().occupants());
    }
    out.entities.push_back(e);
  }
}

// ---- protobuf loops ----

template <typename Proto, typename Fields, typename Game>
struct ProtoSet {
  std::vector<Proto> messages;
  std::vector<std::string> encoded;
  double mean_size = 0;
  std::string error;

  explicit ProtoSet(const std::vector<Game>& values) {
    size_t total = 0;
    for (const Game& value : values) {
      Proto message;
      fill<Fields>(value, message);
      std::string bytes = message.SerializeAsString();
      Proto back;
      if (!back.ParseFromString(bytes) || back.SerializeAsString() != bytes)
        error = "protobuf round trip differs";
      total += bytes.size();
      messages.push_back(std::move(message));
      encoded.push_back(std::move(bytes));
    }
    mean_size = static_cast<double>(total) / static_cast<double>(values.size());
  }
};

template <typename Proto, typename Fields, typename Game>
const ProtoSet<Proto, Fields, Game>& proto_set(const std::vector<Game>& values) {
  static const ProtoSet<Proto, Fields, Game> set(values);
  return set;
}

template <typename Proto, typename Fields, typename Game>
void proto_encode(benchmark::State& state, const std::vector<Game>& values, bool fill_first) {
  const auto& set = proto_set<Proto, Fields>(values);
  if (!set.error.empty()) {
    state.SkipWithError(set.error.c_str());
    return;
  }
  std::vector<char> buffer(1 << 16);
  benchmark::DoNotOptimize(buffer.data());
  const size_t mask = bench_harness::index_mask(values.size());
  Proto scratch;
  size_t i = 0;
  size_t bytes = 0;
  bool ok = true;
  for (auto _ : state) {
    const size_t k = i++ & mask;
    const Proto* message = &set.messages[k];
    if (fill_first) {
      fill<Fields>(values[k], scratch);
      message = &scratch;
    }
    ok &= message->SerializeToArray(buffer.data(), static_cast<int>(buffer.size()));
    bytes += static_cast<size_t>(message->GetCachedSize());
    benchmark::ClobberMemory();
  }
  if (!ok) state.SkipWithError("SerializeToArray failed");
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.counters["bytes"] = set.mean_size;
}

template <typename Proto, typename Fields, typename Game>
void proto_decode(benchmark::State& state, const std::vector<Game>& values, bool extract_after) {
  const auto& set = proto_set<Proto, Fields>(values);
  if (!set.error.empty()) {
    state.SkipWithError(set.error.c_str());
    return;
  }
  const size_t mask = bench_harness::index_mask(values.size());
  Proto out;
  Game game_out{};
  benchmark::DoNotOptimize(&out);
  benchmark::DoNotOptimize(&game_out);
  size_t i = 0;
  size_t bytes = 0;
  bool ok = true;
  for (auto _ : state) {
    const std::string& input = set.encoded[i++ & mask];
    ok &= out.ParseFromArray(input.data(), static_cast<int>(input.size()));
    if (extract_after) extract<Fields>(out, game_out);
    bytes += input.size();
    benchmark::ClobberMemory();
  }
  if (!ok || out.SerializeAsString() != set.encoded[(i - 1) & mask])
    state.SkipWithError("the last decode differs");
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.counters["bytes"] = set.mean_size;
}

// ---- benchmarks ----

using GeneratedInput = bench_harness::Generated<game::PlayerInput>;
using GeneratedSnapshot = bench_harness::Generated<game::Snapshot>;

void BM_PlayerInput_Bitwire_Write(benchmark::State& state) {
  bench_harness::write_loop<GeneratedInput>(state, inputs());
}
void BM_PlayerInput_Bitwire_Read(benchmark::State& state) {
  bench_harness::read_loop<GeneratedInput>(state, inputs());
}
void BM_PlayerInput_ProtobufF_Encode(benchmark::State& state) {
  proto_encode<pb::PlayerInputF, FloatFields>(state, inputs(), false);
}
void BM_PlayerInput_ProtobufF_FillEncode(benchmark::State& state) {
  proto_encode<pb::PlayerInputF, FloatFields>(state, inputs(), true);
}
void BM_PlayerInput_ProtobufF_Decode(benchmark::State& state) {
  proto_decode<pb::PlayerInputF, FloatFields>(state, inputs(), false);
}
void BM_PlayerInput_ProtobufF_DecodeExtract(benchmark::State& state) {
  proto_decode<pb::PlayerInputF, FloatFields>(state, inputs(), true);
}
void BM_PlayerInput_ProtobufQ_Encode(benchmark::State& state) {
  proto_encode<pb::PlayerInputQ, QuantizedFields>(state, inputs(), false);
}
void BM_PlayerInput_ProtobufQ_FillEncode(benchmark::State& state) {
  proto_encode<pb::PlayerInputQ, QuantizedFields>(state, inputs(), true);
}
void BM_PlayerInput_ProtobufQ_Decode(benchmark::State& state) {
  proto_decode<pb::PlayerInputQ, QuantizedFields>(state, inputs(), false);
}
void BM_PlayerInput_ProtobufQ_DecodeExtract(benchmark::State& state) {
  proto_decode<pb::PlayerInputQ, QuantizedFields>(state, inputs(), true);
}

void BM_Snapshot64_Bitwire_Write(benchmark::State& state) {
  bench_harness::write_loop<GeneratedSnapshot>(state, snapshots());
}
void BM_Snapshot64_Bitwire_Read(benchmark::State& state) {
  bench_harness::read_loop<GeneratedSnapshot>(state, snapshots());
}
void BM_Snapshot64_ProtobufF_Encode(benchmark::State& state) {
  proto_encode<pb::SnapshotF, FloatFields>(state, snapshots(), false);
}
void BM_Snapshot64_ProtobufF_FillEncode(benchmark::State& state) {
  proto_encode<pb::SnapshotF, FloatFields>(state, snapshots(), true);
}
void BM_Snapshot64_ProtobufF_Decode(benchmark::State& state) {
  proto_decode<pb::SnapshotF, FloatFields>(state, snapshots(), false);
}
void BM_Snapshot64_ProtobufF_DecodeExtract(benchmark::State& state) {
  proto_decode<pb::SnapshotF, FloatFields>(state, snapshots(), true);
}
void BM_Snapshot64_ProtobufQ_Encode(benchmark::State& state) {
  proto_encode<pb::SnapshotQ, QuantizedFields>(state, snapshots(), false);
}
void BM_Snapshot64_ProtobufQ_FillEncode(benchmark::State& state) {
  proto_encode<pb::SnapshotQ, QuantizedFields>(state, snapshots(), true);
}
void BM_Snapshot64_ProtobufQ_Decode(benchmark::State& state) {
  proto_decode<pb::SnapshotQ, QuantizedFields>(state, snapshots(), false);
}
void BM_Snapshot64_ProtobufQ_DecodeExtract(benchmark::State& state) {
  proto_decode<pb::SnapshotQ, QuantizedFields>(state, snapshots(), true);
}

BENCHMARK(BM_PlayerInput_Bitwire_Write);
BENCHMARK(BM_PlayerInput_Bitwire_Read);
BENCHMARK(BM_PlayerInput_ProtobufF_Encode);
BENCHMARK(BM_PlayerInput_ProtobufF_FillEncode);
BENCHMARK(BM_PlayerInput_ProtobufF_Decode);
BENCHMARK(BM_PlayerInput_ProtobufF_DecodeExtract);
BENCHMARK(BM_PlayerInput_ProtobufQ_Encode);
BENCHMARK(BM_PlayerInput_ProtobufQ_FillEncode);
BENCHMARK(BM_PlayerInput_ProtobufQ_Decode);
BENCHMARK(BM_PlayerInput_ProtobufQ_DecodeExtract);
BENCHMARK(BM_Snapshot64_Bitwire_Write);
BENCHMARK(BM_Snapshot64_Bitwire_Read);
BENCHMARK(BM_Snapshot64_ProtobufF_Encode);
BENCHMARK(BM_Snapshot64_ProtobufF_FillEncode);
BENCHMARK(BM_Snapshot64_ProtobufF_Decode);
BENCHMARK(BM_Snapshot64_ProtobufF_DecodeExtract);
BENCHMARK(BM_Snapshot64_ProtobufQ_Encode);
BENCHMARK(BM_Snapshot64_ProtobufQ_FillEncode);
BENCHMARK(BM_Snapshot64_ProtobufQ_Decode);
BENCHMARK(BM_Snapshot64_ProtobufQ_DecodeExtract);

}  // namespace

BENCHMARK_MAIN();
