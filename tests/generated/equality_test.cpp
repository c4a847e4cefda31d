// Generated structs' operator== (a defaulted const member; C++20 synthesises != and the reversed form):
// equal and unequal both ways, member by member, through nested structs, fixed and variable arrays,
// arrays of structs, sparse arrays, optionals and a nested message. schemas/constructs.net's Shapes holds
// every one of those shapes. (That the operator is a member: EmitCompile.EqualityIsAConstMemberNotAHiddenFriend.)
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>

#include "constructs.hpp"

namespace {

namespace dc = demo::constructs;

// Asserts a == b, b == a, !(a != b) and !(b != a), on const references.
void expect_equal(const dc::Shapes& a, const dc::Shapes& b, const std::string& what) {
  EXPECT_TRUE(a == b) << what;
  EXPECT_TRUE(b == a) << what;
  EXPECT_FALSE(a != b) << what;
  EXPECT_FALSE(b != a) << what;
}

void expect_unequal(const dc::Shapes& a, const dc::Shapes& b, const std::string& what) {
  EXPECT_FALSE(a == b) << what;
  EXPECT_FALSE(b == a) << what;
  EXPECT_TRUE(a != b) << what;
  EXPECT_TRUE(b != a) << what;
}

// A Shapes with something in every member, so that each change below is a change from a non-default value.
dc::Shapes filled() {
  dc::Shapes s;
  s.fixed_array = {1, 2, 3, 4};
  EXPECT_TRUE(s.variable_array.push_back(5));
  EXPECT_TRUE(s.variable_array.push_back(6));
  s.path[0].x = 1.0f;
  EXPECT_TRUE(s.path.push_back(common::Position{2.0f, 3.0f, 4.0f}));
  s.health[7] = 50;
  s.health_changed[7] = true;
  s.tiny[1] = true;
  s.tiny_changed[1] = true;
  s.has_spawn = true;
  s.spawn = common::Position{5.0f, 6.0f, 7.0f};
  s.has_maybe_list = true;
  EXPECT_TRUE(s.maybe_list.push_back(9));
  s.nested.u16 = 16;
  EXPECT_TRUE(s.nested.name.assign("nested"));
  s.last_ping.sent_tick = 99;
  return s;
}

TEST(GeneratedEquality, DefaultAndCopiesCompareEqualBothWays) {
  expect_equal(dc::Shapes{}, dc::Shapes{}, "defaults");
  const dc::Shapes a = filled();
  const dc::Shapes b = a;
  expect_equal(a, b, "copy");
  expect_equal(a, a, "self");
  expect_unequal(a, dc::Shapes{}, "filled against default");
}

TEST(GeneratedEquality, EveryMemberShapeTakesPartInTheComparison) {
  const dc::Shapes base = filled();
  const std::pair<const char*, std::function<void(dc::Shapes&)>> changes[] = {
      {"fixed array element", [](dc::Shapes& s) { s.fixed_array[3] = 40; }},
      {"variable array element", [](dc::Shapes& s) { s.variable_array[1] = 60; }},
      {"variable array length", [](dc::Shapes& s) { EXPECT_TRUE(s.variable_array.push_back(6)); }},
      {"struct in an array", [](dc::Shapes& s) { s.path[1].z = -4.0f; }},
      {"array of structs length", [](dc::Shapes& s) { EXPECT_TRUE(s.path.resize(1)); }},
      {"sparse element", [](dc::Shapes& s) { s.health[7] = 51; }},
      {"sparse changed flag", [](dc::Shapes& s) { s.tiny_changed[2] = true; }},
      {"optional presence", [](dc::Shapes& s) { s.has_spawn = false; }},
      {"optional struct value", [](dc::Shapes& s) { s.spawn.y = -6.0f; }},
      {"optional array element", [](dc::Shapes& s) { s.maybe_list[0] = 10; }},
      {"nested struct scalar", [](dc::Shapes& s) { s.nested.u16 = 17; }},
      {"nested struct string", [](dc::Shapes& s) { EXPECT_TRUE(s.nested.name.assign("nestee")); }},
      {"nested struct enum", [](dc::Shapes& s) { s.nested.mode = dc::Mode::Sprint; }},
      {"nested message", [](dc::Shapes& s) { s.last_ping.sent_tick = 100; }},
  };
  for (const auto& [what, change] : changes) {
    dc::Shapes changed = base;
    change(changed);
    expect_unequal(base, changed, what);
  }
}

TEST(GeneratedEquality, NestedTypesCompareOnTheirOwn) {
  const dc::Shapes a = filled();
  dc::Shapes b = a;
  b.nested.i8 = 1;
  EXPECT_TRUE(a.path == b.path);
  EXPECT_TRUE(a.last_ping == b.last_ping);
  EXPECT_FALSE(a.nested == b.nested);
  EXPECT_TRUE(b.nested != a.nested);
  const common::Position p{1.0f, 2.0f, 3.0f};
  const common::Position q{1.0f, 2.0f, 3.5f};
  EXPECT_TRUE(p != q);
  EXPECT_TRUE(q != p);
  EXPECT_FALSE(p == q);
  EXPECT_TRUE(p == common::Position(p));
}

}  // namespace
