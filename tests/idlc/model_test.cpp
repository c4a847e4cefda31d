// What the model decides so that back ends only print: initial values, the fields a read resets under
// an if, the fixed-width runs with their bit offsets (constant and reserved items included), the
// MessageType storage, the constants array capacities were written as; and that the emitter's output stays
// linear in an `else if` chain.
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "backend/cpp/emit_cpp.hpp"
#include "bitwire/serialize/serialize.hpp"
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

const Field& find_field(const Struct& s, const std::string& name) {
  for (const Field& f : s.fields) {
    if (f.name == name) return f;
  }
  ADD_FAILURE() << "no field " << name;
  return s.fields.front();
}

TEST(Model, InitialValuesAreDecidedByTheModel) {
  IDLC_COMPILE_OK(compiled, R"(package t;
enum Starts { A = 3, B }
enum Zero { Z, Y }
struct S {
    int<5 .. 9> above;
    int<-9 .. -5> below;
    int<-1 .. 1> around;
    fixed<2 .. 3, frac 4> fixed_above;
    Starts starts;
    Zero zero;
    uint8 declared = 7;
    uint8 list[2 .. 4];
    int<5 .. 9> fixed_list[3];
    string<4> text;
}
)");
  const Struct& s = find_struct(compiled->package(), "S");
  ASSERT_TRUE(find_field(s, "above").initial.element.has_value());
  EXPECT_EQ(find_field(s, "above").initial.element->integer, 5);
  EXPECT_EQ(find_field(s, "below").initial.element->integer, -5);
  EXPECT_FALSE(find_field(s, "around").initial.element.has_value());
  EXPECT_EQ(find_field(s, "fixed_above").initial.element->integer, 2 << 4);
  ASSERT_TRUE(find_field(s, "starts").initial.element.has_value());
  EXPECT_EQ(find_field(s, "starts").initial.element->kind, Value::Kind::Enumerator);
  EXPECT_EQ(find_field(s, "starts").initial.element->enumerator, 0u);
  EXPECT_FALSE(find_field(s, "zero").initial.element.has_value());
  EXPECT_EQ(find_field(s, "declared").initial.element->integer, 7);
  EXPECT_EQ(find_field(s, "list").initial.count, 2u);
  EXPECT_EQ(find_field(s, "fixed_list").initial.element->integer, 5);
  EXPECT_FALSE(find_field(s, "text").initial.element.has_value());
}

// A compressed float whose range excludes 0 starts at the wire value nearest zero (the bound, as the
// wire reads it back), so a new object is in range and reads back equal; a range holding 0 starts at 0.
TEST(Model, CompressedFloatsOutsideZeroStartAtTheBoundNearestZero) {
  IDLC_COMPILE_OK(compiled, R"(package t;
struct S {
    float<0.5 .. 1, res 0.1> above;
    float<-1 .. -0.45, res 0.1> below;
    float<-1 .. 1, res 0.1> around;
    float<0.5 .. 1, res 0.1> listed[2];
    float<0.5 .. 1, res 0.1> declared = 0.7;
}
)");
  const Struct& s = find_struct(compiled->package(), "S");
  auto round_trip = [](const Field& field, float value) {
    const CompressedFloatType& c = field.type.compressed;
    const bitwire::CompressedFloatParams params =
        bitwire::compressed_float_params(c.min, c.max, c.resolution);
    return bitwire::dequantize_compressed_float(bitwire::quantize_compressed_float(value, params), params);
  };
  const Field& above = find_field(s, "above");
  ASSERT_TRUE(above.initial.element.has_value());
  EXPECT_EQ(above.initial.element->kind, Value::Kind::Float);
  EXPECT_EQ(above.initial.element->number, 0.5);
  EXPECT_EQ(round_trip(above, 0.5f), 0.5f);
  const Field& below = find_field(s, "below");
  ASSERT_TRUE(below.initial.element.has_value());
  const auto start = static_cast<float>(below.initial.element->number);
  EXPECT_NEAR(start, -0.45f, 1e-6f);  // the top of the range as the wire reads it back
  EXPECT_LT(start, 0.0f);
  EXPECT_EQ(round_trip(below, start), start);
  EXPECT_FALSE(find_field(s, "around").initial.element.has_value());
  ASSERT_TRUE(find_field(s, "listed").initial.element.has_value());
  EXPECT_EQ(find_field(s, "listed").initial.element->number, 0.5);
  EXPECT_NEAR(find_field(s, "declared").initial.element->number, 0.7, 1e-6);
}

