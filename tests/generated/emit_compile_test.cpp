// Schemas idlc accepts must give C++ that compiles warning-free with g++ and clang++, and that means
// what the schema says. Each test here is a schema that once produced broken or hijacked output.
#include <gtest/gtest.h>

#include "emit_compile.hpp"
#include "backend/cpp/emit_cpp_text.hpp"

namespace {

using namespace bitwire::test::emit;

// Emits `text` as `name`.net and compiles it with every compiler; the schema must be accepted.
void expect_compiles(const std::string& name, const std::string& text, Emitted* out = nullptr) {
  const fs::path dir = scratch_dir(name);
  const Emitted emitted = emit_all({{name + ".net", text}}, dir);
  ASSERT_EQ(emitted.errors, "");
  const std::string failures = compile_tu(dir);
  EXPECT_EQ(failures, "") << emitted.all_text;
  if (failures.empty()) fs::remove_all(dir);  // kept for inspection when it fails
  if (out != nullptr) *out = emitted;
}

TEST(EmitCompile, DocCommentEndingInBackslashDoesNotSpliceTheNextLine) {
  Emitted emitted;
  expect_compiles("doc_backslash", "package t;\n"
                                   "struct S {\n"
                                   "    /// a path like C:\\\n"
                                   "    uint8 value;\n"
                                   "    /// trigraph backslash ?" "?/\n"
                                   "    uint8 other;\n"
                                   "}\n",
                  &emitted);
  EXPECT_EQ(emitted.all_text.find("\\\n"), std::string::npos);
}

// Two defences, each tested on its own: the front end refuses a lone CR (it would end a line for the
// compiler but not for the schema's `//` comment), and the emitter's comment text never contains a line
// end, whatever reaches it.
TEST(EmitCompile, CarriageReturnInDocCommentCannotInjectCode) {
  const std::string text = "package t;\n/// harmless\r#error injected\nstruct S { uint8 value; }\n";
  const fs::path dir = scratch_dir("doc_cr");
  const Emitted emitted = emit_all({{"doc_cr.net", text}}, dir);
  EXPECT_NE(emitted.errors.find("carriage return"), std::string::npos) << emitted.errors;
  EXPECT_EQ(emitted.all_text.find("#error"), std::string::npos);
  fs::remove_all(dir);

  for (const std::string& line : std::initializer_list<std::string>{"harmless\r#error injected", "a\nb", "a\r\nb", "ends in \\", "trigraph ?" "?/",
                                 std::string("nul \0 and \x1b escape", sizeof "nul \0 and \x1b escape" - 1)}) {
    const std::string comment = idlc::cpp::comment_text(line);
    EXPECT_EQ(comment.find_first_of("\r\n"), std::string::npos) << comment;
    EXPECT_NE(comment.back(), '\\') << comment;
    EXPECT_EQ(comment.find(std::string(1, '\0')), std::string::npos) << comment;
  }
}

TEST(EmitCompile, ControlCharactersInDocCommentsStayInTheComment) {
  std::string text = "package t;\n/// form\ffeed, vertical\vtab, nul";
  text += '\0';
  text += " and bell\a, escape\x1b\nstruct S { uint8 value; }\n";
  const fs::path dir = scratch_dir("doc_control");
  const Emitted emitted = emit_all({{"doc_control.net", text}}, dir);
  ASSERT_EQ(emitted.errors, "");
  EXPECT_EQ(compile_tu(dir), "") << emitted.all_text;
  if (!HasFailure()) fs::remove_all(dir);
}

// Unicode bidirectional controls in a doc comment (an unpaired override, the Trojan Source shape) reach
// the header as U+XXXX text: it compiles under -Werror, where g++'s -Wbidi-chars refused the raw bytes.
TEST(EmitCompile, BidiControlsInDocCommentsCompileUnderWerror) {
  expect_compiles("doc_bidi",
                  "package t;\n"
                  "/// evil \xE2\x80\xAE } ; uint8 evil; \xE2\x81\xA6 end\n"
                  "struct S {\n"
                  "    /// isolate \xE2\x81\xA7 and mark \xE2\x80\x8F\n"
                  "    bool b;\n"
                  "}\n");
}

// Enum values past 2^63 - 1 are unsigned literals of the uint64 storage: no narrowing, no sign
// conversion, in the enum, its wire range, a default and a condition.
TEST(EmitCompile, UnsignedEnumValuesPast2To63CompileUnderWerror) {
  expect_compiles("enum_uint64", R"(package t;
enum Wide : uint64 { low, half = 9223372036854775808, top = 18446744073709551615 }
enum Chosen { a = 9223372036854775808, b }
enum Room : uint64 max 18446744073709551615 { none, some }
message M {
    Wide w = Wide.top;
    Chosen c = Chosen.b;
    Room r;
    Wide many[0 .. 2];
    if (w == Wide.half) { uint8 x; }
}
)");
}

// Every name the generated code declares or uses next to the fields: locals, parameters, the stream and
// its template parameter, the formatter's parameters, the factory's and serialize_message's.
TEST(EmitCompile, FieldsNamedLikeGeneratedLocalsCompile) {
  expect_compiles("local_names", R"(package t;
flags Bits { A, B }
enum Kind { X, Y }
struct Inner { uint8 v; }
struct Locals {
    bool stream;
    Inner Stream;
    uint8 count[0 .. 4];
    uint8 i[2];
    uint8 item[0 .. 3];
    Bits mask;
    bytes<8> length;
    sparse uint8 position[5];
    sparse bool next[3];
    uint8 at;
    uint8 is_changed;
    uint8 items[3];
    uint8 value;
    uint8 out;
    uint8 name;
    uint8 a;
    uint8 b;
    uint8 set;
    uint8 flag;
    uint8 bits;
    Kind type;
    Inner body;
    uint8 first;
    uint8 largest;
    if (stream) { uint8 then_side; } else if (type == Y) { uint8 else_side; }
}
message Carrier { Locals locals; }
)");
}

// Types named like the formatter's, the factory's and serialize_message's parameters and locals.
TEST(EmitCompile, TypesNamedLikeGeneratedParametersCompile) {
  expect_compiles("type_names", R"(package t;
enum name { A, B }
flags first { X }
struct Stream { uint8 v; }
struct out { uint8 v; }
struct value { out o; Stream s; name n; first f; }
message type { value v; }
message body { uint8 v; }
message largest { uint8 v; }
message stream { uint8 v; }
)");
}

TEST(EmitCompile, FixedArraysWithImplicitDefaultsNamedItems) {
  expect_compiles("items_lambda", R"(package t;
enum Kind { X = 1, Y }
struct S {
    Kind items[3];
    int<1 .. 5> items_count_like[2];
}
)");
}

TEST(EmitCompile, EmptyStructsAndMessagesHaveNoUnusedParameters) {
  expect_compiles("empty", R"(package t;
struct Empty {}
message Nothing {}
message OnlyCheck { check; }
message HoldsEmpty { Empty inner; }
message EmptyIf { bool on; if (on) {} else {} }
)");
}

TEST(EmitCompile, TrigraphsInDefaultsAndDocsAreNotTrigraphs) {
  Emitted emitted;
  // Written with "?" "?" so that this file itself holds no trigraph.
  const std::string q = "?" "?";
  expect_compiles("trigraphs",
                  "package t;\n"
                  "/// what" + q + "/\n"
                  "/// hash " + q + "= and " + q + "( and " + q + "!\n"
                  "struct S {\n"
                  "    string<16> text = \"" + q + "=" + q + "/" + q + "'" + q + "(\";\n"
                  "    bytes<8> raw = \"" + q + ")" + q + "!\";\n"
                  "}\n",
                  &emitted);
  EXPECT_EQ(emitted.all_text.find("\"" + q + "="), std::string::npos);
}

TEST(EmitCompile, ArrayCapacitiesPrintTheirConstantNames) {
  Emitted emitted;
  expect_compiles("capacities", R"(package t;
const MaxEntities = 64;
const MaxName = 16;
struct E { uint8 id; }
struct S {
    E entities[0 .. MaxEntities];
    E fixed[MaxEntities];
    sparse uint8 sparse_values[MaxEntities];
    string<MaxName> name;
    bytes<MaxName> blob;
    E computed[0 .. MaxEntities / 2];
}
)",
                  &emitted);
  EXPECT_NE(emitted.all_text.find("bitwire::FixedVector<E, MaxEntities> entities"), std::string::npos);
  EXPECT_NE(emitted.all_text.find("std::array<E, MaxEntities> fixed"), std::string::npos);
  EXPECT_NE(emitted.all_text.find("std::array<bool, MaxEntities> sparse_values_changed"), std::string::npos);
  EXPECT_NE(emitted.all_text.find("bitwire::FixedString<MaxName> name"), std::string::npos);
  EXPECT_NE(emitted.all_text.find("bitwire::FixedVector<std::uint8_t, MaxName> blob"), std::string::npos);
  EXPECT_NE(emitted.all_text.find("bitwire::FixedVector<E, 32> computed"), std::string::npos);
}

