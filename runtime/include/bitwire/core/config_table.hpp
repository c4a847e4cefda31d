// One table of limits per config struct, from which both validation (check) and clamping (sanitize) are
// derived, so the two cannot disagree.
//
// A table is a list of fields, each a few lines:
//
//   inline constexpr auto kMyConfigLimits = bitwire::config_table(
//       bitwire::Field<MyConfig, int>{.name = "window", .member = &MyConfig::window, .min = 1, .max = 4096,
//                                     .power_of_two = true},
//       bitwire::Field<MyConfig, double>{.name = "timeout", .member = &MyConfig::timeout, .min = 0.001,
//                                        .max = 3600.0, .unit = "s"},
//       bitwire::Field<MyConfig, int>{.name = "burst", .member = &MyConfig::burst, .min = 1, .max = 1 << 20,
//                                     .upper = [](const MyConfig& c) { return c.window * 4; },
//                                     .upper_text = "window * 4"});
//
// Rules:
// - Every range is inclusive. A floating-point field must be finite (NaN and infinities are outside every
//   range), so a minimum above zero is how a table refuses tiny durations and rates.
// - `zero_allowed`: 0 is legal as well as [min, max] ("0 = off"); values strictly between 0 and min are not.
// - `lower` / `upper`: a bound computed from other fields (a cross-field rule). It may read only fields
//   that come earlier in the table: check() has already validated them, and sanitize() has already
//   clamped them, when the bound is evaluated. The effective range is the intersection with [min, max].
// - An enumeration field's range is its enumerators' underlying values, [min, max]; a value cast in from
//   outside that range is refused, and sanitized to the field's default (then clamped, like a NaN).
// - `power_of_two`: the value is legal as given; the user of it rounds it up to a power of two (stated in
//   the docs and counted in memory figures). It does not change check or sanitize.
// - `exact_power_of_two` (integers): the value must itself be a power of two (a ring indexed by a mask);
//   sanitize rounds it up, or down when that would pass the maximum.
// - `multiple_of` (integers): the value must be a multiple of a number computed from earlier fields
//   (`multiple_text` says which); sanitize rounds it down to one, or up when that would pass the minimum.
//
// check_config() returns a ConfigCheck: a pass when every field is within its effective range, else one
// holding a reason naming the config, the field, the value and the legal range, e.g.
//   "EndpointConfig.sent_packets_buffer_size = 1 is outside [2, 32768]",
//   "EndpointConfig.max_packet_size = 20000 is outside [1, 4096] (max: 256 * fragment_size)",
//   "EndpointConfig.max_fragments = 16 must be 2 (ceil(max_packet_size / fragment_size))".
// The reason lives in the returned ConfigCheck, so a second check never rewrites the first one's reason.
// sanitize_config() clamps each field, in table order, into its effective range (a NaN or an unknown
// enumerator becomes the field's default, then is clamped). Consequences the tests pin for every table:
// check(c).ok() implies sanitize(c) == c, and check(sanitize(c)).ok() for any c.
#pragma once

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <tuple>
#include <type_traits>

namespace bitwire {

inline constexpr size_t kConfigReasonBytes = 256;

// What a config's check() returns: a pass, or the reason it fails held in the value itself, so a later
// check cannot rewrite it. `if (!config.check())` reads "if the config fails"; reason() is nullptr on a pass
// and otherwise lives as long as this value (keep the ConfigCheck, not the pointer, to keep the reason).
class ConfigCheck {
 public:
  // A pass.
  ConfigCheck() = default;
  // A failure with `reason` (copied, cut at kConfigReasonBytes - 1); nullptr or "" is a pass.
  static ConfigCheck failure(const char* reason) {
    ConfigCheck result;
    if (reason != nullptr) std::snprintf(result.reason_, kConfigReasonBytes, "%s", reason);
    return result;
  }
  bool ok() const { return reason_[0] == '\0'; }
  explicit operator bool() const { return ok(); }
  // nullptr on a pass, else why the config was refused.
  const char* reason() const { return ok() ? nullptr : reason_; }

 private:
  template <typename Config, typename... Fields>
  friend ConfigCheck check_config(const char*, const Config&, const std::tuple<Fields...>&);
  friend ConfigCheck config_part_check(const char* part, const ConfigCheck& check);

  char reason_[kConfigReasonBytes] = {};
};

template <typename Config, typename T>
struct Field {
  static_assert((std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) || std::is_enum_v<T>,
                "a limited field is a number or an enumeration (a range of its enumerators' values)");
  using ConfigType = Config;
  using ValueType = T;

  const char* name = "";
  T Config::*member = nullptr;
  T min{};
  T max{};
  bool zero_allowed = false;
  T (*lower)(const Config&) = nullptr;  // extra lower bound from earlier fields, or none
  const char* lower_text = nullptr;     // how `lower` is computed, for messages and docs
  T (*upper)(const Config&) = nullptr;  // extra upper bound from earlier fields, or none
  const char* upper_text = nullptr;
  bool power_of_two = false;
  bool exact_power_of_two = false;
  T (*multiple_of)(const Config&) = nullptr;  // the value must be a multiple of this, or none
  const char* multiple_text = nullptr;
  const char* unit = nullptr;  // for docs: "s", "ms", "bytes", ...