// 128-bit defaults are exact 128-bit values: up to 2^64 - 1 they print as one literal (unsigned past
// int64), past 64 bits as their two halves composed (C++ has no 128-bit literal).
TEST(Model, Int128DefaultsPrintAsLiteralsOrComposedHalves) {
  IDLC_COMPILE_OK(compiled, R"(package t;
struct S {
    uint128 top = 18446744073709551615;
    uint128 high = 9223372036854775808;
    int128 negative = -1;
    uint128 seed = 36893488147419103232;
    int128 low = -18446744073709551617;
    int128<-1267650600228229401496703205376 .. 1267650600228229401496703205376> flux = -1267650600228229401496703205376;
}
)");
  const Struct& s = find_struct(compiled->package(), "S");
  EXPECT_TRUE(find_field(s, "top").initial.element->wide == 18446744073709551615u);
  const std::string header = idlc::emit_cpp_header(compiled->package());
  EXPECT_NE(header.find("bitwire::uint128_t top = bitwire::uint128_t(18446744073709551615ULL);"),
            std::string::npos)
      << header;
  EXPECT_NE(header.find("bitwire::uint128_t high = bitwire::uint128_t(9223372036854775808ULL);"),
            std::string::npos);
  EXPECT_NE(header.find("bitwire::int128_t negative = bitwire::int128_t(-1);"), std::string::npos);
  EXPECT_NE(header.find("bitwire::uint128_t seed = bitwire::uint128_t((bitwire::uint128_t{2u} << 64) | 0u);"),
            std::string::npos);
  // -2^64 - 1: two's complement halves 2^64 - 2 and 2^64 - 1.
  EXPECT_NE(
      header.find(
          "bitwire::int128_t low = bitwire::int128_t((bitwire::uint128_t{18446744073709551614ULL} << 64) | "
          "18446744073709551615ULL);"),
      std::string::npos);
  // -2^100: halves 2^64 - 2^36 and 0, as schema prints its bound.
  EXPECT_NE(header.find("bitwire::int128_t((bitwire::uint128_t{18446744004990074880ULL} << 64) | 0u)"),
            std::string::npos);
  auto too_big = idlc::test::compile_text(
      "package t;\nstruct S { uint128 x = 170141183460469231731687303715884105728; }\n");
  EXPECT_EQ(too_big->schema, nullptr);
  auto negative = idlc::test::compile_text("package t;\nstruct S { uint128 x = -1; }\n");
  EXPECT_EQ(negative->schema, nullptr);
}

TEST(Model, AnOutermostIfResetsEveryFieldUnderItOnceAndNestedIfsNothing) {
  IDLC_COMPILE_OK(compiled, R"(package t;
struct S {
    bool a;
    bool b;
    if (a) {
        uint8 x;
        if (b) { uint8 y; } else { uint8 z; }
    } else if (b) {
        uint8 w;
    } else {
        uint8 v;
    }
    uint8 after;
}
)");
  const Struct& s = find_struct(compiled->package(), "S");
  ASSERT_EQ(s.body.size(), 4u);
  const Item& outer = s.body[2];
  ASSERT_EQ(outer.kind, ItemKind::If);
  std::vector<std::string> names;
  for (std::size_t index : outer.resets) names.push_back(s.fields[index].name);
  EXPECT_EQ(names, (std::vector<std::string>{"x", "y", "z", "w", "v"}));
  EXPECT_TRUE(outer.then_items[1].resets.empty());
  EXPECT_TRUE(outer.else_items[0].resets.empty());
}

