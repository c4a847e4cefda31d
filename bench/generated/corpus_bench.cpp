// bitwire's generated code on the benchmark corpus of mas-bandwidth/schema, translated field for field into
// bench/generated/corpus/ (the same bits as that compiler's output): the four shapes of corpus.net, the
// 97-field RealPacket of realworld.net, the examples messages of examples.net and the objects' wire forms
// of objects.net (each object's Deep and Shallow form a message). Write, read and measure,
// one message per iteration over 256 distinct values. In the same program, on the same values:
//   <Message>_Ideal_{Write,Read}      the hand-written static-layout ideal (corpus_ideal.hpp: constant
//                                     offsets, whole words; same bytes and same validation, which
//                                     tests/generated/corpus_ideal_test.cpp checks) for every message with a
//                                     fixed layout, and for Block and Chat (one head word, one block copy):
//                                     the speed limit;
//   <Message>_Protobuf_{Write,Read,Measure}  the Protobuf twin (corpus_bench.proto, Debian's protoc and
//                                     libprotobuf; only where CMake found them): struct -> Protobuf message ->
//                                     bytes (SerializeToArray), bytes -> ParseFromArray -> struct, and struct ->
//                                     Protobuf message -> ByteSizeLong.
// Counters: `bytes` (mean encoded size of one message) and `per_field` (time per message / fields on the
// wire, in seconds: 1.5n is 1.5 ns). The side-by-side with schema's own generated C++ is run locally, never
// committed: bench/RESULTS.md says how.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bench_harness.hpp"
#include "bitwire/core/random.hpp"
#include "corpus.hpp"
#include "corpus_ideal.hpp"
#include "examples_random.hpp"
#include "objects_random.hpp"
#include "realworld_random.hpp"
#if BITWIRE_BENCH_PROTOBUF
#include "corpus_protobuf.hpp"
#endif