// operator== is a defaulted const member, not a hidden friend: a hidden friend joins the overload set of
// every comparison in the package's namespace, which made including a 2,000-message header superlinear
// (bench/RESULTS.md). Compiled: taking its address as a const member function pointer, and comparing both
// ways (the reversed and != forms C++20 synthesises from the member).
TEST(EmitCompile, EqualityIsAConstMemberNotAHiddenFriend) {
  const fs::path dir = scratch_dir("equality_member");
  const Emitted emitted = emit_all({{"equality_member.net", R"(package t;
struct Inner { uint8 v; }
struct Outer { Inner inner; Inner list[0 .. 3]; Inner maybe?; uint8 fixed[2]; }
message Carrier { Outer outer; }
)"}},
                                   dir);
  ASSERT_EQ(emitted.errors, "");
  for (const char* type : {"Inner", "Outer", "Carrier"}) {
    const std::string name(type);
    EXPECT_NE(emitted.all_text.find("bool operator==(const " + name + "&) const = default;"), std::string::npos)
        << name;
  }
  EXPECT_EQ(emitted.all_text.find("friend bool operator=="), std::string::npos);
  std::string tu = read_text(dir / "tu.cpp");
  tu += R"(
#include <type_traits>
// A member function (a hidden friend has no address through the class), callable on a const object.
template <typename T>
constexpr bool const_member_equality = std::is_member_function_pointer_v<decltype(&T::operator==)> &&
                                       std::is_invocable_r_v<bool, decltype(&T::operator==), const T&, const T&>;
static_assert(const_member_equality<t::Inner>);
static_assert(const_member_equality<t::Outer>);
static_assert(const_member_equality<t::Carrier>);
bool compare_both_ways(const t::Outer& a, const t::Outer& b) { return (a == b) == (b == a) && (a != b) == (b != a); }
)";
  write_text(dir / "tu.cpp", tu);
  const std::string failures = compile_tu(dir);
  EXPECT_EQ(failures, "") << emitted.all_text;
  if (failures.empty()) fs::remove_all(dir);
}