TEST(Model, RunsOfFixedWidthFieldsWithTheirBitOffsets) {
  IDLC_COMPILE_OK(compiled, R"(package t;
struct Inner { uint8 a; bool b; }
struct S {
    uint16 tick;
    bool jump;
    int<0 .. 1023> yaw;
    Inner inner;
    uint8 list[0 .. 3];
    uint:5 five;
    float f;
    align;
    uint8 after_align;
    bool c;
    if (c) { uint8 p; bool q; }
    uint8 opt?;
    uint32 last;
}
)");
  const Struct& s = find_struct(compiled->package(), "S");
  ASSERT_EQ(s.runs.size(), 4u);
  const idlc::model::Run& first = s.runs[0];
  ASSERT_EQ(first.members.size(), 4u);  // tick, jump, yaw, inner
  EXPECT_EQ(first.members[0].offset, 0u);
  EXPECT_EQ(first.members[1].offset, 16u);
  EXPECT_EQ(first.members[2].offset, 17u);
  EXPECT_EQ(first.members[2].bits, 10u);
  EXPECT_EQ(first.members[3].offset, 27u);
  EXPECT_EQ(first.bits, 36u);
  ASSERT_EQ(s.runs[1].members.size(), 2u);  // five, f (after the variable array)
  EXPECT_EQ(s.runs[1].members[1].offset, 5u);
  EXPECT_EQ(s.runs[1].bits, 37u);
  ASSERT_EQ(s.runs[2].members.size(), 2u);  // after_align, c
  EXPECT_EQ(s.runs[2].bits, 9u);
  ASSERT_EQ(s.runs[3].members.size(), 1u);  // last (opt has a variable width)
  EXPECT_EQ(s.runs[3].members[0].item, s.body.size() - 1);
  const Item& condition = s.body[s.body.size() - 3];
  ASSERT_EQ(condition.kind, ItemKind::If);
  ASSERT_EQ(condition.then_runs.size(), 1u);
  EXPECT_EQ(condition.then_runs[0].bits, 9u);
}

// A constant or reserved item is a fixed-width read with its own check: it joins the run around it, so a
// header of magic, version and reserved bits reads from one bounds check (schema's ProbeHeader shape).
TEST(Model, ConstantAndReservedItemsJoinTheRunsAroundThem) {
  IDLC_COMPILE_OK(compiled, R"(package t;
message Header {
    const(0xAB, 8);
    uint32:3 version;
    reserved(5);
    align;
    uint64 id;
    reserved(3);
    bool last;
}
)");
  const Struct& s = find_struct(compiled->package(), "Header");
  ASSERT_EQ(s.runs.size(), 2u);
  const idlc::model::Run& first = s.runs[0];
  ASSERT_EQ(first.members.size(), 3u);  // const, version, reserved
  EXPECT_EQ(s.body[first.members[0].item].kind, ItemKind::Constant);
  EXPECT_EQ(first.members[1].offset, 8u);
  EXPECT_EQ(s.body[first.members[2].item].kind, ItemKind::Reserved);
  EXPECT_EQ(first.members[2].offset, 11u);
  EXPECT_EQ(first.bits, 16u);
  const idlc::model::Run& second = s.runs[1];
  ASSERT_EQ(second.members.size(), 3u);  // id, reserved, last
  EXPECT_EQ(second.members[1].offset, 64u);
  EXPECT_EQ(second.members[2].offset, 67u);
  EXPECT_EQ(second.bits, 68u);
}

// How a run is read is the model's decision (RunPiece), not the emitter's: greedy pieces of at most
// kMaxRunPieceBits in wire order, each one bounds check when it holds two or more items or one array or
// struct; a lone scalar or a zero-width piece is read on its own.
TEST(Model, RunsAreSplitIntoPiecesOfAtMost448Bits) {
  IDLC_COMPILE_OK(compiled, R"(package t;
struct V { int<0 .. 15> x; int<0 .. 15> y; }
message Long {
    uint64 a; uint64 b; uint64 c; uint64 d; uint64 e; uint64 f; uint64 g;
    uint64 h; uint32 i; bool j; V k; uint8 l[3];
}
message Alone { uint32 a; align; V v; align; uint8 list[2]; align; int<5 .. 5> zero; align; bool b; }
)");
  static_assert(kMaxRunPieceBits == 448);
  const Struct& long_message = find_struct(compiled->package(), "Long");
  ASSERT_EQ(long_message.runs.size(), 1u);
  const idlc::model::Run& run = long_message.runs[0];
  EXPECT_EQ(run.bits, 577u);
  ASSERT_EQ(run.pieces.size(), 2u);
  EXPECT_EQ(run.pieces[0].first, 0u);
  EXPECT_EQ(run.pieces[0].count, 7u);  // a .. g: 448 bits exactly; h would make 512
  EXPECT_EQ(run.pieces[0].bits, 448u);
  EXPECT_TRUE(run.pieces[0].grouped);
  EXPECT_EQ(run.pieces[1].first, 7u);
  EXPECT_EQ(run.pieces[1].count, 5u);  // h, i, j, k, l
  EXPECT_EQ(run.pieces[1].bits, 129u);
  EXPECT_TRUE(run.pieces[1].grouped);
  EXPECT_FALSE(run.pieces[0].joins_next);

  const Struct& alone = find_struct(compiled->package(), "Alone");
  ASSERT_EQ(alone.runs.size(), 5u);
  for (const idlc::model::Run& r : alone.runs) ASSERT_EQ(r.pieces.size(), 1u);
  EXPECT_FALSE(alone.runs[0].pieces[0].grouped);  // one scalar: a read of its own
  EXPECT_TRUE(alone.runs[1].pieces[0].grouped);   // a struct: several reads, one bounds check
  EXPECT_TRUE(alone.runs[2].pieces[0].grouped);   // an array: the same
  EXPECT_FALSE(alone.runs[3].pieces[0].grouped);  // zero bits: nothing to check
  EXPECT_EQ(alone.runs[3].pieces[0].bits, 0u);
  EXPECT_FALSE(alone.runs[4].pieces[0].grouped);
}