  // The effective bounds for `config` (earlier fields assumed valid).
  T low(const Config& config) const {
    T value = min;
    if (lower != nullptr) {
      const T extra = lower(config);
      if (extra > value) value = extra;
    }
    return value;
  }
  T high(const Config& config) const {
    T value = max;
    if (upper != nullptr) {
      const T extra = upper(config);
      if (extra < value) value = extra;
    }
    return value;
  }

  // True when `value` is within the effective range (the form rules aside). False for NaN and infinities.
  bool in_range(const Config& config, T value) const {
    if (zero_allowed && value == T{}) return true;
    return value >= low(config) && value <= high(config);
  }

  // True when `value` has the form the field requires (a power of two, a multiple), or none is required.
  bool has_form(const Config& config, T value) const {
    if constexpr (std::is_integral_v<T>) {
      if (exact_power_of_two && (value <= 0 || (value & (value - 1)) != 0)) return false;
      if (multiple_of != nullptr) {
        const T step = multiple_of(config);
        if (step > 0 && value % step != 0) return false;
      }
    }
    (void)config;
    (void)value;
    return true;
  }

  // True when `value` is legal for `config`. False for NaN and infinities.
  bool accepts(const Config& config, T value) const {
    return in_range(config, value) && has_form(config, value);
  }

  // The nearest legal value to `value` (the default for NaN).
  T clamp(const Config& config, T value) const {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(value)) value = Config{}.*member;
    }
    if constexpr (std::is_enum_v<T>) {
      // An unknown enumerator has no nearest one: the default replaces it.
      if (!accepts(config, value)) value = Config{}.*member;
    }
    if (accepts(config, value)) return value;
    const T lo = low(config);
    const T hi = high(config);
    if (!in_range(config, value)) {
      if (value > hi) {
        value = hi;
      } else if (zero_allowed && value > T{} && value < lo) {
        value = lo;
      } else {
        value = value < lo ? lo : hi;
      }
    }
    if constexpr (std::is_integral_v<T>) {
      if (exact_power_of_two && !has_form(config, value)) {
        // The smallest power of two at or above the value, or the largest within the range when none is.
        T up = 1;
        while (up < value && up <= hi / 2) up = static_cast<T>(up * 2);
        value = up;
      }
      if (multiple_of != nullptr && !has_form(config, value)) {
        const T step = multiple_of(config);
        const T down = static_cast<T>(value - value % step);
        value = down >= lo ? down : static_cast<T>(down + step);
      }
    }
    return value;
  }
};

template <typename... Fields>
constexpr std::tuple<Fields...> config_table(Fields... fields) {
  return std::tuple<Fields...>(fields...);
}

namespace detail {

// Shortest decimal that reads back as the same value, for messages and docs ("0.1", not 0.100000001).
template <typename T>
inline std::string config_value_text(T value) {
  char text[64];
  if constexpr (std::is_floating_point_v<T>) {
    const double as_double = static_cast<double>(value);
    if (std::isfinite(as_double) && std::fabs(as_double) < 1e15 && std::trunc(as_double) == as_double) {
      std::snprintf(text, sizeof text, "%.0f", as_double);  // whole numbers in full: 3600, 1000000000
      return text;
    }
    for (int digits = 1; digits <= 17; ++digits) {
      std::snprintf(text, sizeof text, "%.*g", digits, static_cast<double>(value));
      if (static_cast<T>(std::strtod(text, nullptr)) == value) break;
    }
  } else if constexpr (std::is_enum_v<T>) {
    return config_value_text(static_cast<std::underlying_type_t<T>>(value));
  } else if constexpr (std::is_signed_v<T>) {
    std::snprintf(text, sizeof text, "%lld", static_cast<long long>(value));
  } else {
    std::snprintf(text, sizeof text, "%llu", static_cast<unsigned long long>(value));
  }
  return text;
}

// Writes why `config` breaks `field` into `out` and returns true, or returns false when the field is legal.
template <typename Config, typename T>
bool field_reason(const char* config_name, const Field<Config, T>& field, const Config& config,
                  char (&out)[kConfigReasonBytes]) {
  const T value = config.*field.member;
  if (field.accepts(config, value)) return false;
  if (field.in_range(config, value)) {
    // In range, but not of the required form.
    if constexpr (std::is_integral_v<T>) {
      if (field.multiple_of != nullptr && field.multiple_of(config) > 0 &&
          value % field.multiple_of(config) != 0) {
        std::snprintf(out, kConfigReasonBytes, "%s.%s = %s must be a multiple of %s (%s)", config_name,
                      field.name, config_value_text(value).c_str(),
                      config_value_text(field.multiple_of(config)).c_str(),
                      field.multiple_text != nullptr ? field.multiple_text : "a computed step");
        return true;
      }
    }
    std::snprintf(out, kConfigReasonBytes, "%s.%s = %s must be a power of two in [%s, %s]", config_name,
                  field.name, config_value_text(value).c_str(), config_value_text(field.low(config)).c_str(),
                  config_value_text(field.high(config)).c_str());
    return true;
  }
  const char* lower_text = field.lower_text;
  const char* upper_text = field.upper_text;
  if (lower_text != nullptr && upper_text != nullptr && std::string(lower_text) == upper_text) {
    // One value computed for both bounds: the field is derived, say so.
    std::snprintf(out, kConfigReasonBytes, "%s.%s = %s must be %s (%s)", config_name, field.name,
                  config_value_text(value).c_str(), config_value_text(field.low(config)).c_str(), upper_text);
    return true;
  }
  std::snprintf(out, kConfigReasonBytes, "%s.%s = %s is outside %s[%s, %s]%s%s%s%s%s%s", config_name,
                field.name, config_value_text(value).c_str(), field.zero_allowed ? "0 or " : "",
                config_value_text(field.low(config)).c_str(), config_value_text(field.high(config)).c_str(),
                lower_text != nullptr ? " (min: " : "", lower_text != nullptr ? lower_text : "",
                lower_text != nullptr ? ")" : "", upper_text != nullptr ? " (max: " : "",
                upper_text != nullptr ? upper_text : "", upper_text != nullptr ? ")" : "");
  return true;
}

}  // namespace detail

