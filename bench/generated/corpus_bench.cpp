// bitwire's generated code on the benchmark corpus of mas-bandwidth/schema, translated field for field into
// bench/generated/corpus/ (the same bits as that compiler's output): the four shapes of corpus.net, the
// 97-field RealPacket of realworld.net and the examples messages of examples.net. Write, read and measure,
// one message per iteration over 256 distinct values. The side-by-side with schema's
// own generated C++ is run locally, never committed: bench/RESULTS.md says how.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "bench_harness.hpp"
#include "bitwire/random.hpp"
#include "corpus.hpp"
#include "examples_random.hpp"
#include "realworld_random.hpp"

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

#define BITWIRE_CORPUS_BENCH(ns, name, values)                                                            \
  void BM_##name##_Write(benchmark::State& s) { bench_harness::write_loop<Codec<ns::name>>(s, values); } \
  void BM_##name##_Read(benchmark::State& s) { bench_harness::read_loop<Codec<ns::name>>(s, values); }   \
  void BM_##name##_Measure(benchmark::State& s) { bench_harness::measure_loop<Codec<ns::name>>(s, values); } \
  BENCHMARK(BM_##name##_Write);                                                                           \
  BENCHMARK(BM_##name##_Read);                                                                            \
  BENCHMARK(BM_##name##_Measure);

BITWIRE_CORPUS_BENCH(corpus, BenchPacket, packets())
BITWIRE_CORPUS_BENCH(corpus, BenchInts, ints())
BITWIRE_CORPUS_BENCH(corpus, BenchBits, bit_fields())
BITWIRE_CORPUS_BENCH(corpus, BenchMixed, mixed())
BITWIRE_CORPUS_BENCH(realworld, RealPacket, real_packets())
BITWIRE_CORPUS_BENCH(examples, Test, random_values<examples::Test>())
BITWIRE_CORPUS_BENCH(examples, Block, random_values<examples::Block>())
BITWIRE_CORPUS_BENCH(examples, Chat, random_values<examples::Chat>())
BITWIRE_CORPUS_BENCH(examples, Synchronize, random_values<examples::Synchronize>())
BITWIRE_CORPUS_BENCH(examples, Timescale, random_values<examples::Timescale>())
BITWIRE_CORPUS_BENCH(examples, ProbeHeader, random_values<examples::ProbeHeader>())
BITWIRE_CORPUS_BENCH(examples, ProbeBits, random_values<examples::ProbeBits>())

}  // namespace

BENCHMARK_MAIN();