// Two pieces with only an `align` between are read as one (the padding's width is known when the read
// starts on a byte boundary) when neither is empty and both with the padding fit in 448 bits; the second
// of a pair starts none, and an if side is split on its own.
TEST(Model, PiecesAcrossAnAlignmentJoinWhenTheyFit) {
  IDLC_COMPILE_OK(compiled, R"(package t;
struct V { int<0 .. 15> x; int<0 .. 15> y; }
message Pair {
    uint16 a; bool b; align;     // 17 bits, padded to 24
    uint32 c; uint8 d; align;    // joins a .. b: 24 + 40 <= 448
    V e; align;                  // second of nothing yet, but e + f: 8 + 448 > 448
    uint64 f[7]; align;
    bool g;                      // f + g: 448 + 1 > 448
    bool h;
    if (h) { uint8 r; align; uint8 s; } else { uint8 t; }
}
message Empty { int<5 .. 5> z; align; uint8 q; }
)");
  const Struct& pair = find_struct(compiled->package(), "Pair");
  ASSERT_EQ(pair.runs.size(), 5u);
  EXPECT_TRUE(pair.runs[0].pieces[0].joins_next);  // a .. b with c .. d
  EXPECT_EQ(pair.runs[0].pieces[0].bits, 17u);
  EXPECT_EQ(pair.runs[0].pieces[0].joined_bits, 24u + 40u);  // padded to 24, then c and d
  EXPECT_FALSE(pair.runs[1].pieces[0].joins_next);           // c .. d is the second of a pair
  EXPECT_FALSE(pair.runs[2].pieces[0].joins_next);           // e + padding + f: 456 bits
  EXPECT_FALSE(pair.runs[3].pieces[0].joins_next);           // f + g: 449 bits
  const Item& condition = pair.body.back();
  ASSERT_EQ(condition.kind, ItemKind::If);
  ASSERT_EQ(condition.then_runs.size(), 2u);
  EXPECT_TRUE(condition.then_runs[0].pieces[0].joins_next);  // r + align + s, inside the then side
  ASSERT_EQ(condition.else_runs.size(), 1u);
  EXPECT_FALSE(condition.else_runs[0].pieces[0].joins_next);

  const Struct& empty = find_struct(compiled->package(), "Empty");
  ASSERT_EQ(empty.runs.size(), 2u);
  EXPECT_FALSE(empty.runs[0].pieces[0].joins_next);  // a zero-width piece joins nothing
}

