// Seeds for randomized tests. Every randomized test takes its seed from BITWIRE_SEED when set (replay),
// otherwise uses a fixed default so plain runs are reproducible; BITWIRE_SEED=random draws a fresh seed
// (loop mode). The seed is printed through a GoogleTest trace, so every failure names it.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace bitwire::test {

inline uint64_t test_seed(uint64_t fallback = 0x5eed'b17u) {
  const char* env = std::getenv("BITWIRE_SEED");
  if (env == nullptr || *env == '\0') return fallback;
  if (std::string(env) == "random") {
    return static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) * 0x9E3779B97F4A7C15ull;
  }
  return std::strtoull(env, nullptr, 0);
}

}  // namespace bitwire::test

// Use at the top of a randomized test: declares `seed` and attaches it to every failure message.
#define BITWIRE_SEEDED_TEST_SEED(fallback)                                                              \
  const uint64_t seed = ::bitwire::test::test_seed(fallback);                                             \
  SCOPED_TRACE("seed " + std::to_string(seed) + " (replay with BITWIRE_SEED=" + std::to_string(seed) + ")")
