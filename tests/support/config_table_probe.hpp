// Drives a config table (config_table.hpp) field by field for the config tests: each field at and past both
// ends of its effective range, check() and sanitize agreeing on every probe, and the docs tables that print
// the ranges checked against the code.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "bitwire/core/config_table.hpp"

namespace bitwire::test {

// The values of every limited field, in table order, as text: equal texts mean equal fields.
template <typename Config, typename Table>
inline std::string field_values(const Config& config, const Table& table) {
  std::string text;
  for_each_field(table, [&](const auto& field) {
    text += std::string(field.name) + "=" + detail::config_value_text(config.*field.member) + " ";
  });
  return text;
}

// Probes for one field of `base`: its effective ends, and the nearest values past them.
template <typename Config, typename T>
inline std::vector<T> probes(const Field<Config, T>& field, const Config& base) {
  std::vector<T> values = {field.min,        field.max, field.low(base),
                           field.high(base), T{},       Config{}.*field.member};
  if constexpr (std::is_floating_point_v<T>) {
    for (T end : {field.min, field.low(base)})
      values.push_back(std::nextafter(end, -std::numeric_limits<T>::infinity()));
    for (T end : {field.max, field.high(base)})
      values.push_back(std::nextafter(end, std::numeric_limits<T>::infinity()));
    values.push_back(std::numeric_limits<T>::quiet_NaN());
    values.push_back(std::numeric_limits<T>::infinity());
    values.push_back(-std::numeric_limits<T>::infinity());
    values.push_back(std::numeric_limits<T>::denorm_min());
    values.push_back(-std::numeric_limits<T>::max());
    values.push_back(std::numeric_limits<T>::max());
  } else if constexpr (std::is_enum_v<T>) {
    // The enumerators' underlying values, and values cast in from just outside and far outside them.
    using U = std::underlying_type_t<T>;
    for (T end : {field.min, field.low(base)}) {
      if (static_cast<U>(end) > std::numeric_limits<U>::min())
        values.push_back(static_cast<T>(static_cast<U>(end) - 1));
    }
    for (T end : {field.max, field.high(base)}) {
      if (static_cast<U>(end) < std::numeric_limits<U>::max())
        values.push_back(static_cast<T>(static_cast<U>(end) + 1));
    }
    values.push_back(static_cast<T>(std::numeric_limits<U>::min()));
    values.push_back(static_cast<T>(std::numeric_limits<U>::max()));
  } else {
    for (T end : {field.min, field.low(base)}) {
      if (end > std::numeric_limits<T>::min()) values.push_back(static_cast<T>(end - 1));
    }
    // Inside the range but not of the required form: just past the low end, just below the high end.
    if (field.exact_power_of_two || field.multiple_of != nullptr) {
      values.push_back(static_cast<T>(field.low(base) + 1));
      values.push_back(static_cast<T>(field.high(base) - 1));
    }
    for (T end : {field.max, field.high(base)}) {
      if (end < std::numeric_limits<T>::max()) values.push_back(static_cast<T>(end + 1));
    }
    values.push_back(std::numeric_limits<T>::min());
    values.push_back(std::numeric_limits<T>::max());
  }
  return values;
}

// For every field and probe: check() accepts exactly the values inside the effective range; an accepted
// config comes back from sanitized() unchanged; a refused one names the field and its value, and its
// sanitized copy is accepted and differs only in that field.
template <typename Config, typename Table>
inline void exercise_table(const char* config_name, const Table& table, const Config& base) {
  ASSERT_TRUE(check_config(config_name, base, table).ok()) << "the base config must be legal";
  for_each_field(table, [&](const auto& field) {
    for (const auto value : probes(field, base)) {
      Config config = base;
      config.*field.member = value;
      const std::string shown = detail::config_value_text(value);
      SCOPED_TRACE(std::string(field.name) + " = " + shown);
      // False for NaN. A field with a form rule (a power of two, a multiple) is also legal only in that form.
      bool legal = value >= field.low(base) && value <= field.high(base);
      if constexpr (std::is_integral_v<std::decay_t<decltype(value)>>) {
        // Only for values in range (at least 1 for these fields): value - 1 cannot overflow.
        if (legal && field.exact_power_of_two && (value & (value - 1)) != 0) legal = false;
        if (legal && field.multiple_of != nullptr && value % field.multiple_of(base) != 0) legal = false;
      }
      const bool zero = field.zero_allowed && value == decltype(value){};
      const ConfigCheck check = check_config(config_name, config, table);
      const char* reason = check.reason();
      const Config clamped = sanitize_config(config, table);
      // Fields below this one may have bounds that move with it; only compare this field for them.
      if (legal || zero) {
        // A legal value for this field may still make a later field's range exclude its current value.
        if (reason == nullptr) {
          EXPECT_EQ(field_values(clamped, table), field_values(config, table))
              << "sanitized() changed an accepted config";
        } else {
          EXPECT_EQ(clamped.*field.member, value) << "sanitized() changed a legal field";
        }
      } else {
        ASSERT_NE(reason, nullptr) << "check() accepted a value outside the range";
        const std::string text = reason;
        EXPECT_NE(text.find(std::string(config_name) + "." + field.name + " = "), std::string::npos) << text;
        EXPECT_TRUE(text.find(" is outside ") != std::string::npos ||
                    text.find(" must be ") != std::string::npos)
            << text;
        if constexpr (std::is_floating_point_v<std::decay_t<decltype(value)>>) {
          if (!std::isnan(value)) {
            EXPECT_NE(text.find(shown), std::string::npos) << text;
          }
        } else {
          EXPECT_NE(text.find(shown), std::string::npos) << text;
        }
        if constexpr (std::is_floating_point_v<std::decay_t<decltype(value)>>) {
          if (std::isnan(value)) {
            EXPECT_EQ(clamped.*field.member, Config{}.*field.member);
          }
        }
      }
      EXPECT_TRUE(check_config(config_name, clamped, table).ok())
          << "sanitized() left an illegal config: " << check_config(config_name, clamped, table).reason();
      const Config twice = sanitize_config(clamped, table);
      EXPECT_EQ(field_values(twice, table), field_values(clamped, table)) << "sanitized() is not idempotent";
    }
  });
}

// The rows of every markdown table in `path` whose first cell is a backquoted or plain field name:
// field -> the cell of the column headed "range".
inline std::map<std::string, std::string> doc_ranges(const std::string& path, const std::string& heading_marker) {
  std::ifstream file(path);
  EXPECT_TRUE(file.good()) << path;
  std::map<std::string, std::string> ranges;
  std::string line;
  bool in_section = heading_marker.empty();
  int range_column = -1;
  while (std::getline(file, line)) {
    if (!heading_marker.empty() && line.rfind("#", 0) == 0)
      in_section = line.find(heading_marker) != std::string::npos;
    if (!in_section || line.empty() || line[0] != '|') {
      if (line.empty() || line[0] != '|') range_column = -1;
      continue;
    }
    std::vector<std::string> cells;
    std::stringstream row(line.substr(1));
    std::string cell;
    while (std::getline(row, cell, '|')) {
      const size_t first = cell.find_first_not_of(' ');
      const size_t last = cell.find_last_not_of(' ');
      cells.push_back(first == std::string::npos ? "" : cell.substr(first, last - first + 1));
    }
    if (range_column < 0) {
      for (size_t i = 0; i < cells.size(); ++i) {
        if (cells[i] == "range") range_column = static_cast<int>(i);
      }
      continue;
    }
    if (cells.empty() || static_cast<int>(cells.size()) <= range_column || cells[0].rfind("---", 0) == 0)
      continue;
    std::string name = cells[0];
    if (name.size() >= 2 && name.front() == '`' && name.back() == '`') name = name.substr(1, name.size() - 2);
    std::string range = cells[static_cast<size_t>(range_column)];
    if (range.size() >= 2 && range.front() == '`' && range.back() == '`')
      range = range.substr(1, range.size() - 2);
    ranges[name] = range;
  }
  return ranges;
}

template <typename Table>
inline void expect_doc_matches(const std::string& doc, const std::string& heading_marker, const Table& table) {
  const auto ranges = doc_ranges(std::string(BITWIRE_SOURCE_DIR) + "/" + doc, heading_marker);
  for_each_field(table, [&](const auto& field) {
    const std::string expected = describe_range(field);
    const auto found = ranges.find(field.name);
    if (found == ranges.end()) {
      ADD_FAILURE() << doc << ": no row for " << field.name
                    << " in a table with a \"range\" column; expected range `" << expected << "`";
      return;
    }
    EXPECT_EQ(found->second, expected) << doc << ": the range of " << field.name << " differs from the code";
  });
}

}  // namespace bitwire::test