// The emitter prints what the model decided: one ReadRun per grouped piece, one ReadRun<bits, true> per
// joined pair, and nothing else.
TEST(Model, TheEmitterPrintsThePiecesTheModelDecided) {
  IDLC_COMPILE_OK(compiled, R"(package t;
message Long {
    uint64 a; uint64 b; uint64 c; uint64 d; uint64 e; uint64 f; uint64 g;
    uint64 h; uint32 i; bool j; align; uint8 k; uint8 l;
}
)");
  const std::string header = idlc::emit_cpp_header(compiled->package());
  auto count = [&](const std::string& needle) {
    std::size_t n = 0;
    for (std::size_t at = header.find(needle); at != std::string::npos; at = header.find(needle, at + 1)) ++n;
    return n;
  };
  // a .. g (448 bits) alone; h .. j (97 bits) + padding (7) + k .. l (16) as one pair of 120 bits.
  EXPECT_EQ(count("bitwire::ReadRun<448> run_(stream_);"), 1u);
  EXPECT_EQ(count("bitwire::WriteRun<448> run_(stream_);"), 1u);
  EXPECT_EQ(count("bitwire::ReadRun<120, true> run_(stream_);"), 1u);
  EXPECT_EQ(count("bitwire::ReadRun<97> run_(stream_);"), 1u);  // the pair's first piece off a byte boundary
  EXPECT_EQ(count("bitwire::ReadRun<16> run_(stream_);"), 1u);
  EXPECT_EQ(count("run_(stream_);"), 7u);
  // Inside a run every statement reads the run, never the stream.
  EXPECT_NE(header.find("BITWIRE_TRY(bitwire::serialize_bits(run_, a, 64));"), std::string::npos);
  EXPECT_NE(header.find("BITWIRE_TRY(bitwire::serialize_bits(stream_, a, 64));"), std::string::npos);
}

// Inside a WriteRun every number, bool and enum is passed to the runtime as a copy (g++ then addresses it
// as the struct's member, folding the struct's address into the load); a nested struct is passed as itself.
// Reads, and writes outside a run, pass the field.
TEST(Model, AWriteRunPassesEachScalarFieldAsACopy) {
  IDLC_COMPILE_OK(compiled, R"(package t;
enum Mode { Idle, Walk, Run }
struct Pair { uint8 x; uint8 y; }
message Mixed { int<0 .. 1000> a; bool b; Mode m; float f; Pair p; uint16 c; }
)");
  const std::string header = idlc::emit_cpp_header(compiled->package());
  const std::size_t open = header.find("bitwire::WriteRun<77> run_(stream_);");  // Mixed's fields, all in one
  ASSERT_NE(open, std::string::npos);
  const std::size_t close = header.find("run_.finish();", open);
  ASSERT_NE(close, std::string::npos);
  const std::string run = header.substr(open, close - open);
  for (const char* name : {"a", "b", "m", "f", "c"}) {
    EXPECT_NE(run.find(std::string("auto value_ = ") + name + ";"), std::string::npos) << name;
  }
  EXPECT_NE(run.find("bitwire::serialize_int(run_, value_, std::int16_t{0}, std::int16_t{1000})"),
            std::string::npos);
  EXPECT_NE(run.find("bitwire::serialize_bool(run_, value_)"), std::string::npos);
  EXPECT_NE(run.find("bitwire::serialize_float(run_, value_)"), std::string::npos);
  EXPECT_NE(run.find("p.serialize(run_)"), std::string::npos);
  EXPECT_EQ(run.find("auto value_ = p;"), std::string::npos);
  // The read side of the same run passes the members themselves.
  EXPECT_NE(header.find("bitwire::serialize_bool(run_, b)"), std::string::npos);
  // So does the field-by-field branch (any other stream, and the only branch outside a run): the field
  // itself, not a copy.
  EXPECT_NE(header.find("bitwire::serialize_bool(stream_, b)"), std::string::npos);
  EXPECT_EQ(header.find("bitwire::serialize_bool(stream_, value_)"), std::string::npos);
}

TEST(Model, MessageTypeStorageIsTheModelsChoice) {
  std::string text = "package t;\n";
  for (int i = 0; i < 257; ++i) text += "message M" + std::to_string(i) + " {}\n";
  IDLC_COMPILE_OK(many, text);
  EXPECT_EQ(many->package().message_type_storage.bits, 16);
  IDLC_COMPILE_OK(few, "package t;\nmessage A {}\nmessage B {}\n");
  EXPECT_EQ(few->package().message_type_storage.bits, 8);
  EXPECT_FALSE(few->package().message_type_storage.is_signed);
}