namespace {

// A fixed-seed generator of in-range values (splitmix64), so every run times the same messages.
class Values {
 public:
  uint64_t next() {
    state_ += 0x9E3779B97F4A7C15ull;
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t bits(int n) { return n == 64 ? next() : next() & ((uint64_t{1} << n) - 1); }
  int32_t in(int32_t min, int32_t max) {
    return static_cast<int32_t>(min + static_cast<int64_t>(next() % static_cast<uint64_t>(int64_t{max} - min + 1)));
  }
  // A ranged field in [min, max], whatever its storage type.
  template <typename T>
  void set(T& field, int32_t min, int32_t max) {
    field = static_cast<T>(in(min, max));
  }
  float real() { return static_cast<float>(in(-10000, 10000)) / 7.0f; }

 private:
  uint64_t state_ = 12345;
};

constexpr size_t kCount = 256;

std::vector<corpus::BenchPacket>& packets() {
  static std::vector<corpus::BenchPacket> values = [] {
    Values r;
    std::vector<corpus::BenchPacket> out(kCount);
    for (auto& m : out) {
      r.set(m.a, -100, 100);
      r.set(m.b, 0, 65535);
      r.set(m.c, -1000000, 1000000);
      m.bits7 = static_cast<uint32_t>(r.bits(7));
      m.bits13 = static_cast<uint32_t>(r.bits(13));
      m.bits23 = static_cast<uint32_t>(r.bits(23));
      m.flag = r.bits(1) != 0;
      m.x = r.real();
      m.y = r.real();
      m.z = r.real();
      m.big = r.bits(64);
      for (auto& byte : m.blob) byte = static_cast<uint8_t>(r.bits(8));
    }
    return out;
  }();
  return values;
}

std::vector<corpus::BenchInts>& ints() {
  static std::vector<corpus::BenchInts> values = [] {
    Values r;
    std::vector<corpus::BenchInts> out(kCount);
    for (auto& m : out) {
      r.set(m.f0, -100, 100);
      r.set(m.f1, 0, 65535);
      r.set(m.f2, -1000000, 1000000);
      r.set(m.f3, 0, 3);
      r.set(m.f4, -15, 15);
      r.set(m.f5, 0, 1000);
      r.set(m.f6, -2048, 2047);
      r.set(m.f7, 0, 255);
      r.set(m.f8, -600000, 600000);
      r.set(m.f9, 0, 100);
    }
    return out;
  }();
  return values;
}

std::vector<corpus::BenchBits>& bit_fields() {
  static std::vector<corpus::BenchBits> values = [] {
    Values r;
    std::vector<corpus::BenchBits> out(kCount);
    for (auto& m : out) {
      m.b7 = static_cast<uint32_t>(r.bits(7));
      m.b13 = static_cast<uint32_t>(r.bits(13));
      m.b23 = static_cast<uint32_t>(r.bits(23));
      m.b3 = static_cast<uint32_t>(r.bits(3));
      m.b32 = static_cast<uint32_t>(r.bits(32));
      m.b11 = static_cast<uint32_t>(r.bits(11));
      m.b19 = static_cast<uint32_t>(r.bits(19));
      m.b48 = r.bits(48);
    }
    return out;
  }();
  return values;
}

std::vector<corpus::BenchMixed>& mixed() {
  static std::vector<corpus::BenchMixed> values = [] {
    Values r;
    std::vector<corpus::BenchMixed> out(kCount);
    for (auto& m : out) {
      r.set(m.sequence, 0, 65535);
      m.ack_bits = static_cast<uint32_t>(r.bits(32));
      m.entity_id = static_cast<uint32_t>(r.bits(12));
      r.set(m.pos_x, -16384, 16383);
      r.set(m.pos_y, -16384, 16383);
      r.set(m.pos_z, -16384, 16383);
      m.yaw = static_cast<uint32_t>(r.bits(9));
      m.moving = r.bits(1) != 0;
      m.firing = r.bits(1) != 0;
      m.timestamp = r.bits(48);
      r.set(m.weapon, 0, 15);
    }
    return out;
  }();
  return values;
}

// RealPacket as schema's own bench times it: the four branch gates held at their declared values (f012 and
// f050 true, f043 and f074 false: 204 bytes), every other field random and valid.
std::vector<realworld::RealPacket>& real_packets() {
  static std::vector<realworld::RealPacket> values = [] {
    bitwire::Random rng(20260816);
    std::vector<realworld::RealPacket> out(kCount);
    for (auto& m : out) {
      bitwire::random_fill(rng, m);
      m.f012_bool = true;
      m.f050_bool = true;
      m.f043_bool = false;
      m.f074_bool = false;
      // A read resets the fields of an untaken side to their defaults; hold them there so it reads back equal.
      const realworld::RealPacket defaults;
      m.f044_f32 = defaults.f044_f32;
      m.f045_bits = defaults.f045_bits;
      m.f046_uint = defaults.f046_uint;
      m.f047_int = defaults.f047_int;
      m.f075_u64 = defaults.f075_u64;
      m.f076_int = defaults.f076_int;
      m.f077_int = defaults.f077_int;
      m.f078_bits = defaults.f078_bits;
      m.f079_uint = defaults.f079_uint;
    }
    return out;
  }();
  return values;
}

// Random valid instances (idlc --random) of an examples message, from a fixed seed.
template <typename M>
std::vector<M>& random_values() {
  static std::vector<M> values = [] {
    bitwire::Random rng(2026);
    std::vector<M> out(kCount);
    for (auto& m : out) bitwire::random_fill(rng, m);
    return out;
  }();
  return values;
}

template <typename M>
using Codec = bench_harness::Generated<M>;

// Fields on the wire per message, for the per_field counter: declared fields, a fixed array or a string
// counting as one; RealPacket with its gates as held above (97 declared, 9 behind the two false gates).
template <typename M>
constexpr int kFields = 0;
template <> constexpr int kFields<corpus::BenchPacket> = 12;
template <> constexpr int kFields<corpus::BenchInts> = 10;
template <> constexpr int kFields<corpus::BenchBits> = 8;
template <> constexpr int kFields<corpus::BenchMixed> = 11;
template <> constexpr int kFields<realworld::RealPacket> = 88;
template <> constexpr int kFields<examples::Test> = 4;
template <> constexpr int kFields<examples::Block> = 1;
template <> constexpr int kFields<examples::Chat> = 1;
template <> constexpr int kFields<examples::Synchronize> = 2;
template <> constexpr int kFields<examples::Timescale> = 3;
template <> constexpr int kFields<examples::ProbeHeader> = 4;
template <> constexpr int kFields<examples::ProbeBits> = 5;
template <>
constexpr int kFields<examples::RigidBody> = 14;
template <>
constexpr int kFields<examples::InputPacket> = 4;
template <>
constexpr int kFields<examples::ShipCreate> = 17;
template <>
constexpr int kFields<examples::ProbeArray> = 18;
template <>
constexpr int kFields<examples::ProbeReport> = 9;
template <>
constexpr int kFields<examples::TestData> = 21;
template <>
constexpr int kFields<examples::CompressedProbe> = 2;
template <>
constexpr int kFields<examples::Handle> = 2;
template <>
constexpr int kFields<examples::ExpressionProbe> = 2;
template <>
constexpr int kFields<examples::ExtremeProbe> = 5;
template <>
constexpr int kFields<examples::ExtremeRow> = 4;
template <>
constexpr int kFields<examples::RenderBlock> = 3;
template <>
constexpr int kFields<examples::FixedProbe> = 5;
template <>
constexpr int kFields<examples::DegenerateProbe> = 4;
template <>
constexpr int kFields<examples::UnsignedProbe> = 7;
template <>
constexpr int kFields<examples::WideProbe> = 5;
template <>
constexpr int kFields<examples::LudicrousState> = 6;
// The objects' wire forms (objects.net): a composite (Vec3, Quat, Handle, FixedVec, FixedQuat) counts as
// one field, as schema declares it; a shallow form's quantized components count one each.
template <>
constexpr int kFields<objects::ShipDeep> = 25;
template <>
constexpr int kFields<objects::ShipShallow> = 15;
template <>
constexpr int kFields<objects::MissileDeep> = 6;
template <>
constexpr int kFields<objects::MissileShallow> = 13;
template <>
constexpr int kFields<objects::DynamicPropDeep> = 6;
template <>
constexpr int kFields<objects::DynamicPropShallow> = 13;
template <>
constexpr int kFields<objects::TurretDeep> = 4;
template <>
constexpr int kFields<objects::TurretShallow> = 7;
template <>
constexpr int kFields<objects::BodyDeep> = 3;
template <>
constexpr int kFields<objects::BodyShallow> = 3;
template <>
constexpr int kFields<objects::NarrowBodyDeep> = 3;
template <>
constexpr int kFields<objects::NarrowBodyShallow> = 8;

template <typename M>
void per_field(benchmark::State& state) {
  static_assert(kFields<M> > 0);
  state.counters["per_field"] =
      benchmark::Counter(kFields<M>, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// ---- the static-layout ideal ----

template <typename Ideal>
[[gnu::noinline]] size_t ideal_write_one(std::span<std::byte> buffer, const typename Ideal::Message& message) {
  return Ideal::write(message, buffer);
}

template <typename Ideal>
[[gnu::noinline]] bool ideal_read_one(std::span<const std::byte> bytes, typename Ideal::Message& message) {
  return Ideal::read(bytes, message);
}

// Encodes the values with the generated code and checks that the ideal writes the same bytes and reads
// them back equal; an empty string means it does.
template <typename Ideal>
std::string ideal_check(std::vector<typename Ideal::Message>& values, bench_harness::Encoded& encoded) {
  using M = typename Ideal::Message;
  if (std::string error = bench_harness::encode_all<Codec<M>>(values, encoded); !error.empty()) return error;
  std::vector<std::byte> buffer(M::MaxBytes + 8);
  for (size_t i = 0; i < values.size(); ++i) {
    const size_t size = Ideal::write(values[i], buffer);
    if (size != encoded[i].size() || !std::equal(encoded[i].begin(), encoded[i].end(), buffer.begin()))
      return "the ideal writes other bytes than the generated code for message " + std::to_string(i);
    M back{};
    if (!Ideal::read(encoded[i], back) || !(back == values[i]))
      return "the ideal reads message " + std::to_string(i) + " back different";
  }
  return {};
}

template <typename Ideal>
void ideal_write(benchmark::State& state, std::vector<typename Ideal::Message>& values) {
  bench_harness::Encoded encoded;
  if (const std::string error = ideal_check<Ideal>(values, encoded); !error.empty()) {
    state.SkipWithError(error.c_str());
    return;
  }
  std::vector<std::byte> buffer(Ideal::Message::MaxBytes + 8);
  benchmark::DoNotOptimize(buffer.data());
  const size_t mask = bench_harness::index_mask(values.size());
  size_t i = 0;
  size_t bytes = 0;
  for (auto _ : state) {
    bytes += ideal_write_one<Ideal>(buffer, values[i++ & mask]);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.counters["bytes"] = bench_harness::mean_size(encoded);
  per_field<typename Ideal::Message>(state);
}

template <typename Ideal>
void ideal_read(benchmark::State& state, std::vector<typename Ideal::Message>& values) {
  bench_harness::Encoded encoded;
  if (const std::string error = ideal_check<Ideal>(values, encoded); !error.empty()) {
    state.SkipWithError(error.c_str());
    return;
  }
  const size_t mask = bench_harness::index_mask(values.size());
  typename Ideal::Message out{};
  benchmark::DoNotOptimize(&out);
  size_t i = 0;
  size_t bytes = 0;
  bool ok = true;
  for (auto _ : state) {
    const std::vector<std::byte>& input = encoded[i++ & mask];
    ok = ideal_read_one<Ideal>(input, out);
    bytes += input.size();
    benchmark::DoNotOptimize(ok);
    benchmark::ClobberMemory();
  }
  if (!ok || !(out == values[(i - 1) & mask])) state.SkipWithError("the last read failed or differs");
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.counters["bytes"] = bench_harness::mean_size(encoded);
  per_field<typename Ideal::Message>(state);
}

// ---- Protobuf ----

#if BITWIRE_BENCH_PROTOBUF
template <typename M>
struct ProtoOf;
template <> struct ProtoOf<corpus::BenchPacket> { using Type = bitwire_corpus::BenchPacket; };
template <> struct ProtoOf<corpus::BenchInts> { using Type = bitwire_corpus::BenchInts; };
template <> struct ProtoOf<corpus::BenchBits> { using Type = bitwire_corpus::BenchBits; };
template <> struct ProtoOf<corpus::BenchMixed> { using Type = bitwire_corpus::BenchMixed; };
template <> struct ProtoOf<realworld::RealPacket> { using Type = bitwire_corpus::RealPacket; };
template <> struct ProtoOf<examples::Test> { using Type = bitwire_corpus::Test; };
template <> struct ProtoOf<examples::Block> { using Type = bitwire_corpus::Block; };
template <> struct ProtoOf<examples::Chat> { using Type = bitwire_corpus::Chat; };
template <> struct ProtoOf<examples::Synchronize> { using Type = bitwire_corpus::Synchronize; };
template <> struct ProtoOf<examples::Timescale> { using Type = bitwire_corpus::Timescale; };
template <> struct ProtoOf<examples::ProbeHeader> { using Type = bitwire_corpus::ProbeHeader; };
template <> struct ProtoOf<examples::ProbeBits> { using Type = bitwire_corpus::ProbeBits; };

// Every value encoded once; each must decode and extract back equal.
template <typename M>
std::string proto_encode_all(const std::vector<M>& values, std::vector<std::string>& encoded, double& mean) {
  using P = typename ProtoOf<M>::Type;
  encoded.clear();
  size_t total = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    P message;
    corpus_protobuf::fill(values[i], message);
    encoded.push_back(message.SerializeAsString());
    total += encoded.back().size();
    P parsed;
    M back{};
    if (!parsed.ParseFromString(encoded.back()) || !corpus_protobuf::extract(parsed, back) || !(back == values[i]))
      return "protobuf message " + std::to_string(i) + " does not come back equal";
  }
  mean = static_cast<double>(total) / static_cast<double>(values.size());
  return {};
}

template <typename M>
[[gnu::noinline]] size_t proto_write_one(std::span<char> buffer, const M& value, typename ProtoOf<M>::Type& scratch) {
  corpus_protobuf::fill(value, scratch);
  const size_t size = scratch.ByteSizeLong();
  return scratch.SerializeWithCachedSizesToArray(reinterpret_cast<uint8_t*>(buffer.data())) -
                 reinterpret_cast<uint8_t*>(buffer.data()) ==
                 static_cast<std::ptrdiff_t>(size)
             ? size
             : 0;
}

template <typename M>
[[gnu::noinline]] bool proto_read_one(const std::string& bytes, typename ProtoOf<M>::Type& scratch, M& out) {
  return scratch.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())) && corpus_protobuf::extract(scratch, out);
}

template <typename M>
[[gnu::noinline]] size_t proto_measure_one(const M& value, typename ProtoOf<M>::Type& scratch) {
  corpus_protobuf::fill(value, scratch);
  return scratch.ByteSizeLong();
}

template <typename M>
void proto_write(benchmark::State& state, std::vector<M>& values) {
  std::vector<std::string> encoded;
  double mean = 0;
  if (const std::string error = proto_encode_all(values, encoded, mean); !error.empty()) {
    state.SkipWithError(error.c_str());
    return;
  }
  std::vector<char> buffer(1 << 16);
  benchmark::DoNotOptimize(buffer.data());
  typename ProtoOf<M>::Type scratch;
  const size_t mask = bench_harness::index_mask(values.size());
  size_t i = 0;
  size_t bytes = 0;
  bool ok = true;
  for (auto _ : state) {
    const size_t size = proto_write_one<M>(buffer, values[i++ & mask], scratch);
    ok &= size != 0 || encoded[(i - 1) & mask].empty();
    bytes += size;
    benchmark::ClobberMemory();
  }
  if (!ok) state.SkipWithError("SerializeWithCachedSizesToArray wrote another size");
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.counters["bytes"] = mean;
  per_field<M>(state);
}

template <typename M>
void proto_read(benchmark::State& state, std::vector<M>& values) {
  std::vector<std::string> encoded;
  double mean = 0;
  if (const std::string error = proto_encode_all(values, encoded, mean); !error.empty()) {
    state.SkipWithError(error.c_str());
    return;
  }
  typename ProtoOf<M>::Type scratch;
  M out{};
  benchmark::DoNotOptimize(&out);
  const size_t mask = bench_harness::index_mask(values.size());
  size_t i = 0;
  size_t bytes = 0;
  bool ok = true;
  for (auto _ : state) {
    const std::string& input = encoded[i++ & mask];
    ok = proto_read_one<M>(input, scratch, out);
    bytes += input.size();
    benchmark::DoNotOptimize(ok);
    benchmark::ClobberMemory();
  }
  if (!ok || !(out == values[(i - 1) & mask])) state.SkipWithError("the last read failed or differs");
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.counters["bytes"] = mean;
  per_field<M>(state);
}

template <typename M>
void proto_measure(benchmark::State& state, std::vector<M>& values) {
  typename ProtoOf<M>::Type scratch;
  const size_t mask = bench_harness::index_mask(values.size());
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(proto_measure_one<M>(values[i++ & mask], scratch));
  }
  per_field<M>(state);
}
#endif

template <typename M>
void generated_write(benchmark::State& state, std::vector<M>& values) {
  bench_harness::write_loop<Codec<M>>(state, values);
  per_field<M>(state);
}
template <typename M>
void generated_read(benchmark::State& state, std::vector<M>& values) {
  bench_harness::read_loop<Codec<M>>(state, values);
  per_field<M>(state);
}
template <typename M>
void generated_measure(benchmark::State& state, std::vector<M>& values) {
  bench_harness::measure_loop<Codec<M>>(state, values);
  per_field<M>(state);
}

#define BITWIRE_CORPUS_BENCH(ns, name, values)                                                    \
  void BM_##name##_Write(benchmark::State& s) { generated_write<ns::name>(s, values); }           \
  void BM_##name##_Read(benchmark::State& s) { generated_read<ns::name>(s, values); }             \
  void BM_##name##_Measure(benchmark::State& s) { generated_measure<ns::name>(s, values); }       \
  BENCHMARK(BM_##name##_Write);                                                                   \
  BENCHMARK(BM_##name##_Read);                                                                    \
  BENCHMARK(BM_##name##_Measure);

#define BITWIRE_CORPUS_IDEAL(name, values)                                                              \
  void BM_##name##_Ideal_Write(benchmark::State& s) { ideal_write<corpus_ideal::name>(s, values); } \
  void BM_##name##_Ideal_Read(benchmark::State& s) { ideal_read<corpus_ideal::name>(s, values); }   \
  BENCHMARK(BM_##name##_Ideal_Write);                                                                 \
  BENCHMARK(BM_##name##_Ideal_Read);

#if BITWIRE_BENCH_PROTOBUF
#define BITWIRE_CORPUS_PROTOBUF(ns, name, values)                                                        \
  void BM_##name##_Protobuf_Write(benchmark::State& s) { proto_write<ns::name>(s, values); }           \
  void BM_##name##_Protobuf_Read(benchmark::State& s) { proto_read<ns::name>(s, values); }             \
  void BM_##name##_Protobuf_Measure(benchmark::State& s) { proto_measure<ns::name>(s, values); }       \
  BENCHMARK(BM_##name##_Protobuf_Write);                                                                 \
  BENCHMARK(BM_##name##_Protobuf_Read);                                                                  \
  BENCHMARK(BM_##name##_Protobuf_Measure);
#else
#define BITWIRE_CORPUS_PROTOBUF(ns, name, values)
#endif

// Each message's rows side by side: generated, ideal, Protobuf.
#define BITWIRE_CORPUS_ALL(ns, name, values) \
  BITWIRE_CORPUS_BENCH(ns, name, values)     \
  BITWIRE_CORPUS_IDEAL(name, values)         \
  BITWIRE_CORPUS_PROTOBUF(ns, name, values)

BITWIRE_CORPUS_ALL(corpus, BenchPacket, packets())
BITWIRE_CORPUS_ALL(corpus, BenchInts, ints())
BITWIRE_CORPUS_ALL(corpus, BenchBits, bit_fields())
BITWIRE_CORPUS_ALL(corpus, BenchMixed, mixed())
BITWIRE_CORPUS_BENCH(realworld, RealPacket, real_packets())
BITWIRE_CORPUS_PROTOBUF(realworld, RealPacket, real_packets())
BITWIRE_CORPUS_ALL(examples, Test, random_values<examples::Test>())
BITWIRE_CORPUS_ALL(examples, Block, random_values<examples::Block>())
BITWIRE_CORPUS_ALL(examples, Chat, random_values<examples::Chat>())
BITWIRE_CORPUS_ALL(examples, Synchronize, random_values<examples::Synchronize>())
BITWIRE_CORPUS_ALL(examples, Timescale, random_values<examples::Timescale>())
BITWIRE_CORPUS_ALL(examples, ProbeHeader, random_values<examples::ProbeHeader>())
BITWIRE_CORPUS_ALL(examples, ProbeBits, random_values<examples::ProbeBits>())
BITWIRE_CORPUS_BENCH(examples, RigidBody, random_values<examples::RigidBody>())
BITWIRE_CORPUS_BENCH(examples, InputPacket, random_values<examples::InputPacket>())
BITWIRE_CORPUS_BENCH(examples, ShipCreate, random_values<examples::ShipCreate>())
BITWIRE_CORPUS_BENCH(examples, ProbeArray, random_values<examples::ProbeArray>())
BITWIRE_CORPUS_BENCH(examples, ProbeReport, random_values<examples::ProbeReport>())
BITWIRE_CORPUS_BENCH(examples, TestData, random_values<examples::TestData>())
BITWIRE_CORPUS_BENCH(examples, CompressedProbe, random_values<examples::CompressedProbe>())
BITWIRE_CORPUS_BENCH(examples, Handle, random_values<examples::Handle>())
BITWIRE_CORPUS_BENCH(examples, ExpressionProbe, random_values<examples::ExpressionProbe>())
BITWIRE_CORPUS_BENCH(examples, ExtremeProbe, random_values<examples::ExtremeProbe>())
BITWIRE_CORPUS_BENCH(examples, ExtremeRow, random_values<examples::ExtremeRow>())
BITWIRE_CORPUS_BENCH(examples, RenderBlock, random_values<examples::RenderBlock>())
BITWIRE_CORPUS_BENCH(examples, FixedProbe, random_values<examples::FixedProbe>())
BITWIRE_CORPUS_BENCH(examples, DegenerateProbe, random_values<examples::DegenerateProbe>())
BITWIRE_CORPUS_BENCH(examples, UnsignedProbe, random_values<examples::UnsignedProbe>())
BITWIRE_CORPUS_BENCH(examples, WideProbe, random_values<examples::WideProbe>())
BITWIRE_CORPUS_BENCH(examples, LudicrousState, random_values<examples::LudicrousState>())
BITWIRE_CORPUS_BENCH(objects, ShipDeep, random_values<objects::ShipDeep>())
BITWIRE_CORPUS_BENCH(objects, ShipShallow, random_values<objects::ShipShallow>())
BITWIRE_CORPUS_BENCH(objects, MissileDeep, random_values<objects::MissileDeep>())
BITWIRE_CORPUS_BENCH(objects, MissileShallow, random_values<objects::MissileShallow>())
BITWIRE_CORPUS_BENCH(objects, DynamicPropDeep, random_values<objects::DynamicPropDeep>())
BITWIRE_CORPUS_BENCH(objects, DynamicPropShallow, random_values<objects::DynamicPropShallow>())
BITWIRE_CORPUS_BENCH(objects, TurretDeep, random_values<objects::TurretDeep>())
BITWIRE_CORPUS_BENCH(objects, TurretShallow, random_values<objects::TurretShallow>())
BITWIRE_CORPUS_BENCH(objects, BodyDeep, random_values<objects::BodyDeep>())
BITWIRE_CORPUS_BENCH(objects, BodyShallow, random_values<objects::BodyShallow>())
BITWIRE_CORPUS_BENCH(objects, NarrowBodyDeep, random_values<objects::NarrowBodyDeep>())
BITWIRE_CORPUS_BENCH(objects, NarrowBodyShallow, random_values<objects::NarrowBodyShallow>())

}  // namespace

BENCHMARK_MAIN();
