// The compile cost of generated code is linear in the schema (docs/schema-language.md, "Limits"): the
// shapes that once made g++ run for minutes or out of memory -- a long fixed array, structs nested deep,
// a balanced tree of structs, a flat message of many fields, and the delta form of deep nesting -- are
// emitted with idlc's library and compiled at test time with g++ -O1 (the header and its message factory:
// every message's serialize for the four stream kinds), each within a CPU budget of a fixed part plus a
// part per field the schema declares. The budgets are generous: they catch a compile cost that grows
// faster than the schema (each shape took over 100 s before), not a slow machine. A shape past the
// stated limit is refused by idlc at its token instead.
#include <sys/resource.h>

#include <gtest/gtest.h>

#include <string>

#include "emit_compile.hpp"

namespace bitwire::test::emit {
namespace {

// Fixed part and part per declared field of every shape's budget, in CPU seconds.
constexpr double kBudgetBase = 20.0;
constexpr double kBudgetPerField = 0.05;

double children_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_CHILDREN, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

struct Shape {
  std::string name;
  std::string text;
  int fields = 0;  // fields the schema declares
};

// `delta` before every struct and message when asked.
Shape nested(int depth, bool delta) {
  const std::string d = delta ? "delta " : "";
  Shape shape{"nested" + std::to_string(depth) + (delta ? "_delta" : ""), "package shapes;\n", 0};
  shape.text += d + "struct S0 { uint8 x; }\n";
  shape.fields = 1;
  for (int k = 1; k < depth; ++k) {
    shape.text += d + "struct S" + std::to_string(k) + " { S" + std::to_string(k - 1) + " a; uint8 y; }\n";
    shape.fields += 2;
  }
  shape.text += d + "message M { S" + std::to_string(depth - 1) + " s; }\n";
  shape.fields += 1;
  return shape;
}

// A balanced binary tree of structs with 2^depth leaves of `leaf`.
Shape tree(int depth, const std::string& leaf) {
  Shape shape{"tree" + std::to_string(depth), "package shapes;\nstruct T0 { " + leaf + " }\n",
              leaf.empty() ? 0 : 1};
  for (int k = 1; k <= depth; ++k) {
    shape.text += "struct T" + std::to_string(k) + " { T" + std::to_string(k - 1) + " a; T" +
                  std::to_string(k - 1) + " b; }\n";
    shape.fields += 2;
  }
  shape.text += "message M { T" + std::to_string(depth) + " t; }\n";
  shape.fields += 1;
  return shape;
}

Shape flat_bools(int count) {
  Shape shape{"bools" + std::to_string(count), "package shapes;\nmessage M {\n", count};
  for (int i = 0; i < count; ++i) shape.text += "  bool b" + std::to_string(i) + ";\n";
  shape.text += "}\n";
  return shape;
}

// Emits `shape` and compiles its header and factory (plus, for a delta shape, M's serialize_delta for
// write, read and measure) with `compiler` at `flags`; returns the CPU seconds, or a negative number with
// the failure in `failure`.
double compile_seconds(const Shape& shape, const std::string& compiler, const std::string& flags,
                       std::string& failure) {
  const fs::path dir = scratch_dir("cost_" + shape.name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::map<std::string, std::string> files{{"shapes.net", shape.text}};
  idlc::Diagnostics diagnostics;
  std::unique_ptr<idlc::model::Schema> model =
      idlc::compile_source("shapes.net", shape.text, diagnostics, files);
  if (!model) {
    failure = "idlc refused " + shape.name + ": " + diagnostics.summary();
    return -1;
  }
  const idlc::model::Package& package = *model->roots.front();
  write_text(dir / idlc::cpp_header_name(package), idlc::emit_cpp_header(package, {}));
  write_text(dir / idlc::cpp_source_name(package), idlc::emit_cpp_source(package, {}));
  std::string tu = "#include \"" + idlc::cpp_source_name(package) + "\"\n";
  if (shape.name.find("delta") != std::string::npos) {
    for (const char* stream : {"WriteStream", "ReadStream", "MeasureStream"}) {
      tu += std::string("template bool shapes::M::serialize_delta<bitwire::") + stream +
            ">(bitwire::" + stream + "&, const shapes::M&);\n";
    }
  }
  write_text(dir / "tu.cpp", tu);
  const fs::path log = dir / "compile.log";
  const std::string command = compiler + " -std=c++20 " + flags + " -c -I\"" + dir.string() + "\" -I\"" +
                              BITWIRE_RUNTIME_INCLUDE + "\" \"" + (dir / "tu.cpp").string() + "\" -o \"" +
                              (dir / "tu.o").string() + "\" > \"" + log.string() + "\" 2>&1";
  const double before = children_cpu_seconds();
  const int status = std::system(command.c_str());
  const double seconds = children_cpu_seconds() - before;
  if (status != 0) {
    failure = compiler + " failed on " + shape.name + ":\n" + read_text(log).substr(0, 4000);
    return -1;
  }
  fs::remove_all(dir);
  return seconds;
}

void expect_within_budget(const Shape& shape) {
  const std::string gxx = BITWIRE_GXX;
  if (gxx.empty()) GTEST_SKIP() << "no g++ found at configure time";
  std::string failure;
  const double seconds = compile_seconds(shape, gxx, "-O1", failure);
  ASSERT_GE(seconds, 0) << failure;
  const double budget = kBudgetBase + kBudgetPerField * shape.fields;
  EXPECT_LE(seconds, budget) << shape.name << " (" << shape.fields << " fields) took " << seconds
                             << " s of CPU to compile at -O1; the budget is " << budget << " s";
  std::printf("%s: %d fields, %.2f s (budget %.1f s)\n", shape.name.c_str(), shape.fields, seconds, budget);
}

TEST(CompileCost, LongByteArray) {
  expect_within_budget({"bytes65535", "package shapes;\nmessage M { uint8 a[65535]; }\n", 1});
}

// Ranged elements: a loop on the stream, not one run of 655,350 bits.
TEST(CompileCost, LongRangedArray) {
  expect_within_budget({"ranged65535", "package shapes;\nmessage M { uint16<0 .. 1000> a[65535]; }\n", 1});
}

TEST(CompileCost, DeepNesting) {
  expect_within_budget(nested(128, false));
}

TEST(CompileCost, DeepNestingDeltaForm) {
  expect_within_budget(nested(128, true));
}

TEST(CompileCost, StructTree) {
  expect_within_budget(tree(12, "bool x;"));
}

TEST(CompileCost, FlatMessage) {
  expect_within_budget(flat_bools(512));
}

// clang++ limits a fold expression to 256 nested operands: a run over more than about 14,000 bits (one
// load per 56 bits) was refused. No run is wider than 4,096 bits now.
TEST(CompileCost, ClangTakesLongFixedWidthArrays) {
  const std::string clangxx = BITWIRE_CLANGXX;
  if (clangxx.empty()) GTEST_SKIP() << "no clang++ found at configure time";
  std::string failure;
  const Shape shape{"clang_ranged",
                    "package shapes;\nstruct P { uint16<0 .. 1000> x; bool b; }\n"
                    "message M { P a[2000]; int<-5 .. 5> c[3000]; }\n",
                    4};
  EXPECT_GE(compile_seconds(shape, clangxx, "-O1", failure), 0) << failure;
}

// What the bounds change is only how the code is cut, never a bit: a message whose serialize is printed
// in parts, with a field of a called struct and an array too wide for a run, is built and run; its bytes read back
// one field at a time with plain stream reads (not generated code) give the values written, in order,
// and a generated read gives the object back.
TEST(CompileCost, PartsCalledStructsAndWideArraysKeepTheWire) {
  const std::string gxx = BITWIRE_GXX;
  if (gxx.empty()) GTEST_SKIP() << "no g++ found at configure time";
  Shape shape = nested(12, false);
  const std::string message = "message M {";
  shape.text = shape.text.substr(0, shape.text.find(message));
  shape.text += "message M {\n";
  for (int i = 0; i < 600; ++i) shape.text += "  bool b" + std::to_string(i) + ";\n";
  shape.text += "  S11 s;\n  uint16<0 .. 1000> r[1000];\n}\n";
  const fs::path dir = scratch_dir("cost_wire");
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::map<std::string, std::string> files{{"shapes.net", shape.text}};
  idlc::Diagnostics diagnostics;
  std::unique_ptr<idlc::model::Schema> model = idlc::compile_source("shapes.net", shape.text, diagnostics, files);
  ASSERT_NE(model, nullptr) << diagnostics.summary();
  const idlc::model::Package& package = *model->roots.front();
  const std::string header = idlc::emit_cpp_header(package, {});
  // The shapes this test is about: parts, an out-of-line struct, a wide array outside any run.
  EXPECT_NE(header.find("serialize_part_1_"), std::string::npos);
  EXPECT_NE(header.find("BITWIRE_OUT_OF_LINE bool serialize("), std::string::npos);
  EXPECT_NE(header.find("for (auto& item_ : r) {"), std::string::npos);
  EXPECT_EQ(header.find("Run<10000>"), std::string::npos);
  write_text(dir / idlc::cpp_header_name(package), header);
  write_text(dir / "main.cpp", R"(#include <cstdio>
#include <vector>
#include "shapes.hpp"

template <typename T>
bool expect_bits(bitwire::ReadStream& in, T expected, int bits) {
  T value{};
  if (!bitwire::serialize_bits(in, value, bits) || value != expected) {
    std::printf("bit %zu: %llu, expected %llu\n", in.bits_processed(), static_cast<unsigned long long>(value),
                static_cast<unsigned long long>(expected));
    return false;
  }
  return true;
}

int main() {
  shapes::M m;
  bool* bools[] = {)" + [] {
    std::string list;
    for (int i = 0; i < 600; ++i) list += "&m.b" + std::to_string(i) + ", ";
    return list;
  }() + R"(};
  for (int i = 0; i < 600; ++i) *bools[i] = (i * 7) % 3 == 0;
  // S11 { S10 a; uint8 y; } ... S0 { uint8 x; }: on the wire S0's x first, then each level's y.
  m.s.y = 111;
  m.s.a.a.a.a.a.a.a.a.a.a.a.x = 17;
  m.s.a.a.a.a.a.a.y = 66;
  for (int i = 0; i < 1000; ++i) m.r[static_cast<std::size_t>(i)] = static_cast<std::uint16_t>((i * 37) % 1001);
  std::vector<std::byte> buffer(shapes::M::MaxBytes + 8);
  bitwire::WriteStream out(buffer);
  if (!m.serialize(out)) return 1;
  out.flush();
  bitwire::MeasureStream measure;
  if (!m.serialize(measure) || measure.bits_processed() != out.bits_processed() ||
      out.bits_processed() != 600 + 12 * 8 + 1000 * 10) return 2;
  bitwire::ValidateStream validate;
  if (!m.serialize(validate)) return 3;
  bitwire::ReadStream in(buffer);
  for (int i = 0; i < 600; ++i) {
    if (!expect_bits(in, static_cast<std::uint8_t>(*bools[i] ? 1 : 0), 1)) return 4;
  }
  const std::uint8_t levels[12] = {17, 0, 0, 0, 0, 66, 0, 0, 0, 0, 0, 111};
  for (std::uint8_t level : levels) {
    if (!expect_bits(in, level, 8)) return 5;
  }
  for (int i = 0; i < 1000; ++i) {
    if (!expect_bits(in, static_cast<std::uint16_t>((i * 37) % 1001), 10)) return 6;
  }
  shapes::M back;
  bitwire::ReadStream generated(buffer);
  if (!back.serialize(generated) || !(back == m)) return 7;
  // Every prefix is refused, never read past.
  for (std::size_t size = 0; size < (out.bits_processed() + 7) / 8; size += 97) {
    shapes::M partial;
    bitwire::ReadStream short_in(std::span<const std::byte>(buffer.data(), size));
    if (partial.serialize(short_in)) return 8;
  }
  std::puts("ok");
  return 0;
}
)");
  const fs::path log = dir / "build.log";
  const std::string build = gxx + " -std=c++20 -O1 -Wall -Wextra -Werror -Wconversion -Wsign-conversion -Wshadow -I\"" +
                            dir.string() + "\" -I\"" + BITWIRE_RUNTIME_INCLUDE + "\" \"" + (dir / "main.cpp").string() +
                            "\" -o \"" + (dir / "main").string() + "\" > \"" + log.string() + "\" 2>&1";
  ASSERT_EQ(std::system(build.c_str()), 0) << read_text(log).substr(0, 4000);
  const std::string run = "\"" + (dir / "main").string() + "\" > \"" + log.string() + "\" 2>&1";
  EXPECT_EQ(std::system(run.c_str()), 0) << read_text(log);
  EXPECT_EQ(read_text(log), "ok\n");
  fs::remove_all(dir);
}

// Past the limit on members of struct type (counted through nested structs), idlc refuses the struct at
// its name, instead of emitting a header no compiler builds: a tree of 2^26 empty leaves ran g++ out of
// memory.
TEST(CompileCost, TreeOfEmptyLeavesIsRefusedAtTheLimit) {
  const Shape shape = tree(26, "");
  std::map<std::string, std::string> files{{"shapes.net", shape.text}};
  idlc::Diagnostics diagnostics;
  EXPECT_EQ(idlc::compile_source("shapes.net", shape.text, diagnostics, files), nullptr);
  EXPECT_NE(diagnostics.summary().find("20:8: T18 holds 524286 members of struct type counted through "
                                       "its nested structs, over the limit of 262144"),
            std::string::npos)
      << diagnostics.summary();
  // One level less is accepted (and compiles: its serialize is called, not flattened).
  const Shape accepted = tree(17, "");
  std::map<std::string, std::string> accepted_files{{"shapes.net", accepted.text}};
  idlc::Diagnostics accepted_diagnostics;
  EXPECT_NE(idlc::compile_source("shapes.net", accepted.text, accepted_diagnostics, accepted_files), nullptr)
      << accepted_diagnostics.summary();
}

}  // namespace
}  // namespace bitwire::test::emit