TEST(Model, ArrayCapacitiesKeepTheConstantTheyWereWrittenAs) {
  IDLC_COMPILE_OK(compiled, R"(package t;
const MaxEntities = 64;
const Low = 2;
struct S {
    uint8 list[Low .. MaxEntities];
    uint8 fixed[MaxEntities];
    uint8 computed[0 .. MaxEntities - 1];
    string<MaxEntities> text;
}
)");
  const Struct& s = find_struct(compiled->package(), "S");
  ASSERT_NE(find_field(s, "list").array_min_constant, nullptr);
  EXPECT_EQ(find_field(s, "list").array_min_constant->name, "Low");
  EXPECT_EQ(find_field(s, "list").array_max_constant->name, "MaxEntities");
  EXPECT_EQ(find_field(s, "fixed").array_max_constant->name, "MaxEntities");
  EXPECT_EQ(find_field(s, "computed").array_max_constant, nullptr);
  EXPECT_EQ(find_field(s, "text").type.max_length_constant->name, "MaxEntities");
}

// Each link of an `else if` chain adds a bounded amount of output: no reset code per link that grows
// with the rest of the chain, no indentation that grows with the depth.
TEST(Model, ElseIfChainOutputIsLinear) {
  auto chain = [](int links) {
    std::string text = "package t;\nstruct S {\n    uint16 k;\n    bool b;\n    if (b) { uint8 f0; }\n";
    text.pop_back();
    for (int i = 1; i < links; ++i) text += " else if (b) { uint8 f" + std::to_string(i) + "; }";
    return text + "\n}\n";
  };
  // (The front end bounds a chain at 256 links.)
  IDLC_COMPILE_OK(small, chain(25));
  IDLC_COMPILE_OK(large, chain(250));
  const std::size_t small_size = idlc::emit_cpp_header(small->package()).size();
  const std::size_t large_size = idlc::emit_cpp_header(large->package()).size();
  // Ten times the links: about ten times the text (quadratic growth would be about a hundred times).
  EXPECT_LT(large_size, small_size * 12);
}

}  // namespace

