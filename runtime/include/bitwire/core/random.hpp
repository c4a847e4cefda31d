// A small, fast, seedable pseudo-random generator (xoshiro256**) for the network simulator and the
// randomized tests. Unlike the standard <random> distributions, every value it produces is specified
// here, so one seed gives the same sequence on every compiler and standard library.
// Not for cryptography.
#pragma once

#include <cstdint>

namespace bitwire {

class Random {
 public:
  // Any seed is fine, including 0: the seed is spread over the 256-bit state by splitmix64, which
  // never yields the all-zero state from which xoshiro cannot leave.
  explicit Random(uint64_t seed = 0) { reseed(seed); }

  void reseed(uint64_t seed) {
    for (uint64_t& word : state_) {
      seed += 0x9E3779B97F4A7C15ull;
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      word = z ^ (z >> 31);
    }
  }

  // 64 uniformly distributed bits.
  uint64_t next() {
    const uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  // Uniform in [0, 1), with 53 bits of precision.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  // Uniform in [low, high).
  double uniform(double low, double high) { return low + (high - low) * uniform(); }

  // Uniform in [0, bound), without modulo bias; bound 0 yields 0.
  uint64_t below(uint64_t bound) {
    if (bound == 0) return 0;
    // Values under `threshold` would make the low residues more likely: draw again (rare for small bounds).
    const uint64_t threshold = (0 - bound) % bound;
    for (;;) {
      const uint64_t value = next();
      if (value >= threshold) return value % bound;
    }
  }

  // Uniform in [low, high], both included, for any pair including [INT64_MIN, INT64_MAX]. The distance is
  // taken in unsigned arithmetic, so no extreme range overflows. low > high is a caller bug: the bounds are
  // swapped.
  int64_t range(int64_t low, int64_t high) {
    if (low > high) {
      const int64_t swap = low;
      low = high;
      high = swap;
    }
    const uint64_t span = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);  // exact mod 2^64
    const uint64_t offset = span == UINT64_MAX ? next() : below(span + 1);
    return static_cast<int64_t>(static_cast<uint64_t>(low) + offset);  // in [low, high]: no wrap in int64
  }

  // True with the given probability in percent (<= 0: never, >= 100: always).
  bool chance_percent(double percent) { return uniform() * 100.0 < percent; }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  uint64_t state_[4];
};

}  // namespace bitwire
