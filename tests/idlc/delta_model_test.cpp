// What the model decides for the delta form (check/model_delta.cpp; docs/schema-language.md, "Delta
// messages"): which structs get it (declared, or reached through field types of the same package; not an
// imported struct), the relative width of each numeric type, the bound MaxDeltaBits, that `delta` is a
// keyword only before `message` / `struct`, and that it changes the ProtocolId only where it is declared.
#include <gtest/gtest.h>

#include <string>

#include "model/layout.hpp"
#include "support.hpp"

namespace {

using namespace idlc::model;

const Struct& find_struct(const Package& package, const std::string& name) {
  for (const Struct& s : package.structs) {
    if (s.name == name) return s;
  }
  ADD_FAILURE() << "no struct " << name;
  return package.structs.front();
}

TEST(DeltaModel, DeclaredAndReachedStructsOfThePackageGetTheDeltaForm) {
  auto compiled = idlc::test::compile_text(R"(package t;
import "other.net";
struct Inner { uint8 v; }
struct Middle { Inner inner; other.Far far; }
struct Unused { uint8 v; }
delta message Snapshot { Middle middle[4]; }
message Plain { Unused unused; }
)",
                                           {{"other.net", "package other;\nstruct Far { uint8 v; }\n"}});
  ASSERT_TRUE(compiled->schema != nullptr) << compiled->errors;
  ASSERT_EQ(compiled->errors, "");
  const Package& package = compiled->package();
  EXPECT_TRUE(find_struct(package, "Snapshot").delta);
  EXPECT_TRUE(find_struct(package, "Snapshot").delta_form);
  EXPECT_FALSE(find_struct(package, "Middle").delta);
  EXPECT_TRUE(find_struct(package, "Middle").delta_form);
  EXPECT_TRUE(find_struct(package, "Inner").delta_form);
  EXPECT_FALSE(find_struct(package, "Unused").delta_form);
  EXPECT_FALSE(find_struct(package, "Plain").delta_form);
  const Package& other = *package.imports.front();
  EXPECT_FALSE(other.structs.front().delta_form) << "an imported struct is sent whole when it changed";
}

TEST(DeltaModel, NumbersFromFourBitsAreRelativeOnTheirWholeWidth) {
  IDLC_COMPILE_OK(compiled, R"(package t;
delta message M {
    uint<0 .. 7> three;
    uint<0 .. 15> four;
    int<-8192 .. 8191> fourteen;
    uint32 raw;
    fixed<-128 .. 127, frac 8> q;
    float<-100 .. 100, res 0.01> f;
    float plain;
    bool b;
}
)");
  const Struct& m = find_struct(compiled->package(), "M");
  auto small = [&](const std::string& name) {
    for (const Field& f : m.fields) {
      if (f.name == name) return delta_relative_bits(f.type);
    }
    ADD_FAILURE() << name;
    return -1;
  };
  EXPECT_EQ(small("three"), 0);
  EXPECT_EQ(small("four"), 4);
  EXPECT_EQ(small("fourteen"), 14);
  EXPECT_EQ(small("raw"), 32);
  EXPECT_EQ(small("q"), 16);
  EXPECT_EQ(small("f"), 15);
  EXPECT_EQ(small("plain"), 0);
  EXPECT_EQ(small("b"), 0);
}

TEST(DeltaModel, MaxDeltaBitsOfAScalarStruct) {
  IDLC_COMPILE_OK(compiled, R"(package t;
delta message M {
    uint<0 .. 7> three;
    int<-8192 .. 8191> fourteen;
    bool b;
    uint8 list[0 .. 2];
}
)");
  const Struct& m = find_struct(compiled->package(), "M");
  // changed bit; three: 1 + 3; fourteen: 1 + 2 + 14 (changed bit, selector, whole); b: 1; list:
  // bool(same) + count 2 bits + changed count 2 bits + two elements, each a position of gap 1 (1 bit) and
  // the larger of a change (the selector and 8 whole bits) and a whole element (8 bits).
  EXPECT_EQ(m.delta_cost.max, 1u + (1 + 3) + (1 + 2 + 14) + 1 + (1 + 2 + 2 + 2 * (1 + 2 + 8)));
  EXPECT_EQ(m.delta_cost.min, 1u);
}

TEST(DeltaModel, DeltaIsAKeywordOnlyBeforeMessageOrStruct) {
  IDLC_COMPILE_OK(compiled, R"(package t;
struct delta { uint8 value; }
enum Mode { delta, full }
delta struct D { delta d; Mode mode; }
message M { D x; uint8 delta_count; }
)");
  EXPECT_TRUE(find_struct(compiled->package(), "D").delta);
  EXPECT_FALSE(find_struct(compiled->package(), "delta").delta);
}

TEST(DeltaModel, ProtocolIdChangesOnlyWhereDeltaIsDeclared) {
  IDLC_COMPILE_OK(plain, "package t;\nstruct S { uint8 v; }\nmessage M { S s; }\n");
  IDLC_COMPILE_OK(delta, "package t;\nstruct S { uint8 v; }\ndelta message M { S s; }\n");
  IDLC_COMPILE_OK(again, "package t;\nstruct S { uint8 v; }\nmessage M { S s; }\n");
  EXPECT_NE(plain->package().protocol_id, delta->package().protocol_id);
  EXPECT_EQ(plain->package().protocol_id, again->package().protocol_id);
}

TEST(DeltaModel, LayoutNamesMaxDeltaBitsOfDeltaMessagesOnly) {
  IDLC_COMPILE_OK(compiled, "package t;\ndelta message D { uint<0 .. 7> v; }\nmessage P { uint8 v; }\n");
  const std::string text = idlc::layout_text(compiled->package());
  EXPECT_NE(text.find("message D  (type id 0)  MaxBits 3, MaxBytes 1, delta form MaxDeltaBits 5\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("message P  (type id 1)  MaxBits 8, MaxBytes 1\n"), std::string::npos) << text;
  const std::string json = idlc::layout_json(compiled->package());
  EXPECT_NE(json.find("\"max_delta_bits\": 5"), std::string::npos) << json;
  EXPECT_EQ(json.find("max_delta_bits"), json.rfind("max_delta_bits")) << "only the delta message has it";
}

}  // namespace
