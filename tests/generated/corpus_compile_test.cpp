// "Every schema idlc accepts compiles": a deterministic corpus of generated valid schemas (every
// construct, hostile names, imports), emitted and compiled together by g++ and clang++ at -Werror.
#include <gtest/gtest.h>

#include "emit_compile.hpp"
#include "schema_generator.hpp"

namespace {

using namespace bitwire::test::emit;

constexpr int kSchemas = 36;

TEST(CorpusCompile, EveryGeneratedSchemaIsAcceptedAndItsOutputCompiles) {
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

}  // namespace
