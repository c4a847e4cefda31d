// The checker tests' helpers: compile a one-field struct and find what the model says about it.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "support.hpp"

namespace idlc::test {

inline const model::Struct& find_struct(const model::Package& package, const std::string& name) {
  for (const auto& s : package.structs) {
    if (s.name == name) return s;
  }
  throw std::runtime_error("no struct " + name);
}

inline const model::Field& find_field(const model::Struct& s, const std::string& name) {
  for (const auto& f : s.fields) {
    if (f.name == name) return f;
  }
  throw std::runtime_error("no field " + name);
}

// Compiles `package t; struct S { <field>; }` and returns the field.
struct OneField {
  std::unique_ptr<test::Compiled> compiled;
  const model::Field* field = nullptr;
};

inline OneField one_field(const std::string& field, const std::string& extra = "") {
  OneField result;
  result.compiled = compile_text("package t;\n" + extra + "\nstruct S { " + field + "; }\n");
  if (result.compiled->schema) result.field = &find_field(find_struct(result.compiled->package(), "S"), "f");
  return result;
}

#define EXPECT_FIELD_BITS(field_text, min_bits, max_bits)                               \
  do {                                                                                  \
    auto one = one_field(field_text);                                                   \
    ASSERT_NE(one.field, nullptr) << field_text << "\n" << one.compiled->errors;        \
    EXPECT_EQ(one.field->cost.min, static_cast<std::uint64_t>(min_bits)) << field_text; \
    EXPECT_EQ(one.field->cost.max, static_cast<std::uint64_t>(max_bits)) << field_text; \
  } while (0)

}  // namespace idlc::test
