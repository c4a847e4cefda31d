// bitwire's generated code on the four shapes of the bench corpus of mas-bandwidth/schema, translated
// field for field into bench/generated/corpus/corpus.net (the same bits as that compiler's output): write,
// read and measure, one message per iteration over 256 distinct values. The side-by-side with schema's
// own generated C++ is run locally, never committed: bench/RESULTS.md says how.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "bench_harness.hpp"
#include "corpus.hpp"

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

template <typename M>
using Codec = bench_harness::Generated<M>;

#define BITWIRE_CORPUS_BENCH(name, values)                                                                  \
  void BM_##name##_Write(benchmark::State& s) { bench_harness::write_loop<Codec<corpus::name>>(s, values()); } \
  void BM_##name##_Read(benchmark::State& s) { bench_harness::read_loop<Codec<corpus::name>>(s, values()); }   \
  void BM_##name##_Measure(benchmark::State& s) {                                                           \
    bench_harness::measure_loop<Codec<corpus::name>>(s, values());                                          \
  }                                                                                                         \
  BENCHMARK(BM_##name##_Write);                                                                             \
  BENCHMARK(BM_##name##_Read);                                                                              \
  BENCHMARK(BM_##name##_Measure);

BITWIRE_CORPUS_BENCH(BenchPacket, packets)
BITWIRE_CORPUS_BENCH(BenchInts, ints)
BITWIRE_CORPUS_BENCH(BenchBits, bit_fields)
BITWIRE_CORPUS_BENCH(BenchMixed, mixed)

}  // namespace

BENCHMARK_MAIN();