// The formatting functions users call: one constrained template pair per package instead of an overload
// pair per struct (bench/RESULTS.md: the overloads made including a large package superlinear). Two
// packages in one translation unit, the second importing the first and reusing its struct names: an
// unqualified to_string / format_value finds a struct, a struct nested in another package's struct and
// a message by argument-dependent lookup; with both namespaces brought in by using-directives nothing is
// ambiguous (each template takes only its own package's structs); arrays reach the template through
// bitwire::format_value; and neither template takes an unrelated type, even one with a format_ member.
TEST(EmitCompile, FormattingIsOneTemplatePairPerPackageAndTwoPackagesDoNotClash) {
  const fs::path dir = scratch_dir("format_packages");
  const Emitted emitted = emit_all({{"fa.net", R"(package fa;
struct Inner { uint8 v; }
struct Outer { Inner inner; Inner list[0 .. 3]; }
message Note { Outer outer; }
)"},
                                    {"fb.net", R"(package fb;
import "fa.net";
struct Inner { uint16 w; }
message Holder { fa.Outer outer; Inner own; fa.Inner theirs[2]; }
)"}},
                                   dir);
  ASSERT_EQ(emitted.errors, "");
  // all_text holds fa's header twice (as a root and as fb's import): one to_string and one format_value
  // declaration at namespace scope per header, however many structs it has.
  EXPECT_EQ(emitted.headers.size(), 2u);
  const auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = emitted.all_text.find(what); at != std::string::npos; at = emitted.all_text.find(what, at + 1)) ++n;
    return n;
  };
  const std::size_t headers = count("#pragma once");
  EXPECT_EQ(count("\ninline std::string to_string("), headers);
  EXPECT_EQ(count("\ninline void format_value("), headers);
  std::string tu = read_text(dir / "tu.cpp");
  tu += R"(