// Passes when `config` satisfies every field of `table`, else holds the reason for the first field that does
// not.
template <typename Config, typename... Fields>
ConfigCheck check_config(const char* config_name, const Config& config, const std::tuple<Fields...>& table) {
  ConfigCheck result;
  bool failed = false;
  std::apply(
      [&](const auto&... field) {
        ((failed = failed || detail::field_reason(config_name, field, config, result.reason_)), ...);
      },
      table);
  return result;
}

// `config` with every field of `table` clamped into its effective range, in table order.
template <typename Config, typename... Fields>
Config sanitize_config(Config config, const std::tuple<Fields...>& table) {
  std::apply(
      [&](const auto&... field) {
        ((config.*field.member = field.clamp(config, config.*field.member)), ...);
      },
      table);
  return config;
}

// `check` (a nested config's check()) prefixed with the part of the enclosing config it came from, e.g.
// "StackConfig.connection.endpoint: EndpointConfig.fragment_size = 0 is outside [1, 65487]"; a pass stays a
// pass. A long reason is cut at kConfigReasonBytes - 1.
inline ConfigCheck config_part_check(const char* part, const ConfigCheck& check) {
  if (check.ok()) return check;
  ConfigCheck result;
  size_t size = 0;
  const auto append = [&](const char* text) {
    const size_t text_size = std::strlen(text);
    const size_t room = kConfigReasonBytes - 1 - size;
    const size_t n = text_size < room ? text_size : room;
    std::memcpy(result.reason_ + size, text, n);
    size += n;
  };
  append(part);
  append(": ");
  append(check.reason_);
  result.reason_[size] = '\0';
  return result;
}

// Copies a check's reason into storage an object owns (its sticky error); returns `out`, or nullptr when
// the check passed.
inline const char* keep_config_reason(char (&out)[kConfigReasonBytes], const ConfigCheck& check) {
  if (check.ok()) return nullptr;
  std::snprintf(out, kConfigReasonBytes, "%s", check.reason());
  return out;
}

// Calls fn(field) for every field of `table`, in order (tests and docs generators walk tables with it).
template <typename Fn, typename... Fields>
void for_each_field(const std::tuple<Fields...>& table, Fn&& fn) {
  std::apply([&](const auto&... field) { (fn(field), ...); }, table);
}

// The legal range of a field as the docs print it, e.g. "1 .. 256", "0 or 1 .. 1e+09",
// "1 .. 16764672 bytes, <= 256 * fragment_size", "1 .. 32768, rounded up to 2^k".
template <typename Config, typename T>
std::string describe_range(const Field<Config, T>& field) {
  std::string text = field.zero_allowed ? "0 or " : "";
  text += detail::config_value_text(field.min) + " .. " + detail::config_value_text(field.max);
  if (field.unit != nullptr) text += std::string(" ") + field.unit;
  const bool same = field.lower_text != nullptr && field.upper_text != nullptr &&
                    std::string(field.lower_text) == field.upper_text;
  if (same) {
    text += std::string(", = ") + field.lower_text;
  } else {
    if (field.lower_text != nullptr) text += std::string(", >= ") + field.lower_text;
    if (field.upper_text != nullptr) text += std::string(", <= ") + field.upper_text;
  }
  if (field.power_of_two) text += ", rounded up to 2^k";
  if (field.exact_power_of_two) text += ", a power of two";
  if (field.multiple_text != nullptr) text += std::string(", a multiple of ") + field.multiple_text;
  return text;
}

}  // namespace bitwire
