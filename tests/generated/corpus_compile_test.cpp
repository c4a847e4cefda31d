// "Every schema idlc accepts compiles": a deterministic corpus of generated valid schemas (every
// construct, hostile names, imports), emitted and compiled together by g++ and clang++ at -Werror.
#include <gtest/gtest.h>

#include "emit_compile.hpp"
#include "backend/bench/emit_cpp_bench.hpp"
#include "schema_generator.hpp"

namespace {

using namespace bitwire::test::emit;

constexpr int kSchemas = 36;

std::vector<Schema> corpus_schemas() {
  std::vector<Schema> schemas;
  for (int k = 0; k < kSchemas; ++k) {
    bitwire::test::corpus::SchemaGenerator generator(static_cast<std::uint64_t>(k));
    // Every third schema imports the one before it.
    const bool imports = k % 3 == 2;
    const std::string previous = "corpus" + std::to_string(k - 1);
    schemas.push_back({"corpus" + std::to_string(k) + ".net",
                       generator.schema("corpus" + std::to_string(k), imports ? previous + ".net" : "",
                                        imports ? previous : "")});
  }
  return schemas;
}

TEST(CorpusCompile, EveryGeneratedSchemaIsAcceptedAndItsOutputCompiles) {
  const std::vector<Schema> schemas = corpus_schemas();
  const fs::path dir = scratch_dir("corpus");
  const Emitted emitted = emit_all(schemas, dir);
  std::string texts;
  for (const Schema& schema : schemas) texts += "---- " + schema.name + "\n" + schema.text;
  ASSERT_EQ(emitted.errors, "") << texts;
  ASSERT_EQ(emitted.headers.size(), schemas.size());
  const std::string failures = compile_tu(dir);
  EXPECT_EQ(failures, "");
  if (failures.empty()) fs::remove_all(dir);  // kept for inspection when it fails
}

// The random-instance headers (idlc --random) of the same corpus compile warning-free with both compilers:
// every construct, hostile names (stream, value, item, ...), imports. One standard per compiler.
TEST(CorpusCompile, TheRandomHeadersOfEveryGeneratedSchemaCompile) {
  const std::vector<Schema> schemas = corpus_schemas();
  const fs::path dir = scratch_dir("corpus_random");
  ASSERT_EQ(emit_all(schemas, dir).errors, "");
  std::map<std::string, std::string> files;
  for (const Schema& schema : schemas) files[schema.name] = schema.text;
  std::string tu = "#include <memory>\n\n#include \"bitwire/core/random.hpp\"\n";
  std::string calls;
  for (const Schema& schema : schemas) {
    idlc::Diagnostics diagnostics;
    std::unique_ptr<idlc::model::Schema> model = idlc::compile_source(schema.name, schema.text, diagnostics, files);
    ASSERT_NE(model, nullptr) << schema.name;
    for (const idlc::model::Package& package : model->packages) {
      write_text(dir / idlc::cpp_random_header_name(package), idlc::emit_cpp_random_header(package));
    }
    const idlc::model::Package& root = *model->roots.front();
    tu += "#include \"" + idlc::cpp_random_header_name(root) + "\"\n";
    std::string ns;
    for (const std::string& part : root.name_parts) ns += "::" + part;
    for (const idlc::model::Struct& st : root.structs) {
      calls += "  bitwire::random_fill(rng, *std::make_unique<" + ns + "::" + st.name + ">());\n";
    }
  }
  tu += "\nvoid fill_all(bitwire::Random& rng) {\n" + calls + "}\n";
  write_text(dir / "random_tu.cpp", tu);
  std::string failures;
  for (const Compiler& compiler : compilers()) {
    if (compiler.label.find("gnu++") != std::string::npos) continue;
    const fs::path log = dir / "compile.log";
    const std::string command = compiler.command +
                                " -fsyntax-only -Wall -Wextra -Werror -Wconversion -Wsign-conversion -Wshadow"
                                " -I\"" + dir.string() + "\" -I\"" + BITWIRE_RUNTIME_INCLUDE + "\" \"" +
                                (dir / "random_tu.cpp").string() + "\" > \"" + log.string() + "\" 2>&1";
    if (std::system(command.c_str()) != 0) failures += compiler.label + " failed:\n" + read_text(log).substr(0, 4000) + "\n";
  }
  EXPECT_EQ(failures, "");
  if (failures.empty()) fs::remove_all(dir);  // kept for inspection when it fails
}

// idlc --no-format / idlc_generate(... NO_FORMAT): the output without formatting code compiles (every
// construct, imports, the message factories) and is smaller than the formatted output.
TEST(CorpusCompile, OutputWithoutFormattingCompilesAndIsSmaller) {
  std::vector<Schema> schemas;
  // Six schemas (two import the one before): every construct, a few seconds per compiler.
  for (int k = 0; k < 6; ++k) {
    bitwire::test::corpus::SchemaGenerator generator(static_cast<std::uint64_t>(k));
    const bool imports = k % 3 == 2;
    const std::string previous = "plain" + std::to_string(k - 1);
    schemas.push_back({"plain" + std::to_string(k) + ".net",
                       generator.schema("plain" + std::to_string(k), imports ? previous + ".net" : "",
                                        imports ? previous : "")});
  }
  const fs::path formatted_dir = scratch_dir("formatted");
  const Emitted formatted = emit_all(schemas, formatted_dir);
  fs::remove_all(formatted_dir);
  const fs::path dir = scratch_dir("plain");
  idlc::CppOptions options;
  options.format = false;
  const Emitted plain = emit_all(schemas, dir, options);
  ASSERT_EQ(plain.errors, "");
  EXPECT_EQ(plain.all_text.find("format_value"), std::string::npos);
  EXPECT_EQ(plain.all_text.find("bitwire/serialize/format.hpp"), std::string::npos);
  EXPECT_EQ(plain.all_text.find("std::string"), std::string::npos);
  EXPECT_LT(plain.all_text.size() * 10, formatted.all_text.size() * 9)
      << plain.all_text.size() << " bytes without formatting, " << formatted.all_text.size() << " with";
  const std::string failures = compile_tu(dir);
  EXPECT_EQ(failures, "");
  if (failures.empty()) fs::remove_all(dir);  // kept for inspection when it fails
}

}  // namespace