namespace {

TEST(Model, EnumHeadroomWidensTheWireRangeAndTheStorage) {
  IDLC_COMPILE_OK(compiled, R"(package t;
enum Weapon max 300 { Fists, Pistol }
enum Plain { A, B, C }
enum Exact : int8 max 2 { X = -1, Y = 2 }
)");
  const Package& package = compiled->package();
  const Enum& weapon = package.enums[0];
  EXPECT_TRUE(weapon.headroom);
  EXPECT_EQ(weapon.max, 1);
  EXPECT_EQ(weapon.wire_max, 300);
  EXPECT_EQ(weapon.bits, 9);
  EXPECT_EQ(weapon.storage.bits, 16) << "the storage holds every value of the wire range";
  const Enum& plain = package.enums[1];
  EXPECT_FALSE(plain.headroom);
  EXPECT_EQ(plain.wire_max, plain.max);
  const Enum& exact = package.enums[2];
  EXPECT_TRUE(exact.headroom);
  EXPECT_FALSE(exact.contiguous);
  EXPECT_EQ(exact.bits, 2);
}

// `max` is a keyword only between an enum's name (or storage) and its `{`.
TEST(Model, MaxIsAnOrdinaryNameEverywhereElse) {
  IDLC_COMPILE_OK(compiled, R"(package t;
const max = 7;
enum limit : uint8 max max { low, max }
struct S { int<0 .. max> max_value; bytes[max] block; }
)");
  const Enum& e = compiled->package().enums[0];
  EXPECT_EQ(e.wire_max, 7);
  EXPECT_EQ(e.items[1].name, "max");
}

TEST(Model, UnsignedBoundsAboveInt64AreExact) {
  IDLC_COMPILE_OK(compiled, R"(package t;
struct S {
    uint<0 .. 18446744073709551615> full;
    uint64<18446744073709551000 .. 18446744073709551615> top;
    int<-9223372036854775808 .. 9223372036854775807> full_signed;
    uint64 ones = 0xFFFF_FFFF_FFFF_FFFF;
}
)");
  const Struct& s = find_struct(compiled->package(), "S");
  const IntegerType& full = find_field(s, "full").type.integer;
  EXPECT_EQ(full.bits, 64);
  EXPECT_FALSE(full.storage.is_signed);
  EXPECT_EQ(full.storage.bits, 64);
  EXPECT_EQ(integer_text(full.max, true), "18446744073709551615");
  const Field& top = find_field(s, "top");
  EXPECT_EQ(top.type.integer.bits, 10);
  EXPECT_EQ(integer_text(top.type.integer.min, true), "18446744073709551000");
  ASSERT_TRUE(top.initial.element.has_value()) << "zero is outside the range: the bound nearest zero";
  EXPECT_EQ(static_cast<std::uint64_t>(top.initial.element->integer), 18446744073709551000ull);
  const IntegerType& full_signed = find_field(s, "full_signed").type.integer;
  EXPECT_EQ(full_signed.bits, 64);
  EXPECT_TRUE(full_signed.storage.is_signed);
  EXPECT_EQ(static_cast<std::uint64_t>(find_field(s, "ones").default_value->integer), ~std::uint64_t{0});
}

// Enum values reach 2^64 - 1 with uint64 storage (declared, or chosen for values past 2^63 - 1), exactly:
// the model keeps them in 128 bits, the header spells them as unsigned literals, the fingerprint as their
// decimal value.
TEST(Model, EnumValuesReachTwoToThe64MinusOne) {
  IDLC_COMPILE_OK(compiled, R"(package t;
enum Wide : uint64 { low, half = 9223372036854775808, top = 18446744073709551615 }
enum Chosen { a = 9223372036854775808, b }
enum Room : uint64 max 18446744073709551615 { none, some }
message M { Wide w = Wide.top; Chosen c; Room r; if (w == Wide.half) { uint8 x; } }
)");
  const auto& enums = compiled->package().enums;
  ASSERT_EQ(enums.size(), 3u);
  const Enum& wide = enums[0];
  EXPECT_EQ(enum_value_text(wide.items[1].value), "9223372036854775808");
  EXPECT_EQ(enum_value_text(wide.max), "18446744073709551615");
  EXPECT_TRUE(wide.min == 0);
  EXPECT_EQ(wide.bits, 64);
  EXPECT_FALSE(wide.contiguous);
  EXPECT_FALSE(wide.storage.is_signed);
  EXPECT_EQ(wide.storage.bits, 64);
  const Enum& chosen = enums[1];
  EXPECT_EQ(enum_value_text(chosen.items[1].value), "9223372036854775809");
  EXPECT_EQ(chosen.bits, 1);
  EXPECT_FALSE(chosen.storage.is_signed);
  EXPECT_EQ(chosen.storage.bits, 64);
  const Enum& room = enums[2];
  EXPECT_TRUE(room.headroom);
  EXPECT_EQ(enum_value_text(room.wire_max), "18446744073709551615");
  EXPECT_EQ(room.bits, 64);
  const std::string header = idlc::emit_cpp_header(compiled->package());
  EXPECT_NE(header.find("half = 9223372036854775808ULL,"), std::string::npos) << header;
  EXPECT_NE(header.find("top = 18446744073709551615ULL,"), std::string::npos);
  EXPECT_NE(header.find("// Wire: [0, 18446744073709551615] in 64 bits"), std::string::npos);
  EXPECT_NE(header.find("static_cast<Chosen>(std::uint64_t{9223372036854775809ULL})"), std::string::npos);
  EXPECT_EQ(enum_value_text(-1), "-1");
  EXPECT_EQ(enum_value_text(std::numeric_limits<std::int64_t>::min()), "-9223372036854775808");
}

TEST(Model, ByteBlockIsAFixedLengthAlignedCopy) {
  IDLC_COMPILE_OK(compiled, R"(package t;
const KeyBytes = 16;
struct S { bool b; bytes[KeyBytes] key; bytes[3] tags[2]; }
)");
  const Struct& s = find_struct(compiled->package(), "S");
  const Field& key = find_field(s, "key");
  EXPECT_EQ(key.type.kind, TypeKind::ByteBlock);
  EXPECT_EQ(key.type.max_length, 16u);
  ASSERT_NE(key.type.max_length_constant, nullptr);
  EXPECT_EQ(key.type.max_length_constant->name, "KeyBytes");
  EXPECT_EQ(key.cost.min, 128u);
  EXPECT_EQ(key.cost.max, 135u);
  EXPECT_EQ(find_field(s, "tags").cost.max, 2u * (24 + 7));
  EXPECT_EQ(s.cost.max, 1u + 135 + 62);
  EXPECT_EQ(s.storage_bytes, 1u + 16 + 6);
  const std::string header = idlc::emit_cpp_header(compiled->package());
  EXPECT_NE(header.find("std::array<std::uint8_t, KeyBytes> key{};"), std::string::npos);
  EXPECT_NE(header.find("bitwire::serialize_bytes(stream_, key.data(), key.size())"), std::string::npos);
}

}  // namespace