#include <array>
#include <string>
namespace user {
std::string by_argument_dependent_lookup() {
  fa::Inner inner;
  fa::Outer outer;
  fa::Note note;
  fb::Inner other;
  fb::Holder holder;
  std::string out = to_string(inner) + to_string(outer) + to_string(note) + to_string(other) + to_string(holder);
  format_value(out, outer);
  format_value(out, holder);
  bitwire::format_value(out, std::array<fa::Inner, 2>{});
  bitwire::format_value(out, std::array<fb::Holder, 1>{});
  return out;
}
struct Unrelated {
  static void format_(std::string&, const Unrelated&) {}
};
}  // namespace user
namespace both {
using namespace fa;
using namespace fb;
std::string with_both_namespaces() {
  std::string out = to_string(fa::Inner{}) + to_string(fb::Inner{}) + to_string(fa::Note{}) + to_string(fb::Holder{});
  format_value(out, fa::Outer{});
  format_value(out, fb::Inner{});
  return out;
}
template <typename T>
concept HasToString = requires(const T& value) { to_string(value); };
template <typename T>
concept HasFormatValue = requires(std::string& out, const T& value) { format_value(out, value); };
static_assert(HasToString<fa::Outer> && HasToString<fb::Holder> && HasFormatValue<fa::Note>);
static_assert(!HasToString<user::Unrelated> && !HasFormatValue<user::Unrelated>);
static_assert(!HasToString<int> && !HasFormatValue<std::string>);
}  // namespace both
)";
  write_text(dir / "tu.cpp", tu);
  const std::string failures = compile_tu(dir);
  EXPECT_EQ(failures, "") << emitted.all_text;
  if (failures.empty()) fs::remove_all(dir);
}

// A fraction at least as wide as the raw range's smallest storage (0 .. 0 needs no bits at all) once
// chose storage that serialize_fixed's static_assert refuses.
TEST(EmitCompile, FixedPointWithFractionsWiderThanItsRawRangeCompiles) {
  expect_compiles("fixed_small_range_large_frac", R"(package t;
message M {
    fixed<0 .. 0, frac 8> a;
    fixed<0 .. 0, frac 40> b;
    fixed<0 .. 0, frac 63> c;
    fixed<0 .. 0, frac 64> d;
    fixed<0 .. 0, frac 126> e;
    fixed<0 .. 1, frac 16> f = 0.5;
    fixed<-1 .. 0, frac 16> g = -0.25;
    fixed<-1 .. 1, frac 70> h = 0.75;
    fixed<-1 .. 0, frac 126> i = -1;
    fixed<0 .. 1, frac 126> j[0 .. 2];
}
)");
}

// The same storage rule, run: a struct of such fields set to values other than its defaults (the top of
// frac 126, 2^-126, a 71-bit negative raw) is written, read into a new object and compared, built and run
// with every compiler.
TEST(EmitCompile, FixedPointWithFractionsWiderThanItsRawRangeRoundTrips) {
  const fs::path dir = scratch_dir("fixed_round_trip");
  const Emitted emitted = emit_all({{"fixed_round_trip.net", R"(package t;
struct S {
    fixed<0 .. 0, frac 8> a;
    fixed<0 .. 0, frac 126> b;
    fixed<0 .. 1, frac 16> c = 0.5;
    fixed<-1 .. 0, frac 16> d = -0.25;
    fixed<-1 .. 1, frac 70> e = 0.75;
    fixed<-1 .. 0, frac 126> f = -1;
    fixed<0 .. 1, frac 126> g;
    fixed<0 .. 1, frac 126> h;
    fixed<0 .. 0, frac 63> i;
}
)"}},
                                   dir);
  ASSERT_EQ(emitted.errors, "");
  write_text(dir / "main.cpp", R"(#include <cstddef>
#include <vector>

#include "fixed_round_trip.hpp"

int main() {
  t::S s;
  s.c = 65536;
  s.d = -65536;
  s.e = -(bitwire::int128_t{1} << 70) + 3;
  s.f = 0;
  s.g = bitwire::uint128_t{1} << 126;
  s.h = 1;
  std::vector<std::byte> buffer(t::S::MaxBytes + 8);
  bitwire::WriteStream writer(buffer);
  if (!s.serialize(writer)) return 1;
  writer.flush();
  t::S back;
  if (back == s) return 2;
  bitwire::ReadStream reader(buffer);
  if (!back.serialize(reader)) return 3;
  return back == s ? 0 : 4;
}
)");
  std::string failures;
  for (const Compiler& compiler : compilers()) {
    const fs::path log = dir / "build.log";
    const std::string command = compiler.command + " -O1 -Wall -Wextra -Werror -I\"" + dir.string() +
                                "\" -I\"" + BITWIRE_RUNTIME_INCLUDE + "\" \"" + (dir / "main.cpp").string() +
                                "\" -o \"" + (dir / "round_trip").string() + "\" > \"" + log.string() +
                                "\" 2>&1 && \"" + (dir / "round_trip").string() + "\" >> \"" + log.string() +
                                "\" 2>&1";
    const int status = std::system(command.c_str());
    if (status != 0) {
      failures += compiler.label + " (status " + std::to_string(status) + "):\n" +
                  read_text(log).substr(0, 3000) + "\n";
    }
  }
  EXPECT_EQ(failures, "") << emitted.all_text;
  if (failures.empty()) fs::remove_all(dir);
}

}  // namespace
