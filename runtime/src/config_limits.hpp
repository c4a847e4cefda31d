// One table of limits per config struct, from which both check() and sanitized() are derived, so the two
// cannot disagree. A table lists per-field ranges (integers and doubles) and cross-field rules; each rule
// carries the test check() applies and the repair sanitized() applies, side by side.
#pragma once

#include <algorithm>
#include <span>

namespace bitwire::detail {

template <typename Config>
struct IntLimit {
  int Config::*field;
  int min;
  int max;
  const char* message;  // what check() returns when the field is outside [min, max]
};

template <typename Config>
struct DoubleLimit {
  double Config::*field;
  double min;
  double max;
  const char* message;  // also returned for NaN
};

template <typename Config>
struct CrossRule {
  bool (*holds)(const Config&);  // evaluated on a config whose fields are all in range
  void (*repair)(Config&);       // makes `holds` true without moving any field out of its range
  const char* message;
};

template <typename Config>
struct ConfigLimits {
  std::span<const IntLimit<Config>> ints;
  std::span<const DoubleLimit<Config>> doubles;
  std::span<const CrossRule<Config>> rules;

  // nullptr when every field is in range and every rule holds, else the first failure's message.
  const char* check(const Config& config) const {
    for (const auto& limit : ints) {
      const int value = config.*limit.field;
      if (value < limit.min || value > limit.max) return limit.message;
    }
    for (const auto& limit : doubles) {
      const double value = config.*limit.field;
      if (!(value >= limit.min && value <= limit.max)) return limit.message;
    }
    for (const auto& rule : rules) {
      if (!rule.holds(config)) return rule.message;
    }
    return nullptr;
  }

  // Every field clamped into its range (NaN becomes the field's default), then every rule repaired in
  // table order.
  Config sanitized(Config config) const {
    const Config defaults{};
    for (const auto& limit : ints) {
      config.*limit.field = std::clamp(config.*limit.field, limit.min, limit.max);
    }
    for (const auto& limit : doubles) {
      double& value = config.*limit.field;
      value = (value == value) ? std::clamp(value, limit.min, limit.max) : defaults.*limit.field;
    }
    for (const auto& rule : rules) {
      if (!rule.holds(config)) rule.repair(config);
    }
    return config;
  }
};

}  // namespace bitwire::detail
